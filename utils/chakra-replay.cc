/*
 * chakra_replay: one command from a job's PyTorch traces to a simulated run and its report.
 */
#include "tool-args.h"

#include "ns3/replay-pipeline.h"
#include "ns3/topology-builder.h"

#include <iostream>
#include <stdexcept>

using namespace ns3;

int
main(int argc, char** argv)
{
    const std::string program = "chakra_replay";
    ClusterOptions defaults;
    ToolArgs args(program,
                  "Replays a training job on a modeled GPU cluster. With --traces DIR: finds each "
                  "rank's host execution trace and Kineto trace in DIR (by content; the rank is "
                  "the first number in the file name), links and converts them, checks that the "
                  "ranks agree; with --et PREFIX: uses ready PREFIX.<rank>.et files. Then "
                  "simulates, prints the report and, when the traces carry measured timings, the "
                  "simulated iteration and collectives beside the measured ones. Everything is "
                  "written into --output: linked/, et/, report.txt, ranks.csv, collectives.csv, "
                  "comm-ops.csv, validation.csv (and timeline.json with --timeline).");
    args.AddOption("traces", "directory of per-rank host (and device) traces");
    args.AddOption("et", "prefix of ready .et traces (instead of --traces)");
    args.AddOption("output", "output directory", "", true);
    args.AddOption("host-pattern", "host trace names, e.g. 'dlrm_eg_{rank}.json.gz'");
    args.AddOption("device-pattern", "device trace names, e.g. 'worker{rank}_*.json.gz'");
    args.AddOption("hosts", "hosts (0: from the rank count)", "0");
    args.AddOption("gpus-per-host", "GPUs per host (0: 8 if the rank count allows, else all)", "0");
    args.AddOption("transport",
                   "transport model: " + CommTransport::ListModels() +
                       ", or auto (rdma up to ns3::GpuClusterHelper::AutoPacketLimit GPUs, "
                       "flow above; the report says which ran)",
                   defaults.transport);
    args.AddOption("topology", ListTopologyKinds(), defaults.topology);
    args.AddOption("nic-bandwidth", "NIC link bandwidth", defaults.nicBandwidth);
    args.AddOption("nic-latency", "NIC link latency", defaults.nicLatency);
    args.AddOption("nvlink-bandwidth",
                   "NVLink bandwidth per GPU and direction (default: from the GPU the traces "
                   "name, e.g. V100 150 GB/s, A100 300 GB/s, H100 450 GB/s; else " +
                       defaults.nvLinkBandwidth + ")",
                   defaults.nvLinkBandwidth);
    args.AddOption("nvlink-latency", "NVLink latency", defaults.nvLinkLatency);
    args.AddOption("spines", "leaf-spine: spines", std::to_string(defaults.spines));
    args.AddOption("hosts-per-leaf", "leaf-spine: hosts per leaf",
                   std::to_string(defaults.hostsPerLeaf));
    args.AddOption("oversubscription", "leaf-spine: downlink / uplink capacity", "1");
    args.AddOption("mtu", "MTU of NIC and fabric links", std::to_string(defaults.mtu));
    args.AddOption("topology-file",
                   "YAML/JSON topology file (ours, or ASTRA-sim's network.yml); its values win");
    args.AddOption("topology-dot", "write the topology as a Graphviz file");
    args.AddOption("scale-up-domain", "GPUs per NVLink domain (0: a host)", "0");
    args.AddOption("hosts-per-rail-group", "rail-optimized: hosts per rail group (0: all)", "0");
    args.AddOption("leaves-per-pod", "clos: leaves per pod",
                   std::to_string(defaults.leavesPerPod));
    args.AddOption("core-switches", "clos: core switches (0: one per spine plane)", "0");
    args.AddOption("core-oversubscription", "clos, fat-tree: spine tier down / up capacity", "1");
    args.AddOption("fat-tree-k", "fat-tree: switch radix k (0: smallest that fits)", "0");
    args.AddOption("torus-dims", "torus: GPUs per dimension, e.g. 4x4x4");
    args.AddOption("torus-bandwidth", "torus: link bandwidth (0: the NIC's)",
                   defaults.torusBandwidth);
    args.AddOption("dimensions", "multi-dim: Shape:size:bandwidth:latency,...");
    args.AddOption("algorithm", "collective algorithm: auto, ring, direct, halving-doubling, "
                                "tree, hierarchical", "auto");
    args.AddOption("chunk-size", "pipeline chunk size in bytes (0: algorithm default)", "0");
    args.AddOption("compute-scale", "factor on GPU compute durations (0.5: twice as fast)", "1");
    args.AddOption("ctrl-deps",
                   "ctrl_deps: auto (ignored in reference-converter traces), honour or ignore "
                   "(true/false also accepted)",
                   "auto");
    args.AddOption("dangling-deps", "dependencies on ids not in a trace: warn or error", "warn");
    args.AddFlag("measured-offsets",
                 "start each rank at its measured offset (its iteration start minus the "
                 "earliest rank's, clocks aligned as the report says); an error if a rank has "
                 "no measured iteration. The default does so whenever it can: every rank has a "
                 "measured iteration and the ranks' clocks are one (shared, or aligned by their "
                 "collectives)");
    args.AddFlag("start-together",
                 "start every rank at once: the job without the measured start skew (a "
                 "what-if; the validation then compares unlike things)");
    args.AddFlag("no-calibration",
                 "simulate the models alone: without the measured rank-local delays after "
                 "collectives and without a software cost per collective call fitted to the "
                 "measured calls (both on by default when the traces carry measured times; "
                 "doc/validation.md)");
    args.AddFlag("timeline", "also write timeline.json (Chrome trace, opens in Perfetto)");
    args.AddOption("rows", "rows per table in the printed report", "20");
    args.AddOption("progress",
                   "print a progress line (simulated time, nodes done, events/s) on stderr "
                   "about every SECONDS of wall-clock time while simulating (0: none)",
                   "1");
    args.AddFlag("quiet", "no progress lines");
    bool done = false;
    int code = args.Parse(argc, argv, done);
    if (done)
    {
        return code;
    }
    return RunTool(program, [&]() {
        if (args.Has("traces") == args.Has("et"))
        {
            throw std::invalid_argument("give exactly one of --traces DIR and --et PREFIX");
        }
        const std::string out = args.Get("output");
        ReplayPipeline pipeline(out);
        if (args.Has("measured-offsets") && args.Has("start-together"))
        {
            throw std::invalid_argument("give at most one of --measured-offsets and "
                                        "--start-together");
        }
        pipeline.SetRankStart(args.Has("measured-offsets") ? ReplayPipeline::RankStart::MEASURED_OFFSETS
                              : args.Has("start-together") ? ReplayPipeline::RankStart::TOGETHER
                                                           : ReplayPipeline::RankStart::AUTO);
        pipeline.SetNvLinkFromTrace(!args.Has("nvlink-bandwidth"));
        pipeline.SetCalibration(!args.Has("no-calibration"));
        if (!args.Has("quiet"))
        {
            pipeline.SetProgress([&](const std::string& line) {
                std::cerr << program << ": " << line << std::endl;
            });
            pipeline.SetWallClockProgress(args.GetDouble("progress"));
        }
        std::string prefix = args.Get("et");
        if (args.Has("traces"))
        {
            auto ranks = DiscoverRankTraces(args.Get("traces"), args.Get("host-pattern"),
                                            args.Get("device-pattern"));
            prefix = pipeline.Prepare(ranks);
        }
        ClusterOptions options;
        options.hosts = static_cast<uint32_t>(args.GetInt("hosts"));
        options.gpusPerHost = static_cast<uint32_t>(args.GetInt("gpus-per-host"));
        options.transport = args.Get("transport");
        options.topology = args.Get("topology");
        options.nicBandwidth = args.Get("nic-bandwidth");
        options.nicLatency = args.Get("nic-latency");
        options.nvLinkBandwidth = args.Get("nvlink-bandwidth");
        options.nvLinkLatency = args.Get("nvlink-latency");
        options.spines = static_cast<uint32_t>(args.GetInt("spines"));
        options.hostsPerLeaf = static_cast<uint32_t>(args.GetInt("hosts-per-leaf"));
        options.oversubscription = args.GetDouble("oversubscription");
        options.mtu = static_cast<uint32_t>(args.GetInt("mtu"));
        options.topologyFile = args.Has("topology-file") ? args.Get("topology-file") : "";
        options.topologyDot = args.Has("topology-dot") ? args.Get("topology-dot") : "";
        options.scaleUpDomain = static_cast<uint32_t>(args.GetInt("scale-up-domain"));
        options.hostsPerRailGroup = static_cast<uint32_t>(args.GetInt("hosts-per-rail-group"));
        options.leavesPerPod = static_cast<uint32_t>(args.GetInt("leaves-per-pod"));
        options.coreSwitches = static_cast<uint32_t>(args.GetInt("core-switches"));
        options.coreOversubscription = args.GetDouble("core-oversubscription");
        options.fatTreeK = static_cast<uint32_t>(args.GetInt("fat-tree-k"));
        options.torusDims = args.Has("torus-dims") ? args.Get("torus-dims") : "";
        options.torusBandwidth = args.Get("torus-bandwidth");
        options.dimensions = args.Has("dimensions") ? args.Get("dimensions") : "";
        options.algorithm = args.Get("algorithm");
        options.chunkSize = static_cast<uint64_t>(args.GetInt("chunk-size"));
        options.computeScale = args.GetDouble("compute-scale");
        options.ctrlDeps = args.Get("ctrl-deps");
        options.danglingDeps = args.Get("dangling-deps");
        if (args.Has("timeline"))
        {
            options.timeline = out + "/timeline.json";
        }
        ChakraReport report = pipeline.Simulate(prefix, options);
        auto rows = static_cast<std::size_t>(args.GetInt("rows"));
        report.Print(std::cout, rows);
        pipeline.GetValidation().Print(std::cout, rows);
        std::cout << "\nreport, CSVs" << (args.Has("timeline") ? ", timeline" : "") << " in "
                  << out << "\n";
        return report.AllFinished() ? 0 : 1;
    });
}
