#include "hpcc-rate-control.h"

#include "ns3/double.h"
#include "ns3/log.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("ChakraHpccRateControl");

NS_OBJECT_ENSURE_REGISTERED(HpccRateControl);

TypeId
HpccRateControl::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::HpccRateControl")
            .SetParent<RdmaRateControl>()
            .SetGroupName("Chakra")
            .AddConstructor<HpccRateControl>()
            .AddAttribute("TargetUtilization",
                          "eta: the utilisation of the most loaded link HPCC aims at (HPCC "
                          "paper: 95%).",
                          DoubleValue(0.95),
                          MakeDoubleAccessor(&HpccRateControl::m_eta),
                          MakeDoubleChecker<double>(0.01, 1))
            .AddAttribute("MaxStage",
                          "Additive increases before a multiplicative step towards eta (HPCC "
                          "paper: 5).",
                          UintegerValue(5),
                          MakeUintegerAccessor(&HpccRateControl::m_maxStage),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("AdditiveIncrease",
                          "R_AI: W_AI = R_AI x BaseRtt (HPCC's simulator configuration: "
                          "50 Mbps).",
                          DataRateValue(DataRate("50Mbps")),
                          MakeDataRateAccessor(&HpccRateControl::m_additive),
                          MakeDataRateChecker())
            .AddAttribute("BaseRtt",
                          "T: the base round trip (the fabric's longest, without queueing); "
                          "W_init = line rate x T.",
                          TimeValue(MicroSeconds(10)),
                          MakeTimeAccessor(&HpccRateControl::m_baseRtt),
                          MakeTimeChecker(NanoSeconds(1)));
    return tid;
}

HpccRateControl::HpccRateControl() = default;

void
HpccRateControl::Start(DataRate lineRate, Time now)
{
    NS_LOG_FUNCTION(this << lineRate << now);
    m_line = static_cast<double>(lineRate.GetBitRate());
    m_maxWindow = m_line * m_baseRtt.GetSeconds() / 8;
    m_window = m_maxWindow;
    m_reference = m_maxWindow;
    m_u = 0;
    m_stage = 0;
}

DataRate
HpccRateControl::GetRate(Time /* now */)
{
    const double rate = std::min(m_window * 8 / m_baseRtt.GetSeconds(), m_line);
    return DataRate(static_cast<uint64_t>(rate));
}

double
HpccRateControl::MeasureInflight(const RdmaFeedbackHeader& telemetry, Time now, double& tau) const
{
    const double t = m_baseRtt.GetSeconds();
    const double elapsed = (now - m_lastAt).GetSeconds();
    double u = -1;
    tau = t;
    for (uint32_t i = 0; i < telemetry.GetHopCount(); ++i)
    {
        const RdmaFeedbackHeader::Hop& hop = telemetry.GetHop(i);
        const RdmaFeedbackHeader::Hop& before = m_last.GetHop(i);
        const double rate = hop.GetRate();
        const double dt = static_cast<double>(hop.GetTimeDelta(before)) * 1e-9;
        // The stamps' clocks wrap: trust a difference only while the ACKs' own spacing says
        // the link cannot have gone round (time within half a wrap, bytes within one).
        const double wrapBytes = static_cast<double>(RdmaFeedbackHeader::Hop::kBytesWrap *
                                                     RdmaFeedbackHeader::Hop::kByteUnit);
        if (dt <= 0 || rate <= 0 || elapsed > 0.5e-9 * RdmaFeedbackHeader::Hop::kTimeWrap ||
            rate * dt / 8 >= wrapBytes)
        {
            continue;
        }
        const double txRate = static_cast<double>(hop.GetBytesDelta(before)) * 8 / dt;
        const double queue =
            static_cast<double>(std::min(hop.GetQueueBytes(), before.GetQueueBytes()));
        const double ui = queue * 8 / (rate * t) + txRate / rate;
        if (ui > u)
        {
            u = ui;
            tau = dt;
        }
    }
    tau = std::min(tau, t);
    return u;
}

double
HpccRateControl::ComputeWindow(double u, bool update)
{
    double window = 0;
    if (u >= m_eta || m_stage >= m_maxStage)
    {
        window = m_reference / (u / m_eta) +
                 static_cast<double>(m_additive.GetBitRate()) * m_baseRtt.GetSeconds() / 8;
        if (update)
        {
            m_stage = 0;
        }
    }
    else
    {
        window =
            m_reference + static_cast<double>(m_additive.GetBitRate()) * m_baseRtt.GetSeconds() / 8;
        if (update)
        {
            ++m_stage;
        }
    }
    window = std::clamp(window, m_packet, m_maxWindow);
    if (update)
    {
        m_reference = window;
    }
    return window;
}

void
HpccRateControl::OnAck(const AckFeedback& ack, Time now)
{
    NS_LOG_FUNCTION(this << now);
    m_packet = std::max<double>(ack.payloadPerPacket, 1);
    if (ack.telemetry == nullptr)
    {
        return;
    }
    const RdmaFeedbackHeader& telemetry = *ack.telemetry;
    if (m_haveLast && m_last.GetHopCount() == telemetry.GetHopCount())
    {
        double tau = 0;
        const double u = MeasureInflight(telemetry, now, tau);
        if (u >= 0)
        {
            const double t = m_baseRtt.GetSeconds();
            m_u = (1 - tau / t) * m_u + tau / t * u;
            const bool update = ack.ackedPsn > m_lastUpdate;
            m_window = ComputeWindow(std::max(m_u, 1e-9), update);
            if (update)
            {
                m_lastUpdate = ack.nextPsn;
            }
            NS_LOG_LOGIC("U " << m_u << " (u " << u << "): window " << m_window << " bytes");
        }
    }
    m_last = telemetry;
    m_lastAt = now;
    m_haveLast = true;
}

uint32_t
HpccRateControl::GetFeedbackNeeds() const
{
    return FEEDBACK_TELEMETRY | FEEDBACK_EVERY_PACKET;
}

uint64_t
HpccRateControl::GetWindow() const
{
    return std::max<uint64_t>(static_cast<uint64_t>(std::llround(m_window)), 1);
}

std::string
HpccRateControl::GetName() const
{
    return "hpcc";
}

double
HpccRateControl::GetUtilization() const
{
    return m_u;
}

} // namespace ns3
