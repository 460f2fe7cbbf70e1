#include "gpu-cluster-helper.h"

#include "ns3/double.h"
#include "ns3/enum.h"
#include "ns3/mpi-context.h"
#include "ns3/string.h"
#include "ns3/topology-builder.h"
#include "ns3/topology-file.h"
#include "ns3/topology-summary.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <sstream>
#include <stdexcept>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(GpuClusterHelper);
NS_OBJECT_ENSURE_REGISTERED(GpuClusterRank);

TypeId
GpuClusterHelper::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::GpuClusterHelper")
            .SetParent<Object>()
            .SetGroupName("Chakra")
            .AddConstructor<GpuClusterHelper>()
            .AddAttribute("Transport",
                          "Transport model the cluster is built for (its fabric): rdma "
                          "(RoCEv2 with PFC, ECN and DCQCN devices), tcp (ns-3 TCP over IPv4), "
                          "flow (max-min fair flows), or auto: rdma up to AutoPacketLimit "
                          "GPUs, flow above (the report says which ran and why).",
                          EnumValue(CommTransport::RDMA),
                          MakeEnumAccessor(&GpuClusterHelper::m_transportRequested),
                          CommTransport::MakeModelChecker(true))
            .AddAttribute("AutoPacketLimit",
                          "Transport auto: the largest cluster (GPUs) simulated at packet level "
                          "(rdma); larger ones run on the flow model. The default keeps a "
                          "training step at packet level within about a minute on one core "
                          "(doc/benchmarks.md); a run of several MPI processes always takes "
                          "rdma (the flow model is one process).",
                          UintegerValue(128),
                          MakeUintegerAccessor(&GpuClusterHelper::m_autoPacketLimit),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("Hosts",
                          "Number of hosts.",
                          UintegerValue(2),
                          MakeUintegerAccessor(&GpuClusterHelper::m_hosts),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("GpusPerHost",
                          "GPUs (ranks) per host.",
                          UintegerValue(8),
                          MakeUintegerAccessor(&GpuClusterHelper::m_gpusPerHost),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("NvLinkBandwidth",
                          "Bandwidth of each GPU's link to its host's NVSwitch, per direction "
                          "(H100 NVLink4: 450 GB/s).",
                          DataRateValue(DataRate("3600Gbps")),
                          MakeDataRateAccessor(&GpuClusterHelper::m_nvLinkBandwidth),
                          MakeDataRateChecker())
            .AddAttribute("NvLinkLatency",
                          "Propagation delay of an NVLink link.",
                          TimeValue(NanoSeconds(250)),
                          MakeTimeAccessor(&GpuClusterHelper::m_nvLinkLatency),
                          MakeTimeChecker())
            .AddAttribute("NicBandwidth",
                          "Bandwidth of each GPU's NIC link.",
                          DataRateValue(DataRate("400Gbps")),
                          MakeDataRateAccessor(&GpuClusterHelper::m_nicBandwidth),
                          MakeDataRateChecker())
            .AddAttribute("NicLatency",
                          "Propagation delay of a NIC link.",
                          TimeValue(NanoSeconds(500)),
                          MakeTimeAccessor(&GpuClusterHelper::m_nicLatency),
                          MakeTimeChecker())
            .AddAttribute("Topology",
                          "The fabric: single-switch, leaf-spine, ring, rail-optimized, "
                          "rail-only (rail-optimized without spines), fat-tree, clos "
                          "(host-based), torus, multi-dim (GPUs with direct links).",
                          EnumValue(0),
                          MakeEnumAccessor(&GpuClusterHelper::SetTopologyKind,
                                           &GpuClusterHelper::GetTopologyKind),
                          MakeTopologyKindChecker())
            .AddAttribute("HostsPerLeaf",
                          "leaf-spine, clos: hosts whose NICs share a leaf switch.",
                          UintegerValue(1),
                          MakeUintegerAccessor(&GpuClusterHelper::m_hostsPerLeaf),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("Spines",
                          "leaf-spine: spine switches; clos: spines per pod; rail-optimized: "
                          "spines joining the rails (0: rail-only).",
                          UintegerValue(2),
                          MakeUintegerAccessor(&GpuClusterHelper::m_spines),
                          MakeUintegerChecker<uint32_t>(0))
            .AddAttribute("Oversubscription",
                          "The first switch tier above the NICs (leaf, rail switch, fat-tree "
                          "edge): its downlink capacity over its uplink capacity (1: "
                          "non-blocking).",
                          DoubleValue(1.0),
                          MakeDoubleAccessor(&GpuClusterHelper::m_oversubscription),
                          MakeDoubleChecker<double>(0.01))
            .AddAttribute("RingBandwidth",
                          "ring: bandwidth of each link between neighbouring hosts' switches "
                          "(0: GpusPerHost x NicBandwidth).",
                          DataRateValue(DataRate(0)),
                          MakeDataRateAccessor(&GpuClusterHelper::m_ringBandwidth),
                          MakeDataRateChecker())
            .AddAttribute("ScaleUpDomain",
                          "GPUs per NVLink domain (one NVSwitch for all of them, NVL72 style): "
                          "a multiple of GpusPerHost; 0: one domain per host.",
                          UintegerValue(0),
                          MakeUintegerAccessor(&GpuClusterHelper::m_scaleUpDomain),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("HostsPerRailGroup",
                          "rail-optimized: hosts of one rail group (GPU i of each on rail "
                          "switch i of the group); 0: all hosts in one group.",
                          UintegerValue(0),
                          MakeUintegerAccessor(&GpuClusterHelper::m_hostsPerRailGroup),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("LeavesPerPod",
                          "clos: leaves of a pod (each linked to every spine of its pod).",
                          UintegerValue(2),
                          MakeUintegerAccessor(&GpuClusterHelper::m_leavesPerPod),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("CoreSwitches",
                          "clos: core switches, a multiple of Spines (spine j of every pod "
                          "links to the cores of plane j); 0: one per plane.",
                          UintegerValue(0),
                          MakeUintegerAccessor(&GpuClusterHelper::m_coreSwitches),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("CoreOversubscription",
                          "clos, fat-tree: the spine (aggregation) tier's downlink capacity "
                          "over its uplink capacity to the cores (1: non-blocking).",
                          DoubleValue(1.0),
                          MakeDoubleAccessor(&GpuClusterHelper::m_coreOversubscription),
                          MakeDoubleChecker<double>(0.01))
            .AddAttribute("FatTreeK",
                          "fat-tree: switch radix k (even; k^3/4 NIC ports); 0: the smallest "
                          "that holds every GPU.",
                          UintegerValue(0),
                          MakeUintegerAccessor(&GpuClusterHelper::m_fatTreeK),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("TorusDims",
                          "torus: GPUs along each dimension, e.g. 4x4x4.",
                          StringValue(""),
                          MakeStringAccessor(&GpuClusterHelper::m_torusDims),
                          MakeStringChecker())
            .AddAttribute("TorusBandwidth",
                          "torus: bandwidth of each link, per direction (0: NicBandwidth).",
                          DataRateValue(DataRate(0)),
                          MakeDataRateAccessor(&GpuClusterHelper::m_torusBandwidth),
                          MakeDataRateChecker())
            .AddAttribute("Dimensions",
                          "multi-dim: Shape:size:bandwidth:latency per dimension, dimension 0 "
                          "first, e.g. Ring:8:3600Gbps:250ns,Switch:4:400Gbps:500ns (shapes "
                          "Ring, FullyConnected, Switch, as ASTRA-sim's).",
                          StringValue(""),
                          MakeStringAccessor(&GpuClusterHelper::m_dimensions),
                          MakeStringChecker())
            .AddAttribute("TopologyFile",
                          "A YAML or JSON topology file (this module's format, or ASTRA-sim's "
                          "analytical network.yml); what it sets overrides the attributes.",
                          StringValue(""),
                          MakeStringAccessor(&GpuClusterHelper::m_topologyFile),
                          MakeStringChecker())
            .AddAttribute("TopologyDot",
                          "Write the topology as a Graphviz file here on Build (\"\": no).",
                          StringValue(""),
                          MakeStringAccessor(&GpuClusterHelper::m_topologyDot),
                          MakeStringChecker())
            .AddAttribute("FabricLatency",
                          "Propagation delay of switch-to-switch links.",
                          TimeValue(NanoSeconds(500)),
                          MakeTimeAccessor(&GpuClusterHelper::m_fabricLatency),
                          MakeTimeChecker())
            .AddAttribute("Mtu",
                          "MTU of NIC and fabric links (bytes); 9000 = jumbo frames.",
                          UintegerValue(9000),
                          MakeUintegerAccessor(&GpuClusterHelper::m_mtu),
                          MakeUintegerChecker<uint32_t>(576, 65535))
            .AddAttribute("NvLinkMtu",
                          "Packet size of NVLink links (bytes). NVLink is not a packet network; "
                          "large packets keep the simulation fast, and their only cost is "
                          "store-and-forward at the NVSwitch (65000 B at 3.6 Tbps: 144 ns).",
                          UintegerValue(65000),
                          MakeUintegerAccessor(&GpuClusterHelper::m_nvLinkMtu),
                          MakeUintegerChecker<uint32_t>(576, 65535))
            .AddAttribute("Partition",
                          "Distributed (MPI) runs: which process runs each host (a host, its "
                          "NVSwitch and NICs stay together; switches follow their hosts or are "
                          "spread): hosts (contiguous blocks), round-robin, or a list with the "
                          "process of each host (scale-up domain), e.g. 0,0,1,1.",
                          StringValue("hosts"),
                          MakeStringAccessor(&GpuClusterHelper::m_partitionPolicy),
                          MakeStringChecker());
    return tid;
}

GpuClusterHelper::GpuClusterHelper() = default;

void
GpuClusterHelper::Build()
{
    if (m_built)
    {
        throw std::logic_error("GpuClusterHelper::Build called twice");
    }
    // The values came from a topology file: an error is the file's and names it (a value the
    // file checks alone may still make a cluster no builder or switch can make).
    const std::string from = m_topologyFile.empty() ? "" : m_topologyFile + ": ";
    try
    {
        m_graph = BuildTopology(GetTopologySpec());
    }
    catch (const std::invalid_argument& e)
    {
        const std::string what = e.what();
        throw std::invalid_argument(what.compare(0, from.size(), from) == 0 ? what : from + what);
    }
    if (!m_topologyDot.empty())
    {
        WriteTopologyDot(*m_graph, m_topologyDot);
    }
    const uint32_t ranks = m_graph->GetRankCount();
    ChooseTransport(ranks);
    m_fabric = ClusterFabric::ForTransport(m_transport);
    m_built = true;

    const auto nodes = static_cast<uint32_t>(m_graph->GetNodes().size());
    // One process: everything on 0. Several (MPI): each node is created with the system id of
    // its process, and the fabric's links between processes become remote channels.
    const uint32_t processes = MpiContext::GetProcessCount();
    try
    {
        m_partition = PartitionCluster(*m_graph, processes, m_partitionPolicy);
    }
    catch (const std::invalid_argument& e)
    {
        throw std::invalid_argument(std::string("ns3::GpuClusterHelper::Partition: ") + e.what());
    }
    for (uint32_t v = 0; v < nodes; ++v)
    {
        (v < ranks ? m_gpus : m_switches).Create(1, m_partition.processOf[v]);
    }
    NodeContainer all(m_gpus, m_switches);
    try
    {
        m_fabric->Install(m_graph, all);
    }
    catch (const std::invalid_argument& e)
    {
        throw std::invalid_argument(from + e.what());
    }
    for (uint32_t rank = 0; rank < ranks; ++rank)
    {
        m_gpus.Get(rank)->AggregateObject(CreateObject<GpuClusterRank>(rank, this));
    }
    if (processes > 1)
    {
        CheckRemoteLinks(*m_graph, all, m_partition, m_transport);
    }
}

const ClusterPartition&
GpuClusterHelper::GetPartition() const
{
    return m_partition;
}

TopologySpec
GpuClusterHelper::GetTopologySpec() const
{
    TopologySpec spec;
    spec.kind = m_topology;
    spec.hosts = m_hosts;
    spec.gpusPerHost = m_gpusPerHost;
    spec.nvLinkBandwidth = m_nvLinkBandwidth;
    spec.nvLinkLatency = m_nvLinkLatency;
    spec.nvLinkMtu = m_nvLinkMtu;
    spec.nicBandwidth = m_nicBandwidth;
    spec.nicLatency = m_nicLatency;
    spec.mtu = m_mtu;
    spec.hostsPerLeaf = m_hostsPerLeaf;
    spec.spines = m_spines;
    spec.oversubscription = m_oversubscription;
    spec.ringBandwidth = m_ringBandwidth;
    spec.fabricLatency = m_fabricLatency;
    spec.scaleUpDomain = m_scaleUpDomain;
    spec.hostsPerRailGroup = m_hostsPerRailGroup;
    spec.leavesPerPod = m_leavesPerPod;
    spec.coreSwitches = m_coreSwitches;
    spec.coreOversubscription = m_coreOversubscription;
    spec.fatTreeK = m_fatTreeK;
    spec.torusBandwidth = m_torusBandwidth;
    if (!m_torusDims.empty())
    {
        spec.torusDims = ParseTorusDims(m_torusDims);
    }
    if (!m_dimensions.empty())
    {
        spec.dimensions = ParseDimensions(m_dimensions);
    }
    if (!m_topologyFile.empty())
    {
        spec = ReadTopologyFile(m_topologyFile, spec).spec;
    }
    return spec;
}

std::string
GpuClusterHelper::DescribeTopology() const
{
    if (m_graph)
    {
        return ns3::DescribeTopology(*m_graph);
    }
    return ns3::DescribeTopology(*BuildTopology(GetTopologySpec()));
}

std::shared_ptr<const ClusterTopology>
GpuClusterHelper::GetTopology() const
{
    return m_graph;
}

Ptr<ClusterFabric>
GpuClusterHelper::GetFabric() const
{
    return m_fabric;
}

std::string
GpuClusterHelper::GetTransportModel() const
{
    return m_transport.empty() ? CommTransport::GetModelName(m_transportRequested) : m_transport;
}

void
GpuClusterHelper::SetTopologyKind(int index)
{
    m_topology = TopologyKindNames().at(static_cast<std::size_t>(index));
}

int
GpuClusterHelper::GetTopologyKind() const
{
    const auto names = TopologyKindNames();
    return static_cast<int>(std::find(names.begin(), names.end(), m_topology) - names.begin());
}

std::string
GpuClusterHelper::GetTransportChoice() const
{
    return m_transportChoice;
}

void
GpuClusterHelper::ChooseTransport(uint32_t ranks)
{
    if (m_transportRequested != CommTransport::AUTO)
    {
        m_transport = CommTransport::GetModelName(m_transportRequested);
        return;
    }
    const std::string size = std::to_string(ranks) + " GPUs";
    const std::string limit = "AutoPacketLimit " + std::to_string(m_autoPacketLimit);
    if (MpiContext::GetProcessCount() > 1)
    {
        m_transport = "rdma";
        m_transportChoice = "auto: " + std::to_string(MpiContext::GetProcessCount()) +
                            " MPI processes; the flow model runs in one";
    }
    else if (ranks <= m_autoPacketLimit)
    {
        m_transport = "rdma";
        m_transportChoice = "auto: " + size + " <= " + limit;
    }
    else
    {
        m_transport = "flow";
        m_transportChoice = "auto: " + size + " > " + limit;
    }
}

Ptr<CommTransport>
GpuClusterHelper::CreateTransport(uint32_t rank) const
{
    if (!m_fabric)
    {
        throw std::logic_error("GpuClusterHelper::CreateTransport before Build");
    }
    return m_fabric->CreateTransport(rank);
}

NodeContainer
GpuClusterHelper::GetRankNodes() const
{
    return m_gpus;
}

std::vector<Ipv4Address>
GpuClusterHelper::GetRankAddresses() const
{
    return m_fabric ? m_fabric->GetRankAddresses() : std::vector<Ipv4Address>();
}

std::vector<uint32_t>
GpuClusterHelper::GetHostOf() const
{
    if (m_graph)
    {
        return m_graph->GetHostOf();
    }
    std::vector<uint32_t> hostOf;
    for (uint32_t rank = 0; rank < m_hosts * m_gpusPerHost; ++rank)
    {
        hostOf.push_back(rank / m_gpusPerHost);
    }
    return hostOf;
}

NodeContainer
GpuClusterHelper::GetSwitchNodes() const
{
    return m_switches;
}

uint32_t
GpuClusterHelper::GetRankCount() const
{
    if (m_graph)
    {
        return m_graph->GetRankCount();
    }
    const TopologySpec spec = GetTopologySpec();
    const uint32_t fixed = FixedRankCount(spec);
    return fixed > 0 ? fixed : spec.hosts * spec.gpusPerHost;
}

std::string
GpuClusterHelper::Describe() const
{
    const TopologySpec spec = GetTopologySpec();
    std::ostringstream text;
    if (FixedRankCount(spec) > 0)
    {
        text << FixedRankCount(spec) << " GPUs, " << spec.kind << " ";
        if (spec.kind == "torus")
        {
            for (std::size_t d = 0; d < spec.torusDims.size(); ++d)
            {
                text << (d > 0 ? "x" : "") << spec.torusDims[d];
            }
            const DataRate rate =
                spec.torusBandwidth.GetBitRate() > 0 ? spec.torusBandwidth : spec.nicBandwidth;
            text << ", links " << rate.GetBitRate() / 1e9 << " Gbps / "
                 << spec.nicLatency.GetNanoSeconds() << " ns";
        }
        else
        {
            text << FormatDimensions(spec.dimensions);
        }
        text << ", MTU " << spec.mtu;
        if (!m_topologyFile.empty())
        {
            text << " (from " << m_topologyFile << ")";
        }
        return text.str();
    }
    text << spec.hosts << " host(s) x " << spec.gpusPerHost << " GPU(s)";
    if (spec.gpusPerHost > 1 || spec.scaleUpDomain > 1)
    {
        text << ", NVLink " << spec.nvLinkBandwidth.GetBitRate() / 1e9 << " Gbps / "
             << spec.nvLinkLatency.GetNanoSeconds() << " ns via NVSwitch";
        if (spec.scaleUpDomain > 0)
        {
            text << " (" << spec.scaleUpDomain << "-GPU NVLink domains)";
        }
    }
    text << ", NIC " << spec.nicBandwidth.GetBitRate() / 1e9 << " Gbps / "
         << spec.nicLatency.GetNanoSeconds() << " ns, " << spec.kind;
    if (spec.kind == "leaf-spine")
    {
        text << " (" << (spec.hosts + spec.hostsPerLeaf - 1) / spec.hostsPerLeaf << " leaves, "
             << spec.spines << " spines, oversubscription " << spec.oversubscription << ":1)";
    }
    text << ", MTU " << spec.mtu;
    if (spec.gpusPerHost > 1)
    {
        text << " (NVLink " << spec.nvLinkMtu << ")";
    }
    if (!m_topologyFile.empty())
    {
        text << " (from " << m_topologyFile << ")";
    }
    return text.str();
}

DataRate
GpuClusterHelper::GetNicBandwidth() const
{
    return m_nicBandwidth;
}

Time
GpuClusterHelper::GetNicLatency() const
{
    return m_nicLatency;
}

DataRate
GpuClusterHelper::GetNvLinkBandwidth() const
{
    return m_nvLinkBandwidth;
}

Time
GpuClusterHelper::GetNvLinkLatency() const
{
    return m_nvLinkLatency;
}

uint32_t
GpuClusterHelper::GetMtu() const
{
    return m_mtu;
}

uint32_t
GpuClusterHelper::GetNvLinkMtu() const
{
    return m_nvLinkMtu;
}

TypeId
GpuClusterRank::GetTypeId()
{
    static TypeId tid = TypeId("ns3::GpuClusterRank").SetParent<Object>().SetGroupName("Chakra");
    return tid;
}

GpuClusterRank::GpuClusterRank() = default;

GpuClusterRank::GpuClusterRank(uint32_t rank, Ptr<const GpuClusterHelper> cluster)
    : m_rank(rank),
      m_cluster(cluster)
{
}

uint32_t
GpuClusterRank::GetRank() const
{
    return m_rank;
}

Ptr<const GpuClusterHelper>
GpuClusterRank::GetCluster() const
{
    return m_cluster;
}

void
GpuClusterRank::DoDispose()
{
    m_cluster = nullptr;
    Object::DoDispose();
}

} // namespace ns3
