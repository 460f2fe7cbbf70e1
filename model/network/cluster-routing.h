/*
 * ClusterRouting: static shortest-path routing with per-flow ECMP for the modeled GPU cluster.
 */
#ifndef CHAKRA_CLUSTER_ROUTING_H
#define CHAKRA_CLUSTER_ROUTING_H

#include "ns3/ipv4-address.h"
#include "ns3/ipv4-routing-protocol.h"
#include "ns3/ipv4.h"

#include <memory>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace ns3
{

/**
 * \ingroup chakra-network
 * \brief Routes packets on precomputed next hops; among equal-cost next hops it picks one by a
 * hash of the flow (addresses and TCP/UDP ports), so a flow keeps one path (no reordering) and
 * different flows spread over the spines, as switches' ECMP does.
 *
 * The fabric fills the table (it knows the topology): for every destination, the interfaces
 * (and next-hop addresses) on shortest paths. Routes are kept by destination rank
 * (SetRankRoutes: one address -> rank map shared by every router of the fabric, and per router
 * a flat array of next hops), so a 1,024-GPU fabric needs some MB, not the hundreds of MB of
 * one table entry per address per router; SetRoute adds single addresses on top. A packet for
 * an address without an entry is dropped (reported by RouteOutput as ERROR_NOROUTETOHOST).
 */
class ClusterRouting : public Ipv4RoutingProtocol
{
  public:
    /** One equal-cost next hop. */
    struct NextHop
    {
        uint32_t interface;  //!< outgoing Ipv4 interface
        Ipv4Address gateway; //!< the neighbour's address on that link
    };

    /** \return the TypeId */
    static TypeId GetTypeId();
    ClusterRouting();

    /**
     * Sets the next hops towards a destination address (replacing earlier ones).
     * \param destination the address
     * \param hops equal-cost next hops (at least one)
     */
    void SetRoute(Ipv4Address destination, std::vector<NextHop> hops);

    /** Every address of every rank -> that rank (shared by the routers of a fabric). */
    using AddressRanks = std::unordered_map<uint32_t, uint32_t>;

    /**
     * Sets the next hops towards every rank at once (replacing earlier rank routes).
     * \param ranks the rank of each destination address (shared)
     * \param offsets per rank r, its next hops are hops[offsets[r] .. offsets[r + 1]) (ranks + 1
     *        entries; an empty range: no route)
     * \param hops the next hops of every rank, one after the other
     */
    void SetRankRoutes(std::shared_ptr<const AddressRanks> ranks,
                       std::vector<uint32_t> offsets,
                       std::vector<NextHop> hops);

    /** \return the next hops towards \p destination (empty if none) */
    std::vector<NextHop> GetRoute(Ipv4Address destination) const;

    Ptr<Ipv4Route> RouteOutput(Ptr<Packet> p,
                               const Ipv4Header& header,
                               Ptr<NetDevice> oif,
                               Socket::SocketErrno& sockerr) override;
    bool RouteInput(Ptr<const Packet> p,
                    const Ipv4Header& header,
                    Ptr<const NetDevice> idev,
                    UnicastForwardCallback ucb,
                    MulticastForwardCallback mcb,
                    LocalDeliverCallback lcb,
                    ErrorCallback ecb) override;
    void NotifyInterfaceUp(uint32_t interface) override;
    void NotifyInterfaceDown(uint32_t interface) override;
    void NotifyAddAddress(uint32_t interface, Ipv4InterfaceAddress address) override;
    void NotifyRemoveAddress(uint32_t interface, Ipv4InterfaceAddress address) override;
    void SetIpv4(Ptr<Ipv4> ipv4) override;
    void PrintRoutingTable(Ptr<OutputStreamWrapper> stream,
                           Time::Unit unit = Time::S) const override;

  protected:
    void DoDispose() override;

  private:
    /** \return the route for a packet, or nullptr */
    Ptr<Ipv4Route> Lookup(Ptr<const Packet> p, const Ipv4Header& header) const;
    /**
     * \param destination an address
     * \param[out] count the number of next hops
     * \return the first next hop towards it (nullptr, count 0: no route)
     */
    const NextHop* Find(uint32_t destination, std::size_t& count) const;

    Ptr<Ipv4> m_ipv4;                                            //!< this node's IPv4
    std::unordered_map<uint32_t, std::vector<NextHop>> m_routes; //!< by destination address
    std::shared_ptr<const AddressRanks> m_ranks;                 //!< address -> rank
    std::vector<uint32_t> m_rankOffsets;                         //!< per rank, into m_rankHops
    std::vector<NextHop> m_rankHops;                             //!< next hops by rank
    std::unordered_set<uint32_t> m_localAddresses;               //!< this node's addresses
};

} // namespace ns3

#endif // CHAKRA_CLUSTER_ROUTING_H
