/*
 * ClusterJob: one of several jobs sharing a cluster (issue 28).
 */
#ifndef CHAKRA_CLUSTER_JOB_H
#define CHAKRA_CLUSTER_JOB_H

#include "ns3/attribute.h"
#include "ns3/nstime.h"
#include "ns3/ptr.h"

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace ns3
{

class ChakraApplication;

/**
 * \ingroup chakra-helper
 * \brief A job of a run with several (ClusterScenario::AddJob): its traces, when it starts,
 * where it runs and what it sets on its own applications.
 *
 * Each job has its own ranks 0..n-1, communicators and process groups: its messages reach
 * its own ranks only, whatever the other jobs do. The jobs share the cluster's links and
 * switches.
 */
struct ClusterJob
{
    std::string name;        //!< in the report and errors ("" : its number, from 1)
    std::string tracePrefix; //!< rank r reads <tracePrefix>.<r>.et
    Time start;              //!< its ranks start at this simulated time
    /** Its hosts, in rank order (empty: the scenario's placement policy chooses). */
    std::vector<uint32_t> hosts;
    /** ChakraApplication attributes of this job's ranks, over the scenario's (its collective
     *  algorithm, its compute model). Checked when added to a scenario. */
    std::vector<std::pair<std::string, Ptr<AttributeValue>>> appAttributes;
    /** Called with this job's applications (this process's) once they are installed, before
     *  the run: per-rank settings (chakra_replay's measured start offsets). May be empty. */
    std::function<void(const std::vector<Ptr<ChakraApplication>>&)> beforeRun;
};

} // namespace ns3

#endif // CHAKRA_CLUSTER_JOB_H
