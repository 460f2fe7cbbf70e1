/*
 * WorkloadGenerator::WriteMoeStep: mixture-of-experts layers with expert parallelism (all-to-all
 * dispatch and combine), optionally x data parallelism. See MoeSpec for the shape of the trace.
 */
#include "gradient-bucketer.h"
#include "rank-trace-builder.h"
#include "workload-generator.h"
#include "workload-spec-check.h"

namespace ns3
{

uint64_t
WorkloadGenerator::MoeAllToAllBytes(const MoeSpec& spec)
{
    const std::string family = "moe";
    const std::string what = "all-to-all bytes = tokens x top-k x hidden x element bytes";
    uint64_t bytes = workload::CheckedProduct(spec.tokens, spec.topK, family, what);
    bytes = workload::CheckedProduct(bytes, spec.hidden, family, what);
    return workload::CheckedProduct(bytes, spec.elementBytes, family, what);
}

std::vector<std::string>
WorkloadGenerator::WriteMoeStep(const std::string& prefix, const MoeSpec& spec)
{
    const std::string family = "moe";
    workload::JobRanks(spec.ranks, 1, family, "ranks");
    const uint32_t ep = spec.ep == 0 ? spec.ranks : spec.ep;
    workload::Require(spec.ranks % ep == 0,
                      family,
                      "ranks (" + std::to_string(spec.ranks) +
                          ") must be a multiple of the expert-parallel size ep (" +
                          std::to_string(ep) + ")");
    const uint32_t dp = spec.ranks / ep;
    workload::Require(spec.layers >= 1, family, "layers must be at least 1");
    workload::Require(spec.expertsPerRank >= 1, family, "experts-per-rank must be at least 1");
    workload::Require(spec.topK >= 1, family, "top-k must be at least 1");
    workload::Require(spec.topK <= static_cast<uint64_t>(ep) * spec.expertsPerRank,
                      family,
                      "top-k (" + std::to_string(spec.topK) + ") is more than the " +
                          std::to_string(static_cast<uint64_t>(ep) * spec.expertsPerRank) +
                          " experts of an expert-parallel group");
    const uint64_t allToAllBytes = MoeAllToAllBytes(spec);
    const uint64_t expertGradients =
        workload::CheckedProduct(spec.expertsPerRank,
                                 spec.expertParameterBytes,
                                 family,
                                 "expert gradient bytes = experts-per-rank x expert bytes");

    std::vector<ProcessGroupSpec> groups;
    for (uint32_t d = 0; d < dp; ++d)
    {
        groups.push_back({"ep" + std::to_string(d), workload::RankRange(d * ep, ep, 1), ep});
    }
    groups.push_back({"dp0", workload::RankRange(0, spec.ranks, 1), spec.ranks});
    for (uint32_t e = 0; e < ep; ++e)
    {
        groups.push_back({"edp" + std::to_string(e), workload::RankRange(e, dp, ep), dp});
    }

    std::vector<std::string> files;
    for (uint32_t rank = 0; rank < spec.ranks; ++rank)
    {
        const std::string epGroup = "ep" + std::to_string(rank / ep);
        files.push_back(RankTraceBuilder::Path(prefix, rank));
        RankTraceBuilder trace(files.back(), spec.ranks);
        trace.ProcessGroups(groups);

        std::vector<uint64_t> previous;
        // An all-to-all over the expert-parallel group (none in a group of one).
        auto allToAll = [&](const std::string& name) {
            if (ep > 1)
            {
                previous = {trace.Collective(name,
                                             ChakraProtoMsg::ALL_TO_ALL,
                                             allToAllBytes,
                                             previous,
                                             epGroup)};
            }
        };
        // The local experts run one after the other; returns the last one's node.
        auto experts = [&](const std::string& name, uint64_t micros) {
            for (uint32_t e = 0; e < spec.expertsPerRank; ++e)
            {
                previous = {trace.Compute(name + "_expert" + std::to_string(e), micros, previous)};
            }
            return previous.back();
        };
        for (uint32_t layer = 0; layer < spec.layers; ++layer)
        {
            const std::string l = std::to_string(layer);
            previous = {trace.Compute("dense_forward_" + l, spec.forwardMicros, previous)};
            allToAll("alltoall_dispatch_forward_" + l);
            experts("expert_forward_" + l, spec.expertForwardMicros);
            allToAll("alltoall_combine_forward_" + l);
        }
        GradientBucketer denseBuckets(trace,
                                      "dp0",
                                      "dp_allreduce_bucket_",
                                      spec.bucketBytes,
                                      spec.firstBucketBytes,
                                      RankTraceBuilder::GradientStream);
        GradientBucketer expertBuckets(trace,
                                       "edp" + std::to_string(rank % ep),
                                       "edp_allreduce_bucket_",
                                       spec.bucketBytes,
                                       spec.firstBucketBytes,
                                       RankTraceBuilder::ExpertGradientStream);
        for (uint32_t i = 0; i < spec.layers; ++i)
        {
            const std::string l = std::to_string(spec.layers - 1 - i);
            allToAll("alltoall_combine_backward_" + l);
            const uint64_t expert = experts("expert_backward_" + l, spec.expertBackwardMicros);
            if (dp > 1)
            {
                expertBuckets.Add(expertGradients, expert);
            }
            allToAll("alltoall_dispatch_backward_" + l);
            previous = {trace.Compute("dense_backward_" + l, spec.backwardMicros, previous)};
            if (spec.ranks > 1)
            {
                denseBuckets.Add(spec.parameterBytesPerLayer, previous.back());
            }
        }
        denseBuckets.Flush();
        expertBuckets.Flush();
        for (const auto& last : {denseBuckets.GetLast(), expertBuckets.GetLast()})
        {
            if (last)
            {
                previous.push_back(*last);
            }
        }
        trace.Compute("optimizer_step", spec.optimizerMicros, previous);
        trace.Commit();
    }
    return files;
}

} // namespace ns3
