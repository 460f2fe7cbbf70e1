#include "collective.h"

#include "ns3/simulator.h"

namespace ns3
{

Collective::Collective(Ptr<CommTransport> transport,
                       const Communicator& communicator,
                       uint64_t seq,
                       const CallSignature& call,
                       CollectiveSchedule schedule,
                       std::function<void()> done)
    : m_transport(transport),
      m_comm(communicator.id),
      m_commName(communicator.name),
      m_ranks(communicator.ranks),
      m_seq(seq),
      m_call(call),
      m_ops(std::move(schedule)),
      m_waitingDeps(m_ops.size(), 0),
      m_dependents(m_ops.size()),
      m_state(m_ops.size(), 0),
      m_remaining(m_ops.size()),
      m_done(std::move(done))
{
    for (uint32_t i = 0; i < m_ops.size(); ++i)
    {
        for (uint32_t dep : m_ops[i].deps)
        {
            ++m_waitingDeps[i];
            m_dependents[dep].push_back(i);
        }
    }
}

MessageKey
Collective::KeyOf(const CollectiveOp& op) const
{
    MessageKey key;
    key.kind = MessageKey::COLLECTIVE;
    key.comm = m_comm;
    key.seq = m_seq;
    key.tag = op.tag;
    return key;
}

void
Collective::Start()
{
    m_transport->BeginCall(m_comm,
                           m_seq,
                           m_call,
                           m_commName.empty() ? std::string("the world communicator")
                                              : "communicator '" + m_commName + "'");
    if (m_ops.empty())
    {
        // A communicator of one, or nothing to move: done now (as an event, so that the
        // caller never sees its completion before Start returns).
        m_transport->EndCall(m_comm, m_seq);
        Simulator::ScheduleNow(std::move(m_done));
        return;
    }
    for (uint32_t i = 0; i < m_ops.size(); ++i)
    {
        if (m_waitingDeps[i] == 0)
        {
            Issue(i);
        }
    }
}

void
Collective::Issue(uint32_t op)
{
    m_state[op] = 1;
    const CollectiveOp& o = m_ops[op];
    // The callback keeps the collective alive until the transport is done with it.
    auto self = shared_from_this();
    auto onDone = [self, op]() { self->Complete(op); };
    if (o.send)
    {
        m_transport->Send(m_ranks.at(o.peer), KeyOf(o), o.bytes, onDone, m_call);
    }
    else
    {
        m_transport->Recv(m_ranks.at(o.peer), KeyOf(o), o.bytes, onDone, m_call);
    }
}

void
Collective::Complete(uint32_t op)
{
    m_state[op] = 2;
    for (uint32_t dependent : m_dependents[op])
    {
        if (--m_waitingDeps[dependent] == 0)
        {
            Issue(dependent);
        }
    }
    if (--m_remaining == 0 && m_done)
    {
        m_transport->EndCall(m_comm, m_seq);
        auto done = std::move(m_done);
        done();
    }
}

std::vector<std::string>
Collective::DescribeWaiting() const
{
    std::vector<std::string> lines;
    for (uint32_t i = 0; i < m_ops.size(); ++i)
    {
        if (m_state[i] == 2)
        {
            continue;
        }
        const CollectiveOp& o = m_ops[i];
        std::string peer = "rank " + std::to_string(m_ranks.at(o.peer));
        std::string what = o.send ? "send to " + peer : "message from " + peer;
        what += " (tag " + std::to_string(o.tag) + ", " + std::to_string(o.bytes) + " bytes)";
        if (m_state[i] == 0)
        {
            what += " not started: waits for " + std::to_string(m_waitingDeps[i]) +
                    " earlier step(s)";
        }
        else
        {
            what = (o.send ? "queued " : "waits for ") + what;
        }
        lines.push_back(what);
    }
    return lines;
}

} // namespace ns3
