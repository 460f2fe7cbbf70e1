#include "gpu-cluster-helper.h"

#include "ns3/attribute-text.h"
#include "ns3/double.h"
#include "ns3/enum.h"
#include "ns3/log.h"
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

NS_LOG_COMPONENT_DEFINE("GpuClusterHelper");
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
                          "The topology family by its short name (" + ListTopologyKinds() +
                              "); SetTopology takes any ClusterTopologyBuilder by TypeId, with "
                              "its parameters. Choosing one drops the parameters set for "
                              "another.",
                          EnumValue(0),
                          MakeEnumAccessor(&GpuClusterHelper::SetTopologyKind,
                                           &GpuClusterHelper::GetTopologyKind),
                          MakeTopologyKindChecker())
            .AddAttribute("ScaleUpDomain",
                          "GPUs per NVLink domain (one NVSwitch for all of them, NVL72 style): "
                          "a multiple of GpusPerHost; 0: one domain per host.",
                          UintegerValue(0),
                          MakeUintegerAccessor(&GpuClusterHelper::m_scaleUpDomain),
                          MakeUintegerChecker<uint32_t>())
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
            .AddAttribute("NvlsSupport",
                          "Whether the NVSwitch reduces (NVLink SHARP: NCCL's NVLS): auto by "
                          "the GPU generation (Hopper and later: DGX/HGX H100, H200, B200, "
                          "GB200; not Ampere, Volta), on, off (no NVSwitch that reduces). Passed "
                          "to the NCCL model (ns3::NcclCollective::Nvls) in a ClusterScenario "
                          "run.",
                          EnumValue(static_cast<int>(NvlsSupport::AUTO)),
                          MakeEnumAccessor(&GpuClusterHelper::m_nvlsSupport),
                          MakeNvlsSupportChecker())
            .AddAttribute("SharpSupport",
                          "Whether the network's switches reduce (SHARP: NCCL's CollNet, with "
                          "NCCL_COLLNET_ENABLE=1 and a SHARP plugin): off (NCCL's default), on. "
                          "Passed to the NCCL model (ns3::NcclCollective::Sharp) in a "
                          "ClusterScenario run; the network itself still only forwards (the "
                          "NCCL model puts SHARP's loads on the NICs).",
                          EnumValue(static_cast<int>(SharpSupport::OFF)),
                          MakeEnumAccessor(&GpuClusterHelper::m_sharpSupport),
                          MakeSharpSupportChecker())
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
        m_graph = CreateTopologyBuilder()->Build(GetTopologySpec());
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
    spec.hosts = m_hosts;
    spec.gpusPerHost = m_gpusPerHost;
    spec.nvLinkBandwidth = m_nvLinkBandwidth;
    spec.nvLinkLatency = m_nvLinkLatency;
    spec.nvLinkMtu = m_nvLinkMtu;
    spec.nicBandwidth = m_nicBandwidth;
    spec.nicLatency = m_nicLatency;
    spec.mtu = m_mtu;
    spec.fabricLatency = m_fabricLatency;
    spec.scaleUpDomain = m_scaleUpDomain;
    if (!m_topologyFile.empty())
    {
        spec = ReadTopologyFile(m_topologyFile, spec).spec;
    }
    return spec;
}

void
GpuClusterHelper::SetTopologyType(const std::string& type)
{
    NS_LOG_FUNCTION(this << type);
    m_topologyFactory = ObjectFactory();
    m_topologyFactory.SetTypeId(TopologyTypeIdOf(type));
}

void
GpuClusterHelper::SetTopologyAttribute(const std::string& name, const AttributeValue& value)
{
    NS_LOG_FUNCTION(this << name);
    const TypeId tid = m_topologyFactory.GetTypeId();
    const std::string attribute = FindTopologyParameter(tid, name);
    if (attribute.empty())
    {
        throw std::invalid_argument("the " +
                                    m_topologyFactory.Create<ClusterTopologyBuilder>()->GetKind() +
                                    " topology has no parameter '" + name + "' (it takes " +
                                    ListTopologyParameters(tid) + ")");
    }
    m_topologyFactory.Set(attribute, *CheckAttributeValue(tid, attribute, value));
}

TypeId
GpuClusterHelper::GetTopologyTypeId() const
{
    return m_topologyFactory.GetTypeId();
}

bool
GpuClusterHelper::HasTopologyParameter(const std::string& name) const
{
    return !FindTopologyParameter(GetTopologyTypeId(), name).empty();
}

Ptr<ClusterTopologyBuilder>
GpuClusterHelper::CreateTopologyBuilder() const
{
    if (m_topologyFile.empty())
    {
        return m_topologyFactory.Create<ClusterTopologyBuilder>();
    }
    // The file's family, with the file's parameters over those set here for the same family.
    return ReadTopologyFile(m_topologyFile, GetTopologySpec()).CreateTopology(m_topologyFactory);
}

std::string
GpuClusterHelper::DescribeTopology() const
{
    if (m_graph)
    {
        return ns3::DescribeTopology(*m_graph);
    }
    return ns3::DescribeTopology(*CreateTopologyBuilder()->Build(GetTopologySpec()));
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
    SetTopologyType(TopologyKindNames().at(static_cast<std::size_t>(index)));
}

int
GpuClusterHelper::GetTopologyKind() const
{
    const auto names = TopologyKindNames();
    for (std::size_t i = 0; i < names.size(); ++i)
    {
        if (TopologyTypeIdOf(names[i]) == m_topologyFactory.GetTypeId())
        {
            return static_cast<int>(i);
        }
    }
    return -1; // a family without a short name (SetTopology with its TypeId)
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
    const uint32_t fixed = CreateTopologyBuilder()->GetFixedRankCount();
    return fixed > 0 ? fixed : spec.hosts * spec.gpusPerHost;
}

void
GpuClusterHelper::Validate() const
{
    CreateTopologyBuilder()->Validate(GetTopologySpec());
}

std::string
GpuClusterHelper::Describe() const
{
    const TopologySpec spec = GetTopologySpec();
    const Ptr<ClusterTopologyBuilder> topology = CreateTopologyBuilder();
    std::ostringstream text;
    if (const uint32_t fixed = topology->GetFixedRankCount())
    {
        text << fixed << " GPUs, " << topology->GetKind() << topology->DescribeShape(spec)
             << ", MTU " << spec.mtu;
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
         << spec.nicLatency.GetNanoSeconds() << " ns, " << topology->GetKind()
         << topology->DescribeShape(spec);
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

NvlsSupport
GpuClusterHelper::GetNvlsSupport() const
{
    return static_cast<NvlsSupport>(m_nvlsSupport);
}

SharpSupport
GpuClusterHelper::GetSharpSupport() const
{
    return static_cast<SharpSupport>(m_sharpSupport);
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
