#include "replay-pipeline.h"

#include "ns3/rank-consistency.h"
#include "ns3/trace-converter.h"
#include "ns3/trace-linker.h"

#include "ns3/text-format.h"
#include "ns3/trace-error.h"
#include "ns3/trace-file.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <iomanip>
#include <map>
#include <regex>
#include <sstream>

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
PatternRegex(const std::string& pattern)
{
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

std::optional<uint32_t>
FirstNumber(const std::string& name)
{
    std::smatch match;
    if (std::regex_search(name, match, std::regex("[0-9]+")))
    {
        return static_cast<uint32_t>(std::stoul(match.str()));
    }
    return std::nullopt;
}

} // namespace

std::vector<RankTraceFiles>
DiscoverRankTraces(const std::string& directory,
                   const std::string& hostPattern,
                   const std::string& devicePattern)
{
    std::error_code error;
    if (!fs::is_directory(directory, error))
    {
        throw TraceError(directory, "", "not a directory");
    }
    std::vector<std::string> files;
    for (const auto& entry : fs::directory_iterator(directory))
    {
        std::string name = entry.path().filename().string();
        if (entry.is_regular_file() && (EndsWith(name, ".json") || EndsWith(name, ".json.gz")))
        {
            files.push_back(name);
        }
    }
    std::sort(files.begin(), files.end());
    std::map<uint32_t, std::string> hosts;
    std::map<uint32_t, std::string> devices;
    auto add = [&](std::map<uint32_t, std::string>& into, uint32_t rank, const std::string& name) {
        auto [it, inserted] = into.emplace(rank, directory + "/" + name);
        if (!inserted)
        {
            throw TraceError(directory, "", "two traces for rank " + std::to_string(rank) + ": " +
                                                fs::path(it->second).filename().string() +
                                                " and " + name + " (give --host-pattern / "
                                                "--device-pattern with {rank})");
        }
    };
    for (const std::string& name : files)
    {
        std::smatch match;
        if (!hostPattern.empty() || !devicePattern.empty())
        {
            if (!hostPattern.empty() && std::regex_match(name, match, PatternRegex(hostPattern)))
            {
                add(hosts, static_cast<uint32_t>(std::stoul(match[1].str())), name);
            }
            else if (!devicePattern.empty() &&
                     std::regex_match(name, match, PatternRegex(devicePattern)))
            {
                add(devices, static_cast<uint32_t>(std::stoul(match[1].str())), name);
            }
            continue;
        }
        TraceKind kind = Classify(directory + "/" + name);
        std::optional<uint32_t> rank = FirstNumber(name);
        if (kind == TraceKind::OTHER)
        {
            continue;
        }
        if (!rank)
        {
            throw TraceError(directory + "/" + name, "", "no rank number in the file name (give "
                                                        "--host-pattern / --device-pattern)");
        }
        add(kind == TraceKind::HOST ? hosts : devices, *rank, name);
    }
    if (hosts.empty())
    {
        throw TraceError(directory, "", "no host execution trace (*.json[.gz] with \"schema\" "
                                        "and \"nodes\") found");
    }
    if (hosts.size() == 1 && devices.size() <= 1)
    {
        // A single-rank job: the number in its name is not a rank ("resnet_et_1.1.0.json.gz").
        hosts = {{0, hosts.begin()->second}};
        if (!devices.empty())
        {
            devices = {{0, devices.begin()->second}};
        }
    }
    std::vector<RankTraceFiles> ranks;
    for (uint32_t rank = 0; rank < hosts.size(); ++rank)
    {
        if (hosts.count(rank) == 0)
        {
            throw TraceError(directory, "", "host traces cover ranks " +
                                                std::to_string(hosts.begin()->first) + ".." +
                                                std::to_string(hosts.rbegin()->first) +
                                                " but rank " + std::to_string(rank) + " is missing");
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
        throw TraceError(directory, "", std::to_string(devices.size()) + " device traces for " +
                                            std::to_string(hosts.size()) + " host traces");
    }
    return ranks;
}

std::optional<double>
ReplayValidation::IterationError() const
{
    if (measuredIterationUs <= 0)
    {
        return std::nullopt;
    }
    return (simulatedIterationUs - measuredIterationUs) / measuredIterationUs;
}

void
ReplayValidation::Print(std::ostream& os, std::size_t maxRows) const
{
    os << "\n== validation against the measured run\n";
    if (measuredIterationUs > 0)
    {
        os << "iteration: simulated " << FormatFixed(simulatedIterationUs, 1) << " us, measured "
           << FormatFixed(measuredIterationUs, 1) << " us"
           << (measuredIterationName.empty() ? " (span of the traced ops)"
                                             : " (" + measuredIterationName + ")")
           << ", error " << FormatFixed(*IterationError() * 100, 1) << "%\n";
    }
    else
    {
        os << "iteration: simulated " << FormatFixed(simulatedIterationUs, 1)
           << " us; the traces carry no measured iteration\n";
    }
    if (!measuredRankUs.empty() && measuredRankUs.size() == simulatedRankUs.size())
    {
        os << "per rank:";
        for (std::size_t r = 0; r < measuredRankUs.size(); ++r)
        {
            os << (r % 4 == 0 ? "\n  " : "   ") << "rank " << r << " " << FormatFixed(simulatedRankUs[r], 0)
               << " / " << FormatFixed(measuredRankUs[r], 0) << " us";
        }
        os << "  (simulated / measured)\n";
    }
    std::size_t measured = 0;
    for (const auto& c : collectives)
    {
        measured += c.measuredUs > 0;
    }
    if (measured == 0)
    {
        os << "collectives: no measured durations in the traces\n";
        return;
    }
    os << "collectives (measured: the longest kernel duration over the ranks):\n";
    os << std::left << std::setw(16) << "type" << std::setw(6) << "pg" << std::right
       << std::setw(14) << "bytes" << std::setw(14) << "simulated_us" << std::setw(14)
       << "measured_us" << std::setw(10) << "error" << "\n";
    std::size_t shown = 0;
    for (const auto& c : collectives)
    {
        if (c.measuredUs <= 0)
        {
            continue;
        }
        if (shown++ == maxRows)
        {
            os << "... more in validation.csv\n";
            break;
        }
        os << std::left << std::setw(16) << c.kind << std::setw(6) << (c.pg.empty() ? "world" : c.pg)
           << std::right << std::setw(14) << c.bytes << std::setw(14) << FormatFixed(c.simulatedUs, 2)
           << std::setw(14) << FormatFixed(c.measuredUs, 2) << std::setw(9)
           << FormatFixed((c.simulatedUs - c.measuredUs) / c.measuredUs * 100, 1) << "%\n";
    }
}

void
ReplayValidation::WriteCsv(const std::string& path) const
{
    AtomicOutputFile out(path);
    out.Write("what,type,pg,seq,bytes,simulated_us,measured_us,error\n");
    auto error = [](double simulated, double measured) {
        return measured > 0 ? FormatFixed((simulated - measured) / measured, 4) : std::string();
    };
    out.Write("iteration," + measuredIterationName + ",,,," + FormatFixed(simulatedIterationUs, 3) +
              "," + FormatFixed(measuredIterationUs, 3) + "," +
              error(simulatedIterationUs, measuredIterationUs) + "\n");
    for (std::size_t r = 0; r < measuredRankUs.size() && r < simulatedRankUs.size(); ++r)
    {
        out.Write("rank," + std::to_string(r) + ",,,," + FormatFixed(simulatedRankUs[r], 3) + "," +
                  FormatFixed(measuredRankUs[r], 3) + "," +
                  error(simulatedRankUs[r], measuredRankUs[r]) + "\n");
    }
    for (const auto& c : collectives)
    {
        out.Write("collective," + c.kind + "," + c.pg + "," + std::to_string(c.seq) + "," +
                  std::to_string(c.bytes) + "," + FormatFixed(c.simulatedUs, 3) + "," +
                  FormatFixed(c.measuredUs, 3) + "," + error(c.simulatedUs, c.measuredUs) + "\n");
    }
    out.Commit();
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
ReplayPipeline::Say(const std::string& line) const
{
    if (m_progress)
    {
        m_progress(line);
    }
}

std::string
ReplayPipeline::Prepare(const std::vector<RankTraceFiles>& ranks)
{
    fs::create_directories(m_out + "/linked");
    fs::create_directories(m_out + "/et");
    const std::string prefix = m_out + "/et/trace";
    const auto n = static_cast<int64_t>(ranks.size());
    std::vector<std::string> etFiles;
    m_validation = ReplayValidation();
    for (const auto& files : ranks)
    {
        std::string input = files.host;
        std::string where = "rank " + std::to_string(files.rank + 1) + "/" + std::to_string(n);
        if (!files.device.empty())
        {
            LinkResult linked = TraceLinker().Link(files.host, files.device, files.rank);
            input = m_out + "/linked/trace." + std::to_string(files.rank) + ".json.gz";
            WriteLinkedTrace(linked, input);
            const LinkSummary& s = linked.summary;
            Say(where + ": linked " + std::to_string(s.hostOpsLinked) + "/" +
                std::to_string(s.hostOps) + " host ops, attached " +
                std::to_string(s.gpuOpsAttached) + "/" + std::to_string(s.gpuOps) + " GPU ops");
            double iterationUs = static_cast<double>(s.iterationDur) / 1e3;
            m_validation.measuredRankUs.resize(ranks.size(), 0.0);
            m_validation.measuredRankUs[files.rank] = iterationUs;
            if (iterationUs > m_validation.measuredIterationUs)
            {
                m_validation.measuredIterationUs = iterationUs;
                m_validation.measuredIterationName = s.iterationName;
            }
        }
        ConversionOptions options;
        options.rank = files.rank;
        options.worldSize = n;
        std::string et = prefix + "." + std::to_string(files.rank) + ".et";
        ConversionReport converted = TraceConverter(options).Convert(input, et);
        Say(where + ": converted " + std::to_string(converted.outputNodes) + " nodes, " +
            std::to_string(converted.GetCollectiveCount()) + " collectives, " +
            std::to_string(converted.sends + converted.recvs) + " sends/recvs" +
            (converted.warningCount > 0
                 ? ", " + std::to_string(converted.warningCount) + " warnings"
                 : ""));
        etFiles.push_back(et);
    }
    RankConsistencyReport consistency = CheckRankConsistency(etFiles);
    std::ostringstream text;
    text << consistency;
    m_consistency.clear();
    std::istringstream lines(text.str());
    for (std::string line; std::getline(lines, line);)
    {
        m_consistency.push_back(line);
    }
    Say(consistency.IsConsistent() ? "ranks agree on their collectives and messages"
                                   : "WARNING: the ranks disagree (see report.txt)");
    return prefix;
}

ChakraReport
ReplayPipeline::Simulate(const std::string& prefix, ClusterOptions options)
{
    fs::create_directories(m_out);
    const uint32_t ranks = CountTraceRanks(prefix);
    if (ranks == 0)
    {
        throw TraceError(prefix + ".0.et", "", "no trace");
    }
    ClusterScenario scenario;
    options.Apply(scenario, ranks);
    Say("simulating " + std::to_string(ranks) + " ranks on " + scenario.GetCluster()->Describe());
    auto wallStart = std::chrono::steady_clock::now();
    auto lastSaid = wallStart;
    scenario.SetProgress(MicroSeconds(50), [&](Time now) {
        auto wall = std::chrono::steady_clock::now();
        if (wall - lastSaid > std::chrono::seconds(2))
        {
            lastSaid = wall;
            Say("  simulated " + FormatFixed(now.GetSeconds() * 1e3, 3) + " ms (" +
                FormatFixed(std::chrono::duration<double>(wall - wallStart).count(), 0) + " s wall)");
        }
    });
    ChakraReport report = scenario.Run(prefix);
    Say("simulation done: " + std::to_string(scenario.GetEventCount()) + " events in " +
        FormatFixed(scenario.GetWallSeconds(), 1) + " s wall");

    m_validation.simulatedIterationUs =
        static_cast<double>(report.GetIterationTime().GetNanoSeconds()) / 1e3;
    m_validation.simulatedRankUs.clear();
    for (const auto& rank : report.GetRanks())
    {
        m_validation.simulatedRankUs.push_back(
            static_cast<double>(rank.finishTime.GetNanoSeconds()) / 1e3);
    }
    m_validation.collectives.clear();
    for (const auto& c : report.GetCollectives())
    {
        ReplayValidation::Collective entry;
        entry.kind = c.kind;
        entry.pg = c.pg;
        entry.seq = c.seq;
        entry.bytes = c.bytes;
        entry.simulatedUs = static_cast<double>((c.end - c.start).GetNanoSeconds()) / 1e3;
        entry.measuredUs = static_cast<double>(c.traceMicros);
        m_validation.collectives.push_back(entry);
    }
    report.WriteCsv(m_out);
    m_validation.WriteCsv(m_out + "/validation.csv");
    AtomicOutputFile text(m_out + "/report.txt");
    std::ostringstream body;
    body << "cluster: " << scenario.GetCluster()->Describe() << "\n";
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

} // namespace ns3
