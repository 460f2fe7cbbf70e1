/*
 * RdmaQueuePair: one reliable-connected queue pair between two ranks: segmentation, PSNs,
 * go-back-N, coalesced ACKs and CNP generation.
 */
#ifndef CHAKRA_RDMA_QUEUE_PAIR_H
#define CHAKRA_RDMA_QUEUE_PAIR_H

#include "rdma-feedback-header.h"
#include "rdma-rate-control.h"

#include "ns3/message-key.h"
#include "ns3/nstime.h"
#include "ns3/packet.h"
#include "ns3/rocev2-header.h"

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup chakra-transport
 * \brief This rank's end of the queue pair with one peer: it sends messages to the peer and
 * receives the peer's messages (each direction is its own flow).
 *
 * Sending: a message is its MessageHeader (MessageHeader::kSize bytes, real bytes in the first
 * packet) followed by its payload (virtual bytes), cut into packets of at most
 * PayloadPerPacket bytes: SEND_ONLY, or SEND_FIRST, SEND_MIDDLE..., SEND_LAST with AckReq.
 * PSNs run on across messages. Packets are built only when the NIC's port asks for one
 * (NextPacket), paced at the rate control's rate, so nothing is held per byte. The send
 * completes when an ACK covers its last PSN. A NAK (PSN sequence error) or RetransmitTimeout
 * without progress sends again from the first unacknowledged PSN (go-back-N).
 *
 * Receiving: packets are taken in PSN order only: the expected PSN is accepted; a later one
 * is dropped and answered by one NAK for the expected PSN (until it arrives); an earlier one
 * (a duplicate after go-back-N) is dropped and re-acknowledged. An ACK goes back every
 * AckInterval packets and on every AckReq (the last packet of a message). A CE-marked packet
 * makes a CNP, at most one per CnpInterval. A message is delivered when its last packet is
 * accepted.
 *
 * Congestion control beyond the rate (RdmaRateControl::GetFeedbackNeeds): a model's window
 * caps the stream bytes sent and not acknowledged (at least one packet may always be in
 * flight); for FEEDBACK_RTT the sender keeps each unacknowledged packet's send time and an ACK
 * gives the round trip of the packet it names; for FEEDBACK_TELEMETRY data packets carry an
 * empty RdmaFeedbackHeader that switches stamp; an ACK carries an RdmaFeedbackHeader when the
 * packet it answers had one or the receiving end's model counts ECN marks: the answered
 * packet's hops and the CE-marked and total data packets accepted since the previous ACK.
 *
 * Selective mode (Config::selective, for fabrics that spray packets): the receiver keeps a
 * later packet instead of dropping it (no NAK: reordering is expected) and takes it in PSN
 * order once the gap before it fills, acknowledging cumulatively; a retransmission timeout
 * resends only the first unacknowledged packet (the hole), and the next ACK moves the sender
 * past everything the receiver already holds.
 */
class RdmaQueuePair
{
  public:
    /** Called when a send completes. */
    using Done = std::function<void()>;

    /** Fixed parameters. */
    struct Config
    {
        uint32_t localRank{0};
        uint32_t peerRank{0};
        uint16_t sourcePort{0};       //!< UDP source port of everything this end sends
        uint32_t payloadPerPacket{0}; //!< bytes of message stream per packet
        uint32_t port{0};             //!< the NIC port it sends on
        uint32_t ackInterval{1};
        Time cnpInterval;
        uint8_t dataDscp{26};
        uint8_t controlDscp{48};
        bool selective{false}; //!< keep out-of-order packets (RdmaNic::Reordering)
    };

    /** What receiving a packet asks the NIC to do. */
    struct RxActions
    {
        bool sendAck{false};
        bool sendNak{false};
        bool sendCnp{false};
        uint32_t ackPsn{0};                   //!< PSN the ACK or NAK carries
        std::vector<MessageHeader> delivered; //!< messages complete with this packet
        std::string error;                    //!< a malformed stream (reported, not fatal)
        bool withFeedback{false};             //!< the ACK carries ackFeedback
        RdmaFeedbackHeader ackFeedback;       //!< what the ACK carries back
    };

    /** Counters. */
    struct Stats
    {
        uint64_t dataPackets{0};   //!< data packets sent (first transmissions and resends)
        uint64_t resentPackets{0}; //!< of them, sent again by go-back-N
        uint64_t naksSent{0};
        uint64_t naksReceived{0};
        uint64_t cnpsSent{0};
        uint64_t cnpsReceived{0};
        uint64_t timeouts{0};
        uint64_t outOfOrder{0}; //!< packets dropped at the receiver for a gap
        uint64_t duplicates{0}; //!< packets dropped at the receiver as already received
    };

    /**
     * \param config fixed parameters
     * \param rateControl the congestion control of the sending direction (started here)
     * \param lineRate the rate of the port it sends on
     * \param now the current time
     */
    RdmaQueuePair(const Config& config,
                  Ptr<RdmaRateControl> rateControl,
                  DataRate lineRate,
                  Time now);

    /** Queues a message; \p done runs when its last PSN is acknowledged. */
    void Post(const MessageHeader& header, Done done);
    /** \return true if some packet waits to be sent (new or to resend) */
    bool HasDataToSend() const;
    /** \return true if some sent packet is not yet acknowledged */
    bool HasOutstanding() const;
    /** \return the earliest time pacing lets the next packet go */
    Time GetNextSendTime() const;
    /** Builds and accounts the next packet (call when HasDataToSend and pacing allows). */
    Ptr<Packet> NextPacket(Time now);

    /**
     * An ACK or NAK for the sending direction arrived.
     * \param header its headers
     * \param feedback its RdmaFeedbackHeader, or null
     * \param now the current time
     * \param[out] completed the completions of sends now fully acknowledged, in order
     * \return true if the queue pair went back (NAK) and has packets to send again
     */
    bool OnAck(const RoceV2Header& header,
               const RdmaFeedbackHeader* feedback,
               Time now,
               std::vector<Done>& completed);
    /** A CNP for the sending direction arrived. */
    void OnCnp(Time now);
    /**
     * The retransmission check: goes back to the first unacknowledged PSN if nothing was
     * acknowledged for \p timeout.
     * \return true if it went back
     */
    bool CheckTimeout(Time now, Time timeout);
    /** \return when the retransmission check is due (last progress + \p timeout) */
    Time GetTimeoutAt(Time timeout) const;
    /** Marks the retransmission check as scheduled or not. */
    void SetTimerPending(bool pending);
    /** \return true if a retransmission check is scheduled */
    bool IsTimerPending() const;

    /**
     * A data packet arrived (headers removed from \p packet, which holds the stream bytes and
     * the ICRC); \p feedback is its RdmaFeedbackHeader, or null.
     */
    void OnData(const RoceV2Header& header,
                const RdmaFeedbackHeader* feedback,
                Ptr<Packet> packet,
                Time now,
                RxActions& actions);

    /**
     * \return an ACK (or NAK) for the receiving direction, carrying \p psn and \p feedback
     *         (if not null)
     */
    Ptr<Packet> MakeAck(uint32_t psn, bool nak, const RdmaFeedbackHeader* feedback = nullptr) const;
    /** \return a CNP for the peer's sending direction */
    Ptr<Packet> MakeCnp() const;

    /** \return the fixed parameters */
    const Config& GetConfig() const;
    /** \return the rate control */
    Ptr<RdmaRateControl> GetRateControl() const;
    /** \return counters */
    const Stats& GetStats() const;
    /** \return messages posted and not yet acknowledged */
    std::size_t GetPendingMessages() const;
    /** \return bytes of payload sent and acknowledged so far */
    uint64_t GetAckedPayload() const;

    /** \return the window the rate control sets (stream bytes in flight; 0: none) */
    uint64_t GetWindow() const;

    /** \return true while the NIC's port lists it as wanting to send */
    bool IsScheduled() const;
    /** Set by the NIC's port scheduler. */
    void SetScheduled(bool scheduled);

  private:
    /** A posted message not yet fully acknowledged. */
    struct Outgoing
    {
        MessageHeader header;
        uint64_t firstPsn{0};
        uint64_t packets{0};
        Done done;
    };

    /** \return a 24-bit PSN made 64-bit, relative to \p reference (a window of +-2^23) */
    static uint64_t Unwrap(uint32_t psn, uint64_t reference);
    /** \return the stream bytes of a message */
    static uint64_t StreamBytes(const MessageHeader& header);
    /** Puts the send cursor on the message that holds m_nextPsn. */
    void SeekCursor();
    /** \return the stream bytes in flight once the PSNs before \p nextPsn are sent */
    uint64_t BytesInFlight(uint64_t nextPsn) const;
    /** Builds the packet of m_nextPsn and moves on (NextPacket's work). */
    Ptr<Packet> BuildNext(Time now);
    /** Takes the in-order packet \p psn (OnData's work once the order is right). */
    void Accept(const RoceV2Header& header,
                const RdmaFeedbackHeader* feedback,
                Ptr<Packet> packet,
                uint64_t psn,
                RxActions& actions);
    /** \return a control packet's headers, ready for its opcode */
    RoceV2Header ControlHeader(RoceV2Header::Opcode opcode) const;

    Config m_config;
    Ptr<RdmaRateControl> m_rateControl;
    DataRate m_lineRate;
    uint32_t m_needs{0};  //!< the rate control's RdmaRateControl::Feedback bits
    uint64_t m_window{0}; //!< its window (0: none)

    // Sending direction.
    std::deque<Outgoing> m_messages; //!< posted, not fully acknowledged
    std::size_t m_cursor{0};         //!< index in m_messages of the message of m_nextPsn
    uint64_t m_nextPsn{0};           //!< next PSN to send
    uint64_t m_unackedPsn{0};        //!< first PSN not acknowledged
    uint64_t m_highestSent{0};       //!< one past the highest PSN ever sent
    uint64_t m_endPsn{0};            //!< one past the last PSN posted
    Time m_nextSend;                 //!< pacing
    Time m_lastProgress;             //!< last time the unacknowledged PSN moved (or sending began)
    bool m_timerPending{false};
    bool m_scheduled{false};
    uint64_t m_ackedPayload{0};
    std::deque<Time> m_sentAt; //!< FEEDBACK_RTT: last send time of PSNs from m_sentBase on
    uint64_t m_sentBase{0};
    bool m_resendPending{false}; //!< selective: the hole at m_resendPsn goes first
    uint64_t m_resendPsn{0};

    // Receiving direction.
    uint64_t m_expectedPsn{0};
    bool m_nakSent{false};
    bool m_inMessage{false};
    MessageHeader m_current;  //!< the message being received
    uint64_t m_streamLeft{0}; //!< its stream bytes still to come
    uint32_t m_sinceAck{0};   //!< packets accepted since the last ACK
    uint32_t m_duplicatesSinceAck{0};
    Time m_lastCnp;
    bool m_cnpSent{false};
    uint32_t m_msn{0};       //!< messages received (AETH MSN)
    uint32_t m_rxPackets{0}; //!< data packets accepted since the last ACK
    uint32_t m_rxMarked{0};  //!< of them, CE-marked

    /** A packet that arrived before its turn (selective mode). */
    struct Held
    {
        RoceV2Header header;
        Ptr<Packet> packet;
        bool hasFeedback{false};
        RdmaFeedbackHeader feedback;
    };

    std::map<uint64_t, Held> m_held; //!< by PSN

    Stats m_stats;
};

} // namespace ns3

#endif // CHAKRA_RDMA_QUEUE_PAIR_H
