/*
 * WorkloadGenerator::WriteTensorParallelStep: Megatron-style tensor parallelism (x data
 * parallelism). See TensorParallelSpec for the shape of the trace.
 */
#include "gradient-bucketer.h"
#include "rank-trace-builder.h"
#include "workload-generator.h"
#include "workload-spec-check.h"

#include <optional>

namespace ns3
{

std::vector<std::string>
WorkloadGenerator::WriteTensorParallelStep(const std::string& prefix,
                                           const TensorParallelSpec& spec)
{
    const std::string family = "tensor-parallel";
    const uint32_t ranks = workload::JobRanks(spec.tp, spec.dp, family, "ranks = tp x dp");
    workload::Require(spec.layers >= 1, family, "layers must be at least 1");

    std::vector<ProcessGroupSpec> groups;
    for (uint32_t d = 0; d < spec.dp; ++d)
    {
        groups.push_back(
            {"tp" + std::to_string(d), workload::RankRange(d * spec.tp, spec.tp, 1), spec.tp});
    }
    for (uint32_t t = 0; t < spec.tp; ++t)
    {
        groups.push_back(
            {"dp" + std::to_string(t), workload::RankRange(t, spec.dp, spec.tp), spec.dp});
    }

    // Megatron splits a layer's forward into attention and MLP; each ends with the row-parallel
    // linear layer whose partial outputs are all-reduced (the "g" operator). In backward, the
    // "f" operator at the start of each block all-reduces the input gradient.
    const uint64_t attentionForward = spec.forwardMicros / 2;
    const uint64_t mlpForward = spec.forwardMicros - attentionForward;
    const uint64_t mlpBackward = spec.backwardMicros / 2;
    const uint64_t attentionBackward = spec.backwardMicros - mlpBackward;

    std::vector<std::string> files;
    for (uint32_t rank = 0; rank < ranks; ++rank)
    {
        const uint32_t d = rank / spec.tp;
        const uint32_t t = rank % spec.tp;
        const std::string tpGroup = "tp" + std::to_string(d);
        files.push_back(RankTraceBuilder::Path(prefix, rank));
        RankTraceBuilder trace(files.back(), ranks);
        trace.ProcessGroups(groups);

        std::vector<uint64_t> previous;
        // The host thread's own work at the step's start (only with a host-thread call).
        std::optional<uint64_t> hostLead;
        if (spec.hostAllReduceBytes > 0 && spec.tp > 1)
        {
            hostLead = trace.CpuOp("host_step_begin", spec.hostLeadMicros * (t + 1), {});
        }
        // A compute block, then (tp > 1) its all-reduce on the critical path. Returns the
        // compute node.
        auto block = [&](const std::string& name, uint64_t micros) {
            const uint64_t compute = trace.Compute(name, micros, previous);
            previous = {compute};
            if (spec.tp > 1)
            {
                previous = {trace.Collective("tp_allreduce_" + name,
                                             ChakraProtoMsg::ALL_REDUCE,
                                             spec.activationBytes,
                                             previous,
                                             tpGroup)};
            }
            return compute;
        };
        for (uint32_t layer = 0; layer < spec.layers; ++layer)
        {
            block("attention_forward_" + std::to_string(layer), attentionForward);
            block("mlp_forward_" + std::to_string(layer), mlpForward);
        }
        GradientBucketer buckets(trace,
                                 "dp" + std::to_string(t),
                                 "dp_allreduce_bucket_",
                                 spec.bucketBytes,
                                 spec.firstBucketBytes,
                                 RankTraceBuilder::GradientStream);
        for (uint32_t i = 0; i < spec.layers; ++i)
        {
            const uint32_t layer = spec.layers - 1 - i;
            block("mlp_backward_" + std::to_string(layer), mlpBackward);
            const uint64_t attention =
                block("attention_backward_" + std::to_string(layer), attentionBackward);
            if (spec.dp > 1)
            {
                // The layer's weight gradients exist once its attention backward has run (the
                // all-reduce after it carries the input gradient, not weights).
                buckets.Add(spec.parameterBytesPerLayer, attention);
            }
        }
        buckets.Flush();
        if (buckets.GetLast())
        {
            previous.push_back(*buckets.GetLast());
        }
        if (hostLead)
        {
            // Last in program order, ready as soon as the host's own work is done.
            previous.push_back(trace.HostCollective("tp_host_allreduce",
                                                    ChakraProtoMsg::ALL_REDUCE,
                                                    spec.hostAllReduceBytes,
                                                    {*hostLead},
                                                    tpGroup));
        }
        trace.Compute("optimizer_step", spec.optimizerMicros, previous);
        trace.Commit();
    }
    return files;
}

} // namespace ns3
