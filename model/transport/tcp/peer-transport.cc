#include "peer-transport.h"

#include "ns3/boolean.h"
#include "ns3/inet-socket-address.h"
#include "ns3/ipv4-header.h"
#include "ns3/ipv4-route.h"
#include "ns3/ipv4-routing-protocol.h"
#include "ns3/ipv4.h"
#include "ns3/log.h"
#include "ns3/packet.h"
#include "ns3/simulator.h"
#include "ns3/tcp-socket-factory.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <limits>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("ChakraPeerTransport");
NS_OBJECT_ENSURE_REGISTERED(PeerTransport);

namespace
{
/** Largest single write to a socket (bounded by the free buffer space anyway). */
constexpr uint64_t kMaxWrite = 1u << 24;
/** IPv4 (20) + TCP (20) + timestamp option (12) bytes per segment. */
constexpr uint32_t kTcpIpOverhead = 52;
} // namespace

TypeId
PeerTransport::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::PeerTransport")
            .SetParent<Object>()
            .SetGroupName("Chakra")
            .AddConstructor<PeerTransport>()
            .AddAttribute("Port",
                          "TCP port every rank listens on.",
                          UintegerValue(7700),
                          MakeUintegerAccessor(&PeerTransport::m_port),
                          MakeUintegerChecker<uint16_t>())
            .AddAttribute("SegmentSize",
                          "TCP segment payload in bytes; 0: the MTU of the interface the route "
                          "to the peer leaves by, minus 52 (IPv4, TCP and timestamp headers).",
                          UintegerValue(0),
                          MakeUintegerAccessor(&PeerTransport::m_segmentSize),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("BufferSize",
                          "TCP send and receive buffer per connection, in bytes: the most "
                          "bytes a flow has in flight. Must exceed bandwidth x RTT for a "
                          "single flow to reach line rate.",
                          UintegerValue(1u << 20),
                          MakeUintegerAccessor(&PeerTransport::m_bufferSize),
                          MakeUintegerChecker<uint32_t>(1u << 12))
            .AddAttribute("LineRateStart",
                          "Start every flow with a window of the whole buffer (no slow start), "
                          "as RDMA transports and NCCL's network plugins behave.",
                          BooleanValue(true),
                          MakeBooleanAccessor(&PeerTransport::m_lineRateStart),
                          MakeBooleanChecker())
            .AddAttribute("PreconnectLimit",
                          "Open connections to every other rank at start (before the trace "
                          "replays) when the job has at most this many ranks; with more, a "
                          "connection opens on the first message to a peer, which then costs "
                          "one extra round trip. Every connection is an endpoint that ns-3's "
                          "TCP demultiplexer scans per packet, hence the limit. 0: never.",
                          UintegerValue(32),
                          MakeUintegerAccessor(&PeerTransport::m_preconnectLimit),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("DelAckCount",
                          "Segments per delayed ACK.",
                          UintegerValue(2),
                          MakeUintegerAccessor(&PeerTransport::m_delAckCount),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("DelAckTimeout",
                          "Delayed ACK timeout (short: a send completes when acknowledged).",
                          TimeValue(MicroSeconds(1)),
                          MakeTimeAccessor(&PeerTransport::m_delAckTimeout),
                          MakeTimeChecker())
            .AddAttribute("MinRto",
                          "Minimum TCP retransmission timeout. The modeled fabric is lossless, "
                          "so a timeout can only be spurious: with every flow starting at a "
                          "full window, a rank talking to many peers queues peers x BufferSize "
                          "in its own NIC (15 MiB = 1.3 ms at 100 Gbps for 16 ranks), longer "
                          "than a datacenter RTO of 1 ms. 200 ms is Linux's default.",
                          TimeValue(MilliSeconds(200)),
                          MakeTimeAccessor(&PeerTransport::m_minRto),
                          MakeTimeChecker());
    return tid;
}

PeerTransport::PeerTransport() = default;

PeerTransport::~PeerTransport() = default;

void
PeerTransport::DoDispose()
{
    m_listener = nullptr;
    m_connections.clear();
    m_accepted.clear();
    m_incoming.clear();
    m_peerOfSocket.clear();
    m_posted.clear();
    m_node = nullptr;
    Object::DoDispose();
}

void
PeerTransport::Setup(Ptr<Node> node, uint32_t rank, const std::vector<Address>& peers)
{
    m_node = node;
    m_rank = rank;
    m_peers = peers;
}

uint32_t
PeerTransport::SegmentSize(uint32_t peer) const
{
    if (m_segmentSize != 0)
    {
        return m_segmentSize;
    }
    uint32_t mtu = std::numeric_limits<uint32_t>::max();
    // The MTU of the interface the route to the peer leaves by (NVLink and NIC paths differ);
    // without a route, the smallest MTU of the node's devices.
    Ptr<Ipv4> ipv4 = m_node->GetObject<Ipv4>();
    if (ipv4 && peer < m_peers.size() && InetSocketAddress::IsMatchingType(m_peers[peer]))
    {
        Ipv4Header header;
        header.SetDestination(InetSocketAddress::ConvertFrom(m_peers[peer]).GetIpv4());
        header.SetProtocol(6);
        Socket::SocketErrno error;
        Ptr<Ipv4Route> route =
            ipv4->GetRoutingProtocol()->RouteOutput(nullptr, header, nullptr, error);
        if (route && route->GetOutputDevice())
        {
            mtu = route->GetOutputDevice()->GetMtu();
        }
    }
    if (mtu == std::numeric_limits<uint32_t>::max())
    {
        for (uint32_t i = 0; i < m_node->GetNDevices(); ++i)
        {
            Ptr<NetDevice> device = m_node->GetDevice(i);
            if (device->GetInstanceTypeId().GetName() != "ns3::LoopbackNetDevice")
            {
                mtu = std::min<uint32_t>(mtu, device->GetMtu());
            }
        }
    }
    if (mtu == std::numeric_limits<uint32_t>::max() || mtu <= kTcpIpOverhead + 64)
    {
        mtu = 1500;
    }
    return mtu - kTcpIpOverhead;
}

void
PeerTransport::ConfigureSocket(Ptr<Socket> socket, uint32_t segment) const
{
    socket->SetAttribute("SegmentSize", UintegerValue(segment));
    socket->SetAttribute("SndBufSize", UintegerValue(m_bufferSize));
    socket->SetAttribute("RcvBufSize", UintegerValue(m_bufferSize));
    socket->SetAttribute("DelAckCount", UintegerValue(m_delAckCount));
    socket->SetAttribute("DelAckTimeout", TimeValue(m_delAckTimeout));
    socket->SetAttribute("TcpNoDelay", BooleanValue(true));
    socket->SetAttribute("MinRto", TimeValue(m_minRto));
    socket->SetAttribute("ClockGranularity", TimeValue(MicroSeconds(1)));
    if (m_lineRateStart)
    {
        socket->SetAttribute("InitialCwnd", UintegerValue(std::max(10u, m_bufferSize / segment)));
    }
}

void
PeerTransport::Start()
{
    m_listener = Socket::CreateSocket(m_node, TcpSocketFactory::GetTypeId());
    // Accepted sockets inherit this; they only send ACKs (and one byte), so any size works.
    ConfigureSocket(m_listener, SegmentSize(m_rank));
    if (m_listener->Bind(InetSocketAddress(Ipv4Address::GetAny(), m_port)) != 0)
    {
        m_errors.push_back("rank " + std::to_string(m_rank) + ": cannot listen on port " +
                           std::to_string(m_port));
        return;
    }
    m_listener->Listen();
    m_listener->SetAcceptCallback(MakeCallback(&PeerTransport::HandleAcceptRequest, this),
                                  MakeCallback(&PeerTransport::HandleAccept, this));
    if (m_peers.size() <= m_preconnectLimit)
    {
        for (uint32_t peer = 0; peer < m_peers.size(); ++peer)
        {
            if (peer != m_rank)
            {
                GetConnection(peer);
            }
        }
    }
}

PeerTransport::Connection&
PeerTransport::GetConnection(uint32_t peer)
{
    auto it = m_connections.find(peer);
    if (it != m_connections.end())
    {
        return it->second;
    }
    Connection& connection = m_connections[peer];
    connection.peer = peer;
    OpenConnection(connection);
    return connection;
}

void
PeerTransport::OpenConnection(Connection& connection)
{
    connection.socket = Socket::CreateSocket(m_node, TcpSocketFactory::GetTypeId());
    ConfigureSocket(connection.socket, SegmentSize(connection.peer));
    connection.socket->Bind();
    m_peerOfSocket[PeekPointer(connection.socket)] = connection.peer;
    connection.socket->SetConnectCallback(MakeCallback(&PeerTransport::HandleConnected, this),
                                          MakeCallback(&PeerTransport::HandleConnectFailed, this));
    connection.socket->SetSendCallback(MakeCallback(&PeerTransport::HandleSendSpace, this));
    connection.socket->SetRecvCallback(MakeCallback(&PeerTransport::HandleDiscard, this));
    // The peer address is an InetSocketAddress without port or with the listening port.
    Address peer = m_peers.at(connection.peer);
    if (InetSocketAddress::IsMatchingType(peer))
    {
        InetSocketAddress inet = InetSocketAddress::ConvertFrom(peer);
        inet.SetPort(m_port);
        peer = inet;
    }
    connection.socket->Connect(peer);
}

void
PeerTransport::HandleConnected(Ptr<Socket> socket)
{
    Connection& connection = m_connections.at(m_peerOfSocket.at(PeekPointer(socket)));
    connection.connected = true;
    NS_LOG_LOGIC("rank " << m_rank << " connected to " << connection.peer);
    Pump(connection);
}

void
PeerTransport::HandleConnectFailed(Ptr<Socket> socket)
{
    uint32_t peer = m_peerOfSocket.at(PeekPointer(socket));
    m_errors.push_back("rank " + std::to_string(m_rank) + ": cannot connect to rank " +
                       std::to_string(peer) + " (no route, or nothing listening)");
}

void
PeerTransport::HandleSendSpace(Ptr<Socket> socket, uint32_t /* available */)
{
    auto it = m_peerOfSocket.find(PeekPointer(socket));
    if (it != m_peerOfSocket.end())
    {
        Pump(m_connections.at(it->second));
    }
}

void
PeerTransport::Send(uint32_t dst, const MessageKey& key, uint64_t bytes, Done done)
{
    Outgoing message;
    message.header.src = m_rank;
    message.header.key = key;
    message.header.payload = bytes;
    message.remaining = bytes;
    message.done = std::move(done);
    if (dst == m_rank)
    {
        // A message to oneself never touches the network.
        Simulator::ScheduleNow([this, key, bytes, d = std::move(message.done)]() {
            Deliver(m_rank, key, bytes);
            d();
        });
        return;
    }
    Connection& connection = GetConnection(dst);
    connection.queue.push_back(std::move(message));
    m_bytesSent += bytes;
    Pump(connection);
}

void
PeerTransport::Pump(Connection& connection)
{
    if (connection.connected)
    {
        while (!connection.queue.empty())
        {
            Outgoing& message = connection.queue.front();
            uint32_t available = connection.socket->GetTxAvailable();
            if (!message.headerWritten)
            {
                if (available < MessageHeader::kSize)
                {
                    break;
                }
                uint8_t header[MessageHeader::kSize];
                message.header.Serialize(header);
                connection.socket->Send(Create<Packet>(header, MessageHeader::kSize));
                connection.written += MessageHeader::kSize;
                message.headerWritten = true;
                continue;
            }
            if (message.remaining > 0)
            {
                if (available == 0)
                {
                    break;
                }
                auto chunk = static_cast<uint32_t>(
                    std::min<uint64_t>({message.remaining, available, kMaxWrite}));
                // Virtual payload: the simulator carries the size, not the bytes.
                connection.socket->Send(Create<Packet>(chunk));
                connection.written += chunk;
                message.remaining -= chunk;
                if (message.remaining > 0)
                {
                    continue;
                }
            }
            // Local completion: the last byte is in TCP's hands. As an event, so that a
            // completion never runs inside the Send call that started it.
            if (message.done)
            {
                Simulator::ScheduleNow(std::move(message.done));
            }
            connection.queue.pop_front();
        }
    }
}

bool
PeerTransport::HandleAcceptRequest(Ptr<Socket> /* socket */, const Address& /* from */)
{
    return true;
}

void
PeerTransport::HandleAccept(Ptr<Socket> socket, const Address& /* from */)
{
    socket->SetRecvCallback(MakeCallback(&PeerTransport::HandleRecv, this));
    m_incoming[PeekPointer(socket)] = Incoming();
    m_accepted.push_back(socket);
    // The SYN-ACK advertises at most 64 KiB (the window scale applies from the next segment),
    // and this side otherwise sends only ACKs after data arrives: the sender would stall one
    // round trip on its first message over 64 KiB. One byte back carries the scaled window.
    socket->Send(Create<Packet>(1));
}

void
PeerTransport::HandleDiscard(Ptr<Socket> socket)
{
    while (socket->Recv())
    {
    }
}

void
PeerTransport::HandleRecv(Ptr<Socket> socket)
{
    Incoming& stream = m_incoming[PeekPointer(socket)];
    while (Ptr<Packet> packet = socket->Recv())
    {
        uint32_t size = packet->GetSize();
        uint32_t position = 0;
        while (position < size && !stream.broken)
        {
            if (!stream.inPayload)
            {
                uint32_t take = std::min(MessageHeader::kSize - stream.headerBytes, size - position);
                packet->CreateFragment(position, take)
                    ->CopyData(stream.header + stream.headerBytes, take);
                stream.headerBytes += take;
                position += take;
                if (stream.headerBytes < MessageHeader::kSize)
                {
                    continue;
                }
                stream.headerBytes = 0;
                if (!stream.current.Deserialize(stream.header))
                {
                    stream.broken = true;
                    m_errors.push_back("rank " + std::to_string(m_rank) +
                                       ": a stream lost its framing (bad header magic)");
                    break;
                }
                stream.remaining = stream.current.payload;
                stream.inPayload = true;
            }
            uint64_t take = std::min<uint64_t>(stream.remaining, size - position);
            stream.remaining -= take;
            position += static_cast<uint32_t>(take);
            m_bytesReceived += take;
            if (stream.remaining == 0)
            {
                stream.inPayload = false;
                Deliver(stream.current.src, stream.current.key, stream.current.payload);
            }
        }
    }
}

void
PeerTransport::Deliver(uint32_t src, const MessageKey& key, uint64_t bytes)
{
    Endpoint endpoint{src, key};
    auto posted = m_posted.find(endpoint);
    if (posted == m_posted.end() || posted->second.empty())
    {
        m_arrived[endpoint].push_back(bytes);
        return;
    }
    PostedRecv receive = std::move(posted->second.front());
    posted->second.pop_front();
    if (posted->second.empty())
    {
        m_posted.erase(posted);
    }
    if (receive.bytes != bytes)
    {
        m_errors.push_back("rank " + std::to_string(m_rank) + ": receive from rank " +
                           std::to_string(src) + " (" + key.ToString() + ") expected " +
                           std::to_string(receive.bytes) + " bytes, got " + std::to_string(bytes));
    }
    receive.done();
}

void
PeerTransport::Recv(uint32_t src, const MessageKey& key, uint64_t bytes, Done done)
{
    Endpoint endpoint{src, key};
    auto arrived = m_arrived.find(endpoint);
    if (arrived != m_arrived.end() && !arrived->second.empty())
    {
        uint64_t size = arrived->second.front();
        arrived->second.pop_front();
        if (arrived->second.empty())
        {
            m_arrived.erase(arrived);
        }
        if (size != bytes)
        {
            m_errors.push_back("rank " + std::to_string(m_rank) + ": receive from rank " +
                               std::to_string(src) + " (" + key.ToString() + ") expected " +
                               std::to_string(bytes) + " bytes, got " + std::to_string(size));
        }
        Simulator::ScheduleNow(std::move(done));
        return;
    }
    m_posted[endpoint].push_back(PostedRecv{bytes, std::move(done)});
}

std::vector<std::string>
PeerTransport::DescribePending() const
{
    std::vector<std::string> lines;
    for (const auto& [endpoint, receives] : m_posted)
    {
        for (const auto& receive : receives)
        {
            lines.push_back("waits for a message from rank " + std::to_string(endpoint.first) +
                            " (" + endpoint.second.ToString() + ", " +
                            std::to_string(receive.bytes) + " bytes)");
        }
    }
    for (const auto& [peer, connection] : m_connections)
    {
        if (!connection.queue.empty())
        {
            lines.push_back(std::to_string(connection.queue.size()) + " message(s) to rank " +
                            std::to_string(peer) + " not yet handed to TCP" +
                            (connection.connected ? "" : " (connection not established)"));
        }
    }
    return lines;
}

const std::vector<std::string>&
PeerTransport::GetErrors() const
{
    return m_errors;
}

uint64_t
PeerTransport::GetBytesSent() const
{
    return m_bytesSent;
}

uint64_t
PeerTransport::GetBytesReceived() const
{
    return m_bytesReceived;
}

} // namespace ns3
