/*
 * WorkloadGenerator::WritePipelineParallelStep: pipeline parallelism with the 1F1B schedule
 * (PipeDream-Flush, as Megatron-LM runs it), optionally x data parallelism. See
 * PipelineParallelSpec for the shape of the trace.
 */
#include "gradient-bucketer.h"
#include "rank-trace-builder.h"
#include "workload-generator.h"
#include "workload-spec-check.h"

#include <algorithm>
#include <limits>

namespace ns3
{

namespace
{

/** One compute step of a stage's schedule. */
struct PipelineOp
{
    bool forward{true};     //!< forward or backward
    uint32_t microbatch{0}; //!< micro-batch index
};

/** \return stage s's 1F1B order: warm-up forwards, steady (forward, backward), cool-down */
std::vector<PipelineOp>
OneForwardOneBackward(uint32_t stages, uint32_t stage, uint32_t microbatches)
{
    const uint32_t warmup = std::min(stages - stage - 1, microbatches);
    std::vector<PipelineOp> ops;
    for (uint32_t i = 0; i < warmup; ++i)
    {
        ops.push_back({true, i});
    }
    for (uint32_t i = 0; i < microbatches - warmup; ++i)
    {
        ops.push_back({true, warmup + i});
        ops.push_back({false, i});
    }
    for (uint32_t i = microbatches - warmup; i < microbatches; ++i)
    {
        ops.push_back({false, i});
    }
    return ops;
}

/** The process groups: one pipeline per data-parallel replica, one data-parallel group per stage.
 */
std::vector<ProcessGroupSpec>
PipelineGroups(const PipelineParallelSpec& spec)
{
    std::vector<ProcessGroupSpec> groups;
    for (uint32_t d = 0; d < spec.dp; ++d)
    {
        groups.push_back(
            {"pp" + std::to_string(d), workload::RankRange(d, spec.stages, spec.dp), spec.stages});
    }
    for (uint32_t s = 0; s < spec.stages; ++s)
    {
        groups.push_back(
            {"dp" + std::to_string(s), workload::RankRange(s * spec.dp, spec.dp, 1), spec.dp});
    }
    return groups;
}

/**
 * Writes a rank's 1F1B schedule: its forwards and backwards with the activations and gradients
 * it receives from and sends to the neighbouring stages.
 * \return the last compute node (a one-element list: what the next step depends on)
 */
std::vector<uint64_t>
WriteSchedule(RankTraceBuilder& trace,
              const PipelineParallelSpec& spec,
              uint32_t rank,
              uint64_t forward,
              uint64_t backward)
{
    const uint32_t stage = rank / spec.dp;
    const bool first = stage == 0;
    const bool last = stage + 1 == spec.stages;
    const uint32_t previousStage = rank - spec.dp; // valid unless first
    const uint32_t nextStage = rank + spec.dp;     // valid unless last
    const std::string pipeline = "pp" + std::to_string(rank % spec.dp);
    // Compute runs in schedule order: each step depends on the previous one. A receive is
    // posted when the schedule reaches its step (after the previous step), as Megatron calls
    // recv_forward / recv_backward; a send is posted as soon as its output exists.
    std::vector<uint64_t> previous;
    for (const PipelineOp& op : OneForwardOneBackward(spec.stages, stage, spec.microbatches))
    {
        const std::string mb = std::to_string(op.microbatch);
        const int32_t tag = static_cast<int32_t>(2 * op.microbatch + (op.forward ? 0 : 1));
        std::vector<uint64_t> deps = previous;
        if (op.forward && !first)
        {
            deps.push_back(trace.Recv("recv_activation_mb" + mb,
                                      previousStage,
                                      tag,
                                      spec.activationBytes,
                                      previous,
                                      pipeline));
        }
        if (!op.forward && !last)
        {
            deps.push_back(trace.Recv("recv_gradient_mb" + mb,
                                      nextStage,
                                      tag,
                                      spec.activationBytes,
                                      previous,
                                      pipeline));
        }
        const uint64_t compute = trace.Compute((op.forward ? "forward_mb" : "backward_mb") + mb,
                                               op.forward ? forward : backward,
                                               deps);
        if (op.forward && !last)
        {
            trace.Send("send_activation_mb" + mb,
                       nextStage,
                       tag,
                       spec.activationBytes,
                       {compute},
                       pipeline);
        }
        if (!op.forward && !first)
        {
            trace.Send("send_gradient_mb" + mb,
                       previousStage,
                       tag,
                       spec.activationBytes,
                       {compute},
                       pipeline);
        }
        previous = {compute};
    }
    return previous;
}

/**
 * Writes the gradients' all-reduce across the stage's replicas and the optimizer step after
 * it. Gradients accumulate over the micro-batches: all of them exist after the last backward.
 */
void
WriteGradientStep(RankTraceBuilder& trace,
                  const PipelineParallelSpec& spec,
                  uint32_t stage,
                  uint32_t stageLayers,
                  std::vector<uint64_t> previous)
{
    GradientBucketer buckets(trace,
                             "dp" + std::to_string(stage),
                             "dp_allreduce_bucket_",
                             spec.bucketBytes,
                             spec.firstBucketBytes,
                             RankTraceBuilder::GradientStream);
    if (spec.dp > 1)
    {
        for (uint32_t i = 0; i < stageLayers; ++i)
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
}

} // namespace

std::vector<std::string>
WorkloadGenerator::WritePipelineParallelStep(const std::string& prefix,
                                             const PipelineParallelSpec& spec)
{
    const std::string family = "pipeline-parallel";
    const uint32_t ranks = workload::JobRanks(spec.stages, spec.dp, family, "ranks = stages x dp");
    workload::Require(spec.microbatches >= 1, family, "microbatches must be at least 1");
    // Tags are 2 x micro-batch + direction in an int32.
    workload::Require(spec.microbatches <= (std::numeric_limits<int32_t>::max() - 1) / 2,
                      family,
                      "microbatches must be at most " +
                          std::to_string((std::numeric_limits<int32_t>::max() - 1) / 2));
    workload::Require(spec.layers >= 1, family, "layers must be at least 1");
    workload::Require(spec.layers % spec.stages == 0,
                      family,
                      "layers (" + std::to_string(spec.layers) +
                          ") must be a multiple of stages (" + std::to_string(spec.stages) + ")");
    const uint32_t stageLayers = spec.layers / spec.stages;
    const uint64_t forward =
        workload::CheckedProduct(stageLayers, spec.forwardMicros, family, "stage forward time");
    const uint64_t backward =
        workload::CheckedProduct(stageLayers, spec.backwardMicros, family, "stage backward time");

    const std::vector<ProcessGroupSpec> groups = PipelineGroups(spec);
    std::vector<std::string> files;
    for (uint32_t rank = 0; rank < ranks; ++rank)
    {
        files.push_back(RankTraceBuilder::Path(prefix, rank));
        RankTraceBuilder trace(files.back(), ranks);
        trace.ProcessGroups(groups);
        std::vector<uint64_t> previous = WriteSchedule(trace, spec, rank, forward, backward);
        WriteGradientStep(trace, spec, rank / spec.dp, stageLayers, std::move(previous));
        trace.Commit();
    }
    return files;
}

} // namespace ns3
