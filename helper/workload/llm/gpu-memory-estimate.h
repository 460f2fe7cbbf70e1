/*
 * GpuMemoryEstimate: what one GPU of a training step holds at its peak (weights, gradients,
 * optimizer state, activations), to refuse a layout that cannot run before it is simulated.
 */
#ifndef CHAKRA_GPU_MEMORY_ESTIMATE_H
#define CHAKRA_GPU_MEMORY_ESTIMATE_H

#include "ns3/parallel-layout.h"
#include "ns3/transformer-model.h"

#include <cstdint>
#include <string>

namespace ns3
{

/**
 * \ingroup chakra-workload
 * \brief The peak memory of the GPUs of one pipeline stage, in bytes.
 */
struct GpuMemoryEstimate
{
    uint32_t stage{0};          //!< the pipeline stage
    uint64_t parameters{0};     //!< parameters this GPU holds (its tp / pp / ep share)
    double weights{0};          //!< 16-bit weights (a ZeRO-3 / FSDP shard plus two gathered layers)
    double gradients{0};        //!< 16-bit gradients (sharded from ZeRO-2 on)
    double optimizer{0};        //!< Adam: fp32 master weights and two moments (sharded from ZeRO-1)
    double activations{0};      //!< activations of the micro-batches in flight at the peak
    uint32_t passesInFlight{0}; //!< micro-batch passes whose activations are held at the peak
    /** \return the sum */
    double Total() const;
};

/**
 * \ingroup chakra-workload
 * \brief One GPU's share of a layer's parameters.
 */
struct GpuLayerParameters
{
    uint64_t dense{0};   //!< attention, dense MLP, shared experts (/ tp), router and norms
    uint64_t experts{0}; //!< this GPU's routed experts (experts / ep of them, each / etp)
};

/**
 * \ingroup chakra-workload
 * Norms and the router are replicated over tp; everything else is split over tp, the routed
 * experts over the expert tensor-parallel size etp (tp unless --etp says otherwise, as the
 * generator writes them) after ep has divided them.
 * \param model the model
 * \param layout a resolved layout
 * \param layer the layer, 0-based
 * \return the parameters of layer \p layer one GPU holds
 */
GpuLayerParameters LayerParametersOnGpu(const TransformerModel& model,
                                        const ParallelLayout& layout,
                                        uint32_t layer);

/**
 * \ingroup chakra-workload
 * \return the parameters of the embedding (or of the output layer) one GPU holds: vocab x
 *         hidden / tp
 */
uint64_t EmbeddingParametersOnGpu(const TransformerModel& model, const ParallelLayout& layout);

/**
 * \ingroup chakra-workload
 * \brief Estimates the memory one GPU of pipeline stage \p stage needs (doc/workloads.md,
 * "Memory").
 *
 * The accounting (Korthikanti et al., "Reducing Activation Recomputation in Large Transformer
 * Models", MLSys 2023, section 4; Rajbhandari et al., "ZeRO", SC'20, section 3):
 * - Model state per parameter: 2 bytes of 16-bit weight, 2 of 16-bit gradient (Megatron-Core's
 *   default, grad_reduce_in_fp32 = false), 12 of Adam state (fp32 master weight, momentum and
 *   variance). ZeRO-1 (Megatron's distributed optimizer) divides the Adam state over the
 *   data-parallel group (data x context for dense parameters, the expert data group of
 *   tp x cp x dp / (etp x ep) ranks for experts); ZeRO-2 the gradients too; ZeRO-3 / FSDP the
 * weights as well, plus two layers gathered whole (the one running and the one prefetched).
 * - Activations kept for backward, per token of a micro-batch on this GPU (b x s / cp tokens),
 *   in 16-bit: the inputs of the two norms and of the QKV and first MLP GEMMs (2h bytes each;
 *   divided by tp only with sequence parallelism), queries, keys and values, the attention
 *   output, the MLP's activation input and its second GEMM's input (divided by tp). This is
 *   Korthikanti's 34 sbh / t for a GPT layer with sequence parallelism, less the two dropout
 *   masks (today's LLM recipes train with dropout 0) and without the 5 a s / h term of the
 *   attention scores: flash attention keeps none, which is also why selective recompute saves
 *   nothing more here. MoE layers keep each routed token's expert activations (top-k per token)
 *   and the shared experts' as a dense MLP. Full recompute keeps only each layer's input, plus
 *   one layer's activations while it is recomputed. The last stage adds the output layer's
 *   fp32 logits for one micro-batch (4 bytes x vocab / tp per token).
 * - The passes in flight are counted by walking the stage's own schedule (PipelineOrder):
 *   1F1B holds min(pp - stage, m) micro-batches on a stage; the interleaved schedule more.
 * Not counted: CUDA context, NCCL and communication buffers, the allocator's fragmentation
 * (typically a few GiB together).
 * \param model the model
 * \param layout a resolved layout (ResolveLayout)
 * \param stage the pipeline stage, 0 .. pp - 1
 * \return the estimate
 */
GpuMemoryEstimate EstimateGpuMemory(const TransformerModel& model,
                                    const ParallelLayout& layout,
                                    uint32_t stage);

/**
 * \ingroup chakra-workload
 * \return the estimate of the stage that needs the most
 */
GpuMemoryEstimate PeakGpuMemory(const TransformerModel& model, const ParallelLayout& layout);

/**
 * \ingroup chakra-workload
 * \return e.g. "61.2 GiB at stage 0 (weights 4.1, gradients 4.1, optimizer 24.6, activations
 *         28.4 GiB with 4 micro-batch passes in flight)"
 */
std::string DescribeGpuMemory(const GpuMemoryEstimate& estimate);

} // namespace ns3

#endif // CHAKRA_GPU_MEMORY_ESTIMATE_H
