/*
 * chakra-cluster: replay per-rank Chakra traces on a modeled GPU cluster.
 *
 *   chakra-cluster --trace PREFIX [--hosts 2 --gpus-per-host 8 --topology leaf-spine ...]
 *
 * Builds hosts x GPUs-per-host GPU nodes (NVSwitch inside a host, one NIC per GPU to the
 * scale-out fabric), installs one ChakraApplication per rank (rank r reads PREFIX.r.et), runs
 * the simulation and prints the report: per rank finish, compute, communication and exposed
 * communication time; per collective size, time and bandwidth. --output DIR writes CSV files
 * and --timeline[=FILE] a Chrome trace JSON (open it in https://ui.perfetto.dev).
 * Without --trace, --topology-dot FILE draws the cluster the flags describe, with no run.
 *
 * Flags are the same as chakra_replay's (ClusterOptions: one table for both); any ns-3
 * attribute can be set too: --ns3::RdmaNic::CongestionControl=dcqcn.
 *
 * Long runs print a progress line on stderr about once a wall-clock second (--progress
 * SECONDS, --quiet: none).
 * Exit status: 0 when every rank ran its whole trace, 1 otherwise (the report says why), 2 for
 * a flag that is not valid.
 *
 * Launched by mpirun (with an ns-3 built with MPI: scripts/build-ns3-mpi.sh), the processes run
 * one distributed simulation: each simulates part of the cluster
 * (--ns3::GpuClusterHelper::Partition) and process 0 prints the report and writes the files,
 * the same as a one-process run.
 */
#include "ns3/chakra-module.h"
#include "ns3/core-module.h"

#include <filesystem>
#include <iostream>
#include <memory>

using namespace ns3;

int
main(int argc, char* argv[])
{
    const std::string program = "chakra-cluster";
    ToolArgs args(program,
                  "Replays per-rank Chakra traces (PREFIX.<rank>.et) on a modeled GPU cluster "
                  "and prints the report; without --trace, --topology-dot FILE draws the cluster.");
    args.AddOption("trace", "trace prefix: rank r reads PREFIX.r.et (or .et.gz)");
    ClusterOptions::AddFlags(args);
    args.AddOption("output",
                   "directory for ranks.csv, collectives.csv, comm-ops.csv (and timeline.json)",
                   "",
                   false,
                   {"out"});
    args.AddOptionalValue("timeline",
                          "write a Chrome trace JSON timeline: to FILE (--timeline=FILE), or to "
                          "OUTPUT/timeline.json");
    args.AddOption("rows", "rows per table in the printed report", "20");
    args.AddOption("progress",
                   "print a progress line (simulated time, nodes done of all, events/s, time "
                   "left) on stderr about every this many wall-clock seconds (0: never)",
                   "1");
    args.AddFlag("quiet", "no progress lines");
    args.AddFlag(
        "strict",
        "what would be a warning about the traces is an error: communication nodes "
        "without comm_size (else run as 0 bytes; ns3::ChakraApplication::MissingCommSize)");
    args.EnableNs3Attributes();

    // Launched by mpirun: this process takes part in one distributed simulation. (Before the
    // flags: MPI may add its own to argv.)
    std::unique_ptr<MpiSession> mpi;
    try
    {
        mpi = std::make_unique<MpiSession>(&argc, &argv);
    }
    catch (const std::exception& e)
    {
        std::cerr << program << ": error: " << e.what() << std::endl;
        return 1;
    }
    // Process 0 prints the report and writes the files; the others only simulate.
    const bool first = MpiContext::GetProcessId() == 0;
    bool done = false;
    const int code = args.Parse(argc, argv, done);
    if (done)
    {
        return code;
    }
    std::ostream quiet(nullptr);
    std::ostream& out = first ? std::cout : quiet;
    bool simulating = false;

    try
    {
        ClusterOptions options;
        options.Read(args);
        const std::string outDir = args.Get("output");
        if (args.Has("timeline"))
        {
            options.timeline = args.Get("timeline");
            if (options.timeline.empty())
            {
                if (outDir.empty())
                {
                    throw std::invalid_argument(
                        "--timeline: give --timeline=FILE, or --output DIR (DIR/timeline.json)");
                }
                options.timeline = outDir + "/timeline.json";
            }
        }
        const std::string trace = args.Get("trace");
        if (trace.empty())
        {
            if (!options.Has("topology-dot"))
            {
                throw std::invalid_argument("--trace PREFIX is required (or --topology-dot FILE "
                                            "alone, to draw the cluster without a run)");
            }
            // The picture alone: the cluster the flags describe, no traces, no simulation.
            Ptr<GpuClusterHelper> cluster = CreateObject<GpuClusterHelper>();
            options.ApplyToCluster(*cluster);
            out << "cluster: " << cluster->Describe() << "\n";
            out << "topology: " << cluster->DescribeTopology() << "\n";
            WriteTopologyDot(*cluster->CreateTopologyBuilder()->Build(cluster->GetTopologySpec()),
                             options.GetText("topology-dot"));
            out << "picture: " << options.GetText("topology-dot") << " (render it with: dot -Tsvg "
                << options.GetText("topology-dot") << " -o topology.svg)\n";
            return 0;
        }
        const uint32_t ranks = CountTraceRanks(trace); // throws on missing ranks
        if (ranks == 0)
        {
            throw std::invalid_argument("no trace " + trace +
                                        ".0.et (--trace PREFIX: rank r "
                                        "reads PREFIX.r.et)");
        }
        ClusterScenario scenario;
        options.Apply(scenario, ranks, trace);
        if (args.Has("strict"))
        {
            scenario.SetAppAttribute("MissingCommSize", StringValue("error"));
        }
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
        const double progress = ParseRealNumber(args.Get("progress"), "--progress", 0, 1e6);
        if (first && !args.Has("quiet") && progress > 0)
        {
            scenario.SetWallClockProgress(progress, [&](const ClusterScenario::WallProgress& line) {
                std::cerr << program << ": " << ClusterScenario::FormatProgress(line) << std::endl;
            });
        }
        const auto rows =
            static_cast<std::size_t>(ParseWholeNumber(args.Get("rows"), "--rows", 0, 1000000000));
        // The output directory (the timeline is written into it during the run); one this run
        // made is removed again if nothing was written into it.
        bool madeOutDir = false;
        if (!outDir.empty() && first)
        {
            std::error_code error;
            madeOutDir = std::filesystem::create_directories(outDir, error);
            if (error)
            {
                throw std::invalid_argument("--output: cannot create " + outDir + ": " +
                                            error.message());
            }
        }

        struct RemoveIfEmpty
        {
            std::string dir;

            ~RemoveIfEmpty()
            {
                std::error_code ignored;
                if (!dir.empty() && std::filesystem::is_empty(dir, ignored))
                {
                    std::filesystem::remove(dir, ignored);
                }
            }
        } cleanup{madeOutDir ? outDir : ""};

        ChakraReport report = scenario.Run(trace);
        // A failed run's report stays on stdout (what each rank waits for is its diagnosis),
        // but its figures are not written as results (no CSV; the timeline was dropped), and
        // the error is said on stderr.
        const bool succeeded = report.AllFinished();
        report.Print(out, rows, outDir.empty() || !succeeded ? "" : outDir);
        if (!outDir.empty() && first && succeeded)
        {
            report.WriteCsv(outDir);
            out << "\nCSV files in " << outDir << "\n";
        }
        if (!options.timeline.empty() && succeeded)
        {
            out << "timeline: " << options.timeline << " (open in https://ui.perfetto.dev)\n";
        }
        if (!succeeded && first)
        {
            out.flush();
            std::cerr << program << ": error: " << report.DescribeFailure() << std::endl;
        }
        return succeeded ? 0 : 1;
    }
    catch (const std::invalid_argument& e)
    {
        // A configuration error (flags, topology, partition) is found the same way by every
        // process before the simulation starts: process 0 says it once.
        if (!simulating)
        {
            if (first)
            {
                std::cerr << program << ": error: " << e.what() << std::endl;
            }
            return 1;
        }
        std::cerr << program << ": error: " << e.what() << std::endl;
        return mpi->Abort(1);
    }
    catch (const std::exception& e)
    {
        // Possibly this process's alone: the others would wait for it.
        std::cerr << program << ": error"
                  << (MpiContext::GetProcessCount() > 1
                          ? " (process " + std::to_string(MpiContext::GetProcessId()) + ")"
                          : std::string())
                  << ": " << e.what() << std::endl;
        return mpi->Abort(1);
    }
}
