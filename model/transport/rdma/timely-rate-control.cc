#include "timely-rate-control.h"

#include "ns3/double.h"
#include "ns3/log.h"
#include "ns3/uinteger.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("ChakraTimelyRateControl");

NS_OBJECT_ENSURE_REGISTERED(TimelyRateControl);

TypeId
TimelyRateControl::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::TimelyRateControl")
            .SetParent<RdmaRateControl>()
            .SetGroupName("Chakra")
            .AddConstructor<TimelyRateControl>()
            .AddAttribute("Alpha",
                          "EWMA weight a of a new RTT difference (TIMELY paper: 0.875).",
                          DoubleValue(0.875),
                          MakeDoubleAccessor(&TimelyRateControl::m_ewma),
                          MakeDoubleChecker<double>(0, 1))
            .AddAttribute("Beta",
                          "Multiplicative decrease factor beta (TIMELY paper: 0.8).",
                          DoubleValue(0.8),
                          MakeDoubleAccessor(&TimelyRateControl::m_beta),
                          MakeDoubleChecker<double>(0, 1))
            .AddAttribute("AdditiveIncrease",
                          "Additive increase step delta (TIMELY paper: 10 Mbps).",
                          DataRateValue(DataRate("10Mbps")),
                          MakeDataRateAccessor(&TimelyRateControl::m_delta),
                          MakeDataRateChecker())
            .AddAttribute("TLow",
                          "Below this round trip the rate only increases (TIMELY paper: 50 us).",
                          TimeValue(MicroSeconds(50)),
                          MakeTimeAccessor(&TimelyRateControl::m_tLow),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("THigh",
                          "Above this round trip the rate decreases in proportion (TIMELY "
                          "paper: 500 us).",
                          TimeValue(MicroSeconds(500)),
                          MakeTimeAccessor(&TimelyRateControl::m_tHigh),
                          MakeTimeChecker(NanoSeconds(1)))
            .AddAttribute("MinRtt",
                          "Normalises the gradient: the fabric's minimum round trip (TIMELY "
                          "paper: 20 us).",
                          TimeValue(MicroSeconds(20)),
                          MakeTimeAccessor(&TimelyRateControl::m_minRtt),
                          MakeTimeChecker(NanoSeconds(1)))
            .AddAttribute("HaiThreshold",
                          "Updates with a non-positive gradient in a row before the increase "
                          "becomes 5 x delta (TIMELY paper: N = 5).",
                          UintegerValue(5),
                          MakeUintegerAccessor(&TimelyRateControl::m_haiThreshold),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("Segment",
                          "Bytes acknowledged between two rate updates (the paper's completion "
                          "events: 16 KB to 64 KB).",
                          UintegerValue(16384),
                          MakeUintegerAccessor(&TimelyRateControl::m_segment),
                          MakeUintegerChecker<uint64_t>(1))
            .AddAttribute("MinRate",
                          "Floor of the rate.",
                          DataRateValue(DataRate("100Mbps")),
                          MakeDataRateAccessor(&TimelyRateControl::m_minRate),
                          MakeDataRateChecker());
    return tid;
}

TimelyRateControl::TimelyRateControl() = default;

void
TimelyRateControl::Start(DataRate lineRate, Time now)
{
    NS_LOG_FUNCTION(this << lineRate << now);
    m_line = static_cast<double>(lineRate.GetBitRate());
    m_rate = m_line;
}

DataRate
TimelyRateControl::GetRate(Time /* now */)
{
    return DataRate(static_cast<uint64_t>(m_rate));
}

void
TimelyRateControl::OnAck(const AckFeedback& ack, Time now)
{
    NS_LOG_FUNCTION(this << now);
    m_bytes += ack.ackedBytes;
    if (ack.rtt.IsStrictlyPositive() && m_bytes >= m_segment)
    {
        m_bytes = 0;
        Update(ack.rtt);
    }
}

void
TimelyRateControl::Update(Time rtt)
{
    NS_LOG_FUNCTION(this << rtt);
    if (m_prevRtt.IsZero())
    {
        m_prevRtt = rtt; // the first sample has no gradient yet
        return;
    }
    const double sample = (rtt - m_prevRtt).GetSeconds();
    m_prevRtt = rtt;
    m_rttDiff = (1 - m_ewma) * m_rttDiff + m_ewma * sample;
    const double gradient = m_rttDiff / m_minRtt.GetSeconds();
    const double delta = static_cast<double>(m_delta.GetBitRate());
    if (rtt < m_tLow)
    {
        m_rate += delta;
        m_negative = 0;
    }
    else if (rtt > m_tHigh)
    {
        m_rate *= 1 - m_beta * (1 - m_tHigh.GetSeconds() / rtt.GetSeconds());
        m_negative = 0;
    }
    else if (gradient <= 0)
    {
        ++m_negative;
        m_rate += (m_negative >= m_haiThreshold ? 5 : 1) * delta;
    }
    else
    {
        m_rate *= 1 - m_beta * gradient;
        m_negative = 0;
    }
    m_rate = std::clamp(m_rate, static_cast<double>(m_minRate.GetBitRate()), m_line);
    NS_LOG_LOGIC("rtt " << rtt.As(Time::US) << " gradient " << gradient << ": rate " << m_rate / 1e9
                        << " Gbps");
}

uint32_t
TimelyRateControl::GetFeedbackNeeds() const
{
    return FEEDBACK_RTT | FEEDBACK_EVERY_PACKET;
}

std::string
TimelyRateControl::GetName() const
{
    return "timely";
}

double
TimelyRateControl::GetRttDiff() const
{
    return m_rttDiff;
}

} // namespace ns3
