#include "pfc-header.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(PfcHeader);

TypeId
PfcHeader::GetTypeId()
{
    static TypeId tid = TypeId("ns3::PfcHeader")
                            .SetParent<Header>()
                            .SetGroupName("Chakra")
                            .AddConstructor<PfcHeader>();
    return tid;
}

TypeId
PfcHeader::GetInstanceTypeId() const
{
    return GetTypeId();
}

PfcHeader::PfcHeader() = default;

uint32_t
PfcHeader::GetSerializedSize() const
{
    return kSize;
}

void
PfcHeader::Serialize(Buffer::Iterator start) const
{
    Buffer::Iterator i = start;
    i.WriteHtonU16(kOpcode);
    i.WriteHtonU16(m_enabled);
    for (uint16_t quanta : m_quanta)
    {
        i.WriteHtonU16(quanta);
    }
    for (uint32_t k = 4 + 2 * 8; k < kSize; ++k)
    {
        i.WriteU8(0);
    }
}

uint32_t
PfcHeader::Deserialize(Buffer::Iterator start)
{
    Buffer::Iterator i = start;
    i.ReadNtohU16(); // opcode
    m_enabled = static_cast<uint8_t>(i.ReadNtohU16());
    for (uint16_t& quanta : m_quanta)
    {
        quanta = i.ReadNtohU16();
    }
    return kSize;
}

void
PfcHeader::Print(std::ostream& os) const
{
    os << "PFC";
    for (uint8_t p = 0; p < 8; ++p)
    {
        if (IsEnabled(p))
        {
            os << " class " << uint32_t(p) << (m_quanta[p] == 0 ? " resume" : " pause ")
               << (m_quanta[p] == 0 ? "" : std::to_string(m_quanta[p]));
        }
    }
}

void
PfcHeader::SetPause(uint8_t priority, uint16_t quanta)
{
    m_enabled |= static_cast<uint8_t>(1u << (priority & 7));
    m_quanta[priority & 7] = quanta;
}

bool
PfcHeader::IsEnabled(uint8_t priority) const
{
    return (m_enabled >> (priority & 7)) & 1;
}

uint16_t
PfcHeader::GetQuanta(uint8_t priority) const
{
    return m_quanta[priority & 7];
}

} // namespace ns3
