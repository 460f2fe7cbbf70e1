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
 * Long runs print a progress line on stderr about once a wall-clock second (--progress=SECONDS,
 * --quiet: none).
 *
 * Any ns-3 attribute can also be set: e.g. --ns3::TcpTransport::BufferSize=16777216.
 * Exit status: 0 when every rank ran its whole trace, 1 otherwise (the report says why).
 *
 * Launched by mpirun (with an ns-3 built with MPI: scripts/build-ns3-mpi.sh), the processes run
 * one distributed simulation: each simulates part of the cluster
 * (--ns3::GpuClusterHelper::Partition) and process 0 prints the report and writes the files,
 * the same as a one-process run.
 */
#include "ns3/chakra-module.h"
#include "ns3/core-module.h"

#include <iostream>
#include <memory>

using namespace ns3;


int
main(int argc, char* argv[])
{
    std::string trace;
    std::string outDir;
    uint32_t rows = 20;
    double progress = 1.0;
    bool noProgress = false;
    ClusterOptions options; // defaults: the attributes' defaults

    CommandLine cmd(__FILE__);
    cmd.Usage("Replays per-rank Chakra traces (PREFIX.<rank>.et) on a modeled GPU cluster.");
    cmd.AddValue("trace", "trace prefix: rank r reads PREFIX.r.et (or .et.gz)", trace);
    cmd.AddValue("hosts", "hosts (0: from the trace count)", options.hosts);
    cmd.AddValue("gpusPerHost", "GPUs per host (0: 8 if the rank count allows, else all)",
                 options.gpusPerHost);
    cmd.AddValue("transport",
                 "transport model: " + CommTransport::ListModels() +
                     ", or auto (rdma up to ns3::GpuClusterHelper::AutoPacketLimit GPUs, "
                     "flow above; the report says which ran) (the cluster's fabric is built "
                     "for it)",
                 options.transport);
    cmd.AddValue("topology", ListTopologyKinds(), options.topology);
    cmd.AddValue("nicBandwidth", "NIC link bandwidth", options.nicBandwidth);
    cmd.AddValue("nicLatency", "NIC link latency", options.nicLatency);
    cmd.AddValue("nvLinkBandwidth", "NVLink bandwidth per GPU and direction",
                 options.nvLinkBandwidth);
    cmd.AddValue("nvLinkLatency", "NVLink latency", options.nvLinkLatency);
    cmd.AddValue("spines", "leaf-spine: spines", options.spines);
    cmd.AddValue("hostsPerLeaf", "leaf-spine: hosts per leaf", options.hostsPerLeaf);
    cmd.AddValue("oversubscription",
                 "first tier above the NICs (leaf, rail switch, fat-tree edge): downlink / "
                 "uplink capacity",
                 options.oversubscription);
    cmd.AddValue("topologyFile",
                 "YAML/JSON topology file (ours, or ASTRA-sim's network.yml); its values win",
                 options.topologyFile);
    cmd.AddValue("topologyDot", "write the topology as a Graphviz file", options.topologyDot);
    cmd.AddValue("scaleUpDomain", "GPUs per NVLink domain (0: a host; e.g. 72)",
                 options.scaleUpDomain);
    cmd.AddValue("hostsPerRailGroup", "rail-optimized: hosts per rail group (0: all)",
                 options.hostsPerRailGroup);
    cmd.AddValue("leavesPerPod", "clos: leaves per pod", options.leavesPerPod);
    cmd.AddValue("coreSwitches", "clos: core switches (0: one per spine plane)",
                 options.coreSwitches);
    cmd.AddValue("coreOversubscription", "clos, fat-tree: spine tier downlink / uplink capacity",
                 options.coreOversubscription);
    cmd.AddValue("fatTreeK", "fat-tree: switch radix k (0: smallest that fits)",
                 options.fatTreeK);
    cmd.AddValue("torusDims", "torus: GPUs per dimension, e.g. 4x4x4", options.torusDims);
    cmd.AddValue("torusBandwidth", "torus: link bandwidth (0: the NIC's)",
                 options.torusBandwidth);
    cmd.AddValue("dimensions",
                 "multi-dim: Shape:size:bandwidth:latency,... (Ring, FullyConnected, Switch)",
                 options.dimensions);
    cmd.AddValue("mtu", "MTU of NIC and fabric links", options.mtu);
    cmd.AddValue("algorithm",
                 "algorithm for every collective type (auto, ring, direct, halving-doubling, "
                 "tree, hierarchical); per type: --ns3::ChakraApplication::AllReduceAlgorithm=...",
                 options.algorithm);
    cmd.AddValue("chunkSize", "pipeline chunk size in bytes (0: algorithm default)",
                 options.chunkSize);
    cmd.AddValue("computeScale", "factor on GPU compute durations (0.5: twice as fast)",
                 options.computeScale);
    cmd.AddValue("ctrlDeps",
                 "ctrl_deps: auto (ignored in reference-converter traces, whose ctrl_deps are "
                 "call-tree links), honour or ignore (true/false also accepted)",
                 options.ctrlDeps);
    cmd.AddValue("danglingDeps", "dependencies on ids not in a trace: warn or error",
                 options.danglingDeps);
    cmd.AddValue("out", "directory for ranks.csv, collectives.csv, comm-ops.csv", outDir);
    cmd.AddValue("timeline", "Chrome trace JSON timeline file", options.timeline);
    cmd.AddValue("stopTime", "stop the simulation at this simulated time in seconds (0: never)",
                 options.stopSeconds);
    cmd.AddValue("rows", "rows per table in the printed report", rows);
    cmd.AddValue("progress",
                 "print a progress line (simulated time, nodes done, events/s) on stderr about "
                 "every this many wall-clock seconds (0: never)",
                 progress);
    cmd.AddValue("quiet", "no progress lines", noProgress);
    cmd.Parse(argc, argv);

    // Launched by mpirun: this process takes part in one distributed simulation.
    std::unique_ptr<MpiSession> mpi;
    try
    {
        mpi = std::make_unique<MpiSession>(&argc, &argv);
    }
    catch (const std::exception& e)
    {
        std::cerr << "chakra-cluster: error: " << e.what() << std::endl;
        return 1;
    }
    // Process 0 prints the report and writes the files; the others only simulate.
    const bool first = MpiContext::GetProcessId() == 0;
    std::ostream quiet(nullptr);
    std::ostream& out = first ? std::cout : quiet;
    bool simulating = false;

    if (trace.empty())
    {
        std::cerr << "chakra-cluster: error: --trace=PREFIX is required (see --help)" << std::endl;
        return 2;
    }
    try
    {
        const uint32_t ranks = CountTraceRanks(trace); // throws on missing ranks
        if (ranks == 0)
        {
            std::cerr << "chakra-cluster: error: no trace " << trace << ".0.et" << std::endl;
            return 1;
        }
        ClusterScenario scenario;
        options.Apply(scenario, ranks, trace);
        out << "cluster: " << scenario.GetCluster()->Describe() << "\n";
        scenario.SetBeforeRun([&](const std::vector<Ptr<ChakraApplication>>&) {
            out << "topology: " << scenario.GetCluster()->DescribeTopology() << std::endl;
            if (first && MpiContext::GetProcessCount() > 1)
            {
                // On stderr: the report on stdout is the same as a one-process run's.
                const Ptr<GpuClusterHelper> cluster = scenario.GetCluster();
                std::cerr << "distributed: "
                          << DescribePartition(*cluster->GetTopology(), cluster->GetPartition())
                          << std::endl;
            }
            simulating = true;
        });
        if (first && !noProgress && progress > 0)
        {
            scenario.SetWallClockProgress(progress,
                                          [](const ClusterScenario::WallProgress& line) {
                                              std::cerr << "chakra-cluster: "
                                                        << ClusterScenario::FormatProgress(line)
                                                        << std::endl;
                                          });
        }
        ChakraReport report = scenario.Run(trace);
        report.Print(out, rows);
        if (!outDir.empty() && first)
        {
            report.WriteCsv(outDir);
            out << "\nCSV files in " << outDir << "\n";
        }
        if (!options.timeline.empty())
        {
            out << "timeline: " << options.timeline << " (open in https://ui.perfetto.dev)\n";
        }
        return report.AllFinished() ? 0 : 1;
    }
    catch (const std::invalid_argument& e)
    {
        // A configuration error (flags, topology, partition) is found the same way by every
        // process before the simulation starts: process 0 says it once.
        if (!simulating)
        {
            if (first)
            {
                std::cerr << "chakra-cluster: error: " << e.what() << std::endl;
            }
            return 1;
        }
        std::cerr << "chakra-cluster: error: " << e.what() << std::endl;
        return mpi->Abort(1);
    }
    catch (const std::exception& e)
    {
        // Possibly this process's alone: the others would wait for it.
        std::cerr << "chakra-cluster: error"
                  << (MpiContext::GetProcessCount() > 1
                          ? " (process " + std::to_string(MpiContext::GetProcessId()) + ")"
                          : std::string())
                  << ": " << e.what() << std::endl;
        return mpi->Abort(1);
    }
}
