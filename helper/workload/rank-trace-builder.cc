#include "rank-trace-builder.h"

#include "ns3/et-attribute-writer.h"

#include <limits>
#include <stdexcept>

namespace ns3
{

namespace
{

/** \return the GlobalMetadata of generated traces (world_size if not 0, the step's facts) */
ChakraProtoMsg::GlobalMetadata
GeneratorMetadata(uint32_t worldSize, const TrainingStepFacts& facts = {})
{
    ChakraProtoMsg::GlobalMetadata metadata;
    metadata.set_version("0.0.4");
    EtAttributeWriter attributes(metadata.mutable_attr());
    attributes.String("schema", "chakra_generator");
    if (worldSize > 0)
    {
        attributes.Int64("world_size", worldSize);
    }
    if (facts.tokens > 0)
    {
        attributes.Double("model_flops_per_step", facts.modelFlops);
        attributes.Int64("tokens_per_step", static_cast<int64_t>(facts.tokens));
        attributes.Double("gpu_peak_flops", facts.gpuPeakFlops);
    }
    return metadata;
}

/** Adds comm_size, refusing sizes that do not fit its int64. */
void
AddCommSize(ChakraProtoMsg::Node& node, uint64_t bytes)
{
    if (bytes > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
    {
        throw std::invalid_argument("node '" + node.name() + "': comm_size " +
                                    std::to_string(bytes) + " does not fit in 63 bits");
    }
    EtAttributeWriter(node.mutable_attr()).Int64("comm_size", static_cast<int64_t>(bytes));
}

/** \return text as a JSON string literal */
std::string
JsonString(const std::string& text)
{
    std::string out = "\"";
    for (char c : text)
    {
        if (c == '"' || c == '\\')
        {
            out += '\\';
        }
        out += c;
    }
    return out + "\"";
}

} // namespace

RankTraceBuilder::RankTraceBuilder(const std::string& path, uint32_t worldSize)
    : m_writer(path, GeneratorMetadata(worldSize))
{
}

RankTraceBuilder::RankTraceBuilder(const std::string& path,
                                   uint32_t worldSize,
                                   const TrainingStepFacts& facts)
    : m_writer(path, GeneratorMetadata(worldSize, facts))
{
}

uint64_t
RankTraceBuilder::Compute(const std::string& name,
                          uint64_t micros,
                          const std::vector<uint64_t>& deps,
                          int64_t stream)
{
    ChakraProtoMsg::Node node = Base(name, ChakraProtoMsg::COMP_NODE, deps);
    node.set_duration_micros(micros);
    EtAttributeWriter attributes(node.mutable_attr());
    attributes.Bool("is_cpu_op", false);
    attributes.Int64("stream", stream);
    return Write(node);
}

uint64_t
RankTraceBuilder::CpuOp(const std::string& name,
                        uint64_t micros,
                        const std::vector<uint64_t>& deps,
                        int64_t tid)
{
    ChakraProtoMsg::Node node = Base(name, ChakraProtoMsg::COMP_NODE, deps);
    node.set_duration_micros(micros);
    EtAttributeWriter attributes(node.mutable_attr());
    attributes.Bool("is_cpu_op", true);
    attributes.Int64("tid", tid);
    return Write(node);
}

uint64_t
RankTraceBuilder::HostCollective(const std::string& name,
                                 ChakraProtoMsg::CollectiveCommType type,
                                 uint64_t bytes,
                                 const std::vector<uint64_t>& deps,
                                 const std::string& pg,
                                 int64_t tid)
{
    ChakraProtoMsg::Node node = Base(name, ChakraProtoMsg::COMM_COLL_NODE, deps);
    EtAttributeWriter attributes(node.mutable_attr());
    attributes.Bool("is_cpu_op", true);
    attributes.Int64("tid", tid);
    attributes.Int64("comm_type", type);
    AddCommSize(node, bytes);
    attributes.String("pg_name", pg);
    return Write(node);
}

uint64_t
RankTraceBuilder::Collective(const std::string& name,
                             ChakraProtoMsg::CollectiveCommType type,
                             uint64_t bytes,
                             const std::vector<uint64_t>& deps,
                             const std::string& pg,
                             int64_t stream,
                             int64_t root)
{
    ChakraProtoMsg::Node node = Base(name, ChakraProtoMsg::COMM_COLL_NODE, deps);
    EtAttributeWriter attributes(node.mutable_attr());
    attributes.Bool("is_cpu_op", false);
    attributes.Int64("comm_type", type);
    AddCommSize(node, bytes);
    attributes.String("pg_name", pg);
    attributes.Int64("stream", stream);
    if (root >= 0)
    {
        attributes.Int64("root_rank", root);
    }
    return Write(node);
}

uint64_t
RankTraceBuilder::Send(const std::string& name,
                       uint32_t dst,
                       int32_t tag,
                       uint64_t bytes,
                       const std::vector<uint64_t>& deps,
                       const std::string& pg)
{
    return PointToPoint(name, true, dst, tag, bytes, deps, pg);
}

uint64_t
RankTraceBuilder::Recv(const std::string& name,
                       uint32_t src,
                       int32_t tag,
                       uint64_t bytes,
                       const std::vector<uint64_t>& deps,
                       const std::string& pg)
{
    return PointToPoint(name, false, src, tag, bytes, deps, pg);
}

uint64_t
RankTraceBuilder::PointToPoint(const std::string& name,
                               bool send,
                               uint32_t peer,
                               int32_t tag,
                               uint64_t bytes,
                               const std::vector<uint64_t>& deps,
                               const std::string& pg)
{
    if (peer > static_cast<uint32_t>(std::numeric_limits<int32_t>::max()))
    {
        throw std::invalid_argument("node '" + name + "': peer rank " + std::to_string(peer) +
                                    " does not fit in comm_src/comm_dst (int32)");
    }
    ChakraProtoMsg::Node node =
        Base(name, send ? ChakraProtoMsg::COMM_SEND_NODE : ChakraProtoMsg::COMM_RECV_NODE, deps);
    EtAttributeWriter attributes(node.mutable_attr());
    attributes.Bool("is_cpu_op", false);
    attributes.Int32(send ? "comm_dst" : "comm_src", static_cast<int32_t>(peer));
    attributes.Int32("comm_tag", tag);
    AddCommSize(node, bytes);
    if (!pg.empty())
    {
        attributes.String("pg_name", pg);
    }
    return Write(node);
}

uint64_t
RankTraceBuilder::ProcessGroups(const std::vector<ProcessGroupSpec>& groups)
{
    ChakraProtoMsg::Node node = Base("process_group:init", ChakraProtoMsg::METADATA_NODE, {});
    std::string json = "[";
    for (std::size_t g = 0; g < groups.size(); ++g)
    {
        json += g > 0 ? ", " : "";
        json += "{\"pg_name\": " + JsonString(groups[g].name) + ", \"ranks\": [";
        for (std::size_t i = 0; i < groups[g].ranks.size(); ++i)
        {
            json += (i > 0 ? ", " : "") + std::to_string(groups[g].ranks[i]);
        }
        json += "], \"group_size\": " + std::to_string(groups[g].ranks.size()) + "}";
    }
    json += "]";
    node.mutable_inputs()->set_values(json);
    return Write(node);
}

void
RankTraceBuilder::Commit()
{
    m_writer.Commit();
}

std::string
RankTraceBuilder::Path(const std::string& prefix, uint32_t rank)
{
    return prefix + "." + std::to_string(rank) + ".et";
}

ChakraProtoMsg::Node
RankTraceBuilder::Base(const std::string& name,
                       ChakraProtoMsg::NodeType type,
                       const std::vector<uint64_t>& deps) const
{
    ChakraProtoMsg::Node node;
    node.set_id(m_nextId);
    node.set_name(name);
    node.set_type(type);
    for (uint64_t dep : deps)
    {
        node.add_data_deps(dep);
    }
    return node;
}

uint64_t
RankTraceBuilder::Write(const ChakraProtoMsg::Node& node)
{
    m_writer.WriteNode(node);
    return m_nextId++;
}

} // namespace ns3
