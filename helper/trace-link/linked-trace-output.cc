/*
 * LinkJob's output: the iteration it covers, the ids of the output nodes, the host and GPU
 * nodes and the trace_link summary object, and the document's text (one node a line).
 */
#include "link-job.h"

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
