/*
 * TcpTransport: the "tcp" transport model: one rank's ns-3 TCP connections to the other ranks
 * and the framing of messages on them.
 */
#ifndef CHAKRA_TCP_TRANSPORT_H
#define CHAKRA_TCP_TRANSPORT_H

#include "ns3/address.h"
#include "ns3/callback.h"
#include "ns3/comm-transport.h"
#include "ns3/node.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/sequence-number.h"
#include "ns3/socket.h"
#include "ns3/traced-callback.h"

#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup chakra-transport
 * \brief The "tcp" model of CommTransport: messages to and from other ranks over ns-3 TCP.
 *
 * Transport model (see doc/chakra.md, "Transport"):
 * - one TCP connection per ordered pair (sender -> receiver), opened by the sender (at start
 *   for every peer in jobs of up to PreconnectLimit ranks, else on the first message to that
 *   peer) and kept open;
 * - a message is a MessageHeader (sender, key, payload size, the sender's call) followed by the
 *   payload bytes (ns-3 virtual bytes: sizes are simulated, contents are not); messages of one
 *   pair arrive in the order they were sent, which the matching above (CommTransport) relies
 *   on for MPI's non-overtaking rule;
 * - a receive completes when the last payload byte has arrived; a send completes when its last
 *   byte is in TCP's send buffer (MPI's local completion: the sender may go on; the bytes reach
 *   the receiver later, and FIFO order per connection keeps later messages behind them);
 * - sockets are tuned like a datacenter transport: segment = MTU of the path - 52 bytes (IP,
 *   TCP with timestamps), send and receive buffers of BufferSize (1 MiB: above bandwidth x
 *   RTT of NVLink and 400 Gbps NIC paths), an initial window of the whole buffer
 *   (flows start at line rate, the receive window caps bytes in flight), fast delayed ACKs and a
 *   200 ms minimum RTO (the fabric is lossless: a timeout could only be spurious);
 * - the sockets are TcpTransportSocket: ns-3's TCP, except that data in a segment whose ACK
 *   was overtaken by a later pure ACK (AckPriorityQueue) is kept instead of dropped, and that
 *   segments sent again are traced (Retransmission).
 * Nothing here is shared with other ranks: peers are only addresses.
 */
class TcpTransport : public CommTransport
{
  public:
    /** \return the TypeId */
    static TypeId GetTypeId();
    TcpTransport();
    ~TcpTransport() override;

    /** Starts listening and, in jobs of up to PreconnectLimit ranks, connects to every peer. */
    void Start() override;
    std::string GetModelName() const override;
    /** \return data segments sent again so far on this rank's connections (both directions) */
    uint64_t GetRetransmissions() const;
    /** Signature of the Retransmission trace: the bytes of the segment sent again. */
    typedef void (*RetransmissionCallback)(uint32_t bytes);

    /**
     * Bytes of each TCP segment inside the MTU that are not stream: IPv4 (20), TCP (20) and the
     * timestamp option (12). The one place this framing is written: the segment size, the flow
     * model's tcp framing (FlowFabric) and the docs' closed forms follow it.
     */
    static constexpr uint32_t kHeaderBytes = 20 + 20 + 12;
    /** Bytes each packet takes on the wire beyond the MTU: the PPP header of ns-3's
     *  point-to-point devices, which the IP fabric uses. */
    static constexpr uint32_t kLinkFramingBytes = 2;

  protected:
    void DoDispose() override;
    void DoSend(uint32_t dst, const MessageHeader& header, Done done) override;
    void DescribeModelPending(std::vector<std::string>& lines) const override;

  private:
    /** A message waiting to be written to a connection. */
    struct Outgoing
    {
        MessageHeader header; //!< its header
        bool headerWritten{false};
        uint64_t remaining{0}; //!< payload bytes not yet written
        Done done;             //!< completion
    };

    /** An outgoing connection (this rank -> one peer). */
    struct Connection
    {
        uint32_t peer{0};
        Ptr<Socket> socket;
        bool connected{false};
        std::deque<Outgoing> queue; //!< messages not fully written
        uint64_t written{0};        //!< bytes handed to TCP
    };

    /** Parser state of an incoming stream. */
    struct Incoming
    {
        uint8_t header[MessageHeader::kSize]; //!< header bytes being assembled
        uint32_t headerBytes{0};              //!< of them received
        MessageHeader current;                //!< header of the message being received
        uint64_t remaining{0};                //!< its payload bytes still to come
        bool inPayload{false};                //!< between header and end of payload
        bool broken{false};                   //!< framing lost (reported once)
    };

    Connection& GetConnection(uint32_t peer);
    void OpenConnection(Connection& connection);
    void ConfigureSocket(Ptr<Socket> socket, uint32_t segment) const;
    void HandleConnected(Ptr<Socket> socket);
    void HandleConnectFailed(Ptr<Socket> socket);
    void HandleSendSpace(Ptr<Socket> socket, uint32_t available);
    bool HandleAcceptRequest(Ptr<Socket> socket, const Address& from);
    void HandleAccept(Ptr<Socket> socket, const Address& from);
    void HandleRecv(Ptr<Socket> socket);
    /** Connects \p socket's Retransmission trace (a TcpTransportSocket's) to the count. */
    void TraceRetransmissions(Ptr<Socket> socket);
    /** Counts a retransmitted segment of one of the connections. */
    void HandleRetransmission(SequenceNumber32 seq, uint32_t bytes);
    /** Reads and drops what arrives on an outgoing connection (the window-opening byte). */
    void HandleDiscard(Ptr<Socket> socket);
    /** Writes as much queued data as the socket takes; completes fully written messages. */
    void Pump(Connection& connection);
    /** \return the segment size for the connection to \p peer */
    uint32_t SegmentSize(uint32_t peer) const;

    // Attributes.
    uint16_t m_port;
    uint32_t m_segmentSize;
    uint32_t m_bufferSize;
    bool m_lineRateStart;
    uint32_t m_preconnectLimit;
    uint32_t m_delAckCount;
    Time m_delAckTimeout;
    Time m_minRto;

    Ptr<Socket> m_listener;
    std::map<uint32_t, Connection> m_connections;   //!< by peer
    std::map<Socket*, uint32_t> m_peerOfSocket;     //!< outgoing socket -> peer
    std::map<Socket*, Incoming> m_incoming;         //!< accepted sockets
    std::vector<Ptr<Socket>> m_accepted;            //!< keeps accepted sockets alive
    uint64_t m_retransmissions{0};                  //!< segments sent again
    TracedCallback<uint32_t> m_retransmissionTrace; //!< bytes of each
};

} // namespace ns3

#endif // CHAKRA_TCP_TRANSPORT_H
