/*
 * One generated collective (or nccl-tests' send/receive ring) simulated on a configured
 * ClusterScenario: what collective-accuracy-bench and chakra_nccl_tests run for each size.
 */
#ifndef CHAKRA_COLLECTIVE_BENCH_RUN_H
#define CHAKRA_COLLECTIVE_BENCH_RUN_H

#include "cluster-scenario.h"

#include "ns3/nstime.h"
#include "ns3/workload-generator.h"

#include <cstdint>
#include <string>

namespace ns3
{

/**
 * \ingroup chakra-helper
 * \brief What one simulated microbenchmark gave.
 */
struct CollectiveBenchResult
{
    Time time;              //!< the iteration time: latest rank finish (all start at 0)
    bool finished{false};   //!< every rank ran its whole trace
    std::string failure;    //!< when not: why (ChakraReport::DescribeFailure)
    std::string algorithms; //!< the algorithms the collectives ran, "+"-joined ("" for p2p)
    uint64_t events{0};     //!< simulator events
    double wallSeconds{0};  //!< wall-clock seconds of the simulation
};

/**
 * \param report the report of a run of \p scenario
 * \param scenario the scenario that ran
 * \return the run's figures
 */
CollectiveBenchResult SummarizeCollectiveBench(const ChakraReport& report,
                                               const ClusterScenario& scenario);

/**
 * Writes \p spec's traces (WorkloadGenerator::WriteCollectiveBench, or WriteSendRecvBench when
 * \p sendRecv) in a fresh temporary directory, runs them on \p scenario (whose cluster and
 * applications the caller has configured for spec.ranks GPUs), and removes the traces.
 * ClusterScenario::Run destroys the simulator at its end, so runs one after the other in a
 * process start from the same state: each result is what a run alone gives.
 * \param scenario the scenario (one per run)
 * \param spec the microbenchmark
 * \param sendRecv the send/receive ring instead of spec.type
 * \return the figures
 * \throws std::invalid_argument or TraceError as WorkloadGenerator and ClusterScenario::Run
 */
CollectiveBenchResult RunCollectiveBench(ClusterScenario& scenario,
                                         const CollectiveBenchSpec& spec,
                                         bool sendRecv = false);

} // namespace ns3

#endif // CHAKRA_COLLECTIVE_BENCH_RUN_H
