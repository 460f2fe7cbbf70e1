/*
 * LinkDependencies: what the traces show a host op waited for (sync_deps, inter_thread_dep,
 * wait_dur, gap_dur) and the waits between GPU streams (cross_stream_deps).
 */
#include "link-dependencies.h"

#include "link-text.h"

#include <algorithm>
#include <map>
#include <tuple>

namespace ns3
{

namespace
{

/** How a runtime call waits for the device. */
enum class SyncKind
{
    NONE,
    DEVICE, //!< all streams: cudaDeviceSynchronize, cuCtxSynchronize, hipDeviceSynchronize
    STREAM, //!< one stream: cudaStreamSynchronize, hipStreamSynchronize
    EVENT,  //!< one event's stream: cudaEventSynchronize, hipEventSynchronize
    MEMCPY  //!< a blocking copy: cudaMemcpy, cuMemcpyDtoH, hipMemcpy, ...
};

SyncKind
ClassifySync(const std::string& name)
{
    const std::string lower = LowerAscii(name);
    if (ContainsText(lower, "synchronize"))
    {
        if (ContainsText(lower, "stream"))
        {
            return SyncKind::STREAM;
        }
        if (ContainsText(lower, "event"))
        {
            return SyncKind::EVENT;
        }
        return SyncKind::DEVICE; // device, context, thread
    }
    if (ContainsText(lower, "memcpy") && !ContainsText(lower, "async"))
    {
        return SyncKind::MEMCPY;
    }
    return SyncKind::NONE;
}

} // namespace

LinkDependencies::LinkDependencies(const TraceLinker::Options& options,
                                   const HostTrace& host,
                                   const KinetoTrace& device,
                                   const HostOpMatching& matching,
                                   const GpuOpAttachment& attachment)
    : m_options(options),
      m_device(device),
      m_matching(matching),
      m_attachment(attachment),
      m_ops(host.GetOps()),
      m_cpu(device.GetCpuOps()),
      m_gpu(device.GetGpuOps())
{
}

void
LinkDependencies::Find(std::optional<TimeNs> stepStart)
{
    AddSyncDeps();
    AddInterThreadDeps();
    AddThreadWaits();
    AddCrossStreamDeps();
    AddGaps(stepStart);
}

const std::vector<uint32_t>&
LinkDependencies::GetSyncDeps(std::size_t host) const
{
    return m_syncDeps[host];
}

int32_t
LinkDependencies::GetInterThreadDep(std::size_t host) const
{
    return m_interThreadDep[host];
}

TimeNs
LinkDependencies::GetWaitTime(std::size_t host) const
{
    return m_waitNs[host];
}

TimeNs
LinkDependencies::GetGapTime(std::size_t host) const
{
    return m_gapNs[host];
}

const std::vector<uint32_t>&
LinkDependencies::GetCrossStreamDeps(uint32_t gpu) const
{
    return m_crossStreamDeps[gpu];
}

uint64_t
LinkDependencies::GetSyncDepCount() const
{
    return m_syncDepCount;
}

uint64_t
LinkDependencies::GetInterThreadDepCount() const
{
    return m_interThreadDepCount;
}

uint64_t
LinkDependencies::GetThreadWaitCount() const
{
    return m_threadWaitCount;
}

uint64_t
LinkDependencies::GetCrossStreamDepCount() const
{
    return m_crossStreamDepCount;
}

TimeNs
LinkDependencies::ExclusiveDuration(uint32_t host) const
{
    const KinetoCpuOp& self = m_matching.GetLinkedCpuOp(host);
    std::vector<std::pair<TimeNs, TimeNs>> covered;
    for (int32_t child : m_matching.GetLinkedChildren(host))
    {
        const KinetoCpuOp& c = m_matching.GetLinkedCpuOp(child);
        TimeNs start = std::max(c.ts, self.ts);
        TimeNs end = std::min(c.End(), self.End());
        if (end > start)
        {
            covered.emplace_back(start, end);
        }
    }
    std::sort(covered.begin(), covered.end());
    TimeNs total = 0;
    TimeNs runStart = kMinTime;
    TimeNs runEnd = kMinTime;
    for (const auto& [start, end] : covered)
    {
        if (start > runEnd)
        {
            total += runEnd - runStart;
            runStart = start;
            runEnd = end;
        }
        else
        {
            runEnd = std::max(runEnd, end);
        }
    }
    total += runEnd - runStart;
    return std::max<TimeNs>(0, self.dur - total);
}

LinkDependencies::AttachedGpuIndex
LinkDependencies::IndexAttachedGpuOps() const
{
    AttachedGpuIndex index;
    for (uint32_t g = 0; g < m_gpu.size(); ++g)
    {
        if (m_attachment.GetHostOp(g) < 0)
        {
            continue;
        }
        index.byStream[{m_gpu[g].device, m_gpu[g].stream}].push_back(g);
        index.byEnd.push_back(g);
        index.byCorrelation.emplace(m_gpu[g].correlation, g);
    }
    auto launchOrder = [this](uint32_t a, uint32_t b) {
        return std::make_tuple(m_attachment.GetLaunchTime(a),
                               m_gpu[a].correlation,
                               m_gpu[a].fileIndex) < std::make_tuple(m_attachment.GetLaunchTime(b),
                                                                     m_gpu[b].correlation,
                                                                     m_gpu[b].fileIndex);
    };
    for (auto& [key, list] : index.byStream)
    {
        std::sort(list.begin(), list.end(), launchOrder);
    }
    std::sort(index.byEnd.begin(), index.byEnd.end(), [this](uint32_t a, uint32_t b) {
        return std::make_tuple(m_gpu[a].End(), m_gpu[a].fileIndex) <
               std::make_tuple(m_gpu[b].End(), m_gpu[b].fileIndex);
    });
    return index;
}

std::vector<const std::vector<uint32_t>*>
LinkDependencies::WaitedStreams(const KinetoRuntimeCall& call, AttachedGpuIndex& index) const
{
    const SyncKind kind = ClassifySync(m_device.GetName(call.name));
    if (kind == SyncKind::NONE)
    {
        return {};
    }
    std::vector<const std::vector<uint32_t>*> streams;
    if (kind == SyncKind::DEVICE)
    {
        for (const auto& [key, list] : index.byStream)
        {
            streams.push_back(&list);
        }
    }
    else if (kind == SyncKind::MEMCPY)
    {
        auto it = index.byCorrelation.find(call.correlation);
        if (it == index.byCorrelation.end())
        {
            return {};
        }
        streams.push_back(&index.byStream[{m_gpu[it->second].device, m_gpu[it->second].stream}]);
    }
    else if (kind == SyncKind::STREAM && call.stream != kKinetoNone)
    {
        for (const auto& [key, list] : index.byStream)
        {
            if (key.second == call.stream)
            {
                streams.push_back(&list);
            }
        }
    }
    else
    {
        // Which stream or event was waited for is not in the trace: the call returned
        // right after the op it waited for ended, so take the stream of the op launched
        // before the call that ended last while the call was blocking.
        auto from =
            std::lower_bound(index.byEnd.begin(),
                             index.byEnd.end(),
                             call.ts,
                             [this](uint32_t g, TimeNs value) { return m_gpu[g].End() < value; });
        int64_t waited = -1;
        for (auto it = from; it != index.byEnd.end() && m_gpu[*it].End() <= call.End(); ++it)
        {
            if (m_attachment.GetLaunchTime(*it) <= call.ts)
            {
                waited = *it; // ascending end: the last one wins
            }
        }
        if (waited < 0)
        {
            return {}; // nothing was running: the call did not wait
        }
        streams.push_back(&index.byStream[{m_gpu[waited].device, m_gpu[waited].stream}]);
    }
    return streams;
}

void
LinkDependencies::AddSyncDepsOfCall(const KinetoRuntimeCall& call,
                                    const std::vector<const std::vector<uint32_t>*>& streams)
{
    // The last attached op of a stream launched at or before t.
    auto lastLaunched = [&](const std::vector<uint32_t>& list, TimeNs t) -> int64_t {
        auto it = std::upper_bound(list.begin(), list.end(), t, [this](TimeNs value, uint32_t g) {
            return value < m_attachment.GetLaunchTime(g);
        });
        return it == list.begin() ? -1 : static_cast<int64_t>(*(it - 1));
    };

    // The op around the call runs its own CPU time, then waits: the first op of the
    // thread that starts after the call returned carries the dependency, and the time the
    // call spent waiting for the GPU op is taken out of the waiting op's own time
    // (wait_dur), so the wait is not replayed twice (as CPU time and as the dependency).
    // Without a later op on the thread, the waiting op itself carries the dependency
    // (then it waits first), unless it started before the GPU op was launched (that edge
    // would point backwards in time: the launcher waiting for its own work).
    const int32_t enclosing = m_matching.EnclosingLinkedOp(call.thread, call.ts, call.externalId);
    const int32_t next = m_matching.NextLinkedOp(call.thread, call.End());
    TimeNs waitedUntil = kMinTime;
    for (const auto* list : streams)
    {
        int64_t g = lastLaunched(*list, call.ts);
        if (g < 0)
        {
            continue;
        }
        int32_t carrier = next;
        if (carrier < 0 && enclosing >= 0 && m_cpu[enclosing].ts > m_attachment.GetLaunchTime(g))
        {
            carrier = enclosing;
        }
        if (carrier < 0)
        {
            continue;
        }
        m_syncDeps[m_matching.GetHostOp(carrier)].push_back(static_cast<uint32_t>(g));
        waitedUntil = std::max(waitedUntil, m_gpu[g].End());
    }
    if (enclosing >= 0 && waitedUntil != kMinTime)
    {
        // Blocked from the call until the last waited-for op ended; the rest of the call
        // (returning) is CPU time.
        const TimeNs blocked = std::min(waitedUntil, call.End()) - call.ts;
        m_waitNs[m_matching.GetHostOp(enclosing)] += std::clamp<TimeNs>(blocked, 0, call.dur);
    }
}

void
LinkDependencies::AddSyncDeps()
{
    m_syncDeps.assign(m_ops.size(), {});
    m_waitNs.assign(m_ops.size(), 0);
    // Attached GPU ops per stream in launch order, and all of them by end time.
    AttachedGpuIndex index = IndexAttachedGpuOps();
    if (index.byEnd.empty())
    {
        return;
    }
    for (const KinetoRuntimeCall& call : m_device.GetRuntimeCalls())
    {
        const auto streams = WaitedStreams(call, index);
        if (!streams.empty())
        {
            AddSyncDepsOfCall(call, streams);
        }
    }
    for (auto& list : m_syncDeps)
    {
        std::sort(list.begin(), list.end());
        list.erase(std::unique(list.begin(), list.end()), list.end());
        m_syncDepCount += list.size();
    }
}

void
LinkDependencies::AddInterThreadDeps()
{
    m_interThreadDep.assign(m_ops.size(), -1);
    // Linked ops per host thread: top-level ones by start, all by end.
    std::map<int64_t, std::vector<uint32_t>> topLevel;
    std::map<int64_t, std::vector<uint32_t>> byEnd;
    for (uint32_t i = 0; i < m_ops.size(); ++i)
    {
        if (m_matching.GetCpuOp(i) < 0)
        {
            continue;
        }
        byEnd[m_ops[i].tid].push_back(i);
        if (m_matching.GetLinkedParent(i) < 0)
        {
            topLevel[m_ops[i].tid].push_back(i);
        }
    }
    if (byEnd.size() < 2)
    {
        return;
    }
    auto cpu = [this](uint32_t i) -> const KinetoCpuOp& { return m_matching.GetLinkedCpuOp(i); };
    // Ascending end; among equal ends the outermost (earliest start, then smallest id) last.
    auto endKey = [&](uint32_t i) {
        return std::make_tuple(cpu(i).End(), -cpu(i).ts, -static_cast<int64_t>(m_ops[i].id));
    };
    for (auto& [tid, list] : byEnd)
    {
        std::sort(list.begin(), list.end(), [&](uint32_t a, uint32_t b) {
            return endKey(a) < endKey(b);
        });
    }
    for (auto& [tid, list] : topLevel)
    {
        std::sort(list.begin(), list.end(), [&](uint32_t a, uint32_t b) {
            return std::make_tuple(cpu(a).ts, m_ops[a].id) <
                   std::make_tuple(cpu(b).ts, m_ops[b].id);
        });
        bool first = true;
        TimeNs previousEnd = kMinTime;
        for (uint32_t x : list)
        {
            const TimeNs start = cpu(x).ts;
            const bool runStart = first || start - previousEnd >= m_options.interThreadMinGap;
            if (runStart)
            {
                int64_t best = -1;
                for (const auto& [otherTid, others] : byEnd)
                {
                    if (otherTid == tid)
                    {
                        continue;
                    }
                    auto it = std::upper_bound(
                        others.begin(),
                        others.end(),
                        start,
                        [&](TimeNs value, uint32_t i) { return value < cpu(i).End(); });
                    if (it == others.begin())
                    {
                        continue;
                    }
                    uint32_t candidate = *(it - 1);
                    if (best < 0 || endKey(candidate) > endKey(static_cast<uint32_t>(best)))
                    {
                        best = candidate;
                    }
                }
                // Only an op that ended while this thread was idle can have released it.
                if (best >= 0 && (first || cpu(best).End() > previousEnd))
                {
                    m_interThreadDep[x] = static_cast<int32_t>(best);
                    ++m_interThreadDepCount;
                }
            }
            first = false;
            previousEnd = std::max(previousEnd, cpu(x).End());
        }
    }
}

void
LinkDependencies::AddCrossStreamDeps()
{
    m_crossStreamDeps.assign(m_gpu.size(), {});
    // A stream made to wait for another one (cudaStreamWaitEvent) leaves no trace but the
    // call and the delay: an op that starts well after it could have (after its launch
    // returned and the previous op of its stream ended), right after an op of another stream
    // of its device ended, with a stream-wait call issued between the two launches, waited
    // for that op. Only waits that held an op back are visible this way.
    std::vector<TimeNs> waitCalls;
    for (const KinetoRuntimeCall& call : m_device.GetRuntimeCalls())
    {
        if (ContainsText(LowerAscii(m_device.GetName(call.name)), "streamwaitevent"))
        {
            waitCalls.push_back(call.ts);
        }
    }
    if (waitCalls.empty())
    {
        return;
    }
    std::sort(waitCalls.begin(), waitCalls.end());
    std::map<std::pair<int64_t, int64_t>, std::vector<uint32_t>> byStream;
    std::map<int64_t, std::vector<uint32_t>> attachedByEnd;
    for (uint32_t g = 0; g < m_gpu.size(); ++g)
    {
        byStream[{m_gpu[g].device, m_gpu[g].stream}].push_back(g);
        if (m_attachment.GetHostOp(g) >= 0)
        {
            attachedByEnd[m_gpu[g].device].push_back(g);
        }
    }
    for (auto& [device, list] : attachedByEnd)
    {
        std::sort(list.begin(), list.end(), [this](uint32_t a, uint32_t b) {
            return std::make_tuple(m_gpu[a].End(), m_gpu[a].fileIndex) <
                   std::make_tuple(m_gpu[b].End(), m_gpu[b].fileIndex);
        });
    }
    const auto& calls = m_device.GetRuntimeCalls();
    for (auto& [key, list] : byStream)
    {
        std::sort(list.begin(), list.end(), [this](uint32_t a, uint32_t b) {
            return std::make_tuple(m_gpu[a].ts, m_gpu[a].fileIndex) <
                   std::make_tuple(m_gpu[b].ts, m_gpu[b].fileIndex);
        });
        const auto& ends = attachedByEnd[key.first];
        for (std::size_t k = 0; k < list.size(); ++k)
        {
            const uint32_t g = list[k];
            if (m_attachment.GetHostOp(g) < 0 || m_attachment.GetLauncher(g) < 0)
            {
                continue;
            }
            TimeNs ready = calls[m_attachment.GetLauncher(g)].End();
            if (k > 0)
            {
                ready = std::max(ready, m_gpu[list[k - 1]].End());
            }
            if (m_gpu[g].ts - ready < m_options.crossStreamMinDelay)
            {
                continue;
            }
            auto it = std::upper_bound(
                ends.begin(),
                ends.end(),
                m_gpu[g].ts,
                [this](TimeNs value, uint32_t h) { return value < m_gpu[h].End(); });
            while (it != ends.begin())
            {
                const uint32_t h = *--it;
                if (m_gpu[g].ts - m_gpu[h].End() > m_options.crossStreamMaxGap ||
                    m_gpu[h].End() <= ready)
                {
                    break;
                }
                if (m_gpu[h].stream == m_gpu[g].stream ||
                    m_attachment.GetLaunchTime(h) > m_attachment.GetLaunchTime(g))
                {
                    continue;
                }
                auto call = std::lower_bound(waitCalls.begin(),
                                             waitCalls.end(),
                                             m_attachment.GetLaunchTime(h));
                if (call == waitCalls.end() || *call > m_attachment.GetLaunchTime(g))
                {
                    continue;
                }
                m_crossStreamDeps[g].push_back(h);
                ++m_crossStreamDepCount;
                break;
            }
        }
    }
}

std::tuple<TimeNs, TimeNs, int64_t>
LinkDependencies::ThreadEndKey(uint32_t host) const
{
    return std::make_tuple(m_matching.GetLinkedCpuOp(host).End(),
                           -m_matching.GetLinkedCpuOp(host).ts,
                           -static_cast<int64_t>(m_ops[host].id));
}

std::map<int64_t, std::vector<uint32_t>>
LinkDependencies::LinkedOpsByEnd() const
{
    std::map<int64_t, std::vector<uint32_t>> byEnd;
    for (uint32_t i = 0; i < m_ops.size(); ++i)
    {
        if (m_matching.GetCpuOp(i) >= 0)
        {
            byEnd[m_ops[i].tid].push_back(i);
        }
    }
    for (auto& [tid, list] : byEnd)
    {
        std::sort(list.begin(), list.end(), [&](uint32_t a, uint32_t b) {
            return ThreadEndKey(a) < ThreadEndKey(b);
        });
    }
    return byEnd;
}

std::vector<std::vector<uint32_t>>
LinkDependencies::RuntimeCallsByThread() const
{
    std::vector<std::vector<uint32_t>> callsByThread(m_device.GetThreadCount());
    const auto& calls = m_device.GetRuntimeCalls();
    for (uint32_t c = 0; c < calls.size(); ++c)
    {
        if (calls[c].thread < callsByThread.size())
        {
            callsByThread[calls[c].thread].push_back(c);
        }
    }
    for (auto& list : callsByThread)
    {
        std::sort(list.begin(), list.end(), [&calls](uint32_t a, uint32_t b) {
            return calls[a].ts < calls[b].ts;
        });
    }
    return callsByThread;
}

void
LinkDependencies::FindBusyStretches(uint32_t k,
                                    const std::vector<std::vector<uint32_t>>& callsByThread,
                                    std::vector<std::pair<TimeNs, TimeNs>>& busy) const
{
    const KinetoCpuOp& x = m_cpu[k];
    const auto& calls = m_device.GetRuntimeCalls();
    // What the thread did inside the op: nested operators (linked or not) and runtime calls.
    busy.clear();
    const uint32_t last = m_device.GetThreadRange(x.thread).second;
    for (uint32_t j = k + 1; j < last && m_cpu[j].ts < x.End();)
    {
        const TimeNs end = std::min(m_cpu[j].End(), x.End());
        busy.emplace_back(m_cpu[j].ts, end);
        // Skip the child's own descendants: they lie inside it.
        ++j;
        while (j < last && m_cpu[j].ts < end)
        {
            ++j;
        }
    }
    const auto& threadCalls = callsByThread[x.thread];
    auto c =
        std::lower_bound(threadCalls.begin(),
                         threadCalls.end(),
                         x.ts,
                         [&calls](uint32_t call, TimeNs value) { return calls[call].ts < value; });
    for (; c != threadCalls.end() && calls[*c].ts < x.End(); ++c)
    {
        busy.emplace_back(calls[*c].ts, std::min(calls[*c].End(), x.End()));
    }
    std::sort(busy.begin(), busy.end());
    busy.emplace_back(x.End(), x.End());
}

int64_t
LinkDependencies::FindRelease(uint32_t host,
                              TimeNs idleFrom,
                              TimeNs resume,
                              const std::map<int64_t, std::vector<uint32_t>>& byEnd) const
{
    int64_t release = -1;
    for (const auto& [otherTid, others] : byEnd)
    {
        if (otherTid == m_ops[host].tid)
        {
            continue;
        }
        auto it =
            std::upper_bound(others.begin(), others.end(), resume, [&](TimeNs value, uint32_t o) {
                return value < m_matching.GetLinkedCpuOp(o).End();
            });
        if (it == others.begin())
        {
            continue;
        }
        const uint32_t candidate = *(it - 1);
        const TimeNs released = m_matching.GetLinkedCpuOp(candidate).End();
        if (released > idleFrom && resume - released <= m_options.threadWaitMaxResume &&
            (release < 0 || ThreadEndKey(candidate) > ThreadEndKey(static_cast<uint32_t>(release))))
        {
            release = candidate;
        }
    }
    return release;
}

void
LinkDependencies::AddThreadWait(uint32_t host, uint32_t release, TimeNs idleFrom, TimeNs resume)
{
    const int32_t carrier = m_matching.NextLinkedOp(m_matching.GetLinkedCpuOp(host).thread, resume);
    if (carrier < 0)
    {
        return;
    }
    const uint32_t resumed = static_cast<uint32_t>(m_matching.GetHostOp(carrier));
    m_waitNs[host] += m_matching.GetLinkedCpuOp(release).End() - idleFrom;
    ++m_threadWaitCount;
    const int32_t current = m_interThreadDep[resumed];
    if (current < 0)
    {
        ++m_interThreadDepCount;
    }
    if (current < 0 || ThreadEndKey(release) > ThreadEndKey(static_cast<uint32_t>(current)))
    {
        m_interThreadDep[resumed] = static_cast<int32_t>(release);
    }
}

void
LinkDependencies::AddThreadWaits()
{
    // A host op that stays idle inside its own span (no child op, no runtime call) and
    // resumes right after an op of another thread ended was waiting for that thread (the
    // main thread's "## backward ##" waiting for the autograd thread). The idle time up to
    // that end is a wait, not CPU time: it becomes wait_dur, and the first op of the thread
    // after the idle stretch gets an inter_thread_dep on the op that released it.
    const std::map<int64_t, std::vector<uint32_t>> byEnd = LinkedOpsByEnd();
    if (byEnd.size() < 2)
    {
        return;
    }
    const std::vector<std::vector<uint32_t>> callsByThread = RuntimeCallsByThread();
    std::vector<std::pair<TimeNs, TimeNs>> busy;
    for (uint32_t i = 0; i < m_ops.size(); ++i)
    {
        const int32_t k = m_matching.GetCpuOp(i);
        if (k < 0 || m_cpu[k].dur < m_options.threadWaitMinGap)
        {
            continue;
        }
        FindBusyStretches(static_cast<uint32_t>(k), callsByThread, busy);
        TimeNs idleFrom = m_cpu[k].ts;
        for (const auto& [start, end] : busy)
        {
            if (start - idleFrom >= m_options.threadWaitMinGap)
            {
                // The idle stretch [idleFrom, start): released by the latest op of another
                // thread that ended shortly before the thread went on.
                const int64_t release = FindRelease(i, idleFrom, start, byEnd);
                if (release >= 0)
                {
                    AddThreadWait(i, static_cast<uint32_t>(release), idleFrom, start);
                }
            }
            idleFrom = std::max(idleFrom, end);
        }
    }
}

void
LinkDependencies::AddGaps(std::optional<TimeNs> stepStart)
{
    // Between two top-level ops a thread runs Python and framework code that no op records
    // (the autograd engine between functions, the training loop between steps). Replaying
    // ops back to back would drop that time; gap_dur keeps it, except the part the thread
    // spent waiting for what the op's dependencies already express (another thread's op, the
    // GPU ops it synchronises with).
    m_gapNs.assign(m_ops.size(), 0);
    auto cpu = [this](uint32_t i) -> const KinetoCpuOp& { return m_matching.GetLinkedCpuOp(i); };
    // Every linked op of each host thread, nested ones too: an op the host trace files under
    // the thread but Kineto ran elsewhere (gloo's all-reduce on its worker thread) can end
    // after its parent, and the thread's next op waited for it (work.wait()).
    std::map<int64_t, std::vector<uint32_t>> byThread;
    for (uint32_t i = 0; i < m_ops.size(); ++i)
    {
        if (m_matching.GetCpuOp(i) >= 0)
        {
            byThread[m_ops[i].tid].push_back(i);
        }
    }
    // The measured iteration starts the replay: a thread's first op starting later than that
    // (and waiting for nothing) starts that much later in the replay too.

    for (auto& [tid, list] : byThread)
    {
        std::sort(list.begin(), list.end(), [&](uint32_t a, uint32_t b) {
            return std::make_tuple(cpu(a).ts, m_ops[a].id) <
                   std::make_tuple(cpu(b).ts, m_ops[b].id);
        });
        TimeNs previousEnd = kMinTime;
        for (uint32_t x : list)
        {
            if (m_matching.GetLinkedParent(x) >= 0)
            {
                previousEnd = std::max(previousEnd, cpu(x).End());
                continue;
            }
            TimeNs released = previousEnd;
            if (released == kMinTime && stepStart && *stepStart < cpu(x).ts)
            {
                released = *stepStart;
            }
            if (m_interThreadDep[x] >= 0)
            {
                released =
                    std::max(released, cpu(static_cast<uint32_t>(m_interThreadDep[x])).End());
            }
            for (uint32_t g : m_syncDeps[x])
            {
                released = std::max(released, m_gpu[g].End());
            }
            if (released != kMinTime && cpu(x).ts > released)
            {
                m_gapNs[x] = cpu(x).ts - released;
            }
            previousEnd = std::max(previousEnd, cpu(x).End());
        }
    }
}

} // namespace ns3
