/*
 * IpFabric: the fabric of the "tcp" transport model: ns-3 point-to-point links with IPv4 on
 * every node, switches as IPv4 routers with ClusterRouting (per-flow ECMP).
 */
#ifndef CHAKRA_IP_FABRIC_H
#define CHAKRA_IP_FABRIC_H

#include "cluster-fabric.h"

#include "ns3/ipv4-address.h"

#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup chakra-fabric
 * \brief Point-to-point links, IPv4 and ClusterRouting on a ClusterTopology.
 *
 * - every link is a PointToPoint link of its rate, delay and MTU with a /30 subnet (10.0.0.0
 *   onwards, in link order); a rank's address is the one of its NIC (its first scale-out link);
 * - switches are IPv4 routers (ns-3's point-to-point links have no L2 bridging) with
 *   ClusterRouting filled from the topology's next hops, for every address of every GPU;
 * - every device queue is a tail-drop AckPriorityQueue of QueueSize (large by default: the
 *   fabric is modeled lossless, as RoCE with PFC is; ACKs go ahead of data), no queue discipline.
 */
class IpFabric : public ClusterFabric
{
  public:
    /** \return the TypeId */
    static TypeId GetTypeId();
    IpFabric();

    void Install(std::shared_ptr<const ClusterTopology> topology,
                 const NodeContainer& nodes) override;
    Ptr<CommTransport> CreateTransport(uint32_t rank) override;
    std::vector<Ipv4Address> GetRankAddresses() const override;

  private:
    std::string m_queueSize;
    std::vector<Ipv4Address> m_rankAddresses;
};

} // namespace ns3

#endif // CHAKRA_IP_FABRIC_H
