/*
 * GpuClusterHelper: builds a GPU cluster network in ns-3 (hosts of GPUs, NVSwitch, NICs,
 * scale-out fabric) and returns the rank -> node mapping.
 */
#ifndef CHAKRA_GPU_CLUSTER_HELPER_H
#define CHAKRA_GPU_CLUSTER_HELPER_H

#include "ns3/cluster-fabric.h"
#include "ns3/cluster-partition.h"
#include "ns3/cluster-topology.h"
#include "ns3/data-rate.h"
#include "ns3/ipv4-address.h"
#include "ns3/net-device-container.h"
#include "ns3/node-container.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/topology-builder.h"

#include <memory>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup chakra
 * \brief Builds Hosts x GpusPerHost GPU nodes (one per rank, rank = host * GpusPerHost + gpu).
 *
 * - Inside a host (or a ScaleUpDomain of several hosts, NVL72 style), every GPU has a link
 *   (NvLinkBandwidth, NvLinkLatency) to the domain's NVSwitch node (none for one GPU).
 * - Every GPU has its own NIC link (NicBandwidth, NicLatency) to the scale-out fabric
 *   (Topology): "single-switch"; "leaf-spine" (HostsPerLeaf, Spines, Oversubscription);
 *   "ring" of host switches (RingBandwidth); "rail-optimized" (GPU i of the HostsPerRailGroup
 *   hosts of a group on rail switch i, rails joined by Spines, or rail-only with Spines = 0);
 *   "fat-tree" (k-ary, FatTreeK); "clos" (leaf-spine-core: HostsPerLeaf, LeavesPerPod, Spines
 *   per pod, CoreSwitches), oversubscription per tier (Oversubscription,
 *   CoreOversubscription).
 * - Or GPUs with direct links and no hosts: "torus" (TorusDims, TorusBandwidth) and
 *   "multi-dim" (Dimensions: ASTRA-sim's Ring / FullyConnected / Switch dimensions).
 * - TopologyFile: a YAML or JSON file with all of this (ours, or ASTRA-sim's network.yml).
 * - NIC and fabric links use Mtu, NVLink links NvLinkMtu.
 * - Routes: least-cost paths (NVLink preferred inside a domain), per-flow ECMP, or the
 *   topology's own rule (dimension order, rail-only PXN) (ClusterTopology).
 *
 * Build() first makes the ClusterTopology graph of these attributes (helper/topology), then one
 * ns-3 node per graph node, then the fabric of the Transport model on them (ClusterFabric:
 * IpFabric for tcp). CreateTransport gives a rank the transport wired to that fabric.
 *
 * In a distributed (MPI) run, every process builds the whole cluster and each node belongs to
 * one process (its system id): Partition chooses how (see ClusterPartition: a host with its
 * NVSwitch and NICs on one process, switches spread); links between processes are remote
 * channels, and a fabric that cannot make them is an error.
 */
class GpuClusterHelper : public Object
{
  public:
    /** \return the TypeId */
    static TypeId GetTypeId();
    GpuClusterHelper();

    /**
     * Creates the topology, the nodes and the fabric. Call once.
     * \throws std::invalid_argument for parameters that describe no cluster
     */
    void Build();

    /** \return the graph (after Build) */
    std::shared_ptr<const ClusterTopology> GetTopology() const;
    /** \return the fabric (after Build) */
    Ptr<ClusterFabric> GetFabric() const;
    /** \return the transport model (Transport attribute; after Build, what "auto" chose) */
    std::string GetTransportModel() const;
    /** \return how Transport "auto" chose the model ("" if the model was named) */
    std::string GetTransportChoice() const;
    /** \return rank \p rank's transport, wired to the fabric (after Build) */
    Ptr<CommTransport> CreateTransport(uint32_t rank) const;

    /** \return the GPU nodes; rank r is Get(r) */
    NodeContainer GetRankNodes() const;
    /** \return each rank's address (its NIC) */
    std::vector<Ipv4Address> GetRankAddresses() const;
    /** \return each rank's host index */
    std::vector<uint32_t> GetHostOf() const;
    /** \return the NVSwitch and fabric switch nodes */
    NodeContainer GetSwitchNodes() const;
    /** \return the number of GPUs: Hosts x GpusPerHost, or what the topology has */
    uint32_t GetRankCount() const;
    /** \return a one-line description of the cluster */
    std::string Describe() const;
    /**
     * \return the topology's one-line summary with its bisection bandwidth and diameter
     *         (DescribeTopology); before Build, of a graph built from the attributes
     * \throws std::invalid_argument for attributes that describe no topology
     */
    std::string DescribeTopology() const;
    /**
     * \return the topology the attributes (and the TopologyFile) describe
     * \throws std::invalid_argument for a bad file or attribute text
     */
    TopologySpec GetTopologySpec() const;

    /** \return which process runs each node (after Build; all on 0 without MPI) */
    const ClusterPartition& GetPartition() const;

    /** \return NIC link bandwidth */
    DataRate GetNicBandwidth() const;
    /** \return NIC link latency */
    Time GetNicLatency() const;
    /** \return NVLink bandwidth */
    DataRate GetNvLinkBandwidth() const;
    /** \return NVLink latency */
    Time GetNvLinkLatency() const;
    /** \return the MTU of NIC and fabric links */
    uint32_t GetMtu() const;
    /** \return the packet size of NVLink links */
    uint32_t GetNvLinkMtu() const;

  private:
    /** Resolves Transport "auto" for a cluster of \p ranks GPUs (see the attribute). */
    void ChooseTransport(uint32_t ranks);
    /** The Topology attribute: \p index in TopologyKindNames(). */
    void SetTopologyKind(int index);
    /** \return the Topology attribute's index in TopologyKindNames() */
    int GetTopologyKind() const;

    CommTransport::Model m_transportRequested; //!< Transport (may be auto)
    std::string m_transport;                   //!< the model that runs (Build resolves auto)
    std::string m_transportChoice;             //!< why "auto" chose m_transport
    uint32_t m_autoPacketLimit;
    uint32_t m_hosts;
    uint32_t m_gpusPerHost;
    DataRate m_nvLinkBandwidth;
    Time m_nvLinkLatency;
    DataRate m_nicBandwidth;
    Time m_nicLatency;
    std::string m_topology;
    uint32_t m_hostsPerLeaf;
    uint32_t m_spines;
    double m_oversubscription;
    DataRate m_ringBandwidth;
    Time m_fabricLatency;
    std::string m_topologyFile;
    std::string m_topologyDot;
    uint32_t m_scaleUpDomain;
    uint32_t m_hostsPerRailGroup;
    uint32_t m_leavesPerPod;
    uint32_t m_coreSwitches;
    double m_coreOversubscription;
    uint32_t m_fatTreeK;
    std::string m_torusDims;
    DataRate m_torusBandwidth;
    std::string m_dimensions;
    uint32_t m_mtu;
    uint32_t m_nvLinkMtu;
    std::string m_partitionPolicy;

    bool m_built{false};
    std::shared_ptr<ClusterTopology> m_graph; //!< built by Build
    Ptr<ClusterFabric> m_fabric;
    NodeContainer m_gpus;     //!< topology nodes 0 .. ranks-1
    NodeContainer m_switches; //!< the other topology nodes
    ClusterPartition m_partition;
};

/**
 * \ingroup chakra
 * \brief Aggregated to every GPU node a GpuClusterHelper builds: the node's rank and its
 * cluster, so that ChakraHelper::Install(cluster->GetRankNodes()) wires each rank to the
 * cluster's fabric without being told.
 */
class GpuClusterRank : public Object
{
  public:
    /** \return the TypeId */
    static TypeId GetTypeId();
    /**
     * \param rank the node's rank
     * \param cluster the cluster that built it
     */
    GpuClusterRank(uint32_t rank, Ptr<const GpuClusterHelper> cluster);
    GpuClusterRank();

    /** \return the node's rank */
    uint32_t GetRank() const;
    /** \return the cluster that built the node (nullptr once disposed) */
    Ptr<const GpuClusterHelper> GetCluster() const;

  protected:
    /** Drops the cluster: it holds the node (a cycle Simulator::Destroy must break). */
    void DoDispose() override;

  private:
    uint32_t m_rank{0};
    Ptr<const GpuClusterHelper> m_cluster;
};

} // namespace ns3

#endif // CHAKRA_GPU_CLUSTER_HELPER_H
