#include "replay-pipeline.h"

#include "collective-cost-fit.h"
#include "gpu-catalog.h"

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

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iomanip>
#include <map>
#include <optional>
#include <regex>
#include <sstream>
#include <stdexcept>
#include <unordered_map>

namespace ns3
{

namespace fs = std::filesystem;

namespace
{

bool
EndsWith(const std::string& text, const std::string& suffix)
{
    return text.size() >= suffix.size() &&
           text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

/** What a JSON trace file is, from its first bytes. */
enum class TraceKind
{
    HOST,
    DEVICE,
    OTHER
};

TraceKind
Classify(const std::string& path)
{
    InputFile file(path);
    std::string head(64 * 1024, '\0');
    head.resize(file.Read(&head[0], head.size()));
    std::size_t first = head.find_first_not_of(" \t\r\n");
    if (first != std::string::npos && head[first] == '[')
    {
        return TraceKind::DEVICE; // the legacy autograd-profiler list
    }
    if (head.find("\"trace_link\"") != std::string::npos)
    {
        return TraceKind::OTHER; // already linked (an earlier run's output)
    }
    if (head.find("\"traceEvents\"") != std::string::npos ||
        head.find("\"schemaVersion\"") != std::string::npos ||
        head.find("\"deviceProperties\"") != std::string::npos)
    {
        return TraceKind::DEVICE;
    }
    if (head.find("\"schema\"") != std::string::npos && head.find("\"nodes\"") != std::string::npos)
    {
        return TraceKind::HOST;
    }
    return TraceKind::OTHER;
}

/** "dlrm_eg_{rank}.json.gz" -> a regex with the rank as group 1. */
std::regex
PatternRegex(const std::string& pattern, const std::string& option)
{
    if (pattern.find("{rank}") == std::string::npos)
    {
        throw std::invalid_argument(
            "--" + option + " '" + pattern +
            "' has no {rank}: a pattern matches every rank's file and says where the rank "
            "number is, e.g. 'dlrm_eg_{rank}.json.gz' ('*' matches anything)");
    }
    std::string regex;
    for (std::size_t i = 0; i < pattern.size(); ++i)
    {
        if (pattern.compare(i, 6, "{rank}") == 0)
        {
            regex += "([0-9]+)";
            i += 5;
        }
        else if (pattern[i] == '*')
        {
            regex += ".*";
        }
        else if (std::string("\\^$.|?+()[]{}").find(pattern[i]) != std::string::npos)
        {
            regex += std::string("\\") + pattern[i];
        }
        else
        {
            regex += pattern[i];
        }
    }
    return std::regex(regex);
}

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

std::optional<uint32_t>
FirstNumber(const std::string& name)
{
    std::smatch match;
    // A run of more than 9 digits (a timestamp) is no rank.
    if (std::regex_search(name, match, std::regex("[0-9]+")) && match.length() <= 9)
    {
        return static_cast<uint32_t>(std::stoul(match.str()));
    }
    return std::nullopt;
}

} // namespace

std::vector<RankTraceFiles>
DiscoverRankTraces(const std::string& directory,
                   const std::string& hostPattern,
                   const std::string& devicePattern,
                   std::vector<std::string>* skipped)
{
    std::error_code error;
    if (!fs::is_directory(directory, error))
    {
        throw TraceError(directory, "", "not a directory");
    }
    std::vector<std::string> files;
    fs::directory_iterator listing(directory, error);
    for (; !error && listing != fs::directory_iterator(); listing.increment(error))
    {
        const std::string name = listing->path().filename().string();
        if (!EndsWith(name, ".json") && !EndsWith(name, ".json.gz"))
        {
            continue;
        }
        // Without an error code, a link that loops (or points nowhere) throws out of the
        // whole search: one bad entry must not hide the job's traces.
        std::error_code status;
        const bool regular = listing->is_regular_file(status);
        if (status)
        {
            if (skipped)
            {
                skipped->push_back(directory + "/" + name + ": skipped: " + status.message());
            }
            continue;
        }
        if (regular)
        {
            files.push_back(name);
        }
    }
    if (error)
    {
        throw TraceError(directory, "", "cannot list the directory: " + error.message());
    }
    std::sort(files.begin(), files.end());
    const std::regex hostRegex =
        hostPattern.empty() ? std::regex() : PatternRegex(hostPattern, "host-pattern");
    const std::regex deviceRegex =
        devicePattern.empty() ? std::regex() : PatternRegex(devicePattern, "device-pattern");
    auto RankNumber = [&directory](const std::string& digits, const std::string& name) {
        if (digits.size() > 9)
        {
            throw TraceError(directory + "/" + name, "", "rank number " + digits + " is too large");
        }
        return static_cast<uint32_t>(std::stoul(digits));
    };

    /** A trace file found by content. */
    struct Found
    {
        bool host{false};
        std::optional<uint32_t> rank; //!< the first number in its name
        std::string name;
    };

    std::vector<Found> found;
    std::map<uint32_t, std::string> hosts;
    std::map<uint32_t, std::string> devices;
    auto add = [&](std::map<uint32_t, std::string>& into, uint32_t rank, const std::string& name) {
        auto [it, inserted] = into.emplace(rank, directory + "/" + name);
        if (!inserted)
        {
            throw TraceError(directory,
                             "",
                             "two traces for rank " + std::to_string(rank) + ": " +
                                 fs::path(it->second).filename().string() + " and " + name +
                                 " (give --host-pattern / "
                                 "--device-pattern with {rank})");
        }
    };
    for (const std::string& name : files)
    {
        std::smatch match;
        if (!hostPattern.empty() || !devicePattern.empty())
        {
            if (!hostPattern.empty() && std::regex_match(name, match, hostRegex))
            {
                add(hosts, RankNumber(match[1].str(), name), name);
            }
            else if (!devicePattern.empty() && std::regex_match(name, match, deviceRegex))
            {
                add(devices, RankNumber(match[1].str(), name), name);
            }
            continue;
        }
        TraceKind kind = Classify(directory + "/" + name);
        if (kind != TraceKind::OTHER)
        {
            found.push_back({kind == TraceKind::HOST, FirstNumber(name), name});
        }
    }
    std::size_t hostCount = 0;
    std::size_t deviceCount = 0;
    for (const auto& file : found)
    {
        ++(file.host ? hostCount : deviceCount);
    }
    for (const auto& file : found)
    {
        if (hostCount == 1 && deviceCount <= 1)
        {
            // A single-rank job: a number in its names is not a rank
            // ("resnet_et_1.1.0.json.gz"), and names without one are fine.
            add(file.host ? hosts : devices, 0, file.name);
            continue;
        }
        if (!file.rank)
        {
            throw TraceError(directory + "/" + file.name,
                             "",
                             "no rank number in the file name (give --host-pattern / "
                             "--device-pattern with {rank})");
        }
        add(file.host ? hosts : devices, *file.rank, file.name);
    }
    if (hosts.empty())
    {
        throw TraceError(directory,
                         "",
                         "no host execution trace (*.json[.gz] with \"schema\" "
                         "and \"nodes\") found");
    }
    std::vector<RankTraceFiles> ranks;
    for (uint32_t rank = 0; rank < hosts.size(); ++rank)
    {
        if (hosts.count(rank) == 0)
        {
            throw TraceError(directory,
                             "",
                             "host traces cover ranks " + std::to_string(hosts.begin()->first) +
                                 ".." + std::to_string(hosts.rbegin()->first) + " but rank " +
                                 std::to_string(rank) + " is missing");
        }
        RankTraceFiles entry;
        entry.rank = rank;
        entry.host = hosts[rank];
        if (!devices.empty())
        {
            if (devices.count(rank) == 0)
            {
                throw TraceError(directory, "", "no device trace for rank " + std::to_string(rank));
            }
            entry.device = devices[rank];
        }
        ranks.push_back(entry);
    }
    if (!devices.empty() && devices.size() != hosts.size())
    {
        throw TraceError(directory,
                         "",
                         std::to_string(devices.size()) + " device traces for " +
                             std::to_string(hosts.size()) + " host traces");
    }
    return ranks;
}

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
    const auto n = static_cast<int64_t>(ranks.size());
    std::vector<std::string> etFiles;
    m_validation = ReplayValidation();
    m_iterations.clear();
    const std::string all = n > 1 ? " (ranks 0-" + std::to_string(n - 1) + ")" : "";
    for (const auto& files : ranks)
    {
        std::string input = files.host;
        const std::string where = "rank " + std::to_string(files.rank) + all;
        if (!files.device.empty())
        {
            LinkResult linked = TraceLinker().Link(files.host, files.device, files.rank);
            input = m_out + "/linked/trace." + std::to_string(files.rank) + ".json.gz";
            WriteLinkedTrace(linked, input);
            m_written.push_back(input);
            const LinkSummary& s = linked.summary;
            Say(where + ": linked " + std::to_string(s.hostOpsLinked) + "/" +
                std::to_string(s.hostOps) + " host ops, attached " +
                std::to_string(s.gpuOpsAttached) + "/" + std::to_string(s.gpuOps) + " GPU ops");
            if (static_cast<double>(s.iterationDur) / 1e3 > static_cast<double>(kMaxNodeMicros))
            {
                // The measured step is what the replay is compared with: an absurd one would
                // give an error of -100% and look like a result.
                throw TraceError(files.device,
                                 s.iterationName,
                                 "duration " +
                                     FormatFixed(static_cast<double>(s.iterationDur) / 1e3, 0) +
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
        }
        ConversionOptions options;
        options.rank = files.rank;
        // The job's size is what the trace says (trace_link.world_size from Kineto, else the
        // largest process group), not the number of files found: a job whose last rank's
        // files are missing would otherwise be replayed as a smaller job.
        std::string et = prefix + "." + std::to_string(files.rank) + ".et";
        ConversionReport converted = TraceConverter(options).Convert(input, et);
        m_written.push_back(et);
        if (converted.worldSize && *converted.worldSize != n)
        {
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
                    (*converted.worldSize > n
                         ? std::string(": missing rank") +
                               (*converted.worldSize > n + 1 ? "s " : " ") + missing
                         : ": traces of another job mixed in?"));
        }

        // The simulator's bounds (a node at most an hour, a call at most 1 TiB), checked now
        // and named by the rank's input: the converted file is an intermediate that an error
        // removes, and the simulator would find the value only when it reached the node.
        try
        {
            SummarizeEt(et, [](const EtNode& node) {
                NodeDuration(node, "duration_micros", node.GetDurationMicros());
                const auto type = node.GetType();
                if (type == ChakraProtoMsg::COMM_COLL_NODE ||
                    type == ChakraProtoMsg::COMM_SEND_NODE ||
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
        Say(where + ": converted " + std::to_string(converted.outputNodes) + " nodes, " +
            std::to_string(converted.GetCollectiveCount()) + " collectives, " +
            std::to_string(converted.sends + converted.recvs) + " sends/recvs" +
            (converted.warningCount > 0
                 ? ", " + std::to_string(converted.warningCount) + " warnings"
                 : ""));
        etFiles.push_back(et);
    }
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
    return prefix;
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

ChakraReport
ReplayPipeline::Simulate(const std::string& prefix, ClusterOptions options)
{
    MakeDirectory(m_out);
    const uint32_t ranks = CountTraceRanks(prefix);
    if (ranks == 0)
    {
        throw TraceError(prefix + ".0.et", "", "no trace");
    }
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
    // When the ranks begin: a replay that starts them together while the measured ranks
    // started milliseconds apart compares the job without its start skew with the job with it.
    bool measuredOffsets = false;
    std::string startNote;
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
        measuredOffsets = true;
        startNote = "as asked";
        break;
    case RankStart::TOGETHER:
        startNote = "as asked: the job without the measured start skew";
        break;
    case RankStart::AUTO:
        measuredOffsets = ranks > 1 && everyIteration && measured.HasCommonClock();
        startNote = measuredOffsets   ? "the default when the ranks' clocks are one; "
                                        "--start-together for the job without this skew"
                    : !everyIteration ? "no measured iteration for every rank"
                                      : "the ranks' measured times are not on one clock";
        break;
    }
    std::vector<double> offsetsUs;
    if (measuredOffsets)
    {
        offsetsUs = measured.GetStartOffsetsUs(ranks);
    }

    ChooseNvLink(prefix, options);
    for (const auto& line : m_hardware)
    {
        Say(line);
    }
    if (!offsetsUs.empty())
    {
        std::string list;
        for (uint32_t r = 0; r < ranks; ++r)
        {
            list += (r ? ", " : "") + std::to_string(r) + ": +" + FormatFixed(offsetsUs[r], 0);
        }
        Say("ranks start at their measured offsets (us) " + list);
    }
    // Rank-local delays after collectives, measured (empty without measured calls).
    std::vector<std::unordered_map<uint64_t, Time>> callDelays(ranks);
    std::vector<std::pair<double, uint32_t>> delayTotals(ranks);
    bool anyDelay = false;
    if (m_calibrate)
    {
        for (uint32_t r = 0; r < ranks; ++r)
        {
            for (const auto& [node, us] : measured.GetCallDelaysUs(r))
            {
                callDelays[r][node] = NanoSeconds(std::llround(us * 1e3));
                delayTotals[r].first += us;
                ++delayTotals[r].second;
                anyDelay = true;
            }
        }
    }

    std::string describedCluster;
    // One simulation of the traces; the software cost of the collectives as given.
    auto simulate = [&](const CollectiveCostFit& cost, ClusterOptions runOptions) {
        ClusterScenario scenario;
        runOptions.Apply(scenario, ranks, prefix);
        scenario.SetAppAttribute("MissingCommSize", StringValue(m_strict ? "error" : "warn"));
        scenario.SetAppAttribute("CollectiveOverhead",
                                 TimeValue(NanoSeconds(std::llround(cost.fixedUs * 1e3))));
        if (cost.usPerByte > 0)
        {
            // bytes x usPerByte us = bytes x 8 / rate s: rate = 8e6 / usPerByte bit/s.
            scenario.SetAppAttribute(
                "CollectiveOverheadRate",
                DataRateValue(DataRate(static_cast<uint64_t>(std::llround(8e6 / cost.usPerByte)))));
        }
        scenario.SetBeforeRun([&](const std::vector<Ptr<ChakraApplication>>& apps) {
            for (const auto& app : apps)
            {
                const uint32_t rank = app->GetRank();
                if (rank < offsetsUs.size())
                {
                    app->SetAttribute("StartOffset",
                                      TimeValue(NanoSeconds(std::llround(offsetsUs[rank] * 1e3))));
                }
                if (rank < callDelays.size() && !callDelays[rank].empty())
                {
                    app->SetCallDelays(callDelays[rank]);
                }
            }
        });
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
        ChakraReport result = scenario.Run(prefix);
        Say("simulation done: " + std::to_string(scenario.GetEventCount()) + " events in " +
            FormatFixed(scenario.GetWallSeconds(), 1) + " s wall");
        return result;
    };

    // Calibration: a first run without software cost; what the measured calls took beyond
    // the simulated transfers is fitted as a per-call cost for the run that is reported.
    CollectiveCostFit cost;
    std::optional<ReplayValidation::Calibration> calibration;
    if (m_calibrate && measured.HasCalls())
    {
        Say("calibration run: the collectives without software cost");
        ClusterOptions first = options;
        first.timeline.clear();
        const ChakraReport uncalibrated = simulate(cost, first);
        const ReplayValidation v =
            CompareWithMeasurement(uncalibrated, measured, measuredOffsets, offsetsUs);
        cost = FitCollectiveCost(v);
        calibration =
            ReplayValidation::Calibration{cost.Describe(), v.IterationError(), v.simulatedRankUs};
        Say("collective software cost: " + cost.Describe());
    }
    ChakraReport report = simulate(cost, options);

    m_validation = CompareWithMeasurement(report, measured, measuredOffsets, offsetsUs);
    m_validation.startNote = ranks > 1 ? startNote : "";
    m_validation.calibration = calibration;
    if (anyDelay)
    {
        m_validation.callDelays = delayTotals;
    }
    if (!report.AllFinished())
    {
        // A failed run's figures would be read as the run's: nothing is written, the tool
        // prints what went wrong (and its timeline was dropped, ChakraHelper::GetReport).
        return report;
    }
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
    return report;
}

const ReplayValidation&
ReplayPipeline::GetValidation() const
{
    return m_validation;
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
