#include "rdma-feedback-header.h"

#include <algorithm>
#include <cmath>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(RdmaFeedbackHeader);

namespace
{
constexpr uint32_t kRateBits = 12;
constexpr uint32_t kTimeBits = 20;
constexpr uint32_t kBytesBits = 18;
constexpr uint32_t kQueueBits = 14;
static_assert(kRateBits + kTimeBits + kBytesBits + kQueueBits == 64, "a hop is one word");

constexpr uint64_t
Mask(uint32_t bits)
{
    return (uint64_t(1) << bits) - 1;
}
} // namespace

void
RdmaFeedbackHeader::Hop::Set(Time now, uint64_t txBytes, uint64_t queueBytes, DataRate rate)
{
    rateGbps = static_cast<uint32_t>(rate.GetBitRate() / 1000000000ull) & Mask(kRateBits);
    timeNs = static_cast<uint32_t>(static_cast<uint64_t>(now.GetNanoSeconds()) & Mask(kTimeBits));
    bytes = static_cast<uint32_t>((txBytes / kByteUnit) & Mask(kBytesBits));
    queue = static_cast<uint32_t>(std::min<uint64_t>(queueBytes / kByteUnit, Mask(kQueueBits)));
}

double
RdmaFeedbackHeader::Hop::GetRate() const
{
    return static_cast<double>(rateGbps) * 1e9;
}

uint64_t
RdmaFeedbackHeader::Hop::GetQueueBytes() const
{
    return static_cast<uint64_t>(queue) * kByteUnit;
}

uint64_t
RdmaFeedbackHeader::Hop::GetTimeDelta(const Hop& earlier) const
{
    return (static_cast<uint64_t>(timeNs) - earlier.timeNs) & Mask(kTimeBits);
}

uint64_t
RdmaFeedbackHeader::Hop::GetBytesDelta(const Hop& earlier) const
{
    return ((static_cast<uint64_t>(bytes) - earlier.bytes) & Mask(kBytesBits)) * kByteUnit;
}

uint64_t
RdmaFeedbackHeader::Hop::Pack() const
{
    return (static_cast<uint64_t>(rateGbps) << (kTimeBits + kBytesBits + kQueueBits)) |
           (static_cast<uint64_t>(timeNs) << (kBytesBits + kQueueBits)) |
           (static_cast<uint64_t>(bytes) << kQueueBits) | queue;
}

void
RdmaFeedbackHeader::Hop::Unpack(uint64_t word)
{
    rateGbps = static_cast<uint32_t>(word >> (kTimeBits + kBytesBits + kQueueBits));
    timeNs = static_cast<uint32_t>((word >> (kBytesBits + kQueueBits)) & Mask(kTimeBits));
    bytes = static_cast<uint32_t>((word >> kQueueBits) & Mask(kBytesBits));
    queue = static_cast<uint32_t>(word & Mask(kQueueBits));
}

bool
RdmaFeedbackHeader::IsStampableRate(DataRate rate)
{
    const uint64_t bps = rate.GetBitRate();
    return bps % 1000000000ull == 0 && bps / 1000000000ull >= 1 &&
           bps / 1000000000ull <= Mask(kRateBits);
}

TypeId
RdmaFeedbackHeader::GetTypeId()
{
    static TypeId tid = TypeId("ns3::RdmaFeedbackHeader")
                            .SetParent<Header>()
                            .SetGroupName("Chakra")
                            .AddConstructor<RdmaFeedbackHeader>();
    return tid;
}

TypeId
RdmaFeedbackHeader::GetInstanceTypeId() const
{
    return GetTypeId();
}

RdmaFeedbackHeader::RdmaFeedbackHeader() = default;

uint32_t
RdmaFeedbackHeader::GetSerializedSize() const
{
    return kBaseBytes + kHopBytes * m_slots;
}

void
RdmaFeedbackHeader::Serialize(Buffer::Iterator start) const
{
    Buffer::Iterator i = start;
    i.WriteU8(m_slots);
    i.WriteU8(m_hops);
    i.WriteHtonU16(m_marked);
    i.WriteHtonU16(m_packets);
    i.WriteHtonU16(0);
    for (uint32_t k = 0; k < m_slots; ++k)
    {
        i.WriteHtonU64(k < m_hops ? m_hop[k].Pack() : 0);
    }
}

uint32_t
RdmaFeedbackHeader::Deserialize(Buffer::Iterator start)
{
    Buffer::Iterator i = start;
    m_slots = std::min<uint8_t>(i.ReadU8(), kMaxHops);
    m_hops = std::min(i.ReadU8(), m_slots);
    m_marked = i.ReadNtohU16();
    m_packets = i.ReadNtohU16();
    i.ReadNtohU16();
    for (uint32_t k = 0; k < m_slots; ++k)
    {
        m_hop[k].Unpack(i.ReadNtohU64());
    }
    return GetSerializedSize();
}

void
RdmaFeedbackHeader::Print(std::ostream& os) const
{
    os << "feedback hops " << uint32_t(m_hops) << "/" << uint32_t(m_slots) << " marked " << m_marked
       << "/" << m_packets;
    for (uint32_t k = 0; k < m_hops; ++k)
    {
        os << " [" << m_hop[k].rateGbps << "G t " << m_hop[k].timeNs << " q "
           << m_hop[k].GetQueueBytes() << "]";
    }
}

void
RdmaFeedbackHeader::SetSlots(uint32_t slots)
{
    m_slots = static_cast<uint8_t>(std::min(slots, kMaxHops));
    m_hops = std::min(m_hops, m_slots);
}

uint32_t
RdmaFeedbackHeader::GetSlots() const
{
    return m_slots;
}

bool
RdmaFeedbackHeader::PushHop(const Hop& hop)
{
    if (m_hops >= m_slots)
    {
        return false;
    }
    m_hop[m_hops++] = hop;
    return true;
}

uint32_t
RdmaFeedbackHeader::GetHopCount() const
{
    return m_hops;
}

const RdmaFeedbackHeader::Hop&
RdmaFeedbackHeader::GetHop(uint32_t index) const
{
    return m_hop.at(index);
}

void
RdmaFeedbackHeader::CopyHops(const RdmaFeedbackHeader& data)
{
    m_hop = data.m_hop;
    m_hops = data.m_hops;
    m_slots = data.m_hops;
}

void
RdmaFeedbackHeader::SetCounts(uint32_t marked, uint32_t packets)
{
    m_marked = static_cast<uint16_t>(std::min<uint32_t>(marked, 0xffff));
    m_packets = static_cast<uint16_t>(std::min<uint32_t>(packets, 0xffff));
}

uint32_t
RdmaFeedbackHeader::GetMarked() const
{
    return m_marked;
}

uint32_t
RdmaFeedbackHeader::GetPackets() const
{
    return m_packets;
}

} // namespace ns3
