/*
 * Which transformer layers each pipeline stage and virtual chunk holds, with Megatron-Core's
 * uneven first and last stages (--first-stage-layers, --last-stage-layers).
 */
#ifndef CHAKRA_PIPELINE_LAYERS_H
#define CHAKRA_PIPELINE_LAYERS_H

#include "ns3/parallel-layout.h"

#include <cstdint>

namespace ns3
{

/**
 * \ingroup chakra-workload
 * \brief A run of consecutive transformer layers: [first, first + count).
 */
struct LayerRange
{
    uint32_t first{0}; //!< the first global layer index
    uint32_t count{0}; //!< how many layers
};

/**
 * Checks that \p layout splits \p layers over its pipeline stages and virtual chunks by
 * Megatron-Core's rules (TransformerConfig.__post_init__, megatron/core/transformer/
 * transformer_config.py): with neither firstStageLayers nor lastStageLayers set, pp x vp
 * divides the layers, plus one for the embedding and one for the loss when they are counted
 * as layers (embeddingInPipelineSplit, lossInPipelineSplit: then pp > 1); with either set,
 * pp > 1, neither of those, the set stages' layers are divisible by vp, the layers left over
 * (at least 1 per stage) split evenly over the other ("middle") stages, and each middle
 * stage's layers are divisible by vp.
 * \param layout the layout (its pp, vp, firstStageLayers, lastStageLayers)
 * \param layers the model's transformer layers
 * \throws std::invalid_argument naming the flag at fault
 */
void CheckPipelineLayers(const ParallelLayout& layout, uint32_t layers);

/**
 * The layers of virtual chunk \p chunk of pipeline stage \p stage, in Megatron-Core's order
 * (get_num_layers_to_build, megatron/core/transformer/transformer_block.py, and
 * get_transformer_layer_offset, megatron/core/transformer/transformer_layer.py): the model is
 * cut into vp rounds; round c holds, in order, chunk c of stage 0, of stage 1, ..., of stage
 * pp - 1, each chunk holding its stage's layers / vp. Even splits give stage s, chunk c the
 * layers from (c x pp + s) x layers / (pp x vp); with the embedding and the loss counted,
 * the first and the last virtual stage hold one layer fewer and the layers after the first
 * virtual stage move one down (account_for_embedding_in_pipeline_split,
 * account_for_loss_in_pipeline_split).
 * \param layout a layout CheckPipelineLayers accepts
 * \param layers the model's transformer layers
 * \param stage the pipeline stage, 0 .. pp - 1
 * \param chunk the virtual chunk, 0 .. vp - 1
 * \return the chunk's layers
 */
LayerRange ChunkLayers(const ParallelLayout& layout,
                       uint32_t layers,
                       uint32_t stage,
                       uint32_t chunk);

/**
 * \param layout a layout CheckPipelineLayers accepts
 * \param layers the model's transformer layers
 * \param stage the pipeline stage, 0 .. pp - 1
 * \return the transformer layers stage \p stage holds over all its chunks
 */
uint32_t StageLayers(const ParallelLayout& layout, uint32_t layers, uint32_t stage);

} // namespace ns3

#endif // CHAKRA_PIPELINE_LAYERS_H
