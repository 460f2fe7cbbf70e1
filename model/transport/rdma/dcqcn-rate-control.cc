#include "dcqcn-rate-control.h"

#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/log.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("ChakraDcqcnRateControl");

NS_OBJECT_ENSURE_REGISTERED(DcqcnRateControl);

TypeId
DcqcnRateControl::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::DcqcnRateControl")
            .SetParent<RdmaRateControl>()
            .SetGroupName("Chakra")
            .AddConstructor<DcqcnRateControl>()
            .AddAttribute("G",
                          "Gain g of the alpha estimate (DCQCN paper: 1/256; NIC firmware "
                          "dce_tcp_g = 1019: g = (1024 - 1019) / 1024).",
                          DoubleValue(1.0 / 256),
                          MakeDoubleAccessor(&DcqcnRateControl::m_g),
                          MakeDoubleChecker<double>(0, 1))
            .AddAttribute("AlphaUpdatePeriod",
                          "K: alpha decays once per period without a CNP (DCQCN paper: 55 us; "
                          "NIC firmware dce_tcp_rtt: 1 us).",
                          TimeValue(MicroSeconds(55)),
                          MakeTimeAccessor(&DcqcnRateControl::m_alphaPeriod),
                          MakeTimeChecker(NanoSeconds(1)))
            .AddAttribute("RateIncreasePeriod",
                          "Timer T of rate increases (DCQCN paper: 55 us; NIC firmware "
                          "rpg_time_reset: 300 us).",
                          TimeValue(MicroSeconds(55)),
                          MakeTimeAccessor(&DcqcnRateControl::m_increasePeriod),
                          MakeTimeChecker(NanoSeconds(1)))
            .AddAttribute("ByteCounter",
                          "B: a rate increase every this many bytes sent (DCQCN paper: 10 MB; "
                          "NIC firmware rpg_byte_reset: 32767 B).",
                          UintegerValue(10000000),
                          MakeUintegerAccessor(&DcqcnRateControl::m_byteCounter),
                          MakeUintegerChecker<uint64_t>(1))
            .AddAttribute("FastRecoverySteps",
                          "F: rate increases of fast recovery before additive increase "
                          "(DCQCN paper: 5; NIC firmware rpg_threshold: 1).",
                          UintegerValue(5),
                          MakeUintegerAccessor(&DcqcnRateControl::m_fastRecoverySteps),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("AdditiveIncrease",
                          "R_AI: target rate step of additive increase (DCQCN paper: 40 Mbps; "
                          "NIC firmware rpg_ai_rate: 5 Mbps).",
                          DataRateValue(DataRate("40Mbps")),
                          MakeDataRateAccessor(&DcqcnRateControl::m_additive),
                          MakeDataRateChecker())
            .AddAttribute("HyperIncrease",
                          "R_HAI: target rate step of hyper increase (10 x R_AI, QCN's ratio; "
                          "NIC firmware rpg_hai_rate: 50 Mbps).",
                          DataRateValue(DataRate("400Mbps")),
                          MakeDataRateAccessor(&DcqcnRateControl::m_hyper),
                          MakeDataRateChecker())
            .AddAttribute("MinRate",
                          "Floor of the current rate.",
                          DataRateValue(DataRate("100Mbps")),
                          MakeDataRateAccessor(&DcqcnRateControl::m_minRate),
                          MakeDataRateChecker())
            .AddAttribute("ClampTargetRate",
                          "On a CNP, set R_T = R_C always (true: the paper's algorithm), or only "
                          "if the rate increased since the last CNP (false: NIC firmware's "
                          "clamp_tgt_rate = 0 with clamp after time increase; back-to-back "
                          "CNPs then do not lower the target rate).",
                          BooleanValue(true),
                          MakeBooleanAccessor(&DcqcnRateControl::m_clampAlways),
                          MakeBooleanChecker())
            .AddAttribute("AlphaFromFirstCnp",
                          "Alpha is InitialAlpha at the queue pair's first CNP (true: NIC "
                          "firmware's initial_alpha_value) instead of decaying from the queue "
                          "pair's start (false: the paper, where a flow starts with alpha 1).",
                          BooleanValue(false),
                          MakeBooleanAccessor(&DcqcnRateControl::m_alphaFromFirstCnp),
                          MakeBooleanChecker())
            .AddAttribute("InitialAlpha",
                          "Alpha of a new queue pair, or at its first CNP (AlphaFromFirstCnp) "
                          "(DCQCN paper: 1; NIC firmware initial_alpha_value 1023/1024).",
                          DoubleValue(1.0),
                          MakeDoubleAccessor(&DcqcnRateControl::m_initialAlpha),
                          MakeDoubleChecker<double>(0, 1));
    return tid;
}

DcqcnRateControl::DcqcnRateControl() = default;

void
DcqcnRateControl::Start(DataRate lineRate, Time now)
{
    NS_LOG_FUNCTION(this << lineRate << now);
    m_line = static_cast<double>(lineRate.GetBitRate());
    m_rc = m_line;
    m_rt = m_line;
    m_alpha = m_initialAlpha;
    m_alphaFrom = now;
    m_nextIncrease = now + m_increasePeriod;
    m_timerCount = 0;
    m_byteCount = 0;
    m_bytes = 0;
}

void
DcqcnRateControl::Advance(Time now)
{
    NS_LOG_FUNCTION(this << now);
    // Alpha: one decay per whole period since the last CNP (closed form).
    if (now >= m_alphaFrom + m_alphaPeriod)
    {
        const int64_t periods = (now - m_alphaFrom).GetTimeStep() / m_alphaPeriod.GetTimeStep();
        m_alpha *= std::pow(1 - m_g, static_cast<double>(periods));
        m_alphaFrom += TimeStep(periods * m_alphaPeriod.GetTimeStep());
    }
    // Rate timer: every expiry is an increase; once at line rate they change nothing but the
    // counter, so the rest are counted at once.
    while (m_nextIncrease <= now)
    {
        if (m_rc >= m_line && m_rt >= m_line)
        {
            const int64_t left =
                (now - m_nextIncrease).GetTimeStep() / m_increasePeriod.GetTimeStep() + 1;
            m_timerCount += static_cast<uint32_t>(std::min<int64_t>(left, 1 << 30));
            m_nextIncrease += TimeStep(left * m_increasePeriod.GetTimeStep());
            break;
        }
        ++m_timerCount;
        Increase();
        m_nextIncrease += m_increasePeriod;
    }
}

void
DcqcnRateControl::Increase()
{
    NS_LOG_FUNCTION(this);
    const uint32_t most = std::max(m_timerCount, m_byteCount);
    const uint32_t least = std::min(m_timerCount, m_byteCount);
    if (most <= m_fastRecoverySteps)
    {
        // Fast recovery (the first F increases): halfway back to the rate before the cut.
    }
    else if (least > m_fastRecoverySteps)
    {
        m_rt += static_cast<double>(least - m_fastRecoverySteps) *
                static_cast<double>(m_hyper.GetBitRate());
    }
    else
    {
        m_rt += static_cast<double>(m_additive.GetBitRate());
    }
    m_rt = std::min(m_rt, m_line);
    m_rc = std::min((m_rt + m_rc) / 2, m_line);
    NS_LOG_LOGIC("rate up to " << m_rc / 1e9 << " Gbps (target " << m_rt / 1e9 << " Gbps)");
    m_increasedSinceCut = true;
}

DataRate
DcqcnRateControl::GetRate(Time now)
{
    Advance(now);
    return DataRate(static_cast<uint64_t>(m_rc));
}

void
DcqcnRateControl::OnSent(uint32_t bytes, Time now)
{
    NS_LOG_FUNCTION(this << bytes << now);
    Advance(now);
    m_bytes += bytes;
    while (m_bytes >= m_byteCounter)
    {
        m_bytes -= m_byteCounter;
        ++m_byteCount;
        Increase();
    }
}

void
DcqcnRateControl::OnCnp(Time now)
{
    NS_LOG_FUNCTION(this << now);
    Advance(now);
    if (m_cnps == 0 && m_alphaFromFirstCnp)
    {
        m_alpha = m_initialAlpha;
    }
    ++m_cnps;
    if (m_clampAlways || m_increasedSinceCut)
    {
        m_rt = m_rc;
    }
    m_increasedSinceCut = false;
    m_rc = std::max(m_rc * (1 - m_alpha / 2), static_cast<double>(m_minRate.GetBitRate()));
    NS_LOG_LOGIC("CNP: rate cut to " << m_rc / 1e9 << " Gbps (target " << m_rt / 1e9
                                     << " Gbps, alpha " << m_alpha << ")");
    m_alpha = (1 - m_g) * m_alpha + m_g;
    m_alphaFrom = now;
    m_timerCount = 0;
    m_byteCount = 0;
    m_bytes = 0;
    m_nextIncrease = now + m_increasePeriod;
}

std::string
DcqcnRateControl::GetName() const
{
    return "dcqcn";
}

double
DcqcnRateControl::GetAlpha(Time now)
{
    Advance(now);
    return m_alpha;
}

double
DcqcnRateControl::GetTargetRate(Time now)
{
    Advance(now);
    return m_rt;
}

uint32_t
DcqcnRateControl::GetFeedbackNeeds() const
{
    return FEEDBACK_CNP;
}

uint64_t
DcqcnRateControl::GetCnpCount() const
{
    return m_cnps;
}

} // namespace ns3
