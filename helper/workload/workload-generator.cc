#include "workload-generator.h"

#include "gradient-bucketer.h"
#include "rank-trace-builder.h"
#include "workload-spec-check.h"

#include <cctype>
#include <limits>

namespace ns3
{

std::vector<std::string>
WorkloadGenerator::WriteCollectiveBench(const std::string& prefix, const CollectiveBenchSpec& spec)
{
    const std::string family = "collective";
    workload::JobRanks(spec.ranks, 1, family, "ranks");
    const bool rooted = spec.type == ChakraProtoMsg::BROADCAST ||
                        spec.type == ChakraProtoMsg::REDUCE ||
                        spec.type == ChakraProtoMsg::GATHER || spec.type == ChakraProtoMsg::SCATTER;
    workload::Require(!rooted || spec.root < spec.ranks,
                      family,
                      "root " + std::to_string(spec.root) + " is not below ranks (" +
                          std::to_string(spec.ranks) + ")");
    std::vector<std::string> files;
    const std::string name = ChakraProtoMsg::CollectiveCommType_Name(spec.type);
    for (uint32_t rank = 0; rank < spec.ranks; ++rank)
    {
        files.push_back(RankTraceBuilder::Path(prefix, rank));
        RankTraceBuilder trace(files.back(), spec.ranks);
        trace.ProcessGroups({{"0", workload::RankRange(0, spec.ranks, 1), spec.ranks}});
        std::vector<uint64_t> previous;
        for (uint32_t i = 0; i < spec.iterations; ++i)
        {
            if (spec.computeMicros > 0)
            {
                previous = {
                    trace.Compute("compute_" + std::to_string(i), spec.computeMicros, previous)};
            }
            previous = {trace.Collective(name + "_" + std::to_string(i),
                                         spec.type,
                                         spec.bytes,
                                         previous,
                                         "0",
                                         RankTraceBuilder::CommStream,
                                         rooted ? static_cast<int64_t>(spec.root) : -1)};
        }
        trace.Commit();
    }
    return files;
}

std::vector<std::string>
WorkloadGenerator::WriteSendRecvBench(const std::string& prefix, const CollectiveBenchSpec& spec)
{
    const std::string family = "sendrecv";
    workload::JobRanks(spec.ranks, 1, family, "ranks");
    workload::Require(spec.ranks >= 2, family, "needs at least 2 ranks");
    std::vector<std::string> files;
    for (uint32_t rank = 0; rank < spec.ranks; ++rank)
    {
        files.push_back(RankTraceBuilder::Path(prefix, rank));
        RankTraceBuilder trace(files.back(), spec.ranks);
        const uint32_t next = (rank + 1) % spec.ranks;
        const uint32_t previous = (rank + spec.ranks - 1) % spec.ranks;
        std::vector<uint64_t> done;
        for (uint32_t i = 0; i < spec.iterations; ++i)
        {
            const auto tag = static_cast<int32_t>(i);
            const std::string suffix = "_" + std::to_string(i);
            const uint64_t send = trace.Send("send" + suffix, next, tag, spec.bytes, done);
            const uint64_t recv = trace.Recv("recv" + suffix, previous, tag, spec.bytes, done);
            done = {send, recv};
        }
        trace.Commit();
    }
    return files;
}

std::vector<std::string>
WorkloadGenerator::WriteDataParallelStep(const std::string& prefix, const DataParallelSpec& spec)
{
    const std::string family = "data-parallel";
    workload::JobRanks(spec.ranks, 1, family, "ranks");
    workload::Require(spec.layers >= 1, family, "layers must be at least 1");
    std::vector<std::string> files;
    for (uint32_t rank = 0; rank < spec.ranks; ++rank)
    {
        files.push_back(RankTraceBuilder::Path(prefix, rank));
        RankTraceBuilder trace(files.back(), spec.ranks);
        trace.ProcessGroups({{"0", workload::RankRange(0, spec.ranks, 1), spec.ranks}});
        std::vector<uint64_t> previous;
        for (uint32_t layer = 0; layer < spec.layers; ++layer)
        {
            previous = {
                trace.Compute("forward_" + std::to_string(layer), spec.forwardMicros, previous)};
        }
        // Backward runs from the last layer; a bucket's all-reduce starts once its last layer's
        // gradients exist and runs on the communication stream while backward goes on.
        GradientBucketer buckets(trace,
                                 "0",
                                 "allreduce_bucket_",
                                 spec.bucketBytes,
                                 spec.firstBucketBytes,
                                 RankTraceBuilder::CommStream);
        for (uint32_t i = 0; i < spec.layers; ++i)
        {
            const uint32_t layer = spec.layers - 1 - i;
            previous = {
                trace.Compute("backward_" + std::to_string(layer), spec.backwardMicros, previous)};
            if (spec.ranks > 1)
            {
                buckets.Add(spec.parameterBytesPerLayer, previous.back());
            }
        }
        buckets.Flush();
        if (buckets.GetLast())
        {
            previous.push_back(*buckets.GetLast());
        }
        trace.Compute("optimizer_step", spec.optimizerMicros, previous);
        trace.Commit();
    }
    return files;
}

bool
WorkloadGenerator::ParseCollective(const std::string& name,
                                   ChakraProtoMsg::CollectiveCommType& type)
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
        {"", 1},
        {"B", 1},
        {"KiB", 1ull << 10},
        {"MiB", 1ull << 20},
        {"GiB", 1ull << 30},
        {"TiB", 1ull << 40},
        {"KB", 1000ull},
        {"MB", 1000000ull},
        {"GB", 1000000000ull},
        {"TB", 1000000000000ull},
        {"K", 1ull << 10},
        {"M", 1ull << 20},
        {"G", 1ull << 30},
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
