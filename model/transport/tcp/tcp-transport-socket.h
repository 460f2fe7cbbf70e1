/*
 * TcpTransportSocket: ns-3's TcpSocketBase with the segment processing the tcp transport model
 * needs on a fabric that lets ACKs overtake data, and a trace of retransmitted segments.
 */
#ifndef CHAKRA_TCP_TRANSPORT_SOCKET_H
#define CHAKRA_TCP_TRANSPORT_SOCKET_H

#include "ns3/node.h"
#include "ns3/ptr.h"
#include "ns3/sequence-number.h"
#include "ns3/tcp-socket-base.h"
#include "ns3/traced-callback.h"

namespace ns3
{

/**
 * \ingroup chakra-transport
 * \brief The TCP socket of TcpTransport: ns-3's TcpSocketBase with two changes.
 *
 * - Data in a segment whose acknowledgment number is below SND.UNA is kept. ns-3 3.37
 *   (TcpSocketBase::ProcessEstablished, "Case 1") ignores such a segment whole, payload
 *   included, and sends nothing back. RFC 793 and RFC 9293 (3.10.7.4) ignore only the ACK and
 *   go on to process the segment text; RFC 5961 accepts any SEG.ACK down to SND.UNA -
 *   MAX.SND.WND. The case arises when a peer's pure ACK overtakes its own earlier data segments:
 *   the fabric's AckPriorityQueue sends ACK-sized packets ahead of queued data. With a
 *   connection opened on first use, the acceptor writes one byte back at accept, the opener
 *   acknowledges it with a pure ACK while its first data segments (acknowledging nothing new)
 *   still queue behind an incast, and ns-3 dropped all of those segments without a trace: the
 *   message then waited for a 200 ms retransmission timeout (issue 17). Here such a segment's
 *   acknowledgment number is raised to SND.UNA (it acknowledges nothing new either way) before
 *   ns-3 processes it, so its data is received.
 * - Trace source "Retransmission" (sequence number, bytes): a data segment sent again (after a
 *   timeout or in loss recovery). On the modeled lossless fabric it should never fire.
 *
 * Sockets are made by Create (as TcpL4Protocol::CreateSocket makes its own, with the node's
 * RTT estimator, congestion control and recovery types); the sockets a listener accepts are
 * forks of it, hence of this class too.
 */
class TcpTransportSocket : public TcpSocketBase
{
  public:
    /** \return the TypeId */
    static TypeId GetTypeId();
    /** \return this class's TypeId (TcpSocketBase's would hide the Retransmission trace) */
    TypeId GetInstanceTypeId() const override;
    TcpTransportSocket();
    /** A copy for Fork (the copy's trace source has no sinks: connect them anew). */
    TcpTransportSocket(const TcpTransportSocket& other);
    TcpTransportSocket& operator=(const TcpTransportSocket&) = delete;

    /**
     * \return a socket on \p node's TCP, registered with it as TcpL4Protocol::CreateSocket
     *         registers its own; nullptr when the node has no TCP
     */
    static Ptr<TcpTransportSocket> Create(Ptr<Node> node);

    /** Signature of the Retransmission trace: first sequence number and bytes of the segment. */
    typedef void (*RetransmissionCallback)(SequenceNumber32 seq, uint32_t bytes);

  protected:
    void DoForwardUp(Ptr<Packet> packet,
                     const Address& fromAddress,
                     const Address& toAddress) override;
    Ptr<TcpSocketBase> Fork() override;
    uint32_t SendDataPacket(SequenceNumber32 seq, uint32_t maxSize, bool withAck) override;

  private:
    TracedCallback<SequenceNumber32, uint32_t> m_retransmissionTrace;
};

} // namespace ns3

#endif // CHAKRA_TCP_TRANSPORT_SOCKET_H
