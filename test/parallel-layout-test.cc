/*
 * ParallelLayout, ResolveLayout and MegatronRankOrder: every bad layout refused with its flag
 * named, dp derived, and ranks and groups against cases worked out by hand from Megatron-Core's
 * order "tp-cp-ep-dp-pp" (megatron/core/parallel_state.py): rank = tp + TP (cp + CP (dp + DP pp)).
 */
#define BOOST_TEST_MODULE parallel_layout
#include "ns3/parallel-layout.h"

#include <boost/test/unit_test.hpp>
#include <string>
#include <vector>

using namespace ns3;

namespace
{

/** A dense model of 32 layers, 32 heads and 8 K/V heads (a Llama-3-8B shape). */
const LayoutModelLimits kDense{32, 32, 8, 0};

/** A layout of \p gpus GPUs with tp, pp, cp and a 64-sequence batch of 4096 tokens. */
ParallelLayout
Layout(uint32_t gpus, uint32_t tp, uint32_t pp, uint32_t cp)
{
    ParallelLayout layout;
    layout.gpus = gpus;
    layout.tp = tp;
    layout.pp = pp;
    layout.cp = cp;
    layout.seq = 4096;
    layout.globalBatch = 64;
    return layout;
}

/** Checks that \p layout is refused with a message containing \p words. */
void
ExpectRefused(const ParallelLayout& layout,
              const LayoutModelLimits& model,
              const std::string& words)
{
    BOOST_TEST_CONTEXT(words)
    {
        BOOST_CHECK_EXCEPTION(ResolveLayout(layout, model),
                              std::invalid_argument,
                              [&](const std::invalid_argument& e) {
                                  const std::string what = e.what();
                                  BOOST_TEST_MESSAGE(what);
                                  return what.find(words) != std::string::npos &&
                                         what.rfind("llm: ", 0) == 0;
                              });
    }
}

using Groups = std::vector<std::vector<uint32_t>>;

} // namespace

BOOST_AUTO_TEST_SUITE(parallel_layout)

// dp is what is left of the GPUs after tp x pp x cp; micro-batches = gbs / (mbs x dp).
BOOST_AUTO_TEST_CASE(data_parallel_size_is_derived)
{
    const ParallelLayout resolved = ResolveLayout(Layout(64, 4, 2, 2), kDense);
    BOOST_TEST(resolved.dp == 4u);              // 64 / (4 x 2 x 2)
    BOOST_TEST(resolved.MicroBatches() == 16u); // 64 / (1 x 4)
    ParallelLayout given = Layout(64, 4, 2, 2);
    given.dp = 4;
    BOOST_TEST(ResolveLayout(given, kDense).dp == 4u);
}

// Each rule of the layout, with the flags it names.
BOOST_AUTO_TEST_CASE(bad_layouts_are_refused_naming_the_flag)
{
    ExpectRefused(Layout(12, 3, 1, 1), kDense, "--tp 3 does not divide the 32 attention heads");
    ExpectRefused(Layout(16, 16, 1, 1), kDense, "--tp 16 does not divide the 8 key/value heads");
    ExpectRefused(Layout(12, 2, 3, 1), kDense, "32 layers are not divisible by --pp 3");
    ExpectRefused(Layout(10, 4, 1, 1), kDense, "--ranks 10 is not a multiple of --tp 4");
    ParallelLayout dp = Layout(16, 2, 1, 1);
    dp.dp = 4;
    ExpectRefused(dp, kDense, "--dp 4 does not match --ranks 16");
    ParallelLayout ep = Layout(8, 1, 1, 1);
    ep.ep = 3;
    ExpectRefused(ep, {32, 32, 8, 8}, "--ep 3 does not divide the 8 experts");
    ep.ep = 2;
    ExpectRefused(ep, kDense, "--ep 2 needs a mixture-of-experts model");
    ParallelLayout wide = Layout(8, 2, 1, 1); // dp 4
    wide.sequenceParallel = true;
    wide.ep = 8;
    ExpectRefused(wide, {32, 32, 8, 64}, "--ep 8 does not divide dp x cp = 4");
    ParallelLayout batch = Layout(16, 1, 1, 1);
    batch.globalBatch = 24;
    ExpectRefused(batch, kDense, "--gbs 24 is not a multiple of --mbs 1 x dp 16");
    ParallelLayout interleaved = Layout(16, 1, 4, 1); // dp 4, 16 micro-batches
    interleaved.vp = 2;
    interleaved.globalBatch = 24; // 6 micro-batches: not a multiple of pp 4
    ExpectRefused(interleaved, kDense, "needs the micro-batches (6) to be a multiple of --pp 4");
    ParallelLayout flat = Layout(8, 1, 1, 1);
    flat.vp = 2;
    ExpectRefused(flat, kDense, "--vp 2 needs --pp > 1");
    ParallelLayout context = Layout(8, 1, 1, 8);
    context.seq = 4104; // not divisible by 2 x 8
    context.globalBatch = 1;
    ExpectRefused(context, kDense, "--seq 4104 is not divisible by 2 x --cp 8");
    ParallelLayout zero = Layout(8, 1, 1, 1);
    zero.zero = 4;
    ExpectRefused(zero, kDense, "--zero must be 0, 1, 2 or 3");
    zero.zero = 1;
    zero.fsdp = true;
    ExpectRefused(zero, kDense, "--fsdp is ZeRO-3's sharding");
}

// tp 2, cp 2, dp 2, pp 2 on 16 GPUs. Rank 5 = 1 + 2 (0 + 2 (1 + 2 x 0)): tp 1, cp 0, dp 1,
// stage 0. Its groups, each varying one coordinate: tensor {4, 5}; context {5, 7}; data
// {1, 5}; data x context {1, 3, 5, 7}; pipeline {5, 13}.
BOOST_AUTO_TEST_CASE(megatron_order_places_tp_fastest_and_pp_slowest)
{
    ParallelLayout layout = Layout(16, 2, 2, 2);
    layout.globalBatch = 2;
    const MegatronRankOrder order(ResolveLayout(layout, kDense));
    const RankCoordinates at = order.Coordinates(5);
    BOOST_TEST(at.tp == 1u);
    BOOST_TEST(at.cp == 0u);
    BOOST_TEST(at.dp == 1u);
    BOOST_TEST(at.pp == 0u);
    for (uint32_t rank = 0; rank < 16; ++rank)
    {
        BOOST_TEST(order.Rank(order.Coordinates(rank)) == rank);
    }
    BOOST_TEST((order.TensorGroups().at(order.TensorGroupOf(5)) == std::vector<uint32_t>{4, 5}));
    BOOST_TEST((order.ContextGroups().at(order.ContextGroupOf(5)) == std::vector<uint32_t>{5, 7}));
    BOOST_TEST((order.DataGroups().at(order.DataGroupOf(5)) == std::vector<uint32_t>{1, 5}));
    BOOST_TEST((order.DataContextGroups().at(order.DataContextGroupOf(5)) ==
                std::vector<uint32_t>{1, 3, 5, 7}));
    BOOST_TEST(
        (order.PipelineGroups().at(order.PipelineGroupOf(5)) == std::vector<uint32_t>{5, 13}));
    // Every kind partitions the 16 ranks.
    for (const Groups& groups : {order.TensorGroups(),
                                 order.ContextGroups(),
                                 order.DataGroups(),
                                 order.DataContextGroups(),
                                 order.PipelineGroups()})
    {
        std::vector<uint32_t> seen(16, 0);
        for (const auto& group : groups)
        {
            for (uint32_t rank : group)
            {
                ++seen.at(rank);
            }
        }
        BOOST_TEST((seen == std::vector<uint32_t>(16, 1)));
    }
}

// Experts: Megatron-Core's expert order "tp-ep-dp-pp" with expert tp = tp. On tp 2, dp 4,
// ep 2 (8 GPUs): rank = etp + 2 (ep + 2 edp). Rank 5 is etp 1, ep 0, edp 1: its expert group
// varies ep: {1 + 2 (0 + 2), 1 + 2 (1 + 2)} = {5, 7}; its expert data group varies edp:
// {1 + 2 (0 + 0), 1 + 2 (0 + 2)} = {1, 5}.
BOOST_AUTO_TEST_CASE(expert_groups_follow_megatron_core)
{
    ParallelLayout layout = Layout(8, 2, 1, 1);
    layout.sequenceParallel = true;
    layout.ep = 2;
    layout.globalBatch = 4;
    const MegatronRankOrder order(ResolveLayout(layout, {32, 32, 8, 8}));
    BOOST_TEST((order.ExpertGroups().at(order.ExpertGroupOf(5)) == std::vector<uint32_t>{5, 7}));
    BOOST_TEST(
        (order.ExpertDataGroups().at(order.ExpertDataGroupOf(5)) == std::vector<uint32_t>{1, 5}));
    BOOST_TEST((order.ExpertGroups() == Groups{{0, 2}, {1, 3}, {4, 6}, {5, 7}}));
}

// Expert tensor parallelism 1 (Megatron-Core's expert grid, megatron/core/parallel_state.py:
// expert_decoder_rank_generator, order "tp-ep-dp-pp" with tp = etp): on tp 2, dp 4, ep 2,
// etp 1 (8 GPUs) the stage's ranks are read as rank = ep + 2 edp, EDP = 8 / (1 x 2) = 4.
// Expert groups vary ep: {0, 1}, {2, 3}, {4, 5}, {6, 7}, so an expert group is a tensor
// group here; expert data groups vary edp: {0, 2, 4, 6}, {1, 3, 5, 7}; each rank is its own
// expert tensor group.
BOOST_AUTO_TEST_CASE(expert_groups_with_etp_1_span_the_tensor_ranks)
{
    ParallelLayout layout = Layout(8, 2, 1, 1);
    layout.ep = 2;
    layout.etp = 1;
    layout.sequenceParallel = true;
    layout.globalBatch = 4;
    const ParallelLayout resolved = ResolveLayout(layout, {32, 32, 8, 8});
    BOOST_TEST(resolved.ExpertDataParallel() == 4u);
    const MegatronRankOrder order(resolved);
    BOOST_TEST((order.ExpertGroups() == Groups{{0, 1}, {2, 3}, {4, 5}, {6, 7}}));
    BOOST_TEST((order.ExpertDataGroups() == Groups{{0, 2, 4, 6}, {1, 3, 5, 7}}));
    BOOST_TEST((order.ExpertTensorGroups() == Groups{{0}, {1}, {2}, {3}, {4}, {5}, {6}, {7}}));
    BOOST_TEST((order.ExpertGroups().at(order.ExpertGroupOf(5)) == std::vector<uint32_t>{4, 5}));
    BOOST_TEST((order.ExpertDataGroups().at(order.ExpertDataGroupOf(5)) ==
                std::vector<uint32_t>{1, 3, 5, 7}));
}

// Expert tensor parallelism between 1 and tp: tp 4, dp 2, pp 2, ep 4, etp 2 (16 GPUs). Within a
// stage of 8 ranks, rank = etp + 2 (ep + 4 edp) with EDP = 8 / (2 x 4) = 1; stage 1 adds 8.
// Expert groups vary ep (stride 2): {0, 2, 4, 6}, {1, 3, 5, 7}, then {8, ...}, {9, ...};
// expert tensor groups are pairs of consecutive ranks; each expert data group is one rank.
BOOST_AUTO_TEST_CASE(expert_groups_with_etp_2_of_tp_4)
{
    ParallelLayout layout = Layout(16, 4, 2, 1);
    layout.ep = 4;
    layout.etp = 2;
    layout.sequenceParallel = true;
    layout.globalBatch = 4;
    const ParallelLayout resolved = ResolveLayout(layout, {32, 32, 8, 8});
    BOOST_TEST(resolved.dp == 2u);
    BOOST_TEST(resolved.ExpertDataParallel() == 1u);
    const MegatronRankOrder order(resolved);
    BOOST_TEST((order.ExpertGroups() ==
                Groups{{0, 2, 4, 6}, {1, 3, 5, 7}, {8, 10, 12, 14}, {9, 11, 13, 15}}));
    BOOST_TEST((order.ExpertTensorGroups() ==
                Groups{{0, 1}, {2, 3}, {4, 5}, {6, 7}, {8, 9}, {10, 11}, {12, 13}, {14, 15}}));
    BOOST_TEST(order.ExpertDataGroups().size() == 16u);
    BOOST_TEST(
        (order.ExpertDataGroups().at(order.ExpertDataGroupOf(9)) == std::vector<uint32_t>{9}));
}

// --etp left out is tp, Megatron's default (megatron/training/arguments.py): the groups are the
// ones the expert order gives with expert tp = tp (expert_groups_follow_megatron_core), and
// --etp equal to --tp says the same.
BOOST_AUTO_TEST_CASE(etp_defaults_to_tp)
{
    ParallelLayout layout = Layout(8, 2, 1, 1);
    layout.sequenceParallel = true;
    layout.ep = 2;
    layout.globalBatch = 4;
    const ParallelLayout resolved = ResolveLayout(layout, {32, 32, 8, 8});
    BOOST_TEST(resolved.etp == 2u);
    // With tp > 1 each rank routes its own sequence shard, whatever etp.
    BOOST_TEST(resolved.RoutesOwnShard());
    layout.etp = 2;
    const MegatronRankOrder given(ResolveLayout(layout, {32, 32, 8, 8}));
    BOOST_TEST((given.ExpertGroups() == Groups{{0, 2}, {1, 3}, {4, 6}, {5, 7}}));
    BOOST_TEST((given.ExpertDataGroups() == MegatronRankOrder(resolved).ExpertDataGroups()));
}

// Each --etp mistake is refused naming the flag; with etp 1 the expert-parallel group may lie
// inside the tensor group (ep 8 with dp 1), as Megatron-Core's expert grid allows.
BOOST_AUTO_TEST_CASE(bad_etp_layouts_are_refused)
{
    const LayoutModelLimits moe{32, 32, 8, 64};
    ParallelLayout layout = Layout(16, 4, 1, 1);
    layout.sequenceParallel = true;
    layout.globalBatch = 4;
    layout.ep = 2;
    layout.etp = 3;
    ExpectRefused(layout, moe, "--etp 3 does not divide --tp 4");
    layout.etp = 1;
    layout.ep = 32;
    ExpectRefused(layout, moe, "--etp 1 x --ep 32 = 32 does not divide tp x cp x dp = 16");
    layout.ep = 8;
    layout.sequenceParallel = false;
    ExpectRefused(layout, moe, "a mixture-of-experts model with --tp 4 needs --sequence-parallel");
    layout.etp = 0; // the default, etp = tp: Megatron-Core's MoE layer refuses it just the same
    layout.ep = 2;
    ExpectRefused(layout, moe, "a mixture-of-experts model with --tp 4 needs --sequence-parallel");
    layout.sequenceParallel = true;
    layout.etp = 1;
    ParallelLayout dense = Layout(8, 2, 1, 1);
    dense.etp = 1;
    ExpectRefused(dense, kDense, "--etp 1 needs a mixture-of-experts model");
    ParallelLayout inside = Layout(8, 8, 1, 1);
    inside.sequenceParallel = true;
    inside.globalBatch = 1;
    inside.ep = 8;
    inside.etp = 1;
    const MegatronRankOrder order(ResolveLayout(inside, moe));
    BOOST_TEST((order.ExpertGroups() == Groups{{0, 1, 2, 3, 4, 5, 6, 7}}));
}

BOOST_AUTO_TEST_SUITE_END()
