#include "rank-trace-builder.h"

#include <limits>
#include <stdexcept>

namespace ns3
{

namespace
{

/** \return the GlobalMetadata of generated traces (world_size if not 0) */
ChakraProtoMsg::GlobalMetadata
GeneratorMetadata(uint32_t worldSize)
{
    ChakraProtoMsg::GlobalMetadata metadata;
    metadata.set_version("0.0.4");
    auto* schema = metadata.add_attr();
    schema->set_name("schema");
    schema->set_string_val("chakra_generator");
    if (worldSize > 0)
    {
        auto* world = metadata.add_attr();
        world->set_name("world_size");
        world->set_int64_val(worldSize);
    }
    return metadata;
}

void
AddBool(ChakraProtoMsg::Node& node, const std::string& name, bool value)
{
    auto* attribute = node.add_attr();
    attribute->set_name(name);
    attribute->set_bool_val(value);
}

void
AddInt64(ChakraProtoMsg::Node& node, const std::string& name, int64_t value)
{
    auto* attribute = node.add_attr();
    attribute->set_name(name);
    attribute->set_int64_val(value);
}

void
AddInt32(ChakraProtoMsg::Node& node, const std::string& name, int32_t value)
{
    auto* attribute = node.add_attr();
    attribute->set_name(name);
    attribute->set_int32_val(value);
}

void
AddString(ChakraProtoMsg::Node& node, const std::string& name, const std::string& value)
{
    auto* attribute = node.add_attr();
    attribute->set_name(name);
    attribute->set_string_val(value);
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
    AddInt64(node, "comm_size", static_cast<int64_t>(bytes));
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

uint64_t
RankTraceBuilder::Compute(const std::string& name,
                          uint64_t micros,
                          const std::vector<uint64_t>& deps,
                          int64_t stream)
{
    ChakraProtoMsg::Node node = Base(name, ChakraProtoMsg::COMP_NODE, deps);
    node.set_duration_micros(micros);
    AddBool(node, "is_cpu_op", false);
    AddInt64(node, "stream", stream);
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
    AddBool(node, "is_cpu_op", true);
    AddInt64(node, "tid", tid);
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
    AddBool(node, "is_cpu_op", true);
    AddInt64(node, "tid", tid);
    AddInt64(node, "comm_type", type);
    AddCommSize(node, bytes);
    AddString(node, "pg_name", pg);
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
    AddBool(node, "is_cpu_op", false);
    AddInt64(node, "comm_type", type);
    AddCommSize(node, bytes);
    AddString(node, "pg_name", pg);
    AddInt64(node, "stream", stream);
    if (root >= 0)
    {
        AddInt64(node, "root_rank", root);
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
    AddBool(node, "is_cpu_op", false);
    AddInt32(node, send ? "comm_dst" : "comm_src", static_cast<int32_t>(peer));
    AddInt32(node, "comm_tag", tag);
    AddCommSize(node, bytes);
    if (!pg.empty())
    {
        AddString(node, "pg_name", pg);
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
