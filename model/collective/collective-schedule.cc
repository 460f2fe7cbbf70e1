#include "collective-schedule.h"

#include <algorithm>
#include <tuple>

namespace ns3
{

ExplicitSchedule::ExplicitSchedule(std::vector<CollectiveOp> ops)
    : m_ops(std::move(ops)),
      m_dependentsStart(m_ops.size() + 1, 0)
{
    for (const CollectiveOp& op : m_ops)
    {
        for (uint32_t dep : op.deps)
        {
            ++m_dependentsStart[dep + 1];
        }
    }
    for (std::size_t i = 0; i < m_ops.size(); ++i)
    {
        m_dependentsStart[i + 1] += m_dependentsStart[i];
    }
    m_dependents.resize(m_dependentsStart.back());
    std::vector<uint32_t> fill(m_dependentsStart.begin(), m_dependentsStart.end() - 1);
    for (uint32_t i = 0; i < m_ops.size(); ++i)
    {
        for (uint32_t dep : m_ops[i].deps)
        {
            m_dependents[fill[dep]++] = i;
        }
        if (!m_ops[i].send)
        {
            m_recvs.push_back({m_ops[i].peer, m_ops[i].tag, i});
        }
    }
    std::sort(m_recvs.begin(), m_recvs.end(), [](const RecvEntry& a, const RecvEntry& b) {
        return std::tie(a.peer, a.tag, a.op) < std::tie(b.peer, b.tag, b.op);
    });
}

uint32_t
ExplicitSchedule::Size() const
{
    return static_cast<uint32_t>(m_ops.size());
}

MessageOp
ExplicitSchedule::Op(uint32_t op) const
{
    return m_ops[op];
}

uint32_t
ExplicitSchedule::DepCount(uint32_t op) const
{
    return static_cast<uint32_t>(m_ops[op].deps.size());
}

uint32_t
ExplicitSchedule::Dep(uint32_t op, uint32_t j) const
{
    return m_ops[op].deps[j];
}

uint32_t
ExplicitSchedule::DependentCount(uint32_t op) const
{
    return m_dependentsStart[op + 1] - m_dependentsStart[op];
}

uint32_t
ExplicitSchedule::Dependent(uint32_t op, uint32_t j) const
{
    return m_dependents[m_dependentsStart[op] + j];
}

uint32_t
ExplicitSchedule::NextRecv(uint32_t peer, int64_t tag, uint32_t after) const
{
    const uint32_t from = after == kNone ? 0 : after + 1;
    using Key = std::tuple<uint32_t, int64_t, uint32_t>;
    auto it = std::lower_bound(m_recvs.begin(),
                               m_recvs.end(),
                               Key{peer, tag, from},
                               [](const RecvEntry& entry, const Key& key) {
                                   return std::tie(entry.peer, entry.tag, entry.op) < key;
                               });
    if (it == m_recvs.end() || it->peer != peer || it->tag != tag)
    {
        return kNone;
    }
    return it->op;
}

uint32_t
ScheduleBuilder::Send(uint32_t peer, uint64_t bytes, int64_t tag, std::vector<uint32_t> deps)
{
    m_ops.push_back(CollectiveOp{{true, peer, bytes, tag}, std::move(deps)});
    return static_cast<uint32_t>(m_ops.size() - 1);
}

uint32_t
ScheduleBuilder::Recv(uint32_t peer, uint64_t bytes, int64_t tag, std::vector<uint32_t> deps)
{
    m_ops.push_back(CollectiveOp{{false, peer, bytes, tag}, std::move(deps)});
    return static_cast<uint32_t>(m_ops.size() - 1);
}

uint32_t
ScheduleBuilder::Size() const
{
    return static_cast<uint32_t>(m_ops.size());
}

std::unique_ptr<CollectiveSchedule>
ScheduleBuilder::Take()
{
    return std::make_unique<ExplicitSchedule>(std::move(m_ops));
}

bool
CollectiveSchedule::InitialSends(std::vector<uint32_t>& sends) const
{
    bool armed = false;
    const uint32_t size = Size();
    for (uint32_t i = 0; i < size; ++i)
    {
        if (DepCount(i) == 0)
        {
            if (Op(i).send)
            {
                sends.push_back(i);
            }
            else
            {
                armed = true;
            }
        }
    }
    return armed;
}

int64_t
CollectiveSchedule::SendDelayNs(uint32_t /* op */,
                                const MessageOp& /* message */,
                                int64_t /* nowNs */) const
{
    return 0;
}

std::vector<CollectiveOp>
ListOps(const CollectiveSchedule& schedule)
{
    std::vector<CollectiveOp> ops(schedule.Size());
    for (uint32_t i = 0; i < schedule.Size(); ++i)
    {
        static_cast<MessageOp&>(ops[i]) = schedule.Op(i);
        for (uint32_t j = 0; j < schedule.DepCount(i); ++j)
        {
            ops[i].deps.push_back(schedule.Dep(i, j));
        }
    }
    return ops;
}

} // namespace ns3
