/*
 * The order in which a pipeline stage runs its micro-batches' forward and backward passes:
 * 1F1B, and Megatron-LM's interleaved 1F1B with virtual stages.
 */
#ifndef CHAKRA_PIPELINE_SCHEDULE_H
#define CHAKRA_PIPELINE_SCHEDULE_H

#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

namespace ns3
{

/**
 * \ingroup chakra-workload
 * \brief One step of a pipeline stage's schedule: a pass of one micro-batch through one chunk
 * (virtual stage) of the stage's layers.
 */
struct PipelineStep
{
    bool forward{true};     //!< forward or backward
    uint32_t microBatch{0}; //!< which micro-batch
    uint32_t chunk{0};      //!< which of the stage's vp chunks
};

/**
 * The order in which pipeline stage \p stage (0 .. pp - 1) runs the passes of one step.
 *
 * vp == 1: 1F1B (PipeDream-Flush; Narayanan et al., SC'21, Figure 4 top): min(pp - stage - 1,
 * m) warm-up forwards, then alternately one forward and one backward, then the remaining
 * backwards.
 *
 * vp > 1: Megatron-LM's interleaved 1F1B (SC'21 Figure 4 bottom;
 * megatron/core/pipeline_parallel/schedules.py, forward_backward_pipelining_with_interleaving):
 * chunk c of stage s holds virtual stage c x pp + s. The k-th forward runs chunk
 * (k mod (pp x vp)) / pp on micro-batch (k / (pp x vp)) x pp + k mod pp; the k-th backward the
 * same with the chunk order reversed. Warm-up forwards: (pp - stage - 1) x 2 + (vp - 1) x pp
 * (all of them when m == pp), at most m x vp; then one forward and one backward alternately;
 * then the remaining backwards. m must be a multiple of pp (ResolveLayout checks it). This is
 * the classic schedule (Megatron-Core up to v0.7); later versions group micro-batches by
 * microbatch_group_size_per_vp_stage (pp by default), which differs only when m == pp, where
 * the later stages then start 1F1B before every forward has run.
 * \param pp pipeline stages
 * \param stage this stage
 * \param vp virtual stages per stage
 * \param microBatches micro-batches of the step
 * \return the passes in order: each (micro-batch, chunk) forward once and backward once
 * \throws std::invalid_argument naming the flag (--pp, --vp) if they make no schedule
 */
std::vector<PipelineStep> PipelineOrder(uint32_t pp,
                                        uint32_t stage,
                                        uint32_t vp,
                                        uint32_t microBatches);

/**
 * \throws std::invalid_argument if (stage, chunk) is not a virtual stage of the pipeline
 * \return (stage, chunk) of the virtual stage after chunk \p chunk of stage \p stage (where
 *         its forward output goes), or nullopt after the last virtual stage
 */
std::optional<std::pair<uint32_t, uint32_t>> NextVirtualStage(uint32_t pp,
                                                              uint32_t vp,
                                                              uint32_t stage,
                                                              uint32_t chunk);

/**
 * \return (stage, chunk) of the virtual stage before it (where its input comes from, and its
 *         input gradient goes), or nullopt for the first
 */
std::optional<std::pair<uint32_t, uint32_t>> PreviousVirtualStage(uint32_t pp,
                                                                  uint32_t vp,
                                                                  uint32_t stage,
                                                                  uint32_t chunk);

} // namespace ns3

#endif // CHAKRA_PIPELINE_SCHEDULE_H
