#include "trace-linker.h"

#include "op-alignment.h"

#include "ns3/trace-error.h"
#include "ns3/trace-file.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <sstream>
#include <stdexcept>
#include <tuple>
#include <unordered_map>

namespace ns3
{

namespace
{

constexpr TimeNs kMinTime = std::numeric_limits<TimeNs>::min();

/** \return a time in nanoseconds as microseconds text ("12", "12.5") */
std::string
MicrosText(TimeNs ns)
{
    return MicrosecondsJson(ns).dump();
}

std::string
Lower(const std::string& text)
{
    std::string out = text;
    for (char& c : out)
    {
        if (c >= 'A' && c <= 'Z')
        {
            c = static_cast<char>(c - 'A' + 'a');
        }
    }
    return out;
}

bool
Contains(const std::string& text, const char* part)
{
    return text.find(part) != std::string::npos;
}

std::string
Shorten(const std::string& text, std::size_t size = 60)
{
    return text.size() <= size ? text : text.substr(0, size - 3) + "...";
}

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
    const std::string lower = Lower(name);
    if (Contains(lower, "synchronize"))
    {
        if (Contains(lower, "stream"))
        {
            return SyncKind::STREAM;
        }
        if (Contains(lower, "event"))
        {
            return SyncKind::EVENT;
        }
        return SyncKind::DEVICE; // device, context, thread
    }
    if (Contains(lower, "memcpy") && !Contains(lower, "async"))
    {
        return SyncKind::MEMCPY;
    }
    return SyncKind::NONE;
}

/** One linking job: the two traces and everything derived from them. */
class LinkJob
{
  public:
    LinkJob(const TraceLinker::Options& options,
            HostTrace& host,
            const KinetoTrace& device,
            int64_t rank)
        : m_options(options),
          m_host(host),
          m_device(device),
          m_ops(host.GetOps()),
          m_cpu(device.GetCpuOps()),
          m_gpu(device.GetGpuOps())
    {
        m_summary.hostPath = host.GetPath();
        m_summary.devicePath = device.GetPath();
        m_summary.rank = rank;
        m_summary.schema = host.GetSchema();
        m_summary.legacyDeviceTrace = device.IsLegacy();
        // Older traces put the correlation in a launcher's "External id"; only a value that
        // differs from the correlation can name the launching op.
        bool externalIdsNameOps = false;
        for (const KinetoRuntimeCall& call : device.GetRuntimeCalls())
        {
            if (call.externalId != kKinetoNone && call.externalId != call.correlation)
            {
                externalIdsNameOps = true;
                break;
            }
        }
        for (uint32_t k = 0; externalIdsNameOps && k < m_cpu.size(); ++k)
        {
            if (m_cpu[k].externalId != kKinetoNone)
            {
                m_cpuByExternalId.emplace(m_cpu[k].externalId, static_cast<int32_t>(k));
            }
        }
    }

    LinkResult Run();

  private:
    /** Result of matching host ops to Kineto CPU ops. */
    struct Matching
    {
        std::vector<int32_t> hostToCpu;      //!< per host op: Kineto CPU op or -1
        std::vector<std::string> reasonCode; //!< per unmatched host op
        std::vector<std::string> reason;     //!< per unmatched host op
        std::vector<std::string> threads;    //!< thread mapping lines
        uint64_t linked{0};                  //!< matched host ops
    };

    void CheckSameRun() const;
    Matching MatchByRecordFunctionId() const;
    Matching MatchByOrder() const;
    void MatchAcrossThreads(Matching& result,
                            bool haveSpan,
                            TimeNs spanStart,
                            TimeNs spanEnd) const;
    void ApplyMatching(Matching matching);
    void ComputeLinkedParents();
    int32_t EnclosingLinkedOp(uint32_t thread, TimeNs t, int64_t externalId) const;
    int32_t NextLinkedOp(uint32_t thread, TimeNs t) const;
    void AttachGpuOps();
    void AddSyncDeps();
    void AddInterThreadDeps();
    void AddCrossStreamDeps();
    void AddThreadWaits();
    void AddGaps();
    void FindIteration();
    void Renumber();
    HostJson BuildDocument();
    HostJson BuildGpuNode(uint32_t gpu, int32_t host) const;
    HostJson BuildTraceLink() const;
    TimeNs ExclusiveDuration(uint32_t host) const;

    const TraceLinker::Options& m_options;
    HostTrace& m_host;
    const KinetoTrace& m_device;
    const std::vector<HostOp>& m_ops;
    const std::vector<KinetoCpuOp>& m_cpu;
    const std::vector<KinetoGpuOp>& m_gpu;

    std::unordered_map<int64_t, int32_t> m_cpuByExternalId; //!< External id -> Kineto CPU op
    Matching m_matching;                                    //!< host op -> Kineto CPU op
    std::vector<int32_t> m_cpuToHost;                       //!< Kineto CPU op -> host op or -1
    std::vector<int32_t> m_linkedParent;                //!< nearest linked ancestor of a host op
    std::vector<std::vector<int32_t>> m_linkedChildren; //!< host ops whose m_linkedParent is it
    bool m_hasSpan{false};                              //!< any host op linked
    TimeNs m_spanStart{0};                              //!< first linked start
    TimeNs m_spanEnd{0};                                //!< last linked end

    std::vector<int32_t> m_gpuHost;     //!< GPU op -> launching host op or -1
    std::vector<TimeNs> m_gpuLaunch;    //!< GPU op -> its launcher's start
    std::vector<int64_t> m_gpuLauncher; //!< GPU op -> runtime call index or -1
    std::vector<std::pair<std::string, std::string>> m_gpuReason; //!< code, reason
    std::vector<std::vector<uint32_t>> m_hostGpuOps; //!< host op -> its GPU ops, launch order
    std::vector<std::vector<uint32_t>> m_syncDeps;   //!< host op -> GPU ops it waited for
    std::vector<int32_t> m_interThreadDep;           //!< host op -> host op of another thread or -1
    std::vector<TimeNs> m_waitNs; //!< host op -> part of its own time spent blocked (wait_dur)
    std::vector<TimeNs> m_gapNs;  //!< host op -> thread time before it outside any op (gap_dur)
    std::vector<std::vector<uint32_t>> m_crossStreamDeps; //!< GPU op -> ops of other streams

    std::vector<uint64_t> m_newHostId; //!< host op -> id in the output
    std::vector<uint64_t> m_newGpuId;  //!< GPU op -> id in the output (0 = not output)

    LinkSummary m_summary;
};

void
LinkJob::CheckSameRun() const
{
    auto hostPid = m_host.GetPid();
    const auto& pids = m_device.GetHostPids();
    if (!hostPid || pids.empty())
    {
        return; // the legacy list names no process
    }
    if (std::find(pids.begin(), pids.end(), *hostPid) != pids.end())
    {
        return;
    }
    std::string list;
    for (std::size_t i = 0; i < pids.size() && i < 4; ++i)
    {
        list += (i ? ", " : "") + std::to_string(pids[i]);
    }
    throw TraceError(m_device.GetPath(), "",
                     "the traces come from different runs: host trace " + m_host.GetPath() +
                         " has pid " + std::to_string(*hostPid) +
                         ", this trace's host events have pid " + list);
}

LinkJob::Matching
LinkJob::MatchByRecordFunctionId() const
{
    Matching result;
    result.hostToCpu.assign(m_ops.size(), -1);
    result.reasonCode.assign(m_ops.size(), "");
    result.reason.assign(m_ops.size(), "");
    std::unordered_map<int64_t, int32_t> byRfId;
    for (uint32_t k = 0; k < m_cpu.size(); ++k)
    {
        if (m_cpu[k].rfId != kKinetoNone)
        {
            byRfId.emplace(m_cpu[k].rfId, static_cast<int32_t>(k));
        }
    }
    std::vector<bool> taken(m_cpu.size(), false);
    for (std::size_t i = 0; i < m_ops.size(); ++i)
    {
        const HostOp& op = m_ops[i];
        if (op.traceNode)
        {
            continue;
        }
        if (op.rfId == kHostNone || op.rfId <= 0)
        {
            result.reasonCode[i] = "no-rf-id";
            result.reason[i] = "the host op has no rf_id";
            continue;
        }
        auto it = byRfId.find(op.rfId);
        if (it == byRfId.end() || taken[it->second])
        {
            result.reasonCode[i] = "not-in-device-trace";
            result.reason[i] = "no Kineto CPU op has Record function id " + std::to_string(op.rfId);
            continue;
        }
        const std::string& kinetoName = m_device.GetName(m_cpu[it->second].name);
        if (kinetoName != op.name)
        {
            result.reasonCode[i] = "name-differs";
            result.reason[i] = "the Kineto CPU op with Record function id " +
                               std::to_string(op.rfId) + " is named " + Shorten(kinetoName);
            continue;
        }
        taken[it->second] = true;
        result.hostToCpu[i] = it->second;
        ++result.linked;
    }
    result.threads.push_back("all threads: by rf_id == Record function id");
    return result;
}

LinkJob::Matching
LinkJob::MatchByOrder() const
{
    Matching result;
    result.hostToCpu.assign(m_ops.size(), -1);
    result.reasonCode.assign(m_ops.size(), "");
    result.reason.assign(m_ops.size(), "");

    // Host threads: operators in id order (the trace numbers ops as they start).
    std::map<int64_t, std::vector<uint32_t>> hostThreads;
    for (uint32_t i = 0; i < m_ops.size(); ++i)
    {
        if (!m_ops[i].traceNode)
        {
            hostThreads[m_ops[i].tid].push_back(i);
        }
    }
    std::vector<std::pair<int64_t, const std::vector<uint32_t>*>> order;
    for (const auto& [tid, ops] : hostThreads)
    {
        order.emplace_back(tid, &ops);
    }
    std::stable_sort(order.begin(), order.end(), [](const auto& a, const auto& b) {
        return a.second->size() > b.second->size();
    });

    // Device threads: host operators in start order.
    const uint32_t threadCount = m_device.GetThreadCount();
    std::vector<OpSequence> deviceSeqs(threadCount);
    for (uint32_t u = 0; u < threadCount; ++u)
    {
        auto [first, last] = m_device.GetThreadRange(u);
        for (uint32_t k = first; k < last; ++k)
        {
            deviceSeqs[u].names.push_back(m_cpu[k].name);
            deviceSeqs[u].sequenceNumbers.push_back(m_cpu[k].seqNr);
            deviceSeqs[u].ids.push_back(m_cpu[k].externalId);
        }
    }

    std::vector<bool> taken(threadCount, false);
    bool haveReference = false;
    TimeNs refStart = 0;
    TimeNs refEnd = 0;
    for (const auto& [tid, opsPtr] : order)
    {
        const std::vector<uint32_t>& ops = *opsPtr;
        OpSequence hostSeq;
        for (uint32_t i : ops)
        {
            hostSeq.names.push_back(m_device.FindName(m_ops[i].name));
            hostSeq.sequenceNumbers.push_back(m_ops[i].seqId);
            hostSeq.ids.push_back(m_ops[i].rfId);
        }

        // Best (thread, offset): most matches, then agreeing sequence numbers, then closest
        // in time to the threads already placed, then fewest skipped ops, then agreeing ids,
        // then earliest.
        bool found = false;
        uint32_t bestThread = 0;
        AlignmentScore best;
        TimeNs bestDistance = 0;
        TimeNs bestStart = 0;
        TimeNs bestEnd = 0;
        for (uint32_t u = 0; u < threadCount; ++u)
        {
            if (taken[u] || deviceSeqs[u].names.empty())
            {
                continue;
            }
            const uint32_t first = m_device.GetThreadRange(u).first;
            OpAligner aligner(hostSeq, deviceSeqs[u], m_options.matchWindow);
            for (const AlignmentScore& score : aligner.Search(3, 64, 64))
            {
                if (score.matched == 0)
                {
                    continue;
                }
                const KinetoCpuOp& a = m_cpu[first + score.firstMatch];
                const KinetoCpuOp& b = m_cpu[first + score.lastMatch];
                TimeNs start = a.ts;
                TimeNs end = std::max(a.End(), b.End());
                TimeNs distance = 0;
                if (haveReference)
                {
                    distance =
                        std::max<TimeNs>(0, std::max(start, refStart) - std::min(end, refEnd));
                }
                auto key = [](const AlignmentScore& s, TimeNs d, TimeNs t) {
                    return std::make_tuple(s.matched, s.seqAgree, -d,
                                           -static_cast<int64_t>(s.skipped), s.idAgree, -t);
                };
                if (!found || key(score, distance, start) > key(best, bestDistance, bestStart))
                {
                    found = true;
                    best = score;
                    bestThread = u;
                    bestDistance = distance;
                    bestStart = start;
                    bestEnd = end;
                }
            }
        }
        const auto needed = static_cast<uint32_t>(
            std::max(1.0, std::ceil(m_options.minThreadMatchFraction * ops.size())));
        std::string hostLabel = "host thread " + std::to_string(tid);
        if (!found || best.matched < needed)
        {
            for (uint32_t i : ops)
            {
                result.reasonCode[i] = "thread-not-found";
                result.reason[i] =
                    "no thread of the device trace runs " + hostLabel +
                    "'s ops in this order (best: " + std::to_string(found ? best.matched : 0) +
                    " of " + std::to_string(ops.size()) + " matched)";
            }
            result.threads.push_back(hostLabel + " -> none (" +
                                     std::to_string(found ? best.matched : 0) + "/" +
                                     std::to_string(ops.size()) + " matched at best)");
            continue;
        }
        taken[bestThread] = true;
        if (!haveReference)
        {
            haveReference = true;
            refStart = bestStart;
            refEnd = bestEnd;
        }
        else
        {
            refStart = std::min(refStart, bestStart);
            refEnd = std::max(refEnd, bestEnd);
        }
        OpAligner aligner(hostSeq, deviceSeqs[bestThread], m_options.matchWindow);
        std::vector<int32_t> match;
        aligner.Score(best.offset, ops.size(), &match);
        const uint32_t first = m_device.GetThreadRange(bestThread).first;
        uint64_t linkedHere = 0;
        for (std::size_t n = 0; n < ops.size(); ++n)
        {
            const uint32_t i = ops[n];
            if (match[n] >= 0)
            {
                result.hostToCpu[i] = static_cast<int32_t>(first + match[n]);
                ++linkedHere;
                continue;
            }
            if (hostSeq.names[n] == OpSequence::kNoMatch)
            {
                result.reasonCode[i] = "not-in-device-trace";
                result.reason[i] = "no Kineto CPU op has this name";
            }
            else
            {
                result.reasonCode[i] = "not-at-expected-position";
                result.reason[i] = "no Kineto CPU op of this name near its expected position "
                                   "on device thread " +
                                   m_device.GetThreadLabel(bestThread);
            }
        }
        result.linked += linkedHere;
        result.threads.push_back(
            hostLabel + " -> device thread " + m_device.GetThreadLabel(bestThread) + ": " +
            std::to_string(linkedHere) + "/" + std::to_string(ops.size()) + " ops matched (" +
            std::to_string(best.skipped) + " extra device ops skipped, " +
            std::to_string(best.seqAgree) + " sequence numbers agree)");
    }
    MatchAcrossThreads(result, haveReference, refStart, refEnd);
    return result;
}

void
LinkJob::MatchAcrossThreads(Matching& result, bool haveSpan, TimeNs spanStart, TimeNs spanEnd) const
{
    // Some ops run on another thread than the one the host trace gives them (gloo's
    // collectives run on its worker threads). Still-unmatched host ops of one name are paired in
    // order with the unmatched device ops of that name inside the matched span, when their
    // counts agree and each pairing keeps the order of the host op's predecessor.
    if (!haveSpan)
    {
        return;
    }
    std::vector<bool> used(m_cpu.size(), false);
    for (int32_t k : result.hostToCpu)
    {
        if (k >= 0)
        {
            used[k] = true;
        }
    }
    std::map<std::string, std::vector<uint32_t>> hostByName;
    for (uint32_t i = 0; i < m_ops.size(); ++i)
    {
        if (!m_ops[i].traceNode && result.hostToCpu[i] < 0 &&
            m_device.FindName(m_ops[i].name) != KinetoTrace::kNoName)
        {
            hostByName[m_ops[i].name].push_back(i);
        }
    }
    if (hostByName.empty())
    {
        return;
    }
    std::unordered_map<uint32_t, std::vector<uint32_t>> deviceByName;
    for (const auto& [name, hostOps] : hostByName)
    {
        deviceByName[m_device.FindName(name)];
    }
    for (uint32_t k = 0; k < m_cpu.size(); ++k)
    {
        auto it = deviceByName.find(m_cpu[k].name);
        if (it != deviceByName.end() && !used[k] && m_cpu[k].ts >= spanStart &&
            m_cpu[k].ts <= spanEnd)
        {
            it->second.push_back(k);
        }
    }
    uint64_t paired = 0;
    for (const auto& [name, hostOps] : hostByName)
    {
        std::vector<uint32_t>& candidates = deviceByName[m_device.FindName(name)];
        if (candidates.size() != hostOps.size())
        {
            continue;
        }
        std::sort(candidates.begin(), candidates.end(), [this](uint32_t a, uint32_t b) {
            return std::make_tuple(m_cpu[a].ts, m_cpu[a].order) <
                   std::make_tuple(m_cpu[b].ts, m_cpu[b].order);
        });
        bool consistent = true;
        for (std::size_t n = 0; n < hostOps.size() && consistent; ++n)
        {
            // The nearest matched host op before it (by id) must not start later.
            for (int64_t j = static_cast<int64_t>(hostOps[n]) - 1; j >= 0; --j)
            {
                if (result.hostToCpu[j] >= 0)
                {
                    consistent = m_cpu[result.hostToCpu[j]].ts <= m_cpu[candidates[n]].ts;
                    break;
                }
            }
        }
        if (!consistent)
        {
            continue;
        }
        for (std::size_t n = 0; n < hostOps.size(); ++n)
        {
            result.hostToCpu[hostOps[n]] = static_cast<int32_t>(candidates[n]);
            result.reasonCode[hostOps[n]].clear();
            result.reason[hostOps[n]].clear();
            used[candidates[n]] = true;
            ++paired;
        }
    }
    if (paired > 0)
    {
        result.linked += paired;
        result.threads.push_back(std::to_string(paired) +
                                 " more ops matched by name on other device threads");
    }
}

void
LinkJob::ApplyMatching(Matching matching)
{
    m_matching = std::move(matching);
    m_cpuToHost.assign(m_cpu.size(), -1);
    for (std::size_t i = 0; i < m_ops.size(); ++i)
    {
        int32_t k = m_matching.hostToCpu[i];
        if (k < 0)
        {
            continue;
        }
        m_cpuToHost[k] = static_cast<int32_t>(i);
        const KinetoCpuOp& op = m_cpu[k];
        if (!m_hasSpan)
        {
            m_hasSpan = true;
            m_spanStart = op.ts;
            m_spanEnd = op.End();
        }
        m_spanStart = std::min(m_spanStart, op.ts);
        m_spanEnd = std::max(m_spanEnd, op.End());
    }
}

void
LinkJob::ComputeLinkedParents()
{
    m_linkedParent.assign(m_ops.size(), -1);
    m_linkedChildren.assign(m_ops.size(), {});
    for (std::size_t i = 0; i < m_ops.size(); ++i)
    {
        if (m_matching.hostToCpu[i] < 0)
        {
            continue;
        }
        // Walk up the host call tree to the nearest linked ancestor (bounded by the tree depth;
        // the guard stops a malformed cycle).
        const HostOp* op = &m_ops[i];
        for (std::size_t steps = 0; op->hasParent && op->parent != op->id && steps < m_ops.size();
             ++steps)
        {
            int64_t p = m_host.FindOp(op->parent);
            if (p < 0)
            {
                break;
            }
            if (m_matching.hostToCpu[p] >= 0)
            {
                m_linkedParent[i] = static_cast<int32_t>(p);
                m_linkedChildren[p].push_back(static_cast<int32_t>(i));
                break;
            }
            op = &m_ops[p];
        }
    }
}

TimeNs
LinkJob::ExclusiveDuration(uint32_t host) const
{
    const KinetoCpuOp& self = m_cpu[m_matching.hostToCpu[host]];
    std::vector<std::pair<TimeNs, TimeNs>> covered;
    for (int32_t child : m_linkedChildren[host])
    {
        const KinetoCpuOp& c = m_cpu[m_matching.hostToCpu[child]];
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

int32_t
LinkJob::EnclosingLinkedOp(uint32_t thread, TimeNs t, int64_t externalId) const
{
    int32_t k = -1;
    auto it = m_cpuByExternalId.find(externalId);
    if (externalId != kKinetoNone && it != m_cpuByExternalId.end())
    {
        // Newer traces give a launcher the External id of the op it ran in: use it when it
        // agrees with the thread and time.
        const KinetoCpuOp& op = m_cpu[it->second];
        if (op.thread == thread && op.ts <= t && t <= op.End())
        {
            k = it->second;
        }
    }
    if (k < 0)
    {
        k = m_device.FindInnermost(thread, t);
    }
    while (k >= 0 && m_cpuToHost[k] < 0)
    {
        k = m_cpu[k].parent;
    }
    return k;
}

int32_t
LinkJob::NextLinkedOp(uint32_t thread, TimeNs t) const
{
    auto [first, last] = m_device.GetThreadRange(thread);
    auto begin = m_cpu.begin() + first;
    auto end = m_cpu.begin() + last;
    auto it = std::lower_bound(begin, end, t,
                               [](const KinetoCpuOp& op, TimeNs value) { return op.ts < value; });
    for (; it != end; ++it)
    {
        int32_t k = static_cast<int32_t>(it - m_cpu.begin());
        if (m_cpuToHost[k] >= 0)
        {
            return k;
        }
    }
    return -1;
}

void
LinkJob::AttachGpuOps()
{
    m_gpuHost.assign(m_gpu.size(), -1);
    m_gpuLaunch.assign(m_gpu.size(), 0);
    m_gpuLauncher.assign(m_gpu.size(), -1);
    m_gpuReason.assign(m_gpu.size(), {});
    m_hostGpuOps.assign(m_ops.size(), {});
    const auto& calls = m_device.GetRuntimeCalls();
    for (uint32_t g = 0; g < m_gpu.size(); ++g)
    {
        const KinetoGpuOp& op = m_gpu[g];
        ++m_summary.gpuOpsByKind[static_cast<int>(op.kind)];
        if (op.correlation == kKinetoNone)
        {
            m_gpuReason[g] = {"no-correlation", "the device op has no correlation id"};
            continue;
        }
        int64_t r = m_device.FindRuntimeCall(op.correlation);
        if (r < 0)
        {
            m_gpuReason[g] = {"no-launcher",
                              "no launcher with correlation " + std::to_string(op.correlation) +
                                  " in the device trace (launched before the profiler window)"};
            continue;
        }
        const KinetoRuntimeCall& call = calls[r];
        m_gpuLauncher[g] = r;
        m_gpuLaunch[g] = call.ts;
        int32_t k = EnclosingLinkedOp(call.thread, call.ts, call.externalId);
        if (k < 0)
        {
            const std::string launcher =
                m_device.GetName(call.name) + " at " + MicrosText(call.ts) + " us";
            if (!m_hasSpan || call.ts < m_spanStart || call.ts > m_spanEnd)
            {
                m_gpuReason[g] = {"outside-iteration",
                                  "launched by " + launcher +
                                      ", outside the span of the linked host ops"};
            }
            else
            {
                m_gpuReason[g] = {"no-enclosing-host-op", "launcher " + launcher + " on thread " +
                                                              m_device.GetThreadLabel(call.thread) +
                                                              " is not inside any linked host op"};
            }
            continue;
        }
        m_gpuHost[g] = m_cpuToHost[k];
        m_hostGpuOps[m_cpuToHost[k]].push_back(g);
        ++m_summary.gpuOpsAttached;
        ++m_summary.gpuOpsAttachedByKind[static_cast<int>(op.kind)];
    }
    for (auto& list : m_hostGpuOps)
    {
        std::sort(list.begin(), list.end(), [this](uint32_t a, uint32_t b) {
            return std::make_tuple(m_gpuLaunch[a], m_gpu[a].correlation, m_gpu[a].ts,
                                   m_gpu[a].fileIndex) <
                   std::make_tuple(m_gpuLaunch[b], m_gpu[b].correlation, m_gpu[b].ts,
                                   m_gpu[b].fileIndex);
        });
    }
}

void
LinkJob::AddSyncDeps()
{
    m_syncDeps.assign(m_ops.size(), {});
    m_waitNs.assign(m_ops.size(), 0);
    // Attached GPU ops per stream in launch order, and all of them by end time.
    std::map<std::pair<int64_t, int64_t>, std::vector<uint32_t>> byStream;
    std::vector<uint32_t> byEnd;
    std::unordered_map<int64_t, uint32_t> byCorrelation;
    for (uint32_t g = 0; g < m_gpu.size(); ++g)
    {
        if (m_gpuHost[g] < 0)
        {
            continue;
        }
        byStream[{m_gpu[g].device, m_gpu[g].stream}].push_back(g);
        byEnd.push_back(g);
        byCorrelation.emplace(m_gpu[g].correlation, g);
    }
    if (byEnd.empty())
    {
        return;
    }
    auto launchOrder = [this](uint32_t a, uint32_t b) {
        return std::make_tuple(m_gpuLaunch[a], m_gpu[a].correlation, m_gpu[a].fileIndex) <
               std::make_tuple(m_gpuLaunch[b], m_gpu[b].correlation, m_gpu[b].fileIndex);
    };
    for (auto& [key, list] : byStream)
    {
        std::sort(list.begin(), list.end(), launchOrder);
    }
    std::sort(byEnd.begin(), byEnd.end(), [this](uint32_t a, uint32_t b) {
        return std::make_tuple(m_gpu[a].End(), m_gpu[a].fileIndex) <
               std::make_tuple(m_gpu[b].End(), m_gpu[b].fileIndex);
    });

    // The last attached op of a stream launched at or before t.
    auto lastLaunched = [&](const std::vector<uint32_t>& list, TimeNs t) -> int64_t {
        auto it = std::upper_bound(list.begin(), list.end(), t, [this](TimeNs value, uint32_t g) {
            return value < m_gpuLaunch[g];
        });
        return it == list.begin() ? -1 : static_cast<int64_t>(*(it - 1));
    };

    for (const KinetoRuntimeCall& call : m_device.GetRuntimeCalls())
    {
        const SyncKind kind = ClassifySync(m_device.GetName(call.name));
        if (kind == SyncKind::NONE)
        {
            continue;
        }
        std::vector<const std::vector<uint32_t>*> streams;
        if (kind == SyncKind::DEVICE)
        {
            for (const auto& [key, list] : byStream)
            {
                streams.push_back(&list);
            }
        }
        else if (kind == SyncKind::MEMCPY)
        {
            auto it = byCorrelation.find(call.correlation);
            if (it == byCorrelation.end())
            {
                continue;
            }
            streams.push_back(&byStream[{m_gpu[it->second].device, m_gpu[it->second].stream}]);
        }
        else if (kind == SyncKind::STREAM && call.stream != kKinetoNone)
        {
            for (const auto& [key, list] : byStream)
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
            auto from = std::lower_bound(
                byEnd.begin(), byEnd.end(), call.ts,
                [this](uint32_t g, TimeNs value) { return m_gpu[g].End() < value; });
            int64_t waited = -1;
            for (auto it = from; it != byEnd.end() && m_gpu[*it].End() <= call.End(); ++it)
            {
                if (m_gpuLaunch[*it] <= call.ts)
                {
                    waited = *it; // ascending end: the last one wins
                }
            }
            if (waited < 0)
            {
                continue; // nothing was running: the call did not wait
            }
            streams.push_back(&byStream[{m_gpu[waited].device, m_gpu[waited].stream}]);
        }

        // The op around the call runs its own CPU time, then waits: the first op of the
        // thread that starts after the call returned carries the dependency, and the time the
        // call spent waiting for the GPU op is taken out of the waiting op's own time
        // (wait_dur), so the wait is not replayed twice (as CPU time and as the dependency).
        // Without a later op on the thread, the waiting op itself carries the dependency
        // (then it waits first), unless it started before the GPU op was launched (that edge
        // would point backwards in time: the launcher waiting for its own work).
        const int32_t enclosing = EnclosingLinkedOp(call.thread, call.ts, call.externalId);
        const int32_t next = NextLinkedOp(call.thread, call.End());
        TimeNs waitedUntil = kMinTime;
        for (const auto* list : streams)
        {
            int64_t g = lastLaunched(*list, call.ts);
            if (g < 0)
            {
                continue;
            }
            int32_t carrier = next;
            if (carrier < 0 && enclosing >= 0 && m_cpu[enclosing].ts > m_gpuLaunch[g])
            {
                carrier = enclosing;
            }
            if (carrier < 0)
            {
                continue;
            }
            m_syncDeps[m_cpuToHost[carrier]].push_back(static_cast<uint32_t>(g));
            waitedUntil = std::max(waitedUntil, m_gpu[g].End());
        }
        if (enclosing >= 0 && waitedUntil != kMinTime)
        {
            // Blocked from the call until the last waited-for op ended; the rest of the call
            // (returning) is CPU time.
            const TimeNs blocked = std::min(waitedUntil, call.End()) - call.ts;
            m_waitNs[m_cpuToHost[enclosing]] += std::clamp<TimeNs>(blocked, 0, call.dur);
        }
    }
    for (auto& list : m_syncDeps)
    {
        std::sort(list.begin(), list.end());
        list.erase(std::unique(list.begin(), list.end()), list.end());
        m_summary.syncDeps += list.size();
    }
}

void
LinkJob::AddInterThreadDeps()
{
    m_interThreadDep.assign(m_ops.size(), -1);
    // Linked ops per host thread: top-level ones by start, all by end.
    std::map<int64_t, std::vector<uint32_t>> topLevel;
    std::map<int64_t, std::vector<uint32_t>> byEnd;
    for (uint32_t i = 0; i < m_ops.size(); ++i)
    {
        if (m_matching.hostToCpu[i] < 0)
        {
            continue;
        }
        byEnd[m_ops[i].tid].push_back(i);
        if (m_linkedParent[i] < 0)
        {
            topLevel[m_ops[i].tid].push_back(i);
        }
    }
    if (byEnd.size() < 2)
    {
        return;
    }
    auto cpu = [this](uint32_t i) -> const KinetoCpuOp& {
        return m_cpu[m_matching.hostToCpu[i]];
    };
    // Ascending end; among equal ends the outermost (earliest start, then smallest id) last.
    auto endKey = [&](uint32_t i) {
        return std::make_tuple(cpu(i).End(), -cpu(i).ts, -static_cast<int64_t>(m_ops[i].id));
    };
    for (auto& [tid, list] : byEnd)
    {
        std::sort(list.begin(), list.end(),
                  [&](uint32_t a, uint32_t b) { return endKey(a) < endKey(b); });
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
                        others.begin(), others.end(), start,
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
                    ++m_summary.interThreadDeps;
                }
            }
            first = false;
            previousEnd = std::max(previousEnd, cpu(x).End());
        }
    }
}

void
LinkJob::AddCrossStreamDeps()
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
        if (Contains(Lower(m_device.GetName(call.name)), "streamwaitevent"))
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
        if (m_gpuHost[g] >= 0)
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
            if (m_gpuHost[g] < 0 || m_gpuLauncher[g] < 0)
            {
                continue;
            }
            TimeNs ready = calls[m_gpuLauncher[g]].End();
            if (k > 0)
            {
                ready = std::max(ready, m_gpu[list[k - 1]].End());
            }
            if (m_gpu[g].ts - ready < m_options.crossStreamMinDelay)
            {
                continue;
            }
            auto it = std::upper_bound(ends.begin(), ends.end(), m_gpu[g].ts,
                                       [this](TimeNs value, uint32_t h) {
                                           return value < m_gpu[h].End();
                                       });
            while (it != ends.begin())
            {
                const uint32_t h = *--it;
                if (m_gpu[g].ts - m_gpu[h].End() > m_options.crossStreamMaxGap ||
                    m_gpu[h].End() <= ready)
                {
                    break;
                }
                if (m_gpu[h].stream == m_gpu[g].stream || m_gpuLaunch[h] > m_gpuLaunch[g])
                {
                    continue;
                }
                auto call = std::lower_bound(waitCalls.begin(), waitCalls.end(), m_gpuLaunch[h]);
                if (call == waitCalls.end() || *call > m_gpuLaunch[g])
                {
                    continue;
                }
                m_crossStreamDeps[g].push_back(h);
                ++m_summary.crossStreamDeps;
                break;
            }
        }
    }
}

void
LinkJob::AddThreadWaits()
{
    // A host op that stays idle inside its own span (no child op, no runtime call) and
    // resumes right after an op of another thread ended was waiting for that thread (the
    // main thread's "## backward ##" waiting for the autograd thread). The idle time up to
    // that end is a wait, not CPU time: it becomes wait_dur, and the first op of the thread
    // after the idle stretch gets an inter_thread_dep on the op that released it.
    auto cpu = [this](uint32_t i) -> const KinetoCpuOp& {
        return m_cpu[m_matching.hostToCpu[i]];
    };
    std::map<int64_t, std::vector<uint32_t>> byEnd;
    for (uint32_t i = 0; i < m_ops.size(); ++i)
    {
        if (m_matching.hostToCpu[i] >= 0)
        {
            byEnd[m_ops[i].tid].push_back(i);
        }
    }
    if (byEnd.size() < 2)
    {
        return;
    }
    auto endKey = [&](uint32_t i) {
        return std::make_tuple(cpu(i).End(), -cpu(i).ts, -static_cast<int64_t>(m_ops[i].id));
    };
    for (auto& [tid, list] : byEnd)
    {
        std::sort(list.begin(), list.end(),
                  [&](uint32_t a, uint32_t b) { return endKey(a) < endKey(b); });
    }
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
        std::sort(list.begin(), list.end(),
                  [&calls](uint32_t a, uint32_t b) { return calls[a].ts < calls[b].ts; });
    }
    std::vector<std::pair<TimeNs, TimeNs>> busy;
    for (uint32_t i = 0; i < m_ops.size(); ++i)
    {
        const int32_t k = m_matching.hostToCpu[i];
        if (k < 0)
        {
            continue;
        }
        const KinetoCpuOp& x = m_cpu[k];
        if (x.dur < m_options.threadWaitMinGap)
        {
            continue;
        }
        // What the thread did inside the op: nested operators (linked or not) and runtime
        // calls.
        busy.clear();
        const uint32_t last = m_device.GetThreadRange(x.thread).second;
        for (uint32_t j = static_cast<uint32_t>(k) + 1; j < last && m_cpu[j].ts < x.End();)
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
        auto c = std::lower_bound(threadCalls.begin(), threadCalls.end(), x.ts,
                                  [&calls](uint32_t call, TimeNs value) {
                                      return calls[call].ts < value;
                                  });
        for (; c != threadCalls.end() && calls[*c].ts < x.End(); ++c)
        {
            busy.emplace_back(calls[*c].ts, std::min(calls[*c].End(), x.End()));
        }
        std::sort(busy.begin(), busy.end());
        busy.emplace_back(x.End(), x.End());
        TimeNs idleFrom = x.ts;
        for (const auto& [start, end] : busy)
        {
            if (start - idleFrom >= m_options.threadWaitMinGap)
            {
                // The idle stretch [idleFrom, start): released by the latest op of another
                // thread that ended shortly before the thread went on.
                int64_t release = -1;
                for (const auto& [otherTid, others] : byEnd)
                {
                    if (otherTid == m_ops[i].tid)
                    {
                        continue;
                    }
                    auto it = std::upper_bound(
                        others.begin(), others.end(), start,
                        [&](TimeNs value, uint32_t o) { return value < cpu(o).End(); });
                    if (it == others.begin())
                    {
                        continue;
                    }
                    const uint32_t candidate = *(it - 1);
                    const TimeNs released = cpu(candidate).End();
                    if (released > idleFrom && start - released <= m_options.threadWaitMaxResume &&
                        (release < 0 || endKey(candidate) > endKey(static_cast<uint32_t>(release))))
                    {
                        release = candidate;
                    }
                }
                const int32_t carrier = release < 0 ? -1 : NextLinkedOp(x.thread, start);
                if (carrier >= 0)
                {
                    const uint32_t resumed = static_cast<uint32_t>(m_cpuToHost[carrier]);
                    m_waitNs[i] += cpu(static_cast<uint32_t>(release)).End() - idleFrom;
                    ++m_summary.threadWaits;
                    const int32_t current = m_interThreadDep[resumed];
                    if (current < 0)
                    {
                        ++m_summary.interThreadDeps;
                    }
                    if (current < 0 || endKey(static_cast<uint32_t>(release)) >
                                           endKey(static_cast<uint32_t>(current)))
                    {
                        m_interThreadDep[resumed] = static_cast<int32_t>(release);
                    }
                }
            }
            idleFrom = std::max(idleFrom, end);
        }
    }
}

void
LinkJob::AddGaps()
{
    // Between two top-level ops a thread runs Python and framework code that no op records
    // (the autograd engine between functions, the training loop between steps). Replaying
    // ops back to back would drop that time; gap_dur keeps it, except the part the thread
    // spent waiting for what the op's dependencies already express (another thread's op, the
    // GPU ops it synchronises with).
    m_gapNs.assign(m_ops.size(), 0);
    auto cpu = [this](uint32_t i) -> const KinetoCpuOp& {
        return m_cpu[m_matching.hostToCpu[i]];
    };
    // Every linked op of each host thread, nested ones too: an op the host trace files under
    // the thread but Kineto ran elsewhere (gloo's all-reduce on its worker thread) can end
    // after its parent, and the thread's next op waited for it (work.wait()).
    std::map<int64_t, std::vector<uint32_t>> byThread;
    for (uint32_t i = 0; i < m_ops.size(); ++i)
    {
        if (m_matching.hostToCpu[i] >= 0)
        {
            byThread[m_ops[i].tid].push_back(i);
        }
    }
    // The measured iteration starts the replay: a thread's first op starting later than that
    // (and waiting for nothing) starts that much later in the replay too.
    const bool haveStep = !m_summary.iterationName.empty();
    for (auto& [tid, list] : byThread)
    {
        std::sort(list.begin(), list.end(), [&](uint32_t a, uint32_t b) {
            return std::make_tuple(cpu(a).ts, m_ops[a].id) <
                   std::make_tuple(cpu(b).ts, m_ops[b].id);
        });
        TimeNs previousEnd = kMinTime;
        for (uint32_t x : list)
        {
            if (m_linkedParent[x] >= 0)
            {
                previousEnd = std::max(previousEnd, cpu(x).End());
                continue;
            }
            TimeNs released = previousEnd;
            if (released == kMinTime && haveStep && m_summary.iterationTs < cpu(x).ts)
            {
                released = m_summary.iterationTs;
            }
            if (m_interThreadDep[x] >= 0)
            {
                released = std::max(released, cpu(static_cast<uint32_t>(m_interThreadDep[x])).End());
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

void
LinkJob::FindIteration()
{
    m_summary.iterationName = "";
    m_summary.iterationTs = m_hasSpan ? m_spanStart : 0;
    m_summary.iterationDur = m_hasSpan ? m_spanEnd - m_spanStart : 0;
    if (!m_hasSpan)
    {
        return;
    }
    TimeNs bestOverlap = 0;
    for (const KinetoCpuOp& op : m_cpu)
    {
        const std::string& name = m_device.GetName(op.name);
        if (name.compare(0, 13, "ProfilerStep#") != 0)
        {
            continue;
        }
        TimeNs overlap = std::min(op.End(), m_spanEnd) - std::max(op.ts, m_spanStart);
        if (overlap > bestOverlap)
        {
            bestOverlap = overlap;
            m_summary.iterationName = name;
            m_summary.iterationTs = op.ts;
            m_summary.iterationDur = op.dur;
        }
    }
}

void
LinkJob::Renumber()
{
    m_newHostId.assign(m_ops.size(), 0);
    m_newGpuId.assign(m_gpu.size(), 0);
    uint64_t next = 1;
    for (std::size_t i = 0; i < m_ops.size(); ++i)
    {
        m_newHostId[i] = next++;
        for (uint32_t g : m_hostGpuOps[i])
        {
            m_newGpuId[g] = next++;
        }
    }
}

HostJson
LinkJob::BuildGpuNode(uint32_t g, int32_t host) const
{
    const KinetoGpuOp& op = m_gpu[g];
    const bool topLevel = m_host.GetStyle() == HostSchemaStyle::TOP_LEVEL;
    HostJson node = HostJson::object();
    const std::string& name = m_device.GetName(op.name);
    if (topLevel)
    {
        node["name"] = name;
        node["id"] = m_newGpuId[g];
        node["parent"] = m_newHostId[host];
    }
    else
    {
        node["id"] = m_newGpuId[g];
        node["name"] = name;
        node["ctrl_deps"] = m_newHostId[host];
    }
    node["cat"] = GpuOpKindName(op.kind);
    node["ts"] = MicrosecondsJson(op.ts);
    node["dur"] = MicrosecondsJson(op.dur);
    node["inclusive_dur"] = MicrosecondsJson(op.dur);
    node["exclusive_dur"] = MicrosecondsJson(op.dur);
    if (op.stream != kKinetoNone)
    {
        node["stream"] = op.stream;
    }
    if (op.device != kKinetoNone)
    {
        node["device"] = op.device;
    }
    node["correlation"] = op.correlation;
    node["tid"] = m_ops[host].tid;
    if (!m_crossStreamDeps[g].empty())
    {
        std::vector<uint64_t> ids;
        for (uint32_t h : m_crossStreamDeps[g])
        {
            ids.push_back(m_newGpuId[h]);
        }
        std::sort(ids.begin(), ids.end());
        node["cross_stream_deps"] = ids;
    }
    if (!op.processGroup.empty() && Contains(Lower(name), "nccl"))
    {
        node["pg_name"] = op.processGroup;
    }
    if (topLevel)
    {
        for (const char* key :
             {"inputs", "input_shapes", "input_types", "outputs", "output_shapes", "output_types"})
        {
            node[key] = HostJson::array();
        }
    }
    else
    {
        HostJson empty = {{"values", HostJson::array()},
                          {"shapes", HostJson::array()},
                          {"types", HostJson::array()}};
        node["inputs"] = empty;
        node["outputs"] = empty;
        node["attrs"] = HostJson::array();
    }
    return node;
}

HostJson
LinkJob::BuildTraceLink() const
{
    HostJson link = HostJson::object();
    link["version"] = 1;
    link["rank"] = m_summary.rank;
    const nlohmann::json& info = m_device.GetDistributedInfo();
    if (info.is_object())
    {
        for (const char* key : {"world_size", "backend", "pg_config"})
        {
            auto it = info.find(key);
            if (it != info.end())
            {
                link[key] = HostJson::parse(it->dump());
            }
        }
    }
    link["host_trace"] = m_summary.hostPath;
    link["device_trace"] = m_summary.devicePath;
    link["match"] = m_summary.method;
    link["iteration"] = {{"name", m_summary.iterationName},
                         {"ts", MicrosecondsJson(m_summary.iterationTs)},
                         {"dur", MicrosecondsJson(m_summary.iterationDur)}};
    link["host_ops"] = m_summary.hostOps;
    link["host_ops_linked"] = m_summary.hostOpsLinked;
    link["gpu_ops"] = m_summary.gpuOps;
    link["gpu_ops_attached"] = m_summary.gpuOpsAttached;
    link["sync_deps"] = m_summary.syncDeps;
    link["inter_thread_deps"] = m_summary.interThreadDeps;
    link["cross_stream_deps"] = m_summary.crossStreamDeps;
    link["thread_waits"] = m_summary.threadWaits;
    const nlohmann::json& properties = m_device.GetDeviceProperties();
    if (properties.is_array())
    {
        link["device_properties"] = HostJson::parse(properties.dump());
    }
    HostJson unmatched = HostJson::array();
    for (const UnmatchedOp& op : m_summary.unmatched)
    {
        HostJson entry = HostJson::object();
        if (op.kind == UnmatchedOp::Kind::HOST)
        {
            entry["kind"] = "host";
            entry["id"] = op.id;
            entry["input_id"] = op.inputId;
            entry["name"] = op.name;
        }
        else
        {
            entry["kind"] = "gpu";
            entry["name"] = op.name;
            entry["cat"] = GpuOpKindName(op.gpuKind);
            if (op.correlation != kKinetoNone)
            {
                entry["correlation"] = op.correlation;
            }
            entry["ts"] = MicrosecondsJson(op.ts);
        }
        entry["reason_code"] = op.reasonCode;
        entry["reason"] = op.reason;
        unmatched.push_back(std::move(entry));
    }
    link["unmatched"] = std::move(unmatched);
    return link;
}

HostJson
LinkJob::BuildDocument()
{
    HostJson& input = m_host.GetDocument();
    HostJson& inputNodes = input["nodes"];
    const char* parentKey = m_host.GetParentKey();
    HostJson nodes = HostJson::array();
    for (std::size_t i = 0; i < m_ops.size(); ++i)
    {
        const HostOp& op = m_ops[i];
        HostJson node = std::move(inputNodes[op.index]);
        node["id"] = m_newHostId[i];
        if (op.hasParent)
        {
            uint64_t parent = m_newHostId[m_host.FindOp(op.parent)];
            HostJson& field = node[parentKey];
            field = field.is_array() ? HostJson::array({parent}) : HostJson(parent);
        }
        if (op.fwParent != kHostNone && op.fwParent > 0)
        {
            int64_t target = m_host.FindOp(static_cast<uint64_t>(op.fwParent));
            if (target >= 0)
            {
                uint64_t remapped = m_newHostId[target];
                if (node.contains("fw_parent"))
                {
                    node["fw_parent"] = remapped;
                }
                else
                {
                    for (auto& attr : node["attrs"])
                    {
                        if (attr.is_object() && attr.value("name", "") == "fw_parent")
                        {
                            attr["value"] = remapped;
                        }
                    }
                }
            }
        }
        const int32_t k = m_matching.hostToCpu[i];
        if (k >= 0)
        {
            node["ts"] = MicrosecondsJson(m_cpu[k].ts);
            node["inclusive_dur"] = MicrosecondsJson(m_cpu[k].dur);
            const TimeNs exclusive = ExclusiveDuration(static_cast<uint32_t>(i));
            node["exclusive_dur"] = MicrosecondsJson(exclusive);
            const TimeNs wait = std::min(m_waitNs[i], exclusive);
            if (wait > 0)
            {
                node["wait_dur"] = MicrosecondsJson(wait);
            }
            if (m_gapNs[i] > 0)
            {
                node["gap_dur"] = MicrosecondsJson(m_gapNs[i]);
            }
            if (m_interThreadDep[i] >= 0)
            {
                node["inter_thread_dep"] = m_newHostId[m_interThreadDep[i]];
            }
            if (!m_syncDeps[i].empty())
            {
                std::vector<uint64_t> ids;
                for (uint32_t g : m_syncDeps[i])
                {
                    ids.push_back(m_newGpuId[g]);
                }
                std::sort(ids.begin(), ids.end());
                node["sync_deps"] = ids;
            }
        }
        nodes.push_back(std::move(node));
        for (uint32_t g : m_hostGpuOps[i])
        {
            nodes.push_back(BuildGpuNode(g, static_cast<int32_t>(i)));
        }
    }

    HostJson output = HostJson::object();
    for (auto it = input.begin(); it != input.end(); ++it)
    {
        if (it.key() != "nodes" && it.key() != "trace_link")
        {
            output[it.key()] = std::move(it.value());
        }
    }
    output["trace_link"] = BuildTraceLink();
    output["nodes"] = std::move(nodes);
    return output;
}

LinkResult
LinkJob::Run()
{
    CheckSameRun();
    for (const HostOp& op : m_ops)
    {
        m_summary.hostOps += op.traceNode ? 0 : 1;
    }
    m_summary.gpuOps = m_gpu.size();

    if (m_device.HasRecordFunctionIds())
    {
        Matching byRfId = MatchByRecordFunctionId();
        if (2 * byRfId.linked >= m_summary.hostOps)
        {
            m_summary.method = "rf_id";
            ApplyMatching(std::move(byRfId));
        }
        else
        {
            Matching byOrder = MatchByOrder();
            const bool useOrder = byOrder.linked > byRfId.linked;
            m_summary.method = useOrder ? "order" : "rf_id";
            m_summary.warnings.push_back("only " + std::to_string(byRfId.linked) + " of " +
                                         std::to_string(m_summary.hostOps) +
                                         " host ops match by rf_id; " +
                                         (useOrder ? "matched by order and name instead (" +
                                                         std::to_string(byOrder.linked) + " linked)"
                                                   : std::string("order and name did no better")));
            ApplyMatching(useOrder ? std::move(byOrder) : std::move(byRfId));
        }
    }
    else
    {
        m_summary.method = "order";
        ApplyMatching(MatchByOrder());
    }
    m_summary.hostOpsLinked = m_matching.linked;
    m_summary.threads = m_matching.threads;
    if (m_summary.hostOpsLinked == 0)
    {
        throw TraceError(m_device.GetPath(), "",
                         "no host op of " + m_host.GetPath() +
                             " matches a CPU op of this trace (traces of different programs "
                             "or runs?)");
    }

    ComputeLinkedParents();
    AttachGpuOps();
    AddSyncDeps();
    AddInterThreadDeps();
    AddThreadWaits();
    AddCrossStreamDeps();
    FindIteration();
    AddGaps();
    Renumber();

    const nlohmann::json& info = m_device.GetDistributedInfo();
    if (info.is_object() && info.contains("rank") && info["rank"].is_number_integer() &&
        info["rank"].get<int64_t>() != m_summary.rank)
    {
        m_summary.warnings.push_back("the device trace says rank " + info["rank"].dump() +
                                     ", the rank given is " + std::to_string(m_summary.rank));
    }

    for (std::size_t i = 0; i < m_ops.size(); ++i)
    {
        if (m_ops[i].traceNode || m_matching.hostToCpu[i] >= 0)
        {
            continue;
        }
        UnmatchedOp u;
        u.kind = UnmatchedOp::Kind::HOST;
        u.reasonCode = m_matching.reasonCode[i];
        u.reason = m_matching.reason[i];
        u.name = m_ops[i].name;
        u.id = m_newHostId[i];
        u.inputId = m_ops[i].id;
        m_summary.unmatched.push_back(std::move(u));
    }
    for (uint32_t g = 0; g < m_gpu.size(); ++g)
    {
        if (m_gpuHost[g] >= 0)
        {
            continue;
        }
        UnmatchedOp u;
        u.kind = UnmatchedOp::Kind::GPU;
        u.reasonCode = m_gpuReason[g].first;
        u.reason = m_gpuReason[g].second;
        u.name = m_device.GetName(m_gpu[g].name);
        u.correlation = m_gpu[g].correlation;
        u.ts = m_gpu[g].ts;
        u.gpuKind = m_gpu[g].kind;
        m_summary.unmatched.push_back(std::move(u));
    }

    LinkResult result;
    result.trace = BuildDocument();
    result.summary = std::move(m_summary);
    return result;
}

void
AppendValue(std::string& out, const HostJson& value)
{
    out += value.dump(-1, ' ', false, HostJson::error_handler_t::replace);
}

} // namespace

TraceLinker::TraceLinker()
    : m_options()
{
}

TraceLinker::TraceLinker(const Options& options)
    : m_options(options)
{
}

LinkResult
TraceLinker::Link(const std::string& hostPath, const std::string& devicePath, int64_t rank) const
{
    HostTrace host(hostPath);
    KinetoTrace device(devicePath);
    LinkJob job(m_options, host, device, rank);
    return job.Run();
}

std::string
SerializeLinkedTrace(const HostJson& trace)
{
    std::string out = "{";
    bool first = true;
    for (auto it = trace.begin(); it != trace.end(); ++it)
    {
        if (it.key() == "nodes")
        {
            continue;
        }
        out += first ? "\n" : ",\n";
        first = false;
        AppendValue(out, HostJson(it.key()));
        out += ": ";
        AppendValue(out, it.value());
    }
    out += first ? "\n" : ",\n";
    out += "\"nodes\": [";
    auto nodes = trace.find("nodes");
    if (nodes != trace.end())
    {
        bool firstNode = true;
        for (const auto& node : *nodes)
        {
            out += firstNode ? "\n" : ",\n";
            firstNode = false;
            AppendValue(out, node);
        }
    }
    out += "\n]}\n";
    return out;
}

void
WriteLinkedTrace(const LinkResult& result, const std::string& path)
{
    AtomicOutputFile file(path);
    file.Write(SerializeLinkedTrace(result.trace));
    file.Commit();
}

} // namespace ns3
