#include "tcp-transport-socket.h"

#include "ns3/log.h"
#include "ns3/packet.h"
#include "ns3/rtt-estimator.h"
#include "ns3/tcp-congestion-ops.h"
#include "ns3/tcp-header.h"
#include "ns3/tcp-l4-protocol.h"
#include "ns3/tcp-recovery-ops.h"
#include "ns3/tcp-socket-state.h"
#include "ns3/tcp-tx-buffer.h"
#include "ns3/type-id.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("ChakraTcpTransportSocket");
NS_OBJECT_ENSURE_REGISTERED(TcpTransportSocket);

TypeId
TcpTransportSocket::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::TcpTransportSocket")
            .SetParent<TcpSocketBase>()
            .SetGroupName("Chakra")
            .AddConstructor<TcpTransportSocket>()
            .AddTraceSource("Retransmission",
                            "A data segment sent again (retransmission timeout or loss "
                            "recovery): its first sequence number and its bytes.",
                            MakeTraceSourceAccessor(&TcpTransportSocket::m_retransmissionTrace),
                            "ns3::TcpTransportSocket::RetransmissionCallback");
    return tid;
}

TypeId
TcpTransportSocket::GetInstanceTypeId() const
{
    return GetTypeId();
}

TcpTransportSocket::TcpTransportSocket() = default;

TcpTransportSocket::TcpTransportSocket(const TcpTransportSocket& other)
    : TcpSocketBase(other)
{
    NS_LOG_FUNCTION(this);
}

Ptr<TcpTransportSocket>
TcpTransportSocket::Create(Ptr<Node> node)
{
    Ptr<TcpL4Protocol> tcp = node->GetObject<TcpL4Protocol>();
    if (!tcp)
    {
        return nullptr;
    }
    // The node's own choices, as TcpL4Protocol::CreateSocket reads them.
    TypeIdValue rttType;
    TypeIdValue congestionType;
    TypeIdValue recoveryType;
    tcp->GetAttribute("RttEstimatorType", rttType);
    tcp->GetAttribute("SocketType", congestionType);
    tcp->GetAttribute("RecoveryType", recoveryType);
    ObjectFactory rttFactory(rttType.Get().GetName());
    ObjectFactory congestionFactory(congestionType.Get().GetName());
    ObjectFactory recoveryFactory(recoveryType.Get().GetName());

    Ptr<TcpTransportSocket> socket = CreateObject<TcpTransportSocket>();
    socket->SetNode(node);
    socket->SetTcp(tcp);
    socket->SetRtt(rttFactory.Create<RttEstimator>());
    socket->SetCongestionControlAlgorithm(congestionFactory.Create<TcpCongestionOps>());
    socket->SetRecoveryAlgorithm(recoveryFactory.Create<TcpRecoveryOps>());
    tcp->AddSocket(socket);
    return socket;
}

void
TcpTransportSocket::DoForwardUp(Ptr<Packet> packet,
                                const Address& fromAddress,
                                const Address& toAddress)
{
    NS_LOG_FUNCTION(this << packet);
    if (m_state == ESTABLISHED)
    {
        TcpHeader header;
        packet->PeekHeader(header);
        const uint8_t flags = header.GetFlags() &
                              ~(TcpHeader::PSH | TcpHeader::URG | TcpHeader::CWR | TcpHeader::ECE);
        // A data segment (ACK only among the flags ProcessEstablished dispatches on) that
        // acknowledges less than what is already acknowledged: ns-3 would drop its data.
        if (flags == TcpHeader::ACK && packet->GetSize() > header.GetSerializedSize() &&
            header.GetAckNumber() < m_txBuffer->HeadSequence())
        {
            NS_LOG_LOGIC("segment " << header.GetSequenceNumber() << " acknowledges "
                                    << header.GetAckNumber() << " < SND.UNA "
                                    << m_txBuffer->HeadSequence() << ": its data is kept");
            packet->RemoveHeader(header);
            header.SetAckNumber(m_txBuffer->HeadSequence());
            packet->AddHeader(header);
        }
    }
    TcpSocketBase::DoForwardUp(packet, fromAddress, toAddress);
}

Ptr<TcpSocketBase>
TcpTransportSocket::Fork()
{
    NS_LOG_FUNCTION(this);
    return CopyObject<TcpTransportSocket>(this);
}

uint32_t
TcpTransportSocket::SendDataPacket(SequenceNumber32 seq, uint32_t maxSize, bool withAck)
{
    NS_LOG_FUNCTION(this << maxSize << withAck);
    // Every byte below the highest sequence number sent has been sent before.
    const bool again = seq < m_tcb->m_highTxMark;
    const uint32_t sent = TcpSocketBase::SendDataPacket(seq, maxSize, withAck);
    if (again)
    {
        m_retransmissionTrace(seq, sent);
    }
    return sent;
}

} // namespace ns3
