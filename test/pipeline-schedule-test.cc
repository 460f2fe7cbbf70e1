/*
 * PipelineOrder, NextVirtualStage, PreviousVirtualStage: 1F1B and interleaved 1F1B orders
 * against tables drawn by hand from Narayanan et al. SC'21 Fig. 4 and the rules of Megatron-LM's
 * megatron/core/pipeline_parallel/schedules.py, the completeness of every order, and a small
 * discrete-step simulation of all stages that must finish without deadlock.
 */
#define BOOST_TEST_MODULE pipeline_schedule
#include "ns3/pipeline-schedule.h"

#include <boost/test/unit_test.hpp>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <tuple>

using namespace ns3;

namespace
{

/** \return an order written as "F0 F1 B0 ..." (vp 1) or "F0.1 B0.1 ..." (micro-batch.chunk) */
std::string
Text(const std::vector<PipelineStep>& order, bool chunks)
{
    std::ostringstream os;
    for (size_t i = 0; i < order.size(); ++i)
    {
        os << (i ? " " : "") << (order[i].forward ? 'F' : 'B') << order[i].microBatch;
        if (chunks)
        {
            os << '.' << order[i].chunk;
        }
    }
    return os.str();
}

/**
 * Runs the orders of all stages in lock-step rounds: a stage runs its next pass when the pass
 * it depends on finished in an earlier round (forward of virtual stage v needs the forward of
 * v - 1; backward of v needs the backward of v + 1, or the forward of v for the last one).
 * \return true if every pass ran
 */
bool
RunsWithoutDeadlock(uint32_t pp, uint32_t vp, uint32_t m)
{
    std::vector<std::vector<PipelineStep>> orders;
    for (uint32_t s = 0; s < pp; ++s)
    {
        orders.push_back(PipelineOrder(pp, s, vp, m));
    }
    std::set<std::tuple<bool, uint32_t, uint32_t>> done; // (forward, micro-batch, virtual stage)
    std::vector<size_t> next(pp, 0);
    const uint32_t last = pp * vp - 1;
    for (bool progress = true; progress;)
    {
        progress = false;
        std::vector<std::tuple<bool, uint32_t, uint32_t>> finished;
        for (uint32_t s = 0; s < pp; ++s)
        {
            if (next[s] == orders[s].size())
            {
                continue;
            }
            const PipelineStep& st = orders[s][next[s]];
            const uint32_t v = st.chunk * pp + s;
            bool ready = st.forward ? (v == 0 || done.count({true, st.microBatch, v - 1}))
                                    : (v == last ? done.count({true, st.microBatch, v}) > 0
                                                 : done.count({false, st.microBatch, v + 1}) > 0);
            if (ready)
            {
                finished.emplace_back(st.forward, st.microBatch, v);
                ++next[s];
                progress = true;
            }
        }
        done.insert(finished.begin(), finished.end());
    }
    return done.size() == 2u * m * pp * vp;
}

} // namespace

BOOST_AUTO_TEST_SUITE(one_forward_one_backward)

// pp=4 m=4: stage s warms up with pp-s-1 forwards (SC'21 Fig. 4 top, drawn by hand).
BOOST_AUTO_TEST_CASE(pp4_m4_every_stage)
{
    const char* table[] = {"F0 F1 F2 F3 B0 B1 B2 B3",
                           "F0 F1 F2 B0 F3 B1 B2 B3",
                           "F0 F1 B0 F2 B1 F3 B2 B3",
                           "F0 B0 F1 B1 F2 B2 F3 B3"};
    for (uint32_t s = 0; s < 4; ++s)
    {
        BOOST_TEST(Text(PipelineOrder(4, s, 1, 4), false) == table[s]);
    }
}

// pp=4 m=8: the steady phase is longer; warm-up and cool-down are as for m=4.
BOOST_AUTO_TEST_CASE(pp4_m8_every_stage)
{
    const char* table[] = {"F0 F1 F2 F3 B0 F4 B1 F5 B2 F6 B3 F7 B4 B5 B6 B7",
                           "F0 F1 F2 B0 F3 B1 F4 B2 F5 B3 F6 B4 F7 B5 B6 B7",
                           "F0 F1 B0 F2 B1 F3 B2 F4 B3 F5 B4 F6 B5 F7 B6 B7",
                           "F0 B0 F1 B1 F2 B2 F3 B3 F4 B4 F5 B5 F6 B6 F7 B7"};
    for (uint32_t s = 0; s < 4; ++s)
    {
        BOOST_TEST(Text(PipelineOrder(4, s, 1, 8), false) == table[s]);
    }
}

// pp=2 with m=4 and m=8: one warm-up forward on stage 0, none on stage 1.
BOOST_AUTO_TEST_CASE(pp2_every_stage)
{
    BOOST_TEST(Text(PipelineOrder(2, 0, 1, 4), false) == "F0 F1 B0 F2 B1 F3 B2 B3");
    BOOST_TEST(Text(PipelineOrder(2, 1, 1, 4), false) == "F0 B0 F1 B1 F2 B2 F3 B3");
    BOOST_TEST(Text(PipelineOrder(2, 0, 1, 8), false) ==
               "F0 F1 B0 F2 B1 F3 B2 F4 B3 F5 B4 F6 B5 F7 B6 B7");
    BOOST_TEST(Text(PipelineOrder(2, 1, 1, 8), false) ==
               "F0 B0 F1 B1 F2 B2 F3 B3 F4 B4 F5 B5 F6 B6 F7 B7");
}

// Fewer micro-batches than stages: the warm-up is capped at m (all forwards, then backwards).
BOOST_AUTO_TEST_CASE(warmup_capped_at_micro_batches)
{
    BOOST_TEST(Text(PipelineOrder(4, 0, 1, 2), false) == "F0 F1 B0 B1");
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(interleaved)

// pp=2 vp=2 m=4, by hand: forward k runs chunk (k mod 4)/2 on micro-batch (k/4)*2 + k mod 2;
// backwards reverse the chunk. Warm-up: stage 0: (2-0-1)*2 + (2-1)*2 = 4; stage 1: 2.
BOOST_AUTO_TEST_CASE(pp2_vp2_m4)
{
    BOOST_TEST(Text(PipelineOrder(2, 0, 2, 4), true) ==
               "F0.0 F1.0 F0.1 F1.1 "                     // warm-up
               "F2.0 B0.1 F3.0 B1.1 F2.1 B0.0 F3.1 B1.0 " // steady
               "B2.1 B3.1 B2.0 B3.0");                    // cool-down
    BOOST_TEST(Text(PipelineOrder(2, 1, 2, 4), true) ==
               "F0.0 F1.0 "
               "F0.1 B0.1 F1.1 B1.1 F2.0 B0.0 F3.0 B1.0 F2.1 B2.1 F3.1 B3.1 "
               "B2.0 B3.0");
}

// pp=4 vp=2 m=8, by hand: forward k runs chunk (k mod 8)/4 on micro-batch (k/8)*4 + k mod 4.
// Warm-up of stage s: (4-s-1)*2 + 4 = 10, 8, 6, 4 of the 16 forwards.
BOOST_AUTO_TEST_CASE(pp4_vp2_m8)
{
    // Stage 3 (warm-up 4), written out in full.
    BOOST_TEST(Text(PipelineOrder(4, 3, 2, 8), true) ==
               "F0.0 F1.0 F2.0 F3.0 "
               "F0.1 B0.1 F1.1 B1.1 F2.1 B2.1 F3.1 B3.1 F4.0 B0.0 F5.0 B1.0 F6.0 B2.0 F7.0 B3.0 "
               "F4.1 B4.1 F5.1 B5.1 F6.1 B6.1 F7.1 B7.1 "
               "B4.0 B5.0 B6.0 B7.0");
    // Stage 0 (warm-up 10): the first ten forwards, then (F, B) pairs, then the last 10 B.
    BOOST_TEST(Text(PipelineOrder(4, 0, 2, 8), true) ==
               "F0.0 F1.0 F2.0 F3.0 F0.1 F1.1 F2.1 F3.1 F4.0 F5.0 "
               "F6.0 B0.1 F7.0 B1.1 F4.1 B2.1 F5.1 B3.1 F6.1 B0.0 F7.1 B1.0 "
               "B2.0 B3.0 B4.1 B5.1 B6.1 B7.1 B4.0 B5.0 B6.0 B7.0");
}

// m == pp: Megatron runs all forwards first (one group of micro-batches).
BOOST_AUTO_TEST_CASE(one_group_all_warmup)
{
    BOOST_TEST(Text(PipelineOrder(2, 1, 2, 2), true) == "F0.0 F1.0 F0.1 F1.1 B0.1 B1.1 B0.0 B1.0");
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(properties)

// Every order holds each (micro-batch, chunk) forward once and backward once, backward after.
BOOST_AUTO_TEST_CASE(each_pass_once_backward_after_forward)
{
    const uint32_t cases[][3] = {{1, 1, 3},
                                 {2, 1, 4},
                                 {4, 1, 8},
                                 {4, 1, 3},
                                 {2, 2, 4},
                                 {4, 2, 8},
                                 {4, 3, 12},
                                 {3, 2, 6},
                                 {2, 4, 6}};
    for (const auto& c : cases)
    {
        for (uint32_t s = 0; s < c[0]; ++s)
        {
            auto order = PipelineOrder(c[0], s, c[1], c[2]);
            BOOST_TEST(order.size() == 2u * c[1] * c[2]);
            std::set<std::pair<uint32_t, uint32_t>> fwd, bwd;
            for (const auto& st : order)
            {
                const std::pair<uint32_t, uint32_t> key{st.microBatch, st.chunk};
                BOOST_TEST((st.microBatch < c[2] && st.chunk < c[1]));
                if (st.forward)
                {
                    BOOST_TEST(fwd.insert(key).second);
                }
                else
                {
                    BOOST_TEST(fwd.count(key) == 1u);
                    BOOST_TEST(bwd.insert(key).second);
                }
            }
        }
    }
}

// All stages' orders together finish: no stage waits forever on a pass another stage runs later.
BOOST_AUTO_TEST_CASE(no_deadlock)
{
    const uint32_t cases[][3] = {{2, 1, 4},
                                 {4, 1, 8},
                                 {4, 1, 2},
                                 {2, 2, 4},
                                 {4, 2, 8},
                                 {4, 4, 16},
                                 {8, 2, 16},
                                 {3, 3, 9},
                                 {2, 2, 2}};
    for (const auto& c : cases)
    {
        BOOST_TEST(RunsWithoutDeadlock(c[0], c[1], c[2]), "pp " << c[0] << " vp " << c[1]);
    }
}

// Virtual stage v = chunk * pp + stage: forward output goes to v + 1, wrapping to stage 0.
BOOST_AUTO_TEST_CASE(virtual_stage_neighbours)
{
    using P = std::pair<uint32_t, uint32_t>;
    BOOST_TEST((NextVirtualStage(4, 2, 3, 0) == P{0, 1}));
    BOOST_TEST((NextVirtualStage(4, 2, 1, 1) == P{2, 1}));
    BOOST_TEST(!NextVirtualStage(4, 2, 3, 1).has_value());
    BOOST_TEST((PreviousVirtualStage(4, 2, 0, 1) == P{3, 0}));
    BOOST_TEST((PreviousVirtualStage(4, 2, 2, 0) == P{1, 0}));
    BOOST_TEST(!PreviousVirtualStage(4, 2, 0, 0).has_value());
    BOOST_TEST(!NextVirtualStage(1, 1, 0, 0).has_value());
}

// Bad input is an invalid_argument naming the flag.
BOOST_AUTO_TEST_CASE(bad_input_names_the_flag)
{
    auto says = [](const std::string& word) {
        return [word](const std::invalid_argument& e) {
            return std::string(e.what()).find(word) != std::string::npos;
        };
    };
    BOOST_CHECK_EXCEPTION(PipelineOrder(4, 4, 1, 4), std::invalid_argument, says("--pp"));
    BOOST_CHECK_EXCEPTION(PipelineOrder(1, 0, 2, 4), std::invalid_argument, says("--vp"));
    BOOST_CHECK_EXCEPTION(PipelineOrder(4, 0, 2, 6), std::invalid_argument, says("--pp 4"));
    BOOST_CHECK_EXCEPTION(PipelineOrder(0, 0, 1, 4), std::invalid_argument, says("--pp"));
    BOOST_CHECK_EXCEPTION(PipelineOrder(2, 0, 1, 0), std::invalid_argument, says("micro-batches"));
    BOOST_CHECK_EXCEPTION(NextVirtualStage(2, 2, 0, 2), std::invalid_argument, says("--vp"));
}

BOOST_AUTO_TEST_SUITE_END()
