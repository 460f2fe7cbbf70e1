/*
 * topology-bench: the cost of building large topologies (issue 14's target: 1,024 GPUs in
 * <= 5 s, routing tables <= 500 MB).
 *
 *   build/bench/topology-bench [--gpus=1024] [--kinds=rail-optimized,fat-tree,...]
 *
 * Per topology, each phase in its own child process (so each peak RSS is its own):
 *  - graph: BuildTopology, then every node's next hops towards every rank (what a fabric or
 *    the flow model asks for), the summary (bisection, diameter);
 *  - tcp: GpuClusterHelper::Build with the tcp fabric (IpFabric: ns-3 nodes, point-to-point
 *    devices, IPv4, ClusterRouting tables filled from the next hops).
 */
#include "bench-args.h"
#include "bench-util.h"

#include "ns3/chakra-module.h"
#include "ns3/core-module.h"

#include <algorithm>
#include <iostream>

using namespace ns3;
using chakra_bench::PeakRssMiB;
using chakra_bench::RunInChild;

namespace
{

/** A 1,024-GPU (for gpus = 1024) configuration of each kind, as GpuClusterHelper attributes. */
std::vector<std::pair<std::string, std::string>>
Configuration(const std::string& kind, uint32_t gpus)
{
    const std::string hosts = std::to_string(gpus / 8);
    if (kind == "rail-optimized")
    {
        // DGX SuperPOD-like: scalable units of 32 hosts, 8 rails, 16 spines.
        return {{"Topology", kind},
                {"Hosts", hosts},
                {"GpusPerHost", "8"},
                {"HostsPerRailGroup", "32"},
                {"Spines", "16"}};
    }
    if (kind == "rail-only")
    {
        return {{"Topology", "rail-optimized"},
                {"Hosts", hosts},
                {"GpusPerHost", "8"},
                {"Spines", "0"}};
    }
    if (kind == "fat-tree")
    {
        return {{"Topology", kind}, {"Hosts", hosts}, {"GpusPerHost", "8"}};
    }
    if (kind == "clos")
    {
        return {{"Topology", kind},
                {"Hosts", hosts},
                {"GpusPerHost", "8"},
                {"HostsPerLeaf", "4"},
                {"LeavesPerPod", "8"},
                {"Spines", "8"},
                {"CoreSwitches", "32"}};
    }
    if (kind == "leaf-spine")
    {
        return {{"Topology", kind},
                {"Hosts", hosts},
                {"GpusPerHost", "8"},
                {"HostsPerLeaf", "4"},
                {"Spines", "16"}};
    }
    if (kind == "torus")
    {
        // 8 x 8 x 16 for 1,024 GPUs (TPU-pod-like: two dimensions of 8, the third the rest).
        return {{"Topology", kind}, {"TorusDims", "8x8x" + std::to_string(gpus / 64)}};
    }
    throw std::invalid_argument("unknown kind " + kind);
}

Ptr<GpuClusterHelper>
Cluster(const std::string& kind, uint32_t gpus)
{
    Ptr<GpuClusterHelper> cluster = CreateObject<GpuClusterHelper>();
    for (const auto& [name, value] : Configuration(kind, gpus))
    {
        // "Topology" first: the rest are the cluster's or the chosen family's.
        TypeId::AttributeInformation info;
        if (GpuClusterHelper::GetTypeId().LookupAttributeByName(name, &info))
        {
            cluster->SetAttribute(name, StringValue(value));
        }
        else
        {
            cluster->SetTopologyAttribute(name, StringValue(value));
        }
    }
    return cluster;
}

int
GraphPhase(const std::string& kind, uint32_t gpus)
{
    const double before = PeakRssMiB();
    const double start = chakra_bench::Now();
    Ptr<GpuClusterHelper> cluster = Cluster(kind, gpus);
    auto topology = cluster->CreateTopologyBuilder()->Build(cluster->GetTopologySpec());
    const double built = chakra_bench::Now();
    std::vector<uint32_t> hops;
    uint64_t entries = 0;
    for (uint32_t node = 0; node < topology->GetNodes().size(); ++node)
    {
        for (uint32_t dst = 0; dst < topology->GetRankCount(); ++dst)
        {
            topology->GetNextHops(node, dst, hops);
            entries += hops.size();
        }
    }
    const double routed = chakra_bench::Now();
    const TopologySummary summary = Summarize(*topology);
    const double summarized = chakra_bench::Now();
    std::cout << kind << " graph: " << topology->GetNodes().size() << " nodes, "
              << topology->GetLinks().size() << " links; build " << built - start
              << " s, all next hops " << routed - built << " s (" << entries
              << " next-hop entries), summary " << summarized - routed << " s (bisection "
              << summary.bisectionBps / 1e12 << " Tbps, diameter " << summary.diameter
              << "); peak RSS " << PeakRssMiB() << " MiB (+" << PeakRssMiB() - before << ")"
              << std::endl;
    return 0;
}

int
TcpPhase(const std::string& kind, uint32_t gpus)
{
    Ptr<GpuClusterHelper> cluster = Cluster(kind, gpus);
    const double before = PeakRssMiB();
    const double start = chakra_bench::Now();
    cluster->Build();
    const double built = chakra_bench::Now();
    std::cout << kind << " tcp fabric (IpFabric): GpuClusterHelper::Build " << built - start
              << " s; peak RSS " << PeakRssMiB() << " MiB (+" << PeakRssMiB() - before << ")"
              << std::endl;
    Simulator::Destroy();
    return 0;
}

} // namespace

int
main(int argc, char** argv)
{
    const std::string program = "topology-bench";
    ToolArgs args(program,
                  "The cost of building large topologies: per kind, the graph with every "
                  "node's next hops (graph) and the tcp fabric (tcp), each in its own process.");
    const std::vector<std::string> knownKinds{"rail-optimized",
                                              "rail-only",
                                              "fat-tree",
                                              "clos",
                                              "leaf-spine",
                                              "torus"};
    args.AddOption("gpus", "GPUs (a multiple of 8; torus: of 64)", "1024");
    args.AddOption("kinds",
                   "rail-optimized, rail-only, fat-tree, clos, leaf-spine, torus (comma "
                   "separated)",
                   "rail-optimized,fat-tree");
    args.AddOption("phases", "graph, tcp (comma separated)", "graph,tcp");
    args.EnableNs3Attributes();
    uint32_t gpus = 0;
    std::vector<std::string> kinds;
    std::vector<std::string> phases;
    auto readValues = [&]() {
        gpus = static_cast<uint32_t>(ParseWholeNumber(args.Get("gpus"), "--gpus", 8, 1000000));
        kinds = chakra_bench::ParseNameList(args.Get("kinds"), "--kinds", knownKinds);
        phases = chakra_bench::ParseNameList(args.Get("phases"), "--phases", {"graph", "tcp"});
        const bool torus = std::find(kinds.begin(), kinds.end(), "torus") != kinds.end();
        if (gpus % 8 != 0 || (torus && gpus % 64 != 0))
        {
            throw std::invalid_argument("--gpus: " + std::to_string(gpus) +
                                        " is not a multiple of " + (torus ? "64" : "8") +
                                        " (8-GPU hosts" + (torus ? "; torus 8x8xN)" : ")"));
        }
    };
    int exitCode = 0;
    if (!chakra_bench::ParseFlags(program, args, argc, argv, readValues, exitCode))
    {
        return exitCode;
    }
    auto has = [](const std::vector<std::string>& list, const std::string& name) {
        return std::find(list.begin(), list.end(), name) != list.end();
    };
    int status = 0;
    for (const std::string& kind : kinds)
    {
        if (has(phases, "graph"))
        {
            status |= RunInChild([&]() { return GraphPhase(kind, gpus); });
        }
        if (has(phases, "tcp"))
        {
            status |= RunInChild([&]() { return TcpPhase(kind, gpus); });
        }
    }
    return status;
}
