#include "gpu-cluster-helper.h"

#include "ns3/double.h"
#include "ns3/string.h"
#include "ns3/topology-builder.h"
#include "ns3/uinteger.h"

#include <sstream>
#include <stdexcept>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(GpuClusterHelper);

TypeId
GpuClusterHelper::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::GpuClusterHelper")
            .SetParent<Object>()
            .SetGroupName("Chakra")
            .AddConstructor<GpuClusterHelper>()
            .AddAttribute("Transport",
                          "Transport model the cluster is built for (its fabric): tcp.",
                          StringValue("tcp"),
                          MakeStringAccessor(&GpuClusterHelper::m_transport),
                          MakeStringChecker())
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
                          "Scale-out fabric: single-switch, leaf-spine or ring.",
                          StringValue("single-switch"),
                          MakeStringAccessor(&GpuClusterHelper::m_topology),
                          MakeStringChecker())
            .AddAttribute("HostsPerLeaf",
                          "leaf-spine: hosts whose NICs share a leaf switch.",
                          UintegerValue(1),
                          MakeUintegerAccessor(&GpuClusterHelper::m_hostsPerLeaf),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("Spines",
                          "leaf-spine: number of spine switches.",
                          UintegerValue(2),
                          MakeUintegerAccessor(&GpuClusterHelper::m_spines),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("Oversubscription",
                          "leaf-spine: a leaf's downlink capacity over its uplink capacity "
                          "(1: non-blocking).",
                          DoubleValue(1.0),
                          MakeDoubleAccessor(&GpuClusterHelper::m_oversubscription),
                          MakeDoubleChecker<double>(0.01))
            .AddAttribute("RingBandwidth",
                          "ring: bandwidth of each link between neighbouring hosts' switches "
                          "(0: GpusPerHost x NicBandwidth).",
                          DataRateValue(DataRate(0)),
                          MakeDataRateAccessor(&GpuClusterHelper::m_ringBandwidth),
                          MakeDataRateChecker())
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
                          MakeUintegerChecker<uint32_t>(576, 65535));
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
    m_graph = BuildTopology(spec);
    m_fabric = ClusterFabric::ForTransport(m_transport);
    m_built = true;

    const uint32_t ranks = m_graph->GetRankCount();
    const auto nodes = static_cast<uint32_t>(m_graph->GetNodes().size());
    m_gpus.Create(ranks);
    m_switches.Create(nodes - ranks);
    NodeContainer all(m_gpus, m_switches);
    m_fabric->Install(m_graph, all);
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
    return m_transport;
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
    return m_hosts * m_gpusPerHost;
}

std::string
GpuClusterHelper::Describe() const
{
    std::ostringstream text;
    text << m_hosts << " host(s) x " << m_gpusPerHost << " GPU(s)";
    if (m_gpusPerHost > 1)
    {
        text << ", NVLink " << m_nvLinkBandwidth.GetBitRate() / 1e9 << " Gbps / "
             << m_nvLinkLatency.GetNanoSeconds() << " ns via NVSwitch";
    }
    text << ", NIC " << m_nicBandwidth.GetBitRate() / 1e9 << " Gbps / "
         << m_nicLatency.GetNanoSeconds() << " ns, " << m_topology;
    if (m_topology == "leaf-spine")
    {
        text << " (" << (m_hosts + m_hostsPerLeaf - 1) / m_hostsPerLeaf << " leaves, " << m_spines
             << " spines, oversubscription " << m_oversubscription << ":1)";
    }
    text << ", MTU " << m_mtu;
    if (m_gpusPerHost > 1)
    {
        text << " (NVLink " << m_nvLinkMtu << ")";
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

} // namespace ns3
