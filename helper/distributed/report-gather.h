/*
 * GatherReport: the report of a distributed (MPI) run, with every process's ranks, on process 0.
 */
#ifndef CHAKRA_REPORT_GATHER_H
#define CHAKRA_REPORT_GATHER_H

#include "ns3/chakra-report.h"

#include <string>

namespace ns3
{

/**
 * \ingroup chakra-distributed
 * Gathers the per-rank results of every process to process 0 (collective: every process calls
 * it at the same point, after Simulator::Run).
 * \param local this process's report (its ranks only; by value: a one-process run moves it
 *        through instead of copying every record)
 * \return on process 0, the report of every rank, built in rank order exactly as a
 *         one-process run builds it (so that it prints and writes the same bytes); on other
 *         processes, \p local. Without MPI, \p local.
 */
ChakraReport GatherReport(ChakraReport local);

/** \return a report's per-rank results as bytes (what GatherReport sends) */
std::string SerializeRankResults(const ChakraReport& report);

/**
 * Adds the ranks serialized by SerializeRankResults to \p report (AddRank per rank).
 * \throws std::runtime_error on truncated or malformed bytes
 */
void AddRankResults(ChakraReport& report, const std::string& bytes);

} // namespace ns3

#endif // CHAKRA_REPORT_GATHER_H
