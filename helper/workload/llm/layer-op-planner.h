/*
 * LayerOpPlanner: what one GPU does, op by op, for one transformer layer's forward or backward
 * pass of one micro-batch under a parallel layout: the GEMMs, attention and memory-bound ops
 * timed on the GPU, and the tensor-, context- and expert-parallel communication between them.
 */
#ifndef CHAKRA_LAYER_OP_PLANNER_H
#define CHAKRA_LAYER_OP_PLANNER_H

#include "et_def.pb.h"

#include "ns3/compute-profile.h"
#include "ns3/gpu-compute-model.h"
#include "ns3/parallel-layout.h"
#include "ns3/transformer-model.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup chakra-workload
 * \brief The kinds of step in a layer's pass.
 */
enum class LayerOpKind
{
    Compute,           //!< a GPU kernel (or a fused group of them) on the compute stream
    TensorCollective,  //!< a collective over the tensor-parallel group, on the critical path
    ExpertAllToAll,    //!< the MoE token dispatch or combine over the expert-parallel group
    ContextKvExchange, //!< one ring step of context parallelism: K/V to the next CP rank
    /** a collective over the expert tensor-parallel group (etp > 1) */
    ExpertTensorCollective,
    /**
     * One step of Transformer Engine's ring exchange over the tensor-parallel group: bytes to
     * the rank `offset` places on, the same from the rank `offset` places back
     */
    TensorRingExchange,
};

/**
 * \ingroup chakra-workload
 * \brief One step of a layer's pass on one GPU.
 */
struct LayerOp
{
    LayerOpKind kind{LayerOpKind::Compute}; //!< what it is
    std::string name;                       //!< node name
    double micros{0};                       //!< Compute: duration
    /** TensorCollective, ExpertAllToAll, ExpertTensorCollective: the collective */
    ChakraProtoMsg::CollectiveCommType collective{ChakraProtoMsg::ALL_REDUCE};
    /** Collectives: comm_size (see CollectiveRequest); exchanges: bytes sent */
    uint64_t bytes{0};
    /** TensorRingExchange: how many places along the tensor-parallel ring the peer is */
    uint32_t offset{1};
    /**
     * false: the ops after this one do not wait for it (a collective or exchange issued
     * beside the GEMMs); an op that needs its result names it in `joins`
     */
    bool blocking{true};
    /** names of earlier non-blocking ops of the same list that this op waits for as well */
    std::vector<std::string> joins;
};

/**
 * \ingroup chakra-workload
 * \brief Plans the ops of one micro-batch's pass through a layer, the embedding or the output
 * layer, on one GPU of a Megatron-LM style layout.
 *
 * What it assumes (doc/workloads.md, "LLM training steps"), following Megatron-LM:
 * - Tensor parallelism (Shoeybi et al. 2019): the QKV and MLP-up GEMMs are column-parallel, the
 *   attention-output and MLP-down GEMMs row-parallel; each block ends with an all-reduce of the
 *   block's output (b x s x h activations, 2 bytes each) in forward, and begins with one of the
 *   input gradient in backward. With sequence parallelism (Korthikanti et al. 2022) each
 *   all-reduce becomes a reduce-scatter, and an all-gather opens the block; norms run on
 *   the 1/tp sequence shard.
 * - Context parallelism: the sequence is split over cp ranks (load-balanced causal split); the
 *   attention core runs in cp steps, passing K/V chunks around the CP ring (backward passes
 *   K/V and their gradients).
 * - Mixture of experts (Megatron-Core's all-to-all dispatcher): the router, an all-to-all
 *   dispatch over the expert-parallel group (each token to top-k experts), the local experts'
 *   GEMMs as one grouped op with tokens spread evenly, an all-to-all combine; shared experts
 *   as a tensor-parallel dense MLP. Experts are split over the expert tensor-parallel size
 *   etp (Megatron-Core's expert_tensor_parallel_size; its default is tp). With tp > 1
 *   (sequence parallelism required) each rank routes only its own 1/tp sequence shard,
 *   whatever etp, as Megatron-Core's
 *   MoEAlltoAllTokenDispatcher does (megatron/core/transformer/moe/token_dispatcher.py: the
 *   layer's input is the sequence-parallel shard; A2A(EP), then AG(expert TP), experts,
 *   RS(expert TP), A2A(EP)): the tokens received are all-gathered over the etp group when
 *   etp > 1 and the experts' outputs reduce-scattered back; the experts hold moe_ffn / etp.
 *   The shared experts stay a tp-split dense MLP; without them no tp all-gather or
 *   reduce-scatter opens or closes an MoE block whose rank routes its own shard.
 * - Overlap (ParallelLayout::tpCommOverlap): with Async a column-parallel GEMM's backward is its
 *   input gradient with the input's re-gather (sequence parallelism) beside it, then its weight
 *   gradient with the input gradient's reduction beside it; Userbuffers adds Transformer
 *   Engine's ring exchanges, the GEMMs around each all-gather and reduce-scatter run in tp row
 *   chunks as the shards arrive or leave. Ops beside the chain are non-blocking and named in a
 *   later op's `joins`. MoE blocks and MLA's projections keep their collectives blocking.
 * - Activations and weights in 16-bit (2 bytes).
 * - Recompute: Full runs the layer's forward again (its communication too) before its
 *   backward; Selective runs the attention core again (Korthikanti et al. 2022).
 * A GEMM C[m,n] = A[m,k] B[k,n] costs GemmMicros(m, n, k) forward and, backward, the input
 * gradient (m, k, n) plus the weight gradient (k, n, m).
 *
 * A measured profile (ComputeProfile), when given, replaces the model's times. Ops are looked
 * up by their name without the layer tag ("qkv", "mlp_up", "attention_out_backward", ...; the
 * shape "MxNxK" of the forward GEMM, also for its backward), in this order:
 * 1. a forward GEMM: (name, MxNxK), else ("gemm", MxNxK), the key chakra_replay writes for a
 *    real trace's aten::mm / addmm / linear / matmul (ComputeProfileExtractor), else the model;
 * 2. a backward GEMM: (name + "_backward", MxNxK), else the sum of its two gradient GEMMs,
 *    each ("gemm", MxKxN) and ("gemm", KxNxM) if listed, else modelled;
 * 3. the attention core: ("attention_core" or "attention_core_backward", "BxSxHxD": micro-batch,
 *    this rank's sequence, its heads, the query/key head dimension), else the model;
 *    the grouped experts: ("experts" or "experts_backward", "TxUxHxE": tokens per expert, the
 *    up width, hidden, local experts), else the model. Memory-bound ops are always modelled.
 */
class LayerOpPlanner
{
  public:
    /**
     * \param model the model
     * \param layout a resolved layout (ResolveLayout)
     * \param gpu the GPU's time model
     * \param causal causal attention (decoder training)
     * \param profile measured op times, or nullptr
     */
    LayerOpPlanner(const TransformerModel& model,
                   const ParallelLayout& layout,
                   const ComputeTimeModel& gpu,
                   bool causal,
                   const ComputeProfile* profile = nullptr);

    /** \return the forward ops of layer \p layer (0-based) */
    std::vector<LayerOp> Forward(uint32_t layer) const;
    /** \return the backward ops of layer \p layer, recompute included */
    std::vector<LayerOp> Backward(uint32_t layer) const;
    /** \return the embedding's forward ops (first pipeline stage) */
    std::vector<LayerOp> EmbeddingForward() const;
    /** \return the embedding's backward ops */
    std::vector<LayerOp> EmbeddingBackward() const;
    /** \return the final norm, LM head and loss (last pipeline stage) */
    std::vector<LayerOp> OutputForward() const;
    /** \return their backward */
    std::vector<LayerOp> OutputBackward() const;

    /** \return bytes of one micro-batch's activation sent between pipeline stages, per rank */
    uint64_t StageActivationBytes() const;

  private:
    /** \return one GEMM's time: the profile's ("gemm", MxNxK), else the model's */
    double GemmMicros(uint64_t m, uint64_t n, uint64_t k) const;
    /** A GEMM's forward op (C[m,n] = A[m,k] B[k,n]). */
    LayerOp Gemm(const std::string& name, uint64_t m, uint64_t n, uint64_t k) const;
    /** Its backward: input and weight gradients. */
    LayerOp GemmBackward(const std::string& name, uint64_t m, uint64_t n, uint64_t k) const;
    /** A memory-bound op moving \p bytes. */
    LayerOp MemoryBound(const std::string& name, uint64_t bytes) const;
    /** \return micros from the profile for (op, shape), or \p modelled */
    double Measured(const std::string& op, const std::string& shape, double modelled) const;
    /** A collective over the tensor-parallel group. */
    static LayerOp TensorCollective(const std::string& name,
                                    ChakraProtoMsg::CollectiveCommType type,
                                    uint64_t bytes);
    /** \return true if the tp collectives overlap GEMMs (tp > 1, --tp-comm-overlap not none) */
    bool AsyncTensorComm() const;
    /** \return true if they also run as ring exchanges inside the GEMMs (userbuffers) */
    bool RingExchanges() const;
    /** \return the time of one of tp row chunks of a GEMM (m, n, k) whose whole takes \p whole */
    double ChunkMicros(double whole, uint64_t m, uint64_t n, uint64_t k) const;
    /**
     * A column-parallel GEMM (m_tokens x n x k) opening \p block: its input's sequence shards
     * gathered before it, or (ring exchanges) chunk by chunk while it runs.
     */
    void GatheredGemm(const std::string& block,
                      const std::string& name,
                      uint64_t n,
                      uint64_t k,
                      std::vector<LayerOp>& ops) const;
    /**
     * A row-parallel GEMM closing \p block: its output all-reduced or reduce-scattered after
     * it, or (ring exchanges) each chunk sent to its owner as soon as it is computed.
     */
    void ScatteredGemm(const std::string& block,
                       const std::string& name,
                       uint64_t n,
                       uint64_t k,
                       std::vector<LayerOp>& ops) const;
    /**
     * The ring-exchange all-gather of \p block's sequence shards into the GEMM \p name
     * (m_tokens x n x k, taking \p micros whole), run in tp row chunks as the shards arrive.
     */
    void RingGatheredGemm(const std::string& block,
                          const std::string& name,
                          double micros,
                          uint64_t n,
                          uint64_t k,
                          std::vector<LayerOp>& ops) const;
    /** \return the input gradient's share of a (m_tokens, n, k) GEMM's modelled backward */
    double InputGradientShare(uint64_t n, uint64_t k) const;
    /** The backward of a row-parallel GEMM opening \p block: the output gradient gathered. */
    void RowParallelBackward(const std::string& block,
                             const std::string& name,
                             uint64_t n,
                             uint64_t k,
                             std::vector<LayerOp>& ops) const;
    /**
     * The backward of a column-parallel GEMM closing \p block: its input re-gathered (sequence
     * parallelism keeps only the shard) and the input gradient reduced.
     * \return the name of the reduction when it runs beside the weight gradient (the next op
     *         joins it), else ""
     */
    std::string ColumnParallelBackward(const std::string& block,
                                       const std::string& name,
                                       uint64_t n,
                                       uint64_t k,
                                       std::vector<LayerOp>& ops) const;
    /** Opens a tensor-parallel block: an all-gather of the sequence shards with SP. */
    void EnterBlock(const std::string& name, std::vector<LayerOp>& ops) const;
    /** Closes it: an all-reduce, or a reduce-scatter with SP (nothing when tp == 1). */
    void LeaveBlock(const std::string& name, std::vector<LayerOp>& ops) const;
    /** The attention block (forward). */
    void AttentionForward(const std::string& suffix, std::vector<LayerOp>& ops) const;
    /** The attention block (backward). */
    void AttentionBackward(const std::string& suffix, std::vector<LayerOp>& ops) const;
    /** The attention core: cp ring steps, each possibly preceded by a K/V exchange. */
    void AttentionCore(const std::string& suffix, bool backward, std::vector<LayerOp>& ops) const;
    /** The projections before the core (QKV, or MLA's low-rank ones). */
    std::vector<LayerOp> Projections(const std::string& suffix, bool backward) const;
    /** \return the up-projection's width for an MLP \p width wide (twice it when gated) */
    uint64_t UpWidth(uint64_t width) const;
    /** The MLP activation (or its backward) of \p tokens tokens, \p width wide. */
    LayerOp MlpActivation(const std::string& name,
                          uint64_t tokens,
                          uint64_t width,
                          bool backward) const;
    /** A dense MLP of width \p width (forward or backward) on \p tokens tokens. */
    void DenseMlp(const std::string& name,
                  uint64_t tokens,
                  uint64_t width,
                  bool backward,
                  std::vector<LayerOp>& ops) const;
    /** A dense model's MLP block (forward or backward) of layer suffix \p suffix. */
    void DenseMlpBlock(const std::string& suffix, bool backward, std::vector<LayerOp>& ops) const;
    /** The MoE block's routed part (router, dispatch, experts, combine). */
    void RoutedExperts(const std::string& suffix, bool backward, std::vector<LayerOp>& ops) const;
    /** The MLP block of layer \p layer (dense or MoE), forward or backward. */
    void MlpBlock(uint32_t layer, bool backward, std::vector<LayerOp>& ops) const;

    TransformerModel m_model;        //!< the model
    ParallelLayout m_layout;         //!< the layout
    ComputeTimeModel m_gpu;          //!< GPU time model
    bool m_causal;                   //!< causal attention
    const ComputeProfile* m_profile; //!< measured times, or nullptr
    uint64_t m_tokens;               //!< b x s / cp
    uint64_t m_qkDim;                //!< query/key head dimension
    uint64_t m_vDim;                 //!< value head dimension
};

} // namespace ns3

#endif // CHAKRA_LAYER_OP_PLANNER_H
