/*
 * DcqcnRateControl: the reaction point (sender) of DCQCN.
 */
#ifndef CHAKRA_DCQCN_RATE_CONTROL_H
#define CHAKRA_DCQCN_RATE_CONTROL_H

#include "rdma-rate-control.h"

namespace ns3
{

/**
 * \ingroup chakra-transport
 * \brief DCQCN's sender algorithm (Zhu et al., "Congestion Control for Large-Scale RDMA
 * Deployments", SIGCOMM 2015).
 *
 * State: current rate R_C, target rate R_T, congestion estimate alpha (1 at start: a new
 * flow backs off hard on its first CNP), counters T (timer expiries) and BC (byte counter
 * expiries) since the last CNP.
 * - On a CNP: R_T = R_C; R_C = R_C (1 - alpha / 2) (not below MinRate); alpha = (1 - g) alpha
 *   + g; counters, byte counter and timers restart.
 * - Every AlphaUpdatePeriod without a CNP: alpha = (1 - g) alpha.
 * - A rate increase happens every RateIncreasePeriod (T += 1) and every ByteCounter bytes sent
 *   (BC += 1): fast recovery R_C = (R_T + R_C) / 2 for the first F increases (max(T, BC) <=
 *   F); then additive increase (R_T += R_AI first) once one counter is past F; hyper increase
 *   (R_T += i R_HAI, i = min(T, BC) - F) once both are. Rates never exceed the line rate.
 * Timers are advanced lazily (when the NIC asks for the rate or reports a packet or a CNP),
 * in the order they would have fired: exact, and free of events for uncongested flows.
 */
class DcqcnRateControl : public RdmaRateControl
{
  public:
    /** \return the TypeId */
    static TypeId GetTypeId();
    DcqcnRateControl();

    void Start(DataRate lineRate, Time now) override;
    DataRate GetRate(Time now) override;
    void OnSent(uint32_t bytes, Time now) override;
    void OnCnp(Time now) override;
    /** \return FEEDBACK_CNP: DCQCN reacts to CNPs */
    uint32_t GetFeedbackNeeds() const override;
    std::string GetName() const override;

    /** \return alpha (after advancing its timer to \p now) */
    double GetAlpha(Time now);
    /** \return the target rate R_T in bit/s (after advancing the timers to \p now) */
    double GetTargetRate(Time now);
    /** \return CNPs received */
    uint64_t GetCnpCount() const;

  private:
    /** Runs the timers up to \p now. */
    void Advance(Time now);
    /** One rate increase event. */
    void Increase();

    // Attributes.
    double m_g;
    Time m_alphaPeriod;
    Time m_increasePeriod;
    uint64_t m_byteCounter;
    uint32_t m_fastRecoverySteps;
    DataRate m_additive;
    DataRate m_hyper;
    DataRate m_minRate;
    double m_initialAlpha;
    bool m_clampAlways;
    bool m_alphaFromFirstCnp;

    double m_line{0}; //!< bit/s
    double m_rc{0};   //!< current rate, bit/s
    double m_rt{0};   //!< target rate, bit/s
    double m_alpha{1};
    Time m_alphaFrom; //!< alpha decays every m_alphaPeriod from here
    Time m_nextIncrease;
    uint32_t m_timerCount{0};
    uint32_t m_byteCount{0};
    uint64_t m_bytes{0}; //!< bytes since the byte counter last expired
    uint64_t m_cnps{0};
    bool m_increasedSinceCut{true}; //!< a rate increase happened since the last CNP
};

} // namespace ns3

#endif // CHAKRA_DCQCN_RATE_CONTROL_H
