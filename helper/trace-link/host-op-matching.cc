/*
 * HostOpMatching: host ops matched to Kineto CPU ops by rf_id when the Kineto trace has
 * those ids, else by order and name per thread (OpAligner); a matched host op takes its CPU
 * op's start and duration, which puts the host trace on the device trace's clock.
 */
#include "host-op-matching.h"

#include <algorithm>
#include <map>
#include <tuple>

namespace ns3
{

namespace
{

std::string
Shorten(const std::string& text, std::size_t size = 60)
{
    return text.size() <= size ? text : text.substr(0, size - 3) + "...";
}

} // namespace

HostOpMatching::HostOpMatching(const TraceLinker::Options& options,
                               const HostTrace& host,
                               const KinetoTrace& device)
    : m_options(options),
      m_host(host),
      m_device(device),
      m_ops(host.GetOps()),
      m_cpu(device.GetCpuOps())
{
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

void
HostOpMatching::Match(uint64_t hostOps)
{
    if (!m_device.HasRecordFunctionIds())
    {
        m_method = "order";
        Apply(MatchByOrder());
    }
    else
    {
        MethodResult byRfId = MatchByRecordFunctionId();
        if (2 * byRfId.linked >= hostOps)
        {
            m_method = "rf_id";
            Apply(std::move(byRfId));
        }
        else
        {
            MethodResult byOrder = MatchByOrder();
            const bool useOrder = byOrder.linked > byRfId.linked;
            m_method = useOrder ? "order" : "rf_id";
            m_warnings.push_back("only " + std::to_string(byRfId.linked) + " of " +
                                 std::to_string(hostOps) + " host ops match by rf_id; " +
                                 (useOrder ? "matched by order and name instead (" +
                                                 std::to_string(byOrder.linked) + " linked)"
                                           : std::string("order and name did no better")));
            Apply(useOrder ? std::move(byOrder) : std::move(byRfId));
        }
    }
    ComputeLinkedParents();
}

const std::string&
HostOpMatching::GetMethod() const
{
    return m_method;
}

const std::vector<std::string>&
HostOpMatching::GetWarnings() const
{
    return m_warnings;
}

const std::vector<std::string>&
HostOpMatching::GetThreadLines() const
{
    return m_result.threads;
}

uint64_t
HostOpMatching::GetLinkedCount() const
{
    return m_result.linked;
}

int32_t
HostOpMatching::GetCpuOp(std::size_t host) const
{
    return m_result.hostToCpu[host];
}

int32_t
HostOpMatching::GetHostOp(std::size_t cpu) const
{
    return m_cpuToHost[cpu];
}

const KinetoCpuOp&
HostOpMatching::GetLinkedCpuOp(uint32_t host) const
{
    return m_cpu[m_result.hostToCpu[host]];
}

const std::string&
HostOpMatching::GetReasonCode(std::size_t host) const
{
    return m_result.reasonCode[host];
}

const std::string&
HostOpMatching::GetReason(std::size_t host) const
{
    return m_result.reason[host];
}

int32_t
HostOpMatching::GetLinkedParent(std::size_t host) const
{
    return m_linkedParent[host];
}

const std::vector<int32_t>&
HostOpMatching::GetLinkedChildren(std::size_t host) const
{
    return m_linkedChildren[host];
}

bool
HostOpMatching::HasSpan() const
{
    return m_hasSpan;
}

TimeNs
HostOpMatching::GetSpanStart() const
{
    return m_spanStart;
}

TimeNs
HostOpMatching::GetSpanEnd() const
{
    return m_spanEnd;
}

int32_t
HostOpMatching::EnclosingLinkedOp(uint32_t thread, TimeNs t, int64_t externalId) const
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
HostOpMatching::NextLinkedOp(uint32_t thread, TimeNs t) const
{
    auto [first, last] = m_device.GetThreadRange(thread);
    auto begin = m_cpu.begin() + first;
    auto end = m_cpu.begin() + last;
    auto it = std::lower_bound(begin, end, t, [](const KinetoCpuOp& op, TimeNs value) {
        return op.ts < value;
    });
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

HostOpMatching::MethodResult
HostOpMatching::EmptyResult() const
{
    MethodResult result;
    result.hostToCpu.assign(m_ops.size(), -1);
    result.reasonCode.assign(m_ops.size(), "");
    result.reason.assign(m_ops.size(), "");
    return result;
}

HostOpMatching::MethodResult
HostOpMatching::MatchByRecordFunctionId() const
{
    MethodResult result = EmptyResult();
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

std::vector<OpSequence>
HostOpMatching::DeviceSequences() const
{
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
    return deviceSeqs;
}

HostOpMatching::ThreadPlacement
HostOpMatching::PlaceHostThread(const OpSequence& hostSeq,
                                const std::vector<OpSequence>& deviceSeqs,
                                const std::vector<bool>& taken,
                                bool haveReference,
                                TimeNs refStart,
                                TimeNs refEnd) const
{
    ThreadPlacement best;
    const auto threadCount = static_cast<uint32_t>(deviceSeqs.size());
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
                distance = std::max<TimeNs>(0, std::max(start, refStart) - std::min(end, refEnd));
            }
            auto key = [](const AlignmentScore& s, TimeNs d, TimeNs t) {
                return std::make_tuple(s.matched,
                                       s.seqAgree,
                                       -d,
                                       -static_cast<int64_t>(s.skipped),
                                       s.idAgree,
                                       -t);
            };
            if (!best.found ||
                key(score, distance, start) > key(best.score, best.distance, best.start))
            {
                best.found = true;
                best.score = score;
                best.thread = u;
                best.distance = distance;
                best.start = start;
                best.end = end;
            }
        }
    }
    return best;
}

uint64_t
HostOpMatching::ApplyThreadMatch(MethodResult& result,
                                 const std::vector<uint32_t>& ops,
                                 const OpSequence& hostSeq,
                                 const std::vector<OpSequence>& deviceSeqs,
                                 const ThreadPlacement& best) const
{
    OpAligner aligner(hostSeq, deviceSeqs[best.thread], m_options.matchWindow);
    std::vector<int32_t> match;
    aligner.Score(best.score.offset, ops.size(), &match);
    const uint32_t first = m_device.GetThreadRange(best.thread).first;
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
                               m_device.GetThreadLabel(best.thread);
        }
    }
    return linkedHere;
}

HostOpMatching::MethodResult
HostOpMatching::MatchByOrder() const
{
    MethodResult result = EmptyResult();

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
    const std::vector<OpSequence> deviceSeqs = DeviceSequences();

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

        const ThreadPlacement best =
            PlaceHostThread(hostSeq, deviceSeqs, taken, haveReference, refStart, refEnd);
        const bool found = best.found;
        const auto needed = static_cast<uint32_t>(
            std::max(1.0, std::ceil(m_options.minThreadMatchFraction * ops.size())));
        std::string hostLabel = "host thread " + std::to_string(tid);
        if (!found || best.score.matched < needed)
        {
            for (uint32_t i : ops)
            {
                result.reasonCode[i] = "thread-not-found";
                result.reason[i] = "no thread of the device trace runs " + hostLabel +
                                   "'s ops in this order (best: " +
                                   std::to_string(found ? best.score.matched : 0) + " of " +
                                   std::to_string(ops.size()) + " matched)";
            }
            result.threads.push_back(hostLabel + " -> none (" +
                                     std::to_string(found ? best.score.matched : 0) + "/" +
                                     std::to_string(ops.size()) + " matched at best)");
            continue;
        }
        taken[best.thread] = true;
        if (!haveReference)
        {
            haveReference = true;
            refStart = best.start;
            refEnd = best.end;
        }
        else
        {
            refStart = std::min(refStart, best.start);
            refEnd = std::max(refEnd, best.end);
        }
        const uint64_t linkedHere = ApplyThreadMatch(result, ops, hostSeq, deviceSeqs, best);
        result.linked += linkedHere;
        result.threads.push_back(
            hostLabel + " -> device thread " + m_device.GetThreadLabel(best.thread) + ": " +
            std::to_string(linkedHere) + "/" + std::to_string(ops.size()) + " ops matched (" +
            std::to_string(best.score.skipped) + " extra device ops skipped, " +
            std::to_string(best.score.seqAgree) + " sequence numbers agree)");
    }
    MatchAcrossThreads(result, haveReference, refStart, refEnd);
    return result;
}

void
HostOpMatching::MatchAcrossThreads(MethodResult& result,
                                   bool haveSpan,
                                   TimeNs spanStart,
                                   TimeNs spanEnd) const
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
HostOpMatching::Apply(MethodResult result)
{
    m_result = std::move(result);
    m_cpuToHost.assign(m_cpu.size(), -1);
    for (std::size_t i = 0; i < m_ops.size(); ++i)
    {
        int32_t k = m_result.hostToCpu[i];
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
HostOpMatching::ComputeLinkedParents()
{
    m_linkedParent.assign(m_ops.size(), -1);
    m_linkedChildren.assign(m_ops.size(), {});
    for (std::size_t i = 0; i < m_ops.size(); ++i)
    {
        if (m_result.hostToCpu[i] < 0)
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
            if (m_result.hostToCpu[p] >= 0)
            {
                m_linkedParent[i] = static_cast<int32_t>(p);
                m_linkedChildren[p].push_back(static_cast<int32_t>(i));
                break;
            }
            op = &m_ops[p];
        }
    }
}

} // namespace ns3
