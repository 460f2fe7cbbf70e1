/*
 * Checks that the per-rank .et traces of one job agree on their communication: the collectives
 * of each process group in the same order with the same type, root and size, and every send
 * matched by a receive.
 */
#ifndef CHAKRA_RANK_CONSISTENCY_H
#define CHAKRA_RANK_CONSISTENCY_H

#include <cstdint>
#include <map>
#include <ostream>
#include <string>
#include <vector>

namespace ns3
{

/** \ingroup chakra-converter \brief Settings of CheckRankConsistency. */
struct RankConsistencyOptions
{
    /**
     * Communication nodes without comm_size (which the simulator runs as 0 bytes) are
     * mismatches instead of warnings.
     */
    bool strict{false};
};

/** \ingroup chakra-converter \brief The outcome of CheckRankConsistency. */
struct RankConsistencyReport
{
    std::map<int64_t, std::string> files;                //!< rank -> file
    std::map<std::string, uint64_t> collectivesPerGroup; //!< pg_name -> collectives on its
                                                         //!< reference rank
    uint64_t messages{0};                                //!< send/recv pairs matched
    std::vector<std::string> mismatches;                 //!< what disagrees (first 100)
    uint64_t mismatchCount{0};                           //!< every mismatch
    std::vector<std::string> notes;                      //!< allowed differences (first 100)
    uint64_t noteCount{0};                               //!< every note
    std::vector<std::string> warnings;                   //!< what may be wrong (first 100)
    uint64_t warningCount{0};                            //!< every warning

    /** \return true if no mismatch was found */
    bool IsConsistent() const;
};

/** Prints the report: a summary line, then mismatches and notes. */
std::ostream& operator<<(std::ostream& os, const RankConsistencyReport& report);

/**
 * \ingroup chakra-converter
 * \param prefix the common part of per-rank names: files "<prefix>.<rank>.et" (or ".et.gz")
 * \return those files for ranks 0, 1, ... up to the first missing rank
 */
std::vector<std::string> FindRankFiles(const std::string& prefix);

/**
 * \ingroup chakra-converter
 * \brief Compares the communication of the ranks of one job.
 *
 * The rank of a file is its GlobalMetadata "rank" attribute, else the number in a
 * "<prefix>.<rank>.et" name, else its position in \p paths. Process groups and their ranks
 * come from the METADATA node process_group:init; a group no such node describes (and "", the
 * unnamed world) spans every rank given.
 *
 * The simulator numbers the calls of each communicator in program order (the order of the
 * nodes in the file) and pairs call k of every member, so that is what is compared, call by
 * call, not only how many there are. Mismatches: a member rank without a file; a different
 * number of collectives in a group; call k of a group with another comm_type, root_rank or
 * comm_size on some rank (named with both ranks, both node ids and k; comm_size may differ
 * for ALL_TO_ALL, GATHER and SCATTER, whose per-rank inputs legitimately differ: those are
 * notes); a send without the receive of the same (source, destination, comm_tag) and comm_size
 * on the destination rank, or the reverse. Messages are matched as the simulator matches them:
 * a send goes from its file's rank to comm_dst, a receive waits at its file's rank for
 * comm_src, a missing comm_tag is 0, pg_name takes no part, repeated keys pair in file order;
 * the field naming the file's own rank (a send's comm_src, a receive's comm_dst) may be absent
 * (the ASTRA-sim convention) but must be that rank when present, and the peer's field is
 * required. Process groups are read as the simulator reads them (ParseProcessGroups: JSON, or
 * the reference converter's Python text).
 *
 * Within each file: a node id that appears twice is a mismatch (the simulator refuses the
 * file); communication nodes without comm_size (but barriers, which carry no data) are one
 * warning per file with their count and first ids, a mismatch with options.strict.
 *
 * The job's size: a file whose metadata has world_size must agree with the number of files,
 * and the ranks must be 0 .. N-1. Without a world_size (ASTRA-sim's traces have none), the
 * ranks the traces name (process group members, send/recv peers) are the only evidence: a
 * named rank without a file is a mismatch (above), ranks past the highest one named are a
 * warning (an extra file?), and traces that name no rank at all get a warning that the number
 * of files could not be checked.
 *
 * GPUs: ranks whose metadata gpu_name (the converter takes it from Kineto's deviceProperties)
 * names different GPU models get a warning listing them.
 * \param paths the .et files (plain or gzip'd), one per rank
 * \param options settings
 * \return the report
 * \throws TraceError if a file cannot be read or two files claim the same rank
 */
RankConsistencyReport CheckRankConsistency(const std::vector<std::string>& paths,
                                           const RankConsistencyOptions& options = {});

} // namespace ns3

#endif // CHAKRA_RANK_CONSISTENCY_H
