#include "ip-fabric.h"

#include "ns3/cluster-routing.h"
#include "ns3/internet-stack-helper.h"
#include "ns3/ipv4-address-helper.h"
#include "ns3/ipv4-routing-helper.h"
#include "ns3/point-to-point-helper.h"
#include "ns3/queue-size.h"
#include "ns3/string.h"
#include "ns3/tcp-transport.h"
#include "ns3/traffic-control-helper.h"
#include "ns3/uinteger.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(IpFabric);

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

} // namespace

TypeId
IpFabric::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::IpFabric")
            .SetParent<ClusterFabric>()
            .SetGroupName("Chakra")
            .AddConstructor<IpFabric>()
            .AddAttribute("QueueSize",
                          "Queue of every device (ns-3 QueueSize syntax); ACK-sized packets go "
                          "ahead of data (AckPriorityQueue).",
                          StringValue("200000p"),
                          MakeStringAccessor(&IpFabric::m_queueSize),
                          MakeStringChecker());
    return tid;
}

IpFabric::IpFabric() = default;

void
IpFabric::Install(std::shared_ptr<const ClusterTopology> topology, const NodeContainer& nodes)
{
    const uint32_t ranks = topology->GetRankCount();
    InternetStackHelper stack;
    ClusterRoutingHelper routing;
    stack.SetRoutingHelper(routing);
    stack.Install(nodes);

    PointToPointHelper p2p;
    p2p.SetQueue("ns3::AckPriorityQueue<Packet>",
                 "MaxSize",
                 QueueSizeValue(QueueSize(m_queueSize)));
    Ipv4AddressHelper addresses("10.0.0.0", "255.255.255.252");
    TrafficControlHelper trafficControl;
    m_rankAddresses.assign(ranks, Ipv4Address());
    const auto& links = topology->GetLinks();
    // Per link, the interface and address at each end (for the routes).
    std::vector<std::pair<uint32_t, uint32_t>> interfaces(links.size());
    std::vector<std::vector<Ipv4Address>> addressesOf(nodes.GetN());
    std::vector<std::pair<Ipv4Address, Ipv4Address>> linkAddresses(links.size());
    for (uint32_t i = 0; i < links.size(); ++i)
    {
        const ClusterTopology::Link& link = links[i];
        p2p.SetDeviceAttribute("DataRate", DataRateValue(link.rate));
        p2p.SetDeviceAttribute("Mtu", UintegerValue(link.mtu));
        p2p.SetChannelAttribute("Delay", TimeValue(link.delay));
        NetDeviceContainer devices = p2p.Install(nodes.Get(link.a), nodes.Get(link.b));
        Ipv4InterfaceContainer assigned = addresses.Assign(devices);
        addresses.NewNetwork();
        // No queue discipline: packets go straight to the device's queue (the default
        // fq_codel would drop the standing queues of a lossless fabric).
        trafficControl.Uninstall(devices);
        interfaces[i] = {assigned.Get(0).second, assigned.Get(1).second};
        linkAddresses[i] = {assigned.GetAddress(0), assigned.GetAddress(1)};
        addressesOf[link.a].push_back(assigned.GetAddress(0));
        addressesOf[link.b].push_back(assigned.GetAddress(1));
        if (link.a < ranks && link.kind == ClusterTopology::SCALE_OUT &&
            m_rankAddresses[link.a] == Ipv4Address())
        {
            m_rankAddresses[link.a] = assigned.GetAddress(0);
        }
    }
    for (uint32_t rank = 0; rank < ranks; ++rank)
    {
        if (m_rankAddresses[rank] == Ipv4Address() && !addressesOf[rank].empty())
        {
            m_rankAddresses[rank] = addressesOf[rank].front(); // a GPU with NVLink only
        }
    }

    std::vector<uint32_t> hops;
    for (uint32_t v = 0; v < nodes.GetN(); ++v)
    {
        Ptr<ClusterRouting> router =
            DynamicCast<ClusterRouting>(nodes.Get(v)->GetObject<Ipv4>()->GetRoutingProtocol());
        const auto& ports = topology->GetPorts(v);
        for (uint32_t destination = 0; destination < ranks; ++destination)
        {
            topology->GetNextHops(v, destination, hops);
            if (hops.empty())
            {
                continue;
            }
            std::vector<ClusterRouting::NextHop> next;
            for (uint32_t port : hops)
            {
                const uint32_t link = ports[port].link;
                const bool atA = links[link].a == v;
                next.push_back({atA ? interfaces[link].first : interfaces[link].second,
                                atA ? linkAddresses[link].second : linkAddresses[link].first});
            }
            for (const Ipv4Address& address : addressesOf[destination])
            {
                router->SetRoute(address, next);
            }
        }
    }
}

Ptr<CommTransport>
IpFabric::CreateTransport(uint32_t /* rank */)
{
    return CreateObject<TcpTransport>();
}

std::vector<Ipv4Address>
IpFabric::GetRankAddresses() const
{
    return m_rankAddresses;
}

} // namespace ns3
