/*
 * DctcpRateControl: DCTCP's window algorithm on an RDMA queue pair.
 */
#ifndef CHAKRA_DCTCP_RATE_CONTROL_H
#define CHAKRA_DCTCP_RATE_CONTROL_H

#include "rdma-rate-control.h"

namespace ns3
{

/**
 * \ingroup chakra-transport
 * \brief DCTCP (Alizadeh et al., "Data Center TCP", SIGCOMM 2010) as the window of a queue
 * pair: the fraction of ECN-marked packets sets how hard a window backs off.
 *
 * - Switches mark a packet CE when the queue it leaves is above K (step marking: set
 *   ns3::RdmaSwitch::EcnKmin = EcnKmax = K and EcnPmax = 1; the paper's K: 65 packets at
 *   10 Gbps); the receiver's ACKs count the marked packets they cover
 *   (RdmaFeedbackHeader).
 * - Once per window of data (from the first PSN after the last update to the next PSN the
 *   sender had then): alpha = (1 - g) alpha + g F, F the marked fraction of that window's
 *   packets.
 * - An ACK that reports marks cuts the window once per window of data: W = W (1 - alpha / 2),
 *   not below one packet. Otherwise the window grows one packet per window (congestion
 *   avoidance: W += packet x acked / W).
 * - It starts at InitialWindow (0: the line rate x BaseRtt, a bandwidth-delay product, as
 *   RDMA NICs start at line rate instead of in slow start), alpha at 1; packets go at line
 *   rate within the window.
 */
class DctcpRateControl : public RdmaRateControl
{
  public:
    /** \return the TypeId */
    static TypeId GetTypeId();
    DctcpRateControl();

    void Start(DataRate lineRate, Time now) override;
    DataRate GetRate(Time now) override;
    void OnAck(const AckFeedback& ack, Time now) override;
    uint32_t GetFeedbackNeeds() const override;
    uint64_t GetWindow() const override;
    std::string GetName() const override;

    /** \return alpha, the estimate of the marked fraction */
    double GetAlpha() const;

  private:
    // Attributes.
    double m_g;
    Time m_baseRtt;
    uint64_t m_initialWindow;

    DataRate m_lineRate;
    double m_window{0}; //!< bytes
    double m_alpha{1};
    uint64_t m_alphaEnd{0}; //!< PSN past which the next alpha update happens
    uint64_t m_cutEnd{0};   //!< PSN past which the window may be cut again
    uint64_t m_packets{0};  //!< packets counted in this alpha window
    uint64_t m_marked{0};   //!< of them, marked
    bool m_started{false};  //!< an ACK has opened the first alpha window
};

} // namespace ns3

#endif // CHAKRA_DCTCP_RATE_CONTROL_H
