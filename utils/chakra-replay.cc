/*
 * chakra_replay: one command from a job's PyTorch traces to a simulated run and its report.
 */
#include "ns3/cluster-options.h"
#include "ns3/job-options.h"
#include "ns3/quantity-parser.h"
#include "ns3/replay-pipeline.h"
#include "ns3/tool-args.h"

#include <algorithm>
#include <iostream>
#include <optional>
#include <stdexcept>

using namespace ns3;

namespace
{

const std::string kProgram = "chakra_replay";

/** The tool's flags: its own, the cluster and replay table shared with chakra-cluster. */
void
AddReplayFlags(ToolArgs& args)
{
    args.AddOption("traces", "directory of per-rank host (and device) traces");
    args.AddOption("et",
                   "prefix of ready .et traces (instead of --traces; nothing is linked, so no "
                   "profile.csv)");
    args.AddOption("output", "output directory", "", true, {"out"});
    args.AddOption("host-pattern", "host trace names, e.g. 'dlrm_eg_{rank}.json.gz'");
    args.AddOption("device-pattern", "device trace names, e.g. 'worker{rank}_*.json.gz'");
    // The cluster and replay flags: the same table as chakra-cluster's.
    ClusterOptions::AddFlags(args);
    JobOptions::AddFlags(args,
                         "another job to run beside the replayed one (job \"replay\") on one "
                         "cluster, for its slowdown next to it");
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
    args.AddOptionalValue("timeline",
                          "also write a Chrome trace JSON timeline (opens in Perfetto): to "
                          "OUTPUT/timeline.json, or to FILE with --timeline=FILE");
    args.AddOption("rows", "rows per table in the printed report", "20");
    args.AddOption("progress",
                   "print a progress line (simulated time, nodes done of all, events/s, time "
                   "left) on stderr "
                   "about every SECONDS of wall-clock time while simulating (0: none)",
                   "1");
    args.AddFlag("quiet", "no progress lines");
    args.AddFlag("strict",
                 "what would be a warning about the input is an error: communication nodes "
                 "without comm_size (else run as 0 bytes), a job size the traces cannot "
                 "confirm, ranks on different GPU models");
    args.EnableNs3Attributes();
}

/** Sets the pipeline's choices from the flags (--start-together, --strict, ...). */
void
ConfigurePipeline(const ToolArgs& args, double progress, ReplayPipeline& pipeline)
{
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
    pipeline.SetStrict(args.Has("strict"));
    if (!args.Has("quiet"))
    {
        pipeline.SetProgress(
            [](const std::string& line) { std::cerr << kProgram << ": " << line << std::endl; });
        pipeline.SetWallClockProgress(progress);
    }
}

/** \return the .et prefix to simulate: --et as given, or --traces found, linked and converted */
std::string
PrepareTraces(const ToolArgs& args, ReplayPipeline& pipeline)
{
    if (!args.Has("traces"))
    {
        return args.Get("et");
    }
    std::vector<std::string> skipped;
    auto ranks = DiscoverRankTraces(args.Get("traces"),
                                    args.Get("host-pattern"),
                                    args.Get("device-pattern"),
                                    &skipped);
    for (const auto& entry : skipped)
    {
        std::cerr << kProgram << ": warning: " << entry << std::endl;
    }
    return pipeline.Prepare(ranks);
}

/** Says why a run failed: the diagnosis on stderr, then the error (thrown). */
[[noreturn]] void
FailRun(const ChakraReport& report)
{
    // Simulate wrote nothing of a failed run, and the guard removes what Prepare wrote: the
    // diagnosis goes to stderr, above the error line (unless the error line is all of it: one
    // rank's error).
    const auto& all = report.GetRanks();
    const auto failed =
        std::count_if(all.begin(), all.end(), [](const RankStats& r) { return !r.finished; });
    if (failed > 1 || report.DescribeFailure().find("did not finish") != std::string::npos)
    {
        report.PrintProblems(std::cerr);
    }
    throw std::runtime_error(report.DescribeFailure());
}

/** The replay the flags ask for. \return the exit status */
int
Replay(const ToolArgs& args)
{
    if (args.Has("traces") == args.Has("et"))
    {
        throw std::invalid_argument("give exactly one of --traces DIR and --et PREFIX");
    }
    const std::string out = args.Get("output");
    // Every flag is checked before the traces are read (that can take minutes).
    ClusterOptions options;
    options.Read(args);
    if (args.Has("timeline"))
    {
        options.timeline =
            args.Get("timeline").empty() ? out + "/timeline.json" : args.Get("timeline");
    }
    const auto rows =
        static_cast<std::size_t>(ParseWholeNumber(args.Get("rows"), "--rows", 0, 1000000000));
    const double progress = ProgressInterval(args);
    JobOptions others;
    others.Read(args);
    ReplayPipeline pipeline(out);
    // An error anywhere below leaves nothing in the output (linked/, et/, reports).
    ReplayPipeline::DiscardUnlessKept whole(pipeline);
    ConfigurePipeline(args, progress, pipeline);
    const std::string prefix = PrepareTraces(args, pipeline);
    ChakraReport report = pipeline.Simulate(prefix, options);
    for (const auto& warning : pipeline.GetWarnings())
    {
        std::cerr << kProgram << ": warning: " << warning << std::endl;
    }
    if (!report.AllFinished())
    {
        FailRun(report);
    }
    std::optional<MultiJobReport> beside;
    if (others.HasJobs())
    {
        beside = pipeline.SimulateBeside(others);
        if (!beside->AllFinished())
        {
            throw std::runtime_error("beside the other jobs: " + beside->DescribeFailure());
        }
    }
    whole.Keep();
    report.Print(std::cout, rows, out);
    pipeline.GetValidation().Print(std::cout, rows);
    if (beside)
    {
        std::cout << "\n== the job beside other jobs (its slowdown against itself alone on the "
                     "same hosts)\n";
        beside->Print(std::cout, rows, out + "/jobs");
    }
    const bool timeline = args.Has("timeline") && report.AllFinished();
    std::cout << "\nreport, CSVs" << (timeline ? ", timeline" : "") << (beside ? ", jobs/" : "")
              << (pipeline.GetProfilePath().empty() ? "" : ", compute profile") << " in " << out
              << "\n";
    return report.AllFinished() ? 0 : 1;
}

} // namespace

int
main(int argc, char** argv)
{
    ToolArgs args(kProgram,
                  "Replays a training job on a modeled GPU cluster. With --traces DIR: finds each "
                  "rank's host execution trace and Kineto trace in DIR (by content; the rank is "
                  "the first number in the file name), links and converts them, checks that the "
                  "ranks agree; with --et PREFIX: uses ready PREFIX.<rank>.et files. Then "
                  "simulates, prints the report and, when the traces carry measured timings, the "
                  "simulated iteration and collectives beside the measured ones. Everything is "
                  "written into --output: linked/, et/, report.txt, ranks.csv, collectives.csv, "
                  "comm-ops.csv, validation.csv (and timeline.json with --timeline), and, when "
                  "device traces are linked, profile.csv: each GEMM's median measured time by "
                  "shape over all ranks (op,shape,micros; gemm MxNxK, bmm BxMxNxK), which "
                  "chakra_generator --workload llm --profile uses in place of its GPU model. "
                  "With --et there is nothing to link and no profile. With --job (or "
                  "--jobs-file): then the job, as reported, again beside those jobs on one "
                  "cluster, and alone on the same hosts for its slowdown, into jobs/.");
    AddReplayFlags(args);
    bool done = false;
    int code = args.Parse(argc, argv, done);
    if (done)
    {
        return code;
    }
    return RunTool(kProgram, [&args]() { return Replay(args); });
}
