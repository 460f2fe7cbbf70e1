/*
 * DelayedSchedule: another schedule's ops, with a delay before each send (a collective
 * library's fixed per-step cost, such as NCCL's per-step latency of a protocol).
 */
#ifndef CHAKRA_DELAYED_SCHEDULE_H
#define CHAKRA_DELAYED_SCHEDULE_H

#include "collective-schedule.h"

#include <functional>
#include <memory>

namespace ns3
{

/**
 * \ingroup chakra-collective
 * \brief Wraps a schedule: the same ops and dependencies, and a send delay computed per op.
 *
 * The delay function is asked when a send is issued, so a lazy schedule (RingSchedule) stays
 * lazy: nothing is held per op.
 */
class DelayedSchedule : public CollectiveSchedule
{
  public:
    /** The delay of send \p op, whose message is \p message, in nanoseconds (0 or more). */
    using DelayOf = std::function<int64_t(uint32_t op, const MessageOp& message)>;

    /**
     * \param inner the schedule (owned)
     * \param delay the delay of each send
     */
    DelayedSchedule(std::unique_ptr<CollectiveSchedule> inner, DelayOf delay);

    uint32_t Size() const override;
    MessageOp Op(uint32_t op) const override;
    uint32_t DepCount(uint32_t op) const override;
    uint32_t Dep(uint32_t op, uint32_t j) const override;
    uint32_t DependentCount(uint32_t op) const override;
    uint32_t Dependent(uint32_t op, uint32_t j) const override;
    uint32_t NextRecv(uint32_t peer, int64_t tag, uint32_t after) const override;
    bool InitialSends(std::vector<uint32_t>& sends) const override;
    int64_t SendDelayNs(uint32_t op, const MessageOp& message, int64_t nowNs) const override;

  private:
    std::unique_ptr<CollectiveSchedule> m_inner;
    DelayOf m_delay;
};

} // namespace ns3

#endif // CHAKRA_DELAYED_SCHEDULE_H
