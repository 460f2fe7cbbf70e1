#include "workload-generator.h"

#include "ns3/et-writer.h"

#include <algorithm>
#include <cctype>
#include <limits>
#include <memory>

namespace ns3
{

namespace
{

/** Builds one rank's nodes with ascending ids. */
class RankTrace
{
  public:
    explicit RankTrace(const std::string& path)
        : m_writer(path, Metadata())
    {
    }

    static ChakraProtoMsg::GlobalMetadata Metadata()
    {
        ChakraProtoMsg::GlobalMetadata metadata;
        metadata.set_version("0.0.4");
        auto* schema = metadata.add_attr();
        schema->set_name("schema");
        schema->set_string_val("chakra_generator");
        return metadata;
    }

    /** A GPU compute node. \return its id */
    uint64_t Compute(const std::string& name,
                     uint64_t micros,
                     const std::vector<uint64_t>& deps,
                     int64_t stream = 0)
    {
        ChakraProtoMsg::Node node = Base(name, ChakraProtoMsg::COMP_NODE, deps);
        node.set_duration_micros(micros);
        Bool(node, "is_cpu_op", false);
        Int(node, "stream", stream);
        return Write(node);
    }

    /** A collective on the GPU communication stream. \return its id */
    uint64_t Collective(const std::string& name,
                        ChakraProtoMsg::CollectiveCommType type,
                        uint64_t bytes,
                        const std::vector<uint64_t>& deps,
                        const std::string& pg = "0",
                        int64_t root = -1)
    {
        ChakraProtoMsg::Node node = Base(name, ChakraProtoMsg::COMM_COLL_NODE, deps);
        Bool(node, "is_cpu_op", false);
        Int(node, "comm_type", type);
        Int(node, "comm_size", static_cast<int64_t>(bytes));
        auto* pgName = node.add_attr();
        pgName->set_name("pg_name");
        pgName->set_string_val(pg);
        Int(node, "stream", 1);
        if (root >= 0)
        {
            Int(node, "root_rank", root);
        }
        return Write(node);
    }

    /** A process_group:init node declaring groups (pg name, ranks). */
    uint64_t ProcessGroups(const std::vector<std::pair<std::string, std::vector<uint32_t>>>& groups)
    {
        ChakraProtoMsg::Node node = Base("process_group:init", ChakraProtoMsg::METADATA_NODE, {});
        std::string json = "[";
        for (std::size_t g = 0; g < groups.size(); ++g)
        {
            json += g > 0 ? ", " : "";
            json += "{\"pg_name\": \"" + groups[g].first + "\", \"ranks\": [";
            for (std::size_t i = 0; i < groups[g].second.size(); ++i)
            {
                json += (i > 0 ? ", " : "") + std::to_string(groups[g].second[i]);
            }
            json += "], \"group_size\": " + std::to_string(groups[g].second.size()) + "}";
        }
        json += "]";
        node.mutable_inputs()->set_values(json);
        return Write(node);
    }

    void Commit()
    {
        m_writer.Commit();
    }

  private:
    ChakraProtoMsg::Node Base(const std::string& name,
                              ChakraProtoMsg::NodeType type,
                              const std::vector<uint64_t>& deps)
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

    static void Bool(ChakraProtoMsg::Node& node, const std::string& name, bool value)
    {
        auto* attribute = node.add_attr();
        attribute->set_name(name);
        attribute->set_bool_val(value);
    }

    static void Int(ChakraProtoMsg::Node& node, const std::string& name, int64_t value)
    {
        auto* attribute = node.add_attr();
        attribute->set_name(name);
        attribute->set_int64_val(value);
    }

    uint64_t Write(const ChakraProtoMsg::Node& node)
    {
        m_writer.WriteNode(node);
        return m_nextId++;
    }

    EtWriter m_writer;
    uint64_t m_nextId{0};
};

std::string
RankPath(const std::string& prefix, uint32_t rank)
{
    return prefix + "." + std::to_string(rank) + ".et";
}

std::vector<uint32_t>
AllRanks(uint32_t n)
{
    std::vector<uint32_t> ranks(n);
    for (uint32_t r = 0; r < n; ++r)
    {
        ranks[r] = r;
    }
    return ranks;
}

} // namespace

std::vector<std::string>
WorkloadGenerator::WriteCollectiveBench(const std::string& prefix, const CollectiveBenchSpec& spec)
{
    std::vector<std::string> files;
    const std::string name = ChakraProtoMsg::CollectiveCommType_Name(spec.type);
    for (uint32_t rank = 0; rank < spec.ranks; ++rank)
    {
        files.push_back(RankPath(prefix, rank));
        RankTrace trace(files.back());
        trace.ProcessGroups({{"0", AllRanks(spec.ranks)}});
        std::vector<uint64_t> previous;
        for (uint32_t i = 0; i < spec.iterations; ++i)
        {
            if (spec.computeMicros > 0)
            {
                previous = {trace.Compute("compute_" + std::to_string(i), spec.computeMicros,
                                          previous)};
            }
            bool rooted = spec.type == ChakraProtoMsg::BROADCAST ||
                          spec.type == ChakraProtoMsg::REDUCE ||
                          spec.type == ChakraProtoMsg::GATHER ||
                          spec.type == ChakraProtoMsg::SCATTER;
            previous = {trace.Collective(name + "_" + std::to_string(i), spec.type, spec.bytes,
                                         previous, "0",
                                         rooted ? static_cast<int64_t>(spec.root) : -1)};
        }
        trace.Commit();
    }
    return files;
}

std::vector<std::string>
WorkloadGenerator::WriteDataParallelStep(const std::string& prefix, const DataParallelSpec& spec)
{
    std::vector<std::string> files;
    for (uint32_t rank = 0; rank < spec.ranks; ++rank)
    {
        files.push_back(RankPath(prefix, rank));
        RankTrace trace(files.back());
        trace.ProcessGroups({{"0", AllRanks(spec.ranks)}});
        std::vector<uint64_t> previous;
        for (uint32_t layer = 0; layer < spec.layers; ++layer)
        {
            previous = {trace.Compute("forward_" + std::to_string(layer), spec.forwardMicros,
                                      previous)};
        }
        // Backward runs from the last layer; a bucket's all-reduce starts once its last layer's
        // gradients exist and runs on the communication stream while backward goes on.
        std::vector<uint64_t> allReduces;
        uint64_t bucket = 0;
        uint32_t bucketIndex = 0;
        for (uint32_t i = 0; i < spec.layers; ++i)
        {
            uint32_t layer = spec.layers - 1 - i;
            uint64_t backward = trace.Compute("backward_" + std::to_string(layer),
                                              spec.backwardMicros, previous);
            previous = {backward};
            bucket += spec.parameterBytesPerLayer;
            bool last = i + 1 == spec.layers;
            if (bucket >= spec.bucketBytes || last)
            {
                std::vector<uint64_t> deps = {backward};
                if (!allReduces.empty())
                {
                    deps.push_back(allReduces.back()); // one communication stream: in order
                }
                allReduces.push_back(trace.Collective("allreduce_bucket_" +
                                                          std::to_string(bucketIndex++),
                                                      ChakraProtoMsg::ALL_REDUCE, bucket, deps));
                bucket = 0;
            }
        }
        std::vector<uint64_t> deps = previous;
        deps.push_back(allReduces.back());
        trace.Compute("optimizer_step", spec.optimizerMicros, deps);
        trace.Commit();
    }
    return files;
}

bool
WorkloadGenerator::ParseCollective(const std::string& name, ChakraProtoMsg::CollectiveCommType& type)
{
    std::string key;
    for (char c : name)
    {
        if (c != '_' && c != '-' && c != ' ')
        {
            key += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        }
    }
    const std::vector<std::pair<std::string, ChakraProtoMsg::CollectiveCommType>> names = {
        {"allreduce", ChakraProtoMsg::ALL_REDUCE},
        {"reduce", ChakraProtoMsg::REDUCE},
        {"allgather", ChakraProtoMsg::ALL_GATHER},
        {"gather", ChakraProtoMsg::GATHER},
        {"scatter", ChakraProtoMsg::SCATTER},
        {"broadcast", ChakraProtoMsg::BROADCAST},
        {"alltoall", ChakraProtoMsg::ALL_TO_ALL},
        {"reducescatter", ChakraProtoMsg::REDUCE_SCATTER},
        {"reducescatterblock", ChakraProtoMsg::REDUCE_SCATTER_BLOCK},
        {"barrier", ChakraProtoMsg::BARRIER},
    };
    for (const auto& [candidate, value] : names)
    {
        if (key == candidate)
        {
            type = value;
            return true;
        }
    }
    return false;
}

bool
WorkloadGenerator::ParseBytes(const std::string& text, uint64_t& bytes)
{
    std::size_t digits = 0;
    while (digits < text.size() && std::isdigit(static_cast<unsigned char>(text[digits])))
    {
        ++digits;
    }
    if (digits == 0 || digits > 19)
    {
        return false;
    }
    uint64_t value = std::stoull(text.substr(0, digits));
    std::string unit = text.substr(digits);
    const std::vector<std::pair<std::string, uint64_t>> units = {
        {"", 1},          {"B", 1},
        {"KiB", 1ull << 10}, {"MiB", 1ull << 20}, {"GiB", 1ull << 30}, {"TiB", 1ull << 40},
        {"KB", 1000ull},  {"MB", 1000000ull}, {"GB", 1000000000ull}, {"TB", 1000000000000ull},
        {"K", 1ull << 10}, {"M", 1ull << 20}, {"G", 1ull << 30},
    };
    for (const auto& [suffix, factor] : units)
    {
        if (unit == suffix)
        {
            if (value > std::numeric_limits<uint64_t>::max() / factor)
            {
                return false;
            }
            bytes = value * factor;
            return true;
        }
    }
    return false;
}

} // namespace ns3
