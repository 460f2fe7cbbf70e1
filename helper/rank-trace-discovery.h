/*
 * Finding a job's per-rank PyTorch traces in a directory (chakra_replay --traces DIR).
 */
#ifndef CHAKRA_RANK_TRACE_DISCOVERY_H
#define CHAKRA_RANK_TRACE_DISCOVERY_H

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup chakra-helper
 * \brief One rank's input files.
 */
struct RankTraceFiles
{
    uint32_t rank{0};
    std::string host;   //!< host execution trace
    std::string device; //!< Kineto (or legacy profiler) trace; "" for host-only jobs
};

/**
 * Finds the per-rank traces of a job in a directory: every *.json / *.json.gz file is a host
 * execution trace or a device trace (told apart by content), and its rank is the first number
 * in its name, unless patterns are given ("dlrm_eg_{rank}.json.gz"; '*' matches anything).
 * Entries whose type cannot be known (a symbolic link in a loop, or to nothing) are skipped.
 * \param directory the directory
 * \param hostPattern pattern of host trace names ("" = detect)
 * \param devicePattern pattern of device trace names ("" = detect)
 * \param[out] skipped if not null, one line per entry skipped (its path and why)
 * \return the files by rank, ranks 0..n-1 (device empty for a host-only job)
 * \throws TraceError when ranks are missing, duplicated, or only some have a device trace;
 *         std::invalid_argument when a pattern has no "{rank}"
 */
std::vector<RankTraceFiles> DiscoverRankTraces(const std::string& directory,
                                               const std::string& hostPattern = "",
                                               const std::string& devicePattern = "",
                                               std::vector<std::string>* skipped = nullptr);

} // namespace ns3

#endif // CHAKRA_RANK_TRACE_DISCOVERY_H
