#include "dctcp-rate-control.h"

#include "ns3/double.h"
#include "ns3/log.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("ChakraDctcpRateControl");

NS_OBJECT_ENSURE_REGISTERED(DctcpRateControl);

TypeId
DctcpRateControl::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::DctcpRateControl")
            .SetParent<RdmaRateControl>()
            .SetGroupName("Chakra")
            .AddConstructor<DctcpRateControl>()
            .AddAttribute("G",
                          "Gain g of alpha, the marked-fraction estimate (DCTCP paper: 1/16).",
                          DoubleValue(1.0 / 16),
                          MakeDoubleAccessor(&DctcpRateControl::m_g),
                          MakeDoubleChecker<double>(0, 1))
            .AddAttribute("BaseRtt",
                          "Base round trip of the fabric: the initial window is the line rate "
                          "x this (when InitialWindow is 0).",
                          TimeValue(MicroSeconds(10)),
                          MakeTimeAccessor(&DctcpRateControl::m_baseRtt),
                          MakeTimeChecker(NanoSeconds(1)))
            .AddAttribute("InitialWindow",
                          "Window of a new queue pair, bytes; 0: line rate x BaseRtt.",
                          UintegerValue(0),
                          MakeUintegerAccessor(&DctcpRateControl::m_initialWindow),
                          MakeUintegerChecker<uint64_t>());
    return tid;
}

DctcpRateControl::DctcpRateControl() = default;

void
DctcpRateControl::Start(DataRate lineRate, Time now)
{
    NS_LOG_FUNCTION(this << lineRate << now);
    m_lineRate = lineRate;
    m_window = m_initialWindow > 0
                   ? static_cast<double>(m_initialWindow)
                   : static_cast<double>(lineRate.GetBitRate()) * m_baseRtt.GetSeconds() / 8;
    m_alpha = 1;
}

DataRate
DctcpRateControl::GetRate(Time /* now */)
{
    return m_lineRate;
}

void
DctcpRateControl::OnAck(const AckFeedback& ack, Time now)
{
    NS_LOG_FUNCTION(this << now);
    const double packet = std::max<double>(ack.payloadPerPacket, 1);
    m_packets += ack.packets;
    m_marked += ack.marked;
    if (!m_started)
    {
        m_started = true;
        m_alphaEnd = ack.nextPsn;
    }
    else if (ack.ackedPsn > m_alphaEnd)
    {
        const double fraction =
            m_packets > 0 ? static_cast<double>(m_marked) / static_cast<double>(m_packets) : 0;
        m_alpha = (1 - m_g) * m_alpha + m_g * std::min(fraction, 1.0);
        m_packets = 0;
        m_marked = 0;
        m_alphaEnd = ack.nextPsn;
    }
    if (ack.marked > 0)
    {
        if (ack.ackedPsn > m_cutEnd)
        {
            m_window = std::max(m_window * (1 - m_alpha / 2), packet);
            m_cutEnd = ack.nextPsn;
            NS_LOG_LOGIC("marks: window cut to " << m_window << " bytes (alpha " << m_alpha << ")");
        }
    }
    else
    {
        m_window += packet * static_cast<double>(ack.ackedBytes) / m_window;
    }
}

uint32_t
DctcpRateControl::GetFeedbackNeeds() const
{
    return FEEDBACK_ECN_COUNTS | FEEDBACK_EVERY_PACKET;
}

uint64_t
DctcpRateControl::GetWindow() const
{
    return std::max<uint64_t>(static_cast<uint64_t>(std::llround(m_window)), 1);
}

std::string
DctcpRateControl::GetName() const
{
    return "dctcp";
}

double
DctcpRateControl::GetAlpha() const
{
    return m_alpha;
}

} // namespace ns3
