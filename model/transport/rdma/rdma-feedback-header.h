/*
 * RdmaFeedbackHeader: the congestion-control extension of a RoCEv2 packet: in-band telemetry
 * that switches stamp on data packets (HPCC) and the feedback an ACK carries back (the
 * telemetry of the packet it answers, and how many packets it covers were ECN-marked).
 */
#ifndef CHAKRA_RDMA_FEEDBACK_HEADER_H
#define CHAKRA_RDMA_FEEDBACK_HEADER_H

#include "ns3/data-rate.h"
#include "ns3/header.h"
#include "ns3/nstime.h"

#include <array>
#include <cstdint>

namespace ns3
{

/**
 * \ingroup chakra-transport
 * \brief What follows the RoCEv2 headers when the BTH's extension bit is set
 * (RoceV2Header::SetFeedback): 8 bytes, then 8 bytes per hop slot.
 *
 * Layout: hop slots on the wire (1 byte), hops stamped (1), ECN-marked packets (2), packets
 * (2), reserved (2); then each slot as one 64-bit word. A data packet of a model that reads
 * telemetry (HPCC) leaves with kMaxHops empty slots (48 bytes, which the NIC takes out of its
 * payload per packet so that frames still fit the MTU); each switch it leaves fills the next
 * slot as the packet departs. An ACK carries the hops of the data packet it answers (only the
 * stamped ones) and the marked and total counts of the data packets since the previous ACK.
 *
 * A hop is packed as HPCC packs it (Li et al., SIGCOMM 2019: 8 bytes per hop, 5 hops), with
 * fields sized here: link rate in whole Gbps (12 bits, 1 to 4095), departure time in ns
 * (20 bits: wraps every 1.048576 ms), bytes the port has sent in 128-byte units (18 bits:
 * wraps every 32 MiB), egress queue in 128-byte units (14 bits: saturates at 2 MiB). Readers
 * take differences of time and bytes modulo their wrap (GetTimeDelta, GetBytesDelta).
 */
class RdmaFeedbackHeader : public Header
{
  public:
    /** Hop slots of a data packet (HPCC's maxHop). */
    static constexpr uint32_t kMaxHops = 5;
    /** Bytes of the fixed part. */
    static constexpr uint32_t kBaseBytes = 8;
    /** Bytes per hop slot. */
    static constexpr uint32_t kHopBytes = 8;
    /** Wire bytes of a data packet's telemetry area. */
    static constexpr uint32_t kDataBytes = kBaseBytes + kMaxHops * kHopBytes;

    /** One switch port's record, as packed on the wire. */
    struct Hop
    {
        uint32_t rateGbps{0}; //!< 12 bits
        uint32_t timeNs{0};   //!< 20 bits, ns modulo 2^20
        uint32_t bytes{0};    //!< 18 bits, 128-byte units modulo 2^18
        uint32_t queue{0};    //!< 14 bits, 128-byte units, saturated
        static constexpr uint32_t kByteUnit = 128;
        static constexpr uint64_t kTimeWrap = uint64_t(1) << 20;  //!< ns
        static constexpr uint64_t kBytesWrap = uint64_t(1) << 18; //!< units

        /** Fills the record; the rate must be a whole number of Gbps, 1 to 4095. */
        void Set(Time now, uint64_t txBytes, uint64_t queueBytes, DataRate rate);
        /** \return the link rate, bit/s */
        double GetRate() const;
        /** \return the queue, bytes (a multiple of kByteUnit) */
        uint64_t GetQueueBytes() const;
        /** \return ns from \p earlier's stamp to this one's (modulo the wrap) */
        uint64_t GetTimeDelta(const Hop& earlier) const;
        /** \return bytes sent from \p earlier's stamp to this one's (modulo the wrap) */
        uint64_t GetBytesDelta(const Hop& earlier) const;
        /** \return the 64-bit wire word */
        uint64_t Pack() const;
        /** Reads a wire word. */
        void Unpack(uint64_t word);
    };

    /** \return true if a port of \p rate can be stamped (a whole number of Gbps, 1..4095) */
    static bool IsStampableRate(DataRate rate);

    /** \return the TypeId */
    static TypeId GetTypeId();
    TypeId GetInstanceTypeId() const override;
    RdmaFeedbackHeader();

    uint32_t GetSerializedSize() const override;
    void Serialize(Buffer::Iterator start) const override;
    uint32_t Deserialize(Buffer::Iterator start) override;
    void Print(std::ostream& os) const override;

    /** Sets the slots on the wire (kMaxHops on a data packet; the hops on an ACK). */
    void SetSlots(uint32_t slots);
    /** \return the slots on the wire */
    uint32_t GetSlots() const;
    /**
     * Stamps the next slot.
     * \return false if every slot is taken (the path is longer than kMaxHops)
     */
    bool PushHop(const Hop& hop);
    /** \return the hops stamped */
    uint32_t GetHopCount() const;
    /** \return hop \p index (below GetHopCount) */
    const Hop& GetHop(uint32_t index) const;
    /** Copies \p data's stamped hops (an ACK echoing its data packet); slots = hops. */
    void CopyHops(const RdmaFeedbackHeader& data);

    /** Sets the ECN counts an ACK carries (saturated at 65535). */
    void SetCounts(uint32_t marked, uint32_t packets);
    /** \return CE-marked data packets since the previous ACK */
    uint32_t GetMarked() const;
    /** \return data packets since the previous ACK */
    uint32_t GetPackets() const;

  private:
    uint8_t m_slots{0};
    uint8_t m_hops{0};
    uint16_t m_marked{0};
    uint16_t m_packets{0};
    std::array<Hop, kMaxHops> m_hop{};
};

} // namespace ns3

#endif // CHAKRA_RDMA_FEEDBACK_HEADER_H
