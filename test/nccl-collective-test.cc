/*
 * NcclCollective (issue 27, third slice): channel split, chunks and slices against hand
 * calculations on 2 hosts x 4 GPUs; each channel's ring order and its inter-host hops on one
 * rail; the protocols' wire bytes; the tuning model's choice and every NCCL_ALGO / NCCL_PROTO
 * override honoured; bad values refused naming the attribute; the busbw of a large all-reduce
 * on 2 x 8 H100 against the closed form for C rings; NVLink hops over NCCL's NVLink
 * efficiency; NCCL's per-step protocol latency on the critical path.
 */
#define BOOST_TEST_MODULE nccl_collective
#include "chakra-test-data.h"
#include "nccl-schedules.h"
#include "simulation-util.h"

#include "ns3/chakra-module.h"
#include "ns3/core-module.h"

#include <boost/test/unit_test.hpp>
#include <cmath>
#include <map>
#include <set>

using namespace ns3;

namespace
{

/** \return an NcclCollective with the given attributes ("" leaves the default) */
Ptr<NcclCollective>
Make(uint32_t channels, const std::string& algo = "", const std::string& proto = "")
{
    Ptr<NcclCollective> nccl = CreateObject<NcclCollective>();
    nccl->SetAttribute("Channels", UintegerValue(channels));
    nccl->SetAttribute("NcclAlgo", StringValue(algo));
    nccl->SetAttribute("NcclProto", StringValue(proto));
    // The structural cases count payload and wire bytes by hand: no NVLink efficiency on top
    // (it has its own case).
    nccl->SetAttribute("NvLinkEfficiency", DoubleValue(1));
    return nccl;
}

} // namespace

BOOST_AUTO_TEST_CASE(chunks_slices_and_channels_by_hand)
{
    // NCCL's facts: Simple buffer 4 MiB / 8 steps = 512 KiB a step; ring chunks 4 steps (2 MiB)
    // in slices of 2 steps (1 MiB); pipelines (broadcast, reduce) one step per chunk. LL:
    // 512 KiB buffer / 8 = 64 KiB a step, half payload: 32 KiB. LL128: 4,915,200 / 8 = 614,400
    // a step, 120 of 128: 576,000.
    BOOST_TEST(NcclCollective::ChunkBytes(NcclProtocol::SIMPLE, false) == 2097152u);
    BOOST_TEST(NcclCollective::ChunkBytes(NcclProtocol::SIMPLE, true) == 524288u);
    BOOST_TEST(NcclCollective::ChunkBytes(NcclProtocol::LL, false) == 32768u);
    BOOST_TEST(NcclCollective::ChunkBytes(NcclProtocol::LL128, false) == 576000u);
    BOOST_TEST(NcclCollective::SlicesPerChunk(NcclProtocol::SIMPLE, false) == 2u);
    BOOST_TEST(NcclCollective::SlicesPerChunk(NcclProtocol::SIMPLE, true) == 1u);
    BOOST_TEST(NcclCollective::SlicesPerChunk(NcclProtocol::LL128, false) == 1u);

    // 2 hosts x 4 GPUs, 2 channels, Ring/Simple, all-reduce of 64 MiB: 32 MiB per channel; a
    // loop is 8 ranks x 2 MiB = 16 MiB: 2 loops x 2 slices = 4 units of 8 segments of 1 MiB.
    // 2(n-1) = 14 steps: a ring rank has 2 x 14 x 4 = 112 ops per channel, a relay as many.
    Ptr<NcclCollective> nccl = Make(2, "Ring", "Simple");
    CollectiveRequest request = chakra_test::Request(ChakraProtoMsg::ALL_REDUCE, 2, 4, 64 << 20);
    const NcclPlan plan = nccl->Plan(request);
    BOOST_TEST(plan.channels == 2u);
    BOOST_TEST(plan.nodes == 2u);
    BOOST_TEST(plan.gpusPerNode == 4u);
    BOOST_TEST(plan.chunkBytes == 2097152u);
    BOOST_TEST(plan.slicesPerChunk == 2u);
    for (uint32_t me = 0; me < 8; ++me)
    {
        request.me = me;
        auto schedule = nccl->Build(request);
        // Rank 0 is local GPU 0: the first GPU (relay) of channel 0's chain (rail 0), the
        // last of channel 1's (1, 2, 3, 0); local GPU 1 relays channel 1; 2 and 3 relay none.
        const uint32_t local = me % 4;
        const uint32_t relays = local < 2 ? 1 : 0;
        BOOST_TEST(schedule->Size() == 112u * (2 + relays), "rank " << me);
        for (const CollectiveOp& op : ListOps(*schedule))
        {
            BOOST_TEST(op.bytes == 1048576u);
        }
    }
    // Fewer channels for small sizes (NCCL: while bytes < channels x threads x threshold):
    // Simple 512 x 64 = 32 KiB a channel: 100,000 bytes on 16 channels -> 3; LL128 640 x 8 =
    // 5,120: 16 stay; Ring LL 512 x 8 x 8 ranks = 32 KiB: 3.
    request.bytes = 100000;
    BOOST_TEST(Make(16, "Ring", "Simple")->Plan(request).channels == 3u);
    BOOST_TEST(Make(16, "Ring", "LL128")->Plan(request).channels == 16u);
    BOOST_TEST(Make(16, "Ring", "LL")->Plan(request).channels == 3u);
    request.bytes = 8;
    BOOST_TEST(Make(16, "Ring", "Simple")->Plan(request).channels == 1u);

    // Broadcast of 3 MiB, 2 channels, Simple: 1.5 MiB per channel in 512 KiB chunks: 3
    // messages per channel along the chain.
    CollectiveRequest bcast = chakra_test::Request(ChakraProtoMsg::BROADCAST, 2, 4, 3 << 20);
    bcast.root = 0;
    const std::vector<chakra_test::Message> sends =
        chakra_test::AllSends(*Make(2, "Ring", "Simple"), bcast);
    // Per channel: 7 chain hops (8 ranks) + 1 relay hop out of each host the chain leaves
    // through its last GPU: channel 0 (root 0 is its first GPU of host 0): the chain leaves
    // host 0 (relay) and ends at host 1's last GPU: 7 + 1 hops; channel 1 (root 0 is host 0's
    // last GPU): 0 -> 1 (the relay) -> host 1 ... -> host 1's last GPU 4 -> 5 (relay) -> host 0
    // ... -> 3: 7 + 2 hops. 3 messages each: (8 + 9) x 3 = 51 sends of 512 KiB.
    BOOST_TEST(sends.size() == 51u);
    for (const chakra_test::Message& m : sends)
    {
        BOOST_TEST(m.bytes == 524288u);
    }
}

BOOST_AUTO_TEST_CASE(ring_order_per_channel_and_one_rail_per_network_hop)
{
    // 2 hosts x 4 GPUs, 2 channels. Channel c: rail c; host chain c, c+1, ..., c-1; the last
    // GPU hands its data to the rail's GPU (relay), which sends to the next host's rail GPU.
    Ptr<NcclCollective> nccl = Make(2, "Ring", "Simple");
    const CollectiveRequest request =
        chakra_test::Request(ChakraProtoMsg::ALL_REDUCE, 2, 4, 64 << 20);
    const std::vector<chakra_test::Message> sends = chakra_test::AllSends(*nccl, request);
    // 4 units x 2 x 8 tags per channel: channel 0 tags 0-63, channel 1 64-127.
    std::map<int, std::set<std::pair<uint32_t, uint32_t>>> edges;
    for (const chakra_test::Message& m : sends)
    {
        BOOST_TEST_REQUIRE(m.tag < 128);
        const int channel = static_cast<int>(m.tag / 64);
        edges[channel].insert({m.from, m.to});
        if (m.from / 4 != m.to / 4)
        {
            BOOST_TEST(m.from % 4 == static_cast<uint32_t>(channel), m.from << "->" << m.to);
            BOOST_TEST(m.to % 4 == static_cast<uint32_t>(channel), m.from << "->" << m.to);
        }
    }
    const std::set<std::pair<uint32_t, uint32_t>> channel0 =
        {{0, 1}, {1, 2}, {2, 3}, {3, 0}, {0, 4}, {4, 5}, {5, 6}, {6, 7}, {7, 4}, {4, 0}};
    const std::set<std::pair<uint32_t, uint32_t>> channel1 =
        {{1, 2}, {2, 3}, {3, 0}, {0, 1}, {1, 5}, {5, 6}, {6, 7}, {7, 4}, {4, 5}, {5, 1}};
    BOOST_TEST((edges[0] == channel0));
    BOOST_TEST((edges[1] == channel1));
    // One host: a plain ring over its GPUs, channel c starting at GPU c mod g.
    const std::vector<chakra_test::Message> one =
        chakra_test::AllSends(*nccl,
                              chakra_test::Request(ChakraProtoMsg::ALL_GATHER, 1, 4, 1 << 20));
    std::set<std::pair<uint32_t, uint32_t>> ring;
    for (const chakra_test::Message& m : one)
    {
        ring.insert({m.from, m.to});
    }
    BOOST_TEST((ring == std::set<std::pair<uint32_t, uint32_t>>{{0, 1}, {1, 2}, {2, 3}, {3, 0}}));
}

BOOST_AUTO_TEST_CASE(protocol_wire_bytes)
{
    BOOST_TEST(NcclCollective::WireBytes(NcclProtocol::LL, 8) == 16u);
    BOOST_TEST(NcclCollective::WireBytes(NcclProtocol::LL, 1) == 16u);
    BOOST_TEST(NcclCollective::WireBytes(NcclProtocol::LL, 1000) == 2000u);
    BOOST_TEST(NcclCollective::WireBytes(NcclProtocol::LL128, 120) == 128u);
    BOOST_TEST(NcclCollective::WireBytes(NcclProtocol::LL128, 121) == 256u);
    BOOST_TEST(NcclCollective::WireBytes(NcclProtocol::LL128, 1200) == 1280u);
    BOOST_TEST(NcclCollective::WireBytes(NcclProtocol::SIMPLE, 1201) == 1201u);
    BOOST_TEST(NcclCollective::WireBytes(NcclProtocol::LL, 0) == 0u);
    // LL all-reduce of 64 KiB on 2 x 4, 2 channels (Ring LL keeps 2: 65,536 >= 2 x 32,768):
    // 32 KiB a channel = one LL chunk, one unit, 8 segments of 4 KiB: 8 KiB on the wire.
    CollectiveRequest request = chakra_test::Request(ChakraProtoMsg::ALL_REDUCE, 2, 4, 64 << 10);
    for (const chakra_test::Message& m : chakra_test::AllSends(*Make(2, "Ring", "LL"), request))
    {
        BOOST_TEST(m.bytes == 8192u);
    }
    // LL128: 4 KiB = 4096 bytes -> 35 lines of 128 = 4480.
    for (const chakra_test::Message& m : chakra_test::AllSends(*Make(2, "Ring", "LL128"), request))
    {
        BOOST_TEST(m.bytes == 4480u);
    }
}

BOOST_AUTO_TEST_CASE(choice_and_overrides)
{
    // 2 x 8 H100, 16 channels, no override: the tuning model's pair, whose protocol the
    // messages carry. Small sizes take LL (latency), 256 MiB Ring/LL128 (below). NVSwitches
    // that do not reduce (NVLSTree has its own cases: nvls-test).
    Ptr<NcclCollective> nccl = Make(16);
    nccl->SetAttribute("Nvls", EnumValue(static_cast<int>(NvlsSupport::OFF)));
    CollectiveRequest request = chakra_test::Request(ChakraProtoMsg::ALL_REDUCE, 2, 8, 8 << 10);
    NcclTuningConfig config;
    config.nodes = 2;
    config.ranksPerNode = 8;
    config.channels = 16;
    config.intraBandwidth = 450;
    config.interBandwidth = 400;
    const NcclTuningModel tuning(config);
    for (uint64_t bytes : {uint64_t(8) << 10, uint64_t(1) << 20, uint64_t(256) << 20})
    {
        request.bytes = bytes;
        const NcclPlan plan = nccl->Plan(request);
        const NcclChoice expected = tuning.Choose(NcclFunction::ALL_REDUCE, bytes);
        BOOST_TEST(static_cast<int>(plan.choice.algorithm) == static_cast<int>(expected.algorithm));
        BOOST_TEST(static_cast<int>(plan.choice.protocol) == static_cast<int>(expected.protocol));
        BOOST_TEST(plan.choice.time == expected.time);
    }
    request.bytes = 8 << 10;
    BOOST_TEST(static_cast<int>(nccl->Plan(request).choice.protocol) ==
               static_cast<int>(NcclProtocol::LL));
    // 256 MiB by hand (2 nodes: NCCL takes bwIntra = 450/16 a channel; 30 steps, 2 on the
    // network): Ring/Simple B = 450 x 16/30 = 240, L = (8.4 + 28 x 3.4 + 2 x 14) x 1.4 = 184.2:
    // 1302.7 us; Ring/LL128 B = min(0.92 x 450, 16 x 36.7) x 16/30 = 220.8, L = 14 + 28 x 1.9
    // + 2 x 4 = 75.2: 1291.0 us: LL128, by 1%.
    request.bytes = uint64_t(256) << 20;
    BOOST_TEST(static_cast<int>(nccl->Plan(request).choice.protocol) ==
               static_cast<int>(NcclProtocol::LL128));
    BOOST_TEST(static_cast<int>(nccl->Plan(request).choice.algorithm) ==
               static_cast<int>(NcclAlgorithm::RING));
    // Each override honoured.
    const std::map<std::string, NcclProtocol> protocols = {{"LL", NcclProtocol::LL},
                                                           {"LL128", NcclProtocol::LL128},
                                                           {"Simple", NcclProtocol::SIMPLE},
                                                           {"^LL,LL128", NcclProtocol::SIMPLE}};
    for (const auto& [text, protocol] : protocols)
    {
        for (uint64_t bytes : {uint64_t(8) << 10, uint64_t(256) << 20})
        {
            request.bytes = bytes;
            const NcclPlan plan = Make(16, "", text)->Plan(request);
            BOOST_TEST(static_cast<int>(plan.choice.protocol) == static_cast<int>(protocol),
                       "NCCL_PROTO=" << text << " " << bytes);
        }
    }
    for (const auto& [text, algorithm] :
         std::map<std::string, NcclAlgorithm>{{"Ring", NcclAlgorithm::RING},
                                              {"Tree", NcclAlgorithm::TREE},
                                              {"^Ring", NcclAlgorithm::TREE},
                                              {"allreduce:ring", NcclAlgorithm::RING}})
    {
        for (uint64_t bytes : {uint64_t(8) << 10, uint64_t(256) << 20})
        {
            request.bytes = bytes;
            Ptr<NcclCollective> overridden = Make(16, text);
            overridden->SetAttribute("Nvls", EnumValue(static_cast<int>(NvlsSupport::OFF)));
            const NcclPlan plan = overridden->Plan(request);
            BOOST_TEST(static_cast<int>(plan.choice.algorithm) == static_cast<int>(algorithm),
                       "NCCL_ALGO=" << text << " " << bytes);
            BOOST_TEST(static_cast<int>(plan.ran) == static_cast<int>(algorithm));
        }
    }
    // The protocol reaches the wire: LL doubles the bytes of an all-gather.
    CollectiveRequest gather = chakra_test::Request(ChakraProtoMsg::ALL_GATHER, 2, 4, 1 << 20);
    uint64_t simple = 0;
    uint64_t ll = 0;
    for (const chakra_test::Message& m : chakra_test::AllSends(*Make(2, "", "Simple"), gather))
    {
        simple += m.bytes;
    }
    for (const chakra_test::Message& m : chakra_test::AllSends(*Make(2, "", "LL"), gather))
    {
        ll += m.bytes;
    }
    BOOST_TEST(ll == 2 * simple);
    // NCCL_ALGO=Tree leaves nothing for all-gather: nccl takes the call and refuses it, as
    // NCCL would, naming the variable (the application stops with that message); no quiet
    // change to another algorithm.
    BOOST_TEST(Make(2, "Tree")->Supports(gather));
    gather.me = 0;
    BOOST_CHECK_EXCEPTION(Make(2, "Tree")->Build(gather),
                          std::invalid_argument,
                          [](const std::invalid_argument& e) {
                              return std::string(e.what()).find("NCCL_ALGO=Tree") !=
                                     std::string::npos;
                          });
    BOOST_TEST(Make(2, "Ring")->Supports(gather));
    // Hosts holding different numbers of members are outside the model: the default runs.
    CollectiveRequest uneven = chakra_test::Request(ChakraProtoMsg::ALL_GATHER, 1, 3, 1 << 20);
    uneven.hostOf = std::make_shared<std::vector<uint32_t>>(std::vector<uint32_t>{0, 0, 1});
    BOOST_TEST(!Make(2, "Ring")->Supports(uneven));
}

BOOST_AUTO_TEST_CASE(bad_values_name_the_attribute)
{
    BOOST_CHECK_EXCEPTION(NcclCollective::CheckSetting("NcclAlgo", "Rign"),
                          std::invalid_argument,
                          [](const std::invalid_argument& e) {
                              const std::string what = e.what();
                              return what.find("ns3::NcclCollective::NcclAlgo") == 0 &&
                                     what.find("unknown algorithm 'Rign'") != std::string::npos;
                          });
    BOOST_CHECK_EXCEPTION(NcclCollective::CheckSetting("NcclProto", "LL64"),
                          std::invalid_argument,
                          [](const std::invalid_argument& e) {
                              const std::string what = e.what();
                              return what.find("ns3::NcclCollective::NcclProto") == 0 &&
                                     what.find("unknown protocol 'LL64'") != std::string::npos;
                          });
    BOOST_CHECK_NO_THROW(NcclCollective::CheckSetting("NcclProto", "^LL128"));
    // Refused where it is set: the attribute keeps its value.
    Ptr<NcclCollective> nccl = CreateObject<NcclCollective>();
    BOOST_TEST(!nccl->SetAttributeFailSafe("NcclAlgo", StringValue("Rign")));
    BOOST_TEST(!nccl->SetAttributeFailSafe("NcclProto", StringValue("allreduce:LL;bogus:LL")));
    BOOST_TEST(nccl->SetAttributeFailSafe("NcclProto", StringValue("allreduce:LL")));
    StringValue value;
    nccl->GetAttribute("NcclAlgo", value);
    BOOST_TEST(value.Get() == "");
    BOOST_TEST(!Config::SetDefaultFailSafe("ns3::NcclCollective::NcclProto", StringValue("LL64")));
}

BOOST_AUTO_TEST_CASE(absurd_sizes_are_refused_not_aborted)
{
    // 2^60 bytes: more messages than a schedule can number, on every path (ring loops, tree
    // chunks, a broadcast's chain). An error the application reports with the node (the
    // program used to abort).
    const uint64_t huge = uint64_t(1) << 60;
    const auto refusesHuge = [](const std::invalid_argument& e) {
        return std::string(e.what()).find("more messages than a schedule can number") !=
               std::string::npos;
    };
    for (const auto& [type, algo] :
         std::vector<std::pair<ChakraProtoMsg::CollectiveCommType, std::string>>{
             {ChakraProtoMsg::ALL_REDUCE, "Ring"},
             {ChakraProtoMsg::ALL_REDUCE, "Tree"},
             {ChakraProtoMsg::BROADCAST, "Ring"}})
    {
        BOOST_TEST_INFO(type << " " << algo);
        CollectiveRequest request = chakra_test::Request(type, 2, 4, huge);
        BOOST_CHECK_EXCEPTION(Make(2, algo, "LL")->Build(request),
                              std::invalid_argument,
                              refusesHuge);
    }
}

BOOST_AUTO_TEST_CASE(large_all_reduce_busbw_matches_c_rings)
{
    // 256 MiB all-reduce on 2 x 8 H100 (NVLink 450 GB/s a GPU, NIC 400 Gb/s = 50 GB/s a GPU),
    // flow transport, Ring/Simple, 16 channels (rails 0-7 twice). Closed form for C rings:
    // every channel's ring carries 2(n-1)/n x S/C per hop. A GPU's NIC is on the network hop of
    // the C/g = 2 channels of its rail; its NVLink carries one hop of every channel (the chain,
    // or the relay to the rail GPU), at NCCL's share of the line rate (Hopper: 20.6 of 25 GB/s
    // a link). Each channel runs at min(B_nic / (C/g), 0.824 B_nvl / C) = min(25 x 8948/9002,
    // 23.2) GB/s (the flow transport carries 9000-byte packets of 8948 payload bytes on the
    // NIC): busbw = min(g B_nic x 8948/9002, 0.824 B_nvl) = min(397.6, 370.8) = 370.8 GB/s.
    // Latency terms (30 steps of a few us over 1.3 ms) and the relay's store-and-forward are
    // what the 10% tolerance allows.
    const uint64_t perRank = uint64_t(256) << 20;
    // Rings (NCCL's own choice here is NVLSTree: nvls-test).
    Config::SetDefault("ns3::NcclCollective::NcclProto", StringValue("Simple"));
    Config::SetDefault("ns3::NcclCollective::NcclAlgo", StringValue("Ring"));
    ChakraReport report =
        chakra_test::RunNcclCall(ChakraProtoMsg::ALL_REDUCE, 2, 8, perRank, "rail-optimized");
    Config::SetDefault("ns3::NcclCollective::NcclProto", StringValue(""));
    Config::SetDefault("ns3::NcclCollective::NcclAlgo", StringValue(""));
    BOOST_REQUIRE(report.AllFinished());
    const double seconds = report.GetIterationTime().GetSeconds();
    const double busbw = 2.0 * 15 / 16 * perRank / seconds / 1e9;
    const double closed = std::min(400.0 * 8948 / 9002, 450.0 * 20.6 / 25);
    BOOST_TEST_MESSAGE("busbw " << busbw << " GB/s, closed form " << closed);
    BOOST_TEST(std::abs(busbw / closed - 1) < 0.10, "busbw " << busbw << ", closed " << closed);
    BOOST_TEST(report.GetCollectives().size() == 1u);
}

/** \return the busbw (GB/s) of one all-reduce of \p perRank bytes on 1 x 8 H100 (flow) */
double
OneNodeBusbw(const std::string& proto, uint32_t channels, uint64_t perRank, bool ceiling)
{
    Config::SetDefault("ns3::NcclCollective::NcclAlgo", StringValue("Ring"));
    Config::SetDefault("ns3::NcclCollective::NcclProto", StringValue(proto));
    Config::SetDefault("ns3::NcclCollective::Channels", UintegerValue(channels));
    Config::SetDefault("ns3::NcclCollective::ProtocolCeiling", BooleanValue(ceiling));
    ChakraReport report = chakra_test::RunNcclCall(ChakraProtoMsg::ALL_REDUCE, 1, 8, perRank);
    Config::SetDefault("ns3::NcclCollective::NcclAlgo", StringValue(""));
    Config::SetDefault("ns3::NcclCollective::NcclProto", StringValue(""));
    Config::SetDefault("ns3::NcclCollective::Channels", UintegerValue(16));
    Config::SetDefault("ns3::NcclCollective::ProtocolCeiling", BooleanValue(true));
    BOOST_REQUIRE(report.AllFinished());
    return 2.0 * 7 / 8 * static_cast<double>(perRank) / report.GetIterationTime().GetSeconds() /
           1e9;
}

BOOST_AUTO_TEST_CASE(protocol_ceilings_cap_a_streams_rate)
{
    // One node of 8 H100: a GPU's NVLink carries 450 GB/s a direction, of which NCCL moves
    // 0.824 (370.8 GB/s). A ring's stream then runs at the links' share unless the protocol's
    // ceiling is lower. 256 MiB, Ring/LL, 16 channels: on the links LL's wire bytes (16 per 8)
    // leave 370.8 / 2 = 185.4 GB/s of busbw; NCCL caps LL at llMax = 141 GB/s (Hopper, one
    // node), 141 / 16 a channel: busbw 141.
    const uint64_t size = uint64_t(256) << 20;
    const double ll = OneNodeBusbw("LL", 16, size, true);
    const double llLinks = OneNodeBusbw("LL", 16, size, false);
    BOOST_TEST_MESSAGE("Ring/LL busbw " << ll << " GB/s, without the ceiling " << llLinks);
    BOOST_TEST(std::abs(ll / 141.0 - 1) < 0.03, "Ring/LL busbw " << ll);
    BOOST_TEST(std::abs(llLinks / 185.4 - 1) < 0.05, "Ring/LL busbw without ceiling " << llLinks);
    // 64 MiB, Ring/LL128, one channel: on the links 370.8 x 120/128 = 347.6 GB/s; NCCL's
    // per-channel cap, 36.7 GB/s, binds.
    const double ll128 = OneNodeBusbw("LL128", 1, uint64_t(64) << 20, true);
    BOOST_TEST_MESSAGE("Ring/LL128 on one channel: busbw " << ll128 << " GB/s");
    BOOST_TEST(std::abs(ll128 / 36.7 - 1) < 0.03, "Ring/LL128 busbw " << ll128);
    // Simple has no ceiling: the same with and without.
    const double simple = OneNodeBusbw("Simple", 16, size, true);
    BOOST_TEST(simple == OneNodeBusbw("Simple", 16, size, false));
    BOOST_TEST(simple > 300.0);
}

BOOST_AUTO_TEST_CASE(a_trees_ceiling_is_half_its_bus_bandwidth_a_stream)
{
    // 4 hosts x 8 H100 (more than 2 nodes, Intel hosts), Tree/LL, 16 MiB, 16 channels. NCCL's
    // tree LL bus bandwidth with links of no limit is min(16 x 36.0 / 3.8, llMax 20.4) = 20.4
    // GB/s, its algorithm bandwidth half of it: each channel's up and down streams carry
    // 20.4 / 16 / 2 GB/s each, and the call moves S / 10.2 GB/s = 1,644.8 us (its per-step
    // latencies overlap the pipeline, the first chunk's path aside). On the links alone (NICs
    // of 50 GB/s, LL's doubled bytes) it would take a few hundred us.
    const uint64_t size = uint64_t(16) << 20;
    Config::SetDefault("ns3::NcclCollective::NcclAlgo", StringValue("Tree"));
    Config::SetDefault("ns3::NcclCollective::NcclProto", StringValue("LL"));
    const double paced =
        chakra_test::RunNcclCall(ChakraProtoMsg::ALL_REDUCE, 4, 8, size, "rail-optimized")
            .GetIterationTime()
            .GetMicroSeconds();
    Config::SetDefault("ns3::NcclCollective::ProtocolCeiling", BooleanValue(false));
    const double links =
        chakra_test::RunNcclCall(ChakraProtoMsg::ALL_REDUCE, 4, 8, size, "rail-optimized")
            .GetIterationTime()
            .GetMicroSeconds();
    Config::SetDefault("ns3::NcclCollective::ProtocolCeiling", BooleanValue(true));
    Config::SetDefault("ns3::NcclCollective::NcclAlgo", StringValue(""));
    Config::SetDefault("ns3::NcclCollective::NcclProto", StringValue(""));
    const double closed = static_cast<double>(size) / (20.4 / 2 * 1e3);
    BOOST_TEST_MESSAGE("Tree/LL 16 MiB: " << paced << " us paced, " << links
                                          << " us on the links, closed form " << closed);
    BOOST_TEST(paced >= closed);
    BOOST_TEST(paced / closed - 1 < 0.03, "paced " << paced << " us, closed " << closed);
    BOOST_TEST(links < closed / 3);
}

BOOST_AUTO_TEST_CASE(nvlink_hops_carry_bytes_over_nccls_efficiency)
{
    // NCCL's NVLink figure per link over the line rate per link (topo.h): SM80 20.0 / 25,
    // SM90 20.6 / 25, SM100 40.1 / 50.
    BOOST_TEST(NcclCollective::NvLinkEfficiencyOf(NcclGpuGeneration::VOLTA) == 0.8);
    BOOST_TEST(NcclCollective::NvLinkEfficiencyOf(NcclGpuGeneration::AMPERE) == 0.8);
    BOOST_TEST(NcclCollective::NvLinkEfficiencyOf(NcclGpuGeneration::HOPPER) == 0.824,
               boost::test_tools::tolerance(1e-12));
    BOOST_TEST(NcclCollective::NvLinkEfficiencyOf(NcclGpuGeneration::BLACKWELL) == 0.802,
               boost::test_tools::tolerance(1e-12));
    // 2 hosts x 2 GPUs, 1 channel, Ring/Simple, 8 MiB: 2 MiB segments of 1 MiB slices (see
    // chunks_slices_and_channels_by_hand: a loop is 4 x 2 MiB, 2 slices a chunk). Hopper by
    // default: a message to the other GPU of its host carries ceil(1048576 / 0.824) =
    // 1,272,544 bytes, one to the other host 1,048,576.
    Ptr<NcclCollective> nccl = Make(1, "Ring", "Simple");
    nccl->SetAttribute("NvLinkEfficiency", DoubleValue(0));
    BOOST_TEST(nccl->GetNvLinkEfficiency() == 0.824, boost::test_tools::tolerance(1e-12));
    const CollectiveRequest request =
        chakra_test::Request(ChakraProtoMsg::ALL_REDUCE, 2, 2, 8 << 20);
    std::size_t nvlink = 0;
    std::size_t network = 0;
    for (const chakra_test::Message& m : chakra_test::AllSends(*nccl, request))
    {
        const bool sameHost = m.from / 2 == m.to / 2;
        BOOST_TEST(m.bytes == (sameHost ? 1272544u : 1048576u),
                   m.from << " -> " << m.to << " tag " << m.tag);
        ++(sameHost ? nvlink : network);
    }
    BOOST_TEST(nvlink > 0u);
    BOOST_TEST(network > 0u);
    // Ampere (0.8): 1,310,720.
    nccl->SetAttribute("GpuGeneration", EnumValue(static_cast<int>(NcclGpuGeneration::AMPERE)));
    for (const chakra_test::Message& m : chakra_test::AllSends(*nccl, request))
    {
        BOOST_TEST(m.bytes == (m.from / 2 == m.to / 2 ? 1310720u : 1048576u));
    }
    // The tuning model takes the effective NVLink rate: NCCL's bwIntra.
    nccl->SetAttribute("NvLinkBandwidth", DataRateValue(DataRate("2400Gbps")));
    const CollectiveRequest oneHost =
        chakra_test::Request(ChakraProtoMsg::ALL_REDUCE, 1, 8, 1 << 30);
    NcclTuningConfig config;
    config.nodes = 1;
    config.ranksPerNode = 8;
    config.generation = NcclGpuGeneration::AMPERE;
    config.channels = 1;
    config.intraBandwidth = 300 * 0.8;
    const NcclTuningModel expected(config, "Ring", "Simple");
    BOOST_TEST(nccl->Plan(oneHost).choice.time == expected.Time(NcclFunction::ALL_REDUCE,
                                                                NcclAlgorithm::RING,
                                                                NcclProtocol::SIMPLE,
                                                                uint64_t(1) << 30));
    // Out of (0, 1]: refused where it is set (0 is "the generation's").
    BOOST_TEST(!nccl->SetAttributeFailSafe("NvLinkEfficiency", DoubleValue(1.5)));
    BOOST_TEST(!nccl->SetAttributeFailSafe("NvLinkEfficiency", DoubleValue(-0.1)));
}

/** \return the time of one all-reduce of \p bytes on hosts x gpus, flow transport, Ring/LL */
double
RingLlUs(uint32_t hosts, uint32_t gpus, uint64_t bytes, bool stepLatency)
{
    chakra_test::TempDir dir;
    CollectiveBenchSpec spec;
    spec.type = ChakraProtoMsg::ALL_REDUCE;
    spec.ranks = hosts * gpus;
    spec.bytes = bytes;
    WorkloadGenerator::WriteCollectiveBench(dir.File("c"), spec);
    chakra_test::ClusterConfig config;
    config.hosts = hosts;
    config.gpusPerHost = gpus;
    config.transport = "flow";
    config.appAttributes.emplace_back("AllReduceAlgorithm", "nccl");
    Config::SetDefault("ns3::NcclCollective::NcclAlgo", StringValue("Ring"));
    Config::SetDefault("ns3::NcclCollective::NcclProto", StringValue("LL"));
    Config::SetDefault("ns3::NcclCollective::StepLatency", BooleanValue(stepLatency));
    ChakraReport report = chakra_test::RunCluster(dir.File("c"), config);
    Config::SetDefault("ns3::NcclCollective::NcclAlgo", StringValue(""));
    Config::SetDefault("ns3::NcclCollective::NcclProto", StringValue(""));
    Config::SetDefault("ns3::NcclCollective::StepLatency", BooleanValue(true));
    BOOST_REQUIRE(report.AllFinished());
    return report.GetIterationTime().GetSeconds() * 1e6;
}

BOOST_AUTO_TEST_CASE(each_step_pays_nccls_protocol_latency)
{
    // One host of 8 GPUs, 8 bytes, Ring/LL (one channel at this size): 2(n-1) = 14 steps one
    // after the other, each send waiting NCCL's NVLink LL step latency (0.6 us), the first also
    // the base latency of Ring/LL (6.6 us): 6.6 + 14 x 0.6 = 15.0 us more than the network's
    // own time (NCCL's formula, tuning.cc).
    const double with = RingLlUs(1, 8, 8, true);
    const double without = RingLlUs(1, 8, 8, false);
    BOOST_TEST_MESSAGE("1 x 8: " << with << " us, without step latency " << without << " us");
    BOOST_TEST(std::abs(with - without - 15.0) < 0.01);
    // 2 hosts x 4 GPUs: NCCL charges 2(H-1) = 2 network steps at 2.7 us (Ring/LL, network row)
    // and 12 intra-node steps at max(0.6, 1.0) us (its network overhead per step of a ring
    // across nodes): 6.6 + 2 x 2.7 + 12 x 1.0 = 24.0 us. The simulated critical path, 14
    // consecutive hops of the 8-hop ring (2 of them network), crosses 3 or 4 network hops:
    // 24.0 to 27.4 us (a hand-over to the relay pays nothing: it is half a network step).
    const double with2 = RingLlUs(2, 4, 8, true);
    const double without2 = RingLlUs(2, 4, 8, false);
    BOOST_TEST_MESSAGE("2 x 4: " << with2 << " us, without step latency " << without2 << " us");
    BOOST_TEST(with2 - without2 >= 24.0 - 0.01);
    BOOST_TEST(with2 - without2 <= 27.4 + 0.01);
}

BOOST_AUTO_TEST_CASE(tuning_takes_the_clusters_links_unless_set)
{
    // The tuning model must see the simulated machine: a cluster of 100 Gb/s NICs and 1800 Gb/s
    // NVLink gives NcclCollective those values, not its H100 defaults (400 Gb/s, 3600 Gb/s); a
    // value the user set stays; a later cluster in the same process takes its own links.
    chakra_test::TempDir dir;
    CollectiveBenchSpec spec;
    spec.type = ChakraProtoMsg::ALL_REDUCE;
    spec.ranks = 4;
    spec.bytes = 4096;
    WorkloadGenerator::WriteCollectiveBench(dir.File("c"), spec);
    auto nic = []() {
        DataRateValue value;
        CreateObject<NcclCollective>()->GetAttribute("NicBandwidth", value);
        return value.Get();
    };
    auto nvlink = []() {
        DataRateValue value;
        CreateObject<NcclCollective>()->GetAttribute("NvLinkBandwidth", value);
        return value.Get();
    };
    BOOST_TEST(nic() == DataRate("400Gbps"));
    chakra_test::ClusterConfig config;
    config.hosts = 2;
    config.gpusPerHost = 2;
    config.transport = "flow";
    config.nicBandwidth = "100Gbps";
    config.nvLinkBandwidth = "1800Gbps";
    config.appAttributes.emplace_back("AllReduceAlgorithm", "nccl");
    BOOST_REQUIRE(chakra_test::RunCluster(dir.File("c"), config).AllFinished());
    BOOST_TEST(nic() == DataRate("100Gbps"));
    BOOST_TEST(nvlink() == DataRate("1800Gbps"));
    // A later cluster of 200 Gb/s NICs: its own value, not the first cluster's.
    config.nicBandwidth = "200Gbps";
    BOOST_REQUIRE(chakra_test::RunCluster(dir.File("c"), config).AllFinished());
    BOOST_TEST(nic() == DataRate("200Gbps"));
    // Set by the user: kept whatever the cluster.
    Config::SetDefault("ns3::NcclCollective::NicBandwidth", DataRateValue(DataRate("25Gbps")));
    BOOST_REQUIRE(chakra_test::RunCluster(dir.File("c"), config).AllFinished());
    BOOST_TEST(nic() == DataRate("25Gbps"));
    Config::SetDefault("ns3::NcclCollective::NicBandwidth", DataRateValue(DataRate("400Gbps")));
    Config::SetDefault("ns3::NcclCollective::NvLinkBandwidth", DataRateValue(DataRate("3600Gbps")));
}

BOOST_AUTO_TEST_CASE(large_groups_stay_lazy)
{
    // 128 hosts x 8 GPUs = 1,024 ranks, 16 channels, Ring/Simple, 1 GiB: 64 MiB a channel, a
    // loop 1,024 x 2 MiB: one loop, 2 slices; 2 x 2,046 steps x 2 units = 8,184 ops per
    // channel's ring, as many for each relay. Rank 0 (local GPU 0) relays channels 0 and 8.
    // The schedule is read by formula: its ops are not held (an ExplicitSchedule of 163,680
    // ops with their dependency lists would be several MB per rank).
    Ptr<NcclCollective> nccl = Make(16, "Ring", "Simple");
    CollectiveRequest request =
        chakra_test::Request(ChakraProtoMsg::ALL_REDUCE, 128, 8, uint64_t(1) << 30);
    request.me = 0;
    auto schedule = nccl->Build(request);
    BOOST_TEST(schedule->Size() == 8184u * (16 + 2));
    BOOST_TEST(dynamic_cast<const ExplicitSchedule*>(schedule.get()) == nullptr);
    // The last op of the last channel: its ring's last receive, 64 MiB / 2 / 1,024 bytes.
    const MessageOp last = schedule->Op(schedule->Size() - 1);
    BOOST_TEST(!last.send);
    BOOST_TEST(last.bytes == 32768u);
    std::vector<uint32_t> sends;
    BOOST_TEST(schedule->InitialSends(sends));
    // Each channel's ring starts with its 2 units' first sends.
    BOOST_TEST(sends.size() == 32u);
}

BOOST_AUTO_TEST_CASE(double_binary_tree_by_hand)
{
    // 4 hosts x 2 GPUs, 2 channels, Tree/Simple, all-reduce of 1 MiB: 512 KiB a channel = one
    // chunk of one Simple step (trees take one step a chunk). Channel 0: tree 0 over hosts (0
    // the root; its child 2; 2's children 1 and 3), rail 0, each host's chain GPU 0 -> GPU 1.
    // Channel 1: tree 1, the mirror (3 the root; its child 1; 1's children 2 and 0), rail 1,
    // chains GPU 1 -> GPU 0. Ranks: host h's GPUs are 2h, 2h+1. Up tags 0 and 2, down 1 and 3.
    Ptr<NcclCollective> nccl = Make(2, "Tree", "Simple");
    const CollectiveRequest request =
        chakra_test::Request(ChakraProtoMsg::ALL_REDUCE, 4, 2, 1 << 20);
    const NcclPlan plan = nccl->Plan(request);
    BOOST_TEST(static_cast<int>(plan.ran) == static_cast<int>(NcclAlgorithm::TREE));
    BOOST_TEST(plan.channels == 2u);
    BOOST_TEST(plan.chunkBytes == 524288u);
    std::map<int64_t, std::set<std::pair<uint32_t, uint32_t>>> edges;
    for (const chakra_test::Message& m : chakra_test::AllSends(*nccl, request))
    {
        BOOST_TEST(m.bytes == 524288u);
        edges[m.tag].insert({m.from, m.to});
    }
    using Edges = std::set<std::pair<uint32_t, uint32_t>>;
    const Edges up0 = {{1, 0}, {3, 2}, {5, 4}, {7, 6}, {4, 0}, {2, 4}, {6, 4}};
    const Edges up1 = {{0, 1}, {2, 3}, {4, 5}, {6, 7}, {3, 7}, {5, 3}, {1, 3}};
    auto reversed = [](const Edges& e) {
        Edges r;
        for (const auto& [a, b] : e)
        {
            r.insert({b, a});
        }
        return r;
    };
    BOOST_TEST(edges.size() == 4u);
    BOOST_TEST((edges[0] == up0));
    BOOST_TEST((edges[1] == reversed(up0)));
    BOOST_TEST((edges[2] == up1));
    BOOST_TEST((edges[3] == reversed(up1)));
    // Every network hop is on the channel's rail.
    for (int64_t tag = 0; tag < 4; ++tag)
    {
        for (const auto& [from, to] : edges[tag])
        {
            if (from / 2 != to / 2)
            {
                BOOST_TEST(from % 2 == tag / 2);
                BOOST_TEST(to % 2 == tag / 2);
            }
        }
    }
    // Odd host count: tree 1 is tree 0 shifted by one host. 3 hosts x 1 GPU, 2 channels:
    // tree 0: 0 the root, its child 2, 2's child 1; tree 1: 1 the root, child 0, 0's child 2.
    const CollectiveRequest three = chakra_test::Request(ChakraProtoMsg::ALL_REDUCE, 3, 1, 1 << 20);
    std::map<int64_t, Edges> up;
    for (const chakra_test::Message& m : chakra_test::AllSends(*nccl, three))
    {
        up[m.tag].insert({m.from, m.to});
    }
    BOOST_TEST((up[0] == Edges{{2, 0}, {1, 2}}));
    BOOST_TEST((up[2] == Edges{{0, 1}, {2, 0}}));
}
