#include "rocev2-header.h"

#include "ns3/cluster-topology.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(RoceV2Header);

namespace
{
/** Base of the rank addresses: rank r is 10.0.0.1 + r. */
constexpr uint32_t kRankAddressBase = 0x0a000001;
/** Seed of the flow hash (any constant; fixed so paths are the same in every run). */
constexpr uint64_t kFlowHashSeed = 0x526f4345763200ull; // "RoCEv2"
/** The lowest of the BTH's reserved bits before DestQP: an RdmaFeedbackHeader follows. */
constexpr uint32_t kFeedbackBit = 0x01000000u;
} // namespace

TypeId
RoceV2Header::GetTypeId()
{
    static TypeId tid = TypeId("ns3::RoceV2Header")
                            .SetParent<Header>()
                            .SetGroupName("Chakra")
                            .AddConstructor<RoceV2Header>();
    return tid;
}

TypeId
RoceV2Header::GetInstanceTypeId() const
{
    return GetTypeId();
}

RoceV2Header::RoceV2Header() = default;

uint32_t
RoceV2Header::GetSerializedSize() const
{
    uint32_t size = kIpv4Bytes + kUdpBytes + kBthBytes;
    if (m_opcode == ACKNOWLEDGE)
    {
        size += kAethBytes;
    }
    else if (m_opcode == CNP)
    {
        size += kCnpPadBytes;
    }
    return size;
}

void
RoceV2Header::Serialize(Buffer::Iterator start) const
{
    Buffer::Iterator i = start;
    // IPv4: version 4, IHL 5; no options, no fragmentation; checksum left 0 as ns-3 does
    // unless checksums are enabled (nothing here verifies it).
    i.WriteU8(0x45);
    i.WriteU8(static_cast<uint8_t>((m_dscp << 2) | (m_ecn & 0x3)));
    i.WriteHtonU16(m_totalLength);
    i.WriteHtonU16(0);      // identification
    i.WriteHtonU16(0x4000); // don't fragment
    i.WriteU8(64);          // TTL
    i.WriteU8(17);          // UDP
    i.WriteHtonU16(0);      // checksum
    i.WriteHtonU32(m_source.Get());
    i.WriteHtonU32(m_destination.Get());
    // UDP: RoCEv2 leaves the checksum 0 (the ICRC covers the packet).
    i.WriteHtonU16(m_sourcePort);
    i.WriteHtonU16(kRoceV2Port);
    i.WriteHtonU16(static_cast<uint16_t>(m_totalLength - kIpv4Bytes));
    i.WriteHtonU16(0);
    // BTH: opcode; SE/M/pad/TVer; P_Key; reserved + DestQP; A + reserved + PSN.
    i.WriteU8(m_opcode);
    i.WriteU8(0x40); // MigReq set, no padding, transport version 0
    i.WriteHtonU16(0xffff);
    i.WriteHtonU32((m_feedback ? kFeedbackBit : 0u) | (m_destinationQp & 0xffffff));
    i.WriteHtonU32((m_ackRequest ? 0x80000000u : 0u) | (m_psn & kPsnMask));
    if (m_opcode == ACKNOWLEDGE)
    {
        i.WriteHtonU32((static_cast<uint32_t>(m_syndrome) << 24) | (m_msn & 0xffffff));
    }
    else if (m_opcode == CNP)
    {
        for (uint32_t k = 0; k < kCnpPadBytes; ++k)
        {
            i.WriteU8(0);
        }
    }
}

uint32_t
RoceV2Header::Deserialize(Buffer::Iterator start)
{
    Buffer::Iterator i = start;
    i.ReadU8(); // version, IHL
    const uint8_t tos = i.ReadU8();
    m_dscp = tos >> 2;
    m_ecn = tos & 0x3;
    m_totalLength = i.ReadNtohU16();
    i.Next(8); // identification, flags, TTL, protocol, checksum
    m_source.Set(i.ReadNtohU32());
    m_destination.Set(i.ReadNtohU32());
    m_sourcePort = i.ReadNtohU16();
    i.Next(6); // destination port, length, checksum
    m_opcode = i.ReadU8();
    i.Next(3); // flags, P_Key
    const uint32_t qp = i.ReadNtohU32();
    m_destinationQp = qp & 0xffffff;
    m_feedback = (qp & kFeedbackBit) != 0;
    const uint32_t word = i.ReadNtohU32();
    m_ackRequest = (word & 0x80000000u) != 0;
    m_psn = word & kPsnMask;
    if (m_opcode == ACKNOWLEDGE)
    {
        const uint32_t aeth = i.ReadNtohU32();
        m_syndrome = static_cast<uint8_t>(aeth >> 24);
        m_msn = aeth & 0xffffff;
    }
    else if (m_opcode == CNP)
    {
        i.Next(kCnpPadBytes);
    }
    return GetSerializedSize();
}

void
RoceV2Header::Print(std::ostream& os) const
{
    os << m_source << " > " << m_destination << " dscp " << uint32_t(m_dscp) << " ecn "
       << uint32_t(m_ecn) << " sport " << m_sourcePort << " opcode 0x" << std::hex
       << uint32_t(m_opcode) << std::dec << " qp " << m_destinationQp << " psn " << m_psn
       << (m_ackRequest ? " A" : "") << (m_feedback ? " +feedback" : "");
    if (m_opcode == ACKNOWLEDGE)
    {
        os << (m_syndrome == NAK_SEQUENCE ? " NAK" : " ACK") << " msn " << m_msn;
    }
}

void
RoceV2Header::SetFeedback(bool feedback)
{
    m_feedback = feedback;
}

bool
RoceV2Header::HasFeedback() const
{
    return m_feedback;
}

void
RoceV2Header::SetSource(Ipv4Address source)
{
    m_source = source;
}

Ipv4Address
RoceV2Header::GetSource() const
{
    return m_source;
}

void
RoceV2Header::SetDestination(Ipv4Address destination)
{
    m_destination = destination;
}

Ipv4Address
RoceV2Header::GetDestination() const
{
    return m_destination;
}

void
RoceV2Header::SetDscp(uint8_t dscp)
{
    m_dscp = dscp & 0x3f;
}

uint8_t
RoceV2Header::GetDscp() const
{
    return m_dscp;
}

void
RoceV2Header::SetEcn(Ecn ecn)
{
    m_ecn = ecn;
}

RoceV2Header::Ecn
RoceV2Header::GetEcn() const
{
    return static_cast<Ecn>(m_ecn);
}

void
RoceV2Header::SetPayloadSize(uint32_t bytes)
{
    m_totalLength = static_cast<uint16_t>(GetSerializedSize() + bytes);
}

uint32_t
RoceV2Header::GetPayloadSize() const
{
    return m_totalLength - GetSerializedSize();
}

void
RoceV2Header::SetSourcePort(uint16_t port)
{
    m_sourcePort = port;
}

uint16_t
RoceV2Header::GetSourcePort() const
{
    return m_sourcePort;
}

void
RoceV2Header::SetOpcode(Opcode opcode)
{
    m_opcode = opcode;
}

RoceV2Header::Opcode
RoceV2Header::GetOpcode() const
{
    return static_cast<Opcode>(m_opcode);
}

void
RoceV2Header::SetDestinationQp(uint32_t qp)
{
    m_destinationQp = qp & 0xffffff;
}

uint32_t
RoceV2Header::GetDestinationQp() const
{
    return m_destinationQp;
}

void
RoceV2Header::SetAckRequest(bool ackRequest)
{
    m_ackRequest = ackRequest;
}

bool
RoceV2Header::GetAckRequest() const
{
    return m_ackRequest;
}

void
RoceV2Header::SetPsn(uint32_t psn)
{
    m_psn = psn & kPsnMask;
}

uint32_t
RoceV2Header::GetPsn() const
{
    return m_psn;
}

void
RoceV2Header::SetSyndrome(Syndrome syndrome)
{
    m_syndrome = syndrome;
}

RoceV2Header::Syndrome
RoceV2Header::GetSyndrome() const
{
    return static_cast<Syndrome>(m_syndrome);
}

void
RoceV2Header::SetMsn(uint32_t msn)
{
    m_msn = msn & 0xffffff;
}

uint32_t
RoceV2Header::GetMsn() const
{
    return m_msn;
}

bool
RoceV2Header::IsData() const
{
    return m_opcode <= SEND_ONLY;
}

Ipv4Address
RoceV2Header::AddressOfRank(uint32_t rank)
{
    return Ipv4Address(kRankAddressBase + rank);
}

uint32_t
RoceV2Header::RankOfAddress(Ipv4Address address)
{
    return address.Get() - kRankAddressBase;
}

uint64_t
RoceV2Header::FlowHash(uint32_t srcRank, uint32_t dstRank, uint16_t sourcePort)
{
    return ClusterTopology::Mix(
        ClusterTopology::Mix(ClusterTopology::Mix(kFlowHashSeed, srcRank), dstRank),
        sourcePort);
}

} // namespace ns3
