#include "delayed-schedule.h"

#include <algorithm>
#include <stdexcept>

namespace ns3
{

DelayedSchedule::DelayedSchedule(std::unique_ptr<CollectiveSchedule> inner, DelayOf delay)
    : m_inner(std::move(inner)),
      m_delay(std::move(delay))
{
    if (!m_inner || !m_delay)
    {
        throw std::invalid_argument("DelayedSchedule: needs a schedule and a delay function");
    }
}

uint32_t
DelayedSchedule::Size() const
{
    return m_inner->Size();
}

MessageOp
DelayedSchedule::Op(uint32_t op) const
{
    return m_inner->Op(op);
}

uint32_t
DelayedSchedule::DepCount(uint32_t op) const
{
    return m_inner->DepCount(op);
}

uint32_t
DelayedSchedule::Dep(uint32_t op, uint32_t j) const
{
    return m_inner->Dep(op, j);
}

uint32_t
DelayedSchedule::DependentCount(uint32_t op) const
{
    return m_inner->DependentCount(op);
}

uint32_t
DelayedSchedule::Dependent(uint32_t op, uint32_t j) const
{
    return m_inner->Dependent(op, j);
}

uint32_t
DelayedSchedule::NextRecv(uint32_t peer, int64_t tag, uint32_t after) const
{
    return m_inner->NextRecv(peer, tag, after);
}

bool
DelayedSchedule::InitialSends(std::vector<uint32_t>& sends) const
{
    return m_inner->InitialSends(sends);
}

int64_t
DelayedSchedule::SendDelayNs(uint32_t op, const MessageOp& message, int64_t nowNs) const
{
    const int64_t delay = std::max<int64_t>(m_delay(op, message), 0);
    // A wrapper adds to the inner schedule's delay, it does not replace it; the inner one
    // sees the time its own delay starts from (its pacing, if any, counts from there).
    return delay + m_inner->SendDelayNs(op, message, nowNs + delay);
}

} // namespace ns3
