/*
 * Topology builders: the parameters of a cluster (hosts, GPUs, links, fabric shape) -> its
 * ClusterTopology graph. GpuClusterHelper turns its attributes into a TopologySpec and builds
 * the graph here, then a fabric (one per transport family) builds the ns-3 network on it.
 */
#ifndef CHAKRA_TOPOLOGY_BUILDER_H
#define CHAKRA_TOPOLOGY_BUILDER_H

#include "ns3/cluster-topology.h"
#include "ns3/data-rate.h"
#include "ns3/nstime.h"

#include <memory>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup chakra
 * \brief What a topology is made of (GpuClusterHelper's attributes; see there).
 */
struct TopologySpec
{
    std::string kind{"single-switch"}; //!< single-switch, leaf-spine, ring
    uint32_t hosts{2};
    uint32_t gpusPerHost{8};
    DataRate nvLinkBandwidth{"3600Gbps"};
    Time nvLinkLatency{NanoSeconds(250)};
    uint32_t nvLinkMtu{65000};
    DataRate nicBandwidth{"400Gbps"};
    Time nicLatency{NanoSeconds(500)};
    uint32_t mtu{9000};
    uint32_t hostsPerLeaf{1};
    uint32_t spines{2};
    double oversubscription{1.0};
    DataRate ringBandwidth{0};  //!< 0: gpusPerHost x nicBandwidth
    Time fabricLatency{NanoSeconds(500)};
};

/**
 * Builds the graph of a cluster: GPUs (rank = host x gpusPerHost + gpu), one NVSwitch per host
 * with more than one GPU, and the fabric \p spec names.
 * \param spec the cluster
 * \return the topology
 * \throws std::invalid_argument for an unknown kind or parameters it cannot build
 */
std::shared_ptr<ClusterTopology> BuildTopology(const TopologySpec& spec);

/** \return the topology kinds BuildTopology knows, comma separated */
std::string ListTopologyKinds();

} // namespace ns3

#endif // CHAKRA_TOPOLOGY_BUILDER_H
