/*
 * PeerTransport: one rank's TCP connections to the other ranks, message framing and matching.
 */
#ifndef CHAKRA_PEER_TRANSPORT_H
#define CHAKRA_PEER_TRANSPORT_H

#include "ns3/message-key.h"

#include "ns3/address.h"
#include "ns3/callback.h"
#include "ns3/node.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/socket.h"

#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup chakra
 * \brief This rank's side of the network: messages to and from other ranks over ns-3 TCP.
 *
 * Transport model (see doc/chakra.md, "Transport"):
 * - one TCP connection per ordered pair (sender -> receiver), opened by the sender (at start
 *   for every peer in jobs of up to PreconnectLimit ranks, else on the first message to that
 *   peer) and kept open;
 * - a message is a 41-byte header (sender, key, payload size) followed by the payload bytes
 *   (ns-3 virtual bytes: sizes are simulated, contents are not); messages of one pair arrive in
 *   the order they were sent, which gives MPI's non-overtaking rule for repeated tags;
 * - a receive completes when the last payload byte has arrived; a send completes when its last
 *   byte is in TCP's send buffer (MPI's local completion: the sender may go on; the bytes reach
 *   the receiver later, and FIFO order per connection keeps later messages behind them);
 * - sockets are tuned like a datacenter transport: segment = MTU of the path - 52 bytes (IP,
 *   TCP with timestamps), send and receive buffers of BufferSize (1 MiB: above bandwidth x
 *   RTT of NVLink and 400 Gbps NIC paths), an initial window of the whole buffer
 *   (flows start at line rate, the receive window caps bytes in flight), fast delayed ACKs and a
 *   200 ms minimum RTO (the fabric is lossless: a timeout could only be spurious).
 * Nothing here is shared with other ranks: peers are only addresses.
 */
class PeerTransport : public Object
{
  public:
    /** Called when a send or receive completes. */
    using Done = std::function<void()>;

    /** \return the TypeId */
    static TypeId GetTypeId();
    PeerTransport();
    ~PeerTransport() override;

    /**
     * \param node this rank's node
     * \param rank this rank
     * \param peers every rank's address (index = rank)
     */
    void Setup(Ptr<Node> node, uint32_t rank, const std::vector<Address>& peers);

    /** Starts listening and, in jobs of up to PreconnectLimit ranks, connects to every peer. */
    void Start();

    /**
     * Sends a message.
     * \param dst destination rank
     * \param key message identity
     * \param bytes payload size (64-bit)
     * \param done called when the last byte has been handed to TCP
     */
    void Send(uint32_t dst, const MessageKey& key, uint64_t bytes, Done done);

    /**
     * Posts a receive: completes when a message with this key from \p src has fully arrived
     * (at once if it already has). Receives with the same source and key match messages in
     * posting order.
     * \param src source rank
     * \param key message identity
     * \param bytes expected payload size (a different size is reported, not fatal)
     * \param done called on arrival of the last byte
     */
    void Recv(uint32_t src, const MessageKey& key, uint64_t bytes, Done done);

    /** \return one line per posted receive still waiting and per connection with unsent data */
    std::vector<std::string> DescribePending() const;
    /** \return problems seen (size mismatches, broken streams, failed connections) */
    const std::vector<std::string>& GetErrors() const;
    /** \return payload bytes sent so far */
    uint64_t GetBytesSent() const;
    /** \return payload bytes received so far */
    uint64_t GetBytesReceived() const;

  protected:
    void DoDispose() override;

  private:
    /** A message waiting to be written to a connection. */
    struct Outgoing
    {
        MessageHeader header;  //!< its header
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
        std::deque<Outgoing> queue;                  //!< messages not fully written
        uint64_t written{0};                         //!< bytes handed to TCP
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
    /** A posted receive. */
    struct PostedRecv
    {
        uint64_t bytes;
        Done done;
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
    /** Reads and drops what arrives on an outgoing connection (the window-opening byte). */
    void HandleDiscard(Ptr<Socket> socket);
    /** Writes as much queued data as the socket takes; completes fully written messages. */
    void Pump(Connection& connection);
    /** A whole message has arrived. */
    void Deliver(uint32_t src, const MessageKey& key, uint64_t bytes);
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

    Ptr<Node> m_node;
    uint32_t m_rank{0};
    std::vector<Address> m_peers;
    Ptr<Socket> m_listener;
    std::map<uint32_t, Connection> m_connections;        //!< by peer
    std::map<Socket*, uint32_t> m_peerOfSocket;          //!< outgoing socket -> peer
    std::map<Socket*, Incoming> m_incoming;              //!< accepted sockets
    std::vector<Ptr<Socket>> m_accepted;                 //!< keeps accepted sockets alive
    using Endpoint = std::pair<uint32_t, MessageKey>;    //!< (source, key)
    std::map<Endpoint, std::deque<PostedRecv>> m_posted; //!< receives waiting for a message
    std::map<Endpoint, std::deque<uint64_t>> m_arrived;  //!< messages waiting for a receive
    std::vector<std::string> m_errors;
    uint64_t m_bytesSent{0};
    uint64_t m_bytesReceived{0};
};

} // namespace ns3

#endif // CHAKRA_PEER_TRANSPORT_H
