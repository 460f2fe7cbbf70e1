/*
 * RdmaRemoteChannel: an RdmaChannel whose two ends run in different MPI processes.
 */
#ifndef CHAKRA_RDMA_REMOTE_CHANNEL_H
#define CHAKRA_RDMA_REMOTE_CHANNEL_H

#include "ns3/node.h"
#include "ns3/rdma-channel.h"

namespace ns3
{

/**
 * \ingroup chakra-distributed
 * \brief The cable between two RdmaNetDevices of different processes in a distributed (MPI)
 * simulation: what ns-3's PointToPointRemoteChannel is to its point-to-point link.
 *
 * A frame put on the wire is sent to the receiving end's process (MpiInterface::SendPacket)
 * with its arrival time (serialization + Delay, the same as on RdmaChannel); that process hands
 * it to the device through the MpiReceiver aggregated to it at Attach. The frame's priority
 * class (data, control, or a PFC frame: MAC control) travels in front of it as one byte,
 * removed on arrival, so the receiving device sees exactly what RdmaChannel would give it.
 * The Delay is the lookahead ns-3's distributed simulators derive from the link.
 *
 * Without MPI in ns-3 (Debian's build) there is one process and no frame ever crosses: the
 * class exists so that the fabric's code is the same in both builds.
 */
class RdmaRemoteChannel : public RdmaChannel
{
  public:
    /** \return the TypeId */
    static TypeId GetTypeId();
    RdmaRemoteChannel();

    /** Connects a device and lets it receive from the other process. */
    void Attach(Ptr<RdmaNetDevice> device) override;

    void Transmit(Ptr<RdmaNetDevice> sender,
                  Ptr<Packet> packet,
                  uint8_t priority,
                  Time txTime) override;
};

/**
 * \ingroup chakra-distributed
 * \return a remote channel when \p a and \p b run in different processes (system ids), an
 *         RdmaChannel otherwise
 */
Ptr<RdmaChannel> CreateRdmaChannel(Ptr<Node> a, Ptr<Node> b);

} // namespace ns3

#endif // CHAKRA_RDMA_REMOTE_CHANNEL_H
