/*
 * Routing in the RDMA switches (ECMP, spraying, flowlets, adaptive) and the NIC's selective
 * mode for the reordering spraying causes, on a two-spine fabric where three flows must share
 * two uplinks: checked against the capacities by hand.
 */
#define BOOST_TEST_MODULE rdma_routing
#include "rdma-network.h"

#include "ns3/chakra-module.h"
#include "ns3/core-module.h"
#include "ns3/network-module.h"

#include <boost/test/unit_test.hpp>
#include <cmath>
#include <string>
#include <vector>

using namespace ns3;
using namespace rdmatest;

namespace
{

/**
 * Senders 0-2 on leaf 0, receivers 3-5 on leaf 1, two spines; every link 100 Gbps, 1 us but
 * leaf 0 - spine 1, \p spine1Delay.
 */
std::shared_ptr<ClusterTopology>
TwoSpines(Time spine1Delay = MicroSeconds(1))
{
    auto topology = std::make_shared<ClusterTopology>();
    for (uint32_t g = 0; g < 6; ++g)
    {
        topology->AddGpu(g);
    }
    const uint32_t leaf0 = topology->AddSwitch(ClusterTopology::SWITCH, 0, "leaf0");
    const uint32_t leaf1 = topology->AddSwitch(ClusterTopology::SWITCH, 1, "leaf1");
    const uint32_t spine0 = topology->AddSwitch(ClusterTopology::SWITCH, 2, "spine0");
    const uint32_t spine1 = topology->AddSwitch(ClusterTopology::SWITCH, 2, "spine1");
    for (uint32_t g = 0; g < 6; ++g)
    {
        topology->AddLink(g,
                          g < 3 ? leaf0 : leaf1,
                          DataRate("100Gbps"),
                          MicroSeconds(1),
                          9000,
                          ClusterTopology::SCALE_OUT);
    }
    // Links 6-9: leaf0-spine0, leaf0-spine1, leaf1-spine0, leaf1-spine1.
    for (uint32_t leaf : {leaf0, leaf1})
    {
        for (uint32_t spine : {spine0, spine1})
        {
            topology->AddLink(leaf,
                              spine,
                              DataRate("100Gbps"),
                              leaf == leaf0 && spine == spine1 ? spine1Delay : MicroSeconds(1),
                              9000,
                              ClusterTopology::SCALE_OUT);
        }
    }
    return topology;
}

/** What the three flows did. */
struct Run
{
    Time last;              //!< the last message's arrival
    double uplink[2]{0, 0}; //!< data bytes leaf 0 sent to each spine
    uint64_t outOfOrder{0};
    uint64_t resent{0};
    uint32_t delivered{0};
};

/** Senders 0, 1, 2 send \p bytes each to 3, 4, 5 at once. */
Run
ThreeFlows(uint64_t bytes, Time spine1Delay = MicroSeconds(1))
{
    Network network = Install(TwoSpines(spine1Delay));
    const auto& devices = network.fabric->GetDevices();
    Run run;
    BytesBySource up0;
    BytesBySource up1;
    // Link 6 (leaf0-spine0) and link 7 (leaf0-spine1): their leaf ends are devices 12 and 14.
    devices[12]->TraceConnectWithoutContext("MacTx", MakeCallback(&BytesBySource::Count, &up0));
    devices[14]->TraceConnectWithoutContext("MacTx", MakeCallback(&BytesBySource::Count, &up1));
    for (uint32_t r = 3; r < 6; ++r)
    {
        network.fabric->GetNic(r)->SetDeliverCallback([&run, bytes](const MessageHeader& header) {
            BOOST_TEST(header.payload == bytes);
            ++run.delivered;
            run.last = Simulator::Now();
        });
    }
    Simulator::ScheduleNow([&network, bytes]() {
        for (uint32_t s = 0; s < 3; ++s)
        {
            network.fabric->GetNic(s)->Send(s + 3, Message(s, bytes), nullptr);
        }
    });
    Simulator::Run();
    for (const auto& [src, sent] : up0.bytes)
    {
        run.uplink[0] += sent;
    }
    for (const auto& [src, sent] : up1.bytes)
    {
        run.uplink[1] += sent;
    }
    for (uint32_t g = 0; g < 6; ++g)
    {
        run.outOfOrder += network.fabric->GetNic(g)->GetStats().outOfOrder;
        run.resent += network.fabric->GetNic(g)->GetStats().resentPackets;
    }
    Simulator::Destroy();
    return run;
}

/** Serialisation of \p bytes of message at 100 Gbps, framing included, in seconds. */
double
LineTime(double bytes)
{
    const double stream = bytes + MessageHeader::kSize;
    const double packets = std::ceil(stream / (9000 - 44));
    return (stream + packets * (44 + 38)) * 8 / 100e9;
}

} // namespace

BOOST_FIXTURE_TEST_CASE(ecmp_collides_and_spraying_shares_the_uplinks, Fresh)
{
    // Three 100 Gbps flows over two 100 Gbps uplinks. ECMP keeps each flow on one spine, so
    // (pigeonhole) k >= 2 flows share the busiest uplink at 100/k Gbps each (the uplinks carry
    // whole flows): the last ends at k x a flow's line-rate time. Spraying spreads every flow
    // over both: 200 Gbps shared by three, the last ends at 1.5x. The same with adaptive
    // routing. Times within 5%.
    const uint64_t bytes = 16u << 20;
    const double line = LineTime(bytes);

    Run ecmp = ThreeFlows(bytes);
    BOOST_REQUIRE(ecmp.delivered == 3u);
    BOOST_TEST_MESSAGE("ecmp: last " << ecmp.last.GetSeconds() / line << " x line, uplinks "
                                     << ecmp.uplink[0] << " / " << ecmp.uplink[1]);
    const double perFlow = (ecmp.uplink[0] + ecmp.uplink[1]) / 3;
    const double k = std::round(std::max(ecmp.uplink[0], ecmp.uplink[1]) / perFlow);
    BOOST_TEST(std::abs(std::max(ecmp.uplink[0], ecmp.uplink[1]) / perFlow - k) < 0.01);
    BOOST_TEST(k >= 2);
    BOOST_TEST(std::abs(ecmp.last.GetSeconds() / (k * line) - 1) < 0.05);
    BOOST_TEST(ecmp.outOfOrder == 0u);

    Config::SetDefault("ns3::RdmaSwitch::Routing", StringValue("spray"));
    Config::SetDefault("ns3::RdmaNic::Reordering", StringValue("selective"));
    Run spray = ThreeFlows(bytes);
    BOOST_REQUIRE(spray.delivered == 3u);
    BOOST_TEST_MESSAGE("spray: last " << spray.last.GetSeconds() / line << " x line, uplinks "
                                      << spray.uplink[0] << " / " << spray.uplink[1]
                                      << ", out of order " << spray.outOfOrder << ", resent "
                                      << spray.resent);
    BOOST_TEST(std::abs(spray.last.GetSeconds() / (1.5 * line) - 1) < 0.05);
    BOOST_TEST(std::abs(spray.uplink[0] / spray.uplink[1] - 1) < 0.01);
    BOOST_TEST(spray.resent == 0u); // the selective receivers kept what came early

    Config::SetDefault("ns3::RdmaSwitch::Routing", StringValue("adaptive"));
    Run adaptive = ThreeFlows(bytes);
    BOOST_REQUIRE(adaptive.delivered == 3u);
    BOOST_TEST_MESSAGE("adaptive: last " << adaptive.last.GetSeconds() / line << " x line, uplinks "
                                         << adaptive.uplink[0] << " / " << adaptive.uplink[1]
                                         << ", out of order " << adaptive.outOfOrder);
    BOOST_TEST(std::abs(adaptive.last.GetSeconds() / (1.5 * line) - 1) < 0.05);
    BOOST_TEST(adaptive.resent == 0u);
}

BOOST_FIXTURE_TEST_CASE(spraying_into_go_back_n_receivers_costs_resends, Fresh)
{
    // Sprayed flows whose two paths differ by 4 us (leaf 0 - spine 1 cable 5 us): packets by
    // spine 0 overtake those by spine 1. RoCE's go-back-N receivers drop every overtaking
    // packet and NAK, and the senders send again; selective receivers keep them and nothing is
    // sent twice. The messages arrive whole either way.
    Config::SetDefault("ns3::RdmaSwitch::Routing", StringValue("spray"));
    const uint64_t bytes = 4u << 20;
    Run run = ThreeFlows(bytes, MicroSeconds(5));
    BOOST_TEST_MESSAGE("spray into go-back-n: last " << run.last.GetSeconds() / LineTime(bytes)
                                                     << " x line, out of order " << run.outOfOrder
                                                     << ", resent " << run.resent);
    BOOST_REQUIRE(run.delivered == 3u);
    BOOST_TEST(run.outOfOrder > 0u);
    BOOST_TEST(run.resent > 0u);

    Config::SetDefault("ns3::RdmaNic::Reordering", StringValue("selective"));
    Run selective = ThreeFlows(bytes, MicroSeconds(5));
    BOOST_TEST_MESSAGE("spray into selective: last "
                       << selective.last.GetSeconds() / LineTime(bytes) << " x line, out of order "
                       << selective.outOfOrder << ", resent " << selective.resent);
    BOOST_REQUIRE(selective.delivered == 3u);
    BOOST_TEST(selective.outOfOrder > 0u);
    BOOST_TEST(selective.resent == 0u);
    BOOST_TEST(selective.last < run.last);
}

BOOST_FIXTURE_TEST_CASE(a_flowlet_changes_port_only_after_its_timeout, Fresh)
{
    // A flow sends without gaps longer than a few microseconds. With a timeout far above that
    // (1 s) each flow stays on the port its first packet drew: each uplink carries whole flows
    // (a multiple of one flow's bytes). With a timeout of 0 every packet starts a flowlet and
    // draws a port: both uplinks carry about half of the three flows.
    const uint64_t bytes = 4u << 20;
    Config::SetDefault("ns3::RdmaSwitch::Routing", StringValue("flowlet"));
    Config::SetDefault("ns3::RdmaNic::Reordering", StringValue("selective"));
    Config::SetDefault("ns3::RdmaSwitch::FlowletTimeout", TimeValue(Seconds(1)));
    Run sticky = ThreeFlows(bytes);
    BOOST_REQUIRE(sticky.delivered == 3u);
    const double flow = sticky.uplink[0] + sticky.uplink[1]; // three flows' wire bytes
    const double perFlow = flow / 3;
    for (double up : sticky.uplink)
    {
        const double flows = up / perFlow;
        BOOST_TEST_INFO("uplink carries " << flows << " flows");
        BOOST_TEST(std::abs(flows - std::round(flows)) < 0.01);
    }
    BOOST_TEST(sticky.outOfOrder == 0u);

    Config::SetDefault("ns3::RdmaSwitch::FlowletTimeout", TimeValue(Time(0)));
    Run every = ThreeFlows(bytes);
    BOOST_REQUIRE(every.delivered == 3u);
    BOOST_TEST_MESSAGE("flowlet timeout 0: uplinks " << every.uplink[0] << " / " << every.uplink[1]
                                                     << ", out of order " << every.outOfOrder);
    BOOST_TEST(std::abs(every.uplink[0] / every.uplink[1] - 1) < 0.1);
}

BOOST_FIXTURE_TEST_CASE(the_flow_model_spreads_a_sprayed_flow_over_the_equal_cost_paths, Fresh)
{
    // The same three flows in the flow model, without headers (stream bytes are wire bytes):
    // with Settings::spray each flow is split evenly over the two spines (half of it on each
    // uplink), so the three share 200 Gbps: the last ends at 1.5 x 16 MiB / 100 Gbps (plus
    // microseconds of latency). With ECMP the paths are the rdma model's, and the busiest
    // uplink carries k of them: k x.
    for (bool spray : {false, true})
    {
        auto network = CreateObject<FlowNetwork>();
        FlowNetwork::Settings settings;
        settings.framing.headerBytes = 0;
        settings.framing.wireExtraBytes = 0;
        settings.sendBuffer = 0;
        settings.fifoAtSource = false;
        settings.spray = spray;
        auto topology = TwoSpines();
        network->Build(topology, settings);
        const uint64_t bytes = 16u << 20;
        Time last;
        for (uint32_t s = 0; s < 3; ++s)
        {
            BOOST_REQUIRE(
                network->Send(s, s + 3, bytes, nullptr, [&]() { last = Simulator::Now(); }));
        }
        Simulator::Run();
        const double line = static_cast<double>(bytes) * 8 / 100e9;
        double expected = 1.5;
        if (!spray)
        {
            // k: the most flows whose ECMP path (the topology's, with the pair's hash) takes
            // one uplink of leaf 0 (links 6 and 7 of TwoSpines, directed 12 and 14).
            uint32_t on[2] = {0, 0};
            for (uint32_t s = 0; s < 3; ++s)
            {
                std::vector<uint32_t> path;
                BOOST_REQUIRE(topology->GetPath(s, s + 3, FlowNetwork::PairHash(s, s + 3), path));
                for (uint32_t directed : path)
                {
                    if (directed == 12 || directed == 14)
                    {
                        ++on[(directed - 12) / 2];
                    }
                }
            }
            expected = std::max(on[0], on[1]);
        }
        BOOST_TEST_INFO((spray ? "spray" : "ecmp") << ": last " << last.GetSeconds() / line
                                                   << " x line, expected " << expected);
        BOOST_TEST(std::abs(last.GetSeconds() / (expected * line) - 1) < 0.01);
        network->Dispose();
        Simulator::Destroy();
    }
}
