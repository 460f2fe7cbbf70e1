/*
 * A scenario script of the user's own, the ns-3 way: two GPU nodes on one point-to-point link
 * built here with ns-3's helpers (not GpuClusterHelper), a generated 2-rank all-reduce, the
 * chakra applications installed with ChakraHelper, and the report.
 *
 * Standalone, every .cc file in scratch/ is built into build/bin/<name>; inside an ns-3 tree, put
 * such a script in ns-3's scratch/ folder and run it with ./ns3 run <name>.
 *
 *   build/bin/chakra-two-node-scenario [--bytes=16777216] [--rate=100Gbps] [--delay=1us]
 */
#include "ns3/chakra-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"

#include <cstdlib>
#include <iostream>
#include <unistd.h>

using namespace ns3;

int
main(int argc, char* argv[])
{
    uint64_t bytes = 16u << 20;
    std::string rate = "100Gbps";
    std::string delay = "1us";
    CommandLine cmd(__FILE__);
    cmd.AddValue("bytes", "all-reduce size in bytes", bytes);
    cmd.AddValue("rate", "link bandwidth", rate);
    cmd.AddValue("delay", "link propagation delay", delay);
    cmd.Parse(argc, argv);

    // The workload: one all-reduce per rank, written where this run can write.
    char directory[] = "/tmp/chakra-scratch-XXXXXX";
    if (mkdtemp(directory) == nullptr)
    {
        std::cerr << "cannot create a temporary directory" << std::endl;
        return 1;
    }
    const std::string prefix = std::string(directory) + "/allreduce";
    CollectiveBenchSpec spec;
    spec.ranks = 2;
    spec.bytes = bytes;
    WorkloadGenerator::WriteCollectiveBench(prefix, spec);

    // The network: two nodes, one link, IPv4.
    NodeContainer gpus;
    gpus.Create(2);
    PointToPointHelper link;
    link.SetDeviceAttribute("DataRate", StringValue(rate));
    link.SetDeviceAttribute("Mtu", UintegerValue(9000));
    link.SetChannelAttribute("Delay", StringValue(delay));
    // A queue that holds a whole TCP window: the transport starts every flow at its full 1 MiB
    // window (ns3::TcpTransport::BufferSize), and ns-3's default 100 packets would drop.
    link.SetQueue("ns3::DropTailQueue<Packet>", "MaxSize", StringValue("2000p"));
    NetDeviceContainer devices = link.Install(gpus);
    InternetStackHelper().Install(gpus);
    Ipv4AddressHelper("10.1.0.0", "255.255.255.0").Assign(devices);
    TrafficControlHelper().Uninstall(devices);

    // The ranks: rank r on gpus.Get(r), over TCP sockets on that network.
    ChakraHelper chakra(prefix);
    chakra.SetAttribute("Transport", StringValue("tcp"));
    chakra.Install(gpus);
    Simulator::Run();
    ChakraReport report = chakra.GetReport();
    Simulator::Destroy();
    report.Print(std::cout);

    for (uint32_t rank = 0; rank < 2; ++rank)
    {
        unlink(RankTraceBuilder::Path(prefix, rank).c_str());
    }
    rmdir(directory);
    return report.AllFinished() ? 0 : 1;
}
