/*
 * SwiftRateControl: Swift's delay-target window on an RDMA queue pair.
 */
#ifndef CHAKRA_SWIFT_RATE_CONTROL_H
#define CHAKRA_SWIFT_RATE_CONTROL_H

#include "rdma-rate-control.h"

namespace ns3
{

/**
 * \ingroup chakra-transport
 * \brief Swift (Kumar et al., "Swift: Delay is Simple and Effective for Congestion Control in
 * the Datacenter", SIGCOMM 2020): keep the round trip under a target delay.
 *
 * The window cwnd is counted in packets. Per ACK with the round trip R of the packet it
 * acknowledges, against the target t = BaseTarget + fs(cwnd):
 * - R < t: additive increase, cwnd += ai x acked / cwnd (cwnd >= 1) or ai x acked (below 1),
 *   acked the packets it acknowledges;
 * - R >= t, at most once per round trip: cwnd *= max(1 - beta (R - t) / R, 1 - max_mdf).
 * cwnd stays between MinWindow and MaxWindow. Flow scaling fs(cwnd) = a / sqrt(cwnd) + b,
 * clamped to [0, fs_range], with a and b such that fs is fs_range at fs_min_cwnd and 0 at
 * fs_max_cwnd: small windows (many flows) get a larger target. Below one packet the queue pair
 * is paced at cwnd x packet / R. Defaults (the paper's): ai 1, beta 0.8, max_mdf 0.5,
 * fs_range 5 x BaseTarget, fs_min_cwnd 0.1, fs_max_cwnd 100. BaseTarget (25 us here) is a
 * deployment's choice: set it above the fabric's base round trip. Swift's hop-count scaling of
 * the target and its separate endpoint (NIC) delay are not modelled.
 */
class SwiftRateControl : public RdmaRateControl
{
  public:
    /** \return the TypeId */
    static TypeId GetTypeId();
    SwiftRateControl();

    void Start(DataRate lineRate, Time now) override;
    DataRate GetRate(Time now) override;
    void OnAck(const AckFeedback& ack, Time now) override;
    uint32_t GetFeedbackNeeds() const override;
    uint64_t GetWindow() const override;
    std::string GetName() const override;

    /** \return cwnd, packets */
    double GetCwnd() const;
    /** \return the target delay at the current window */
    Time GetTargetDelay() const;

  private:
    // Attributes.
    Time m_baseTarget;
    double m_ai;
    double m_beta;
    double m_maxMdf;
    double m_fsRangeFactor;
    double m_fsMinCwnd;
    double m_fsMaxCwnd;
    double m_minCwnd;
    double m_maxCwnd;
    double m_initialCwnd;
    Time m_baseRtt;

    double m_line{0};   //!< bit/s
    double m_cwnd{0};   //!< packets
    double m_packet{0}; //!< bytes per packet (0 before the first ACK: BDP-sized start)
    Time m_rtt;         //!< newest round trip
    Time m_lastDecrease;
    bool m_decreased{false};
};

} // namespace ns3

#endif // CHAKRA_SWIFT_RATE_CONTROL_H
