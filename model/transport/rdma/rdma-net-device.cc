#include "rdma-net-device.h"

#include "pfc-header.h"
#include "rdma-channel.h"

#include "ns3/log.h"
#include "ns3/node.h"
#include "ns3/simulator.h"
#include "ns3/trace-source-accessor.h"
#include "ns3/uinteger.h"

#include <cmath>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("ChakraRdmaNetDevice");
NS_OBJECT_ENSURE_REGISTERED(RdmaNetDevice);

TypeId
RdmaNetDevice::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::RdmaNetDevice")
            .SetParent<NetDevice>()
            .SetGroupName("Chakra")
            .AddConstructor<RdmaNetDevice>()
            .AddAttribute("DataRate",
                          "Line rate of the port.",
                          DataRateValue(DataRate("100Gbps")),
                          MakeDataRateAccessor(&RdmaNetDevice::m_rate),
                          MakeDataRateChecker())
            .AddAttribute("Mtu",
                          "Largest IP packet (bytes): the RoCE payload per packet is the MTU "
                          "minus 44 bytes of IPv4, UDP, BTH and ICRC.",
                          UintegerValue(9000),
                          MakeUintegerAccessor(&RdmaNetDevice::m_mtu),
                          MakeUintegerChecker<uint16_t>(128))
            .AddTraceSource("MacTx",
                            "A frame starts on the wire.",
                            MakeTraceSourceAccessor(&RdmaNetDevice::m_macTxTrace),
                            "ns3::Packet::TracedCallback")
            .AddTraceSource("MacRx",
                            "A frame (not PFC) has arrived.",
                            MakeTraceSourceAccessor(&RdmaNetDevice::m_macRxTrace),
                            "ns3::Packet::TracedCallback")
            .AddTraceSource("Drop",
                            "A packet arriving at this port was dropped (switch buffer).",
                            MakeTraceSourceAccessor(&RdmaNetDevice::m_dropTrace),
                            "ns3::Packet::TracedCallback")
            .AddTraceSource("EcnMark",
                            "A packet leaving through this port was marked CE.",
                            MakeTraceSourceAccessor(&RdmaNetDevice::m_ecnMarkTrace),
                            "ns3::Packet::TracedCallback")
            .AddTraceSource("PfcSent",
                            "This port sent a PFC frame for the data class (quanta; 0 = resume).",
                            MakeTraceSourceAccessor(&RdmaNetDevice::m_pfcSentTrace),
                            "ns3::RdmaNetDevice::PfcCallback")
            .AddTraceSource("PfcReceived",
                            "This port received a PFC frame for the data class (quanta; 0 = "
                            "resume).",
                            MakeTraceSourceAccessor(&RdmaNetDevice::m_pfcReceivedTrace),
                            "ns3::RdmaNetDevice::PfcCallback");
    return tid;
}

RdmaNetDevice::RdmaNetDevice()
    : m_address(Mac48Address::Allocate())
{
    NS_LOG_FUNCTION(this);
}

RdmaNetDevice::~RdmaNetDevice() = default;

void
RdmaNetDevice::DoDispose()
{
    NS_LOG_FUNCTION(this);
    m_channel = nullptr;
    m_node = nullptr;
    m_sources.clear();
    m_receive = nullptr;
    m_pfcFrames.clear();
    m_control.clear();
    m_pauseExpiry.Cancel();
    NetDevice::DoDispose();
}

void
RdmaNetDevice::Attach(Ptr<RdmaChannel> channel)
{
    NS_LOG_FUNCTION(this << channel);
    m_channel = channel;
    channel->Attach(this);
}

Ptr<RdmaChannel>
RdmaNetDevice::GetRdmaChannel() const
{
    return m_channel;
}

Ptr<RdmaNetDevice>
RdmaNetDevice::GetPeer() const
{
    return m_channel ? m_channel->GetPeer(this) : nullptr;
}

DataRate
RdmaNetDevice::GetDataRate() const
{
    return m_rate;
}

void
RdmaNetDevice::AddDataSource(DataSource source)
{
    NS_LOG_FUNCTION(this);
    m_sources.push_back(std::move(source));
}

void
RdmaNetDevice::SetReceiveHandler(ReceiveHandler handler)
{
    NS_LOG_FUNCTION(this);
    m_receive = std::move(handler);
}

void
RdmaNetDevice::SendControl(Ptr<Packet> packet)
{
    NS_LOG_FUNCTION(this << packet);
    m_control.push_back(packet);
    TryTransmit();
}

void
RdmaNetDevice::SendPfc(uint16_t quanta)
{
    NS_LOG_FUNCTION(this << quanta);
    PfcHeader pfc;
    pfc.SetPause(kDataPriority, quanta);
    Ptr<Packet> frame = Create<Packet>();
    frame->AddHeader(pfc);
    m_pfcFrames.push_back(frame);
    if (quanta > 0)
    {
        ++m_stats.pausesSent;
    }
    else
    {
        ++m_stats.resumesSent;
    }
    m_pfcSentTrace(quanta);
    TryTransmit();
}

void
RdmaNetDevice::Wake()
{
    NS_LOG_FUNCTION(this);
    TryTransmit();
}

bool
RdmaNetDevice::IsDataPaused() const
{
    return m_paused;
}

bool
RdmaNetDevice::IsBusy() const
{
    return m_busy;
}

Time
RdmaNetDevice::GetTxTime(uint32_t bytes) const
{
    const double ns = (bytes + kFramingBytes) * 8e9 / static_cast<double>(m_rate.GetBitRate());
    return NanoSeconds(static_cast<int64_t>(std::llround(ns)));
}

Time
RdmaNetDevice::NextTxTime(uint32_t bytes)
{
    // Whole nanoseconds on the clock, the remainder carried to the next frame: no drift.
    const double ns =
        (bytes + kFramingBytes) * 8e9 / static_cast<double>(m_rate.GetBitRate()) + m_txRemainderNs;
    const auto whole = static_cast<int64_t>(std::llround(ns));
    m_txRemainderNs = ns - static_cast<double>(whole);
    return NanoSeconds(whole);
}

void
RdmaNetDevice::TryTransmit()
{
    if (m_busy || m_inTryTransmit || !m_channel)
    {
        return;
    }
    m_inTryTransmit = true; // a data source may call Wake while it is asked for a packet
    Ptr<Packet> packet;
    uint8_t priority = kDataPriority;
    if (!m_pfcFrames.empty())
    {
        packet = m_pfcFrames.front();
        m_pfcFrames.pop_front();
        priority = kMacControl;
    }
    else if (!m_control.empty())
    {
        packet = m_control.front();
        m_control.pop_front();
        priority = kControlPriority;
    }
    else if (!m_paused)
    {
        const std::size_t n = m_sources.size();
        for (std::size_t k = 0; k < n && !packet; ++k)
        {
            const std::size_t index = (m_nextSource + k) % n;
            packet = m_sources[index]();
            if (packet)
            {
                m_nextSource = (index + 1) % n;
            }
        }
    }
    m_inTryTransmit = false;
    if (!packet)
    {
        return;
    }
    m_busy = true;
    const Time txTime = NextTxTime(packet->GetSize());
    ++m_stats.txFrames;
    m_stats.txBytes += packet->GetSize();
    if (priority == kDataPriority)
    {
        m_stats.txDataBytes += packet->GetSize();
    }
    m_stats.busyTime += txTime;
    m_macTxTrace(packet);
    m_channel->Transmit(this, packet, priority, txTime);
    Simulator::Schedule(txTime, &RdmaNetDevice::TransmitComplete, this);
}

void
RdmaNetDevice::TransmitComplete()
{
    m_busy = false;
    TryTransmit();
}

void
RdmaNetDevice::Receive(Ptr<Packet> packet, uint8_t priority)
{
    NS_LOG_FUNCTION(this << packet << static_cast<uint32_t>(priority));
    ++m_stats.rxFrames;
    if (priority != kMacControl)
    {
        m_macRxTrace(packet);
        if (m_receive)
        {
            m_receive(this, packet, priority);
        }
        return;
    }
    PfcHeader pfc;
    packet->PeekHeader(pfc);
    if (!pfc.IsEnabled(kDataPriority))
    {
        return;
    }
    const uint16_t quanta = pfc.GetQuanta(kDataPriority);
    m_pfcReceivedTrace(quanta);
    if (quanta == 0)
    {
        ++m_stats.resumesReceived;
        if (m_paused)
        {
            EndPause();
            TryTransmit();
        }
        return;
    }
    ++m_stats.pausesReceived;
    const double ns = quanta * 512.0 * 1e9 / static_cast<double>(m_rate.GetBitRate());
    const Time until = Simulator::Now() + NanoSeconds(static_cast<int64_t>(std::ceil(ns)));
    if (!m_paused)
    {
        m_paused = true;
        m_pauseStart = Simulator::Now();
    }
    m_pausedUntil = until;
    NS_LOG_LOGIC("PFC pause received: data frames held until " << until.As(Time::NS));
    // A refreshed pause moves the expiry later (PAUSE refreshes are rare: one per half pause).
    m_pauseExpiry.Cancel();
    m_pauseExpiry =
        Simulator::Schedule(until - Simulator::Now(), &RdmaNetDevice::PauseExpired, this);
}

void
RdmaNetDevice::PauseExpired()
{
    NS_LOG_FUNCTION(this);
    if (m_paused && Simulator::Now() >= m_pausedUntil)
    {
        EndPause();
        TryTransmit();
    }
}

void
RdmaNetDevice::EndPause()
{
    NS_LOG_FUNCTION(this);
    m_stats.pausedTime += Simulator::Now() - m_pauseStart;
    NS_LOG_LOGIC("PFC pause ends after " << (Simulator::Now() - m_pauseStart).As(Time::NS));
    m_paused = false;
    m_pauseExpiry.Cancel();
}

void
RdmaNetDevice::NotifyDrop(Ptr<const Packet> packet)
{
    NS_LOG_FUNCTION(this << packet);
    ++m_stats.drops;
    m_dropTrace(packet);
}

void
RdmaNetDevice::NotifyEcnMark(Ptr<const Packet> packet)
{
    NS_LOG_FUNCTION(this << packet);
    ++m_stats.ecnMarks;
    m_ecnMarkTrace(packet);
}

void
RdmaNetDevice::NotifyQueueBytes(uint64_t bytes)
{
    if (bytes > m_stats.maxQueueBytes)
    {
        m_stats.maxQueueBytes = bytes;
    }
}

void
RdmaNetDevice::NotifyIngressBytes(uint64_t bytes)
{
    if (bytes > m_stats.maxIngressBytes)
    {
        m_stats.maxIngressBytes = bytes;
    }
}

uint64_t
RdmaNetDevice::GetTxBytes() const
{
    return m_stats.txBytes;
}

RdmaNetDevice::Stats
RdmaNetDevice::GetStats() const
{
    Stats stats = m_stats;
    if (m_paused)
    {
        stats.pausedTime += Simulator::Now() - m_pauseStart;
    }
    return stats;
}

void
RdmaNetDevice::SetIfIndex(const uint32_t index)
{
    NS_LOG_FUNCTION(this << index);
    m_ifIndex = index;
}

uint32_t
RdmaNetDevice::GetIfIndex() const
{
    return m_ifIndex;
}

Ptr<Channel>
RdmaNetDevice::GetChannel() const
{
    return m_channel;
}

void
RdmaNetDevice::SetAddress(Address address)
{
    NS_LOG_FUNCTION(this);
    m_address = Mac48Address::ConvertFrom(address);
}

Address
RdmaNetDevice::GetAddress() const
{
    return m_address;
}

bool
RdmaNetDevice::SetMtu(const uint16_t mtu)
{
    NS_LOG_FUNCTION(this << mtu);
    m_mtu = mtu;
    return true;
}

uint16_t
RdmaNetDevice::GetMtu() const
{
    return m_mtu;
}

bool
RdmaNetDevice::IsLinkUp() const
{
    return m_channel != nullptr;
}

void
RdmaNetDevice::AddLinkChangeCallback(Callback<void> /* callback */)
{
    NS_LOG_FUNCTION(this);
}

bool
RdmaNetDevice::IsBroadcast() const
{
    return false;
}

Address
RdmaNetDevice::GetBroadcast() const
{
    return Mac48Address::GetBroadcast();
}

bool
RdmaNetDevice::IsMulticast() const
{
    return false;
}

Address
RdmaNetDevice::GetMulticast(Ipv4Address /* multicastGroup */) const
{
    return Mac48Address::GetMulticast(Ipv4Address());
}

Address
RdmaNetDevice::GetMulticast(Ipv6Address addr) const
{
    return Mac48Address::GetMulticast(addr);
}

bool
RdmaNetDevice::IsPointToPoint() const
{
    return true;
}

bool
RdmaNetDevice::IsBridge() const
{
    return false;
}

bool
RdmaNetDevice::Send(Ptr<Packet> /* packet */, const Address& /* dest */, uint16_t /* protocol */)
{
    NS_LOG_FUNCTION(this);
    NS_LOG_WARN("RdmaNetDevice carries RDMA traffic only (RdmaNic, RdmaSwitch)");
    return false;
}

bool
RdmaNetDevice::SendFrom(Ptr<Packet> packet,
                        const Address& /* source */,
                        const Address& dest,
                        uint16_t protocolNumber)
{
    NS_LOG_FUNCTION(this << packet << protocolNumber);
    return Send(packet, dest, protocolNumber);
}

Ptr<Node>
RdmaNetDevice::GetNode() const
{
    return m_node;
}

void
RdmaNetDevice::SetNode(Ptr<Node> node)
{
    NS_LOG_FUNCTION(this << node);
    m_node = node;
}

bool
RdmaNetDevice::NeedsArp() const
{
    NS_LOG_FUNCTION(this);
    return false;
}

void
RdmaNetDevice::SetReceiveCallback(NetDevice::ReceiveCallback /* cb */)
{
    NS_LOG_FUNCTION(this);
}

void
RdmaNetDevice::SetPromiscReceiveCallback(PromiscReceiveCallback /* cb */)
{
    NS_LOG_FUNCTION(this);
}

bool
RdmaNetDevice::SupportsSendFrom() const
{
    NS_LOG_FUNCTION(this);
    return false;
}

} // namespace ns3
