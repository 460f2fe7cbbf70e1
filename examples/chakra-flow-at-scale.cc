/*
 * chakra-flow-at-scale: a cluster of hundreds of GPUs on the flow model.
 *
 * The packet models (rdma, tcp) simulate every packet; the flow model (Transport "flow") moves
 * each message as a flow on the same routed paths, sharing every link max-min fairly, and is
 * fast enough for thousands of GPUs. This program runs one all-reduce over hosts x 8 GPUs
 * on a leaf-spine fabric (4 hosts per leaf, 4 spines) and prints its time, the simulator events
 * and the wall-clock time the run took. The hierarchical all-reduce (a ring inside each host
 * over NVLink, a ring across the hosts over the NICs) has a closed form: doc/collectives.md.
 * --transport=rdma runs the same on the packet model, to compare: the same time within a few
 * percent, at many times the events and wall-clock time.
 *
 *   build/bin/chakra-flow-at-scale [--hosts=32] [--bytes=1048576] [--transport=flow]
 */
#include "example-util.h"

#include "ns3/chakra-module.h"
#include "ns3/core-module.h"

#include <filesystem>
#include <iomanip>
#include <iostream>

using namespace ns3;

NS_LOG_COMPONENT_DEFINE("ChakraFlowAtScale");

int
RunExample(int argc, char* argv[])
{
    uint32_t hosts = 32;
    uint64_t bytes = 1u << 20;
    std::string transport = "flow";
    ExampleCommandLine cmd(__FILE__);
    cmd.AddValue("hosts", "hosts of 8 GPUs each (4 per leaf; the last leaf may hold fewer)", hosts);
    cmd.AddValue("bytes", "all-reduce size in bytes", bytes);
    cmd.AddValue("transport", "flow, or a packet model to compare: rdma, tcp", transport);
    cmd.Parse(argc, argv);

    ClusterScenario scenario;
    Ptr<GpuClusterHelper> cluster = scenario.GetCluster();
    scenario.SetClusterAttribute("Transport", StringValue(transport));
    scenario.SetClusterAttribute("Hosts", UintegerValue(hosts));
    scenario.SetClusterAttribute("GpusPerHost", UintegerValue(8));
    scenario.SetClusterAttribute("Topology", StringValue("leaf-spine"));
    scenario.SetClusterAttribute("HostsPerLeaf", UintegerValue(4));
    scenario.SetClusterAttribute("Spines", UintegerValue(4));

    const TemporaryDirectory directory("chakra-flow");
    const std::string prefix = directory.GetPath() + "/allreduce";
    CollectiveBenchSpec spec;
    spec.ranks = cluster->GetRankCount();
    spec.bytes = bytes;
    WorkloadGenerator::WriteCollectiveBench(prefix, spec);

    ChakraReport report;
    try
    {
        report = scenario.Run(prefix);
    }
    catch (const std::exception& e) // a configuration that cannot run: the message says why
    {
        std::cerr << "error: " << e.what() << std::endl;
        return 1;
    }
    if (!report.AllFinished())
    {
        report.PrintProblems(std::cerr);
        return 1;
    }
    const CollectiveSummary allReduce = report.GetCollectives().front();
    std::cout << "cluster: " << cluster->Describe() << "\n";
    std::cout << "topology: " << cluster->DescribeTopology() << "\n";
    std::cout << "transport model: " << report.GetTransportModel() << "\n";
    std::cout << std::fixed << std::setprecision(3) << "all-reduce of " << bytes << " bytes on "
              << allReduce.commSize << " GPUs (" << allReduce.algorithm
              << "): " << (allReduce.end - allReduce.start).GetNanoSeconds() / 1e3
              << " us, bus bandwidth " << allReduce.busBwGBps << " GB/s\n";
    std::cout << std::setprecision(2) << "simulated with " << scenario.GetEventCount()
              << " events in " << scenario.GetWallSeconds() << " s of wall-clock time\n";
    return 0;
}

int
main(int argc, char* argv[])
{
    // A mistake (a refused value, an absurd size) is one line naming it and exit 1, not an abort.
    return RunTool("chakra-flow-at-scale", [&] { return RunExample(argc, argv); });
}
