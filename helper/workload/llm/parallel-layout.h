/*
 * How a training job splits a transformer over GPUs (Megatron-LM's terms), the checks a
 * layout must pass, and Megatron-LM's order of ranks and groups.
 */
#ifndef CHAKRA_PARALLEL_LAYOUT_H
#define CHAKRA_PARALLEL_LAYOUT_H

#include <cstdint>
#include <vector>

namespace ns3
{

/**
 * \ingroup chakra-workload
 * \brief Activation recomputation in the backward pass.
 */
enum class Recompute
{
    None,      //!< every activation kept
    Selective, //!< the attention core recomputed (Korthikanti et al. 2022)
    Full,      //!< each layer's forward run again from its input
};

/**
 * \ingroup chakra-workload
 * \brief How the tensor-parallel collectives of a layer overlap its GEMMs.
 */
enum class TpCommOverlap
{
    /** every collective on the critical path (Megatron-LM before September 2021, the SC'21 runs) */
    None,
    /**
     * Megatron-Core's and Transformer Engine's backward of a column-parallel GEMM: the input's
     * re-gather (sequence parallelism) runs during the input-gradient GEMM, and that gradient's
     * reduce-scatter (or all-reduce) during the weight-gradient GEMM
     */
    Async,
    /**
     * Async, plus Transformer Engine's userbuffers (Megatron's --tp-comm-overlap, NeMo's
     * recipes): each all-gather feeding a GEMM and each reduce-scatter of a GEMM's output is
     * split into tp chunks passed around the tensor-parallel ring while the GEMM runs on the
     * chunks that have arrived (ring exchange); needs sequence parallelism
     */
    Userbuffers,
};

/**
 * \ingroup chakra-workload
 * \brief How a job splits a model over GPUs (Megatron-LM's terms).
 */
struct ParallelLayout
{
    uint32_t gpus{0};             //!< GPUs of the job
    uint32_t tp{1};               //!< tensor-parallel size
    uint32_t pp{1};               //!< pipeline stages
    uint32_t vp{1};               //!< virtual stages per pipeline stage (interleaving)
    uint32_t cp{1};               //!< context-parallel size
    uint32_t ep{1};               //!< expert-parallel size
    uint32_t etp{0};              //!< expert tensor-parallel size; 0: tp (Megatron's default)
    uint32_t dp{0};               //!< data-parallel size; 0: gpus / (tp x pp x cp)
    bool sequenceParallel{false}; //!< Megatron's sequence parallelism
    uint32_t zero{0};             //!< ZeRO stage 0-3 (1: Megatron's distributed optimizer)
    bool fsdp{false};             //!< PyTorch FSDP full shard (ZeRO-3's traffic)
    /**
     * Bytes of a weight as FSDP / ZeRO-3 gathers it: 2 (bf16, the default) or 4 (fp32:
     * PyTorch FSDP's MixedPrecision param_dtype fp32, Composer's DEFAULT and FULL modes; every
     * pass then casts the gathered weights to 16 bits, as autocast does)
     */
    uint32_t gatherBytes{2};
    /**
     * Bytes of a gradient element in the data-parallel reductions: 2 (bf16) or 4 (fp32:
     * Megatron's --accumulate-allreduce-grads-in-fp32, FSDP's reduce_dtype fp32)
     */
    uint32_t gradReduceBytes{2};
    uint64_t globalBatch{0};                           //!< sequences per step
    uint32_t microBatch{1};                            //!< sequences per micro-batch
    uint32_t seq{0};                                   //!< tokens per sequence
    Recompute recompute{Recompute::None};              //!< activation recomputation
    TpCommOverlap tpCommOverlap{TpCommOverlap::Async}; //!< tensor-parallel overlap
    // Uneven pipeline stages (Megatron-Core's num_layers_in_first/last_pipeline_stage):
    // the split itself is pipeline-layers.h's.
    uint32_t firstStageLayers{0}; //!< layers of stage 0; 0: an even split
    uint32_t lastStageLayers{0};  //!< layers of stage pp - 1; 0: an even split
    /** The embedding takes a layer's place on the first stage (Megatron-Core's flag) */
    bool embeddingInPipelineSplit{false};
    /** The loss takes a layer's place on the last stage (Megatron-Core's flag) */
    bool lossInPipelineSplit{false};

    /** \return micro-batches per pipeline per step: globalBatch / (microBatch x dp) */
    uint32_t MicroBatches() const;
    /** \return the expert tensor-parallel size: etp, or tp when etp is 0 */
    uint32_t ExpertTensorParallel() const;
    /** \return the expert data-parallel size: tp x cp x dp / (etp x ep) */
    uint32_t ExpertDataParallel() const;
    /**
     * \return true if each rank routes only its own sequence shard (b x s / (cp x tp) tokens):
     *         an MoE model with tp > 1 (which needs sequence parallelism), whatever etp
     */
    bool RoutesOwnShard() const;
};

/**
 * \ingroup chakra-workload
 * \brief The numbers of a model a layout must divide.
 */
struct LayoutModelLimits
{
    uint32_t layers{0};  //!< transformer layers
    uint32_t heads{0};   //!< attention heads
    uint32_t kvHeads{0}; //!< key/value heads
    uint32_t experts{0}; //!< routed experts (0: dense)
};

/**
 * Checks a layout against the model and returns it with dp derived.
 * \param layout the layout as given
 * \param model the model's numbers
 * \return the layout, dp set
 * \throws std::invalid_argument naming the flags at fault ("llm: --tp 3 does not divide the
 *         32 attention heads"), before anything is written
 */
ParallelLayout ResolveLayout(ParallelLayout layout, const LayoutModelLimits& model);

/**
 * \ingroup chakra-workload
 * \brief A rank's place in each parallel dimension.
 */
struct RankCoordinates
{
    uint32_t tp{0}; //!< tensor-parallel index
    uint32_t cp{0}; //!< context-parallel index
    uint32_t dp{0}; //!< data-parallel index
    uint32_t pp{0}; //!< pipeline stage
};

/**
 * \ingroup chakra-workload
 * \brief Megatron-LM's default rank order and its process groups.
 *
 * Megatron-Core orders ranks "tp-cp-ep-dp-pp" (megatron/core/parallel_state.py,
 * RankGenerator): tp fastest, then cp, then dp, pp slowest, so that a tensor-parallel group is
 * consecutive ranks and sits in one host when tp <= GPUs per host:
 * rank = tp + TP x (cp + CP x (dp + DP x pp)). Experts have a grid of their own over the same
 * ranks (initialize_model_parallel's expert_decoder_rank_generator: the same order with
 * tp = expert_tensor_parallel_size, cp = 1 and dp = the expert data-parallel size), so within a
 * stage the index i = tp + TP x (cp + CP x dp) is read as etp + ETP x (ep + EP x edp):
 * EDP = TP x CP x DP / (ETP x EP). With ETP = TP (the default) this is the context x data index
 * j = cp + CP x dp read as ep + EP x edp. An expert-parallel group varies ep (same etp, edp,
 * stage), an expert data-parallel group varies edp (same etp, ep, stage), an expert
 * tensor-parallel group varies etp: ETP consecutive ranks.
 *
 * Groups of a kind are numbered so that a group's index is computed from any member's
 * coordinates (the XGroupOf functions); each group lists its ranks in increasing order.
 */
class MegatronRankOrder
{
  public:
    /** \param resolved a layout from ResolveLayout */
    explicit MegatronRankOrder(const ParallelLayout& resolved);

    /** \return the coordinates of \p rank */
    RankCoordinates Coordinates(uint32_t rank) const;
    /** \return the rank at \p at */
    uint32_t Rank(const RankCoordinates& at) const;

    /** \return every tensor-parallel group */
    std::vector<std::vector<uint32_t>> TensorGroups() const;
    /** \return every context-parallel group */
    std::vector<std::vector<uint32_t>> ContextGroups() const;
    /** \return every data-parallel group (same tp, cp and stage) */
    std::vector<std::vector<uint32_t>> DataGroups() const;
    /** \return every data x context group (same tp and stage): where gradients are reduced */
    std::vector<std::vector<uint32_t>> DataContextGroups() const;
    /** \return every pipeline */
    std::vector<std::vector<uint32_t>> PipelineGroups() const;
    /** \return every expert-parallel group (the MoE all-to-alls) */
    std::vector<std::vector<uint32_t>> ExpertGroups() const;
    /** \return every expert data-parallel group (expert gradients) */
    std::vector<std::vector<uint32_t>> ExpertDataGroups() const;
    /** \return every expert tensor-parallel group (ETP consecutive ranks) */
    std::vector<std::vector<uint32_t>> ExpertTensorGroups() const;

    /** \return the index of \p rank's tensor-parallel group */
    uint32_t TensorGroupOf(uint32_t rank) const;
    /** \return the index of \p rank's context-parallel group */
    uint32_t ContextGroupOf(uint32_t rank) const;
    /** \return the index of \p rank's data-parallel group */
    uint32_t DataGroupOf(uint32_t rank) const;
    /** \return the index of \p rank's data x context group */
    uint32_t DataContextGroupOf(uint32_t rank) const;
    /** \return the index of \p rank's pipeline */
    uint32_t PipelineGroupOf(uint32_t rank) const;
    /** \return the index of \p rank's expert-parallel group */
    uint32_t ExpertGroupOf(uint32_t rank) const;
    /** \return the index of \p rank's expert data-parallel group */
    uint32_t ExpertDataGroupOf(uint32_t rank) const;
    /** \return the index of \p rank's expert tensor-parallel group */
    uint32_t ExpertTensorGroupOf(uint32_t rank) const;

  private:
    /** \brief A rank's place in the expert grid. */
    struct ExpertCoordinates
    {
        uint32_t etp{0};   //!< expert tensor-parallel index
        uint32_t ep{0};    //!< expert-parallel index
        uint32_t edp{0};   //!< expert data-parallel index
        uint32_t stage{0}; //!< pipeline stage
    };

    /** \return \p rank's place in the expert grid */
    ExpertCoordinates ExpertAt(uint32_t rank) const;
    /** \return every group of a kind, given each rank's group index */
    std::vector<std::vector<uint32_t>> Collect(uint32_t (MegatronRankOrder::*groupOf)(uint32_t)
                                                   const) const;

    ParallelLayout m_layout; //!< the resolved layout
};

} // namespace ns3

#endif // CHAKRA_PARALLEL_LAYOUT_H
