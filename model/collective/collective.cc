#include "collective.h"

#include "ns3/log.h"
#include "ns3/schedule-moved.h"
#include "ns3/simulator.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("ChakraCollective");

Collective::Collective(Ptr<CommTransport> transport,
                       const Communicator& communicator,
                       uint64_t seq,
                       const CallSignature& call,
                       std::unique_ptr<const CollectiveSchedule> schedule,
                       std::function<void()> done)
    : m_transport(transport),
      m_comm(communicator.id),
      m_commName(communicator.name),
      m_ranks(communicator.ranks),
      m_ranksSorted(std::is_sorted(m_ranks->begin(), m_ranks->end())),
      m_seq(seq),
      m_call(call),
      m_schedule(std::move(schedule)),
      m_state(m_schedule->Size()),
      m_remaining(m_schedule->Size()),
      m_done(std::move(done))
{
    NS_LOG_FUNCTION(this << m_comm << seq << m_schedule->Size());
}

Collective::~Collective()
{
    NS_LOG_FUNCTION(this);
    m_end.Cancel();
    if (m_handlerSet && m_transport)
    {
        m_transport->SetArrivalHandler(m_comm, m_seq, nullptr);
    }
}

MessageKey
Collective::KeyOf(int64_t tag) const
{
    MessageKey key;
    key.kind = MessageKey::COLLECTIVE;
    key.comm = m_comm;
    key.seq = m_seq;
    key.tag = tag;
    return key;
}

uint32_t
Collective::IndexOfRank(uint32_t rank) const
{
    const std::vector<uint32_t>& ranks = *m_ranks;
    if (rank < ranks.size() && ranks[rank] == rank)
    {
        return rank; // the world, and groups that start at rank 0
    }
    auto it = m_ranksSorted ? std::lower_bound(ranks.begin(), ranks.end(), rank)
                            : std::find(ranks.begin(), ranks.end(), rank);
    if (it == ranks.end() || *it != rank)
    {
        return CollectiveSchedule::kNone;
    }
    return static_cast<uint32_t>(it - ranks.begin());
}

void
Collective::Start()
{
    NS_LOG_FUNCTION(this);
    NS_LOG_INFO("begins " << Describe() << ": " << m_schedule->Size() << " message step(s)");
    m_transport->BeginCall(m_comm,
                           m_seq,
                           m_call,
                           m_commName.empty() ? std::string("the world communicator")
                                              : "communicator '" + m_commName + "'");
    const uint32_t size = m_schedule->Size();
    if (size == 0)
    {
        // A communicator of one, or nothing to move: done now (as an event, so that the
        // caller never sees its completion before Start returns).
        m_transport->EndCall(m_comm, m_seq);
        ScheduleMoved(Time(0), std::move(m_done));
        return;
    }
    // Receives that wait for nothing but their message are armed, not posted: the transport
    // hands each message over as it arrives (PostArrived), so that a rank does not hold one
    // posted receive per step of the whole schedule. Timing is the same as posting them now.
    // An armed receive is one still WAITING with no dependency (IsArmed): nothing to mark, so
    // a call starts in O(its first sends and early messages), not O(its ops).
    std::vector<uint32_t> readySends;
    const bool armed = m_schedule->InitialSends(readySends);
    if (armed)
    {
        m_transport->SetArrivalHandler(m_comm, m_seq, this);
        m_handlerSet = true;
        // Messages that came before this rank began the call wait in the transport: each
        // takes the first armed receive of its sender and tag that an earlier one did not
        // (non-overtaking), and those receives are issued in schedule order.
        std::vector<std::tuple<uint32_t, MessageKey, std::size_t>> early;
        m_transport->GetArrivedOfCall(m_comm, m_seq, early);
        std::vector<uint32_t> ready;
        for (const auto& [src, key, count] : early)
        {
            const uint32_t peer = IndexOfRank(src);
            if (peer == CollectiveSchedule::kNone)
            {
                continue;
            }
            std::size_t left = count;
            for (uint32_t op = m_schedule->NextRecv(peer, key.tag, CollectiveSchedule::kNone);
                 op != CollectiveSchedule::kNone && left > 0;
                 op = m_schedule->NextRecv(peer, key.tag, op))
            {
                if (IsArmed(op))
                {
                    ready.push_back(op);
                    --left;
                }
            }
        }
        std::sort(ready.begin(), ready.end());
        for (uint32_t op : ready)
        {
            Issue(op);
        }
    }
    for (uint32_t i : readySends)
    {
        Issue(i);
    }
}

bool
Collective::IsArmed(uint32_t op) const
{
    // NextRecv gives receives only; a receive that waits for no op is armed until issued.
    return m_state.Get(op) == OpStateWindow::WAITING && m_schedule->DepCount(op) == 0;
}

bool
Collective::PostArrived(uint32_t src, const MessageKey& key)
{
    NS_LOG_FUNCTION(this << src << key.tag);
    const uint32_t peer = IndexOfRank(src);
    if (peer == CollectiveSchedule::kNone)
    {
        return false;
    }
    // The first armed receive of that sender and tag (in schedule order: non-overtaking).
    for (uint32_t op = m_schedule->NextRecv(peer, key.tag, CollectiveSchedule::kNone);
         op != CollectiveSchedule::kNone;
         op = m_schedule->NextRecv(peer, key.tag, op))
    {
        if (IsArmed(op))
        {
            Issue(op);
            return true;
        }
    }
    return false;
}

void
Collective::Issue(uint32_t op)
{
    m_state.Set(op, OpStateWindow::ISSUED);
    const MessageOp o = m_schedule->Op(op);
    NS_LOG_LOGIC("call #" << m_seq << " step " << op << ": " << (o.send ? "send " : "receive ")
                          << o.bytes << " bytes " << (o.send ? "to" : "from") << " rank "
                          << m_ranks->at(o.peer) << " (tag " << o.tag << ")");
    // A raw pointer: the application holds the collective until its last op has completed,
    // and each op's callback runs once, before that. A pointer and an op index fit in the
    // std::function's own storage (a shared_ptr did not: one heap allocation and two atomic
    // reference counts per message).
    if (!o.send)
    {
        m_transport->Recv(
            m_ranks->at(o.peer),
            KeyOf(o.tag),
            o.bytes,
            [this, op]() { Complete(op); },
            m_call);
        return;
    }
    const int64_t delay = m_schedule->SendDelayNs(op, o, Simulator::Now().GetNanoSeconds());
    if (delay > 0)
    {
        // The library's own cost of a step: the message leaves later; the op counts as
        // issued meanwhile (nothing else waits on it before it completes).
        Simulator::Schedule(NanoSeconds(delay),
                            &Collective::SendNow,
                            this,
                            op,
                            o.peer,
                            o.tag,
                            o.bytes);
        return;
    }
    SendNow(op, o.peer, o.tag, o.bytes);
}

void
Collective::SendNow(uint32_t op, uint32_t peer, int64_t tag, uint64_t bytes)
{
    NS_LOG_FUNCTION(this << op);
    if (m_schedule->DependentCount(op) == 0)
    {
        // Only the count of ops waits for it (the sends of a ring, of an all-to-all): the
        // transport may give its completion time early, and save the event at that time.
        m_transport->SendCounted(
            m_ranks->at(peer),
            KeyOf(tag),
            bytes,
            [this, op](Time end) { CompleteSendAt(op, end); },
            m_call);
        return;
    }
    m_transport->Send(
        m_ranks->at(peer),
        KeyOf(tag),
        bytes,
        [this, op]() { Complete(op); },
        m_call);
}

bool
Collective::Ready(uint32_t op) const
{
    const uint32_t deps = m_schedule->DepCount(op);
    for (uint32_t j = 0; j < deps; ++j)
    {
        if (m_state.Get(m_schedule->Dep(op, j)) != OpStateWindow::COMPLETE)
        {
            return false;
        }
    }
    return true;
}

void
Collective::Complete(uint32_t op)
{
    m_state.Set(op, OpStateWindow::COMPLETE);
    const uint32_t dependents = m_schedule->DependentCount(op);
    for (uint32_t j = 0; j < dependents; ++j)
    {
        const uint32_t dependent = m_schedule->Dependent(op, j);
        if (m_state.Get(dependent) == OpStateWindow::WAITING && Ready(dependent))
        {
            Issue(dependent);
        }
    }
    if (--m_remaining == 0)
    {
        Finish();
    }
}

void
Collective::CompleteSendAt(uint32_t op, Time end)
{
    // Nothing depends on it: only the state (for the diagnostics) and the count change.
    m_state.Set(op, OpStateWindow::COMPLETE);
    m_lastSendEnd = std::max(m_lastSendEnd, end);
    if (--m_remaining == 0)
    {
        Finish();
    }
}

void
Collective::Finish()
{
    const Time now = Simulator::Now();
    if (m_lastSendEnd > now)
    {
        m_end = Simulator::Schedule(m_lastSendEnd - now, &Collective::End, this);
        return;
    }
    End();
}

void
Collective::End()
{
    if (!m_done)
    {
        return;
    }
    NS_LOG_INFO("ends " << Describe());
    m_transport->EndCall(m_comm, m_seq);
    auto done = std::move(m_done);
    done();
}

std::string
Collective::Describe() const
{
    const std::vector<uint32_t>& ranks = *m_ranks;
    std::string members = std::to_string(ranks.size()) + " ranks: ";
    // Enough members to recognise the group, not a line of thousands.
    constexpr std::size_t kListed = 8;
    for (std::size_t i = 0; i < ranks.size() && i < kListed; ++i)
    {
        members += (i > 0 ? ", " : "") + std::to_string(ranks[i]);
    }
    if (ranks.size() > kListed)
    {
        members += ", ...";
    }
    return m_call.ToString() + ", call #" + std::to_string(m_seq) + " of " +
           (m_commName.empty() ? std::string("the world communicator")
                               : "communicator '" + m_commName + "'") +
           " (" + members + ")";
}

uint32_t
Collective::GetStepCount() const
{
    return m_schedule->Size();
}

std::vector<std::string>
Collective::DescribeWaiting() const
{
    std::vector<std::string> lines;
    for (uint32_t i = 0; i < m_schedule->Size(); ++i)
    {
        if (m_state.Get(i) == OpStateWindow::COMPLETE)
        {
            continue;
        }
        const MessageOp o = m_schedule->Op(i);
        std::string peer = "rank " + std::to_string(m_ranks->at(o.peer));
        std::string what = o.send ? "send to " + peer : "message from " + peer;
        what += " (tag " + std::to_string(o.tag) + ", " + std::to_string(o.bytes) + " bytes)";
        if (m_state.Get(i) == OpStateWindow::WAITING && (o.send || m_schedule->DepCount(i) > 0))
        {
            uint32_t pending = 0;
            for (uint32_t j = 0; j < m_schedule->DepCount(i); ++j)
            {
                pending += m_state.Get(m_schedule->Dep(i, j)) != OpStateWindow::COMPLETE ? 1 : 0;
            }
            what += " not started: waits for " + std::to_string(pending) + " earlier step(s)";
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
