/*
 * PfcHeader: the MAC control payload of an IEEE 802.1Qbb priority flow control frame.
 */
#ifndef CHAKRA_PFC_HEADER_H
#define CHAKRA_PFC_HEADER_H

#include "ns3/header.h"

#include <array>
#include <cstdint>

namespace ns3
{

/**
 * \ingroup chakra-transport
 * \brief A PFC frame's payload: opcode 0x0101, class-enable vector, eight pause times.
 *
 * A pause time is in quanta of 512 bit times at the link's rate; 0 releases the class
 * (RESUME). Padded to the 46-byte minimum Ethernet payload.
 */
class PfcHeader : public Header
{
  public:
    /** The MAC control opcode of PFC. */
    static constexpr uint16_t kOpcode = 0x0101;
    /** Serialized size: the minimum Ethernet payload. */
    static constexpr uint32_t kSize = 46;
    /** The longest pause a frame can ask for. */
    static constexpr uint16_t kMaxQuanta = 0xffff;

    /** \return the TypeId */
    static TypeId GetTypeId();
    TypeId GetInstanceTypeId() const override;
    PfcHeader();

    uint32_t GetSerializedSize() const override;
    void Serialize(Buffer::Iterator start) const override;
    uint32_t Deserialize(Buffer::Iterator start) override;
    void Print(std::ostream& os) const override;

    /**
     * Enables class \p priority with a pause time.
     * \param priority 0..7
     * \param quanta pause time in 512-bit-time quanta (0: resume)
     */
    void SetPause(uint8_t priority, uint16_t quanta);
    /** \return true if the frame says something about class \p priority */
    bool IsEnabled(uint8_t priority) const;
    /** \return the pause time of class \p priority, in quanta */
    uint16_t GetQuanta(uint8_t priority) const;

  private:
    uint8_t m_enabled{0};
    std::array<uint16_t, 8> m_quanta{};
};

} // namespace ns3

#endif // CHAKRA_PFC_HEADER_H
