/*
 * PAT (Parallel Aggregated Trees) in the NCCL model (issue 27): the pass shapes and messages
 * against NCCL's sizing by hand; every rank's all-gather and reduce-scatter executed as a
 * message-passing system (each all-gather send holds the data it forwards, each reduce-scatter
 * result sums every rank exactly once, no deadlock, a logarithmic critical path for small
 * shares); NCCL 2.30.7's tuning rows for PAT by hand; simulated calls against closed forms.
 */
#define BOOST_TEST_MODULE pat
#include "chakra-test-data.h"
#include "nccl-schedules.h"
#include "simulation-util.h"

#include "ns3/chakra-module.h"
#include "ns3/core-module.h"

#include <boost/test/unit_test.hpp>
#include <cmath>
#include <map>
#include <numeric>
#include <set>
#include <stdexcept>

using namespace ns3;

namespace
{

/** \return the offsets of every message, in order */
std::vector<std::vector<uint32_t>>
OffsetsOf(const PatShape& shape)
{
    std::vector<std::vector<uint32_t>> out;
    for (const PatMessage& m : PatMessages(shape))
    {
        out.push_back(m.offsets);
    }
    return out;
}

/** What an executed PAT call showed. */
struct Execution
{
    uint32_t longestChain{0};        //!< the most messages one after another (a send's depth)
    std::vector<uint64_t> bytesSent; //!< per rank
    std::vector<uint32_t> sends;     //!< per rank
};

/**
 * Runs every rank's PAT schedule as a message-passing system (a send fires once its deps
 * have completed, a receive completes once its message was sent) and checks what the messages
 * carry. All-gather: a message of offsets S to rank q carries the data of ranks q + s; the
 * sender must hold each (its own, or brought by a receive its send waited for, directly or
 * not), and each rank ends with every other rank's data of every pass once. Reduce-scatter: a
 * message of S from rank x carries the partial sums bound for x + s, x's own contribution
 * plus the partials for that rank it received before; each rank's result, its own plus every
 * partial it received for itself, must count every rank exactly once.
 */
Execution
Execute(PatKind kind, uint32_t n, uint64_t share, uint64_t chunk)
{
    const PatShape shape = PatShape::Make(n, chunk, share);
    const std::vector<PatMessage> messages = PatMessages(shape);
    const auto count = static_cast<int64_t>(messages.size());
    std::vector<uint32_t> members(n);
    std::iota(members.begin(), members.end(), 0u);
    std::vector<std::vector<CollectiveOp>> ops(n);
    for (uint32_t me = 0; me < n; ++me)
    {
        // The schedule the model runs: by formula over the shared plan.
        ops[me] = ListOps(*BuildPat(MakePatPlan(kind, shape), nullptr, me, share, chunk, 8, 0));
    }
    // A payload: (key, contributor) -> count; key = the origin (all-gather, contributor the
    // same) or the destination of a partial sum (reduce-scatter).
    using Payload = std::map<std::pair<uint32_t, uint32_t>, uint32_t>;
    std::map<std::tuple<uint32_t, uint32_t, int64_t>, std::pair<Payload, uint32_t>> sent;
    std::vector<std::vector<bool>> done(n);
    std::vector<std::vector<Payload>> payload(n);
    std::vector<std::vector<uint32_t>> depth(n);
    std::vector<std::vector<std::set<uint32_t>>> before(n); // receives a op waited for
    for (uint32_t r = 0; r < n; ++r)
    {
        done[r].assign(ops[r].size(), false);
        payload[r].resize(ops[r].size());
        depth[r].assign(ops[r].size(), 0);
        before[r].resize(ops[r].size());
    }
    Execution result;
    result.bytesSent.assign(n, 0);
    result.sends.assign(n, 0);
    bool progress = true;
    while (progress)
    {
        progress = false;
        for (uint32_t r = 0; r < n; ++r)
        {
            for (std::size_t i = 0; i < ops[r].size(); ++i)
            {
                const CollectiveOp& op = ops[r][i];
                if (done[r][i])
                {
                    continue;
                }
                if (!op.send)
                {
                    const auto it = sent.find({op.peer, r, op.tag});
                    if (it != sent.end())
                    {
                        payload[r][i] = it->second.first;
                        depth[r][i] = it->second.second;
                        done[r][i] = progress = true;
                    }
                    continue;
                }
                bool ready = true;
                for (uint32_t d : op.deps)
                {
                    ready = ready && done[r][d];
                }
                if (!ready)
                {
                    continue;
                }
                std::set<uint32_t> waited;
                uint32_t chain = 0;
                for (uint32_t d : op.deps)
                {
                    waited.insert(before[r][d].begin(), before[r][d].end());
                    if (!ops[r][d].send)
                    {
                        waited.insert(d);
                        chain = std::max(chain, depth[r][d]);
                    }
                }
                before[r][i] = waited;
                const auto pass = op.tag / count;
                const PatMessage& m = messages[op.tag % count];
                Payload out;
                for (uint32_t s : m.offsets)
                {
                    if (kind == PatKind::ALL_GATHER)
                    {
                        const uint32_t origin = (op.peer + s) % n;
                        bool held = origin == r;
                        for (uint32_t w : waited)
                        {
                            held = held || (ops[r][w].tag / count == pass &&
                                            payload[r][w].count({origin, origin}) > 0);
                        }
                        BOOST_TEST(held,
                                   "rank " << r << " forwards rank " << origin
                                           << "'s data before it has it (pass " << pass << ")");
                        out[{origin, origin}] = 1;
                        continue;
                    }
                    const uint32_t destination = (r + s) % n;
                    ++out[{destination, r}];
                    for (uint32_t w : waited)
                    {
                        if (ops[r][w].tag / count != pass)
                        {
                            continue;
                        }
                        for (const auto& [key, times] : payload[r][w])
                        {
                            if (key.first == destination)
                            {
                                out[key] += times;
                            }
                        }
                    }
                }
                sent[{r, op.peer, op.tag}] = {out, chain + 1};
                result.longestChain = std::max(result.longestChain, chain + 1);
                result.bytesSent[r] += op.bytes;
                ++result.sends[r];
                done[r][i] = progress = true;
            }
        }
    }
    const auto passes = static_cast<int64_t>((share + chunk - 1) / chunk);
    for (uint32_t r = 0; r < n; ++r)
    {
        for (std::size_t i = 0; i < ops[r].size(); ++i)
        {
            BOOST_TEST(done[r][i],
                       "rank " << r << " op " << i << " never completes (n " << n << ")");
        }
        for (int64_t pass = 0; pass < passes; ++pass)
        {
            // Every rank once: its own part plus what this rank received for itself.
            std::map<uint32_t, uint32_t> counted{{r, 1}};
            for (std::size_t i = 0; i < ops[r].size(); ++i)
            {
                if (ops[r][i].send || ops[r][i].tag / count != pass)
                {
                    continue;
                }
                for (const auto& [key, times] : payload[r][i])
                {
                    if (kind == PatKind::ALL_GATHER)
                    {
                        counted[key.first] += times;
                    }
                    else if (key.first == r)
                    {
                        counted[key.second] += times;
                    }
                }
            }
            BOOST_TEST(counted.size() == n, "rank " << r << " pass " << pass << " of n " << n);
            for (const auto& [who, times] : counted)
            {
                BOOST_TEST(times == 1u,
                           "rank " << r << " counts rank " << who << " " << times << " times");
            }
        }
    }
    return result;
}

/** n nodes of one H100 each as NCCL sees them: 16 channels, a 400 Gb/s NIC (50 GB/s). */
NcclTuningConfig
OneGpuNodes(uint32_t nodes, uint32_t ranksPerNode = 1)
{
    NcclTuningConfig config;
    config.nodes = nodes;
    config.ranksPerNode = ranksPerNode;
    config.generation = NcclGpuGeneration::HOPPER;
    config.channels = 16;
    config.intraBandwidth = 18 * 20.6;
    config.interBandwidth = 50.0 * ranksPerNode;
    return config;
}

} // namespace

BOOST_AUTO_TEST_CASE(shapes_by_hand)
{
    // 8 ranks, a 4 KiB share, 512 KiB chunks: 512/4 >= 2 at aggFactor 1 and 2 (64 >= 2), so
    // it doubles to 4 = n/2 and stops; postFreq 4, aggDelta 8/4 = 2. Messages: s = 4 (dim 2),
    // then 2 and 6 (dim 1), then the odd offsets (dim 0): log2(8) messages of 1, 2, 4 slices.
    PatShape small = PatShape::Make(8, 512 << 10, 4 << 10);
    BOOST_TEST(small.pow2 == 8u);
    BOOST_TEST(small.aggFactor == 4u);
    BOOST_TEST(small.postFreq == 4u);
    BOOST_TEST(small.aggDelta == 2u);
    const std::vector<std::vector<uint32_t>> smallWanted{{4}, {2, 6}, {1, 3, 5, 7}};
    BOOST_TEST((OffsetsOf(small) == smallWanted));
    BOOST_TEST(PatMessages(small)[1].dim == 1u);
    // A 1 MiB share does not aggregate (postFreq 1); the depth of NCCL_STEPS then doubles
    // aggFactor up to n/2 = 4: one offset a message, n - 1 messages.
    PatShape large = PatShape::Make(8, 512 << 10, 1 << 20);
    BOOST_TEST(large.postFreq == 1u);
    BOOST_TEST(large.aggFactor == 4u);
    const std::vector<std::vector<uint32_t>> largeWanted{{4}, {2}, {6}, {1}, {3}, {5}, {7}};
    BOOST_TEST((OffsetsOf(large) == largeWanted));
    // 6 ranks (pow2 8): the offsets 6 and 7 do not exist.
    const std::vector<std::vector<uint32_t>> sixWanted{{4}, {2}, {1, 3, 5}};
    BOOST_TEST((OffsetsOf(PatShape::Make(6, 512 << 10, 1 << 10)) == sixWanted));
    // 3 ranks: n/2 = 1, no aggregation, aggDelta 4: s = 1, then s = 2.
    const std::vector<std::vector<uint32_t>> threeWanted{{1}, {2}};
    BOOST_TEST((OffsetsOf(PatShape::Make(3, 512 << 10, 1 << 10)) == threeWanted));
    // 2 ranks: one message.
    BOOST_TEST(PatMessages(PatShape::Make(2, 512 << 10, 1 << 10)).size() == 1u);
    BOOST_CHECK_THROW(PatShape::Make(1, 512, 8), std::invalid_argument);
    BOOST_CHECK_THROW(PatShape::Make(4, 0, 8), std::invalid_argument);
    BOOST_CHECK_THROW(PatShape::Make(4, 512, 0), std::invalid_argument);
}

BOOST_AUTO_TEST_CASE(chunks_by_hand)
{
    // NCCL's rule: 512 KiB halved while above 64 KiB and chunk x channels x 32 (all-gather)
    // or 16 (reduce-scatter) exceeds the call: 64 MiB on 16 channels -> 128 KiB (all-gather),
    // 256 KiB (reduce-scatter); 1 GiB keeps 512 KiB; 1 KiB stops at 64 KiB.
    const uint64_t step = 512 << 10;
    BOOST_TEST(PatChunkBytes(PatKind::ALL_GATHER, step, 16, 64 << 20) == uint64_t(128) << 10);
    BOOST_TEST(PatChunkBytes(PatKind::REDUCE_SCATTER, step, 16, 64 << 20) == uint64_t(256) << 10);
    BOOST_TEST(PatChunkBytes(PatKind::ALL_GATHER, step, 16, uint64_t(1) << 30) == step);
    BOOST_TEST(PatChunkBytes(PatKind::ALL_GATHER, step, 1, 1024) == uint64_t(64) << 10);
}

BOOST_AUTO_TEST_CASE(every_rank_gets_every_share_once)
{
    const uint64_t chunk = 64 << 10;
    for (const PatKind kind : {PatKind::ALL_GATHER, PatKind::REDUCE_SCATTER})
    {
        for (uint32_t n : {2u, 3u, 5u, 6u, 8u, 13u, 16u, 32u})
        {
            BOOST_TEST_CONTEXT("kind " << static_cast<int>(kind) << ", n " << n)
            {
                // A small share: one pass, aggregated; a large one: 4 passes of one slice a
                // message (the last shorter).
                const Execution small = Execute(kind, n, 1 << 10, chunk);
                const Execution large = Execute(kind, n, 3 * chunk + 100, chunk);
                // Aggregated, a pass of 2^k ranks is k messages a rank, one after another.
                // Other counts by hand from NCCL's sizing (aggFactor stops below n / 2):
                // 3 ranks {1} {2}; 5 ranks {4} {1} {2} {3} (3 after 2); 6 ranks {4} {2}
                // {1,3,5}; 13 ranks {8} {4,12} {2,6,10} {odd}, each after the one before.
                const std::map<uint32_t, std::pair<uint32_t, uint32_t>> sendsAndChain{{2, {1, 1}},
                                                                                      {3, {2, 1}},
                                                                                      {5, {4, 2}},
                                                                                      {6, {3, 2}},
                                                                                      {8, {3, 3}},
                                                                                      {13, {4, 4}},
                                                                                      {16, {4, 4}},
                                                                                      {32, {5, 5}}};
                BOOST_TEST(small.longestChain == sendsAndChain.at(n).second);
                for (uint32_t r = 0; r < n; ++r)
                {
                    BOOST_TEST(small.sends[r] == sendsAndChain.at(n).first);
                    // Bandwidth-optimal: every rank sends n - 1 shares, whatever the shape.
                    BOOST_TEST(small.bytesSent[r] == uint64_t(n - 1) * (1 << 10));
                    BOOST_TEST(large.bytesSent[r] == uint64_t(n - 1) * (3 * chunk + 100));
                    BOOST_TEST(large.sends[r] == 4 * (n - 1));
                }
            }
        }
    }
}

BOOST_AUTO_TEST_CASE(schedule_checks_its_arguments)
{
    const PatShape shape = PatShape::Make(4, 1024, 64);
    const std::vector<uint32_t> members{0, 1, 2, 3};
    const auto kind = PatKind::ALL_GATHER;
    BOOST_CHECK_THROW(BuildPatList(kind, shape, {0, 1, 2}, 0, 64, 1024, 8, 0),
                      std::invalid_argument);
    BOOST_CHECK_THROW(BuildPatList(kind, shape, members, 4, 64, 1024, 8, 0), std::invalid_argument);
    BOOST_CHECK_THROW(BuildPatList(kind, shape, members, 0, 64, 1024, 0, 0), std::invalid_argument);
    BOOST_CHECK_THROW(BuildPatList(kind, shape, members, 0, 0, 1024, 8, 0), std::invalid_argument);
    const auto plan = MakePatPlan(kind, shape);
    const auto three =
        std::make_shared<const std::vector<uint32_t>>(std::vector<uint32_t>{0, 1, 2});
    BOOST_CHECK_THROW(BuildPat(nullptr, nullptr, 0, 64, 1024, 8, 0), std::invalid_argument);
    BOOST_CHECK_THROW(BuildPat(plan, three, 0, 64, 1024, 8, 0), std::invalid_argument);
    BOOST_CHECK_THROW(BuildPat(plan, nullptr, 4, 64, 1024, 8, 0), std::invalid_argument);
    BOOST_CHECK_THROW(BuildPat(plan, nullptr, 0, 64, 1024, 0, 0), std::invalid_argument);
    BOOST_CHECK_THROW(BuildPat(plan, nullptr, 0, 0, 1024, 8, 0), std::invalid_argument);
}

// The schedule the model runs (BuildPat: formulas over a plan the ranks share) against the
// list it replaced (BuildPatList, whose ops the execution checks above also hold): the same
// ops in the same order, with the same dependencies, dependents, tags, matching of arrivals
// and first sends, for both functions, every n from 2 to 64, one and several passes, NCCL's
// 8 slots a dimension and 2, and members that are not in rank order.
BOOST_AUTO_TEST_CASE(lazy_schedules_match_the_lists)
{
    const uint64_t chunk = 64 << 10;
    for (const PatKind kind : {PatKind::ALL_GATHER, PatKind::REDUCE_SCATTER})
    {
        for (uint32_t n = 2; n <= 64; ++n)
        {
            std::vector<uint32_t> reversed(n);
            for (uint32_t p = 0; p < n; ++p)
            {
                reversed[p] = n - 1 - p;
            }
            for (const uint64_t share : {uint64_t(1) << 10, 3 * chunk + 100})
            {
                const PatShape shape = PatShape::Make(n, chunk, share);
                const auto plan = MakePatPlan(kind, shape);
                for (const uint32_t window : {8u, 2u})
                {
                    for (const uint32_t me : {0u, 1u % n, n / 2, n - 1})
                    {
                        BOOST_TEST_CONTEXT("kind " << static_cast<int>(kind) << ", n " << n
                                                   << ", share " << share << ", window " << window
                                                   << ", rank " << me)
                        {
                            const bool permuted = me == n / 2;
                            std::vector<uint32_t> members(n);
                            std::iota(members.begin(), members.end(), 0u);
                            if (permuted)
                            {
                                members = reversed;
                            }
                            const auto list =
                                BuildPatList(kind, shape, members, me, share, chunk, window, 5);
                            const auto lazy = BuildPat(
                                plan,
                                permuted ? std::make_shared<const std::vector<uint32_t>>(members)
                                         : nullptr,
                                me,
                                share,
                                chunk,
                                window,
                                5);
                            const auto expected = ListOps(*list);
                            const auto got = ListOps(*lazy);
                            BOOST_TEST_REQUIRE(got.size() == expected.size());
                            for (uint32_t op = 0; op < got.size(); ++op)
                            {
                                BOOST_TEST_REQUIRE(got[op].send == expected[op].send);
                                BOOST_TEST_REQUIRE(got[op].peer == expected[op].peer);
                                BOOST_TEST_REQUIRE(got[op].bytes == expected[op].bytes);
                                BOOST_TEST_REQUIRE(got[op].tag == expected[op].tag);
                                BOOST_TEST_REQUIRE(got[op].deps == expected[op].deps);
                                std::vector<uint32_t> a;
                                std::vector<uint32_t> b;
                                for (uint32_t j = 0; j < lazy->DependentCount(op); ++j)
                                {
                                    a.push_back(lazy->Dependent(op, j));
                                }
                                for (uint32_t j = 0; j < list->DependentCount(op); ++j)
                                {
                                    b.push_back(list->Dependent(op, j));
                                }
                                BOOST_TEST_REQUIRE(a == b);
                                if (!got[op].send)
                                {
                                    const auto peer = got[op].peer;
                                    const auto tag = got[op].tag;
                                    const uint32_t none = CollectiveSchedule::kNone;
                                    BOOST_TEST_REQUIRE(lazy->NextRecv(peer, tag, none) ==
                                                       list->NextRecv(peer, tag, none));
                                    BOOST_TEST_REQUIRE(lazy->NextRecv(peer, tag, op) ==
                                                       list->NextRecv(peer, tag, op));
                                    BOOST_TEST_REQUIRE(lazy->NextRecv(peer + 1, tag, none) ==
                                                       list->NextRecv(peer + 1, tag, none));
                                }
                            }
                            BOOST_TEST(lazy->NextRecv(0, -1, CollectiveSchedule::kNone) ==
                                       CollectiveSchedule::kNone);
                            std::vector<uint32_t> lazySends;
                            std::vector<uint32_t> listSends;
                            BOOST_TEST(lazy->InitialSends(lazySends) ==
                                       list->InitialSends(listSends));
                            BOOST_TEST(lazySends == listSends);
                        }
                    }
                }
            }
        }
    }
}

BOOST_AUTO_TEST_CASE(tuning_rows_by_hand)
{
    // NCCL 2.30.7 tuning.cc, 16 nodes x 1 H100, 16 channels of 50 / 16 GB/s: PAT 16 x 3.125 x
    // 0.75 = 37.5 GB/s (no bus-to-algorithm conversion); latency 8 + 16 x 2.8 + log2(16) x
    // 14 / 3.5 = 68.8 us (one GPU a node: Tree Simple's network hop, 14 us).
    const NcclTuningModel model(OneGpuNodes(16));
    const auto ag = NcclFunction::ALL_GATHER;
    const auto rs = NcclFunction::REDUCE_SCATTER;
    const auto simple = NcclProtocol::SIMPLE;
    for (const auto f : {ag, rs})
    {
        BOOST_TEST(model.Bandwidth(f, NcclAlgorithm::PAT, simple) == 37.5,
                   boost::test_tools::tolerance(1e-9));
        BOOST_TEST(model.Latency(f, NcclAlgorithm::PAT, simple) == 68.8,
                   boost::test_tools::tolerance(1e-9));
        BOOST_TEST(model.Bandwidth(f, NcclAlgorithm::PAT, NcclProtocol::LL) == 0.0);
        BOOST_TEST(model.Bandwidth(f, NcclAlgorithm::PAT, NcclProtocol::LL128) == 0.0);
    }
    BOOST_TEST(model.Bandwidth(NcclFunction::ALL_REDUCE, NcclAlgorithm::PAT, simple) == 0.0);
    BOOST_TEST(model.Bandwidth(NcclFunction::BROADCAST, NcclAlgorithm::PAT, simple) == 0.0);
    // The schedule pays the linear part once and 4 us a message.
    const NcclStepLatencies steps = model.StepLatencies(ag, NcclAlgorithm::PAT, simple);
    BOOST_TEST(steps.base == 52.8, boost::test_tools::tolerance(1e-9));
    BOOST_TEST(steps.inter == 4.0, boost::test_tools::tolerance(1e-9));
    // The choice against the ring (15 network steps: Simple 8.4 + 15 x 14 = 218.4 us at 50 x
    // 16/15 GB/s; LL 6.6 + 15 x 5 = 81.6 us at 20.4 x 16/15): PAT at 1 MiB (96.8 us against
    // LL's 129.8), the ring at 1 GiB (PAT 28,701 us, Ring Simple 20,351 us).
    const NcclChoice mid = model.Choose(ag, 1 << 20);
    BOOST_TEST((mid.algorithm == NcclAlgorithm::PAT));
    BOOST_TEST(mid.time == 68.8 + 1048576.0 / 37500.0, boost::test_tools::tolerance(1e-9));
    BOOST_TEST((model.Choose(ag, uint64_t(1) << 30).algorithm == NcclAlgorithm::RING));
    BOOST_TEST((model.Choose(rs, 1 << 20).algorithm == NcclAlgorithm::PAT));
}

BOOST_AUTO_TEST_CASE(only_with_one_gpu_a_node)
{
    const auto ag = NcclFunction::ALL_GATHER;
    // 8 GPUs a node: no PAT, and forcing it is an error that says why.
    const NcclTuningModel eight(OneGpuNodes(4, 8));
    BOOST_TEST(eight.Bandwidth(ag, NcclAlgorithm::PAT, NcclProtocol::SIMPLE) == 0.0);
    const NcclTuningModel forced(OneGpuNodes(4, 8), "PAT");
    try
    {
        forced.Choose(ag, 1 << 20);
        BOOST_ERROR("PAT chosen with 8 GPUs a node");
    }
    catch (const std::invalid_argument& e)
    {
        BOOST_TEST(std::string(e.what()).find("PAT AllGather and ReduceScatter with one GPU a "
                                              "node") != std::string::npos,
                   e.what());
    }
    // NCCL_ALGO=PAT and NCCL_PROTO=LL leave nothing; ^PAT leaves the ring.
    BOOST_CHECK_THROW(NcclTuningModel(OneGpuNodes(16), "PAT", "LL").Choose(ag, 1024),
                      std::invalid_argument);
    BOOST_TEST((NcclTuningModel(OneGpuNodes(16), "^PAT").Choose(ag, 1 << 20).algorithm ==
                NcclAlgorithm::RING));
    // And the NCCL model runs it only there: 2 x 4 GPUs all-gather never plans PAT.
    Ptr<NcclCollective> nccl = CreateObject<NcclCollective>();
    const NcclPlan plan =
        nccl->Plan(chakra_test::Request(ChakraProtoMsg::ALL_GATHER, 2, 4, 4 << 10));
    BOOST_TEST((plan.ran != NcclAlgorithm::PAT));
    const NcclPlan one =
        nccl->Plan(chakra_test::Request(ChakraProtoMsg::ALL_GATHER, 16, 1, 4 << 10));
    BOOST_TEST((one.ran == NcclAlgorithm::PAT));
    BOOST_TEST(one.chunkBytes == uint64_t(64) << 10); // 64 KiB total: the rule's floor
}

BOOST_AUTO_TEST_CASE(simulated_against_closed_forms)
{
    // 8 hosts x 1 H100, single switch, 400 Gb/s NICs (50 GB/s), 500 ns a link, flow model.
    // NCCL's latency: 8 + 8 x 2.8 = 30.4 us once, then 14 / 3.5 = 4 us a message.
    const double base = 30.4;
    const double hop = 4.0;
    const double rate = 50e3 * kNcclPatEfficiency; // bytes per us on the wire, PAT's 0.75
    const double path = 2 * 0.5;                   // two links of 500 ns
    // NCCL_ALGO=PAT: on 8 nodes NCCL's tuning prefers the ring (LL at 32 KiB: 43.0 us against
    // PAT's 43.3; Simple from a few MiB).
    Config::SetDefault("ns3::NcclCollective::NcclAlgo", StringValue("PAT"));
    // Small: 4 KiB a rank (32 KiB in all: one channel, a 64 KiB chunk, one aggregated pass):
    // 3 messages one after another, of 4, 8 and 16 KiB.
    ChakraReport small = chakra_test::RunNcclCall(ChakraProtoMsg::ALL_GATHER, 8, 1, 4 << 10);
    BOOST_REQUIRE(small.AllFinished());
    const double smallUs = small.GetIterationTime().GetMicroSeconds();
    const double smallClosed = base + 3 * (hop + path) + (28 << 10) / rate;
    BOOST_TEST_MESSAGE("PAT all-gather 4 KiB: " << smallUs << " us, closed form " << smallClosed);
    BOOST_TEST(std::abs(smallUs / smallClosed - 1) < 0.05,
               "simulated " << smallUs << " us, closed " << smallClosed);
    // A ring would take 7 messages one after another: 7 x 4 us of step latency alone.
    BOOST_TEST(smallUs < base + 7 * hop);
    // Large: 8 MiB a rank; each NIC carries 7 shares out at 0.75 of 50 GB/s.
    ChakraReport large = chakra_test::RunNcclCall(ChakraProtoMsg::ALL_GATHER, 8, 1, 8 << 20);
    BOOST_REQUIRE(large.AllFinished());
    const double largeUs = large.GetIterationTime().GetMicroSeconds();
    const double largeClosed = base + 7.0 * (8 << 20) / rate;
    BOOST_TEST_MESSAGE("PAT all-gather 8 MiB: " << largeUs << " us, closed form " << largeClosed);
    BOOST_TEST(std::abs(largeUs / largeClosed - 1) < 0.03,
               "simulated " << largeUs << " us, closed " << largeClosed);
    // Reduce-scatter of a 64 MiB input (8 MiB a rank's result): the same loads, backwards.
    ChakraReport rs = chakra_test::RunNcclCall(ChakraProtoMsg::REDUCE_SCATTER, 8, 1, 64 << 20);
    Config::SetDefault("ns3::NcclCollective::NcclAlgo", StringValue(""));
    BOOST_REQUIRE(rs.AllFinished());
    const double rsUs = rs.GetIterationTime().GetMicroSeconds();
    BOOST_TEST_MESSAGE("PAT reduce-scatter 64 MiB: " << rsUs << " us, closed form " << largeClosed);
    BOOST_TEST(std::abs(rsUs / largeClosed - 1) < 0.03,
               "simulated " << rsUs << " us, closed " << largeClosed);
}

BOOST_AUTO_TEST_CASE(large_calls_stay_lazy)
{
    // 8,192 nodes of one GPU, 16 MiB a rank, NCCL_ALGO=PAT: 16 channels of 2 passes of 8,191
    // messages, 524,224 ops a rank, 4.3 G over the call. As lists (until 2026-11-29) that was
    // refused; by formula a rank holds its 16 channels' positions, the shape's plan is shared.
    Ptr<NcclCollective> nccl = CreateObject<NcclCollective>();
    nccl->SetAttribute("NcclAlgo", StringValue("PAT"));
    auto request = chakra_test::Request(ChakraProtoMsg::ALL_GATHER, 8192, 1, 16 << 20);
    BOOST_TEST(nccl->Build(request)->Size() == 16u * 2 * 2 * 8191);
    request = chakra_test::Request(ChakraProtoMsg::ALL_GATHER, 64, 1, 16 << 20);
    BOOST_TEST(ListOps(*nccl->Build(request)).size() == 16u * 2 * 2 * 63);
}
