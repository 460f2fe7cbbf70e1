/*
 * The per-rank trace files of one job: <prefix>.<rank>.et (or .et.gz), ranks 0 .. N-1.
 */
#ifndef CHAKRA_RANK_TRACES_H
#define CHAKRA_RANK_TRACES_H

#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup chakra-trace
 * \brief Finds the traces of every rank of a job and checks that they form one job.
 *
 * Every file of the prefix's directory named <base>.<rank>.et or <base>.<rank>.et.gz counts.
 * The ranks must be exactly 0 .. N-1: a job with t.0.et, t.2.et and t.5.et is missing ranks 1,
 * 3 and 4, and running it as a 1-rank job would silently simulate something else. A trace whose
 * metadata names the job size (attribute "world_size", written by the converter) must agree
 * with N.
 *
 * \param prefix the trace prefix (may contain a directory)
 * \return the path of each rank's trace, by rank; empty if there is no trace at all
 * \throws TraceError naming the missing ranks (gaps, or fewer files than world_size), a rank
 *         with both a .et and a .et.gz, or a world_size that disagrees
 */
std::vector<std::string> FindRankTraces(const std::string& prefix);

} // namespace ns3

#endif // CHAKRA_RANK_TRACES_H
