#include "cluster-routing.h"

#include "cluster-topology.h"

#include "ns3/ipv4-route.h"
#include "ns3/log.h"
#include "ns3/node.h"
#include "ns3/output-stream-wrapper.h"
#include "ns3/packet.h"
#include "ns3/tcp-header.h"
#include "ns3/udp-header.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("ChakraClusterRouting");
NS_OBJECT_ENSURE_REGISTERED(ClusterRouting);

TypeId
ClusterRouting::GetTypeId()
{
    static TypeId tid = TypeId("ns3::ClusterRouting")
                            .SetParent<Ipv4RoutingProtocol>()
                            .SetGroupName("Chakra")
                            .AddConstructor<ClusterRouting>();
    return tid;
}

ClusterRouting::ClusterRouting() = default;

void
ClusterRouting::DoDispose()
{
    NS_LOG_FUNCTION(this);
    m_ipv4 = nullptr;
    m_routes.clear();
    m_ranks.reset();
    m_rankOffsets.clear();
    m_rankHops.clear();
    Ipv4RoutingProtocol::DoDispose();
}

void
ClusterRouting::SetRoute(Ipv4Address destination, std::vector<NextHop> hops)
{
    NS_LOG_FUNCTION(this);
    m_routes[destination.Get()] = std::move(hops);
}

void
ClusterRouting::SetRankRoutes(std::shared_ptr<const AddressRanks> ranks,
                              std::vector<uint32_t> offsets,
                              std::vector<NextHop> hops)
{
    NS_LOG_FUNCTION(this);
    m_ranks = std::move(ranks);
    m_rankOffsets = std::move(offsets);
    m_rankHops = std::move(hops);
}

const ClusterRouting::NextHop*
ClusterRouting::Find(uint32_t destination, std::size_t& count) const
{
    auto it = m_routes.find(destination);
    if (it != m_routes.end())
    {
        count = it->second.size();
        return it->second.data();
    }
    count = 0;
    if (!m_ranks)
    {
        return nullptr;
    }
    auto rank = m_ranks->find(destination);
    if (rank == m_ranks->end() || rank->second + 1 >= m_rankOffsets.size())
    {
        return nullptr;
    }
    count = m_rankOffsets[rank->second + 1] - m_rankOffsets[rank->second];
    return m_rankHops.data() + m_rankOffsets[rank->second];
}

std::vector<ClusterRouting::NextHop>
ClusterRouting::GetRoute(Ipv4Address destination) const
{
    std::size_t count = 0;
    const NextHop* first = Find(destination.Get(), count);
    return std::vector<NextHop>(first, first + count);
}

Ptr<Ipv4Route>
ClusterRouting::Lookup(Ptr<const Packet> p, const Ipv4Header& header) const
{
    std::size_t count = 0;
    const NextHop* hops = Find(header.GetDestination().Get(), count);
    if (count == 0)
    {
        return nullptr;
    }
    std::size_t choice = 0;
    if (count > 1)
    {
        // Flow hash: addresses, protocol, ports. The node id salts it, so that successive
        // switches do not all pick the same index (ECMP polarisation).
        uint64_t hash = ClusterTopology::Mix(0, m_ipv4->GetObject<Node>()->GetId());
        hash = ClusterTopology::Mix(hash, header.GetSource().Get());
        hash = ClusterTopology::Mix(hash, header.GetDestination().Get());
        hash = ClusterTopology::Mix(hash, header.GetProtocol());
        if (p && p->GetSize() >= 8)
        {
            if (header.GetProtocol() == 6)
            {
                TcpHeader tcp;
                p->PeekHeader(tcp);
                hash = ClusterTopology::Mix(hash,
                                            (uint64_t(tcp.GetSourcePort()) << 16) |
                                                tcp.GetDestinationPort());
            }
            else if (header.GetProtocol() == 17)
            {
                UdpHeader udp;
                p->PeekHeader(udp);
                hash = ClusterTopology::Mix(hash,
                                            (uint64_t(udp.GetSourcePort()) << 16) |
                                                udp.GetDestinationPort());
            }
        }
        choice = static_cast<std::size_t>(hash % count);
    }
    const NextHop& hop = hops[choice];
    Ptr<Ipv4Route> route = Create<Ipv4Route>();
    route->SetDestination(header.GetDestination());
    route->SetGateway(hop.gateway);
    route->SetOutputDevice(m_ipv4->GetNetDevice(hop.interface));
    route->SetSource(m_ipv4->GetAddress(hop.interface, 0).GetLocal());
    return route;
}

Ptr<Ipv4Route>
ClusterRouting::RouteOutput(Ptr<Packet> p,
                            const Ipv4Header& header,
                            Ptr<NetDevice> /* oif */,
                            Socket::SocketErrno& sockerr)
{
    NS_LOG_FUNCTION(this << p);
    Ptr<Ipv4Route> route = Lookup(p, header);
    sockerr = route ? Socket::ERROR_NOTERROR : Socket::ERROR_NOROUTETOHOST;
    return route;
}

bool
ClusterRouting::RouteInput(Ptr<const Packet> p,
                           const Ipv4Header& header,
                           Ptr<const NetDevice> idev,
                           UnicastForwardCallback ucb,
                           MulticastForwardCallback /* mcb */,
                           LocalDeliverCallback lcb,
                           ErrorCallback /* ecb */)
{
    NS_LOG_FUNCTION(this << p << idev);
    // A hash lookup instead of Ipv4::IsDestinationAddress, which scans every address of every
    // interface: a 64-port switch did that for each packet it forwarded.
    if (m_localAddresses.empty())
    {
        for (uint32_t i = 0; i < m_ipv4->GetNInterfaces(); ++i)
        {
            for (uint32_t j = 0; j < m_ipv4->GetNAddresses(i); ++j)
            {
                m_localAddresses.insert(m_ipv4->GetAddress(i, j).GetLocal().Get());
            }
        }
    }
    if (m_localAddresses.count(header.GetDestination().Get()) != 0)
    {
        if (!lcb.IsNull())
        {
            lcb(p, header, m_ipv4->GetInterfaceForDevice(idev));
            return true;
        }
        return false;
    }
    Ptr<Ipv4Route> route = Lookup(p, header);
    if (!route)
    {
        NS_LOG_LOGIC("no route to " << header.GetDestination());
        return false;
    }
    ucb(route, p, header);
    return true;
}

void
ClusterRouting::NotifyInterfaceUp(uint32_t /* interface */)
{
    NS_LOG_FUNCTION(this);
}

void
ClusterRouting::NotifyInterfaceDown(uint32_t /* interface */)
{
    NS_LOG_FUNCTION(this);
}

void
ClusterRouting::NotifyAddAddress(uint32_t /* interface */, Ipv4InterfaceAddress /* address */)
{
    NS_LOG_FUNCTION(this);
    m_localAddresses.clear(); // rebuilt on the next packet
}

void
ClusterRouting::NotifyRemoveAddress(uint32_t /* interface */, Ipv4InterfaceAddress /* address */)
{
    NS_LOG_FUNCTION(this);
    m_localAddresses.clear();
}

void
ClusterRouting::SetIpv4(Ptr<Ipv4> ipv4)
{
    NS_LOG_FUNCTION(this << ipv4);
    m_ipv4 = ipv4;
}

void
ClusterRouting::PrintRoutingTable(Ptr<OutputStreamWrapper> stream, Time::Unit /* unit */) const
{
    std::ostream& os = *stream->GetStream();
    os << "ClusterRouting table of node " << m_ipv4->GetObject<Node>()->GetId() << "\n";
    for (const auto& [destination, hops] : m_routes)
    {
        os << "  " << Ipv4Address(destination) << " via";
        for (const auto& hop : hops)
        {
            os << " if" << hop.interface << "/" << hop.gateway;
        }
        os << "\n";
    }
    for (uint32_t rank = 0; rank + 1 < m_rankOffsets.size(); ++rank)
    {
        os << "  rank " << rank << " via";
        for (uint32_t i = m_rankOffsets[rank]; i < m_rankOffsets[rank + 1]; ++i)
        {
            os << " if" << m_rankHops[i].interface << "/" << m_rankHops[i].gateway;
        }
        os << "\n";
    }
}

} // namespace ns3
