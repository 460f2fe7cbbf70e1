/*
 * LinkJob's driver: the order of the linker's steps (Run), the check that the two traces come
 * from one run, and the summary of what the steps found.
 */
#include "link-job.h"

#include "ns3/trace-error.h"

#include <algorithm>

namespace ns3
{

LinkJob::LinkJob(const TraceLinker::Options& options,
                 HostTrace& host,
                 const KinetoTrace& device,
                 int64_t rank)
    : m_options(options),
      m_host(host),
      m_device(device)
{
    m_summary.hostPath = host.GetPath();
    m_summary.devicePath = device.GetPath();
    m_summary.rank = rank;
    m_summary.schema = host.GetSchema();
    m_summary.legacyDeviceTrace = device.IsLegacy();
}

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
    throw TraceError(m_device.GetPath(),
                     "",
                     "the traces come from different runs: host trace " + m_host.GetPath() +
                         " has pid " + std::to_string(*hostPid) +
                         ", this trace's host events have pid " + list);
}

void
LinkJob::MatchHostOps(HostOpMatching& matching)
{
    matching.Match(m_summary.hostOps);
    m_summary.method = matching.GetMethod();
    for (const std::string& warning : matching.GetWarnings())
    {
        m_summary.warnings.push_back(warning);
    }
    m_summary.hostOpsLinked = matching.GetLinkedCount();
    m_summary.threads = matching.GetThreadLines();
    if (m_summary.hostOpsLinked == 0)
    {
        throw TraceError(m_device.GetPath(),
                         "",
                         "no host op of " + m_host.GetPath() +
                             " matches a CPU op of this trace (traces of different programs "
                             "or runs?)");
    }
}

void
LinkJob::CheckRank()
{
    const nlohmann::json& info = m_device.GetDistributedInfo();
    if (info.is_object() && info.contains("rank") && info["rank"].is_number_integer() &&
        info["rank"].get<int64_t>() != m_summary.rank)
    {
        m_summary.warnings.push_back("the device trace says rank " + info["rank"].dump() +
                                     ", the rank given is " + std::to_string(m_summary.rank));
    }
}

void
LinkJob::ListUnmatched(const HostOpMatching& matching,
                       const GpuOpAttachment& attachment,
                       const LinkedTraceOutput& output)
{
    const std::vector<HostOp>& ops = m_host.GetOps();
    for (std::size_t i = 0; i < ops.size(); ++i)
    {
        if (ops[i].traceNode || matching.GetCpuOp(i) >= 0)
        {
            continue;
        }
        UnmatchedOp u;
        u.kind = UnmatchedOp::Kind::HOST;
        u.reasonCode = matching.GetReasonCode(i);
        u.reason = matching.GetReason(i);
        u.name = ops[i].name;
        u.id = output.GetHostId(i);
        u.inputId = ops[i].id;
        m_summary.unmatched.push_back(std::move(u));
    }
    const std::vector<KinetoGpuOp>& gpu = m_device.GetGpuOps();
    for (uint32_t g = 0; g < gpu.size(); ++g)
    {
        if (attachment.GetHostOp(g) >= 0)
        {
            continue;
        }
        UnmatchedOp u;
        u.kind = UnmatchedOp::Kind::GPU;
        u.reasonCode = attachment.GetReason(g).first;
        u.reason = attachment.GetReason(g).second;
        u.name = m_device.GetName(gpu[g].name);
        u.correlation = gpu[g].correlation;
        u.ts = gpu[g].ts;
        u.gpuKind = gpu[g].kind;
        m_summary.unmatched.push_back(std::move(u));
    }
}

LinkResult
LinkJob::Run()
{
    CheckSameRun();
    for (const HostOp& op : m_host.GetOps())
    {
        m_summary.hostOps += op.traceNode ? 0 : 1;
    }
    m_summary.gpuOps = m_device.GetGpuOps().size();

    HostOpMatching matching(m_options, m_host, m_device);
    MatchHostOps(matching);

    GpuOpAttachment attachment(m_device, matching, m_host.GetOps().size());
    attachment.Attach();
    m_summary.gpuOpsAttached = attachment.GetAttachedCount();
    for (int kind = 0; kind < 3; ++kind)
    {
        m_summary.gpuOpsByKind[kind] = attachment.GetCountByKind(kind);
        m_summary.gpuOpsAttachedByKind[kind] = attachment.GetAttachedCountByKind(kind);
    }

    const LinkedIteration iteration = LinkedTraceOutput::FindIteration(matching, m_device);
    m_summary.iterationName = iteration.name;
    m_summary.iterationTs = iteration.ts;
    m_summary.iterationDur = iteration.dur;

    LinkDependencies dependencies(m_options, m_host, m_device, matching, attachment);
    dependencies.Find(iteration.name.empty() ? std::nullopt : std::optional<TimeNs>(iteration.ts));
    m_summary.syncDeps = dependencies.GetSyncDepCount();
    m_summary.interThreadDeps = dependencies.GetInterThreadDepCount();
    m_summary.threadWaits = dependencies.GetThreadWaitCount();
    m_summary.crossStreamDeps = dependencies.GetCrossStreamDepCount();

    LinkedTraceOutput output(m_host, m_device, matching, attachment, dependencies);
    CheckRank();
    ListUnmatched(matching, attachment, output);

    LinkResult result;
    result.trace = output.BuildDocument(m_summary);
    result.summary = std::move(m_summary);
    return result;
}

} // namespace ns3
