/*
 * chakra-two-node-custom: the chakra applications on a network the script builds itself.
 *
 * Two nodes and one point-to-point link made with ns-3's own helpers (no GpuClusterHelper), an
 * IPv4 stack, and a two-rank trace: rank 0 sends --bytes to rank 1, then both all-reduce
 * --bytes. ChakraHelper installs rank r on node r; on nodes it did not build, each rank talks
 * TCP to the other's first IPv4 address. The link's queue must hold a whole TCP window (the
 * transport starts every flow at its full 1 MiB window, as RDMA would), or ns-3's default
 * 100-packet queue drops and TCP retransmits.
 *
 * On one link both have closed forms (doc/collectives.md): with a TCP segment of MTU - 52
 * bytes on MTU + 2 on the wire, the payload rate is B = rate x (MTU - 52) / (MTU + 2); the
 * send takes about delay + bytes / B and the two-rank (ring) all-reduce 2 delay + bytes / B
 * (each rank sends half the buffer twice, both directions at once), timed on rank 1, which
 * starts it last (rank 0's send completes once its bytes are in TCP's buffer, before rank 1 has
 * them). The last lines print each rank's operations and times.
 *
 *   build/bin/chakra-two-node-custom [--bytes=16777216] [--rate=100Gbps] [--delay=1us]
 */
#include "example-util.h"

#include "ns3/chakra-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"

#include <filesystem>
#include <iomanip>
#include <iostream>

using namespace ns3;

NS_LOG_COMPONENT_DEFINE("ChakraTwoNodeCustom");

int
RunExample(int argc, char* argv[])
{
    uint64_t bytes = 16u << 20;
    std::string rate = "100Gbps";
    std::string delay = "1us";
    ExampleCommandLine cmd(__FILE__);
    cmd.AddValue("bytes", "send and all-reduce size in bytes", bytes);
    cmd.AddValue("rate", "link bandwidth", rate);
    cmd.AddValue("delay", "link propagation delay", delay);
    cmd.Parse(argc, argv);

    // The workload, hand-written: a send (tag 0), then an all-reduce on process group "0".
    const TemporaryDirectory directory("chakra-two-node");
    const std::string prefix = directory.GetPath() + "/pair";
    for (uint32_t rank = 0; rank < 2; ++rank)
    {
        RankTraceBuilder trace(RankTraceBuilder::Path(prefix, rank), 2);
        trace.ProcessGroups({{"0", {0, 1}, 2}});
        const uint64_t p2p = rank == 0 ? trace.Send("send_to_1", 1, 0, bytes, {})
                                       : trace.Recv("recv_from_0", 0, 0, bytes, {});
        trace.Collective("all_reduce", ChakraProtoMsg::ALL_REDUCE, bytes, {p2p}, "0");
        trace.Commit();
    }

    // The network: two nodes, one link with a queue of 2000 packets, IPv4 without a queue disc.
    NodeContainer gpus;
    gpus.Create(2);
    PointToPointHelper link;
    link.SetDeviceAttribute("DataRate", StringValue(rate));
    link.SetDeviceAttribute("Mtu", UintegerValue(9000));
    link.SetChannelAttribute("Delay", StringValue(delay));
    link.SetQueue("ns3::DropTailQueue<Packet>", "MaxSize", StringValue("2000p"));
    NetDeviceContainer devices = link.Install(gpus);
    InternetStackHelper().Install(gpus);
    Ipv4AddressHelper("10.1.0.0", "255.255.255.0").Assign(devices);
    TrafficControlHelper().Uninstall(devices);

    // The ranks: rank r on gpus.Get(r).
    ChakraHelper chakra(prefix);
    chakra.SetAttribute("Transport", StringValue("tcp"));
    chakra.Install(gpus);
    Simulator::Run();
    ChakraReport report = chakra.GetReport();
    Simulator::Destroy();
    report.Print(std::cout);
    if (!report.AllFinished())
    {
        return 1;
    }

    std::cout << std::fixed << std::setprecision(3) << "\n";
    for (const CommRecord& record : report.GetCommRecords())
    {
        std::cout << "rank " << record.rank << " " << record.kind << ": "
                  << (record.end - record.start).GetNanoSeconds() / 1e3 << " us\n";
    }
    return 0;
}

int
main(int argc, char* argv[])
{
    // A mistake (a refused value, an absurd size) is one line naming it and exit 1, not an abort.
    return RunTool("chakra-two-node-custom", [&] { return RunExample(argc, argv); });
}
