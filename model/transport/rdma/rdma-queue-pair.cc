#include "rdma-queue-pair.h"

#include "ns3/header.h"
#include "ns3/log.h"
#include "ns3/rdma-net-device.h"

#include <algorithm>
#include <cmath>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("ChakraRdmaQueuePair");

namespace
{

/** The MessageHeader at the start of a message's first packet (real bytes on the wire). */
class MessageChunk : public Header
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid =
            TypeId("ns3::RdmaMessageChunk").SetParent<Header>().SetGroupName("Chakra");
        return tid;
    }

    TypeId GetInstanceTypeId() const override
    {
        return GetTypeId();
    }

    uint32_t GetSerializedSize() const override
    {
        return MessageHeader::kSize;
    }

    void Serialize(Buffer::Iterator start) const override
    {
        uint8_t bytes[MessageHeader::kSize];
        header.Serialize(bytes);
        start.Write(bytes, MessageHeader::kSize);
    }

    uint32_t Deserialize(Buffer::Iterator start) override
    {
        uint8_t bytes[MessageHeader::kSize];
        start.Read(bytes, MessageHeader::kSize);
        valid = header.Deserialize(bytes);
        return MessageHeader::kSize;
    }

    void Print(std::ostream& os) const override
    {
        os << "message from rank " << header.src << " " << header.key.ToString() << " payload "
           << header.payload;
    }

    MessageHeader header;
    bool valid{false};
};

constexpr uint64_t kPsnSpace = uint64_t(1) << 24;

} // namespace

RdmaQueuePair::RdmaQueuePair(const Config& config,
                             Ptr<RdmaRateControl> rateControl,
                             DataRate lineRate,
                             Time now)
    : m_config(config),
      m_rateControl(rateControl),
      m_lineRate(lineRate)
{
    NS_LOG_FUNCTION(this << rateControl << lineRate);
    m_rateControl->Start(lineRate, now);
    m_needs = m_rateControl->GetFeedbackNeeds();
    m_window = m_rateControl->GetWindow();
}

uint64_t
RdmaQueuePair::StreamBytes(const MessageHeader& header)
{
    return MessageHeader::kSize + header.payload;
}

uint64_t
RdmaQueuePair::Unwrap(uint32_t psn, uint64_t reference)
{
    const uint64_t diff = (psn - reference) & RoceV2Header::kPsnMask;
    if (diff < kPsnSpace / 2)
    {
        return reference + diff;
    }
    const uint64_t back = kPsnSpace - diff;
    return back <= reference ? reference - back : 0;
}

void
RdmaQueuePair::Post(const MessageHeader& header, Done done)
{
    NS_LOG_FUNCTION(this);
    Outgoing message;
    message.header = header;
    message.firstPsn = m_endPsn;
    const uint64_t stream = StreamBytes(header);
    message.packets = (stream + m_config.payloadPerPacket - 1) / m_config.payloadPerPacket;
    message.done = std::move(done);
    m_endPsn += message.packets;
    m_messages.push_back(std::move(message));
}

bool
RdmaQueuePair::HasDataToSend() const
{
    if (m_resendPending)
    {
        return true;
    }
    if (m_nextPsn >= m_endPsn)
    {
        return false;
    }
    // A window (at least one byte) lets at least one packet be in flight, so that ACKs keep
    // coming.
    return m_window == 0 || BytesInFlight(m_nextPsn) < m_window;
}

uint64_t
RdmaQueuePair::BytesInFlight(uint64_t nextPsn) const
{
    return nextPsn > m_unackedPsn ? (nextPsn - m_unackedPsn) * m_config.payloadPerPacket : 0;
}

uint64_t
RdmaQueuePair::GetWindow() const
{
    return m_window;
}

bool
RdmaQueuePair::HasOutstanding() const
{
    return m_unackedPsn < m_highestSent;
}

Time
RdmaQueuePair::GetNextSendTime() const
{
    return m_nextSend;
}

void
RdmaQueuePair::SeekCursor()
{
    if (m_cursor >= m_messages.size())
    {
        m_cursor = m_messages.empty() ? 0 : m_messages.size() - 1;
    }
    while (m_cursor > 0 && m_messages[m_cursor].firstPsn > m_nextPsn)
    {
        --m_cursor;
    }
    while (m_cursor + 1 < m_messages.size() &&
           m_messages[m_cursor].firstPsn + m_messages[m_cursor].packets <= m_nextPsn)
    {
        ++m_cursor;
    }
}

Ptr<Packet>
RdmaQueuePair::NextPacket(Time now)
{
    NS_LOG_FUNCTION(this << now);
    if (!m_resendPending)
    {
        return BuildNext(now);
    }
    // Selective retransmission: the hole alone, then on from where sending was.
    m_resendPending = false;
    const uint64_t resume = m_nextPsn;
    m_nextPsn = m_resendPsn;
    Ptr<Packet> packet = BuildNext(now);
    m_nextPsn = std::max(resume, m_nextPsn);
    return packet;
}

Ptr<Packet>
RdmaQueuePair::BuildNext(Time now)
{
    SeekCursor();
    const Outgoing& message = m_messages[m_cursor];
    const uint64_t index = m_nextPsn - message.firstPsn;
    const uint64_t stream = StreamBytes(message.header);
    const uint64_t offset = index * m_config.payloadPerPacket;
    const auto bytes =
        static_cast<uint32_t>(std::min<uint64_t>(m_config.payloadPerPacket, stream - offset));
    const bool first = index == 0;
    const bool last = index + 1 == message.packets;

    Ptr<Packet> packet;
    if (first)
    {
        // The message header is real bytes; the payload is virtual (ns-3 zero bytes).
        packet = Create<Packet>(bytes - MessageHeader::kSize + RoceV2Header::kIcrcBytes);
        MessageChunk chunk;
        chunk.header = message.header;
        packet->AddHeader(chunk);
    }
    else
    {
        packet = Create<Packet>(bytes + RoceV2Header::kIcrcBytes);
    }
    RoceV2Header header;
    if (m_needs & RdmaRateControl::FEEDBACK_TELEMETRY)
    {
        // Empty hop slots for the switches on the way (the NIC took them out of the payload).
        RdmaFeedbackHeader telemetry;
        telemetry.SetSlots(RdmaFeedbackHeader::kMaxHops);
        packet->AddHeader(telemetry);
        header.SetFeedback(true);
    }
    header.SetSource(RoceV2Header::AddressOfRank(m_config.localRank));
    header.SetDestination(RoceV2Header::AddressOfRank(m_config.peerRank));
    header.SetDscp(m_config.dataDscp);
    header.SetEcn(RoceV2Header::ECT0);
    header.SetSourcePort(m_config.sourcePort);
    header.SetOpcode(first && last
                         ? RoceV2Header::SEND_ONLY
                         : (first ? RoceV2Header::SEND_FIRST
                                  : (last ? RoceV2Header::SEND_LAST : RoceV2Header::SEND_MIDDLE)));
    header.SetDestinationQp(m_config.localRank + 1); // the peer's queue pair for this rank
    // A window model waits for ACKs to send more: the packet that fills the window asks for
    // one at once (the receiver otherwise answers every AckInterval packets).
    const bool fillsWindow = m_window > 0 && BytesInFlight(m_nextPsn + 1) >= m_window;
    header.SetAckRequest(last || fillsWindow ||
                         (m_needs & RdmaRateControl::FEEDBACK_EVERY_PACKET) != 0);
    header.SetPsn(static_cast<uint32_t>(m_nextPsn));
    header.SetPayloadSize(packet->GetSize());
    packet->AddHeader(header);

    ++m_stats.dataPackets;
    if (m_nextPsn < m_highestSent)
    {
        ++m_stats.resentPackets;
    }
    if (!HasOutstanding())
    {
        m_lastProgress = now; // the retransmission clock starts with the first packet in flight
    }
    if (m_needs & RdmaRateControl::FEEDBACK_RTT)
    {
        if (m_sentAt.empty())
        {
            m_sentBase = m_nextPsn;
        }
        const uint64_t slot = m_nextPsn - m_sentBase;
        if (slot < m_sentAt.size())
        {
            m_sentAt[slot] = now; // sent again (go-back-N): its round trip starts over
        }
        else
        {
            m_sentAt.resize(slot + 1, now);
        }
    }
    ++m_nextPsn;
    m_highestSent = std::max(m_highestSent, m_nextPsn);

    const uint32_t wire = packet->GetSize() + RdmaNetDevice::kFramingBytes;
    m_rateControl->OnSent(wire, now);
    const uint64_t rate = m_rateControl->GetRate(now).GetBitRate();
    if (rate > 0 && rate < m_lineRate.GetBitRate())
    {
        // At line rate the port itself spaces packets; below it, this queue pair waits.
        m_nextSend = now + NanoSeconds(static_cast<int64_t>(std::ceil(
                               static_cast<double>(wire) * 8e9 / static_cast<double>(rate))));
    }
    else
    {
        m_nextSend = now;
    }
    return packet;
}

bool
RdmaQueuePair::OnAck(const RoceV2Header& header,
                     const RdmaFeedbackHeader* feedback,
                     Time now,
                     std::vector<Done>& completed)
{
    NS_LOG_FUNCTION(this << now);
    const bool nak = header.GetSyndrome() == RoceV2Header::NAK_SEQUENCE;
    const uint64_t psn = Unwrap(header.GetPsn(), m_unackedPsn);
    // An ACK carries the last PSN received in order; a NAK the PSN the receiver expects.
    const uint64_t acked = nak ? psn : psn + 1;
    if (acked > m_highestSent)
    {
        return false; // stale or foreign: acknowledges nothing this end sent
    }
    if (acked > m_unackedPsn)
    {
        RdmaRateControl::AckFeedback ack;
        ack.ackedBytes = (acked - m_unackedPsn) * m_config.payloadPerPacket;
        ack.ackedPsn = acked;
        ack.payloadPerPacket = m_config.payloadPerPacket;
        if (!nak && (m_needs & RdmaRateControl::FEEDBACK_RTT) && psn >= m_sentBase &&
            psn - m_sentBase < m_sentAt.size())
        {
            ack.rtt = now - m_sentAt[psn - m_sentBase];
        }
        while (!m_sentAt.empty() && m_sentBase < acked)
        {
            m_sentAt.pop_front();
            ++m_sentBase;
        }
        if (feedback != nullptr)
        {
            ack.marked = feedback->GetMarked();
            ack.packets = feedback->GetPackets();
            ack.telemetry = feedback->GetHopCount() > 0 ? feedback : nullptr;
        }
        m_unackedPsn = acked;
        m_lastProgress = now;
        uint64_t payload = 0;
        std::size_t popped = 0;
        while (!m_messages.empty() &&
               m_messages.front().firstPsn + m_messages.front().packets <= m_unackedPsn)
        {
            payload += m_messages.front().header.payload;
            if (m_messages.front().done)
            {
                completed.push_back(std::move(m_messages.front().done));
            }
            m_messages.pop_front();
            ++popped;
        }
        m_cursor = m_cursor > popped ? m_cursor - popped : 0;
        m_ackedPayload += payload;
        if (m_nextPsn < m_unackedPsn)
        {
            m_nextPsn = m_unackedPsn; // an ACK beyond a go-back point: skip what arrived
        }
        ack.nextPsn = m_nextPsn;
        m_rateControl->OnAck(ack, now);
        m_window = m_rateControl->GetWindow();
    }
    if (!nak)
    {
        return false;
    }
    ++m_stats.naksReceived;
    if (psn >= m_unackedPsn && psn < m_nextPsn)
    {
        m_nextPsn = psn; // go back N
        return true;
    }
    return false;
}

void
RdmaQueuePair::OnCnp(Time now)
{
    NS_LOG_FUNCTION(this << now);
    ++m_stats.cnpsReceived;
    m_rateControl->OnCnp(now);
    // A slower rate applies from the next packet; the one already scheduled keeps its slot.
}

bool
RdmaQueuePair::CheckTimeout(Time now, Time timeout)
{
    NS_LOG_FUNCTION(this << now << timeout);
    if (!HasOutstanding() || now - m_lastProgress < timeout)
    {
        return false;
    }
    ++m_stats.timeouts;
    if (m_config.selective)
    {
        m_resendPending = true;
        m_resendPsn = m_unackedPsn;
    }
    else
    {
        m_nextPsn = m_unackedPsn;
    }
    m_lastProgress = now;
    return true;
}

Time
RdmaQueuePair::GetTimeoutAt(Time timeout) const
{
    return m_lastProgress + timeout;
}

void
RdmaQueuePair::SetTimerPending(bool pending)
{
    NS_LOG_FUNCTION(this << pending);
    m_timerPending = pending;
}

bool
RdmaQueuePair::IsTimerPending() const
{
    return m_timerPending;
}

void
RdmaQueuePair::OnData(const RoceV2Header& header,
                      const RdmaFeedbackHeader* feedback,
                      Ptr<Packet> packet,
                      Time now,
                      RxActions& actions)
{
    NS_LOG_FUNCTION(this << packet << now);
    if (header.GetEcn() == RoceV2Header::CE && (m_needs & RdmaRateControl::FEEDBACK_CNP) &&
        (!m_cnpSent || now - m_lastCnp >= m_config.cnpInterval))
    {
        // The mark is news about the path whatever becomes of the packet. Only DCQCN reads
        // CNPs: with the other models (their own feedback, or none) a NIC does not send them.
        actions.sendCnp = true;
        m_lastCnp = now;
        m_cnpSent = true;
        ++m_stats.cnpsSent;
    }
    const uint64_t psn = Unwrap(header.GetPsn(), m_expectedPsn);
    if (psn > m_expectedPsn && m_config.selective)
    {
        // Reordered (sprayed) or after a loss: kept for its turn; a copy already kept is a
        // duplicate.
        Held held;
        held.header = header;
        held.packet = packet;
        held.hasFeedback = feedback != nullptr;
        if (feedback != nullptr)
        {
            held.feedback = *feedback;
        }
        if (m_held.emplace(psn, std::move(held)).second)
        {
            ++m_stats.outOfOrder;
        }
        else
        {
            ++m_stats.duplicates;
        }
        return;
    }
    if (psn > m_expectedPsn)
    {
        ++m_stats.outOfOrder;
        if (!m_nakSent)
        {
            m_nakSent = true;
            actions.sendNak = true;
            actions.ackPsn = static_cast<uint32_t>(m_expectedPsn);
            ++m_stats.naksSent;
        }
        return;
    }
    if (psn < m_expectedPsn)
    {
        ++m_stats.duplicates;
        if (header.GetAckRequest() || ++m_duplicatesSinceAck >= m_config.ackInterval)
        {
            m_duplicatesSinceAck = 0;
            actions.sendAck = true;
            actions.ackPsn = static_cast<uint32_t>(m_expectedPsn - 1);
        }
        return;
    }
    Accept(header, feedback, packet, psn, actions);
    // What was kept for after this packet can follow now.
    while (!m_held.empty() && m_held.begin()->first == m_expectedPsn)
    {
        auto node = m_held.extract(m_held.begin());
        Held& held = node.mapped();
        Accept(held.header,
               held.hasFeedback ? &held.feedback : nullptr,
               held.packet,
               node.key(),
               actions);
    }
    // Kept copies the sender resent meanwhile are behind the cursor now.
    while (!m_held.empty() && m_held.begin()->first < m_expectedPsn)
    {
        m_held.erase(m_held.begin());
    }
}

void
RdmaQueuePair::Accept(const RoceV2Header& header,
                      const RdmaFeedbackHeader* feedback,
                      Ptr<Packet> packet,
                      uint64_t psn,
                      RxActions& actions)
{
    ++m_expectedPsn;
    m_nakSent = false;
    ++m_rxPackets;
    if (header.GetEcn() == RoceV2Header::CE)
    {
        ++m_rxMarked;
    }
    const RoceV2Header::Opcode opcode = header.GetOpcode();
    const uint32_t payload = header.GetPayloadSize() - RoceV2Header::kIcrcBytes -
                             (feedback != nullptr ? feedback->GetSerializedSize() : 0);
    if (opcode == RoceV2Header::SEND_FIRST || opcode == RoceV2Header::SEND_ONLY)
    {
        if (m_inMessage)
        {
            actions.error = "a message from rank " + std::to_string(m_config.peerRank) +
                            " started before the previous one ended";
        }
        MessageChunk chunk;
        packet->RemoveHeader(chunk);
        if (!chunk.valid)
        {
            actions.error = "a message from rank " + std::to_string(m_config.peerRank) +
                            " has a damaged header";
            m_inMessage = false;
            return;
        }
        m_current = chunk.header;
        m_streamLeft = StreamBytes(m_current);
        m_inMessage = true;
    }
    else if (!m_inMessage)
    {
        actions.error = "a packet from rank " + std::to_string(m_config.peerRank) +
                        " continues a message that never started";
        return;
    }
    if (payload > m_streamLeft)
    {
        actions.error = "a message from rank " + std::to_string(m_config.peerRank) +
                        " is longer than its header says";
        m_inMessage = false;
        return;
    }
    m_streamLeft -= payload;
    if (opcode == RoceV2Header::SEND_LAST || opcode == RoceV2Header::SEND_ONLY)
    {
        if (m_streamLeft != 0)
        {
            actions.error = "a message from rank " + std::to_string(m_config.peerRank) + " ended " +
                            std::to_string(m_streamLeft) + " bytes short";
        }
        else
        {
            actions.delivered.push_back(m_current);
            ++m_msn;
        }
        m_inMessage = false;
    }
    if (header.GetAckRequest() || ++m_sinceAck >= m_config.ackInterval)
    {
        m_sinceAck = 0;
        actions.sendAck = true;
        actions.ackPsn = static_cast<uint32_t>(psn);
        if (feedback != nullptr || (m_needs & RdmaRateControl::FEEDBACK_ECN_COUNTS))
        {
            actions.withFeedback = true;
            if (feedback != nullptr)
            {
                actions.ackFeedback.CopyHops(*feedback);
            }
            actions.ackFeedback.SetCounts(m_rxMarked, m_rxPackets);
        }
        m_rxMarked = 0;
        m_rxPackets = 0;
    }
}

RoceV2Header
RdmaQueuePair::ControlHeader(RoceV2Header::Opcode opcode) const
{
    NS_LOG_FUNCTION(this);
    RoceV2Header header;
    header.SetSource(RoceV2Header::AddressOfRank(m_config.localRank));
    header.SetDestination(RoceV2Header::AddressOfRank(m_config.peerRank));
    header.SetDscp(m_config.controlDscp);
    header.SetEcn(RoceV2Header::NOT_ECT);
    header.SetSourcePort(m_config.sourcePort);
    header.SetOpcode(opcode);
    header.SetDestinationQp(m_config.localRank + 1);
    return header;
}

Ptr<Packet>
RdmaQueuePair::MakeAck(uint32_t psn, bool nak, const RdmaFeedbackHeader* feedback) const
{
    RoceV2Header header = ControlHeader(RoceV2Header::ACKNOWLEDGE);
    header.SetSyndrome(nak ? RoceV2Header::NAK_SEQUENCE : RoceV2Header::ACK);
    header.SetPsn(psn);
    header.SetMsn(m_msn);
    Ptr<Packet> packet = Create<Packet>(RoceV2Header::kIcrcBytes);
    if (feedback != nullptr)
    {
        packet->AddHeader(*feedback);
        header.SetFeedback(true);
    }
    header.SetPayloadSize(packet->GetSize());
    packet->AddHeader(header);
    return packet;
}

Ptr<Packet>
RdmaQueuePair::MakeCnp() const
{
    RoceV2Header header = ControlHeader(RoceV2Header::CNP);
    Ptr<Packet> packet = Create<Packet>(RoceV2Header::kIcrcBytes);
    header.SetPayloadSize(packet->GetSize());
    packet->AddHeader(header);
    return packet;
}

const RdmaQueuePair::Config&
RdmaQueuePair::GetConfig() const
{
    return m_config;
}

Ptr<RdmaRateControl>
RdmaQueuePair::GetRateControl() const
{
    return m_rateControl;
}

const RdmaQueuePair::Stats&
RdmaQueuePair::GetStats() const
{
    return m_stats;
}

std::size_t
RdmaQueuePair::GetPendingMessages() const
{
    return m_messages.size();
}

uint64_t
RdmaQueuePair::GetAckedPayload() const
{
    return m_ackedPayload;
}

bool
RdmaQueuePair::IsScheduled() const
{
    return m_scheduled;
}

void
RdmaQueuePair::SetScheduled(bool scheduled)
{
    NS_LOG_FUNCTION(this << scheduled);
    m_scheduled = scheduled;
}

} // namespace ns3
