/*
 * A set of per-rank traces written as a whole: staged under a hidden name beside the
 * destination and renamed into place only when every file is complete.
 */
#ifndef CHAKRA_TRACE_SET_OUTPUT_H
#define CHAKRA_TRACE_SET_OUTPUT_H

#include "ns3/temporary-file-guard.h"

#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup chakra-workload
 * \brief The destination of a set of files <prefix>.* (one trace per rank, and what goes with
 * them), written under a hidden staging prefix and renamed into place by Commit().
 *
 * Each file of a set is written atomically (AtomicOutputFile), but a set is many files: a
 * writer that fails at rank 5 of 8, or after the last rank (an export that refuses a node),
 * would leave a set that looks whole to FindRankTraces and is not the job asked for. Here the
 * files are written as ".<base>.staging-XXXXXX.<rest>" in the destination directory (the
 * prefix is a file made with mkstemp, so two writers never share it; the same directory, so
 * that moving them is a rename) and renamed to "<base>.<rest>" when all of them are complete.
 * Destination directories that do not exist are created (as "mkdir -p" would), and removed
 * again, if still empty, when the set is not committed.
 *
 * If the set is destroyed without Commit() (an exception), every staged file and the
 * directories it created are removed: an earlier set at the same prefix is left as it was.
 * A termination signal (TemporaryFileGuard) removes the staging prefix's file and the staged
 * files announced with Expect().
 */
class TraceSetOutput
{
  public:
    /**
     * Creates the destination directory if needed and the staging prefix.
     * \param prefix the destination prefix, e.g. "out/step" for out/step.0.et, ...
     * \throws TraceError naming the prefix and the directory that cannot be created or written
     */
    explicit TraceSetOutput(const std::string& prefix);
    /** Removes the staged files and the directories created, unless committed. */
    ~TraceSetOutput();
    TraceSetOutput(const TraceSetOutput&) = delete;
    TraceSetOutput& operator=(const TraceSetOutput&) = delete;

    /** \return the prefix to write the files under (hidden, in the destination directory) */
    const std::string& GetStagingPrefix() const;

    /**
     * Announces a file the writer will put at GetStagingPrefix() + \p suffix, so that a
     * termination signal removes it (before it exists, while it is written, once complete).
     * \param suffix e.g. ".0.et"
     */
    void Expect(const std::string& suffix);

    /**
     * Renames every file written under the staging prefix to the destination prefix (the same
     * suffix) and removes the staging prefix's file.
     * \return the destination paths, sorted
     * \throws TraceError if a file cannot be renamed (the staged and the renamed files of the
     *         set are then removed)
     */
    std::vector<std::string> Commit();

  private:
    /** \return the names in the destination directory that start with the staging name + "." */
    std::vector<std::string> StagedNames() const;
    /** Removes the staged files, the staging prefix's file and the directories created. */
    void Discard();

    std::string m_prefix;                       //!< destination prefix
    std::string m_directory;                    //!< destination directory ("." for none)
    std::string m_base;                         //!< the prefix's last component
    std::string m_stagingName;                  //!< ".<base>.staging-XXXXXX" (a file)
    std::string m_stagingPrefix;                //!< the directory + "/" + m_stagingName
    TemporaryFileGuard m_stagingGuard;          //!< removes the staging file on a signal
    std::vector<TemporaryFileGuard> m_expected; //!< remove the announced files on a signal
    std::vector<std::string> m_expectedPaths;   //!< the announced files
    std::vector<std::string> m_created;         //!< directories created, outermost first
    bool m_committed{false};                    //!< Commit() succeeded
};

} // namespace ns3

#endif // CHAKRA_TRACE_SET_OUTPUT_H
