/*
 * The pieces the topology families share (GPUs, NVLink domains, NIC links). Internal to
 * helper/topology: users pick a family through GpuClusterHelper::SetTopology
 * (cluster-topology-builder.h).
 */
#ifndef CHAKRA_TOPOLOGY_PARTS_H
#define CHAKRA_TOPOLOGY_PARTS_H

#include "topology-builder.h"

#include <functional>
#include <string>

namespace ns3
{
namespace topology
{

/** \return the GPUs of a host-based spec (hosts x gpusPerHost) */
uint32_t HostGpus(const TopologySpec& spec);

/**
 * \return the GPUs of one NVLink domain: scaleUpDomain, or gpusPerHost when it is 0
 * \throws std::invalid_argument if scaleUpDomain is not a multiple of gpusPerHost or does not
 *         divide the GPUs
 */
uint32_t DomainSize(const TopologySpec& spec);

/**
 * Adds the GPUs (group = NVLink domain) and one NVSwitch per domain of more than one GPU.
 * \return the index of the next node (the first fabric switch)
 */
uint32_t AddGpuNodes(const TopologySpec& spec, ClusterTopology& topology);

/**
 * Adds every GPU's links, rank by rank: its NVLink link to its domain's NVSwitch (domains of
 * more than one GPU), then its NIC link to \p edgeOf(rank).
 */
void AddGpuLinks(const TopologySpec& spec,
                 ClusterTopology& topology,
                 const std::function<uint32_t(uint32_t rank)>& edgeOf);

/** Adds a scale-out fabric link (FabricLatency, Mtu). */
void AddFabricLink(const TopologySpec& spec,
                   ClusterTopology& topology,
                   uint32_t a,
                   uint32_t b,
                   DataRate rate);

/** The shape of a three-tier fabric: leaves in pods with their spines, pods joined by cores. */
struct ThreeTier
{
    uint32_t leaves{1};
    uint32_t leavesPerPod{1};
    uint32_t spinesPerPod{1};
    uint32_t coresPerPlane{0}; //!< 0: no core tier (one pod)
    std::function<uint32_t(uint32_t rank)> leafOf;
    std::function<DataRate(uint32_t leaf)> leafUplink;                //!< each leaf-spine link
    std::function<DataRate(uint32_t pod, DataRate down)> spineUplink; //!< each spine-core link
    std::function<std::string(uint32_t leaf)> leafName;               //!< default: "leaf<index>"
};

/** \return the number of pods of a three-tier shape */
uint32_t Pods(const ThreeTier& shape);

/**
 * Builds a three-tier fabric: the GPUs and their links, the leaves, then per pod its spines
 * (every leaf of the pod to every spine of it), and spine j of every pod to the cores of
 * plane j (as in a k-ary fat-tree).
 */
void BuildThreeTier(const TopologySpec& spec, const ThreeTier& shape, ClusterTopology& topology);

/**
 * \return rate / divisor as a DataRate
 * \throws std::invalid_argument (naming \p what) if that is below 1 bit/s
 */
DataRate Share(double rate, double divisor, const std::string& what);

/** \return the text of a number without trailing zeros ("2", "1.5") */
std::string Number(double value);

} // namespace topology
} // namespace ns3

#endif // CHAKRA_TOPOLOGY_PARTS_H
