#include "ip-fabric.h"

#include "ns3/cluster-routing.h"
#include "ns3/internet-stack-helper.h"
#include "ns3/ipv4-routing-helper.h"
#include "ns3/ipv4.h"
#include "ns3/point-to-point-helper.h"
#include "ns3/queue-size.h"
#include "ns3/string.h"
#include "ns3/tcp-transport.h"
#include "ns3/uinteger.h"

#include <memory>
#include <stdexcept>

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
    m_rankAddresses.assign(ranks, Ipv4Address());
    const auto& links = topology->GetLinks();
    if (links.size() >= (1u << 22))
    {
        throw std::invalid_argument("IpFabric: more than 2^22 links do not fit in 10.0.0.0/8");
    }
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
        // The addresses Ipv4AddressHelper would give (a /30 per link, 10.0.0.0 onwards in link
        // order), set by hand: its generator checks each new address against every earlier one
        // (quadratic: a quarter of a 1,024-GPU build), and it installs a queue discipline that
        // would have to be removed again (fq_codel would drop the standing queues of a
        // lossless fabric: packets go straight to the device's queue).
        uint32_t ends[2] = {0, 0};
        Ipv4Address assigned[2];
        for (uint32_t end = 0; end < 2; ++end)
        {
            Ptr<Ipv4> ipv4 = devices.Get(end)->GetNode()->GetObject<Ipv4>();
            const int32_t interface = ipv4->AddInterface(devices.Get(end));
            assigned[end] = Ipv4Address(0x0A000000u + 4u * i + 1u + end);
            ipv4->AddAddress(interface, Ipv4InterfaceAddress(assigned[end], Ipv4Mask("/30")));
            ipv4->SetMetric(interface, 1);
            ipv4->SetUp(interface);
            ends[end] = static_cast<uint32_t>(interface);
        }
        interfaces[i] = {ends[0], ends[1]};
        linkAddresses[i] = {assigned[0], assigned[1]};
        addressesOf[link.a].push_back(assigned[0]);
        addressesOf[link.b].push_back(assigned[1]);
        if (link.a < ranks && link.kind == ClusterTopology::SCALE_OUT &&
            m_rankAddresses[link.a] == Ipv4Address())
        {
            m_rankAddresses[link.a] = assigned[0];
        }
    }
    for (uint32_t rank = 0; rank < ranks; ++rank)
    {
        if (m_rankAddresses[rank] == Ipv4Address() && !addressesOf[rank].empty())
        {
            m_rankAddresses[rank] = addressesOf[rank].front(); // a GPU with NVLink only
        }
    }

    // Routes by destination rank: every router shares one address -> rank map and keeps a
    // flat array of next hops per rank (a few MB for 1,024 GPUs instead of an entry per
    // address per router).
    auto rankOf = std::make_shared<ClusterRouting::AddressRanks>();
    for (uint32_t rank = 0; rank < ranks; ++rank)
    {
        for (const Ipv4Address& address : addressesOf[rank])
        {
            (*rankOf)[address.Get()] = rank;
        }
    }
    std::vector<uint32_t> hops;
    for (uint32_t v = 0; v < nodes.GetN(); ++v)
    {
        Ptr<ClusterRouting> router =
            DynamicCast<ClusterRouting>(nodes.Get(v)->GetObject<Ipv4>()->GetRoutingProtocol());
        const auto& ports = topology->GetPorts(v);
        std::vector<uint32_t> offsets;
        offsets.reserve(ranks + 1);
        std::vector<ClusterRouting::NextHop> next;
        for (uint32_t destination = 0; destination < ranks; ++destination)
        {
            offsets.push_back(static_cast<uint32_t>(next.size()));
            topology->GetNextHops(v, destination, hops);
            for (uint32_t port : hops)
            {
                const uint32_t link = ports[port].link;
                const bool atA = links[link].a == v;
                next.push_back({atA ? interfaces[link].first : interfaces[link].second,
                                atA ? linkAddresses[link].second : linkAddresses[link].first});
            }
        }
        offsets.push_back(static_cast<uint32_t>(next.size()));
        next.shrink_to_fit();
        router->SetRankRoutes(rankOf, std::move(offsets), std::move(next));
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
