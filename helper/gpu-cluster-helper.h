/*
 * GpuClusterHelper: builds a GPU cluster network in ns-3 (hosts of GPUs, NVSwitch, NICs,
 * scale-out fabric) and returns the rank -> node mapping.
 */
#ifndef CHAKRA_GPU_CLUSTER_HELPER_H
#define CHAKRA_GPU_CLUSTER_HELPER_H

#include "ns3/data-rate.h"
#include "ns3/ipv4-address.h"
#include "ns3/net-device-container.h"
#include "ns3/node-container.h"
#include "ns3/nstime.h"
#include "ns3/object.h"

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
 * - Switches are IPv4 routers (point-to-point links have no L2 bridging in ns-3) with
 *   ClusterRouting: shortest paths, NVLink preferred inside a host, per-flow ECMP.
 * - Every device queue is a tail-drop AckPriorityQueue of QueueSize (large by default: the
 *   fabric is modeled lossless, as RoCE with PFC is; ACKs go ahead of data), no queue
 *   discipline. NIC and fabric links use Mtu,
 *   NVLink links NvLinkMtu.
 */
class GpuClusterHelper : public Object
{
  public:
    /** \return the TypeId */
    static TypeId GetTypeId();
    GpuClusterHelper();

    /** Creates the nodes, links, stacks, addresses and routes. Call once. */
    void Build();

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
    /** Computes shortest paths and fills every node's ClusterRouting table. */
    void InstallRoutes();

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
    std::string m_queueSize;

    bool m_built{false};
    NodeContainer m_gpus;
    NodeContainer m_switches;
    std::vector<Ipv4Address> m_rankAddresses;
    std::vector<bool> m_isGpu; //!< by node id offset in m_all
    NodeContainer m_all;       //!< GPUs then switches

    /** A link between two nodes of m_all, for route computation. */
    struct Link
    {
        uint32_t a, b;             //!< node indices in m_all
        uint32_t aInterface, bInterface;
        Ipv4Address aAddress, bAddress;
        uint32_t weight;           //!< routing cost (NVLink 1, fabric 10)
    };
    std::vector<Link> m_links;
};

} // namespace ns3

#endif // CHAKRA_GPU_CLUSTER_HELPER_H
