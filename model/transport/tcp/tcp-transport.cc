#include "tcp-transport.h"

#include "tcp-transport-socket.h"

#include "ns3/boolean.h"
#include "ns3/inet-socket-address.h"
#include "ns3/ipv4-header.h"
#include "ns3/ipv4-route.h"
#include "ns3/ipv4-routing-protocol.h"
#include "ns3/ipv4.h"
#include "ns3/log.h"
#include "ns3/packet.h"
#include "ns3/schedule-moved.h"
#include "ns3/simulator.h"
#include "ns3/tcp-socket-factory.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <limits>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("ChakraTcpTransport");
NS_OBJECT_ENSURE_REGISTERED(TcpTransport);

namespace
{
/** Largest single write to a socket (bounded by the free buffer space anyway). */
constexpr uint64_t kMaxWrite = 1u << 24;
} // namespace

TypeId
TcpTransport::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::TcpTransport")
            .SetParent<CommTransport>()
            .SetGroupName("Chakra")
            .AddConstructor<TcpTransport>()
            .AddAttribute("Port",
                          "TCP port every rank listens on.",
                          UintegerValue(7700),
                          MakeUintegerAccessor(&TcpTransport::m_port),
                          MakeUintegerChecker<uint16_t>())
            .AddAttribute("SegmentSize",
                          "TCP segment payload in bytes; 0: the MTU of the interface the route "
                          "to the peer leaves by, minus " +
                              std::to_string(kHeaderBytes) + " (IPv4, TCP and timestamp headers).",
                          UintegerValue(0),
                          MakeUintegerAccessor(&TcpTransport::m_segmentSize),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("BufferSize",
                          "TCP send and receive buffer per connection, in bytes: the most "
                          "bytes a flow has in flight. Must exceed bandwidth x RTT for a "
                          "single flow to reach line rate.",
                          UintegerValue(1u << 20),
                          MakeUintegerAccessor(&TcpTransport::m_bufferSize),
                          MakeUintegerChecker<uint32_t>(1u << 12))
            .AddAttribute("LineRateStart",
                          "Start every flow with a window of the whole buffer (no slow start), "
                          "as RDMA transports and NCCL's network plugins behave.",
                          BooleanValue(true),
                          MakeBooleanAccessor(&TcpTransport::m_lineRateStart),
                          MakeBooleanChecker())
            .AddAttribute("PreconnectLimit",
                          "Open connections to every other rank at start (before the trace "
                          "replays) when the job has at most this many ranks; with more, a "
                          "connection opens on the first message to a peer, which then costs "
                          "one extra round trip. Every connection is an endpoint that ns-3's "
                          "TCP demultiplexer scans per packet, hence the limit. 0: never.",
                          UintegerValue(32),
                          MakeUintegerAccessor(&TcpTransport::m_preconnectLimit),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("DelAckCount",
                          "Segments per delayed ACK.",
                          UintegerValue(2),
                          MakeUintegerAccessor(&TcpTransport::m_delAckCount),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("DelAckTimeout",
                          "Delayed ACK timeout (short: a send completes when acknowledged).",
                          TimeValue(MicroSeconds(1)),
                          MakeTimeAccessor(&TcpTransport::m_delAckTimeout),
                          MakeTimeChecker())
            .AddAttribute("MinRto",
                          "Minimum TCP retransmission timeout. The modeled fabric is lossless, "
                          "so a timeout can only be spurious: with every flow starting at a "
                          "full window, a rank talking to many peers queues peers x BufferSize "
                          "in its own NIC (15 MiB = 1.3 ms at 100 Gbps for 16 ranks), longer "
                          "than a datacenter RTO of 1 ms. 200 ms is Linux's default.",
                          TimeValue(MilliSeconds(200)),
                          MakeTimeAccessor(&TcpTransport::m_minRto),
                          MakeTimeChecker())
            .AddTraceSource("Retransmission",
                            "A data segment of one of this rank's connections (either "
                            "direction) sent again: its bytes. The modeled fabric is lossless, "
                            "so this should never fire (TcpTransportSocket).",
                            MakeTraceSourceAccessor(&TcpTransport::m_retransmissionTrace),
                            "ns3::TcpTransport::RetransmissionCallback");
    return tid;
}

TcpTransport::TcpTransport() = default;

TcpTransport::~TcpTransport() = default;

std::string
TcpTransport::GetModelName() const
{
    return "tcp";
}

void
TcpTransport::DoDispose()
{
    NS_LOG_FUNCTION(this);
    m_listener = nullptr;
    m_connections.clear();
    m_accepted.clear();
    m_incoming.clear();
    m_peerOfSocket.clear();
    CommTransport::DoDispose();
}

uint32_t
TcpTransport::SegmentSize(uint32_t peer) const
{
    NS_LOG_FUNCTION(this << peer);
    if (m_segmentSize != 0)
    {
        return m_segmentSize;
    }
    uint32_t mtu = std::numeric_limits<uint32_t>::max();
    // The MTU of the interface the route to the peer leaves by (NVLink and NIC paths differ);
    // without a route, the smallest MTU of the node's devices.
    Ptr<Ipv4> ipv4 = GetNode()->GetObject<Ipv4>();
    if (ipv4 && peer < GetPeers().size() && InetSocketAddress::IsMatchingType(GetPeers()[peer]))
    {
        Ipv4Header header;
        header.SetDestination(InetSocketAddress::ConvertFrom(GetPeers()[peer]).GetIpv4());
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
        for (uint32_t i = 0; i < GetNode()->GetNDevices(); ++i)
        {
            Ptr<NetDevice> device = GetNode()->GetDevice(i);
            if (device->GetInstanceTypeId().GetName() != "ns3::LoopbackNetDevice")
            {
                mtu = std::min<uint32_t>(mtu, device->GetMtu());
            }
        }
    }
    if (mtu == std::numeric_limits<uint32_t>::max() || mtu <= kHeaderBytes + 64)
    {
        mtu = 1500;
    }
    return mtu - kHeaderBytes;
}

void
TcpTransport::ConfigureSocket(Ptr<Socket> socket, uint32_t segment) const
{
    NS_LOG_FUNCTION(this << socket << segment);
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
TcpTransport::Start()
{
    NS_LOG_FUNCTION(this);
    if (!GetNode()->GetObject<TcpSocketFactory>())
    {
        // A node without ns-3's Internet stack cannot open a socket (ns-3 would crash): fine for
        // a job of one rank, which never sends; an error otherwise.
        if (GetPeers().size() > 1)
        {
            Fatal("rank " + std::to_string(GetRank()) +
                  ": its node has no TCP/IP stack (install ns-3's Internet stack and routes on "
                  "the ranks' nodes, or build the cluster with GpuClusterHelper)");
        }
        return;
    }
    m_listener = TcpTransportSocket::Create(GetNode());
    // Accepted sockets inherit this; they only send ACKs (and one byte), so any size works.
    ConfigureSocket(m_listener, SegmentSize(GetRank()));
    if (m_listener->Bind(InetSocketAddress(Ipv4Address::GetAny(), m_port)) != 0)
    {
        AddError("rank " + std::to_string(GetRank()) + ": cannot listen on port " +
                 std::to_string(m_port));
        return;
    }
    m_listener->Listen();
    m_listener->SetAcceptCallback(MakeCallback(&TcpTransport::HandleAcceptRequest, this),
                                  MakeCallback(&TcpTransport::HandleAccept, this));
    if (GetPeers().size() <= m_preconnectLimit)
    {
        for (uint32_t peer = 0; peer < GetPeers().size(); ++peer)
        {
            if (peer != GetRank())
            {
                GetConnection(peer);
            }
        }
    }
}

TcpTransport::Connection&
TcpTransport::GetConnection(uint32_t peer)
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
TcpTransport::OpenConnection(Connection& connection)
{
    NS_LOG_FUNCTION(this);
    connection.socket = TcpTransportSocket::Create(GetNode());
    ConfigureSocket(connection.socket, SegmentSize(connection.peer));
    TraceRetransmissions(connection.socket);
    connection.socket->Bind();
    m_peerOfSocket[PeekPointer(connection.socket)] = connection.peer;
    connection.socket->SetConnectCallback(MakeCallback(&TcpTransport::HandleConnected, this),
                                          MakeCallback(&TcpTransport::HandleConnectFailed, this));
    connection.socket->SetSendCallback(MakeCallback(&TcpTransport::HandleSendSpace, this));
    connection.socket->SetRecvCallback(MakeCallback(&TcpTransport::HandleDiscard, this));
    // The peer address is an InetSocketAddress without port or with the listening port.
    Address peer = GetPeers().at(connection.peer);
    if (InetSocketAddress::IsMatchingType(peer))
    {
        InetSocketAddress inet = InetSocketAddress::ConvertFrom(peer);
        inet.SetPort(m_port);
        peer = inet;
    }
    connection.socket->Connect(peer);
}

void
TcpTransport::HandleConnected(Ptr<Socket> socket)
{
    NS_LOG_FUNCTION(this << socket);
    Connection& connection = m_connections.at(m_peerOfSocket.at(PeekPointer(socket)));
    connection.connected = true;
    NS_LOG_LOGIC("rank " << GetRank() << " connected to " << connection.peer);
    Pump(connection);
}

void
TcpTransport::HandleConnectFailed(Ptr<Socket> socket)
{
    NS_LOG_FUNCTION(this << socket);
    uint32_t peer = m_peerOfSocket.at(PeekPointer(socket));
    AddError("rank " + std::to_string(GetRank()) + ": cannot connect to rank " +
             std::to_string(peer) + " (no route, or nothing listening)");
}

void
TcpTransport::HandleSendSpace(Ptr<Socket> socket, uint32_t /* available */)
{
    NS_LOG_FUNCTION(this << socket);
    auto it = m_peerOfSocket.find(PeekPointer(socket));
    if (it != m_peerOfSocket.end())
    {
        Pump(m_connections.at(it->second));
    }
}

void
TcpTransport::DoSend(uint32_t dst, const MessageHeader& header, Done done)
{
    NS_LOG_FUNCTION(this << dst);
    Outgoing message;
    message.header = header;
    message.remaining = header.payload;
    message.done = std::move(done);
    Connection& connection = GetConnection(dst);
    connection.queue.push_back(std::move(message));
    Pump(connection);
}

void
TcpTransport::Pump(Connection& connection)
{
    NS_LOG_FUNCTION(this);
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
                ScheduleMoved(Time(0), std::move(message.done));
            }
            connection.queue.pop_front();
        }
    }
}

bool
TcpTransport::HandleAcceptRequest(Ptr<Socket> /* socket */, const Address& /* from */)
{
    NS_LOG_FUNCTION(this);
    return true;
}

void
TcpTransport::HandleAccept(Ptr<Socket> socket, const Address& /* from */)
{
    NS_LOG_FUNCTION(this << socket);
    socket->SetRecvCallback(MakeCallback(&TcpTransport::HandleRecv, this));
    // A fork of the listener: its trace sources start without sinks.
    TraceRetransmissions(socket);
    m_incoming[PeekPointer(socket)] = Incoming();
    m_accepted.push_back(socket);
    // The SYN-ACK advertises at most 64 KiB (the window scale applies from the next segment),
    // and this side otherwise sends only ACKs after data arrives: the sender would stall one
    // round trip on its first message over 64 KiB. One byte back carries the scaled window.
    socket->Send(Create<Packet>(1));
}

void
TcpTransport::TraceRetransmissions(Ptr<Socket> socket)
{
    NS_LOG_FUNCTION(this << socket);
    if (!socket->TraceConnectWithoutContext(
            "Retransmission",
            MakeCallback(&TcpTransport::HandleRetransmission, this)))
    {
        NS_FATAL_ERROR("a tcp transport socket without the Retransmission trace source");
    }
}

void
TcpTransport::HandleRetransmission(SequenceNumber32 /* seq */, uint32_t bytes)
{
    NS_LOG_FUNCTION(this << bytes);
    ++m_retransmissions;
    m_retransmissionTrace(bytes);
}

uint64_t
TcpTransport::GetRetransmissions() const
{
    return m_retransmissions;
}

void
TcpTransport::HandleDiscard(Ptr<Socket> socket)
{
    NS_LOG_FUNCTION(this << socket);
    while (socket->Recv())
    {
    }
}

void
TcpTransport::HandleRecv(Ptr<Socket> socket)
{
    NS_LOG_FUNCTION(this << socket);
    Incoming& stream = m_incoming[PeekPointer(socket)];
    while (Ptr<Packet> packet = socket->Recv())
    {
        uint32_t size = packet->GetSize();
        uint32_t position = 0;
        while (position < size && !stream.broken)
        {
            if (!stream.inPayload)
            {
                uint32_t take =
                    std::min(MessageHeader::kSize - stream.headerBytes, size - position);
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
                    AddError("rank " + std::to_string(GetRank()) +
                             ": a stream lost its framing (bad header magic)");
                    break;
                }
                stream.remaining = stream.current.payload;
                stream.inPayload = true;
            }
            uint64_t take = std::min<uint64_t>(stream.remaining, size - position);
            stream.remaining -= take;
            position += static_cast<uint32_t>(take);
            if (stream.remaining == 0)
            {
                stream.inPayload = false;
                Deliver(stream.current);
            }
        }
    }
}

void
TcpTransport::DescribeModelPending(std::vector<std::string>& lines) const
{
    for (const auto& [peer, connection] : m_connections)
    {
        if (!connection.queue.empty())
        {
            lines.push_back(std::to_string(connection.queue.size()) + " message(s) to rank " +
                            std::to_string(peer) + " not yet handed to TCP" +
                            (connection.connected ? "" : " (connection not established)"));
        }
    }
}

} // namespace ns3
