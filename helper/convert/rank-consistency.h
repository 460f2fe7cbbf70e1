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

/** \ingroup chakra \brief The outcome of CheckRankConsistency. */
struct RankConsistencyReport
{
    std::map<int64_t, std::string> files;          //!< rank -> file
    std::map<std::string, uint64_t> collectivesPerGroup; //!< pg_name -> collectives on its
                                                   //!< reference rank
    uint64_t messages{0};                          //!< send/recv pairs matched
    std::vector<std::string> mismatches;           //!< what disagrees (first 100)
    uint64_t mismatchCount{0};                     //!< every mismatch
    std::vector<std::string> notes;                //!< allowed differences (first 100)
    uint64_t noteCount{0};                         //!< every note

    /** \return true if no mismatch was found */
    bool IsConsistent() const;
};

/** Prints the report: a summary line, then mismatches and notes. */
std::ostream& operator<<(std::ostream& os, const RankConsistencyReport& report);

/**
 * \ingroup chakra
 * \param prefix the common part of per-rank names: files "<prefix>.<rank>.et" (or ".et.gz")
 * \return those files for ranks 0, 1, ... up to the first missing rank
 */
std::vector<std::string> FindRankFiles(const std::string& prefix);

/**
 * \ingroup chakra
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
 * notes); a send without the receive of the same (pg_name, comm_src, comm_dst, comm_tag) and
 * comm_size on the destination rank, or the reverse; a send whose comm_src (receive:
 * comm_dst) is not its file's rank. Process groups are read as the simulator reads them
 * (ParseProcessGroups: JSON, or the reference converter's Python text).
 * \param paths the .et files (plain or gzip'd), one per rank
 * \return the report
 * \throws TraceError if a file cannot be read or two files claim the same rank
 */
RankConsistencyReport CheckRankConsistency(const std::vector<std::string>& paths);

} // namespace ns3

#endif // CHAKRA_RANK_CONSISTENCY_H
