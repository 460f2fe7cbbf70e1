/*
 * RdmaChannel: the full-duplex cable between two RdmaNetDevices.
 */
#ifndef CHAKRA_RDMA_CHANNEL_H
#define CHAKRA_RDMA_CHANNEL_H

#include "ns3/channel.h"
#include "ns3/nstime.h"
#include "ns3/packet.h"
#include "ns3/ptr.h"

namespace ns3
{

class RdmaNetDevice;

/**
 * \ingroup chakra-transport
 * \brief A point-to-point, full-duplex link with a propagation delay.
 *
 * A frame put on the wire by one end arrives at the other end once it has been serialized
 * (the sender's transmission time) and has propagated (Delay). Each direction is independent.
 * The frame's priority class travels with it (the PCP of its 802.1Q tag on a real link).
 */
class RdmaChannel : public Channel
{
  public:
    /** \return the TypeId */
    static TypeId GetTypeId();
    RdmaChannel();

    /** Connects a device (two per channel). Virtual, as Transmit: RdmaRemoteChannel. */
    virtual void Attach(Ptr<RdmaNetDevice> device);

    /**
     * Puts a frame on the wire.
     * \param sender the sending end
     * \param packet the frame's contents
     * \param priority its priority class
     * \param txTime its serialization time at the sender
     */
    virtual void Transmit(Ptr<RdmaNetDevice> sender,
                          Ptr<Packet> packet,
                          uint8_t priority,
                          Time txTime);

    /** \return the device at the other end from \p device */
    Ptr<RdmaNetDevice> GetPeer(Ptr<const RdmaNetDevice> device) const;
    /** \return the propagation delay */
    Time GetDelay() const;

    std::size_t GetNDevices() const override;
    Ptr<NetDevice> GetDevice(std::size_t i) const override;

  protected:
    void DoDispose() override;

  private:
    Time m_delay;
    Ptr<RdmaNetDevice> m_devices[2];
    uint32_t m_attached{0};
};

} // namespace ns3

#endif // CHAKRA_RDMA_CHANNEL_H
