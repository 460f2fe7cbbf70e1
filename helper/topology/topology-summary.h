/*
 * What a topology amounts to: counts, bisection bandwidth, diameter, routed hops and paths
 * between two GPUs (one line for a report, numbers for tests), and its picture as a Graphviz
 * file.
 */
#ifndef CHAKRA_TOPOLOGY_SUMMARY_H
#define CHAKRA_TOPOLOGY_SUMMARY_H

#include "ns3/cluster-topology.h"

#include <cstdint>
#include <string>

namespace ns3
{

/**
 * \ingroup chakra-topology
 * \brief The figures of a topology.
 */
struct TopologySummary
{
    uint32_t gpus{0};
    uint32_t nvSwitches{0};
    uint32_t switches{0}; //!< scale-out switches
    uint32_t scaleUpLinks{0};
    uint32_t scaleOutLinks{0};
    uint64_t bisectionBps{0}; //!< see BisectionBandwidth
    uint32_t diameter{0};     //!< see RoutedDiameter
};

/**
 * The bisection bandwidth: the maximum flow (bit/s, each link carrying its rate in each
 * direction) from ranks 0 .. n/2 - 1 to ranks n/2 .. n - 1. The topologies here number ranks
 * along their structure (hosts, rails, pods, snake order on a torus), so this cut is the
 * narrowest balanced one for the symmetric ones.
 * \return 0 for fewer than two GPUs
 */
uint64_t BisectionBandwidth(const ClusterTopology& topology);

/**
 * \return the largest number of links on a routed path between two GPUs (over every pair and
 *         every equal-cost path)
 */
uint32_t RoutedDiameter(const ClusterTopology& topology);

/**
 * \return the links crossed by the routed path from \p src to \p dst (flow hash 0); 0 when
 *         src == dst or unreachable
 */
uint32_t RoutedHops(const ClusterTopology& topology, uint32_t src, uint32_t dst);

/**
 * \return the number of distinct routed paths from \p src to \p dst (the equal-cost choices
 *         multiplied along the way): what ECMP spreads flows over
 */
uint64_t CountRoutedPaths(const ClusterTopology& topology, uint32_t src, uint32_t dst);

/** \return every figure of TopologySummary */
TopologySummary Summarize(const ClusterTopology& topology);

/**
 * \return one line: the topology's name, its counts, bisection bandwidth and diameter, e.g.
 *         "leaf-spine (...): 16 GPUs, 2 NVSwitches, 6 switches, 40 links; bisection 3.2 Tbps,
 *         diameter 4 hops"
 */
std::string DescribeTopology(const ClusterTopology& topology);

/**
 * Writes the topology as a Graphviz graph, by tier from the bottom: GPUs in rank order,
 * NVSwitches, then each tier of fabric switches (leaf or rail, spine, core), each on one rank
 * in node order; NVLink links green, fabric links black with their rate (small graphs); wide
 * tiers (64 GPUs) drawn smaller and stretched to about 5:2. Render it with
 * "dot -Tsvg topology.dot -o topology.svg", or "neato" for GPUs without switches (tori,
 * grouped by their dimension-0 line).
 * \throws std::runtime_error naming the file if it cannot be written (nothing left behind)
 */
void WriteTopologyDot(const ClusterTopology& topology, const std::string& path);
/**
 * The same, with the GPUs coloured by job (several jobs on one cluster): \p gpuJob names each
 * GPU's job by rank ("" for a GPU no job runs on, drawn white); each job gets a colour and its
 * name under its GPUs' labels.
 */
void WriteTopologyDot(const ClusterTopology& topology,
                      const std::string& path,
                      const std::vector<std::string>& gpuJob);

} // namespace ns3

#endif // CHAKRA_TOPOLOGY_SUMMARY_H
