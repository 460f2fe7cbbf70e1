/*
 * The rank consistency check's entry points (the checks are RankConsistencyChecker's) and the
 * printed form of its report.
 */
#include "rank-consistency.h"

#include "rank-consistency-checker.h"

#include <sys/stat.h>

namespace ns3
{

namespace
{

bool
FileExists(const std::string& path)
{
    struct stat info
    {
    };

    return stat(path.c_str(), &info) == 0 && S_ISREG(info.st_mode);
}

} // namespace

bool
RankConsistencyReport::IsConsistent() const
{
    return mismatchCount == 0;
}

std::ostream&
operator<<(std::ostream& os, const RankConsistencyReport& report)
{
    os << "ranks: " << report.files.size() << "; collectives per process group:";
    for (const auto& [pg, count] : report.collectivesPerGroup)
    {
        os << " \"" << pg << "\" " << count;
    }
    os << (report.collectivesPerGroup.empty() ? " none" : "")
       << "; send/recv pairs matched: " << report.messages << "\n";
    os << (report.IsConsistent() ? "consistent" : "INCONSISTENT") << ": " << report.mismatchCount
       << " mismatches, " << report.noteCount << " notes, " << report.warningCount << " warnings\n";
    for (const auto& mismatch : report.mismatches)
    {
        os << "  mismatch: " << mismatch << "\n";
    }
    if (report.mismatchCount > report.mismatches.size())
    {
        os << "  ... " << report.mismatchCount - report.mismatches.size() << " more mismatches\n";
    }
    for (const auto& warning : report.warnings)
    {
        os << "  warning: " << warning << "\n";
    }
    if (report.warningCount > report.warnings.size())
    {
        os << "  ... " << report.warningCount - report.warnings.size() << " more warnings\n";
    }
    for (const auto& note : report.notes)
    {
        os << "  note: " << note << "\n";
    }
    if (report.noteCount > report.notes.size())
    {
        os << "  ... " << report.noteCount - report.notes.size() << " more notes\n";
    }
    return os;
}

std::vector<std::string>
FindRankFiles(const std::string& prefix)
{
    std::vector<std::string> files;
    for (int64_t rank = 0;; ++rank)
    {
        std::string plain = prefix + "." + std::to_string(rank) + ".et";
        if (FileExists(plain))
        {
            files.push_back(plain);
        }
        else if (FileExists(plain + ".gz"))
        {
            files.push_back(plain + ".gz");
        }
        else
        {
            return files;
        }
    }
}

RankConsistencyReport
CheckRankConsistency(const std::vector<std::string>& paths, const RankConsistencyOptions& options)
{
    RankConsistencyReport report;
    RankConsistencyChecker(report, options).Run(paths);
    return report;
}

} // namespace ns3
