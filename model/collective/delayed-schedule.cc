#include "delayed-schedule.h"

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
DelayedSchedule::SendDelayNs(uint32_t op, const MessageOp& message) const
{
    const int64_t delay = m_delay(op, message);
    // The inner schedule's own delay comes first (a wrapper adds, it does not replace).
    return m_inner->SendDelayNs(op, message) + (delay > 0 ? delay : 0);
}

} // namespace ns3
