#include "swift-rate-control.h"

#include "ns3/double.h"
#include "ns3/log.h"

#include <algorithm>
#include <cmath>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("ChakraSwiftRateControl");

NS_OBJECT_ENSURE_REGISTERED(SwiftRateControl);

namespace
{
/** Packet size assumed before the first ACK says the real one (the initial window's unit). */
constexpr double kDefaultPacket = 4096;
} // namespace

TypeId
SwiftRateControl::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::SwiftRateControl")
            .SetParent<RdmaRateControl>()
            .SetGroupName("Chakra")
            .AddConstructor<SwiftRateControl>()
            .AddAttribute("BaseTarget",
                          "Target round trip before flow scaling (above the fabric's base "
                          "round trip).",
                          TimeValue(MicroSeconds(25)),
                          MakeTimeAccessor(&SwiftRateControl::m_baseTarget),
                          MakeTimeChecker(NanoSeconds(1)))
            .AddAttribute("AdditiveIncrease",
                          "ai: packets added to cwnd per round trip (Swift paper: 1).",
                          DoubleValue(1.0),
                          MakeDoubleAccessor(&SwiftRateControl::m_ai),
                          MakeDoubleChecker<double>(0))
            .AddAttribute("Beta",
                          "Multiplicative decrease factor (Swift paper: 0.8).",
                          DoubleValue(0.8),
                          MakeDoubleAccessor(&SwiftRateControl::m_beta),
                          MakeDoubleChecker<double>(0, 1))
            .AddAttribute("MaxDecrease",
                          "max_mdf: the largest cut per round trip (Swift paper: 0.5).",
                          DoubleValue(0.5),
                          MakeDoubleAccessor(&SwiftRateControl::m_maxMdf),
                          MakeDoubleChecker<double>(0, 1))
            .AddAttribute("FlowScalingRange",
                          "fs_range as a multiple of BaseTarget (Swift paper: 5).",
                          DoubleValue(5.0),
                          MakeDoubleAccessor(&SwiftRateControl::m_fsRangeFactor),
                          MakeDoubleChecker<double>(0))
            .AddAttribute("FlowScalingMinCwnd",
                          "fs_min_cwnd, packets (Swift paper: 0.1).",
                          DoubleValue(0.1),
                          MakeDoubleAccessor(&SwiftRateControl::m_fsMinCwnd),
                          MakeDoubleChecker<double>(1e-6))
            .AddAttribute("FlowScalingMaxCwnd",
                          "fs_max_cwnd, packets (Swift paper: 100).",
                          DoubleValue(100.0),
                          MakeDoubleAccessor(&SwiftRateControl::m_fsMaxCwnd),
                          MakeDoubleChecker<double>(1e-6))
            .AddAttribute("MinWindow",
                          "Smallest cwnd, packets (below 1 the queue pair is paced).",
                          DoubleValue(0.001),
                          MakeDoubleAccessor(&SwiftRateControl::m_minCwnd),
                          MakeDoubleChecker<double>(1e-6))
            .AddAttribute("MaxWindow",
                          "Largest cwnd, packets.",
                          DoubleValue(10000.0),
                          MakeDoubleAccessor(&SwiftRateControl::m_maxCwnd),
                          MakeDoubleChecker<double>(1))
            .AddAttribute("InitialWindow",
                          "cwnd of a new queue pair, packets; 0: line rate x BaseRtt.",
                          DoubleValue(0.0),
                          MakeDoubleAccessor(&SwiftRateControl::m_initialCwnd),
                          MakeDoubleChecker<double>(0))
            .AddAttribute("BaseRtt",
                          "Base round trip of the fabric (sizes the initial window).",
                          TimeValue(MicroSeconds(10)),
                          MakeTimeAccessor(&SwiftRateControl::m_baseRtt),
                          MakeTimeChecker(NanoSeconds(1)));
    return tid;
}

SwiftRateControl::SwiftRateControl() = default;

void
SwiftRateControl::Start(DataRate lineRate, Time now)
{
    NS_LOG_FUNCTION(this << lineRate << now);
    m_line = static_cast<double>(lineRate.GetBitRate());
    const double bdp = m_line * m_baseRtt.GetSeconds() / 8 / kDefaultPacket;
    m_cwnd = std::clamp(m_initialCwnd > 0 ? m_initialCwnd : bdp, m_minCwnd, m_maxCwnd);
    m_lastDecrease = now;
}

Time
SwiftRateControl::GetTargetDelay() const
{
    const double range = m_fsRangeFactor * m_baseTarget.GetSeconds();
    const double a = range / (1 / std::sqrt(m_fsMinCwnd) - 1 / std::sqrt(m_fsMaxCwnd));
    const double b = -a / std::sqrt(m_fsMaxCwnd);
    const double fs = std::clamp(a / std::sqrt(m_cwnd) + b, 0.0, range);
    return m_baseTarget + Seconds(fs);
}

DataRate
SwiftRateControl::GetRate(Time /* now */)
{
    if (m_cwnd >= 1 || !m_rtt.IsStrictlyPositive())
    {
        return DataRate(static_cast<uint64_t>(m_line));
    }
    const double packet = m_packet > 0 ? m_packet : kDefaultPacket;
    const double rate = m_cwnd * packet * 8 / m_rtt.GetSeconds();
    return DataRate(static_cast<uint64_t>(std::min(rate, m_line)));
}

void
SwiftRateControl::OnAck(const AckFeedback& ack, Time now)
{
    NS_LOG_FUNCTION(this << now);
    if (ack.payloadPerPacket > 0)
    {
        m_packet = ack.payloadPerPacket;
    }
    if (!ack.rtt.IsStrictlyPositive())
    {
        return;
    }
    m_rtt = ack.rtt;
    const Time target = GetTargetDelay();
    const double acked = static_cast<double>(ack.ackedBytes) / std::max(m_packet, 1.0);
    if (ack.rtt < target)
    {
        m_cwnd += m_cwnd >= 1 ? m_ai * acked / m_cwnd : m_ai * acked;
    }
    else if (!m_decreased || now - m_lastDecrease >= ack.rtt)
    {
        const double excess = (ack.rtt - target).GetSeconds() / ack.rtt.GetSeconds();
        m_cwnd *= std::max(1 - m_beta * excess, 1 - m_maxMdf);
        m_lastDecrease = now;
        m_decreased = true;
    }
    m_cwnd = std::clamp(m_cwnd, m_minCwnd, m_maxCwnd);
    NS_LOG_LOGIC("rtt " << ack.rtt.As(Time::US) << " target " << target.As(Time::US) << ": cwnd "
                        << m_cwnd);
}

uint32_t
SwiftRateControl::GetFeedbackNeeds() const
{
    return FEEDBACK_RTT | FEEDBACK_EVERY_PACKET;
}

uint64_t
SwiftRateControl::GetWindow() const
{
    const double packet = m_packet > 0 ? m_packet : kDefaultPacket;
    return std::max<uint64_t>(static_cast<uint64_t>(std::llround(std::max(m_cwnd, 1.0) * packet)),
                              1);
}

std::string
SwiftRateControl::GetName() const
{
    return "swift";
}

double
SwiftRateControl::GetCwnd() const
{
    return m_cwnd;
}

} // namespace ns3
