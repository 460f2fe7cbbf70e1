/*
 * HpccRateControl: HPCC's window and rate from the switches' in-band telemetry.
 */
#ifndef CHAKRA_HPCC_RATE_CONTROL_H
#define CHAKRA_HPCC_RATE_CONTROL_H

#include "rdma-feedback-header.h"
#include "rdma-rate-control.h"

namespace ns3
{

/**
 * \ingroup chakra-transport
 * \brief HPCC (Li et al., "HPCC: High Precision Congestion Control", SIGCOMM 2019): every
 * switch stamps its link's rate, bytes sent and queue into the data packet
 * (RdmaFeedbackHeader); the ACK brings the stamps back and the sender computes each link's
 * utilisation.
 *
 * Per ACK, for each hop i against the previous ACK's stamps (tau_i apart):
 * u_i = min(q_i, q_i') / (B_i T) + txRate_i / B_i, the queue it holds (in base RTTs) plus the
 * rate it sends at (a fraction of its capacity); u = the largest, tau its interval (at most
 * T); U = (1 - tau/T) U + (tau/T) u (an EWMA over one base RTT). Then the window:
 * - U >= eta, or MaxStage additive steps done: W = Wc / (U / eta) + W_AI (multiplicative
 *   step to the target utilisation eta);
 * - else W = Wc + W_AI (additive increase);
 * the reference window Wc takes W once per round trip (the first ACK past the PSN sent when
 * Wc last changed), stage counted; W is used at once (HPCC's fast reaction). W stays between
 * one packet and W_init = line rate x T; the queue pair sends at most W unacknowledged bytes,
 * paced at W / T.
 * W_AI = AdditiveIncrease x T. Defaults: eta 95% and MaxStage 5 (the paper), AdditiveIncrease
 * 50 Mbps (HPCC's simulator configuration), T = BaseRtt (set it to the fabric's longest base
 * round trip, as the paper does).
 * Samples are skipped when a link's stamps may have wrapped (RdmaFeedbackHeader: ~1 ms of
 * time, 32 MiB of bytes) or when the path's hop count changed.
 */
class HpccRateControl : public RdmaRateControl
{
  public:
    /** \return the TypeId */
    static TypeId GetTypeId();
    HpccRateControl();

    void Start(DataRate lineRate, Time now) override;
    DataRate GetRate(Time now) override;
    void OnAck(const AckFeedback& ack, Time now) override;
    uint32_t GetFeedbackNeeds() const override;
    uint64_t GetWindow() const override;
    std::string GetName() const override;

    /** \return U, the estimated utilisation of the most loaded link */
    double GetUtilization() const;

  private:
    /** \return the utilisation u of the most loaded hop and its interval (s) in \p tau */
    double MeasureInflight(const RdmaFeedbackHeader& telemetry, Time now, double& tau) const;
    /** \return the window for utilisation \p u; moves Wc if \p update */
    double ComputeWindow(double u, bool update);

    // Attributes.
    double m_eta;
    uint32_t m_maxStage;
    DataRate m_additive;
    Time m_baseRtt;

    double m_line{0};      //!< bit/s
    double m_maxWindow{0}; //!< W_init, bytes
    double m_window{0};    //!< W, bytes
    double m_reference{0}; //!< Wc, bytes
    double m_u{0};         //!< U
    uint32_t m_stage{0};
    uint64_t m_lastUpdate{0};  //!< PSN past which Wc moves again
    RdmaFeedbackHeader m_last; //!< the previous ACK's hops
    Time m_lastAt;             //!< when it arrived
    bool m_haveLast{false};
    double m_packet{0}; //!< bytes per packet (the window's floor)
};

} // namespace ns3

#endif // CHAKRA_HPCC_RATE_CONTROL_H
