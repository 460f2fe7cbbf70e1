/*
 * Uneven first and last pipeline stages (--first-stage-layers, --last-stage-layers): the layers
 * of each (stage, virtual chunk) against tables drawn by hand from Megatron-Core's rules
 * (transformer_block.py get_num_layers_to_build, transformer_layer.py
 * get_transformer_layer_offset), each refused split naming its flag, and the split carried
 * into the memory estimate and the written traces.
 */
#define BOOST_TEST_MODULE pipeline_layers
#include "chakra-test-data.h"
#include "llm-test-models.h"

#include "ns3/chakra-module.h"
#include "ns3/pipeline-layers.h"

#include <boost/test/unit_test.hpp>
#include <cctype>
#include <set>
#include <string>
#include <vector>

using namespace ns3;
using chakra_test::TempDir;

namespace
{

/** A pipeline of \p pp stages x \p vp chunks, first and last stages given (0: even). */
ParallelLayout
Pipeline(uint32_t pp, uint32_t vp, uint32_t first, uint32_t last)
{
    ParallelLayout layout;
    layout.gpus = pp;
    layout.pp = pp;
    layout.vp = vp;
    layout.firstStageLayers = first;
    layout.lastStageLayers = last;
    layout.seq = 512;
    layout.globalBatch = 4 * pp; // 4 micro-batches per stage: a multiple of pp for --vp
    return layout;
}

/** First layer and count of every chunk, stage by stage, chunk by chunk, flattened. */
std::vector<uint32_t>
Table(const ParallelLayout& layout, uint32_t layers)
{
    std::vector<uint32_t> table;
    for (uint32_t stage = 0; stage < layout.pp; ++stage)
    {
        for (uint32_t chunk = 0; chunk < layout.vp; ++chunk)
        {
            const LayerRange range = ChunkLayers(layout, layers, stage, chunk);
            table.push_back(range.first);
            table.push_back(range.count);
        }
    }
    return table;
}

/** Checks that every one of \p layers layers sits in exactly one chunk. */
void
CheckEveryLayerOnce(const ParallelLayout& layout, uint32_t layers)
{
    std::vector<uint32_t> seen(layers, 0);
    const std::vector<uint32_t> table = Table(layout, layers);
    for (size_t at = 0; at < table.size(); at += 2)
    {
        const uint32_t first = table[at];
        const uint32_t count = table[at + 1];
        for (uint32_t layer = first; layer < first + count; ++layer)
        {
            BOOST_REQUIRE(layer < layers);
            ++seen[layer];
        }
    }
    for (uint32_t layer = 0; layer < layers; ++layer)
    {
        BOOST_TEST(seen[layer] == 1u, "layer " << layer);
    }
}

/** Checks that \p layout with \p layers layers is refused, naming \p words. */
void
ExpectRefused(const ParallelLayout& layout, uint32_t layers, const std::string& words)
{
    BOOST_TEST_CONTEXT(words)
    {
        BOOST_CHECK_EXCEPTION(ResolveLayout(layout, LayoutModelLimits{layers, 8, 8, 0}),
                              std::invalid_argument,
                              [&](const std::invalid_argument& e) {
                                  const std::string what = e.what();
                                  BOOST_TEST_MESSAGE(what);
                                  return what.find(words) != std::string::npos &&
                                         what.rfind("llm: ", 0) == 0;
                              });
    }
}

using Table_t = std::vector<uint32_t>;

} // namespace

BOOST_AUTO_TEST_SUITE(pipeline_layers)

// 10 layers, pp 4, first 1, last 3: the 6 left split over the 2 middle stages, 3 each;
// stages hold layers 0 | 1-3 | 4-6 | 7-9.
BOOST_AUTO_TEST_CASE(first_and_last_stages_take_their_counts_the_middle_the_rest)
{
    const ParallelLayout layout = Pipeline(4, 1, 1, 3);
    BOOST_TEST(Table(layout, 10) == (Table_t{0, 1, 1, 3, 4, 3, 7, 3}),
               boost::test_tools::per_element());
    CheckEveryLayerOnce(layout, 10);
}

// 14 layers, pp 4, vp 2, first 2, last 4, drawn by hand: middle stages hold (14 - 2 - 4) / 2
// = 4 layers; per chunk: first 1, middle 2, last 2, so one round of chunks holds 1 + 2 + 2 +
// 2 = 7 layers. Round 0: stage 0 [0], stage 1 [1-2], stage 2 [3-4], stage 3 [5-6]; round 1
// the same + 7: [7], [8-9], [10-11], [12-13].
BOOST_AUTO_TEST_CASE(interleaved_chunks_follow_megatrons_rounds)
{
    const ParallelLayout layout = Pipeline(4, 2, 2, 4);
    const Table_t expected{0, 1, 7, 1, 1, 2, 8, 2, 3, 2, 10, 2, 5, 2, 12, 2};
    BOOST_TEST(Table(layout, 14) == expected, boost::test_tools::per_element());
    CheckEveryLayerOnce(layout, 14);
    BOOST_TEST(StageLayers(layout, 14, 0) == 2u);
    BOOST_TEST(StageLayers(layout, 14, 1) == 4u);
    BOOST_TEST(StageLayers(layout, 14, 3) == 4u);
}

// Only one end given: the other end is a middle stage (Megatron: None is not 0). DeepSeek-V3's
// 61 layers on pp 16 with first 1: 60 / 15 = 4 per other stage, stage s >= 1 from 1 + 4 (s - 1).
// 10 layers, pp 3, last 2: 8 / 2 = 4, layers 0-3 | 4-7 | 8-9.
BOOST_AUTO_TEST_CASE(one_end_given_leaves_the_other_end_in_the_middle)
{
    const ParallelLayout deepseek = Pipeline(16, 1, 1, 0);
    BOOST_TEST(ChunkLayers(deepseek, 61, 0, 0).count == 1u);
    for (uint32_t stage = 1; stage < 16; ++stage)
    {
        BOOST_TEST(ChunkLayers(deepseek, 61, stage, 0).first == 1 + 4 * (stage - 1));
        BOOST_TEST(ChunkLayers(deepseek, 61, stage, 0).count == 4u);
    }
    CheckEveryLayerOnce(deepseek, 61);
    BOOST_TEST(Table(Pipeline(3, 1, 0, 2), 10) == (Table_t{0, 4, 4, 4, 8, 2}),
               boost::test_tools::per_element());
    // pp 2, both given: no middle stage (layers 0 | 1-2 in round 0, + 3 in round 1).
    BOOST_TEST(Table(Pipeline(2, 2, 2, 4), 6) == (Table_t{0, 1, 3, 1, 1, 2, 4, 2}),
               boost::test_tools::per_element());
}

// No flag: Megatron's even split, stage s chunk c from (c x pp + s) x layers / (pp x vp)
// (8 layers, pp 2, vp 2: [0-1] [4-5] | [2-3] [6-7], transformer_block.py's own example).
BOOST_AUTO_TEST_CASE(no_flag_is_the_even_split)
{
    BOOST_TEST(Table(Pipeline(2, 2, 0, 0), 8) == (Table_t{0, 2, 4, 2, 2, 2, 6, 2}),
               boost::test_tools::per_element());
    BOOST_TEST(Table(Pipeline(2, 4, 0, 0), 8) ==
                   (Table_t{0, 1, 2, 1, 4, 1, 6, 1, 1, 1, 3, 1, 5, 1, 7, 1}),
               boost::test_tools::per_element());
    BOOST_CHECK_NO_THROW(ResolveLayout(Pipeline(4, 2, 2, 4), LayoutModelLimits{14, 8, 8, 0}));
}

// Each of Megatron-Core's rules on an uneven split (TransformerConfig.__post_init__), refused
// with the flag named.
BOOST_AUTO_TEST_CASE(bad_splits_are_refused_naming_the_flag)
{
    ExpectRefused(Pipeline(1, 1, 2, 0), 8, "--first-stage-layers 2 needs --pp > 1");
    ExpectRefused(Pipeline(1, 1, 0, 2), 8, "--last-stage-layers 2 needs --pp > 1");
    ExpectRefused(
        Pipeline(4, 1, 6, 6),
        10,
        "the model's 10 layers are fewer than --first-stage-layers 6 + --last-stage-layers 6");
    ExpectRefused(Pipeline(4, 2, 3, 2), 14, "--first-stage-layers 3 is not divisible by --vp 2");
    ExpectRefused(Pipeline(4, 2, 2, 3), 14, "--last-stage-layers 3 is not divisible by --vp 2");
    ExpectRefused(Pipeline(4, 1, 1, 2),
                  10,
                  "7 layers left by --first-stage-layers 1 + --last-stage-layers 2");
    ExpectRefused(Pipeline(4, 2, 2, 2),
                  10,
                  "the 3 layers of each of the 2 other stages (besides --first-stage-layers 2");
    ExpectRefused(Pipeline(4, 1, 5, 5), 10, "no layer is left for the 2 other stages");
    ExpectRefused(Pipeline(2, 1, 3, 4), 10, "leave 3 of the 10 layers to no stage");
    ExpectRefused(Pipeline(4, 1, 0, 0), 10, "10 layers are not divisible by --pp 4");
    ExpectRefused(Pipeline(4, 1, 2, 0), 10, "the 8 layers left by --first-stage-layers 2 are");
}

// Megatron-Core's other way (account_for_embedding_in_pipeline_split / _loss_): the embedding
// and the loss each take a layer's slot. 6 layers, pp 2, vp 2, both counted: 8 slots, 2 per
// virtual stage; v0 = embedding + layer 0, v1 = layers 1-2, v2 = 3-4, v3 = layer 5 + loss,
// with stage 0 holding v0 and v2, stage 1 v1 and v3.
BOOST_AUTO_TEST_CASE(embedding_and_loss_can_take_a_layers_place)
{
    ParallelLayout both = Pipeline(2, 2, 0, 0);
    both.embeddingInPipelineSplit = true;
    both.lossInPipelineSplit = true;
    BOOST_TEST(Table(both, 6) == (Table_t{0, 1, 3, 2, 1, 2, 5, 1}),
               boost::test_tools::per_element());
    CheckEveryLayerOnce(both, 6);
    // The embedding alone: 7 layers + 1 = 8 slots; v0 holds layer 0, v1 1-2, v2 3-4, v3 5-6.
    ParallelLayout embedding = Pipeline(2, 2, 0, 0);
    embedding.embeddingInPipelineSplit = true;
    BOOST_TEST(Table(embedding, 7) == (Table_t{0, 1, 3, 2, 1, 2, 5, 2}),
               boost::test_tools::per_element());
    // NeMo's Llama 3.1 405B (Megatron-Bridge's H100 recipe: TP8 PP8 CP2 VP8, both counted):
    // 126 + 2 = 128 slots, 2 per virtual stage; the first and last stages hold 15 layers, the
    // other six 16 (15 + 6 x 16 + 15 = 126).
    ParallelLayout llama405 = Pipeline(8, 8, 0, 0);
    llama405.embeddingInPipelineSplit = true;
    llama405.lossInPipelineSplit = true;
    BOOST_CHECK_NO_THROW(ResolveLayout(llama405, LayoutModelLimits{126, 8, 8, 0}));
    BOOST_TEST(StageLayers(llama405, 126, 0) == 15u);
    BOOST_TEST(StageLayers(llama405, 126, 3) == 16u);
    BOOST_TEST(StageLayers(llama405, 126, 7) == 15u);
    BOOST_TEST(ChunkLayers(llama405, 126, 1, 0).first == 1u);
    BOOST_TEST(ChunkLayers(llama405, 126, 7, 7).first == 125u);
    BOOST_TEST(ChunkLayers(llama405, 126, 7, 7).count == 1u);
    CheckEveryLayerOnce(llama405, 126);
}

// The embedding and loss slots: refused with an uneven split (Megatron-Core refuses both), with
// pp 1, and when the slots do not divide into pp x vp chunks.
BOOST_AUTO_TEST_CASE(bad_embedding_and_loss_slots_are_refused)
{
    ParallelLayout uneven = Pipeline(4, 1, 1, 3);
    uneven.lossInPipelineSplit = true;
    ExpectRefused(uneven, 10, "--account-for-loss-in-pipeline-split does not combine");
    ParallelLayout single = Pipeline(1, 1, 0, 0);
    single.embeddingInPipelineSplit = true;
    ExpectRefused(single, 8, "--account-for-embedding-in-pipeline-split needs --pp > 1");
    ParallelLayout odd = Pipeline(8, 8, 0, 0);
    odd.embeddingInPipelineSplit = true;
    ExpectRefused(odd,
                  126,
                  "the 126 layers + the embedding = 127 are not divisible by --pp 8 x --vp 8");
}

// The memory estimate counts each stage's own layers: with 10 layers split 1, 3, 3, 3 a middle
// stage holds 3 layers' weights, the first one layer's plus the embedding.
BOOST_AUTO_TEST_CASE(the_memory_estimate_counts_each_stages_layers)
{
    const TransformerModel model = chakra_test::GeluTransformer("toy", 10, 1024, 8, 32000);
    const ParallelLayout layout = ResolveLayout(Pipeline(4, 1, 1, 3), {10, 8, 8, 0});
    const uint64_t layer = LayerParametersOnGpu(model, layout, 0).dense;
    BOOST_TEST(EstimateGpuMemory(model, layout, 1).parameters == 3 * layer);
    BOOST_TEST(EstimateGpuMemory(model, layout, 0).parameters ==
               layer + EmbeddingParametersOnGpu(model, layout));
}

// Moving layers between stages changes neither the model nor its FLOPs: the step's model
// FLOPs and tokens are those of the even split.
BOOST_AUTO_TEST_CASE(the_split_leaves_the_model_flops_unchanged)
{
    LlmStepSpec spec;
    spec.model = chakra_test::GeluTransformer("toy", 16, 1024, 8, 32000);
    spec.layout = Pipeline(4, 2, 0, 0);
    const LlmStepPlan even = PlanLlmStep(spec);
    spec.layout = Pipeline(4, 2, 2, 6); // 2 | 4 | 4 | 6
    const LlmStepPlan uneven = PlanLlmStep(spec);
    BOOST_TEST(uneven.modelFlops == even.modelFlops);
    BOOST_TEST(uneven.tokens == even.tokens);
}

// A written step: rank s (pp 4, tp 1, dp 1) computes exactly the layers of stage s of the
// hand-drawn 1 | 3 | 3 | 3 split, each layer with the same number of compute nodes.
BOOST_AUTO_TEST_CASE(each_rank_computes_its_stages_layers)
{
    TempDir dir;
    LlmStepSpec spec;
    spec.model = chakra_test::GeluTransformer("toy", 10, 1024, 8, 32000);
    spec.layout = Pipeline(4, 1, 1, 3);
    WriteLlmStep(dir.File("step"), spec);
    const std::vector<std::set<uint32_t>> expected{{0}, {1, 2, 3}, {4, 5, 6}, {7, 8, 9}};
    size_t perLayer = 0;
    for (uint32_t rank = 0; rank < 4; ++rank)
    {
        std::set<uint32_t> layers;
        size_t nodes = 0;
        EtReader reader(dir.File("step." + std::to_string(rank) + ".et"));
        ChakraProtoMsg::Node node;
        while (reader.ReadNode(node))
        {
            const std::string& name = node.name();
            const auto at = name.rfind("_l");
            if (node.type() != ChakraProtoMsg::COMP_NODE || at == std::string::npos ||
                at + 2 >= name.size() || !std::isdigit(name[at + 2]))
            {
                continue;
            }
            layers.insert(static_cast<uint32_t>(std::stoul(name.substr(at + 2))));
            ++nodes;
        }
        BOOST_TEST((layers == expected[rank]), "rank " << rank);
        perLayer = perLayer == 0 ? nodes / layers.size() : perLayer;
        BOOST_TEST(nodes == perLayer * expected[rank].size(), "rank " << rank);
    }
}

BOOST_AUTO_TEST_SUITE_END()
