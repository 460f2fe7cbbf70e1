/*
 * GpuClusterHelper: builds a GPU cluster network in ns-3 (hosts of GPUs, NVSwitch, NICs,
 * scale-out fabric) and returns the rank -> node mapping.
 */
#ifndef CHAKRA_GPU_CLUSTER_HELPER_H
#define CHAKRA_GPU_CLUSTER_HELPER_H

#include "ns3/cluster-fabric.h"
#include "ns3/cluster-topology.h"
#include "ns3/data-rate.h"
#include "ns3/ipv4-address.h"
#include "ns3/net-device-container.h"
#include "ns3/node-container.h"
#include "ns3/nstime.h"
#include "ns3/object.h"

#include <memory>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup chakra
 * \brief Builds Hosts x GpusPerHost GPU nodes (one per rank, rank = host * GpusPerHost + gpu).
 *
 * - Inside a host, every GPU has a link (NvLinkBandwidth, NvLinkLatency) to the host's
 *   NVSwitch node (none when GpusPerHost is 1).
 * - Every GPU has its own NIC link (NicBandwidth, NicLatency) to the scale-out fabric:
 *   "single-switch": one switch for all NICs; "leaf-spine": HostsPerLeaf hosts per leaf, every
 *   leaf linked to each of Spines spines, uplinks sized so that downlink capacity / uplink
 *   capacity = Oversubscription, ECMP across spines; "ring": each host's NICs on a host
 *   switch, host switches in a ring (RingBandwidth links).
 * - NIC and fabric links use Mtu, NVLink links NvLinkMtu.
 * - Routes: least-cost paths (NVLink preferred inside a host), per-flow ECMP
 *   (ClusterTopology).
 *
 * Build() first makes the ClusterTopology graph of these attributes (helper/topology), then one
 * ns-3 node per graph node, then the fabric of the Transport model on them (ClusterFabric:
 * IpFabric for tcp). CreateTransport gives a rank the transport wired to that fabric.
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
    /** \return the transport model (Transport attribute) */
    std::string GetTransportModel() const;
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
    /** \return Hosts x GpusPerHost */
    uint32_t GetRankCount() const;
    /** \return a one-line description of the cluster */
    std::string Describe() const;

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
    std::string m_transport;
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
    uint32_t m_mtu;
    uint32_t m_nvLinkMtu;

    bool m_built{false};
    std::shared_ptr<ClusterTopology> m_graph; //!< built by Build
    Ptr<ClusterFabric> m_fabric;
    NodeContainer m_gpus;     //!< topology nodes 0 .. ranks-1
    NodeContainer m_switches; //!< the other topology nodes
};

} // namespace ns3

#endif // CHAKRA_GPU_CLUSTER_HELPER_H
