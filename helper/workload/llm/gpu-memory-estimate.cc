#include "gpu-memory-estimate.h"

#include "ns3/pipeline-layers.h"
#include "ns3/pipeline-schedule.h"

#include <algorithm>
#include <cstdio>

namespace ns3
{

namespace
{

/** Bytes of a 16-bit weight, gradient or activation element. */
constexpr double kHalf = 2;
/** Adam's fp32 master weight, momentum and variance: bytes per parameter. */
constexpr double kAdamState = 12;
/** The output layer's logits are kept in fp32 for the loss. */
constexpr double kLogit = 4;

/** Activation bytes one token keeps for backward in layer \p layer (no recompute). */
double
LayerActivationPerToken(const TransformerModel& model, const ParallelLayout& layout, uint32_t layer)
{
    const double tp = layout.tp;
    const bool latent = model.kvLoraRank > 0;
    const double qk = latent ? model.qkNopeHeadDim + model.qkRopeHeadDim : model.headDim;
    const double v = latent ? model.vHeadDim : model.headDim;
    const double kvHeads = latent ? model.heads : model.kvHeads;
    // The inputs of the two norms, of QKV and of the first MLP GEMM: the whole hidden state,
    // split over tp only when the sequence is.
    const double replicated = 4 * kHalf * model.hidden / (layout.sequenceParallel ? tp : 1);
    // MLA's compressed queries and keys/values enter their up-projections whole.
    const double latents = latent ? kHalf * (model.qLoraRank + model.kvLoraRank) : 0;
    // Queries, keys, values and the attention output (the output projection's input).
    const double attention =
        kHalf * (model.heads * qk + kvHeads * qk + kvHeads * v + model.heads * v) / tp;
    // A dense MLP of width f keeps its activation function's input (gate and up: 2f) and the
    // down projection's input (f).
    auto mlp = [&model](double width) { return kHalf * ((model.gatedMlp ? 2 : 1) + 1) * width; };
    double feedForward = 0;
    if (IsMoeLayer(model, layer))
    {
        const double expertWidth = model.moeFfn;
        // Each token reaches topK experts: its dispatched copy and the expert's activations.
        // Split over tp: each rank routes 1/tp of the tokens (sequence parallelism); with
        // etp > 1 the copies all-gathered over the etp group (etp x the dispatched ones, on
        // experts 1/etp wide) are not counted.
        feedForward = model.topK * (kHalf * model.hidden + mlp(expertWidth)) / tp +
                      mlp(static_cast<double>(model.sharedExperts) * expertWidth) / tp;
    }
    else
    {
        feedForward = mlp(model.ffn) / tp;
    }
    return replicated + latents + attention + feedForward;
}

/** The most micro-batch passes whose activations stage \p stage holds at once. */
uint32_t
PassesInFlight(const ParallelLayout& layout, uint32_t stage)
{
    uint32_t live = 0;
    uint32_t peak = 0;
    for (const PipelineStep& step :
         PipelineOrder(layout.pp, stage, layout.vp, layout.MicroBatches()))
    {
        live = step.forward ? live + 1 : live - 1;
        peak = std::max(peak, live);
    }
    return peak;
}

} // namespace

GpuLayerParameters
LayerParametersOnGpu(const TransformerModel& model, const ParallelLayout& layout, uint32_t layer)
{
    const LayerParameters p = LayerParameterCount(model, layer);
    GpuLayerParameters share;
    share.dense = (p.attention + p.denseMlp + p.sharedExperts) / layout.tp + p.router + p.norms;
    // The experts / ep local experts, each split over the expert tensor-parallel group.
    share.experts = model.experts == 0 ? 0
                                       : p.routedExpert * (model.experts / layout.ep) /
                                             layout.ExpertTensorParallel();
    return share;
}

uint64_t
EmbeddingParametersOnGpu(const TransformerModel& model, const ParallelLayout& layout)
{
    return uint64_t{model.vocab} * model.hidden / layout.tp;
}

double
GpuMemoryEstimate::Total() const
{
    return weights + gradients + optimizer + activations;
}

GpuMemoryEstimate
EstimateGpuMemory(const TransformerModel& model, const ParallelLayout& layout, uint32_t stage)
{
    GpuMemoryEstimate estimate;
    estimate.stage = stage;
    const bool first = stage == 0;
    const bool last = stage + 1 == layout.pp;
    uint64_t dense = 0;
    uint64_t experts = 0;
    uint64_t largestLayer = 0;
    double layerActivations = 0;  // per token, every layer of the stage
    double largestActivation = 0; // per token, the stage's largest layer
    for (uint32_t chunk = 0; chunk < layout.vp; ++chunk)
    {
        const LayerRange range = ChunkLayers(layout, model.layers, stage, chunk);
        for (uint32_t layer = range.first; layer < range.first + range.count; ++layer)
        {
            const GpuLayerParameters share = LayerParametersOnGpu(model, layout, layer);
            dense += share.dense;
            experts += share.experts;
            largestLayer = std::max(largestLayer, share.dense + share.experts);
            const double a = LayerActivationPerToken(model, layout, layer);
            layerActivations += a;
            largestActivation = std::max(largestActivation, a);
        }
    }
    const uint64_t edge = EmbeddingParametersOnGpu(model, layout);
    dense += first ? edge : 0;
    // The last stage's output layer: its own, or the tied embedding's copy on another GPU.
    dense += last && (!model.tiedEmbeddings || layout.pp > 1) ? edge : 0;
    estimate.parameters = dense + experts;

    // Sharding groups: dense parameters over data x context, experts over the expert data group.
    const double denseShards = static_cast<double>(layout.dp) * layout.cp;
    // The expert data-parallel group: tp x cp x dp / (etp x ep) (dp x cp / ep when etp = tp).
    const double expertShards = layout.ExpertDataParallel();
    const bool zero3 = layout.zero >= 3 || layout.fsdp;
    auto state = [&](double bytes, bool sharded) {
        return sharded ? bytes * (dense / denseShards + experts / expertShards)
                       : bytes * static_cast<double>(dense + experts);
    };
    // ZeRO-3 / FSDP hold two layers gathered (the one computing, the next arriving), in the
    // dtype they are gathered in.
    estimate.weights = state(kHalf, zero3) + (zero3 ? 2.0 * layout.gatherBytes * largestLayer : 0);
    estimate.gradients = state(kHalf, layout.zero >= 2 || layout.fsdp);
    estimate.optimizer = state(kAdamState, layout.zero >= 1 || layout.fsdp);

    const double tokens = static_cast<double>(layout.microBatch) * layout.seq / layout.cp;
    estimate.passesInFlight = PassesInFlight(layout, stage);
    const double passes = estimate.passesInFlight;
    if (layout.recompute == Recompute::Full)
    {
        // Each layer's input is kept; one layer at a time is run again whole for its backward.
        const double input = kHalf * model.hidden / (layout.sequenceParallel ? layout.tp : 1);
        const double layers = StageLayers(layout, model.layers, stage);
        estimate.activations = tokens * (passes / layout.vp * layers * input + largestActivation);
    }
    else
    {
        // A pass holds one chunk's layers; the stage's chunks hold the same number of layers.
        estimate.activations = tokens * passes / layout.vp * layerActivations;
    }
    if (last)
    {
        estimate.activations += tokens * kLogit * model.vocab / layout.tp;
    }
    return estimate;
}

GpuMemoryEstimate
PeakGpuMemory(const TransformerModel& model, const ParallelLayout& layout)
{
    GpuMemoryEstimate peak = EstimateGpuMemory(model, layout, 0);
    for (uint32_t stage = 1; stage < layout.pp; ++stage)
    {
        GpuMemoryEstimate estimate = EstimateGpuMemory(model, layout, stage);
        if (estimate.Total() > peak.Total())
        {
            peak = estimate;
        }
    }
    return peak;
}

std::string
DescribeGpuMemory(const GpuMemoryEstimate& estimate)
{
    constexpr double kGiB = 1024.0 * 1024 * 1024;
    char text[256];
    std::snprintf(text,
                  sizeof(text),
                  "%.1f GiB at stage %u (weights %.1f, gradients %.1f, optimizer %.1f, "
                  "activations %.1f GiB with %u micro-batch passes in flight)",
                  estimate.Total() / kGiB,
                  estimate.stage,
                  estimate.weights / kGiB,
                  estimate.gradients / kGiB,
                  estimate.optimizer / kGiB,
                  estimate.activations / kGiB,
                  estimate.passesInFlight);
    return text;
}

} // namespace ns3
