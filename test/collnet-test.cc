/*
 * CollNet (SHARP: the network's switches reduce) all-reduce in the NCCL model (issue 27):
 * NCCL 2.30.7's tuning rows for CollNetDirect and CollNetChain by hand, offered only where the
 * switches reduce, across hosts, with at most 8 GPUs a host; the schedules' messages matched
 * and their NIC and NVLink loads against SHARP's by hand; a simulated 256 MiB all-reduce on
 * 2 x 8 H100 against the closed form of its link loads and NCCL's own prediction.
 */
#define BOOST_TEST_MODULE collnet
#include "chakra-test-data.h"
#include "nccl-schedules.h"
#include "simulation-util.h"

#include "ns3/chakra-module.h"
#include "ns3/core-module.h"

#include <boost/test/unit_test.hpp>
#include <cmath>
#include <map>
#include <stdexcept>

using namespace ns3;

namespace
{

/** 4 hosts of 8 H100 as NCCL sees them: 16 channels, 18 NVLinks of 20.6 GB/s, 8 x 50 GB/s. */
NcclTuningConfig
H100Nodes(uint32_t nodes, bool sharp)
{
    NcclTuningConfig config;
    config.nodes = nodes;
    config.ranksPerNode = 8;
    config.generation = NcclGpuGeneration::HOPPER;
    config.channels = 16;
    config.intraBandwidth = 18 * 20.6;
    config.interBandwidth = 400;
    config.collNet = sharp;
    config.collNetWhy = "no SHARP here";
    return config;
}

/** \return an NcclCollective on H100 with SHARP \p sharp and NCCL_ALGO \p algo */
Ptr<NcclCollective>
Make(bool sharp, const std::string& algo = "")
{
    Ptr<NcclCollective> nccl = CreateObject<NcclCollective>();
    nccl->SetAttribute("Sharp",
                       EnumValue(static_cast<int>(sharp ? SharpSupport::ON : SharpSupport::OFF)));
    nccl->SetAttribute("NcclAlgo", StringValue(algo));
    // Payload bytes by hand: no NVLink efficiency on top (the simulated case has it).
    nccl->SetAttribute("NvLinkEfficiency", DoubleValue(1));
    return nccl;
}

/** Bytes one rank sent and received, over NVLink (same host) and over its NIC. */
struct Loads
{
    uint64_t nvlinkOut{0};
    uint64_t nvlinkIn{0};
    uint64_t nicOut{0};
    uint64_t nicIn{0};
};

/** \return every rank's loads in a call on hosts of \p gpus (rank = host x gpus + local) */
std::map<uint32_t, Loads>
LoadsOf(const std::vector<chakra_test::Message>& sends, uint32_t gpus)
{
    std::map<uint32_t, Loads> loads;
    for (const auto& m : sends)
    {
        const bool sameHost = m.from / gpus == m.to / gpus;
        (sameHost ? loads[m.from].nvlinkOut : loads[m.from].nicOut) += m.bytes;
        (sameHost ? loads[m.to].nvlinkIn : loads[m.to].nicIn) += m.bytes;
    }
    return loads;
}

} // namespace

BOOST_AUTO_TEST_CASE(tuning_rows_by_hand)
{
    // NCCL 2.30.7 tuning.cc, 4 x 8 H100, 16 channels of bwIntra 370.8 / 16 = 23.175 GB/s:
    // CollNetDirect: 16 x 23.175 = 370.8 / f, f = 8/16 = 0.5 -> 0.5 - (0.5 - 1) / 2 = 0.75:
    // 494.4, x 0.85 (Hopper) = 420.24, x 0.5 = 210.12 GB/s; latency 2 (min(1, 7) x 3.7 + 7 x
    // 0.4) + 31 = 44 us. CollNetChain: 370.8 x 0.5 = 185.4 GB/s; 2 x 7 x 2.8 + 30 = 69.2 us.
    const NcclTuningModel model(H100Nodes(4, true));
    const auto ar = NcclFunction::ALL_REDUCE;
    const auto simple = NcclProtocol::SIMPLE;
    BOOST_TEST(model.Bandwidth(ar, NcclAlgorithm::COLLNET_DIRECT, simple) == 210.12,
               boost::test_tools::tolerance(1e-9));
    BOOST_TEST(model.Latency(ar, NcclAlgorithm::COLLNET_DIRECT, simple) == 44.0,
               boost::test_tools::tolerance(1e-9));
    BOOST_TEST(model.Bandwidth(ar, NcclAlgorithm::COLLNET_CHAIN, simple) == 185.4,
               boost::test_tools::tolerance(1e-9));
    BOOST_TEST(model.Latency(ar, NcclAlgorithm::COLLNET_CHAIN, simple) == 69.2,
               boost::test_tools::tolerance(1e-9));
    // Simple only, all-reduce only.
    BOOST_TEST(model.Bandwidth(ar, NcclAlgorithm::COLLNET_DIRECT, NcclProtocol::LL) == 0.0);
    BOOST_TEST(model.Bandwidth(NcclFunction::ALL_GATHER, NcclAlgorithm::COLLNET_DIRECT, simple) ==
               0.0);
    // The step latencies the schedule pays: Direct one NVLink step each way (3.7 + 7 x 0.4)
    // around the network's 31; Chain 2.8 per chain hop.
    const NcclStepLatencies direct = model.StepLatencies(ar, NcclAlgorithm::COLLNET_DIRECT, simple);
    BOOST_TEST(direct.intra == 6.5, boost::test_tools::tolerance(1e-9));
    BOOST_TEST(direct.inter == 31.0);
    BOOST_TEST(direct.base == 0.0);
    // The choice: Tree/LL's 35 us for the smallest sizes, CollNetDirect from 256 KiB (its 44
    // us and 210 GB/s against Ring/LL128's 1,557.7 us at 256 MiB).
    BOOST_TEST((model.Choose(ar, 8).algorithm == NcclAlgorithm::TREE));
    BOOST_TEST((model.Choose(ar, uint64_t(256) << 20).algorithm == NcclAlgorithm::COLLNET_DIRECT));
    BOOST_TEST(model.Choose(ar, uint64_t(256) << 20).time == 44.0 + 268435456.0 / (1000.0 * 210.12),
               boost::test_tools::tolerance(1e-9));
}

BOOST_AUTO_TEST_CASE(slow_nics_bound_the_rows)
{
    // 4 x 4 GPUs with 100 Gb/s NICs: 4 x 12.5 = 50 GB/s a node, 3.125 a channel of 16, below
    // NVLink's 23.175: Direct 16 x 3.125 = 50 / f, f = 4/16 = 0.25 -> 0.625: 80, x 0.85 x 0.5
    // = 34 GB/s; Chain 50 x 0.5 = 25 GB/s. (On 400 Gb/s NICs, 25 a channel, NVLink binds.)
    NcclTuningConfig config = H100Nodes(4, true);
    config.ranksPerNode = 4;
    config.interBandwidth = 50;
    const NcclTuningModel model(config);
    BOOST_TEST(model.Bandwidth(NcclFunction::ALL_REDUCE,
                               NcclAlgorithm::COLLNET_DIRECT,
                               NcclProtocol::SIMPLE) == 34.0,
               boost::test_tools::tolerance(1e-9));
    BOOST_TEST(model.Bandwidth(NcclFunction::ALL_REDUCE,
                               NcclAlgorithm::COLLNET_CHAIN,
                               NcclProtocol::SIMPLE) == 25.0,
               boost::test_tools::tolerance(1e-9));
}

BOOST_AUTO_TEST_CASE(offered_only_where_the_switches_reduce)
{
    const auto ar = NcclFunction::ALL_REDUCE;
    const auto big = uint64_t(256) << 20;
    // No SHARP: never chosen, and forcing it is an error that says why.
    const NcclTuningModel off(H100Nodes(4, false));
    BOOST_TEST(off.Bandwidth(ar, NcclAlgorithm::COLLNET_DIRECT, NcclProtocol::SIMPLE) == 0.0);
    BOOST_TEST((off.Choose(ar, big).algorithm != NcclAlgorithm::COLLNET_DIRECT));
    const NcclTuningModel forced(H100Nodes(4, false), "CollNetDirect");
    BOOST_CHECK_EXCEPTION(forced.Choose(ar, big),
                          std::invalid_argument,
                          [](const std::invalid_argument& e) {
                              return std::string(e.what()).find("no SHARP here") !=
                                     std::string::npos;
                          });
    // One host: nothing for the network to reduce.
    const NcclTuningModel oneHost(H100Nodes(1, true));
    BOOST_TEST(oneHost.Bandwidth(ar, NcclAlgorithm::COLLNET_DIRECT, NcclProtocol::SIMPLE) == 0.0);
    // More than 8 GPUs a host (NCCL_MAX_DIRECT_ARITY + 1): not offered.
    NcclTuningConfig wide = H100Nodes(2, true);
    wide.ranksPerNode = 16;
    const NcclTuningModel sixteen(wide);
    BOOST_TEST(sixteen.Bandwidth(ar, NcclAlgorithm::COLLNET_CHAIN, NcclProtocol::SIMPLE) == 0.0);
    // CollNetDirect needs an NVSwitch; the chain does not.
    NcclTuningConfig pci = H100Nodes(2, true);
    pci.nvlinkIntra = false;
    const NcclTuningModel noSwitch(pci);
    BOOST_TEST(noSwitch.Bandwidth(ar, NcclAlgorithm::COLLNET_DIRECT, NcclProtocol::SIMPLE) == 0.0);
    BOOST_TEST(noSwitch.Bandwidth(ar, NcclAlgorithm::COLLNET_CHAIN, NcclProtocol::SIMPLE) > 0.0);
    // NCCL_ALGO: ^CollNetDirect leaves the chain; the model's plan honours it.
    const NcclTuningModel noDirect(H100Nodes(4, true), "^CollNetDirect");
    BOOST_TEST((noDirect.Choose(ar, big).algorithm == NcclAlgorithm::COLLNET_CHAIN));
    const auto request = chakra_test::Request(ChakraProtoMsg::ALL_REDUCE, 4, 8, big);
    BOOST_TEST((Make(true)->Plan(request).ran == NcclAlgorithm::COLLNET_DIRECT));
    BOOST_TEST((Make(true, "CollNetChain")->Plan(request).ran == NcclAlgorithm::COLLNET_CHAIN));
    BOOST_TEST((Make(false)->Plan(request).ran != NcclAlgorithm::COLLNET_DIRECT));
    BOOST_CHECK_THROW(Make(false, "CollNetChain")->Plan(request), std::invalid_argument);
    // The attribute's names are the flag's (--sharp on|off).
    BOOST_TEST(!CreateObject<NcclCollective>()->SetAttributeFailSafe("Sharp", StringValue("yes")));
}

BOOST_AUTO_TEST_CASE(direct_loads_are_sharp_s)
{
    // 3 hosts x 4 GPUs, N = 120,000 in shares of 30,000 (chunks of 524,288: one each). SHARP's
    // loads: each NIC sends its GPU's reduced share up once and receives the result once,
    // N / g = 30,000 each way, whatever the hosts; over NVLink each GPU sends the other
    // heads their shares, 3 x 30,000, and its result to the other 3 GPUs, 3 x 30,000:
    // 2 N (g-1) / g = 180,000 each way. Every send has its receive.
    const auto request = chakra_test::Request(ChakraProtoMsg::ALL_REDUCE, 3, 4, 120000);
    const auto sends = chakra_test::AllSends(*Make(true, "CollNetDirect"), request);
    const auto loads = LoadsOf(sends, 4);
    BOOST_REQUIRE(loads.size() == 12u);
    for (const auto& [rank, load] : loads)
    {
        BOOST_TEST(load.nicOut == 30000u, "rank " << rank);
        BOOST_TEST(load.nicIn == 30000u, "rank " << rank);
        BOOST_TEST(load.nvlinkOut == 180000u, "rank " << rank);
        BOOST_TEST(load.nvlinkIn == 180000u, "rank " << rank);
    }
    // The network hop stays on the GPU's rail: local GPU l talks to local GPU l of the next
    // host.
    for (const auto& m : sends)
    {
        if (m.from / 4 != m.to / 4)
        {
            BOOST_TEST(m.from % 4 == m.to % 4);
            BOOST_TEST(m.to / 4 == (m.from / 4 + 1) % 3);
        }
    }
}

BOOST_AUTO_TEST_CASE(chain_loads_by_hand)
{
    // 2 hosts x 4 GPUs, 16 channels, N = 1,600,000: 100,000 a channel (one chunk each). A
    // channel's head (local GPU c mod 4) sends its channel's 100,000 to the next host and
    // receives as much: 4 channels per GPU, 400,000 each way on its NIC = N / g. Up the chain
    // every GPU but the head sends 100,000, down every GPU but the tail: a GPU is head of 4
    // channels and tail of 4, so 2 x (16 - 4) x 100,000 = 2,400,000 out over NVLink.
    const auto request = chakra_test::Request(ChakraProtoMsg::ALL_REDUCE, 2, 4, 1600000);
    Ptr<NcclCollective> nccl = Make(true, "CollNetChain");
    BOOST_TEST(nccl->Plan(request).channels == 16u);
    const auto loads = LoadsOf(chakra_test::AllSends(*nccl, request), 4);
    for (const auto& [rank, load] : loads)
    {
        BOOST_TEST(load.nicOut == 400000u, "rank " << rank);
        BOOST_TEST(load.nicIn == 400000u, "rank " << rank);
        BOOST_TEST(load.nvlinkOut == 2400000u, "rank " << rank);
        BOOST_TEST(load.nvlinkIn == 2400000u, "rank " << rank);
    }
}

BOOST_AUTO_TEST_CASE(schedule_checks_its_arguments)
{
    CollNetLayout layout;
    layout.hosts = 1;
    layout.gpus = 2;
    layout.members = {0, 1};
    BOOST_CHECK_THROW(BuildCollNetDirect(layout, 1000, 100, 8, 0), std::invalid_argument);
    layout.hosts = 2;
    layout.members = {0, 1, 2, 3};
    BOOST_CHECK_THROW(BuildCollNetDirect(layout, 1000, 0, 8, 0), std::invalid_argument);
    BOOST_CHECK_THROW(BuildCollNetChain(layout, 0, 1000, 100, 0, 0), std::invalid_argument);
    layout.members = {0, 1, 2};
    BOOST_CHECK_THROW(BuildCollNetChain(layout, 0, 1000, 100, 8, 0), std::invalid_argument);
}

BOOST_AUTO_TEST_CASE(simulated_all_reduce_against_its_link_loads_and_nccl)
{
    // 256 MiB on 2 x 8 H100, rail-optimized, flow, the cluster's switches reducing (--sharp
    // on), its NVSwitches not (--nvls off): NCCL's choice is CollNetDirect. Each GPU's NVLink
    // carries 2 N (g-1)/g out (shares to the heads, results from its own) at NCCL's 0.824 of 450
    // GB/s: 1,266.9 us; its NIC N / g, 33.6 MiB at 50 GB/s, 671 us: NVLink binds. Closed form: that
    // plus the 44 us latency, 1,310.9 us (the schedule pays it once along a chunk's path; later
    // chunks overlap it). NCCL's own prediction: 44 + N / 210.12 GB/s = 1,321.5 us.
    const uint64_t perRank = uint64_t(256) << 20;
    // Without NVLS: NCCL's tuning prefers NVLSTree on 2 H100 hosts whose NVSwitches reduce.
    Config::SetDefault("ns3::NcclCollective::Sharp", EnumValue(static_cast<int>(SharpSupport::ON)));
    Config::SetDefault("ns3::NcclCollective::Nvls", EnumValue(static_cast<int>(NvlsSupport::OFF)));
    ChakraReport report =
        chakra_test::RunNcclCall(ChakraProtoMsg::ALL_REDUCE, 2, 8, perRank, "rail-optimized");
    Config::SetDefault("ns3::NcclCollective::Sharp",
                       EnumValue(static_cast<int>(SharpSupport::OFF)));
    Config::SetDefault("ns3::NcclCollective::Nvls", EnumValue(static_cast<int>(NvlsSupport::AUTO)));
    BOOST_REQUIRE(report.AllFinished());
    const double bytes = static_cast<double>(perRank);
    const double us = report.GetIterationTime().GetMicroSeconds();
    const double closed = 44.0 + 2 * bytes * 7 / 8 / (0.824 * 450e9) * 1e6;
    const double nccl = 44.0 + bytes / 210.12e3;
    BOOST_TEST_MESSAGE("CollNetDirect " << us << " us; link loads " << closed << ", NCCL " << nccl);
    BOOST_TEST(std::abs(us / closed - 1) < 0.05, "simulated " << us << " us, closed " << closed);
    BOOST_TEST(std::abs(us / nccl - 1) < 0.10, "simulated " << us << " us, NCCL " << nccl);
}
