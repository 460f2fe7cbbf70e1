/*
 * RdmaNetDevice: an Ethernet port of the RDMA fabric (NIC or switch port) that honours PFC.
 */
#ifndef CHAKRA_RDMA_NET_DEVICE_H
#define CHAKRA_RDMA_NET_DEVICE_H

#include "ns3/data-rate.h"
#include "ns3/event-id.h"
#include "ns3/mac48-address.h"
#include "ns3/net-device.h"
#include "ns3/nstime.h"
#include "ns3/packet.h"
#include "ns3/traced-callback.h"

#include <deque>
#include <functional>
#include <vector>

namespace ns3
{

class RdmaChannel;

/**
 * \ingroup chakra-transport
 * \brief One port of a NIC or switch: serializes frames onto an RdmaChannel, with two
 * traffic classes and PFC.
 *
 * Transmission order, one frame at a time at the port's DataRate:
 * 1. PFC frames this port must send (MAC control: never paused, never queued behind data);
 * 2. control-class packets (ACK, NAK, CNP: priority kControlPriority, strict priority, never
 *    paused: PFC pauses one class);
 * 3. data-class packets (kDataPriority, the lossless class), pulled one at a time from the
 *    data sources (a switch's egress queue, a NIC's queue-pair scheduler) in round robin,
 *    unless the peer has paused the data class.
 * Pulling (instead of a device queue) keeps the data where its owner accounts for it (the
 * switch's shared buffer; a NIC's queue pairs, which build packets only when the wire is free,
 * so memory does not grow with message size).
 *
 * A received PFC frame for the data class pauses it for quanta x 512 bit times (0: resumes);
 * the frame being sent is finished first, as on real links. Everything else received is
 * handed to the ReceiveHandler (the node's switch or NIC).
 *
 * Framing: every frame occupies its bytes plus kFramingBytes on the wire (Ethernet header,
 * FCS, preamble and inter-frame gap: what a frame costs in time). Serialization times keep
 * their sub-nanosecond remainder, so a long run of frames takes exactly bytes x 8 / rate.
 */
class RdmaNetDevice : public NetDevice
{
  public:
    /** The lossless class of RDMA data (PFC applies to it). */
    static constexpr uint8_t kDataPriority = 3;
    /** The class of ACK, NAK and CNP packets (strict priority, never paused). */
    static constexpr uint8_t kControlPriority = 6;
    /** What travels with a PFC frame on the channel (MAC control, no class). */
    static constexpr uint8_t kMacControl = 0xff;
    /**
     * Signature of the PfcSent and PfcReceived trace sources.
     * \param quanta the pause time of the data class in 512-bit times (0: resume)
     */
    typedef void (*PfcCallback)(uint16_t quanta);
    /**
     * Wire bytes a frame costs beyond its contents: Ethernet header (14), FCS (4), preamble
     * and start delimiter (8), inter-frame gap (12). No 802.1Q tag: the class is taken from
     * the DSCP, as RoCE deployments with DSCP-based PFC do.
     */
    static constexpr uint32_t kFramingBytes = 14 + 4 + 8 + 12;

    /** Returns the next data packet to send, or null if there is none now. */
    using DataSource = std::function<Ptr<Packet>()>;
    /** Receives a frame that is not PFC: (device, packet, priority class). */
    using ReceiveHandler = std::function<void(Ptr<RdmaNetDevice>, Ptr<Packet>, uint8_t)>;

    /** What the port saw (for the fabric report). */
    struct Stats
    {
        uint64_t txFrames{0};        //!< frames sent (all classes)
        uint64_t txBytes{0};         //!< their bytes (without framing)
        uint64_t txDataBytes{0};     //!< bytes of data-class packets sent
        uint64_t rxFrames{0};        //!< frames received
        Time busyTime;               //!< time spent transmitting
        uint64_t pausesSent{0};      //!< PFC PAUSE frames sent (quanta > 0)
        uint64_t resumesSent{0};     //!< PFC frames with quanta 0 sent
        uint64_t pausesReceived{0};  //!< PAUSE frames received
        uint64_t resumesReceived{0}; //!< RESUME frames received
        Time pausedTime;             //!< time the data class was paused by the peer
        uint64_t ecnMarks{0};        //!< packets marked CE on leaving this port (switch)
        uint64_t drops{0};           //!< packets dropped at this port (switch ingress)
        uint64_t maxQueueBytes{0};   //!< largest data queue waiting for this port (switch)
        uint64_t maxIngressBytes{0}; //!< largest buffer held for this ingress port (switch)
    };

    /** \return the TypeId */
    static TypeId GetTypeId();
    RdmaNetDevice();
    ~RdmaNetDevice() override;

    /** Connects the port to its cable. */
    void Attach(Ptr<RdmaChannel> channel);
    /** \return the cable */
    Ptr<RdmaChannel> GetRdmaChannel() const;
    /** \return the port at the other end of the cable */
    Ptr<RdmaNetDevice> GetPeer() const;
    /** \return the line rate */
    DataRate GetDataRate() const;

    /** Adds a source of data-class packets (served in round robin). */
    void AddDataSource(DataSource source);
    /** Where received frames go. */
    void SetReceiveHandler(ReceiveHandler handler);

    /** Sends a control-class packet (queued ahead of data, never paused). */
    void SendControl(Ptr<Packet> packet);
    /**
     * Sends a PFC frame for the data class to the peer.
     * \param quanta pause time in 512-bit-time quanta; 0 resumes
     */
    void SendPfc(uint16_t quanta);
    /** A data source has something to send: starts transmitting if the port is idle. */
    void Wake();

    /** \return true while the peer keeps the data class paused */
    bool IsDataPaused() const;
    /** \return true while a frame is being serialized */
    bool IsBusy() const;
    /** \return the time \p bytes of frame contents take on the wire (framing included) */
    Time GetTxTime(uint32_t bytes) const;

    /** Records a packet dropped on arrival at this port (switch buffer full). */
    void NotifyDrop(Ptr<const Packet> packet);
    /** Records a packet marked CE as it left through this port. */
    void NotifyEcnMark(Ptr<const Packet> packet);
    /** Records the data queue waiting for this port. */
    void NotifyQueueBytes(uint64_t bytes);
    /** Records the switch buffer held for packets that arrived through this port. */
    void NotifyIngressBytes(uint64_t bytes);
    /** \return the counters (pause time includes a pause still running) */
    Stats GetStats() const;
    /** \return the bytes sent so far (frame contents, all classes): what telemetry stamps */
    uint64_t GetTxBytes() const;

    /** Called by the channel when a frame has fully arrived. */
    void Receive(Ptr<Packet> packet, uint8_t priority);

    // NetDevice
    void SetIfIndex(const uint32_t index) override;
    uint32_t GetIfIndex() const override;
    Ptr<Channel> GetChannel() const override;
    void SetAddress(Address address) override;
    Address GetAddress() const override;
    bool SetMtu(const uint16_t mtu) override;
    uint16_t GetMtu() const override;
    bool IsLinkUp() const override;
    void AddLinkChangeCallback(Callback<void> callback) override;
    bool IsBroadcast() const override;
    Address GetBroadcast() const override;
    bool IsMulticast() const override;
    Address GetMulticast(Ipv4Address multicastGroup) const override;
    Address GetMulticast(Ipv6Address addr) const override;
    bool IsPointToPoint() const override;
    bool IsBridge() const override;
    /** Not supported: RDMA traffic enters through SendControl and the data sources. */
    bool Send(Ptr<Packet> packet, const Address& dest, uint16_t protocolNumber) override;
    /** Not supported (see Send). */
    bool SendFrom(Ptr<Packet> packet,
                  const Address& source,
                  const Address& dest,
                  uint16_t protocolNumber) override;
    Ptr<Node> GetNode() const override;
    void SetNode(Ptr<Node> node) override;
    bool NeedsArp() const override;
    void SetReceiveCallback(NetDevice::ReceiveCallback cb) override;
    void SetPromiscReceiveCallback(PromiscReceiveCallback cb) override;
    bool SupportsSendFrom() const override;

  protected:
    void DoDispose() override;

  private:
    /** Starts the next frame if the port is idle and has one. */
    void TryTransmit();
    /** The frame on the wire has been serialized. */
    void TransmitComplete();
    /** A pause ran out without a RESUME. */
    void PauseExpired();
    /** Ends a pause (RESUME or expiry). */
    void EndPause();
    /** \return the serialization time of a frame, carrying the sub-nanosecond remainder */
    Time NextTxTime(uint32_t bytes);

    DataRate m_rate;
    uint16_t m_mtu;
    Ptr<RdmaChannel> m_channel;
    Ptr<Node> m_node;
    uint32_t m_ifIndex{0};
    Mac48Address m_address;

    std::vector<DataSource> m_sources;
    std::size_t m_nextSource{0};
    ReceiveHandler m_receive;
    std::deque<Ptr<Packet>> m_pfcFrames;
    std::deque<Ptr<Packet>> m_control;
    bool m_busy{false};
    bool m_inTryTransmit{false};
    double m_txRemainderNs{0};

    bool m_paused{false};
    Time m_pausedUntil;
    Time m_pauseStart;
    EventId m_pauseExpiry;

    Stats m_stats;

    TracedCallback<Ptr<const Packet>> m_macTxTrace;
    TracedCallback<Ptr<const Packet>> m_macRxTrace;
    TracedCallback<Ptr<const Packet>> m_dropTrace;
    TracedCallback<Ptr<const Packet>> m_ecnMarkTrace;
    TracedCallback<uint16_t> m_pfcSentTrace;
    TracedCallback<uint16_t> m_pfcReceivedTrace;
};

} // namespace ns3

#endif // CHAKRA_RDMA_NET_DEVICE_H
