#include "rank-traces.h"

#include "et-attribute.h"
#include "et-reader.h"
#include "trace-error.h"

#include <filesystem>
#include <map>
#include <system_error>

namespace ns3
{

namespace
{

/**
 * \param ranks sorted rank numbers
 * \return "1, 3, 4" (at most 10 listed, then "and N more")
 */
std::string
ListRanks(const std::vector<uint64_t>& ranks)
{
    std::string text;
    for (std::size_t i = 0; i < ranks.size() && i < 10; ++i)
    {
        text += (i > 0 ? ", " : "") + std::to_string(ranks[i]);
    }
    if (ranks.size() > 10)
    {
        text += " and " + std::to_string(ranks.size() - 10) + " more";
    }
    return text;
}

/** \return the ranks in [0, count) that \p present lacks */
std::vector<uint64_t>
Missing(const std::map<uint64_t, std::string>& present, uint64_t count)
{
    std::vector<uint64_t> missing;
    for (uint64_t rank = 0; rank < count; ++rank)
    {
        if (present.count(rank) == 0)
        {
            missing.push_back(rank);
            if (missing.size() > 1000)
            {
                break; // enough to say what is wrong
            }
        }
    }
    return missing;
}

/**
 * \param name a file name
 * \param base the prefix's file name part
 * \param[out] rank the rank if the name is <base>.<rank>.et or <base>.<rank>.et.gz
 * \return true if it is
 */
bool
ParseRankFileName(const std::string& name, const std::string& base, uint64_t& rank)
{
    if (name.size() <= base.size() + 1 || name.compare(0, base.size(), base) != 0 ||
        name[base.size()] != '.')
    {
        return false;
    }
    std::string rest = name.substr(base.size() + 1);
    std::string::size_type digits = 0;
    while (digits < rest.size() && rest[digits] >= '0' && rest[digits] <= '9')
    {
        ++digits;
    }
    std::string suffix = rest.substr(digits);
    // "t.07.et" is not rank 7 for ChakraHelper, which writes the number without zeros.
    if (digits == 0 || digits > 9 || (digits > 1 && rest[0] == '0') ||
        (suffix != ".et" && suffix != ".et.gz"))
    {
        return false;
    }
    rank = std::stoull(rest.substr(0, digits));
    return true;
}

} // namespace

std::vector<std::string>
FindRankTraces(const std::string& prefix)
{
    namespace fs = std::filesystem;
    const std::string::size_type slash = prefix.rfind('/');
    const std::string dir = slash == std::string::npos ? "." : prefix.substr(0, slash + 1);
    const std::string base = slash == std::string::npos ? prefix : prefix.substr(slash + 1);
    const std::string pattern = prefix + ".<rank>.et";

    std::map<uint64_t, std::string> byRank;
    std::error_code error;
    fs::directory_iterator it(dir, error);
    if (error)
    {
        return {}; // no directory: no traces (the caller says "no trace <prefix>.0.et")
    }
    for (; it != fs::directory_iterator(); it.increment(error))
    {
        if (error)
        {
            throw TraceError(dir, "", "cannot list the directory: " + error.message());
        }
        uint64_t rank = 0;
        const std::string name = it->path().filename().string();
        if (!ParseRankFileName(name, base, rank))
        {
            continue;
        }
        const std::string path = (slash == std::string::npos ? "" : dir) + name;
        auto [entry, inserted] = byRank.emplace(rank, path);
        if (!inserted)
        {
            throw TraceError(pattern,
                             "",
                             "rank " + std::to_string(rank) + " has two traces, " + entry->second +
                                 " and " + path + ": remove one");
        }
    }
    if (byRank.empty())
    {
        return {};
    }
    const uint64_t highest = byRank.rbegin()->first;
    if (byRank.size() != highest + 1)
    {
        std::vector<uint64_t> found;
        for (const auto& [rank, path] : byRank)
        {
            found.push_back(rank);
        }
        throw TraceError(pattern,
                         "",
                         "missing the traces of ranks " + ListRanks(Missing(byRank, highest + 1)) +
                             " (found ranks " + ListRanks(found) +
                             "; a job's ranks are numbered 0 .. N-1 without gaps)");
    }
    std::vector<std::string> paths;
    for (const auto& [rank, path] : byRank)
    {
        paths.push_back(path);
    }
    // The converter records the job size: a trace set missing its last ranks shows there.
    for (const auto& path : paths)
    {
        EtReader reader(path);
        const auto* attribute = FindAttribute(reader.GetMetadata().attr(), "world_size");
        int64_t worldSize = 0;
        std::string why;
        if (attribute == nullptr)
        {
            continue;
        }
        if (!AttributeToInt64(*attribute, worldSize, why) || worldSize <= 0)
        {
            throw TraceError(path,
                             "metadata",
                             "attribute 'world_size' is not a positive integer" +
                                 (why.empty() ? "" : ": " + why));
        }
        if (static_cast<uint64_t>(worldSize) > paths.size())
        {
            throw TraceError(path,
                             "metadata",
                             "world_size is " + std::to_string(worldSize) +
                                 " but only ranks 0 .. " + std::to_string(paths.size() - 1) +
                                 " have a trace: missing ranks " +
                                 ListRanks(Missing(byRank, static_cast<uint64_t>(worldSize))));
        }
        if (static_cast<uint64_t>(worldSize) < paths.size())
        {
            throw TraceError(path,
                             "metadata",
                             "world_size is " + std::to_string(worldSize) + " but there are " +
                                 std::to_string(paths.size()) + " rank traces (" + pattern +
                                 "): traces of another job mixed in?");
        }
    }
    return paths;
}

} // namespace ns3
