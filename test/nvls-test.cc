/*
 * NVLS (NVLink SHARP) all-reduce in the NCCL model (issue 27): only where the machine has it
 * (Hopper or later, one host, an NVSwitch that reduces); NCCL's constants (efficiency,
 * channels, the topology search's speed table, the chunk size by message size) against NCCL
 * 2.30.7's source by hand; the tuning model's NVLS row and choice; the schedule's ops,
 * window and pair bytes by hand; a simulated 256 MiB all-reduce on 8 H100 against the closed
 * form of its link loads and against NCCL's own prediction.
 */
#define BOOST_TEST_MODULE nvls
#include "chakra-test-data.h"
#include "nccl-schedules.h"
#include "simulation-util.h"

#include "ns3/chakra-module.h"
#include "ns3/core-module.h"

#include <array>
#include <boost/test/unit_test.hpp>
#include <cmath>
#include <map>
#include <stdexcept>

using namespace ns3;

namespace
{

/** One host of 8 H100 as NCCL sees it: 18 NVLinks of 20.6 GB/s (NCCL's SM90 figure). */
NcclTuningConfig
OneH100Node(bool nvls)
{
    NcclTuningConfig config;
    config.nodes = 1;
    config.ranksPerNode = 8;
    config.generation = NcclGpuGeneration::HOPPER;
    config.channels = 16;
    config.intraBandwidth = 18 * 20.6;
    config.nvls = nvls;
    return config;
}

/** A call on one host of \p gpus GPUs. */
CollectiveRequest
OneHostRequest(ChakraProtoMsg::CollectiveCommType type, uint32_t gpus, uint64_t bytes)
{
    CollectiveRequest request;
    request.type = type;
    request.size = gpus;
    request.bytes = bytes;
    request.hostOf = std::make_shared<std::vector<uint32_t>>(gpus, 0);
    return request;
}

} // namespace

BOOST_AUTO_TEST_CASE(nvls_only_where_the_machine_has_it)
{
    std::string why;
    BOOST_TEST(NvlsAvailable(NvlsSupport::AUTO, NcclGpuGeneration::HOPPER, 1, 8, why));
    BOOST_TEST(why.empty());
    BOOST_TEST(NvlsAvailable(NvlsSupport::ON, NcclGpuGeneration::BLACKWELL, 1, 4, why));
    // Before Hopper NCCL's NVLS efficiency is 0: no NVLS, and the reason names the GPUs.
    BOOST_TEST(!NvlsAvailable(NvlsSupport::AUTO, NcclGpuGeneration::AMPERE, 1, 8, why));
    BOOST_TEST(why.find("Ampere") != std::string::npos, why);
    // Switched off on the cluster.
    BOOST_TEST(!NvlsAvailable(NvlsSupport::OFF, NcclGpuGeneration::HOPPER, 1, 8, why));
    BOOST_TEST(why.find("off") != std::string::npos, why);
    // Several hosts: NCCL runs NVLS across nodes only with CollNet.
    BOOST_TEST(!NvlsAvailable(NvlsSupport::AUTO, NcclGpuGeneration::HOPPER, 2, 8, why));
    BOOST_TEST(why.find("2 hosts") != std::string::npos, why);
    BOOST_TEST(!NvlsAvailable(NvlsSupport::AUTO, NcclGpuGeneration::HOPPER, 1, 1, why));
    // Asked for on GPUs that cannot: an error naming both, not a quiet fallback.
    BOOST_CHECK_EXCEPTION(NvlsAvailable(NvlsSupport::ON, NcclGpuGeneration::AMPERE, 1, 8, why),
                          std::invalid_argument,
                          [](const std::invalid_argument& e) {
                              const std::string what = e.what();
                              return what.find("Ampere") != std::string::npos &&
                                     what.find("NVLS on (--nvls") != std::string::npos;
                          });
}

BOOST_AUTO_TEST_CASE(nccls_constants_by_hand)
{
    // tuning.cc nvlsEfficiency: Volta 0, Ampere 0, Hopper 0.85, Blackwell 0.74.
    BOOST_TEST(NvlsEfficiency(NcclGpuGeneration::AMPERE) == 0.0);
    BOOST_TEST(NvlsEfficiency(NcclGpuGeneration::HOPPER) == 0.85);
    BOOST_TEST(NvlsEfficiency(NcclGpuGeneration::BLACKWELL) == 0.74);
    // nvls.cc: 16 channels on sm90; sm100 24 on one node, 32 on several.
    BOOST_TEST(NvlsChannels(NcclGpuGeneration::HOPPER, 1) == 16u);
    BOOST_TEST(NvlsChannels(NcclGpuGeneration::BLACKWELL, 1) == 24u);
    BOOST_TEST(NvlsChannels(NcclGpuGeneration::BLACKWELL, 4) == 32u);
    // search.cc's speed tables: 8 H100 give 370.8 / 9 = 41.2 GB/s a channel, the table 40;
    // 8 B200 (18 x 40.1) / 9 = 80.2 -> 80; below the slowest entry, the slowest.
    BOOST_TEST(NvlsGraphSpeed(NcclGpuGeneration::HOPPER, 370.8 / 9) == 40.0);
    BOOST_TEST(NvlsGraphSpeed(NcclGpuGeneration::BLACKWELL, 18 * 40.1 / 9) == 80.0);
    BOOST_TEST(NvlsGraphSpeed(NcclGpuGeneration::HOPPER, 60.0) == 60.0);
    BOOST_TEST(NvlsGraphSpeed(NcclGpuGeneration::HOPPER, 1.0) == 3.0);
    // enqueue.cc: 128 KiB, then 64 KiB below 64 x ops x 128 KiB, 32 KiB below 8 x ops x 64 KiB,
    // 16 KiB below 2 x ops x 32 KiB; ops = 16 channels x 8 heads = 128: thresholds 1 GiB,
    // 64 MiB, 8 MiB.
    BOOST_TEST(NvlsChunkBytes(uint64_t(1) << 30, 16, 8) == 131072u);
    BOOST_TEST(NvlsChunkBytes((uint64_t(1) << 30) - 1, 16, 8) == 65536u);
    BOOST_TEST(NvlsChunkBytes(uint64_t(64) << 20, 16, 8) == 65536u);
    BOOST_TEST(NvlsChunkBytes((uint64_t(64) << 20) - 1, 16, 8) == 32768u);
    BOOST_TEST(NvlsChunkBytes(uint64_t(8) << 20, 16, 8) == 32768u);
    BOOST_TEST(NvlsChunkBytes((uint64_t(8) << 20) - 1, 16, 8) == 16384u);
    BOOST_TEST(NvlsChunkBytes(8, 16, 8) == 16384u);
}

BOOST_AUTO_TEST_CASE(tuning_row_and_choice)
{
    // NCCL's NVLS row on 8 H100: 8 channels (one per GPU) of 40 GB/s, x 0.85 x 7/8 x 2 (an
    // all-reduce pipelines its two phases) = 59.5 GB/s a channel, busbw 476 GB/s (the NCCL
    // maintainers quote ~480 for NVLS on H100), algbw 476 x 8 / 14 = 272 GB/s; latency 25 us.
    const NcclTuningModel model(OneH100Node(true), "", "");
    BOOST_TEST(model.Bandwidth(NcclFunction::ALL_REDUCE,
                               NcclAlgorithm::NVLS,
                               NcclProtocol::SIMPLE) == 272.0,
               boost::test_tools::tolerance(1e-9));
    BOOST_TEST(model.Latency(NcclFunction::ALL_REDUCE, NcclAlgorithm::NVLS, NcclProtocol::SIMPLE) ==
               25.0);
    // Simple only; not broadcast or reduce.
    BOOST_TEST(model.Bandwidth(NcclFunction::ALL_REDUCE, NcclAlgorithm::NVLS, NcclProtocol::LL) ==
               0.0);
    BOOST_TEST(
        model.Bandwidth(NcclFunction::BROADCAST, NcclAlgorithm::NVLS, NcclProtocol::SIMPLE) == 0.0);
    // Large all-reduces take it; small ones keep the ring's low latency.
    BOOST_TEST((model.Choose(NcclFunction::ALL_REDUCE, uint64_t(1) << 30).algorithm ==
                NcclAlgorithm::NVLS));
    BOOST_TEST((model.Choose(NcclFunction::ALL_REDUCE, 8).algorithm != NcclAlgorithm::NVLS));
    BOOST_TEST((model.Choose(NcclFunction::ALL_GATHER, uint64_t(1) << 30).algorithm ==
                NcclAlgorithm::RING));
    // Overrides: ^NVLS leaves the ring; NVLS alone where it is not available is an error that
    // says why.
    const NcclTuningModel noNvls(OneH100Node(true), "^NVLS", "");
    BOOST_TEST((noNvls.Choose(NcclFunction::ALL_REDUCE, uint64_t(1) << 30).algorithm !=
                NcclAlgorithm::NVLS));
    NcclTuningConfig off = OneH100Node(false);
    off.nvlsWhy = "the cluster's NvlsSupport is off";
    const NcclTuningModel forced(off, "NVLS", "");
    BOOST_CHECK_EXCEPTION(forced.Choose(NcclFunction::ALL_REDUCE, 1 << 20),
                          std::invalid_argument,
                          [](const std::invalid_argument& e) {
                              return std::string(e.what()).find("NvlsSupport is off") !=
                                     std::string::npos;
                          });
}

BOOST_AUTO_TEST_CASE(tuning_row_of_all_gather_and_reduce_scatter)
{
    // NCCL 2.30.7's tuning.cc for NVLS all-gather and reduce-scatter: per channel bwIntra x
    // 0.85 x (nCh-1)/nCh x (ppn-1)/ppn, times nCh, not converted to algorithm bandwidth: on 8
    // H100 8 x 40 x 0.85 x 7/8 x 7/8 = 208.25 GB/s of the total bytes; latency 25 us.
    const NcclTuningModel model(OneH100Node(true), "", "");
    for (NcclFunction function : {NcclFunction::ALL_GATHER, NcclFunction::REDUCE_SCATTER})
    {
        BOOST_TEST(model.Bandwidth(function, NcclAlgorithm::NVLS, NcclProtocol::SIMPLE) == 208.25,
                   boost::test_tools::tolerance(1e-9));
        BOOST_TEST(model.Latency(function, NcclAlgorithm::NVLS, NcclProtocol::SIMPLE) == 25.0);
        BOOST_TEST(model.Bandwidth(function, NcclAlgorithm::NVLS, NcclProtocol::LL128) == 0.0);
        // NCCL's ring is faster by its own model at every size (16 channels of 370.8 / 16
        // GB/s x 8/7 = 423.8 GB/s, its LL latency 6.6 + 7 x 0.6 = 10.8 us against 25): NCCL
        // does not pick NVLS here unless NCCL_ALGO says so.
        BOOST_TEST((model.Choose(function, uint64_t(1) << 30).algorithm == NcclAlgorithm::RING));
        BOOST_TEST((model.Choose(function, 8).algorithm == NcclAlgorithm::RING));
        const NcclTuningModel forced(OneH100Node(true), "NVLS", "");
        BOOST_TEST((forced.Choose(function, uint64_t(1) << 30).algorithm == NcclAlgorithm::NVLS));
    }
    // Across hosts NCCL runs NVLS all-gather only with CollNet (SHARP in the network): not
    // offered on two hosts.
    NcclTuningConfig twoHosts = OneH100Node(true);
    twoHosts.nodes = 2;
    const NcclTuningModel two(twoHosts, "", "");
    BOOST_TEST(two.Bandwidth(NcclFunction::ALL_GATHER, NcclAlgorithm::NVLS, NcclProtocol::SIMPLE) ==
               0.0);
}

BOOST_AUTO_TEST_CASE(pair_bytes_of_all_gather_and_reduce_scatter)
{
    // 4 GPUs, N = 1,200: an all-gather's port takes in all 4 slices (1,200, its own echoed by
    // the multicast), a reduce-scatter's gives out all 4 (1,200): 1,200 / 3 = 400 per pair.
    BOOST_TEST(NvlsSchedule::PairBytes(1200, 4, NcclFunction::ALL_GATHER) == 400u);
    BOOST_TEST(NvlsSchedule::PairBytes(1200, 4, NcclFunction::REDUCE_SCATTER) == 400u);
    BOOST_TEST(NvlsSchedule::PairBytes(1201, 4, NcclFunction::REDUCE_SCATTER) == 401u);
    BOOST_TEST(NvlsSchedule::PairBytes(1200, 4, NcclFunction::ALL_REDUCE) == 500u);
}

BOOST_AUTO_TEST_CASE(schedule_ops_by_hand)
{
    // 4 ranks, 1,200 bytes: each ordered pair exchanges ceil(1200 x 5 / 12) = 500 bytes (a GPU
    // sends 3 x 500 = N (n+1) / n = 1,500); chunks of at most 200: 3 chunks (500 split
    // evenly); window 2; wire factor 1.
    BOOST_TEST(NvlsSchedule::PairBytes(1200, 4) == 500u);
    BOOST_TEST(NvlsSchedule::PairBytes(1201, 4) == 501u);
    BOOST_TEST(NvlsSchedule::PairBytes(1200, 1) == 0u);
    NvlsSchedule schedule({1, 2, 3}, 500, 200, 2, 1.0, 10);
    BOOST_TEST(schedule.Size() == 18u); // 3 chunks x 3 peers x (send, receive)
    BOOST_TEST(schedule.WindowOps() == 12u);
    uint64_t sent = 0;
    for (uint32_t op = 0; op < schedule.Size(); ++op)
    {
        const MessageOp o = schedule.Op(op);
        const uint32_t chunk = op / 6;
        BOOST_TEST(o.send == (op % 2 == 0));
        BOOST_TEST(o.peer == 1 + (op / 2) % 3);
        BOOST_TEST(o.tag == 10 + chunk);
        sent += o.send ? o.bytes : 0;
        // Sends of chunks 0 and 1 wait for nothing; chunk 2's wait for chunk 0's to the same
        // peer; receives wait for nothing.
        if (o.send && chunk == 2)
        {
            BOOST_TEST(schedule.DepCount(op) == 1u);
            BOOST_TEST(schedule.Dep(op, 0) == op - 12);
        }
        else
        {
            BOOST_TEST(schedule.DepCount(op) == 0u);
        }
        if (o.send && chunk == 0)
        {
            BOOST_TEST(schedule.DependentCount(op) == 1u);
            BOOST_TEST(schedule.Dependent(op, 0) == op + 12);
        }
        else
        {
            BOOST_TEST(schedule.DependentCount(op) == 0u);
        }
    }
    BOOST_TEST(sent == 1500u);
    std::vector<uint32_t> sends;
    BOOST_TEST(schedule.InitialSends(sends));
    BOOST_TEST(sends == (std::vector<uint32_t>{0, 2, 4, 6, 8, 10}));
    // A receive of chunk 1 from peer 3 (the third peer) is op 2 (1 x 3 + 2) + 1 = 11.
    BOOST_TEST(schedule.NextRecv(3, 11, CollectiveSchedule::kNone) == 11u);
    BOOST_TEST(schedule.NextRecv(3, 11, 11) == CollectiveSchedule::kNone);
    BOOST_TEST(schedule.NextRecv(0, 11, CollectiveSchedule::kNone) == CollectiveSchedule::kNone);
    BOOST_TEST(schedule.NextRecv(3, 13, CollectiveSchedule::kNone) == CollectiveSchedule::kNone);
    // The wire factor multiplies every message.
    NvlsSchedule wide({1}, 1000, 1000, 1, 1.25, 0);
    BOOST_TEST(wide.Op(0).bytes == 1250u);
    BOOST_CHECK_THROW(NvlsSchedule({1}, 1000, 1000, 0, 1.0, 0), std::invalid_argument);
    BOOST_CHECK_THROW(NvlsSchedule({1}, 1000, 0, 1, 1.0, 0), std::invalid_argument);
}

BOOST_AUTO_TEST_CASE(the_nccl_model_runs_nvls_on_one_hopper_host_only)
{
    Ptr<NcclCollective> nccl = CreateObject<NcclCollective>();
    const CollectiveRequest large = OneHostRequest(ChakraProtoMsg::ALL_REDUCE, 8, 256 << 20);
    NcclPlan plan = nccl->Plan(large);
    BOOST_TEST((plan.ran == NcclAlgorithm::NVLS));
    BOOST_TEST(plan.channels == 16u);
    BOOST_TEST(plan.chunkBytes == 65536u); // 256 MiB: between 64 MiB and 1 GiB
    BOOST_TEST(plan.wireFactor == 1 / (0.85 * 0.824), boost::test_tools::tolerance(1e-12));
    // Ampere: no NVLS; NvlsSupport off: none; asked for on Ampere: refused where it is set.
    nccl->SetAttribute("GpuGeneration", EnumValue(static_cast<int>(NcclGpuGeneration::AMPERE)));
    BOOST_TEST((nccl->Plan(large).ran != NcclAlgorithm::NVLS));
    nccl->SetAttribute("Nvls", EnumValue(static_cast<int>(NvlsSupport::ON)));
    BOOST_CHECK_THROW(nccl->Plan(large), std::invalid_argument);
    Ptr<NcclCollective> off = CreateObject<NcclCollective>();
    // The attribute's names are the flag's (--nvls auto|on|off); others are refused.
    BOOST_TEST(!off->SetAttributeFailSafe("Nvls", StringValue("sometimes")));
    BOOST_TEST(off->SetAttributeFailSafe("Nvls", StringValue("off")));
    BOOST_TEST((off->Plan(large).ran != NcclAlgorithm::NVLS));
}

BOOST_AUTO_TEST_CASE(simulated_busbw_against_the_closed_form_and_nccl)
{
    // 256 MiB all-reduce on one host of 8 H100 (NVLink 450 GB/s a GPU), flow transport, NCCL's
    // choice (NVLS). Each GPU's NVLink port carries N (n+1) / n bytes each way (reduce: out N,
    // in N / n; broadcast: out N / n, in N), at NCCL's NVLS efficiency x its NVLink efficiency
    // (0.85 x 0.824), after 25 us: T = 25 us + N x 9/8 / (0.7004 x 450 GB/s), busbw =
    // 2 (n-1)/n N / T. NCCL's own prediction: 25 us + N / 272 GB/s (its speed table rounds
    // the 41.2 GB/s a channel down to 40: 3% slower than the link loads).
    const uint64_t perRank = uint64_t(256) << 20;
    ChakraReport report = chakra_test::RunNcclCall(ChakraProtoMsg::ALL_REDUCE, 1, 8, perRank);
    BOOST_REQUIRE(report.AllFinished());
    const double n = 8;
    const double bytes = static_cast<double>(perRank);
    const double seconds = report.GetIterationTime().GetSeconds();
    const double busbw = 2 * (n - 1) / n * bytes / seconds / 1e9;
    const double closedSeconds = 25e-6 + bytes * (n + 1) / n / (0.85 * 0.824 * 450e9);
    const double closed = 2 * (n - 1) / n * bytes / closedSeconds / 1e9;
    const double ncclSeconds = 25e-6 + bytes / 272e9;
    const double nccl = 2 * (n - 1) / n * bytes / ncclSeconds / 1e9;
    BOOST_TEST_MESSAGE("busbw " << busbw << " GB/s; closed form " << closed << ", NCCL " << nccl);
    BOOST_TEST(std::abs(busbw / closed - 1) < 0.05, "busbw " << busbw << ", closed " << closed);
    BOOST_TEST(std::abs(busbw / nccl - 1) < 0.10, "busbw " << busbw << ", NCCL " << nccl);
    BOOST_TEST(report.GetCollectives().size() == 1u);
    // Faster than NCCL's rings on the same machine, as on real H100 (~480 against ~370).
    BOOST_TEST(busbw > 400.0);
}

BOOST_AUTO_TEST_CASE(simulated_nvls_all_gather_against_its_link_loads)
{
    // 32 MiB from each of 8 H100 (N = 256 MiB), NCCL_ALGO=NVLS: each GPU's port takes in N
    // (the switch multicasts every slice to every GPU) at 0.85 x 0.824 of 450 GB/s after 25
    // us: T = 25 us + N / (0.7004 x 450 GB/s), 0.877 ms. NCCL's tuning predicts 25 us +
    // N / 208.25 GB/s (1.314 ms): its (ppn-1)/ppn and (nCh-1)/nCh factors are not link loads,
    // and no published all-gather figure says which is right (doc/collectives.md, "NVLS").
    const uint64_t perRank = uint64_t(32) << 20;
    Config::SetDefault("ns3::NcclCollective::NcclAlgo", StringValue("NVLS"));
    ChakraReport report = chakra_test::RunNcclCall(ChakraProtoMsg::ALL_GATHER, 1, 8, perRank);
    Config::SetDefault("ns3::NcclCollective::NcclAlgo", StringValue(""));
    BOOST_REQUIRE(report.AllFinished());
    const double total = 8.0 * static_cast<double>(perRank);
    const double seconds = report.GetIterationTime().GetSeconds();
    const double closedSeconds = 25e-6 + total / (0.85 * 0.824 * 450e9);
    BOOST_TEST_MESSAGE("all-gather " << seconds * 1e6 << " us; link loads " << closedSeconds * 1e6
                                     << " us");
    BOOST_TEST(std::abs(seconds / closedSeconds - 1) < 0.05,
               "simulated " << seconds << " s, closed form " << closedSeconds << " s");
}

namespace
{

/** \p nodes hosts of 8 H100 with 400 Gb/s NICs (50 GB/s a GPU), NVLSTree available. */
NcclTuningConfig
H100Hosts(uint32_t nodes)
{
    NcclTuningConfig config = OneH100Node(false);
    config.nodes = nodes;
    config.interBandwidth = 8 * 50.0;
    config.nicBandwidth = 50.0;
    config.nvlsTree = true;
    return config;
}

} // namespace

BOOST_AUTO_TEST_CASE(nvls_tree_tuning_rows_by_hand)
{
    // NCCL 2.30.7 tuning.cc, NVLS_TREE: one channel per GPU at the speed that fits NVLink /
    // (8 + 1) = 41.2 and the 50 GB/s NIC: 40. Per channel min(40 x 0.85 x 7/8 x 2 = 59.5,
    // 40 x 2 on 2 nodes = 80, cap 57.7) = 57.7; x 8 = 461.6 busbw, x 16/30 = 246.19 GB/s;
    // latency 25 + 2 x log2(2) x 20.9 = 66.8 us. On 4 nodes min(59.5, 40, 45.5) = 40: 320
    // x 32/62 = 165.16 GB/s; 25 + 2 x 2 x 20.9 = 108.6 us.
    const auto ar = NcclFunction::ALL_REDUCE;
    const auto simple = NcclProtocol::SIMPLE;
    const NcclTuningModel two(H100Hosts(2));
    BOOST_TEST(two.Bandwidth(ar, NcclAlgorithm::NVLS_TREE, simple) == 461.6 * 16 / 30,
               boost::test_tools::tolerance(1e-9));
    BOOST_TEST(two.Latency(ar, NcclAlgorithm::NVLS_TREE, simple) == 66.8,
               boost::test_tools::tolerance(1e-9));
    const NcclTuningModel four(H100Hosts(4));
    BOOST_TEST(four.Bandwidth(ar, NcclAlgorithm::NVLS_TREE, simple) == 320.0 * 32 / 62,
               boost::test_tools::tolerance(1e-9));
    BOOST_TEST(four.Latency(ar, NcclAlgorithm::NVLS_TREE, simple) == 108.6,
               boost::test_tools::tolerance(1e-9));
    // NCCL's choice on 2 hosts for a large all-reduce: NVLSTree (246 GB/s against the rings'
    // 370.8 x 16/30 = 197.8); all-reduce and Simple only; not without NVLS, not on one host.
    BOOST_TEST((two.Choose(ar, uint64_t(256) << 20).algorithm == NcclAlgorithm::NVLS_TREE));
    BOOST_TEST(two.Bandwidth(ar, NcclAlgorithm::NVLS_TREE, NcclProtocol::LL128) == 0.0);
    BOOST_TEST(two.Bandwidth(NcclFunction::ALL_GATHER, NcclAlgorithm::NVLS_TREE, simple) == 0.0);
    NcclTuningConfig off = H100Hosts(2);
    off.nvlsTree = false;
    BOOST_TEST(NcclTuningModel(off).Bandwidth(ar, NcclAlgorithm::NVLS_TREE, simple) == 0.0);
    NcclTuningConfig one = H100Hosts(1);
    BOOST_TEST(NcclTuningModel(one).Bandwidth(ar, NcclAlgorithm::NVLS_TREE, simple) == 0.0);
    // 100 Gb/s NICs (12.5 GB/s): the graph's speed falls to 12 (the table's fastest that fits):
    // min(12 x 0.85 x 7/8 x 2 = 17.85, 24, 57.7) x 8 x 16/30.
    NcclTuningConfig slow = H100Hosts(2);
    slow.nicBandwidth = 12.5;
    BOOST_TEST(NcclTuningModel(slow).Bandwidth(ar, NcclAlgorithm::NVLS_TREE, simple) ==
                   17.85 * 8 * 16 / 30,
               boost::test_tools::tolerance(1e-9));
}

BOOST_AUTO_TEST_CASE(nvls_tree_loads_by_hand)
{
    // 2 hosts x 4 GPUs, N = 400,000: slices of 100,000, one chunk each. Inside a host each
    // NVLS phase sends every peer ceil(100,000 x 5 / 6) = 83,334: 6 x 83,334 = 500,004 each
    // way, N (g+1)/g and rounding. Across hosts, the tree of two: each head sends its slice
    // up or down once and receives it once: N / g = 100,000 each way.
    Ptr<NcclCollective> nccl = CreateObject<NcclCollective>();
    nccl->SetAttribute("NcclAlgo", StringValue("NVLSTree"));
    nccl->SetAttribute("NvLinkEfficiency", DoubleValue(1));
    auto request = chakra_test::Request(ChakraProtoMsg::ALL_REDUCE, 2, 4, 400000);
    BOOST_TEST((nccl->Plan(request).ran == NcclAlgorithm::NVLS_TREE));
    // Payload bytes: without NCCL's NVLS efficiency on the NVLink hops.
    std::map<uint32_t, std::array<uint64_t, 4>> loads; // nvlink out, in; nic out, in
    const double nvls = NvlsEfficiency(NcclGpuGeneration::HOPPER);
    for (const auto& m : chakra_test::AllSends(*nccl, request))
    {
        const bool sameHost = m.from / 4 == m.to / 4;
        const uint64_t payload =
            sameHost ? static_cast<uint64_t>(std::floor(static_cast<double>(m.bytes) * nvls))
                     : m.bytes;
        loads[m.from][sameHost ? 0 : 2] += payload;
        loads[m.to][sameHost ? 1 : 3] += payload;
    }
    for (const auto& [rank, load] : loads)
    {
        BOOST_TEST(std::llabs(static_cast<long long>(load[0]) - 500004) <= 6, "rank " << rank);
        BOOST_TEST(std::llabs(static_cast<long long>(load[1]) - 500004) <= 6, "rank " << rank);
        BOOST_TEST(load[2] == 100000u, "rank " << rank);
        BOOST_TEST(load[3] == 100000u, "rank " << rank);
    }
    // 4 hosts x 2 GPUs, N = 80,000 in chunks alternating between the two trees: every edge of
    // a tree over 4 hosts (3 of them) carries each piece up and down, so the network carries
    // 2 x 3 x 80,000 bytes in all.
    nccl->SetAttribute("NvLinkEfficiency", DoubleValue(1));
    request = chakra_test::Request(ChakraProtoMsg::ALL_REDUCE, 4, 2, 80000);
    uint64_t network = 0;
    for (const auto& m : chakra_test::AllSends(*nccl, request))
    {
        network += m.from / 2 != m.to / 2 ? m.bytes : 0;
    }
    BOOST_TEST(network == 480000u);
}

BOOST_AUTO_TEST_CASE(simulated_nvls_tree_against_its_link_loads_and_nccl)
{
    // 256 MiB on 2 x 8 H100 (NIC 400 Gb/s), flow, NCCL's choice (NVLSTree). Each GPU's NVLink
    // port carries N (g+1)/g each way at 0.85 x 0.824 of 450 GB/s (958 us); its NIC N/g at 50
    // GB/s (671 us): NVLink binds. Closed form: 66.8 us + 958.2 = 1,025 us. NCCL's own
    // prediction: 66.8 + N / 246.19 GB/s = 1,157 us (its conversion counts 16 ranks' steps,
    // and its per-channel cap binds; the link loads do not).
    const uint64_t perRank = uint64_t(256) << 20;
    ChakraReport report = chakra_test::RunNcclCall(ChakraProtoMsg::ALL_REDUCE, 2, 8, perRank);
    BOOST_REQUIRE(report.AllFinished());
    const double bytes = static_cast<double>(perRank);
    const double us = report.GetIterationTime().GetMicroSeconds();
    const double closed = 66.8 + bytes * 9 / 8 / (0.85 * 0.824 * 450e9) * 1e6;
    const double nccl = 66.8 + bytes / (461.6 * 16 / 30 * 1e3);
    BOOST_TEST_MESSAGE("NVLSTree " << us << " us; link loads " << closed << ", NCCL " << nccl);
    BOOST_TEST(std::abs(us / closed - 1) < 0.05, "simulated " << us << " us, closed " << closed);
    BOOST_TEST(std::abs(us / nccl - 1) < 0.15, "simulated " << us << " us, NCCL " << nccl);
}

BOOST_AUTO_TEST_CASE(nvls_sharp_tuning_rows_by_hand)
{
    // NCCL 2.30.7 tuning.cc, NVLS on several nodes (it needs CollNet: SHARP in the switches):
    // the NVLS graph as NVLSTree's, 8 channels of 40 GB/s; per channel min(40 x 0.85 x 7/8 x 2
    // = 59.5, 40 x 1) = 40; x 8 = 320 busbw; on 4 nodes x 32/62 = 165.16 GB/s; latency NVLS's
    // NVLink 25 + its network hop 18 = 43 us, no base.
    const auto ar = NcclFunction::ALL_REDUCE;
    const auto simple = NcclProtocol::SIMPLE;
    NcclTuningConfig config = H100Hosts(4);
    config.collNet = true;
    const NcclTuningModel four(config);
    BOOST_TEST(four.Bandwidth(ar, NcclAlgorithm::NVLS, simple) == 320.0 * 32 / 62,
               boost::test_tools::tolerance(1e-9));
    BOOST_TEST(four.Latency(ar, NcclAlgorithm::NVLS, simple) == 43.0,
               boost::test_tools::tolerance(1e-9));
    // NCCL's choice at 64 KiB on 4 nodes with SHARP: NVLS (43 us + 0.4 against Tree/LL's 45.9).
    BOOST_TEST((four.Choose(ar, 64 << 10).algorithm == NcclAlgorithm::NVLS));
    // All-reduce and Simple only; not without SHARP, not without reducing NVSwitches, not with
    // more than 8 GPUs a host (CollNet's limit).
    BOOST_TEST(four.Bandwidth(ar, NcclAlgorithm::NVLS, NcclProtocol::LL128) == 0.0);
    BOOST_TEST(four.Bandwidth(NcclFunction::ALL_GATHER, NcclAlgorithm::NVLS, simple) == 0.0);
    BOOST_TEST(NcclTuningModel(H100Hosts(4)).Bandwidth(ar, NcclAlgorithm::NVLS, simple) == 0.0);
    NcclTuningConfig noSwitch = config;
    noSwitch.nvlsTree = false;
    BOOST_TEST(NcclTuningModel(noSwitch).Bandwidth(ar, NcclAlgorithm::NVLS, simple) == 0.0);
    NcclTuningConfig wide = config;
    wide.ranksPerNode = 16;
    wide.interBandwidth = 16 * 50.0;
    BOOST_TEST(NcclTuningModel(wide).Bandwidth(ar, NcclAlgorithm::NVLS, simple) == 0.0);
    // Forced without SHARP: an error that says why.
    NcclTuningConfig withoutSharp = H100Hosts(4);
    withoutSharp.nvlsWhy = "the communicator spans 4 hosts: NCCL runs NVLS across hosts only "
                           "with CollNet";
    BOOST_CHECK_EXCEPTION(NcclTuningModel(withoutSharp, "NVLS").Choose(ar, 1 << 20),
                          std::invalid_argument,
                          [](const std::invalid_argument& e) {
                              return std::string(e.what()).find("only with CollNet") !=
                                     std::string::npos;
                          });
}

BOOST_AUTO_TEST_CASE(nvls_sharp_loads_by_hand)
{
    // 3 hosts x 4 GPUs, N = 120,000: slices of 30,000 (chunk 16 KiB by NVLS's rule: 2 chunks of
    // 15,000). Inside a host each NVLS phase sends every peer ceil(15,000 x 5 / 6) = 12,500 a
    // chunk: 2 phases x 3 peers x 2 chunks = 150,000 = N (g+1)/g each way. Across hosts SHARP's
    // loads: each NIC sends its slice up once and receives the result once, N / g = 30,000
    // each way, on its rail, whatever the host count.
    Ptr<NcclCollective> nccl = CreateObject<NcclCollective>();
    nccl->SetAttribute("NcclAlgo", StringValue("NVLS"));
    nccl->SetAttribute("Sharp", EnumValue(static_cast<int>(SharpSupport::ON)));
    nccl->SetAttribute("NvLinkEfficiency", DoubleValue(1));
    const auto request = chakra_test::Request(ChakraProtoMsg::ALL_REDUCE, 3, 4, 120000);
    const NcclPlan plan = nccl->Plan(request);
    BOOST_TEST((plan.ran == NcclAlgorithm::NVLS));
    BOOST_TEST(plan.chunkBytes == 16384u);
    std::map<uint32_t, std::array<uint64_t, 4>> loads; // nvlink out, in; nic out, in
    const double nvls = NvlsEfficiency(NcclGpuGeneration::HOPPER);
    const auto sends = chakra_test::AllSends(*nccl, request);
    for (const auto& m : sends)
    {
        const bool sameHost = m.from / 4 == m.to / 4;
        // NVLink messages carry payload / NCCL's NVLS efficiency, rounded up.
        BOOST_TEST((!sameHost || m.bytes == static_cast<uint64_t>(std::ceil(12500 / nvls))));
        loads[m.from][sameHost ? 0 : 2] += sameHost ? 12500 : m.bytes;
        loads[m.to][sameHost ? 1 : 3] += sameHost ? 12500 : m.bytes;
        if (!sameHost)
        {
            BOOST_TEST(m.from % 4 == m.to % 4);
        }
    }
    BOOST_REQUIRE(loads.size() == 12u);
    for (const auto& [rank, load] : loads)
    {
        BOOST_TEST(load[0] == 150000u, "rank " << rank);
        BOOST_TEST(load[1] == 150000u, "rank " << rank);
        BOOST_TEST(load[2] == 30000u, "rank " << rank);
        BOOST_TEST(load[3] == 30000u, "rank " << rank);
    }
    // Without SHARP the model refuses NVLS across hosts, naming the flag.
    nccl->SetAttribute("Sharp", EnumValue(static_cast<int>(SharpSupport::OFF)));
    BOOST_CHECK_EXCEPTION(nccl->Plan(request),
                          std::invalid_argument,
                          [](const std::invalid_argument& e) {
                              return std::string(e.what()).find("--sharp on") != std::string::npos;
                          });
}

BOOST_AUTO_TEST_CASE(simulated_nvls_sharp_against_its_link_loads_and_nccl)
{
    // 256 MiB on 4 x 8 H100 (NIC 400 Gb/s), flow, rail-optimized, SHARP on, NCCL_ALGO=NVLS.
    // Each GPU's NVLink port carries N (g+1)/g each way at 0.85 x 0.824 of 450 GB/s (958 us),
    // its NIC N/g at 50 GB/s (671 us): NVLink binds. Closed form: 43 us + 958.2 = 1,001 us.
    // NCCL's own prediction: 43 + N / 165.16 GB/s = 1,668 us (its graph's 40 GB/s a channel;
    // the link loads do not have it): not the target here.
    const uint64_t perRank = uint64_t(256) << 20;
    Config::SetDefault("ns3::NcclCollective::Sharp", EnumValue(static_cast<int>(SharpSupport::ON)));
    Config::SetDefault("ns3::NcclCollective::NcclAlgo", StringValue("NVLS"));
    ChakraReport report =
        chakra_test::RunNcclCall(ChakraProtoMsg::ALL_REDUCE, 4, 8, perRank, "rail-optimized");
    Config::SetDefault("ns3::NcclCollective::Sharp",
                       EnumValue(static_cast<int>(SharpSupport::OFF)));
    Config::SetDefault("ns3::NcclCollective::NcclAlgo", StringValue(""));
    BOOST_REQUIRE(report.AllFinished());
    const double bytes = static_cast<double>(perRank);
    const double us = report.GetIterationTime().GetMicroSeconds();
    const double closed = 43.0 + bytes * 9 / 8 / (0.85 * 0.824 * 450e9) * 1e6;
    BOOST_TEST_MESSAGE("NVLS with SHARP " << us << " us; link loads " << closed << ", NCCL "
                                          << 43.0 + bytes / (320.0 * 32 / 62 * 1e3));
    BOOST_TEST(std::abs(us / closed - 1) < 0.05, "simulated " << us << " us, closed " << closed);
}

BOOST_AUTO_TEST_CASE(calls_too_large_for_their_lists_are_refused)
{
    // NVLSTree's schedules are lists (O(chunks) ops a rank): 8,192 hosts of 8 H100, a 1 GiB
    // all-reduce, NCCL_ALGO=NVLSTree: every one of the 65,536 ranks would hold its list at
    // once, more than 2^30 ops over the call. Refused naming the way out, not run out of memory;
    // 2 hosts build.
    Ptr<NcclCollective> nccl = CreateObject<NcclCollective>();
    nccl->SetAttribute("NcclAlgo", StringValue("NVLSTree"));
    nccl->SetAttribute("Nvls", EnumValue(static_cast<int>(NvlsSupport::ON)));
    auto request = chakra_test::Request(ChakraProtoMsg::ALL_REDUCE, 8192, 8, uint64_t(1) << 30);
    BOOST_CHECK_EXCEPTION(nccl->Build(request),
                          std::invalid_argument,
                          [](const std::invalid_argument& e) {
                              const std::string what = e.what();
                              return what.find("NVLSTree over 65536 ranks") != std::string::npos &&
                                     what.find("NCCL_ALGO (e.g. ^NVLSTree)") != std::string::npos;
                          });
    request = chakra_test::Request(ChakraProtoMsg::ALL_REDUCE, 2, 8, uint64_t(1) << 30);
    BOOST_TEST(nccl->Build(request)->Size() > 0u);
}
