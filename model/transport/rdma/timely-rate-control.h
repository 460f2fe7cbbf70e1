/*
 * TimelyRateControl: TIMELY's RTT-gradient rate control on an RDMA queue pair.
 */
#ifndef CHAKRA_TIMELY_RATE_CONTROL_H
#define CHAKRA_TIMELY_RATE_CONTROL_H

#include "rdma-rate-control.h"

namespace ns3
{

/**
 * \ingroup chakra-transport
 * \brief TIMELY (Mittal et al., "TIMELY: RTT-based Congestion Control for the Datacenter",
 * SIGCOMM 2015): the rate follows the gradient of the round-trip time.
 *
 * The sender times each packet to its ACK. Once per Segment bytes acknowledged (the paper
 * updates per completion event of a 16-64 KB segment) with the newest round trip R:
 * - g = ((1 - a) g + a (R - R_prev)) / MinRtt, the smoothed, normalised RTT gradient;
 * - R < TLow: rate += delta (additive increase: the queue is short whatever the gradient);
 * - R > THigh: rate *= 1 - beta (1 - THigh / R) (multiplicative decrease: too long);
 * - g <= 0: rate += N delta, N = 5 after five such updates in a row (hyper-active increase),
 *   else 1;
 * - g > 0: rate *= 1 - beta g.
 * The rate stays between MinRate and the line rate; a queue pair starts at line rate.
 * Defaults are the paper's (a = 0.875, beta = 0.8, delta = 10 Mbps, TLow = 50 us,
 * THigh = 500 us, MinRtt = 20 us, N = 5), set for its 10 Gbps fabric; HPCC's simulator uses
 * the same.
 */
class TimelyRateControl : public RdmaRateControl
{
  public:
    /** \return the TypeId */
    static TypeId GetTypeId();
    TimelyRateControl();

    void Start(DataRate lineRate, Time now) override;
    DataRate GetRate(Time now) override;
    void OnAck(const AckFeedback& ack, Time now) override;
    uint32_t GetFeedbackNeeds() const override;
    std::string GetName() const override;

    /** \return the smoothed RTT difference, seconds */
    double GetRttDiff() const;

  private:
    /** One rate update with round trip \p rtt. */
    void Update(Time rtt);

    // Attributes.
    double m_ewma;
    double m_beta;
    DataRate m_delta;
    Time m_tLow;
    Time m_tHigh;
    Time m_minRtt;
    uint32_t m_haiThreshold;
    uint64_t m_segment;
    DataRate m_minRate;

    double m_line{0};       //!< bit/s
    double m_rate{0};       //!< bit/s
    double m_rttDiff{0};    //!< seconds
    Time m_prevRtt;         //!< zero before the first sample
    uint32_t m_negative{0}; //!< consecutive updates with a gradient <= 0
    uint64_t m_bytes{0};    //!< acknowledged since the last update
};

} // namespace ns3

#endif // CHAKRA_TIMELY_RATE_CONTROL_H
