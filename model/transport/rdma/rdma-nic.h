/*
 * RdmaNic: a rank's RDMA NIC: its queue pairs, the per-port scheduler that feeds them to the
 * wire, and the handling of what arrives (data, ACK/NAK, CNP).
 */
#ifndef CHAKRA_RDMA_NIC_H
#define CHAKRA_RDMA_NIC_H

#include "rdma-queue-pair.h"

#include "ns3/cluster-topology.h"
#include "ns3/event-id.h"
#include "ns3/message-key.h"
#include "ns3/object.h"
#include "ns3/rdma-net-device.h"
#include "ns3/rdma-switch.h"
#include "ns3/traced-callback.h"

#include <functional>
#include <memory>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

namespace ns3
{

/**
 * \ingroup chakra-transport
 * \brief The RDMA engine of one GPU node, aggregated to it (RdmaFabric installs it).
 *
 * - One queue pair per peer rank, created on first use; it sends on the port
 *   ClusterTopology::SelectNextHop picks for the flow (RdmaTransport::FlowHash), so a GPU with
 *   NVLink and NIC ports reaches same-host peers over NVLink.
 * - Each port serves the queue pairs that have a packet ready in round robin, one packet each
 *   time the wire is free; a queue pair below line rate (congestion control) waits for its
 *   pacing time, and the port sleeps until the earliest one.
 * - Arriving frames: data to the queue pair of its source (which may answer with ACK, NAK,
 *   CNP on the control class and deliver messages), ACK/NAK and CNP to the sending side. In a
 *   direct-connect topology (GPUs forward) frames for other ranks go to the node's RdmaSwitch.
 * - One retransmission timer per NIC, at the earliest RetransmitTimeout after the last
 *   progress of a queue pair with unacknowledged data; removed from the event list when none
 *   has any, so that a finished run ends at its last real event.
 */
class RdmaNic : public Object
{
  public:
    /** Receives a whole message. */
    using DeliverCallback = std::function<void(const MessageHeader&)>;
    /** Receives a problem report. */
    using ErrorCallback = std::function<void(const std::string&)>;
    /**
     * Signature of the CnpSent and CnpReceived trace sources.
     * \param peer the rank at the other end of the queue pair
     */
    typedef void (*CnpCallback)(uint32_t peer);
    /**
     * Signature of the GoBack trace source.
     * \param peer the rank at the other end of the queue pair
     * \param psn the first packet sequence number sent again
     */
    typedef void (*GoBackCallback)(uint32_t peer, uint32_t psn);

    /** Totals over the queue pairs, for the report. */
    struct Stats
    {
        uint64_t queuePairs{0};
        uint64_t dataPackets{0};
        uint64_t resentPackets{0};
        uint64_t naksSent{0};
        uint64_t naksReceived{0};
        uint64_t cnpsSent{0};
        uint64_t cnpsReceived{0};
        uint64_t timeouts{0};
        uint64_t outOfOrder{0};
        uint64_t duplicates{0};
        uint64_t misrouted{0}; //!< frames for another rank on a node that does not forward
    };

    /** \return the TypeId */
    static TypeId GetTypeId();
    RdmaNic();
    ~RdmaNic() override;

    /**
     * Sets where the NIC is (before AddPort).
     * \param topology the graph (kept)
     * \param rank this GPU's rank (its node index)
     */
    void Setup(std::shared_ptr<const ClusterTopology> topology, uint32_t rank);
    /**
     * Adds the node's next port (topology port order) and registers as its data source. The
     * caller sends the device's received frames to Receive with the returned index.
     */
    uint32_t AddPort(Ptr<RdmaNetDevice> device);
    /** In direct-connect topologies: where frames for other ranks go. */
    void SetTransitSwitch(Ptr<RdmaSwitch> transit);

    /** Where whole messages go (RdmaTransport). Messages that arrived before are handed now. */
    void SetDeliverCallback(DeliverCallback deliver);
    /** Where problems go. */
    void SetErrorCallback(ErrorCallback error);

    /**
     * Sends a message.
     * \param dstRank destination (not this rank)
     * \param header its header (payload size included)
     * \param done called when the peer has acknowledged its last packet
     */
    void Send(uint32_t dstRank, const MessageHeader& header, RdmaQueuePair::Done done);

    /** A frame arrived on port \p port. */
    void Receive(uint32_t port, Ptr<Packet> packet, uint8_t priority);

    /** \return this NIC's rank */
    uint32_t GetRank() const;
    /** \return the queue pair with \p peer, or null if none was created */
    const RdmaQueuePair* FindQueuePair(uint32_t peer) const;
    /** \return the queue pair with \p peer (created if needed) */
    RdmaQueuePair& GetQueuePair(uint32_t peer);
    /** \return totals over the queue pairs */
    Stats GetStats() const;
    /** Appends one line per queue pair with unacknowledged messages. */
    void DescribePending(std::vector<std::string>& lines) const;

  protected:
    void DoDispose() override;

  private:
    /** A port and the queue pairs that want it. */
    struct Port
    {
        Ptr<RdmaNetDevice> device;
        std::vector<RdmaQueuePair*> active; //!< queue pairs with packets to send
        std::size_t next{0};                //!< round-robin position
        Time wakeAt;                        //!< earliest pacing wake-up pending
    };

    /** \return the port's next data packet, if a queue pair may send now */
    Ptr<Packet> Dequeue(uint32_t port);
    /** Puts a queue pair with data on its port's list and wakes the port. */
    void Activate(RdmaQueuePair& queuePair);
    /** Wakes a port at \p at (pacing). */
    void ScheduleWake(uint32_t port, Time at);
    void WakePort(uint32_t port);
    /**
     * Watches a queue pair with unacknowledged data for the retransmission timeout, or stops
     * watching one with none (after its progress changed).
     */
    void ArmTimer(RdmaQueuePair& queuePair);
    /** The NIC's retransmission check: times out stalled queue pairs, re-arms for the rest. */
    void TimerFired();
    /** Sends a control packet of a queue pair on its port. */
    void SendControl(const RdmaQueuePair& queuePair, Ptr<Packet> packet);

    // Attributes.
    uint32_t m_congestionControl; //!< index of RdmaRateControl's models (CongestionControl)
    uint32_t m_ackInterval;

    /** What a queue pair does with a packet before its turn (Reordering). */
    enum Reordering : int
    {
        GO_BACK_N, //!< drop it, NAK the missing PSN
        SELECTIVE, //!< keep it until the gap fills
    };

    Reordering m_reordering;
    Time m_cnpInterval;
    Time m_retransmitTimeout;
    uint32_t m_payloadSize;

    std::shared_ptr<const ClusterTopology> m_topology;
    uint32_t m_rank{0};
    std::vector<Port> m_ports;
    Ptr<RdmaSwitch> m_transit;
    std::unordered_map<uint32_t, std::unique_ptr<RdmaQueuePair>> m_queuePairs;
    DeliverCallback m_deliver;
    std::vector<MessageHeader> m_early; //!< messages that arrived before a deliver callback
    ErrorCallback m_error;
    uint64_t m_misrouted{0};
    std::set<uint32_t> m_watched; //!< peers whose queue pair has unacknowledged data
    EventId m_timer;              //!< the retransmission check of the watched queue pairs

    TracedCallback<uint32_t> m_cnpReceivedTrace;
    TracedCallback<uint32_t> m_cnpSentTrace;
    TracedCallback<uint32_t, uint32_t> m_goBackTrace;
};

} // namespace ns3

#endif // CHAKRA_RDMA_NIC_H
