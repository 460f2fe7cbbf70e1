#include "pipeline-layers.h"

#include "ns3/workload-spec-check.h"

#include <string>

namespace ns3
{

namespace
{

/** "llm: <message>" unless \p condition. */
void
Require(bool condition, const std::string& message)
{
    workload::Require(condition, "llm", message);
}

std::string
Text(uint64_t value)
{
    return std::to_string(value);
}

/** The stages that take the layers left over: every stage whose count is not given. */
uint32_t
MiddleStages(const ParallelLayout& layout)
{
    return layout.pp - (layout.firstStageLayers > 0 ? 1 : 0) - (layout.lastStageLayers > 0 ? 1 : 0);
}

/** \return the layers of one middle stage (0 when there is none) */
uint32_t
MiddleStageLayers(const ParallelLayout& layout, uint32_t layers)
{
    const uint32_t stages = MiddleStages(layout);
    const uint32_t left = layers - layout.firstStageLayers - layout.lastStageLayers;
    return stages == 0 ? 0 : left / stages;
}

/** The checks of an uneven split (Megatron-Core's "Uneven PP" block of TransformerConfig). */
void
CheckUnevenSplit(const ParallelLayout& layout, uint32_t layers)
{
    const std::string first = "--first-stage-layers " + Text(layout.firstStageLayers);
    const std::string last = "--last-stage-layers " + Text(layout.lastStageLayers);
    // The flags given, as the user typed them (0 stands for one not given).
    const std::string given = layout.firstStageLayers == 0  ? last
                              : layout.lastStageLayers == 0 ? first
                                                            : first + " + " + last;
    Require(layout.pp > 1, given + " needs --pp > 1");
    for (const auto& [flag, count] :
         {std::pair<std::string, uint32_t>{first, layout.firstStageLayers},
          {last, layout.lastStageLayers}})
    {
        // Each chunk of the stage holds count / vp layers.
        Require(count % layout.vp == 0,
                flag + " is not divisible by --vp " + Text(layout.vp) +
                    " (each virtual chunk of the stage holds the same number of layers)");
    }
    const uint64_t edges = uint64_t{layout.firstStageLayers} + layout.lastStageLayers;
    Require(edges <= layers, "the model's " + Text(layers) + " layers are fewer than " + given);
    const uint32_t middle = layers - static_cast<uint32_t>(edges);
    const uint32_t stages = MiddleStages(layout);
    // Megatron wants middle layers exactly when there are middle stages: no empty stage.
    Require(stages > 0 || middle == 0,
            given + " leave " + Text(middle) + " of the " + Text(layers) +
                " layers to no stage (--pp " + Text(layout.pp) + " has no other stage)");
    Require(stages == 0 || middle > 0,
            "no layer is left for the " + Text(stages) + " other stages of --pp " +
                Text(layout.pp) + " after " + given);
    if (stages == 0)
    {
        return;
    }
    Require(middle % stages == 0,
            "the " + Text(middle) + " layers left by " + given + " are not divisible by the " +
                Text(stages) + " other stages of --pp " + Text(layout.pp));
    Require((middle / stages) % layout.vp == 0,
            "the " + Text(middle / stages) + " layers of each of the " + Text(stages) +
                " other stages (besides " + given + ") are not divisible by --vp " +
                Text(layout.vp));
}

/** \return the layer slots of the split: the layers, plus the embedding and the loss if counted */
uint32_t
Slots(const ParallelLayout& layout, uint32_t layers)
{
    return layers + (layout.embeddingInPipelineSplit ? 1 : 0) +
           (layout.lossInPipelineSplit ? 1 : 0);
}

/** \return true if the first or the last stage's layers are given */
bool
Uneven(const ParallelLayout& layout)
{
    return layout.firstStageLayers > 0 || layout.lastStageLayers > 0;
}

/** The layers of a stage of an uneven split. */
uint32_t
UnevenStageLayers(const ParallelLayout& layout, uint32_t layers, uint32_t stage)
{
    if (stage == 0 && layout.firstStageLayers > 0)
    {
        return layout.firstStageLayers;
    }
    if (stage + 1 == layout.pp && layout.lastStageLayers > 0)
    {
        return layout.lastStageLayers;
    }
    return MiddleStageLayers(layout, layers);
}

/** Checks an even split, the embedding and the loss counted as layers if asked. */
void
CheckEvenSplit(const ParallelLayout& layout, uint32_t layers)
{
    const bool counted = layout.embeddingInPipelineSplit || layout.lossInPipelineSplit;
    const std::string flag = layout.embeddingInPipelineSplit
                                 ? "--account-for-embedding-in-pipeline-split"
                                 : "--account-for-loss-in-pipeline-split";
    // Megatron-Core refuses both ways at once (TransformerConfig.__post_init__).
    Require(!counted || !Uneven(layout),
            flag + " does not combine with --first-stage-layers / --last-stage-layers");
    Require(!counted || layout.pp > 1, flag + " needs --pp > 1");
    const uint64_t chunks = uint64_t{layout.pp} * layout.vp;
    const uint32_t slots = Slots(layout, layers);
    const std::string what =
        counted ? "the " + Text(layers) + " layers" +
                      (layout.embeddingInPipelineSplit ? " + the embedding" : "") +
                      (layout.lossInPipelineSplit ? " + the loss" : "") + " = " + Text(slots)
                : "the " + Text(layers) + " layers";
    Require(slots % chunks == 0,
            what + " are not divisible by --pp " + Text(layout.pp) + " x --vp " + Text(layout.vp) +
                " = " + Text(chunks) +
                " (--first-stage-layers / --last-stage-layers split them unevenly)");
}

} // namespace

void
CheckPipelineLayers(const ParallelLayout& layout, uint32_t layers)
{
    if (Uneven(layout) && !layout.embeddingInPipelineSplit && !layout.lossInPipelineSplit)
    {
        CheckUnevenSplit(layout, layers);
        return;
    }
    CheckEvenSplit(layout, layers);
}

uint32_t
StageLayers(const ParallelLayout& layout, uint32_t layers, uint32_t stage)
{
    if (Uneven(layout))
    {
        return UnevenStageLayers(layout, layers, stage);
    }
    uint32_t count = 0;
    for (uint32_t chunk = 0; chunk < layout.vp; ++chunk)
    {
        count += ChunkLayers(layout, layers, stage, chunk).count;
    }
    return count;
}

LayerRange
ChunkLayers(const ParallelLayout& layout, uint32_t layers, uint32_t stage, uint32_t chunk)
{
    LayerRange range;
    if (Uneven(layout))
    {
        // Every stage's layers split evenly over its vp chunks, so one round of chunks (chunk c
        // of every stage) holds layers / vp; within a round the stages come in order, and
        // every stage before `stage` but the first is a middle stage (transformer_layer.py's
        // offset).
        const uint32_t round = layers / layout.vp;
        const uint32_t before = stage == 0 ? 0
                                           : UnevenStageLayers(layout, layers, 0) +
                                                 (stage - 1) * MiddleStageLayers(layout, layers);
        range.first = chunk * round + before / layout.vp;
        range.count = UnevenStageLayers(layout, layers, stage) / layout.vp;
        return range;
    }
    // Even: virtual stage v = chunk x pp + stage holds slots [v k, (v + 1) k), k = slots /
    // (pp x vp); the embedding takes the first slot and the loss the last when counted, so
    // the first and the last virtual stage hold a layer fewer (transformer_block.py
    // get_num_layers_to_build; transformer_layer.py's offset, one less after the embedding).
    const uint32_t virtualStages = layout.pp * layout.vp;
    const uint32_t perChunk = Slots(layout, layers) / virtualStages;
    const uint32_t virtualStage = chunk * layout.pp + stage;
    const uint32_t embedding = layout.embeddingInPipelineSplit ? 1 : 0;
    const bool first = virtualStage == 0;
    const bool last = virtualStage + 1 == virtualStages;
    range.first = first ? 0 : virtualStage * perChunk - embedding;
    range.count = perChunk - (first ? embedding : 0) - (last && layout.lossInPipelineSplit ? 1 : 0);
    return range;
}

} // namespace ns3
