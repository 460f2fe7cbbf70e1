/*
 * LinkJob's driver: what it indexes at construction, the order of its steps (Run), the check
 * that the two traces come from one run, and the name helpers its steps share.
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

std::string
LinkJob::Lower(const std::string& text)
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
LinkJob::Contains(const std::string& text, const char* part)
{
    return text.find(part) != std::string::npos;
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
        throw TraceError(m_device.GetPath(),
                         "",
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

} // namespace ns3
