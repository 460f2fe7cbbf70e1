/*
 * chakra-cluster: replay per-rank Chakra traces on a modeled GPU cluster.
 *
 *   chakra-cluster --trace=PREFIX [--hosts=2 --gpusPerHost=8 --topology=leaf-spine ...]
 *
 * Builds Hosts x GpusPerHost GPU nodes (NVSwitch inside a host, one NIC per GPU to the
 * scale-out fabric), installs one ChakraApplication per rank (rank r reads PREFIX.r.et), runs
 * the simulation and prints the report: per rank finish, compute, communication and exposed
 * communication time; per collective size, time and bandwidth. --out=DIR writes CSV files and
 * --timeline=FILE a Chrome trace JSON (open it in https://ui.perfetto.dev).
 *
 * Any ns-3 attribute can also be set: e.g. --ns3::PeerTransport::BufferSize=16777216.
 * Exit status: 0 when every rank ran its whole trace, 1 otherwise (the report says why).
 */
#include "ns3/chakra-module.h"
#include "ns3/core-module.h"

#include <iostream>

using namespace ns3;


int
main(int argc, char* argv[])
{
    std::string trace;
    uint32_t hosts = 0;
    uint32_t gpusPerHost = 0;
    std::string topology = "single-switch";
    std::string nicBandwidth = "400Gbps";
    std::string nicLatency = "500ns";
    std::string nvLinkBandwidth = "3600Gbps";
    std::string nvLinkLatency = "250ns";
    uint32_t spines = 2;
    uint32_t hostsPerLeaf = 1;
    double oversubscription = 1.0;
    uint32_t mtu = 9000;
    std::string algorithm = "auto";
    uint64_t chunkSize = 0;
    double computeScale = 1.0;
    bool ctrlDeps = true;
    std::string danglingDeps = "warn";
    std::string out;
    std::string timeline;
    double stopSeconds = 0;
    uint32_t rows = 20;

    CommandLine cmd(__FILE__);
    cmd.Usage("Replays per-rank Chakra traces (PREFIX.<rank>.et) on a modeled GPU cluster.");
    cmd.AddValue("trace", "trace prefix: rank r reads PREFIX.r.et (or .et.gz)", trace);
    cmd.AddValue("hosts", "hosts (0: from the trace count)", hosts);
    cmd.AddValue("gpusPerHost", "GPUs per host (0: 8 if the rank count allows, else all)",
                 gpusPerHost);
    cmd.AddValue("topology", "single-switch, leaf-spine or ring", topology);
    cmd.AddValue("nicBandwidth", "NIC link bandwidth", nicBandwidth);
    cmd.AddValue("nicLatency", "NIC link latency", nicLatency);
    cmd.AddValue("nvLinkBandwidth", "NVLink bandwidth per GPU and direction", nvLinkBandwidth);
    cmd.AddValue("nvLinkLatency", "NVLink latency", nvLinkLatency);
    cmd.AddValue("spines", "leaf-spine: spines", spines);
    cmd.AddValue("hostsPerLeaf", "leaf-spine: hosts per leaf", hostsPerLeaf);
    cmd.AddValue("oversubscription", "leaf-spine: downlink / uplink capacity", oversubscription);
    cmd.AddValue("mtu", "MTU of every link", mtu);
    cmd.AddValue("algorithm",
                 "algorithm for every collective type (auto, ring, direct, halving-doubling, "
                 "tree, hierarchical); per type: --ns3::ChakraApplication::AllReduceAlgorithm=...",
                 algorithm);
    cmd.AddValue("chunkSize", "pipeline chunk size in bytes (0: algorithm default)", chunkSize);
    cmd.AddValue("computeScale", "factor on GPU compute durations (0.5: twice as fast)",
                 computeScale);
    cmd.AddValue("ctrlDeps", "honour ctrl_deps (off for reference-converter traces)", ctrlDeps);
    cmd.AddValue("danglingDeps", "dependencies on ids not in a trace: warn or error",
                 danglingDeps);
    cmd.AddValue("out", "directory for ranks.csv, collectives.csv, comm-ops.csv", out);
    cmd.AddValue("timeline", "Chrome trace JSON timeline file", timeline);
    cmd.AddValue("stopTime", "stop the simulation at this simulated time in seconds (0: never)",
                 stopSeconds);
    cmd.AddValue("rows", "rows per table in the printed report", rows);
    cmd.Parse(argc, argv);

    if (trace.empty())
    {
        std::cerr << "chakra-cluster: error: --trace=PREFIX is required (see --help)" << std::endl;
        return 2;
    }
    const uint32_t ranks = CountTraceRanks(trace);
    if (ranks == 0)
    {
        std::cerr << "chakra-cluster: error: no trace " << trace << ".0.et" << std::endl;
        return 1;
    }
    if (hosts == 0 && gpusPerHost == 0)
    {
        gpusPerHost = ranks % 8 == 0 ? 8 : ranks;
    }
    if (gpusPerHost == 0)
    {
        gpusPerHost = ranks / hosts;
    }
    if (hosts == 0)
    {
        hosts = ranks / gpusPerHost;
    }
    if (hosts * gpusPerHost != ranks)
    {
        std::cerr << "chakra-cluster: error: the trace has " << ranks << " ranks but the cluster "
                  << hosts << " x " << gpusPerHost << " has " << hosts * gpusPerHost << std::endl;
        return 1;
    }

    try
    {
        ClusterScenario scenario;
        Ptr<GpuClusterHelper> cluster = scenario.GetCluster();
        cluster->SetAttribute("Hosts", UintegerValue(hosts));
        cluster->SetAttribute("GpusPerHost", UintegerValue(gpusPerHost));
        cluster->SetAttribute("Topology", StringValue(topology));
        cluster->SetAttribute("NicBandwidth", StringValue(nicBandwidth));
        cluster->SetAttribute("NicLatency", StringValue(nicLatency));
        cluster->SetAttribute("NvLinkBandwidth", StringValue(nvLinkBandwidth));
        cluster->SetAttribute("NvLinkLatency", StringValue(nvLinkLatency));
        cluster->SetAttribute("Spines", UintegerValue(spines));
        cluster->SetAttribute("HostsPerLeaf", UintegerValue(hostsPerLeaf));
        cluster->SetAttribute("Oversubscription", DoubleValue(oversubscription));
        cluster->SetAttribute("Mtu", UintegerValue(mtu));
        std::cout << "cluster: " << cluster->Describe() << "\n";

        Ptr<ComputeModel> compute = CreateObject<ComputeModel>();
        compute->SetAttribute("ComputeScale", DoubleValue(computeScale));
        scenario.SetAppAttribute("ComputeModel", PointerValue(compute));
        scenario.SetAppAttribute("HonourCtrlDeps", BooleanValue(ctrlDeps));
        scenario.SetAppAttribute("DanglingDeps", StringValue(danglingDeps));
        scenario.SetAppAttribute("ChunkSize", UintegerValue(chunkSize));
        if (algorithm != "auto")
        {
            for (const char* type : {"AllReduce", "AllGather", "ReduceScatter", "AllToAll",
                                     "Broadcast", "Reduce", "Gather", "Scatter"})
            {
                scenario.SetAppAttribute(std::string(type) + "Algorithm", StringValue(algorithm));
            }
        }
        if (!timeline.empty())
        {
            scenario.SetTimeline(timeline);
        }
        if (stopSeconds > 0)
        {
            scenario.SetStopTime(Seconds(stopSeconds));
        }
        ChakraReport report = scenario.Run(trace);
        report.Print(std::cout, rows);
        if (!out.empty())
        {
            report.WriteCsv(out);
            std::cout << "\nCSV files in " << out << "\n";
        }
        if (!timeline.empty())
        {
            std::cout << "timeline: " << timeline << " (open in https://ui.perfetto.dev)\n";
        }
        return report.AllFinished() ? 0 : 1;
    }
    catch (const std::exception& e)
    {
        std::cerr << "chakra-cluster: error: " << e.what() << std::endl;
        return 1;
    }
}
