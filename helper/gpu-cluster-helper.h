/*
 * GpuClusterHelper: builds a GPU cluster network in ns-3 (hosts of GPUs, NVSwitch, NICs,
 * scale-out fabric) and returns the rank -> node mapping.
 */
#ifndef CHAKRA_GPU_CLUSTER_HELPER_H
#define CHAKRA_GPU_CLUSTER_HELPER_H

#include "ns3/cluster-fabric.h"
#include "ns3/cluster-partition.h"
#include "ns3/cluster-topology-builder.h"
#include "ns3/cluster-topology.h"
#include "ns3/collnet-schedule.h"
#include "ns3/data-rate.h"
#include "ns3/ipv4-address.h"
#include "ns3/net-device-container.h"
#include "ns3/node-container.h"
#include "ns3/nstime.h"
#include "ns3/nvls-schedule.h"
#include "ns3/object-factory.h"
#include "ns3/object.h"
#include "ns3/topology-builder.h"

#include <memory>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup chakra-helper
 * \brief Builds Hosts x GpusPerHost GPU nodes (one per rank, rank = host * GpusPerHost + gpu).
 *
 * - Inside a host (or a ScaleUpDomain of several hosts, NVL72 style), every GPU has a link
 *   (NvLinkBandwidth, NvLinkLatency) to the domain's NVSwitch node (none for one GPU).
 * - Every GPU has its own NIC link (NicBandwidth, NicLatency) to the scale-out fabric, a
 *   topology family chosen with SetTopology (or the Topology attribute's short name), each
 *   with its own parameters as attributes: ns3::SingleSwitchTopology, ns3::LeafSpineTopology,
 *   ns3::RingTopology, ns3::RailOptimizedTopology, ns3::RailOnlyTopology,
 *   ns3::FatTreeTopology, ns3::ClosTopology (ClusterTopologyBuilder).
 * - Or GPUs with direct links and no hosts: ns3::TorusTopology and ns3::MultiDimTopology
 *   (ASTRA-sim's Ring / FullyConnected / Switch dimensions).
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

    /**
     * Chooses the topology family and sets its parameters, as
     * WifiHelper::SetRemoteStationManager does: SetTopology("ns3::ClosTopology",
     * "LeavesPerPod", UintegerValue(4), "Spines", UintegerValue(2)). Parameters set for another
     * family before are dropped.
     * \param type a family's TypeId name (or its short name: "clos")
     * \param args attribute name and value pairs
     * \throws std::invalid_argument for an unknown family, or a parameter it does not have or
     *         a value it does not accept (naming it)
     */
    template <typename... Args>
    void SetTopology(const std::string& type, Args&&... args)
    {
        SetTopologyType(type);
        SetTopologyAttributes(std::forward<Args>(args)...);
    }

    /**
     * Sets a parameter of the chosen topology family.
     * \param name the attribute ("LeavesPerPod"), or its short name in any spelling
     *        ("leaves-per-pod", "fatTreeK": TopologyParameterNames)
     * \param value its value (a StringValue is read as a flag's text)
     * \throws std::invalid_argument if the family has no such attribute (listing its
     *         parameters) or the value is not valid for it
     */
    void SetTopologyAttribute(const std::string& name, const AttributeValue& value);

    /** \return the chosen topology family's TypeId */
    TypeId GetTopologyTypeId() const;

    /**
     * \param name an attribute or short name, as SetTopologyAttribute takes it
     * \return whether the chosen family has that parameter (a sweep sets a knob only where the
     *         family has it)
     */
    bool HasTopologyParameter(const std::string& name) const;

    /**
     * \return the topology family with its parameters: the TopologyFile's when one is set,
     *         else the one SetTopology chose
     * \throws std::invalid_argument for a bad topology file
     */
    Ptr<ClusterTopologyBuilder> CreateTopologyBuilder() const;

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
    /**
     * Checks the cluster as configured (its sizes within TopologyLimits, the family's
     * parameters) without building it: a program can refuse a bad size before it writes
     * traces for that many ranks.
     * \throws std::invalid_argument saying what is wrong
     */
    void Validate() const;
    /** \return a one-line description of the cluster */
    std::string Describe() const;
    /**
     * \return the topology's one-line summary with its bisection bandwidth and diameter
     *         (DescribeTopology); before Build, of a graph built from the attributes
     * \throws std::invalid_argument for attributes that describe no topology
     */
    std::string DescribeTopology() const;
    /**
     * \return what every topology family shares, as the attributes (and the TopologyFile)
     *         describe it
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
    /** \return whether the NVSwitch reduces (NVLS): the NvlsSupport attribute */
    NvlsSupport GetNvlsSupport() const;
    /** \return whether the network's switches reduce (SHARP): the SharpSupport attribute */
    SharpSupport GetSharpSupport() const;

  private:
    /** SetTopology's end of the pairs. */
    void SetTopologyAttributes()
    {
    }

    /** SetTopology's pairs, one by one. */
    template <typename... Args>
    void SetTopologyAttributes(const std::string& name, const AttributeValue& value, Args&&... args)
    {
        SetTopologyAttribute(name, value);
        SetTopologyAttributes(std::forward<Args>(args)...);
    }

    /** Chooses the family (by TypeId or short name) with its default parameters. */
    void SetTopologyType(const std::string& type);
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
    ObjectFactory m_topologyFactory; //!< the topology family and its parameters
    Time m_fabricLatency;
    std::string m_topologyFile;
    std::string m_topologyDot;
    uint32_t m_scaleUpDomain;
    uint32_t m_mtu;
    uint32_t m_nvLinkMtu;
    int m_nvlsSupport{0};  //!< an NvlsSupport (EnumValue holds an int)
    int m_sharpSupport{0}; //!< a SharpSupport
    std::string m_partitionPolicy;

    bool m_built{false};
    std::shared_ptr<ClusterTopology> m_graph; //!< built by Build
    Ptr<ClusterFabric> m_fabric;
    NodeContainer m_gpus;     //!< topology nodes 0 .. ranks-1
    NodeContainer m_switches; //!< the other topology nodes
    ClusterPartition m_partition;
};

/**
 * \ingroup chakra-helper
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
