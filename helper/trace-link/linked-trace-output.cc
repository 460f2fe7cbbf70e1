/*
 * LinkedTraceOutput: the iteration the linked trace covers, the ids of the output nodes, the
 * host and GPU nodes and the trace_link summary object, and the document's text (one node a
 * line).
 */
#include "linked-trace-output.h"

#include "link-text.h"

#include "ns3/trace-file.h"

#include <algorithm>

namespace ns3
{

namespace
{

void
AppendValue(std::string& out, const HostJson& value)
{
    out += value.dump(-1, ' ', false, HostJson::error_handler_t::replace);
}

} // namespace

LinkedIteration
LinkedTraceOutput::FindIteration(const HostOpMatching& matching, const KinetoTrace& device)
{
    LinkedIteration iteration;
    if (!matching.HasSpan())
    {
        return iteration;
    }
    const TimeNs spanStart = matching.GetSpanStart();
    const TimeNs spanEnd = matching.GetSpanEnd();
    iteration.ts = spanStart;
    iteration.dur = spanEnd - spanStart;
    TimeNs bestOverlap = 0;
    for (const KinetoCpuOp& op : device.GetCpuOps())
    {
        const std::string& name = device.GetName(op.name);
        if (name.compare(0, 13, "ProfilerStep#") != 0)
        {
            continue;
        }
        TimeNs overlap = std::min(op.End(), spanEnd) - std::max(op.ts, spanStart);
        if (overlap > bestOverlap)
        {
            bestOverlap = overlap;
            iteration.name = name;
            iteration.ts = op.ts;
            iteration.dur = op.dur;
        }
    }
    return iteration;
}

LinkedTraceOutput::LinkedTraceOutput(HostTrace& host,
                                     const KinetoTrace& device,
                                     const HostOpMatching& matching,
                                     const GpuOpAttachment& attachment,
                                     const LinkDependencies& dependencies)
    : m_host(host),
      m_device(device),
      m_matching(matching),
      m_attachment(attachment),
      m_dependencies(dependencies),
      m_ops(host.GetOps())
{
    m_newHostId.assign(m_ops.size(), 0);
    m_newGpuId.assign(device.GetGpuOps().size(), 0);
    uint64_t next = 1;
    for (std::size_t i = 0; i < m_ops.size(); ++i)
    {
        m_newHostId[i] = next++;
        for (uint32_t g : attachment.GetGpuOps(i))
        {
            m_newGpuId[g] = next++;
        }
    }
}

uint64_t
LinkedTraceOutput::GetHostId(std::size_t host) const
{
    return m_newHostId[host];
}

HostJson
LinkedTraceOutput::BuildGpuNode(uint32_t g, int32_t host) const
{
    const KinetoGpuOp& op = m_device.GetGpuOps()[g];
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
    if (!m_dependencies.GetCrossStreamDeps(g).empty())
    {
        std::vector<uint64_t> ids;
        for (uint32_t h : m_dependencies.GetCrossStreamDeps(g))
        {
            ids.push_back(m_newGpuId[h]);
        }
        std::sort(ids.begin(), ids.end());
        node["cross_stream_deps"] = ids;
    }
    if (!op.processGroup.empty() && ContainsText(LowerAscii(name), "nccl"))
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
LinkedTraceOutput::BuildTraceLink(const LinkSummary& summary) const
{
    HostJson link = HostJson::object();
    link["version"] = 1;
    link["rank"] = summary.rank;
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
    link["host_trace"] = summary.hostPath;
    link["device_trace"] = summary.devicePath;
    link["match"] = summary.method;
    link["iteration"] = {{"name", summary.iterationName},
                         {"ts", MicrosecondsJson(summary.iterationTs)},
                         {"dur", MicrosecondsJson(summary.iterationDur)}};
    link["host_ops"] = summary.hostOps;
    link["host_ops_linked"] = summary.hostOpsLinked;
    link["gpu_ops"] = summary.gpuOps;
    link["gpu_ops_attached"] = summary.gpuOpsAttached;
    link["sync_deps"] = summary.syncDeps;
    link["inter_thread_deps"] = summary.interThreadDeps;
    link["cross_stream_deps"] = summary.crossStreamDeps;
    link["thread_waits"] = summary.threadWaits;
    const nlohmann::json& properties = m_device.GetDeviceProperties();
    if (properties.is_array())
    {
        link["device_properties"] = HostJson::parse(properties.dump());
    }
    HostJson unmatched = HostJson::array();
    for (const UnmatchedOp& op : summary.unmatched)
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

void
LinkedTraceOutput::RemapForwardParent(const HostOp& op, HostJson& node) const
{
    if (op.fwParent == kHostNone || op.fwParent <= 0)
    {
        return;
    }
    int64_t target = m_host.FindOp(static_cast<uint64_t>(op.fwParent));
    if (target < 0)
    {
        return;
    }
    uint64_t remapped = m_newHostId[target];
    if (node.contains("fw_parent"))
    {
        node["fw_parent"] = remapped;
        return;
    }
    for (auto& attr : node["attrs"])
    {
        if (attr.is_object() && attr.value("name", "") == "fw_parent")
        {
            attr["value"] = remapped;
        }
    }
}

HostJson
LinkedTraceOutput::BuildHostNode(std::size_t i, HostJson node) const
{
    const HostOp& op = m_ops[i];
    node["id"] = m_newHostId[i];
    if (op.hasParent)
    {
        uint64_t parent = m_newHostId[m_host.FindOp(op.parent)];
        HostJson& field = node[m_host.GetParentKey()];
        field = field.is_array() ? HostJson::array({parent}) : HostJson(parent);
    }
    RemapForwardParent(op, node);
    if (m_matching.GetCpuOp(i) < 0)
    {
        return node;
    }
    const KinetoCpuOp& cpu = m_matching.GetLinkedCpuOp(static_cast<uint32_t>(i));
    node["ts"] = MicrosecondsJson(cpu.ts);
    node["inclusive_dur"] = MicrosecondsJson(cpu.dur);
    const TimeNs exclusive = m_dependencies.ExclusiveDuration(static_cast<uint32_t>(i));
    node["exclusive_dur"] = MicrosecondsJson(exclusive);
    const TimeNs wait = std::min(m_dependencies.GetWaitTime(i), exclusive);
    if (wait > 0)
    {
        node["wait_dur"] = MicrosecondsJson(wait);
    }
    if (m_dependencies.GetGapTime(i) > 0)
    {
        node["gap_dur"] = MicrosecondsJson(m_dependencies.GetGapTime(i));
    }
    if (m_dependencies.GetInterThreadDep(i) >= 0)
    {
        node["inter_thread_dep"] = m_newHostId[m_dependencies.GetInterThreadDep(i)];
    }
    if (!m_dependencies.GetSyncDeps(i).empty())
    {
        std::vector<uint64_t> ids;
        for (uint32_t g : m_dependencies.GetSyncDeps(i))
        {
            ids.push_back(m_newGpuId[g]);
        }
        std::sort(ids.begin(), ids.end());
        node["sync_deps"] = ids;
    }
    return node;
}

HostJson
LinkedTraceOutput::BuildDocument(const LinkSummary& summary)
{
    HostJson& input = m_host.GetDocument();
    HostJson& inputNodes = input["nodes"];
    HostJson nodes = HostJson::array();
    for (std::size_t i = 0; i < m_ops.size(); ++i)
    {
        nodes.push_back(BuildHostNode(i, std::move(inputNodes[m_ops[i].index])));
        for (uint32_t g : m_attachment.GetGpuOps(i))
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
    output["trace_link"] = BuildTraceLink(summary);
    output["nodes"] = std::move(nodes);
    return output;
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
