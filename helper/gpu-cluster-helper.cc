#include "gpu-cluster-helper.h"

#include "ns3/cluster-routing.h"
#include "ns3/double.h"
#include "ns3/internet-stack-helper.h"
#include "ns3/ipv4-address-helper.h"
#include "ns3/ipv4-routing-helper.h"
#include "ns3/point-to-point-helper.h"
#include "ns3/queue-size.h"
#include "ns3/string.h"
#include "ns3/traffic-control-helper.h"
#include "ns3/uinteger.h"

#include <limits>
#include <queue>
#include <sstream>
#include <stdexcept>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(GpuClusterHelper);

namespace
{

/** Installs ClusterRouting on every node (InternetStackHelper's routing hook). */
class ClusterRoutingHelper : public Ipv4RoutingHelper
{
  public:
    ClusterRoutingHelper* Copy() const override
    {
        return new ClusterRoutingHelper(*this);
    }

    Ptr<Ipv4RoutingProtocol> Create(Ptr<Node> /* node */) const override
    {
        return CreateObject<ClusterRouting>();
    }
};

constexpr uint32_t kNvLinkWeight = 1;
constexpr uint32_t kFabricWeight = 10;

} // namespace

TypeId
GpuClusterHelper::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::GpuClusterHelper")
            .SetParent<Object>()
            .SetGroupName("Chakra")
            .AddConstructor<GpuClusterHelper>()
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
                          MakeUintegerChecker<uint32_t>(576, 65535))
            .AddAttribute("QueueSize",
                          "Queue of every device (ns-3 QueueSize syntax); ACK-sized packets go "
                          "ahead of data (AckPriorityQueue).",
                          StringValue("200000p"),
                          MakeStringAccessor(&GpuClusterHelper::m_queueSize),
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
    if (m_topology != "single-switch" && m_topology != "leaf-spine" && m_topology != "ring")
    {
        throw std::invalid_argument("unknown topology '" + m_topology +
                                    "' (single-switch, leaf-spine, ring)");
    }
    m_built = true;
    const uint32_t ranks = m_hosts * m_gpusPerHost;
    m_gpus.Create(ranks);
    NodeContainer nvSwitches;
    if (m_gpusPerHost > 1)
    {
        nvSwitches.Create(m_hosts);
    }
    NodeContainer fabric;
    uint32_t leaves = (m_hosts + m_hostsPerLeaf - 1) / m_hostsPerLeaf;
    if (m_topology == "single-switch")
    {
        fabric.Create(1);
    }
    else if (m_topology == "leaf-spine")
    {
        fabric.Create(leaves + m_spines);
    }
    else
    {
        fabric.Create(m_hosts);
    }
    m_switches.Add(nvSwitches);
    m_switches.Add(fabric);
    m_all.Add(m_gpus);
    m_all.Add(m_switches);
    m_isGpu.assign(m_all.GetN(), false);
    for (uint32_t i = 0; i < ranks; ++i)
    {
        m_isGpu[i] = true;
    }

    InternetStackHelper stack;
    ClusterRoutingHelper routing;
    stack.SetRoutingHelper(routing);
    stack.Install(m_all);

    PointToPointHelper p2p;
    p2p.SetQueue("ns3::AckPriorityQueue<Packet>", "MaxSize", QueueSizeValue(QueueSize(m_queueSize)));
    p2p.SetDeviceAttribute("Mtu", UintegerValue(m_mtu));
    Ipv4AddressHelper addresses("10.0.0.0", "255.255.255.252");
    TrafficControlHelper trafficControl;
    m_rankAddresses.assign(ranks, Ipv4Address());
    const uint32_t firstNvSwitch = ranks;
    const uint32_t firstFabric = ranks + nvSwitches.GetN();

    auto connect = [&](uint32_t a, uint32_t b, DataRate rate, Time delay, uint32_t weight) {
        p2p.SetDeviceAttribute("DataRate", DataRateValue(rate));
        p2p.SetDeviceAttribute("Mtu", UintegerValue(weight == kNvLinkWeight ? m_nvLinkMtu : m_mtu));
        p2p.SetChannelAttribute("Delay", TimeValue(delay));
        NetDeviceContainer devices = p2p.Install(m_all.Get(a), m_all.Get(b));
        Ipv4InterfaceContainer interfaces = addresses.Assign(devices);
        addresses.NewNetwork();
        // No queue discipline: packets go straight to the device's DropTail queue (the
        // default fq_codel would drop the standing queues of a lossless fabric).
        trafficControl.Uninstall(devices);
        Link link;
        link.a = a;
        link.b = b;
        link.aInterface = interfaces.Get(0).second;
        link.bInterface = interfaces.Get(1).second;
        link.aAddress = interfaces.GetAddress(0);
        link.bAddress = interfaces.GetAddress(1);
        link.weight = weight;
        m_links.push_back(link);
        return link;
    };

    for (uint32_t h = 0; h < m_hosts; ++h)
    {
        for (uint32_t g = 0; g < m_gpusPerHost; ++g)
        {
            uint32_t rank = h * m_gpusPerHost + g;
            if (m_gpusPerHost > 1)
            {
                connect(rank, firstNvSwitch + h, m_nvLinkBandwidth, m_nvLinkLatency, kNvLinkWeight);
            }
            uint32_t edge = firstFabric;
            if (m_topology == "leaf-spine")
            {
                edge = firstFabric + h / m_hostsPerLeaf;
            }
            else if (m_topology == "ring")
            {
                edge = firstFabric + h;
            }
            m_rankAddresses[rank] =
                connect(rank, edge, m_nicBandwidth, m_nicLatency, kFabricWeight).aAddress;
        }
    }
    if (m_topology == "leaf-spine")
    {
        for (uint32_t leaf = 0; leaf < leaves; ++leaf)
        {
            uint32_t hostsHere = std::min(m_hostsPerLeaf, m_hosts - leaf * m_hostsPerLeaf);
            double down = static_cast<double>(m_nicBandwidth.GetBitRate()) * hostsHere *
                          m_gpusPerHost;
            auto up = static_cast<uint64_t>(down / (m_spines * m_oversubscription));
            for (uint32_t spine = 0; spine < m_spines; ++spine)
            {
                connect(firstFabric + leaf, firstFabric + leaves + spine, DataRate(up),
                        m_fabricLatency, kFabricWeight);
            }
        }
    }
    else if (m_topology == "ring" && m_hosts > 1)
    {
        DataRate rate = m_ringBandwidth.GetBitRate() > 0
                            ? m_ringBandwidth
                            : DataRate(m_nicBandwidth.GetBitRate() * m_gpusPerHost);
        uint32_t links = m_hosts == 2 ? 1 : m_hosts;
        for (uint32_t h = 0; h < links; ++h)
        {
            connect(firstFabric + h, firstFabric + (h + 1) % m_hosts, rate, m_fabricLatency,
                    kFabricWeight);
        }
    }
    InstallRoutes();
}

void
GpuClusterHelper::InstallRoutes()
{
    const uint32_t nodes = m_all.GetN();
    struct Edge
    {
        uint32_t to;
        uint32_t interface;
        Ipv4Address gateway;
        uint32_t weight;
    };
    std::vector<std::vector<Edge>> adjacency(nodes);
    std::vector<std::vector<Ipv4Address>> addressesOf(nodes);
    for (const Link& link : m_links)
    {
        adjacency[link.a].push_back({link.b, link.aInterface, link.bAddress, link.weight});
        adjacency[link.b].push_back({link.a, link.bInterface, link.aAddress, link.weight});
        addressesOf[link.a].push_back(link.aAddress);
        addressesOf[link.b].push_back(link.bAddress);
    }
    const uint32_t ranks = m_gpus.GetN();
    const uint64_t infinity = std::numeric_limits<uint64_t>::max();
    for (uint32_t destination = 0; destination < ranks; ++destination)
    {
        // Dijkstra from the destination; GPUs other than it carry no transit traffic.
        std::vector<uint64_t> distance(nodes, infinity);
        using Item = std::pair<uint64_t, uint32_t>;
        std::priority_queue<Item, std::vector<Item>, std::greater<Item>> frontier;
        distance[destination] = 0;
        frontier.push({0, destination});
        while (!frontier.empty())
        {
            auto [d, u] = frontier.top();
            frontier.pop();
            if (d != distance[u] || (u != destination && m_isGpu[u]))
            {
                continue;
            }
            for (const Edge& edge : adjacency[u])
            {
                if (d + edge.weight < distance[edge.to])
                {
                    distance[edge.to] = d + edge.weight;
                    frontier.push({distance[edge.to], edge.to});
                }
            }
        }
        for (uint32_t v = 0; v < nodes; ++v)
        {
            if (v == destination || distance[v] == infinity)
            {
                continue;
            }
            std::vector<ClusterRouting::NextHop> hops;
            for (const Edge& edge : adjacency[v])
            {
                bool transit = edge.to == destination || !m_isGpu[edge.to];
                if (transit && distance[edge.to] != infinity &&
                    distance[edge.to] + edge.weight == distance[v])
                {
                    hops.push_back({edge.interface, edge.gateway});
                }
            }
            if (hops.empty())
            {
                continue;
            }
            Ptr<ClusterRouting> routing =
                DynamicCast<ClusterRouting>(m_all.Get(v)->GetObject<Ipv4>()->GetRoutingProtocol());
            for (const Ipv4Address& address : addressesOf[destination])
            {
                routing->SetRoute(address, hops);
            }
        }
    }
}

NodeContainer
GpuClusterHelper::GetRankNodes() const
{
    return m_gpus;
}

std::vector<Ipv4Address>
GpuClusterHelper::GetRankAddresses() const
{
    return m_rankAddresses;
}

std::vector<uint32_t>
GpuClusterHelper::GetHostOf() const
{
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
