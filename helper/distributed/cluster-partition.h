/*
 * ClusterPartition: which process of a distributed (MPI) simulation runs each node of a
 * ClusterTopology, and the checks that make a partition usable.
 */
#ifndef CHAKRA_CLUSTER_PARTITION_H
#define CHAKRA_CLUSTER_PARTITION_H

#include "ns3/cluster-topology.h"
#include "ns3/node-container.h"
#include "ns3/nstime.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup chakra-distributed
 * \brief The process of every node of a cluster.
 *
 * The unit of the partition is a scale-up unit: a host's GPUs (each with its NIC) and the
 * NVSwitch they share, or a whole NVLink domain of several hosts; units are never split, so
 * NVLink traffic stays inside a process and only NIC and fabric links cross processes.
 * Switches that GPUs' NICs plug into (leaves, rail switches, a single switch) go with the
 * process that has most of their GPUs; the other switches (spines, cores) are spread over the
 * processes in turn.
 */
struct ClusterPartition
{
    uint32_t processes{1};           //!< number of processes
    uint32_t units{0};               //!< scale-up units
    std::vector<uint32_t> processOf; //!< per topology node
    std::vector<uint32_t> unitOf;    //!< per topology node: its unit (kNoUnit for a switch)
    uint32_t crossingLinks{0};       //!< links whose ends are on different processes
    Time lookahead;                  //!< smallest delay of a crossing link (0: none cross)

    /** unitOf of a switch outside every unit */
    static constexpr uint32_t kNoUnit = UINT32_MAX;
};

/**
 * Partitions a cluster over \p processes processes.
 * \param topology the cluster
 * \param processes the number of processes (1: everything on process 0)
 * \param policy "hosts": units in contiguous blocks (process p gets units p*U/P ..);
 *        "round-robin": unit u on process u mod P; or a comma-separated list giving the
 *        process of each unit in order ("0,0,1,1")
 * \return the partition
 * \throws std::invalid_argument naming what is wrong: an unknown policy, more processes than
 *         units, a list of the wrong length or naming a process that does not exist, a process
 *         left without a unit, a link between processes without delay (the lookahead of a
 *         distributed simulation must be positive)
 */
ClusterPartition PartitionCluster(const ClusterTopology& topology,
                                  uint32_t processes,
                                  const std::string& policy);

/**
 * \return one line: processes, GPUs and nodes per process, links between processes and the
 *         lookahead
 */
std::string DescribePartition(const ClusterTopology& topology, const ClusterPartition& partition);

/**
 * Checks, after a fabric was installed on \p nodes (node i = topology node i), that every link
 * between nodes of different processes is a remote channel (a channel whose type name has
 * "Remote" in it: ns-3's PointToPointRemoteChannel, RdmaRemoteChannel), as a distributed
 * simulation needs. Every node is checked (every process builds the whole cluster), so every
 * process reaches the same verdict.
 * \param transport the transport model (for the message)
 * \throws std::invalid_argument naming the transport and a node when a link is missing: the
 *         fabric of that transport cannot run over several processes
 */
void CheckRemoteLinks(const ClusterTopology& topology,
                      const NodeContainer& nodes,
                      const ClusterPartition& partition,
                      const std::string& transport);

} // namespace ns3

#endif // CHAKRA_CLUSTER_PARTITION_H
