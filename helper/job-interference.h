/*
 * MeasureInterference: each job of a shared run again alone on the same hosts, for its
 * slowdown (--interference, issue 28).
 */
#ifndef CHAKRA_JOB_INTERFERENCE_H
#define CHAKRA_JOB_INTERFERENCE_H

#include "cluster-job.h"
#include "cluster-scenario.h"
#include "multi-job-report.h"

#include <cstddef>
#include <functional>
#include <vector>

namespace ns3
{

/**
 * \ingroup chakra-helper
 * \return whether every rank of every job finished, on every process of a distributed (MPI)
 *         run: each process knows its own ranks only, and all must agree before running more
 *         (collective: every process calls it at the same point)
 */
bool FinishedEverywhere(const MultiJobReport& report);

/**
 * \ingroup chakra-helper
 * Runs jobs of a shared run again, each alone on the hosts it had there, with the fabric to
 * itself, and records the time as its alone time (MultiJobReport::SetAlone: the report's
 * alone_us and slowdown).
 * \param report the shared run's report (every job finished)
 * \param jobs the jobs as added to the shared run, in its order
 * \param configure sets up a new scenario as the shared run's (its cluster and attributes)
 * \param which the indices of the jobs to run alone (empty: every job)
 * \throws std::invalid_argument naming the job when one does not finish alone
 */
void MeasureInterference(MultiJobReport& report,
                         const std::vector<ClusterJob>& jobs,
                         const std::function<void(ClusterScenario&)>& configure,
                         std::vector<std::size_t> which = {});

} // namespace ns3

#endif // CHAKRA_JOB_INTERFERENCE_H
