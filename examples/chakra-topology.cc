/*
 * chakra-topology: the same 16-GPU all-reduce on each topology family GpuClusterHelper builds.
 *
 * --topology picks the family; the program sets the few attributes that give that family a
 * small 16-GPU shape (4 hosts x 4 GPUs, or 16 GPUs with direct links), prints the cluster's
 * one-line summary (switches, links, bisection bandwidth, diameter) and the all-reduce's time.
 * Families: single-switch, leaf-spine, ring, rail-optimized, rail-only, fat-tree, clos (hosts
 * with an NVSwitch each, one NIC per GPU), torus, multi-dim (GPUs linked directly).
 * --dot=FILE also draws the cluster as a Graphviz file.
 *
 *   build/bin/chakra-topology [--topology=leaf-spine] [--bytes=4194304] [--dot=FILE]
 */
#include "example-util.h"

#include "ns3/chakra-module.h"
#include "ns3/core-module.h"

#include <filesystem>
#include <iomanip>
#include <iostream>

using namespace ns3;

NS_LOG_COMPONENT_DEFINE("ChakraTopology");

namespace
{

/**
 * Gives the cluster a 16-GPU shape of \p family.
 * \throws std::invalid_argument for a family the module does not know (with the valid names)
 */
void
ShapeCluster(ClusterScenario& scenario, const std::string& family)
{
    scenario.SetClusterAttribute("Hosts", UintegerValue(4));
    scenario.SetClusterAttribute("GpusPerHost", UintegerValue(4));
    Ptr<GpuClusterHelper> cluster = scenario.GetCluster();
    // Each family is an ns-3 object with its own parameters as attributes, chosen by TypeId
    // (or by its short name) through GpuClusterHelper's ObjectFactory.
    if (family == "leaf-spine")
    {
        cluster->SetTopology("ns3::LeafSpineTopology",
                             "HostsPerLeaf",
                             UintegerValue(2),
                             "Spines",
                             UintegerValue(2));
    }
    else if (family == "rail-optimized")
    {
        cluster->SetTopology("ns3::RailOptimizedTopology",
                             "HostsPerRailGroup",
                             UintegerValue(2),
                             "Spines",
                             UintegerValue(2));
    }
    else if (family == "clos")
    {
        // 2 pods of 2 leaves, 2 spines each
        cluster->SetTopology("ns3::ClosTopology",
                             "HostsPerLeaf",
                             UintegerValue(1),
                             "LeavesPerPod",
                             UintegerValue(2),
                             "Spines",
                             UintegerValue(2));
    }
    else if (family == "torus")
    {
        cluster->SetTopology("ns3::TorusTopology", "Dims", StringValue("4x4"));
    }
    else if (family == "multi-dim")
    {
        // ASTRA-sim style: rings of 4 GPUs (NVLink), 4 rings on a switch (NICs).
        cluster->SetTopology("ns3::MultiDimTopology",
                             "Dimensions",
                             StringValue("Ring:4:3600Gbps:250ns,Switch:4:400Gbps:500ns"));
    }
    else
    {
        // single-switch, ring (Bandwidth 0: 4 NICs' worth), fat-tree (k = 4), rail-only: the
        // defaults give them 16 GPUs. An unknown name is refused here, with the valid ones.
        cluster->SetTopology(family);
    }
}

} // namespace

int
RunExample(int argc, char* argv[])
{
    std::string topology = "leaf-spine";
    uint64_t bytes = 4u << 20;
    std::string dot;
    ExampleCommandLine cmd(__FILE__);
    cmd.AddValue("topology",
                 "single-switch, leaf-spine, ring, rail-optimized, rail-only, fat-tree, clos, "
                 "torus or multi-dim",
                 topology);
    cmd.AddValue("bytes", "all-reduce size in bytes", bytes);
    cmd.AddValue("dot", "also write the topology as a Graphviz file here", dot);
    cmd.Parse(argc, argv);

    ClusterScenario scenario;
    Ptr<GpuClusterHelper> cluster = scenario.GetCluster();
    ShapeCluster(scenario, topology);
    scenario.SetClusterAttribute("TopologyDot", StringValue(dot));

    const TemporaryDirectory directory("chakra-topology");
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
    catch (const std::exception& e) // a shape the family refuses: the message says why
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
    std::cout << std::fixed << std::setprecision(3) << "all-reduce of " << bytes << " bytes on "
              << allReduce.commSize << " GPUs (" << allReduce.algorithm
              << "): " << (allReduce.end - allReduce.start).GetNanoSeconds() / 1e3
              << " us, bus bandwidth " << allReduce.busBwGBps << " GB/s\n";
    if (!dot.empty())
    {
        std::cout << "picture: " << dot << " (dot -Tsvg " << dot << " -o topology.svg)\n";
    }
    return 0;
}

int
main(int argc, char* argv[])
{
    // A mistake (a refused value, an absurd size) is one line naming it and exit 1, not an abort.
    return RunTool("chakra-topology", [&] { return RunExample(argc, argv); });
}
