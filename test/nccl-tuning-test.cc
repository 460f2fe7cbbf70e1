/*
 * NCCL's tuning model (issue 27, second slice): the algorithm and protocol NCCL picks for an
 * all-reduce on 1, 2 and 16 nodes of 8 H100, at switch points worked by hand from NCCL 2.30.7's
 * tables (src/graph/tuning.cc; restated in doc/collectives.md), NCCL_ALGO / NCCL_PROTO
 * honoured, bad values refused.
 *
 * The machine of every case: Hopper rows, 16 channels, NVLink 450 GB/s per GPU and direction
 * (per channel 450 / 16 = 28.125), 8 x 400 Gb/s NICs = 400 GB/s per node (per channel 25),
 * Intel hosts, IB (network latency 0), LL128 on by default.
 *
 * The formulas (time in us, S in bytes, B in GB/s, so S / (1000 B) is in us):
 *   time = L + S / (1000 B x f), f the tree correction by log2(S / 64) (tree all-reduce only);
 *   ring all-reduce, Simple, several nodes, S / (channels x ranks) >= 64: L x 1.4 (plateau).
 *   bus = channels x per-channel bandwidth (intra on <= 2 nodes, inter above) = 450 or 400;
 *   Ring: LL min(llMax, bus/2), LL128 min(0.92 bus, 16 x 36.7 = 587.2), Simple bus;
 *         then x ranks / (2 (ranks - 1)).
 *   Tree: t = min(0.92 bus, 16 x treeMax); LL min(t / 3.8, llMax), LL128 min(t x (7/9 on one
 *         node, else 120/128), 16 x treeLL128Max), Simple t; then x 0.5.
 *   Ring L = base + (steps - interSteps) x max(hop, netOverhead) + interSteps x netHop,
 *         steps = 2 (ranks - 1), interSteps = 2 (nodes - 1), netOverhead 1 (LL, LL128) or 3
 *         (Simple) on several nodes.
 *   Tree L = base + 2 (7 x hop + log2(nodes) x netHop).
 *   base: Tree 6.8 / 14 / 8.4, Ring 6.6 / 14 / 8.4 (LL / LL128 / Simple);
 *   NVLink hop: Tree 0.6 / 1.25 / 4.0, Ring 0.6 / 1.9 / 3.4; network hop: Tree 5.0 / 8.5 / 14,
 *   Ring 2.7 / 4.0 / 14.
 */
#define BOOST_TEST_MODULE nccl_tuning
#include "ns3/nccl-tuning.h"

#include <boost/test/unit_test.hpp>
#include <stdexcept>
#include <string>

using namespace ns3;

namespace
{

NcclTuningConfig
H100Nodes(uint32_t nodes)
{
    NcclTuningConfig config;
    config.nodes = nodes;
    config.ranksPerNode = 8;
    config.generation = NcclGpuGeneration::HOPPER;
    config.channels = 16;
    config.intraBandwidth = 450;
    config.interBandwidth = 400;
    return config;
}

std::string
Choice(const NcclTuningModel& model, uint64_t bytes, NcclFunction f = NcclFunction::ALL_REDUCE)
{
    const NcclChoice choice = model.Choose(f, bytes);
    return NcclAlgorithmName(choice.algorithm) + "/" + NcclProtocolName(choice.protocol);
}

bool
Mentions(const std::invalid_argument& e, const std::string& a, const std::string& b)
{
    const std::string what = e.what();
    return what.find(a) != std::string::npos && what.find(b) != std::string::npos;
}

} // namespace

/*
 * One node, 8 ranks (14 steps; llMax = Hopper, 1 node = 141; tree max 38.7, LL128 36.7):
 *   Ring/LL     L = 6.6 + 14 x 0.6 = 15.0    B = min(141, 225) x 8/14 = 80.5714
 *   Ring/LL128  L = 14 + 14 x 1.9 = 40.6     B = min(414, 587.2) x 8/14 = 236.5714
 *   Ring/Simple L = 8.4 + 14 x 3.4 = 56.0    B = 450 x 8/14 = 257.1429
 *   Tree/LL     L = 6.8 + 2 x 7 x 0.6 = 15.2 B = min(414 / 3.8, 141) x 0.5 = 54.47 (x f <= 1)
 *   Tree/LL128  L = 14 + 2 x 7 x 1.25 = 31.5 B = min(414 x 7/9 = 322, 587.2) x 0.5 = 161 (x f)
 *   Tree/Simple L = 8.4 + 2 x 7 x 4 = 64.4   B = 414 x 0.5 = 207 (x f)
 * Ring/LL -> Ring/LL128: (40.6 - 15) / (1/80571.4 - 1/236571.4) = 25.6 / 8.18430e-6
 *   = 3,127,940 B (there Ring/LL128 takes 53.8 us, Tree/LL128 at f 0.6: 31.5 + 3.13e6 / 96600
 *   = 63.9 us: trees lose);
 * Ring/LL128 -> Ring/Simple: (56 - 40.6) / (1/236571.4 - 1/257142.9) = 15.4 / 3.38164e-7
 *   = 45,540,000 B (233.1 us; Tree/Simple at f 0.8: 64.4 + 4.554e7 / 165600 = 339.4 us).
 */
BOOST_AUTO_TEST_CASE(one_h100_node_all_reduce_switch_points)
{
    const NcclTuningModel model(H100Nodes(1));
    using F = NcclFunction;
    using A = NcclAlgorithm;
    using P = NcclProtocol;
    BOOST_TEST(model.Latency(F::ALL_REDUCE, A::RING, P::LL) == 15.0,
               boost::test_tools::tolerance(1e-9));
    BOOST_TEST(model.Bandwidth(F::ALL_REDUCE, A::RING, P::LL128) == 414.0 * 8 / 14,
               boost::test_tools::tolerance(1e-9));
    BOOST_TEST(model.Latency(F::ALL_REDUCE, A::TREE, P::LL128) == 31.5,
               boost::test_tools::tolerance(1e-9));
    BOOST_TEST(model.Bandwidth(F::ALL_REDUCE, A::TREE, P::LL128) == 161.0,
               boost::test_tools::tolerance(1e-9));
    // 8 B: Ring/LL, 15.0 + 8 / 80571.4 us (Tree/LL's 15.2 is the runner-up).
    BOOST_TEST(Choice(model, 8) == "Ring/LL");
    BOOST_TEST(model.Choose(F::ALL_REDUCE, 8).time == 15.0 + 8 / 80571.4286,
               boost::test_tools::tolerance(1e-6));
    BOOST_TEST(Choice(model, 3000000) == "Ring/LL");
    BOOST_TEST(Choice(model, 3260000) == "Ring/LL128");
    BOOST_TEST(Choice(model, 44000000) == "Ring/LL128");
    BOOST_TEST(Choice(model, 47000000) == "Ring/Simple");
    BOOST_TEST(Choice(model, uint64_t{8} << 30) == "Ring/Simple");
}

/*
 * Two nodes, 16 ranks (30 steps, 2 on the network; per-channel bandwidth is still the intra
 * one on <= 2 nodes: bus = 450; llMax = Intel, 2 nodes = 39; tree max 41.4):
 *   Tree/LL     L = 6.8 + 2 (7 x 0.6 + 1 x 5.0) = 25.2     B = min(414 / 3.8, 39) x 0.5 = 19.5
 *   Tree/LL128  L = 14 + 2 (7 x 1.25 + 8.5) = 48.5        B = min(414 x 120/128, 587.2) x 0.5
 *                                                            = 194.0625
 *   Ring/LL     L = 6.6 + 28 x max(0.6, 1) + 2 x 2.7 = 40.0 B = 39 x 16/30 = 20.8
 *   Ring/LL128  L = 14 + 28 x 1.9 + 2 x 4.0 = 75.2         B = 414 x 16/30 = 220.8
 *   Ring/Simple L = 8.4 + 28 x 3.4 + 2 x 14 = 131.6, x 1.4 = 184.24 B = 450 x 16/30 = 240
 * Tree/LL -> Tree/LL128 in [128 KiB, 256 KiB) (f: LL 0.5, LL128 0.6): B 9.75 and 116.4375:
 *   (48.5 - 25.2) / (1/9750 - 1/116437.5) = 23.3 / 9.39756e-5 = 247,937 B (Ring/LL there:
 *   40 + 247937 / 20800 = 51.9 > 50.6);
 * Tree/LL128 -> Ring/LL128 in [16 MiB, 32 MiB) (f LL128 0.9: B 174.656):
 *   (75.2 - 48.5) / (1/174656.25 - 1/220800) = 26.7 / 1.196609e-6 = 22,313,000 B;
 * Ring/LL128 -> Ring/Simple: (184.24 - 75.2) / (1/220800 - 1/240000) = 109.04 / 3.623188e-7
 *   = 300,950,400 B.
 */
BOOST_AUTO_TEST_CASE(two_h100_nodes_all_reduce_switch_points)
{
    const NcclTuningModel model(H100Nodes(2));
    BOOST_TEST(Choice(model, 8) == "Tree/LL");
    BOOST_TEST(model.Choose(NcclFunction::ALL_REDUCE, 8).time == 25.2 + 8 / 19500.0,
               boost::test_tools::tolerance(1e-6));
    BOOST_TEST(Choice(model, 240000) == "Tree/LL");
    BOOST_TEST(Choice(model, 255000) == "Tree/LL128");
    BOOST_TEST(Choice(model, 21700000) == "Tree/LL128");
    BOOST_TEST(Choice(model, 23000000) == "Ring/LL128");
    BOOST_TEST(Choice(model, 295000000) == "Ring/LL128");
    BOOST_TEST(Choice(model, 307000000) == "Ring/Simple");
}

/*
 * Sixteen nodes, 128 ranks (254 steps, 30 on the network; bus = 400, the inter bandwidth;
 * llMax = Intel, > 2 nodes = 20.4; tree max 36.0, tree LL128 max 29.0; log2(16) = 4):
 *   Tree/LL     L = 6.8 + 2 (7 x 0.6 + 4 x 5.0) = 55.2     B = min(368 / 3.8, 20.4) x 0.5 = 10.2
 *   Tree/LL128  L = 14 + 2 (7 x 1.25 + 4 x 8.5) = 99.5     B = min(368 x 120/128 = 345, 464)
 *                                                            x 0.5 = 172.5
 *   Tree/Simple L = 8.4 + 2 (7 x 4 + 4 x 14) = 176.4       B = 368 x 0.5 = 184
 *   Ring/Simple L = 8.4 + 224 x 3.4 + 30 x 14 = 1190, x 1.4 = 1666   B = 400 x 128/254 = 201.575
 *   (Ring/LL and Ring/LL128: L 311.6 and 559.6, B 10.28 and 185.4: never the fastest.)
 * Tree/LL -> Tree/LL128 in [128 KiB, 256 KiB) (f 0.5 and 0.6: B 5.1 and 103.5):
 *   (99.5 - 55.2) / (1/5100 - 1/103500) = 44.3 / 1.864166e-4 = 237,640 B;
 * Tree/LL128 -> Tree/Simple at 512 MiB exactly: below it (log2(S/64) = 22) f is 1.0 for LL128
 *   and 0.9 for Simple (B 172.5 > 165.6, and a lower L), from 2^29 on f = 1 for both:
 *   99.5 + 2^29 / 172500 = 3211.8 > 176.4 + 2^29 / 184000 = 3094.2;
 * Tree/Simple -> Ring/Simple: (1666 - 176.4) / (1/184000 - 1/201574.8) = 1489.6 / 4.738453e-7
 *   = 3,143,640,000 B.
 */
BOOST_AUTO_TEST_CASE(sixteen_h100_nodes_all_reduce_switch_points)
{
    const NcclTuningModel model(H100Nodes(16));
    BOOST_TEST(Choice(model, 8) == "Tree/LL");
    BOOST_TEST(Choice(model, 230000) == "Tree/LL");
    BOOST_TEST(Choice(model, 245000) == "Tree/LL128");
    BOOST_TEST(Choice(model, (uint64_t{1} << 29) - 1) == "Tree/LL128");
    BOOST_TEST(Choice(model, uint64_t{1} << 29) == "Tree/Simple");
    BOOST_TEST(model.Choose(NcclFunction::ALL_REDUCE, uint64_t{1} << 29).time ==
                   176.4 + 536870912.0 / 184000,
               boost::test_tools::tolerance(1e-6));
    BOOST_TEST(Choice(model, 3100000000ULL) == "Tree/Simple");
    BOOST_TEST(Choice(model, 3200000000ULL) == "Ring/Simple");
}

/*
 * Broadcast on one node: Ring only, 8 steps, one hop's latency (NCCL's rings on the same
 * channels as its trees): LL L = 6.6 + 0.6 = 7.2, B = min(141, 225) x 8/8 = 141; LL128
 * L = 14 + 1.9 = 15.9, B = 414; Simple L = 8.4 + 3.4 = 11.8, B = 450. LL128 never wins
 * (slower than Simple in both); LL -> Simple at 4.6 / (1/141000 - 1/450000) = 944,563 B.
 */
BOOST_AUTO_TEST_CASE(broadcast_rings_only)
{
    const NcclTuningModel model(H100Nodes(1));
    BOOST_TEST(model.Bandwidth(NcclFunction::BROADCAST, NcclAlgorithm::TREE, NcclProtocol::LL) ==
               0.0);
    BOOST_TEST(model.Time(NcclFunction::BROADCAST, NcclAlgorithm::TREE, NcclProtocol::LL, 8) < 0);
    BOOST_TEST(Choice(model, 930000, NcclFunction::BROADCAST) == "Ring/LL");
    BOOST_TEST(Choice(model, 960000, NcclFunction::BROADCAST) == "Ring/Simple");
}

BOOST_AUTO_TEST_CASE(stream_ceilings_are_the_caps_without_links)
{
    // The bus formulas above with links of no limit, per channel (16), and halved for a tree
    // (its up and down streams share the channel). One node (Hopper row): Ring LL llMax 141 /
    // 16 = 8.8125; LL128 36.7; Simple nothing but the links (0).
    const NcclTuningModel one(H100Nodes(1));
    const auto ar = NcclFunction::ALL_REDUCE;
    BOOST_TEST(one.StreamCeiling(ar, NcclAlgorithm::RING, NcclProtocol::LL) == 141.0 / 16,
               boost::test_tools::tolerance(1e-12));
    BOOST_TEST(one.StreamCeiling(ar, NcclAlgorithm::RING, NcclProtocol::LL128) == 36.7,
               boost::test_tools::tolerance(1e-12));
    BOOST_TEST(one.StreamCeiling(ar, NcclAlgorithm::RING, NcclProtocol::SIMPLE) == 0.0);
    // The same per-channel caps for every ring function (broadcast, all-gather).
    BOOST_TEST(one.StreamCeiling(NcclFunction::ALL_GATHER, NcclAlgorithm::RING, NcclProtocol::LL) ==
                   141.0 / 16,
               boost::test_tools::tolerance(1e-12));
    // Two nodes (Intel hosts): llMax 39; treeMax 41.4, tree LL128 36.7 a channel.
    // Tree Simple 41.4 / 2; Tree LL min(16 x 41.4 / 3.8, 39) / 16 / 2 = 39 / 32; Tree LL128
    // min(41.4 x 120/128, 36.7) / 2 = 36.7 / 2; Ring LL 39 / 16.
    const NcclTuningModel two(H100Nodes(2));
    BOOST_TEST(two.StreamCeiling(ar, NcclAlgorithm::TREE, NcclProtocol::SIMPLE) == 20.7,
               boost::test_tools::tolerance(1e-12));
    BOOST_TEST(two.StreamCeiling(ar, NcclAlgorithm::TREE, NcclProtocol::LL) == 39.0 / 32,
               boost::test_tools::tolerance(1e-12));
    BOOST_TEST(two.StreamCeiling(ar, NcclAlgorithm::TREE, NcclProtocol::LL128) == 36.7 / 2,
               boost::test_tools::tolerance(1e-12));
    BOOST_TEST(two.StreamCeiling(ar, NcclAlgorithm::RING, NcclProtocol::LL) == 39.0 / 16,
               boost::test_tools::tolerance(1e-12));
    // More than two nodes: treeMax 36.0, tree LL128 29.0: LL128 min(36 x 120/128, 29) / 2.
    const NcclTuningModel sixteen(H100Nodes(16));
    BOOST_TEST(sixteen.StreamCeiling(ar, NcclAlgorithm::TREE, NcclProtocol::LL128) == 14.5,
               boost::test_tools::tolerance(1e-12));
    // Algorithms whose limits are link loads (NVLS here) have none; a disabled pair has none.
    BOOST_TEST(one.StreamCeiling(ar, NcclAlgorithm::NVLS, NcclProtocol::SIMPLE) == 0.0);
    const NcclTuningModel simpleOnly(H100Nodes(1), "", "Simple");
    BOOST_TEST(simpleOnly.StreamCeiling(ar, NcclAlgorithm::RING, NcclProtocol::LL) == 0.0);
}

BOOST_AUTO_TEST_CASE(overrides_are_honoured)
{
    // NCCL_PROTO=Simple, one node, 8 B: Ring/Simple 56.0 beats Tree/Simple 64.4.
    BOOST_TEST(Choice(NcclTuningModel(H100Nodes(1), "", "Simple"), 8) == "Ring/Simple");
    // NCCL_ALGO=tree (any case), one node, 8 B: Tree/LL 15.2.
    BOOST_TEST(Choice(NcclTuningModel(H100Nodes(1), "tree", ""), 8) == "Tree/LL");
    // NCCL_PROTO=^LL: Tree/LL128 31.5 beats Ring/LL128 40.6.
    BOOST_TEST(Choice(NcclTuningModel(H100Nodes(1), "", "^LL"), 8) == "Tree/LL128");
    // A comma list: Ring with LL128 or Simple; 8 B: Ring/LL128 (40.6 < 56.0).
    BOOST_TEST(Choice(NcclTuningModel(H100Nodes(1), "Ring", "LL128, simple"), 8) == "Ring/LL128");
    // Per function: AllReduce gets Tree, Broadcast keeps its default.
    const NcclTuningModel perFunction(H100Nodes(1), "allreduce:tree;broadcast:ring", "");
    BOOST_TEST(Choice(perFunction, 64 << 20) == "Tree/Simple");
    BOOST_TEST(Choice(perFunction, 8, NcclFunction::BROADCAST) == "Ring/LL");
    // LL128 off by default (a NIC too far from the GPU, say): 4 MiB on one node goes Ring/LL,
    // 15 + 4194304 / 80571.4 = 67.1 (Ring/Simple 56 + 16.3 = 72.3, Tree/Simple at f 0.7
    // 64.4 + 4194304 / 144900 = 93.3); naming LL128 in NCCL_PROTO turns it back on:
    // Ring/LL128 40.6 + 4194304 / 236571.4 = 58.3 (Tree/LL128 at f 0.8: 31.5 + 32.6 = 64.1).
    NcclTuningConfig noLl128 = H100Nodes(1);
    noLl128.ll128ByDefault = false;
    BOOST_TEST(Choice(NcclTuningModel(noLl128), 4 << 20) == "Ring/LL");
    BOOST_TEST(Choice(NcclTuningModel(noLl128, "", "LL,LL128,Simple"), 4 << 20) == "Ring/LL128");
}

BOOST_AUTO_TEST_CASE(bad_values_are_refused)
{
    try
    {
        NcclTuningModel(H100Nodes(1), "Ring,Bogus", "");
        BOOST_FAIL("NCCL_ALGO=Ring,Bogus accepted");
    }
    catch (const std::invalid_argument& e)
    {
        BOOST_TEST(Mentions(e, "NCCL_ALGO=Ring,Bogus", "unknown algorithm 'Bogus'"));
    }
    try
    {
        NcclTuningModel(H100Nodes(1), "", "LL129");
        BOOST_FAIL("NCCL_PROTO=LL129 accepted");
    }
    catch (const std::invalid_argument& e)
    {
        BOOST_TEST(Mentions(e, "NCCL_PROTO=LL129", "unknown protocol 'LL129'"));
    }
    // NCCL's functions are the prefixes; alltoall is not one of them.
    BOOST_CHECK_THROW(NcclTuningModel(H100Nodes(1), "alltoall:ring", ""), std::invalid_argument);
    // Only the first entry may go without a function.
    BOOST_CHECK_THROW(NcclTuningModel(H100Nodes(1), "allreduce:ring;tree", ""),
                      std::invalid_argument);
    BOOST_CHECK_THROW(NcclTuningModel(H100Nodes(1), "", "^"), std::invalid_argument);
    // Valid, but leaves AllGather nothing this model has (Tree does not run it; NVLS is not
    // modelled): refused at the call, naming both variables.
    const NcclTuningModel treeOnly(H100Nodes(1), "Tree,NVLS", "");
    try
    {
        treeOnly.Choose(NcclFunction::ALL_GATHER, 1024);
        BOOST_FAIL("AllGather with NCCL_ALGO=Tree,NVLS accepted");
    }
    catch (const std::invalid_argument& e)
    {
        BOOST_TEST(Mentions(e, "NCCL_ALGO=Tree,NVLS", "NCCL_PROTO="));
    }
    NcclTuningConfig zero = H100Nodes(1);
    zero.channels = 0;
    BOOST_CHECK_THROW(NcclTuningModel{zero}, std::invalid_argument);
}

BOOST_AUTO_TEST_CASE(parser_reads_nccl_syntax)
{
    const auto& algos = NcclAlgoNames();
    // Nothing said: every entry unset.
    for (const auto& v : ParseNcclList("NCCL_ALGO", " ", algos, NcclFunction::ALL_REDUCE))
    {
        BOOST_TEST(!v.has_value());
    }
    // "ring": Ring on, the others off, for every function.
    auto list = ParseNcclList("NCCL_ALGO", "ring", algos, NcclFunction::BROADCAST);
    BOOST_TEST(list[1].value());
    BOOST_TEST(!list[0].value());
    BOOST_TEST(!list[4].value());
    // "^NVLS": all but NVLS.
    list = ParseNcclList("NCCL_ALGO", "^NVLS", algos, NcclFunction::ALL_GATHER);
    BOOST_TEST(list[0].value());
    BOOST_TEST(!list[4].value());
    // A function entry replaces the first, prefix-less, one for that function only.
    list = ParseNcclList("NCCL_ALGO", "ring;allreduce:tree", algos, NcclFunction::ALL_REDUCE);
    BOOST_TEST(list[0].value());
    BOOST_TEST(!list[1].value());
    list = ParseNcclList("NCCL_ALGO", "ring;allreduce:tree", algos, NcclFunction::REDUCE);
    BOOST_TEST(list[1].value());
    // A function not named keeps NCCL's default.
    list = ParseNcclList("NCCL_ALGO", "allreduce:tree", algos, NcclFunction::REDUCE);
    BOOST_TEST(!list[1].has_value());
}
