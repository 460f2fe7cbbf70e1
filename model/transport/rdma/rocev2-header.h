/*
 * RoceV2Header: the IPv4, UDP and InfiniBand transport headers (BTH, plus AETH on ACKs) of a
 * RoCEv2 packet, in wire format, and the addressing and flow-hash rules of the RDMA fabric.
 */
#ifndef CHAKRA_ROCEV2_HEADER_H
#define CHAKRA_ROCEV2_HEADER_H

#include "ns3/header.h"
#include "ns3/ipv4-address.h"

#include <cstdint>

namespace ns3
{

/**
 * \ingroup chakra-transport
 * \brief IPv4 (20 bytes) + UDP (8) + BTH (12) [+ AETH (4) on ACK/NAK, + 16 reserved on CNP],
 * serialized exactly as on the wire (a capture would decode), read in one go.
 *
 * Switches read all three layers of every packet (destination, ECN, the UDP source port for
 * ECMP, the opcode), so they are one ns-3 header here rather than three. What the model uses:
 * - IPv4: source and destination address (one per rank, see AddressOfRank), DSCP (the traffic
 *   class: data or control), ECN (ECT(0) on data, CE when a switch marks), total length;
 * - UDP: source port (per queue pair; the ECMP entropy, as RoCE NICs do), destination port
 *   4791 (RoCEv2);
 * - BTH: opcode (SEND first/middle/last/only, ACKNOWLEDGE, CNP), destination QP, AckReq,
 *   PSN (24 bits);
 * - AETH: ACK or NAK (PSN sequence error) syndrome, MSN.
 * The ICRC (4 bytes) that ends every RoCEv2 packet is carried as 4 bytes of virtual payload
 * at the end of the packet (see kIcrcBytes), and the Ethernet framing is counted by the device
 * (RdmaNetDevice::kFramingBytes).
 */
class RoceV2Header : public Header
{
  public:
    /** BTH opcodes (RC transport) used by the model. */
    enum Opcode : uint8_t
    {
        SEND_FIRST = 0x00,
        SEND_MIDDLE = 0x01,
        SEND_LAST = 0x02,
        SEND_ONLY = 0x04,
        ACKNOWLEDGE = 0x11,
        CNP = 0x81, //!< congestion notification packet (RoCEv2)
    };

    /** AETH syndromes used by the model. */
    enum Syndrome : uint8_t
    {
        ACK = 0x1f,         //!< ACK, credits invalid (no end-to-end credits)
        NAK_SEQUENCE = 0x60 //!< NAK: PSN sequence error (the receiver wants the PSN given)
    };

    /** IPv4 ECN codepoints. */
    enum Ecn : uint8_t
    {
        NOT_ECT = 0,
        ECT1 = 1,
        ECT0 = 2,
        CE = 3,
    };

    /** IPv4 header bytes. */
    static constexpr uint32_t kIpv4Bytes = 20;
    /** UDP header bytes. */
    static constexpr uint32_t kUdpBytes = 8;
    /** BTH bytes. */
    static constexpr uint32_t kBthBytes = 12;
    /** AETH bytes (ACK/NAK). */
    static constexpr uint32_t kAethBytes = 4;
    /** Reserved bytes after the BTH of a CNP. */
    static constexpr uint32_t kCnpPadBytes = 16;
    /** Invariant CRC at the end of every packet. */
    static constexpr uint32_t kIcrcBytes = 4;
    /** IPv4 + UDP + BTH + ICRC: the bytes a data packet adds to its payload inside the IP MTU. */
    static constexpr uint32_t kDataOverhead = kIpv4Bytes + kUdpBytes + kBthBytes + kIcrcBytes;
    /** The RoCEv2 UDP destination port. */
    static constexpr uint16_t kRoceV2Port = 4791;
    /** PSNs are 24-bit. */
    static constexpr uint32_t kPsnMask = 0xffffff;

    /** \return the TypeId */
    static TypeId GetTypeId();
    TypeId GetInstanceTypeId() const override;
    RoceV2Header();

    uint32_t GetSerializedSize() const override;
    void Serialize(Buffer::Iterator start) const override;
    uint32_t Deserialize(Buffer::Iterator start) override;
    void Print(std::ostream& os) const override;

    // IPv4
    void SetSource(Ipv4Address source);
    Ipv4Address GetSource() const;
    void SetDestination(Ipv4Address destination);
    Ipv4Address GetDestination() const;
    void SetDscp(uint8_t dscp);
    uint8_t GetDscp() const;
    void SetEcn(Ecn ecn);
    Ecn GetEcn() const;
    /** \param bytes what follows this header (payload, ICRC): sets the IPv4 and UDP lengths */
    void SetPayloadSize(uint32_t bytes);
    /** \return what follows this header, from the IPv4 total length */
    uint32_t GetPayloadSize() const;
    // UDP
    void SetSourcePort(uint16_t port);
    uint16_t GetSourcePort() const;
    // BTH
    void SetOpcode(Opcode opcode);
    Opcode GetOpcode() const;
    void SetDestinationQp(uint32_t qp);
    uint32_t GetDestinationQp() const;
    void SetAckRequest(bool ackRequest);
    bool GetAckRequest() const;
    /** \param psn a packet sequence number (the low 24 bits are kept) */
    void SetPsn(uint32_t psn);
    uint32_t GetPsn() const;
    // AETH (ACKNOWLEDGE only)
    void SetSyndrome(Syndrome syndrome);
    Syndrome GetSyndrome() const;
    void SetMsn(uint32_t msn);
    uint32_t GetMsn() const;
    /**
     * Flags that an RdmaFeedbackHeader follows these headers (a reserved BTH bit: RoCEv2 has
     * no field for congestion-control telemetry or ACK feedback).
     */
    void SetFeedback(bool feedback);
    /** \return true if an RdmaFeedbackHeader follows */
    bool HasFeedback() const;

    /** \return true for SEND_* opcodes */
    bool IsData() const;

    /** \return the address of rank \p rank on the RDMA fabric (10.0.0.1 + rank) */
    static Ipv4Address AddressOfRank(uint32_t rank);
    /** \return the rank of an address made by AddressOfRank */
    static uint32_t RankOfAddress(Ipv4Address address);
    /**
     * The ECMP hash of a flow (what every switch and the flow model feed to
     * ClusterTopology::SelectNextHop): a mix of the source rank, destination rank and UDP
     * source port, i.e. of the addresses and the queue pair, like a switch's 5-tuple hash.
     */
    static uint64_t FlowHash(uint32_t srcRank, uint32_t dstRank, uint16_t sourcePort);

  private:
    Ipv4Address m_source;
    Ipv4Address m_destination;
    uint8_t m_dscp{0};
    uint8_t m_ecn{NOT_ECT};
    uint16_t m_totalLength{0}; //!< IPv4 total length
    uint16_t m_sourcePort{0};
    uint8_t m_opcode{SEND_ONLY};
    uint32_t m_destinationQp{0};
    bool m_ackRequest{false};
    uint32_t m_psn{0};
    uint8_t m_syndrome{ACK};
    uint32_t m_msn{0};
    bool m_feedback{false};
};

} // namespace ns3

#endif // CHAKRA_ROCEV2_HEADER_H
