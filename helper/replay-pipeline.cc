#include "replay-pipeline.h"

#include "collective-cost-fit.h"
#include "gpu-catalog.h"
#include "job-interference.h"

#include "ns3/data-rate.h"
#include "ns3/et-reader.h"
#include "ns3/et-summary.h"
#include "ns3/quantity-parser.h"
#include "ns3/rank-consistency.h"
#include "ns3/string.h"
#include "ns3/text-format.h"
#include "ns3/trace-converter.h"
#include "ns3/trace-error.h"
#include "ns3/trace-file.h"
#include "ns3/trace-limits.h"
#include "ns3/trace-linker.h"

#include <cmath>
#include <filesystem>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <unordered_map>

namespace ns3
{

namespace fs = std::filesystem;

namespace
{

/** "3600Gbps" or "450GB/s" -> "3600 Gbps" (the text as given if it is no bandwidth) */
std::string
RateText(const std::string& rate)
{
    try
    {
        const DataRate parsed = ParseBandwidth(rate, "");
        return FormatFixed(static_cast<double>(parsed.GetBitRate()) / 1e9, 0) + " Gbps";
    }
    catch (const std::invalid_argument&)
    {
        return rate;
    }
}

/**
 * Refuses a rank whose converted trace says its job has another number of ranks than the
 * folder has traces of (a missing rank, or another job's traces mixed in).
 */
void
CheckJobSize(const RankTraceFiles& files, const ConversionReport& converted, int64_t jobRanks)
{
    const int64_t n = jobRanks;
    if (!converted.worldSize || *converted.worldSize == n)
    {
        return;
    }
    const std::string folder = fs::path(files.host).parent_path().string();
    std::string missing;
    for (int64_t r = n; r < *converted.worldSize && r < n + 10; ++r)
    {
        missing += (missing.empty() ? "" : ", ") + std::to_string(r);
    }
    if (*converted.worldSize > n + 10)
    {
        missing += " .. " + std::to_string(*converted.worldSize - 1);
    }
    throw TraceError(
        files.host,
        "",
        "the job has " + std::to_string(*converted.worldSize) + " ranks (world size " +
            (converted.linked ? "of the linked trace: Kineto's "
                                "distributedInfo"
                              : "of its largest process group") +
            "), but " + folder + " has the traces of " + std::to_string(n) + " rank(s)" +
            (*converted.worldSize > n ? std::string(": missing rank") +
                                            (*converted.worldSize > n + 1 ? "s " : " ") + missing
                                      : ": traces of another job mixed in?"));
}

/**
 * The simulator's bounds (a node at most an hour, a call at most 1 TiB), checked now and named
 * by the rank's input: the converted file \p et is an intermediate that an error removes, and
 * the simulator would find the value only when it reached the node.
 */
void
CheckSimulatorBounds(const RankTraceFiles& files, const std::string& et)
{
    try
    {
        SummarizeEt(et, [](const EtNode& node) {
            NodeDuration(node, "duration_micros", node.GetDurationMicros());
            const auto type = node.GetType();
            if (type == ChakraProtoMsg::COMM_COLL_NODE || type == ChakraProtoMsg::COMM_SEND_NODE ||
                type == ChakraProtoMsg::COMM_RECV_NODE)
            {
                NodeCommBytes(node);
            }
        });
    }
    catch (const TraceError& e)
    {
        std::string what = e.what();
        if (!e.GetFile().empty() &&
            what.compare(0, e.GetFile().size() + 2, e.GetFile() + ": ") == 0)
        {
            what = what.substr(e.GetFile().size() + 2);
        }
        throw TraceError(files.device.empty() ? files.host : files.device,
                         "",
                         "rank " + std::to_string(files.rank) +
                             " cannot be simulated: in its converted trace, " + what);
    }
}

} // namespace

ReplayPipeline::ReplayPipeline(std::string outputDirectory)
    : m_out(std::move(outputDirectory))
{
}

void
ReplayPipeline::SetProgress(std::function<void(const std::string&)> progress)
{
    m_progress = std::move(progress);
}

void
ReplayPipeline::SetWallClockProgress(double seconds)
{
    m_wallProgress = seconds;
}

void
ReplayPipeline::Say(const std::string& line) const
{
    if (m_progress)
    {
        m_progress(line);
    }
}

void
ReplayPipeline::SetRankStart(RankStart start)
{
    m_rankStart = start;
}

void
ReplayPipeline::SetMeasuredOffsets(bool enable)
{
    m_rankStart = enable ? RankStart::MEASURED_OFFSETS : RankStart::TOGETHER;
}

void
ReplayPipeline::SetStrict(bool strict)
{
    m_strict = strict;
}

void
ReplayPipeline::SetCalibration(bool enable)
{
    m_calibrate = enable;
}

void
ReplayPipeline::SetNvLinkFromTrace(bool enable)
{
    m_nvLinkFromTrace = enable;
}

void
ReplayPipeline::MakeDirectory(const std::string& path)
{
    std::error_code error;
    const fs::path target(path);
    std::vector<std::string> missing;
    for (fs::path p = target; !p.empty() && !fs::exists(p, error); p = p.parent_path())
    {
        missing.push_back(p.string());
        if (p == p.parent_path())
        {
            break;
        }
    }
    fs::create_directories(target);
    m_written.insert(m_written.end(), missing.rbegin(), missing.rend());
}

void
ReplayPipeline::Discard()
{
    // Newest first: files before the directories that hold them.
    for (auto it = m_written.rbegin(); it != m_written.rend(); ++it)
    {
        std::error_code error;
        if (*it == m_kept || (fs::is_directory(*it, error) && !fs::is_empty(*it, error)))
        {
            continue; // the listing an error names, or a directory with files of others
        }
        fs::remove(*it, error);
    }
    m_written.clear();
}

ReplayPipeline::DiscardUnlessKept::DiscardUnlessKept(ReplayPipeline& pipeline)
    : m_pipeline(pipeline)
{
}

ReplayPipeline::DiscardUnlessKept::~DiscardUnlessKept()
{
    if (!m_keep)
    {
        m_pipeline.Discard();
    }
}

void
ReplayPipeline::DiscardUnlessKept::Keep()
{
    m_keep = true;
}

std::string
ReplayPipeline::Prepare(const std::vector<RankTraceFiles>& ranks)
{
    MakeDirectory(m_out + "/linked");
    MakeDirectory(m_out + "/et");
    const std::string prefix = m_out + "/et/trace";
    std::vector<std::string> etFiles;
    m_validation = ReplayValidation();
    m_iterations.clear();
    m_profile = ComputeProfileExtractor();
    m_profilePath.clear();
    for (const auto& files : ranks)
    {
        etFiles.push_back(PrepareRank(files, static_cast<int64_t>(ranks.size()), prefix));
    }
    CheckRanksAgree(etFiles, prefix, ranks);
    if (m_profile.GetCounts().traces > 0)
    {
        // The user's kernels, for what-ifs: chakra_generator --workload llm --profile.
        m_profilePath = m_out + "/profile.csv";
        m_profile.GetProfile().Write(m_profilePath);
        m_written.push_back(m_profilePath);
        Say("compute profile: " + m_profile.Summary() + " in " + m_profilePath);
    }
    return prefix;
}

std::string
ReplayPipeline::PrepareRank(const RankTraceFiles& files,
                            int64_t jobRanks,
                            const std::string& prefix)
{
    const std::string all = jobRanks > 1 ? " (ranks 0-" + std::to_string(jobRanks - 1) + ")" : "";
    const std::string where = "rank " + std::to_string(files.rank) + all;
    const std::string input = files.device.empty() ? files.host : LinkRank(files, where);
    ConversionOptions options;
    options.rank = files.rank;
    // The job's size is what the trace says (trace_link.world_size from Kineto, else the
    // largest process group), not the number of files found: a job whose last rank's
    // files are missing would otherwise be replayed as a smaller job.
    std::string et = prefix + "." + std::to_string(files.rank) + ".et";
    ConversionReport converted = TraceConverter(options).Convert(input, et);
    m_written.push_back(et);
    CheckJobSize(files, converted, jobRanks);
    CheckSimulatorBounds(files, et);
    Say(where + ": converted " + std::to_string(converted.outputNodes) + " nodes, " +
        std::to_string(converted.GetCollectiveCount()) + " collectives, " +
        std::to_string(converted.sends + converted.recvs) + " sends/recvs" +
        (converted.warningCount > 0 ? ", " + std::to_string(converted.warningCount) + " warnings"
                                    : ""));
    return et;
}

std::string
ReplayPipeline::LinkRank(const RankTraceFiles& files, const std::string& where)
{
    LinkResult linked = TraceLinker().Link(files.host, files.device, files.rank);
    const std::string output = m_out + "/linked/trace." + std::to_string(files.rank) + ".json.gz";
    WriteLinkedTrace(linked, output);
    m_written.push_back(output);
    m_profile.AddTrace(linked.trace, output);
    const LinkSummary& s = linked.summary;
    Say(where + ": linked " + std::to_string(s.hostOpsLinked) + "/" + std::to_string(s.hostOps) +
        " host ops, attached " + std::to_string(s.gpuOpsAttached) + "/" + std::to_string(s.gpuOps) +
        " GPU ops");
    if (static_cast<double>(s.iterationDur) / 1e3 > static_cast<double>(kMaxNodeMicros))
    {
        // The measured step is what the replay is compared with: an absurd one would
        // give an error of -100% and look like a result.
        throw TraceError(files.device,
                         s.iterationName,
                         "duration " + FormatFixed(static_cast<double>(s.iterationDur) / 1e3, 0) +
                             " us is not a duration a trace can have (0 to " +
                             std::to_string(kMaxNodeMicros) + " us, one hour)");
    }
    if (s.iterationDur > 0)
    {
        MeasuredIteration iteration;
        iteration.name = s.iterationName;
        iteration.startUs = static_cast<double>(s.iterationTs) / 1e3;
        iteration.durUs = static_cast<double>(s.iterationDur) / 1e3;
        m_iterations[files.rank] = iteration;
    }
    return output;
}

void
ReplayPipeline::CheckRanksAgree(const std::vector<std::string>& etFiles,
                                const std::string& prefix,
                                const std::vector<RankTraceFiles>& ranks)
{
    RankConsistencyOptions checks;
    checks.strict = m_strict;
    RankConsistencyReport consistency = CheckRankConsistency(etFiles, checks);
    std::ostringstream text;
    text << consistency;
    m_consistency.clear();
    std::istringstream lines(text.str());
    for (std::string line; std::getline(lines, line);)
    {
        m_consistency.push_back(line);
    }
    if (!consistency.IsConsistent())
    {
        // The simulator pairs the k-th call of a communicator on every member: replaying ranks
        // that disagree would pair unrelated calls. Stop here: one line with the first
        // disagreement, the whole list in a file.
        const std::string listing = m_out + "/consistency.txt";
        AtomicOutputFile file(listing);
        file.Write(text.str());
        file.Commit();
        m_written.push_back(listing);
        m_kept = listing;
        throw TraceError(prefix + ".*.et",
                         "",
                         "the ranks disagree on their communication (" +
                             std::to_string(consistency.mismatchCount) + " mismatches, all in " +
                             listing + "), nothing simulated; first: " +
                             (consistency.mismatches.empty() ? std::string("?")
                                                             : consistency.mismatches.front()));
    }
    Say("ranks agree on their collectives and messages");
    for (const auto& warning : consistency.warnings)
    {
        // What may be wrong without making the ranks disagree (different GPU models, no
        // world size to check the files against, comm_size missing): said whatever the
        // progress setting (GetWarnings), not only in report.txt; strict, it is an error.
        if (m_strict)
        {
            throw TraceError(fs::path(ranks.front().host).parent_path().string(),
                             "",
                             warning + " (an error with --strict)");
        }
        m_warnings.push_back(warning);
    }
}

void
ReplayPipeline::ChooseNvLink(const std::string& prefix, ClusterOptions& options)
{
    m_hardware.clear();
    std::string gpu;
    {
        EtReader reader(FindRankFiles(prefix).at(0));
        for (const auto& attr : reader.GetMetadata().attr())
        {
            if (attr.name() == "gpu_name" && attr.has_string_val())
            {
                gpu = attr.string_val();
            }
        }
    }
    if (!m_nvLinkFromTrace)
    {
        m_hardware.push_back("NVLink " + RateText(options.GetText("nvlink-bandwidth")) +
                             " as given" +
                             (gpu.empty() ? std::string() : " (the traces' GPU: " + gpu + ")"));
        return;
    }
    std::string why;
    auto spec = LookUpGpuLinks(gpu, why);
    if (!spec)
    {
        m_hardware.push_back("NVLink " + RateText(options.GetText("nvlink-bandwidth")) +
                             " (the default: " + why + "; set --nvlink-bandwidth)");
        return;
    }
    options.Set("nvlink-bandwidth", spec->DataRate());
    m_hardware.push_back("NVLink " + RateText(options.GetText("nvlink-bandwidth")) + " = " +
                         FormatFixed(spec->gbPerSecond, 0) +
                         " GB/s per direction: the traces ran "
                         "on " +
                         gpu + " (" + spec->model + ", " + spec->generation + "; " + spec->source +
                         ", halved for one direction)");
}

/** How the ranks of one Simulate run: when each begins, and the measured delays it replays. */
struct ReplayPipeline::RunPlan
{
    uint32_t ranks{0};
    bool measuredOffsets{false};   //!< ranks start at their measured offsets
    std::string startNote;         //!< why they start as they do (the validation says it)
    std::vector<double> offsetsUs; //!< per rank; empty: together
    /** Rank-local delays after collectives, measured (empty without measured calls). */
    std::vector<std::unordered_map<uint64_t, Time>> callDelays;
    std::vector<std::pair<double, uint32_t>> delayTotals; //!< per rank: total us, calls
    bool anyDelay{false};
};

ChakraReport
ReplayPipeline::Simulate(const std::string& prefix, ClusterOptions options)
{
    MakeDirectory(m_out);
    RunPlan plan;
    plan.ranks = CountTraceRanks(prefix);
    if (plan.ranks == 0)
    {
        throw TraceError(prefix + ".0.et", "", "no trace");
    }
    const MeasuredRun measured = Measure(prefix, plan.ranks);
    PlanRankStart(measured, plan);
    ChooseNvLink(prefix, options);
    for (const auto& line : m_hardware)
    {
        Say(line);
    }
    if (!plan.offsetsUs.empty())
    {
        std::string list;
        for (uint32_t r = 0; r < plan.ranks; ++r)
        {
            list += (r ? ", " : "") + std::to_string(r) + ": +" + FormatFixed(plan.offsetsUs[r], 0);
        }
        Say("ranks start at their measured offsets (us) " + list);
    }
    PlanCallDelays(measured, plan);

    // Calibration: a first run without software cost; what the measured calls took beyond
    // the simulated transfers is fitted as a per-call cost for the run that is reported.
    std::string describedCluster;
    CollectiveCostFit cost;
    std::optional<ReplayValidation::Calibration> calibration;
    if (m_calibrate && measured.HasCalls())
    {
        Say("calibration run: the collectives without software cost");
        ClusterOptions first = options;
        first.timeline.clear();
        const ChakraReport uncalibrated =
            RunScenario(MakeReplayJob(prefix, plan, cost), first, plan.ranks, describedCluster);
        const ReplayValidation v =
            CompareWithMeasurement(uncalibrated, measured, plan.measuredOffsets, plan.offsetsUs);
        cost = FitCollectiveCost(v);
        calibration =
            ReplayValidation::Calibration{cost.Describe(), v.IterationError(), v.simulatedRankUs};
        Say("collective software cost: " + cost.Describe());
    }
    ClusterJob job = MakeReplayJob(prefix, plan, cost);
    ChakraReport report = RunScenario(job, options, plan.ranks, describedCluster);
    m_replayJob.reset();
    if (report.AllFinished())
    {
        m_replayJob = std::move(job);
        m_replayRanks = plan.ranks;
        m_replayOptions = options;
    }

    m_validation = CompareWithMeasurement(report, measured, plan.measuredOffsets, plan.offsetsUs);
    m_validation.startNote = plan.ranks > 1 ? plan.startNote : "";
    m_validation.calibration = calibration;
    if (plan.anyDelay)
    {
        m_validation.callDelays = plan.delayTotals;
    }
    if (report.AllFinished())
    {
        // A failed run's figures would be read as the run's: nothing is written, the tool
        // prints what went wrong (and its timeline was dropped, ChakraHelper::GetReport).
        WriteOutputs(report, options, describedCluster);
    }
    return report;
}

MeasuredRun
ReplayPipeline::Measure(const std::string& prefix, uint32_t ranks) const
{
    // The measurement: iterations from Prepare, collective calls from the .et files.
    MeasuredRun measured;
    for (const auto& [rank, iteration] : m_iterations)
    {
        measured.SetIteration(rank, iteration);
    }
    const std::vector<std::string> files = FindRankFiles(prefix);
    for (uint32_t rank = 0; rank < files.size() && rank < ranks; ++rank)
    {
        measured.AddRankTrace(rank, files[rank]);
    }
    measured.Align();
    return measured;
}

void
ReplayPipeline::PlanRankStart(const MeasuredRun& measured, RunPlan& plan) const
{
    // When the ranks begin: a replay that starts them together while the measured ranks
    // started milliseconds apart compares the job without its start skew with the job with it.
    const uint32_t ranks = plan.ranks;
    const bool everyIteration = measured.GetIterationCount() == ranks;
    switch (m_rankStart)
    {
    case RankStart::MEASURED_OFFSETS:
        if (!everyIteration)
        {
            throw std::invalid_argument(
                "measured start offsets need every rank's measured iteration (--traces with "
                "device traces); " +
                std::to_string(measured.GetIterationCount()) + " of " + std::to_string(ranks) +
                " ranks have one");
        }
        plan.measuredOffsets = true;
        plan.startNote = "as asked";
        break;
    case RankStart::TOGETHER:
        plan.startNote = "as asked: the job without the measured start skew";
        break;
    case RankStart::AUTO:
        plan.measuredOffsets = ranks > 1 && everyIteration && measured.HasCommonClock();
        plan.startNote = plan.measuredOffsets ? "the default when the ranks' clocks are one; "
                                                "--start-together for the job without this skew"
                         : !everyIteration    ? "no measured iteration for every rank"
                                              : "the ranks' measured times are not on one clock";
        break;
    }
    if (plan.measuredOffsets)
    {
        plan.offsetsUs = measured.GetStartOffsetsUs(ranks);
    }
}

void
ReplayPipeline::PlanCallDelays(const MeasuredRun& measured, RunPlan& plan) const
{
    plan.callDelays.assign(plan.ranks, {});
    plan.delayTotals.assign(plan.ranks, {});
    if (!m_calibrate)
    {
        return;
    }
    for (uint32_t r = 0; r < plan.ranks; ++r)
    {
        for (const auto& [node, us] : measured.GetCallDelaysUs(r))
        {
            plan.callDelays[r][node] = NanoSeconds(std::llround(us * 1e3));
            plan.delayTotals[r].first += us;
            ++plan.delayTotals[r].second;
            plan.anyDelay = true;
        }
    }
}

ChakraReport
ReplayPipeline::RunScenario(const ClusterJob& job,
                            ClusterOptions options,
                            uint32_t ranks,
                            std::string& describedCluster) const
{
    ClusterScenario scenario;
    options.Apply(scenario, ranks, job.tracePrefix);
    for (const auto& [name, value] : job.appAttributes)
    {
        scenario.SetAppAttribute(name, *value);
    }
    scenario.SetBeforeRun(job.beforeRun);
    describedCluster = scenario.GetCluster()->Describe();
    Say("simulating " + std::to_string(ranks) + " ranks on " + describedCluster);
    // chakra-cluster's progress lines (one self-rescheduling probe: a second periodic
    // event would keep it alive for ever).
    if (m_progress && m_wallProgress > 0)
    {
        scenario.SetWallClockProgress(m_wallProgress,
                                      [this](const ClusterScenario::WallProgress& progress) {
                                          Say("  " + ClusterScenario::FormatProgress(progress));
                                      });
    }
    ChakraReport result = scenario.Run(job.tracePrefix);
    Say("simulation done: " + std::to_string(scenario.GetEventCount()) + " events in " +
        FormatFixed(scenario.GetWallSeconds(), 1) + " s wall");
    return result;
}

ClusterJob
ReplayPipeline::MakeReplayJob(const std::string& prefix,
                              const RunPlan& plan,
                              const CollectiveCostFit& cost) const
{
    ClusterJob job;
    job.tracePrefix = prefix;
    auto set = [&job](const std::string& name, Ptr<AttributeValue> value) {
        job.appAttributes.emplace_back(name, value);
    };
    set("MissingCommSize", Create<StringValue>(m_strict ? "error" : "warn"));
    set("CollectiveOverhead", Create<TimeValue>(NanoSeconds(std::llround(cost.fixedUs * 1e3))));
    if (cost.usPerByte > 0)
    {
        // bytes x usPerByte us = bytes x 8 / rate s: rate = 8e6 / usPerByte bit/s.
        set("CollectiveOverheadRate",
            Create<DataRateValue>(
                DataRate(static_cast<uint64_t>(std::llround(8e6 / cost.usPerByte)))));
    }
    // The per-rank settings outlive this call (a job is run again beside others).
    auto offsetsUs = std::make_shared<const std::vector<double>>(plan.offsetsUs);
    auto callDelays =
        std::make_shared<const std::vector<std::unordered_map<uint64_t, Time>>>(plan.callDelays);
    job.beforeRun = [offsetsUs, callDelays](const std::vector<Ptr<ChakraApplication>>& apps) {
        for (const auto& app : apps)
        {
            const uint32_t rank = app->GetRank();
            if (rank < offsetsUs->size())
            {
                app->SetAttribute("StartOffset",
                                  TimeValue(NanoSeconds(std::llround((*offsetsUs)[rank] * 1e3))));
            }
            if (rank < callDelays->size() && !(*callDelays)[rank].empty())
            {
                app->SetCallDelays((*callDelays)[rank]);
            }
        }
    };
    return job;
}

MultiJobReport
ReplayPipeline::SimulateBeside(const JobOptions& others, const std::string& name)
{
    if (!m_replayJob)
    {
        throw std::logic_error("ReplayPipeline::SimulateBeside: no finished Simulate before");
    }
    std::vector<ClusterJob> jobs{*m_replayJob};
    jobs[0].name = name;
    jobs.insert(jobs.end(), others.jobs.begin(), others.jobs.end());
    const std::string dir = m_out + "/jobs";
    ClusterOptions options = m_replayOptions;
    if (!options.timeline.empty())
    {
        options.timeline = dir + "/timeline.json"; // every job's, on one clock
    }
    const uint32_t gpus = others.ClusterGpus(options, m_replayRanks);
    const bool strict = m_strict;
    auto configure = [&options, gpus, strict](ClusterScenario& scenario) {
        options.Apply(scenario, gpus);
        scenario.SetAppAttribute("MissingCommSize", StringValue(strict ? "error" : "warn"));
    };
    MakeDirectory(dir); // the timeline is written into it during the run
    ClusterScenario scenario;
    configure(scenario);
    scenario.SetPlacement(others.placement, others.placementSeed);
    for (const ClusterJob& job : jobs)
    {
        scenario.AddJob(job);
    }
    scenario.GetPlacement(); // a job that does not fit is refused before the run
    Say("simulating the job beside " + std::to_string(others.jobs.size()) + " other job(s) on " +
        scenario.GetCluster()->Describe());
    MultiJobReport report = scenario.RunJobs();
    Say("simulation done: " + std::to_string(scenario.GetEventCount()) + " events in " +
        FormatFixed(scenario.GetWallSeconds(), 1) + " s wall");
    if (!report.AllFinished())
    {
        return report;
    }
    Say("the job" + std::string(others.interference ? "s" : "") + " alone on the same hosts");
    MeasureInterference(report,
                        jobs,
                        configure,
                        others.interference ? std::vector<std::size_t>{}
                                            : std::vector<std::size_t>{0});
    report.WriteCsv(dir);
    {
        AtomicOutputFile text(dir + "/report.txt");
        std::ostringstream body;
        report.Print(body, 1000, dir);
        text.Write(body.str());
        text.Commit();
    }
    // Discard (an error later) removes these too: the files before their directories.
    std::error_code error;
    for (const auto& entry : fs::recursive_directory_iterator(dir, error))
    {
        m_written.push_back(entry.path().string());
    }
    return report;
}

void
ReplayPipeline::WriteOutputs(const ChakraReport& report,
                             const ClusterOptions& options,
                             const std::string& describedCluster)
{
    report.WriteCsv(m_out);
    m_validation.WriteCsv(m_out + "/validation.csv");
    for (const char* name : {"ranks.csv", "collectives.csv", "comm-ops.csv", "validation.csv"})
    {
        m_written.push_back(m_out + "/" + name);
    }
    for (const auto& table : report.GetTables())
    {
        m_written.push_back(m_out + "/" + table.name + ".csv");
    }
    if (!options.timeline.empty())
    {
        m_written.push_back(options.timeline);
    }
    m_written.push_back(m_out + "/report.txt");
    AtomicOutputFile text(m_out + "/report.txt");
    std::ostringstream body;
    body << "cluster: " << describedCluster << "\n";
    for (const auto& line : m_hardware)
    {
        body << "hardware: " << line << "\n";
    }
    report.Print(body, 1000);
    m_validation.Print(body, 1000);
    if (!m_consistency.empty())
    {
        body << "\n== rank consistency\n";
        for (const auto& line : m_consistency)
        {
            body << line << "\n";
        }
    }
    text.Write(body.str());
    text.Commit();
}

const ReplayValidation&
ReplayPipeline::GetValidation() const
{
    return m_validation;
}

const std::string&
ReplayPipeline::GetProfilePath() const
{
    return m_profilePath;
}

const std::vector<std::string>&
ReplayPipeline::GetConsistencyNotes() const
{
    return m_consistency;
}

const std::vector<std::string>&
ReplayPipeline::GetHardwareNotes() const
{
    return m_hardware;
}

const std::vector<std::string>&
ReplayPipeline::GetWarnings() const
{
    return m_warnings;
}

} // namespace ns3
