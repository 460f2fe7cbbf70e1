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

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>

using namespace ns3;

namespace
{

const std::string kProgram = "chakra-cluster";

/** What this process of a (possibly distributed) run prints, and how far it got. */
struct ProcessContext
{
    bool first{true};       //!< process 0: prints the report and writes the files
    std::ostream* out{};    //!< stdout on process 0, a null stream on the others
    bool simulating{false}; //!< the simulation started (an error then is this process's)
};

void
AddFlags(ToolArgs& args)
{
    args.AddOption("trace", "trace prefix: rank r reads PREFIX.r.et (or .et.gz)");
    JobOptions::AddFlags(args, "one of several jobs sharing the cluster, instead of --trace");
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
    args.AddOption("comm-records",
                   "which completed operations the report keeps (comm-ops.csv): 'all', or "
                   "'collectives' (sends and receives counted, not kept: far less memory for "
                   "steps with tensor ring exchanges or context-parallel rings; "
                   "ns3::ChakraApplication::CommRecords)",
                   "all");
    args.AddFlag(
        "strict",
        "what would be a warning about the traces is an error: communication nodes "
        "without comm_size (else run as 0 bytes; ns3::ChakraApplication::MissingCommSize)");
    args.EnableNs3Attributes();
}

/** Sets options.timeline from --timeline[=FILE] (bare: OUTPUT/timeline.json). */
void
ReadTimeline(const ToolArgs& args, const std::string& outDir, ClusterOptions& options)
{
    if (!args.Has("timeline"))
    {
        return;
    }
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

/** The picture alone: the cluster the flags describe, no traces, no simulation. */
int
DrawTopology(const ClusterOptions& options, std::ostream& out)
{
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

/**
 * The output directory (the timeline is written into it during the run), created on process 0;
 * one this run made is removed again if nothing was written into it.
 */
class OutputDirectory
{
  public:
    OutputDirectory(const std::string& dir, bool first)
    {
        if (dir.empty() || !first)
        {
            return;
        }
        std::error_code error;
        if (std::filesystem::create_directories(dir, error))
        {
            m_made = dir;
        }
        if (error)
        {
            throw std::invalid_argument("--output: cannot create " + dir + ": " + error.message());
        }
    }

    ~OutputDirectory()
    {
        std::error_code ignored;
        if (!m_made.empty() && std::filesystem::is_empty(m_made, ignored))
        {
            std::filesystem::remove(m_made, ignored);
        }
    }

    OutputDirectory(const OutputDirectory&) = delete;
    OutputDirectory& operator=(const OutputDirectory&) = delete;

  private:
    std::string m_made; //!< the directory this run created ("" if none)
};

/** Sets up the scenario's lines before the run: the topology and, on stderr, the partition. */
void
AnnounceRun(ClusterScenario& scenario, ProcessContext& process)
{
    scenario.SetBeforeRun([&scenario, &process](const std::vector<Ptr<ChakraApplication>>&) {
        *process.out << "topology: " << scenario.GetCluster()->DescribeTopology() << std::endl;
        if (process.first && MpiContext::GetProcessCount() > 1)
        {
            // On stderr: the report on stdout is the same as a one-process run's.
            const Ptr<GpuClusterHelper> cluster = scenario.GetCluster();
            std::cerr << "distributed: "
                      << DescribePartition(*cluster->GetTopology(), cluster->GetPartition())
                      << std::endl;
        }
        process.simulating = true;
    });
}

/**
 * --strict: a communication node without comm_size is an error; --comm-records: which
 * operations the ranks keep a record of.
 */
void
ApplyStrict(const ToolArgs& args, ClusterScenario& scenario)
{
    if (args.Has("strict"))
    {
        scenario.SetAppAttribute("MissingCommSize", StringValue("error"));
    }
    scenario.SetAppAttribute("CommRecords",
                             *ParseAttributeText(ChakraApplication::GetTypeId(),
                                                 "CommRecords",
                                                 args.Get("comm-records"),
                                                 "--comm-records"));
}

/**
 * What every run does before it starts: the cluster line, the topology line at the start
 * (AnnounceRun), the progress lines on stderr.
 * \return the rows per table of the printed report (--rows)
 */
std::size_t
PrepareRun(const ToolArgs& args, ClusterScenario& scenario, ProcessContext& process)
{
    *process.out << "cluster: " << scenario.GetCluster()->Describe() << "\n";
    AnnounceRun(scenario, process);
    const double progress = ProgressInterval(args);
    if (process.first && progress > 0)
    {
        scenario.SetWallClockProgress(progress, [](const ClusterScenario::WallProgress& line) {
            std::cerr << kProgram << ": " << ClusterScenario::FormatProgress(line) << std::endl;
        });
    }
    return static_cast<std::size_t>(ParseWholeNumber(args.Get("rows"), "--rows", 0, 1000000000));
}

/**
 * Prints the report and writes the files of a successful run. A failed run's report stays on
 * stdout (what each rank waits for is its diagnosis), but its figures are not written as
 * results (no CSV; the timeline was dropped), and the error is said on stderr.
 * \return the exit status
 */
template <typename Report> // ChakraReport, or MultiJobReport for several jobs
int
ShowReport(const Report& report,
           const ClusterOptions& options,
           const std::string& outDir,
           std::size_t rows,
           const ProcessContext& process)
{
    std::ostream& out = *process.out;
    const bool succeeded = report.AllFinished();
    report.Print(out, rows, outDir.empty() || !succeeded ? "" : outDir);
    if (!outDir.empty() && process.first && succeeded)
    {
        report.WriteCsv(outDir);
        out << "\nCSV files in " << outDir << "\n";
    }
    if (!options.timeline.empty() && succeeded)
    {
        out << "timeline: " << options.timeline << " (open in https://ui.perfetto.dev)\n";
    }
    if (!succeeded && process.first)
    {
        out.flush();
        std::cerr << kProgram << ": error: " << report.DescribeFailure() << std::endl;
    }
    return succeeded ? 0 : 1;
}

/** Replays the traces --trace names on the cluster the flags describe. \return exit status */
int
ReplayTraces(const ToolArgs& args,
             ClusterOptions& options,
             const std::string& outDir,
             ProcessContext& process)
{
    const std::string trace = args.Get("trace");
    const uint32_t ranks = CountTraceRanks(trace); // throws on missing ranks
    if (ranks == 0)
    {
        throw std::invalid_argument("no trace " + trace +
                                    ".0.et (--trace PREFIX: rank r "
                                    "reads PREFIX.r.et)");
    }
    ClusterScenario scenario;
    options.Apply(scenario, ranks, trace);
    ApplyStrict(args, scenario);
    const std::size_t rows = PrepareRun(args, scenario, process);
    OutputDirectory output(outDir, process.first);
    ChakraReport report = scenario.Run(trace);
    return ShowReport(report, options, outDir, rows, process);
}

/** Runs the jobs --job names together (and alone, with --interference). \return exit status */
int
ReplayJobs(const ToolArgs& args,
           const JobOptions& jobOptions,
           ClusterOptions& options,
           const std::string& outDir,
           ProcessContext& process)
{
    if (!args.Get("trace").empty())
    {
        throw std::invalid_argument(
            "--trace and --job (or --jobs-file): give the single job as --job PREFIX");
    }
    if (jobOptions.interference && MpiContext::IsEnabled())
    {
        // Each alone run is a simulation of its own, which ns-3 cannot run after the shared
        // one in the same MPI processes.
        throw std::invalid_argument("--interference in a distributed (MPI) run: ns-3 runs one "
                                    "simulation per MPI process; run each job alone with its "
                                    "own mpirun and --job ...:hosts= of the shared run");
    }
    const uint32_t gpus = jobOptions.ClusterGpus(options);
    // A scenario on the cluster the flags describe (the shared run, then each job alone).
    auto makeScenario = [&options, &args, gpus](ClusterScenario& scenario) {
        options.Apply(scenario, gpus);
        ApplyStrict(args, scenario);
    };
    ClusterScenario scenario;
    makeScenario(scenario);
    scenario.SetPlacement(jobOptions.placement, jobOptions.placementSeed);
    for (const ClusterJob& job : jobOptions.jobs)
    {
        scenario.AddJob(job);
    }
    scenario.GetPlacement(); // a job that does not fit is refused before anything is printed
    const std::size_t rows = PrepareRun(args, scenario, process);
    OutputDirectory output(outDir, process.first);
    MultiJobReport report = scenario.RunJobs();
    if (jobOptions.interference && FinishedEverywhere(report))
    {
        MeasureInterference(report, jobOptions.jobs, makeScenario);
    }
    return ShowReport(report, options, outDir, rows, process);
}

/** The run the flags ask for: a picture of the cluster, or a replay. \return exit status */
int
Run(const ToolArgs& args, ProcessContext& process)
{
    ClusterOptions options;
    options.Read(args);
    const std::string outDir = args.Get("output");
    ReadTimeline(args, outDir, options);
    JobOptions jobOptions;
    jobOptions.Read(args);
    if (jobOptions.HasJobs())
    {
        return ReplayJobs(args, jobOptions, options, outDir, process);
    }
    if (args.Get("trace").empty())
    {
        if (!options.Has("topology-dot"))
        {
            throw std::invalid_argument("--trace PREFIX is required (or --topology-dot FILE "
                                        "alone, to draw the cluster without a run)");
        }
        return DrawTopology(options, *process.out);
    }
    return ReplayTraces(args, options, outDir, process);
}

} // namespace

int
main(int argc, char* argv[])
{
    ToolArgs args(kProgram,
                  "Replays per-rank Chakra traces (PREFIX.<rank>.et) on a modeled GPU cluster "
                  "and prints the report; without --trace, --topology-dot FILE draws the cluster.");
    AddFlags(args);

    // Launched by mpirun: this process takes part in one distributed simulation. (Before the
    // flags: MPI may add its own to argv.)
    std::unique_ptr<MpiSession> mpi;
    try
    {
        mpi = std::make_unique<MpiSession>(&argc, &argv);
    }
    catch (const std::exception& e)
    {
        std::cerr << kProgram << ": error: " << e.what() << std::endl;
        return 1;
    }
    bool done = false;
    const int code = args.Parse(argc, argv, done);
    if (done)
    {
        return code;
    }
    // Process 0 prints the report and writes the files; the others only simulate.
    std::ostream quiet(nullptr);
    ProcessContext process;
    process.first = MpiContext::GetProcessId() == 0;
    process.out = process.first ? &std::cout : &quiet;
    try
    {
        return Run(args, process);
    }
    catch (const std::invalid_argument& e)
    {
        // A configuration error (flags, topology, partition) is found the same way by every
        // process before the simulation starts: process 0 says it once.
        if (!process.simulating)
        {
            if (process.first)
            {
                std::cerr << kProgram << ": error: " << e.what() << std::endl;
            }
            return 1;
        }
        std::cerr << kProgram << ": error: " << e.what() << std::endl;
        return mpi->Abort(1);
    }
    catch (const std::exception& e)
    {
        // Possibly this process's alone: the others would wait for it.
        std::cerr << kProgram << ": error"
                  << (MpiContext::GetProcessCount() > 1
                          ? " (process " + std::to_string(MpiContext::GetProcessId()) + ")"
                          : std::string())
                  << ": " << e.what() << std::endl;
        return mpi->Abort(1);
    }
}
