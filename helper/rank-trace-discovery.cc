#include "rank-trace-discovery.h"

#include "ns3/trace-error.h"
#include "ns3/trace-file.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <optional>
#include <regex>
#include <stdexcept>

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

/**
 * The names of the regular *.json / *.json.gz files of \p directory, sorted. Without an
 * error code, a link that loops (or points nowhere) would throw out of the whole search: one
 * bad entry must not hide the job's traces, so it is skipped and said in \p skipped.
 */
std::vector<std::string>
ListJsonFiles(const std::string& directory, std::vector<std::string>* skipped)
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
    return files;
}

/** The traces of a directory by rank, as they are found; one file per rank and kind. */
class RankFileTable
{
  public:
    explicit RankFileTable(std::string directory)
        : m_directory(std::move(directory))
    {
    }

    void AddHost(uint32_t rank, const std::string& name)
    {
        Add(m_hosts, rank, name);
    }

    void AddDevice(uint32_t rank, const std::string& name)
    {
        Add(m_devices, rank, name);
    }

    /** The ranks 0..n-1 with their files; an error names the first gap. */
    std::vector<RankTraceFiles> ToRanks() const;

  private:
    void Add(std::map<uint32_t, std::string>& into, uint32_t rank, const std::string& name)
    {
        auto [it, inserted] = into.emplace(rank, m_directory + "/" + name);
        if (!inserted)
        {
            throw TraceError(m_directory,
                             "",
                             "two traces for rank " + std::to_string(rank) + ": " +
                                 fs::path(it->second).filename().string() + " and " + name +
                                 " (give --host-pattern / "
                                 "--device-pattern with {rank})");
        }
    }

    std::string m_directory;
    std::map<uint32_t, std::string> m_hosts;
    std::map<uint32_t, std::string> m_devices;
};

std::vector<RankTraceFiles>
RankFileTable::ToRanks() const
{
    if (m_hosts.empty())
    {
        throw TraceError(m_directory,
                         "",
                         "no host execution trace (*.json[.gz] with \"schema\" "
                         "and \"nodes\") found");
    }
    std::vector<RankTraceFiles> ranks;
    for (uint32_t rank = 0; rank < m_hosts.size(); ++rank)
    {
        if (m_hosts.count(rank) == 0)
        {
            throw TraceError(m_directory,
                             "",
                             "host traces cover ranks " + std::to_string(m_hosts.begin()->first) +
                                 ".." + std::to_string(m_hosts.rbegin()->first) + " but rank " +
                                 std::to_string(rank) + " is missing");
        }
        RankTraceFiles entry;
        entry.rank = rank;
        entry.host = m_hosts.at(rank);
        if (!m_devices.empty())
        {
            if (m_devices.count(rank) == 0)
            {
                throw TraceError(m_directory,
                                 "",
                                 "no device trace for rank " + std::to_string(rank));
            }
            entry.device = m_devices.at(rank);
        }
        ranks.push_back(entry);
    }
    if (!m_devices.empty() && m_devices.size() != m_hosts.size())
    {
        throw TraceError(m_directory,
                         "",
                         std::to_string(m_devices.size()) + " device traces for " +
                             std::to_string(m_hosts.size()) + " host traces");
    }
    return ranks;
}

/** Sorts \p files by the user's patterns: the rank is where the pattern says "{rank}". */
void
SortByPattern(const std::string& directory,
              const std::vector<std::string>& files,
              const std::string& hostPattern,
              const std::string& devicePattern,
              RankFileTable& table)
{
    const std::regex hostRegex =
        hostPattern.empty() ? std::regex() : PatternRegex(hostPattern, "host-pattern");
    const std::regex deviceRegex =
        devicePattern.empty() ? std::regex() : PatternRegex(devicePattern, "device-pattern");
    auto rankNumber = [&directory](const std::string& digits, const std::string& name) {
        if (digits.size() > 9)
        {
            throw TraceError(directory + "/" + name, "", "rank number " + digits + " is too large");
        }
        return static_cast<uint32_t>(std::stoul(digits));
    };
    for (const std::string& name : files)
    {
        std::smatch match;
        if (!hostPattern.empty() && std::regex_match(name, match, hostRegex))
        {
            table.AddHost(rankNumber(match[1].str(), name), name);
        }
        else if (!devicePattern.empty() && std::regex_match(name, match, deviceRegex))
        {
            table.AddDevice(rankNumber(match[1].str(), name), name);
        }
    }
}

/** Sorts \p files by their content (host or device trace), the rank the first number of the name.
 */
void
SortByContent(const std::string& directory,
              const std::vector<std::string>& files,
              RankFileTable& table)
{
    /** A trace file found by content. */
    struct Found
    {
        bool host{false};
        std::optional<uint32_t> rank; //!< the first number in its name
        std::string name;
    };

    std::vector<Found> found;
    std::size_t hostCount = 0;
    std::size_t deviceCount = 0;
    for (const std::string& name : files)
    {
        TraceKind kind = Classify(directory + "/" + name);
        if (kind != TraceKind::OTHER)
        {
            found.push_back({kind == TraceKind::HOST, FirstNumber(name), name});
            ++(kind == TraceKind::HOST ? hostCount : deviceCount);
        }
    }
    // A single-rank job: a number in its names is not a rank ("resnet_et_1.1.0.json.gz"),
    // and names without one are fine.
    const bool singleRank = hostCount == 1 && deviceCount <= 1;
    for (const auto& file : found)
    {
        if (!singleRank && !file.rank)
        {
            throw TraceError(directory + "/" + file.name,
                             "",
                             "no rank number in the file name (give --host-pattern / "
                             "--device-pattern with {rank})");
        }
        const uint32_t rank = singleRank ? 0 : *file.rank;
        if (file.host)
        {
            table.AddHost(rank, file.name);
        }
        else
        {
            table.AddDevice(rank, file.name);
        }
    }
}

} // namespace

std::vector<RankTraceFiles>
DiscoverRankTraces(const std::string& directory,
                   const std::string& hostPattern,
                   const std::string& devicePattern,
                   std::vector<std::string>* skipped)
{
    const std::vector<std::string> files = ListJsonFiles(directory, skipped);
    RankFileTable table(directory);
    if (!hostPattern.empty() || !devicePattern.empty())
    {
        SortByPattern(directory, files, hostPattern, devicePattern, table);
    }
    else
    {
        SortByContent(directory, files, table);
    }
    return table.ToRanks();
}

} // namespace ns3
