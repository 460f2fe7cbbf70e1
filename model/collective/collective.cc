#include "collective.h"

#include "ns3/simulator.h"

#include <algorithm>

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
      m_dependentsStart(m_ops.size() + 1, 0),
      m_state(m_ops.size(), 0),
      m_remaining(m_ops.size()),
      m_done(std::move(done))
{
    // Dependents in one array (a schedule has O(communicator size) ops per rank, and every
    // rank holds one: per-op vectors cost more than the ops).
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
        m_waitingDeps[i] = static_cast<uint32_t>(m_ops[i].deps.size());
        for (uint32_t dep : m_ops[i].deps)
        {
            m_dependents[fill[dep]++] = i;
        }
        std::vector<uint32_t>().swap(m_ops[i].deps); // no longer needed
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
    // Receives that wait for nothing but their message are armed, not posted: the transport
    // hands each message over as it arrives (PostArmed), so that a rank does not hold one
    // posted receive per step of the whole schedule. Timing is the same as posting them now.
    for (uint32_t i = 0; i < m_ops.size(); ++i)
    {
        if (m_waitingDeps[i] == 0 && !m_ops[i].send)
        {
            m_state[i] = 3;
            m_armed.push_back({m_ranks.at(m_ops[i].peer), m_ops[i].tag, i});
        }
    }
    std::sort(m_armed.begin(), m_armed.end());
    if (!m_armed.empty())
    {
        std::weak_ptr<Collective> weak = shared_from_this();
        m_transport->SetArrivalHook(m_comm, m_seq, [weak](uint32_t src, const MessageKey& key) {
            auto self = weak.lock();
            return self && self->PostArmed(src, key);
        });
        // Messages that came before this rank began the call wait in the transport.
        for (const ArmedRecv& armed : m_armed)
        {
            if (m_state[armed.op] == 3 && m_transport->HasArrived(armed.src, KeyOf(m_ops[armed.op])))
            {
                Issue(armed.op);
            }
        }
    }
    for (uint32_t i = 0; i < m_ops.size(); ++i)
    {
        if (m_waitingDeps[i] == 0 && m_ops[i].send)
        {
            Issue(i);
        }
    }
}

bool
Collective::PostArmed(uint32_t src, const MessageKey& key)
{
    // The first armed receive of that sender and tag (in schedule order: non-overtaking).
    auto it = std::lower_bound(m_armed.begin(), m_armed.end(), ArmedRecv{src, key.tag, 0});
    for (; it != m_armed.end() && it->src == src && it->tag == key.tag; ++it)
    {
        if (m_state[it->op] == 3)
        {
            Issue(it->op);
            return true;
        }
    }
    return false;
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
    for (uint32_t d = m_dependentsStart[op]; d < m_dependentsStart[op + 1]; ++d)
    {
        const uint32_t dependent = m_dependents[d];
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
