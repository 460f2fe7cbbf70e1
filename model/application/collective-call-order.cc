#include "collective-call-order.h"

#include "ns3/log.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("CollectiveCallOrder");

void
CollectiveCallOrder::SetMode(Mode mode)
{
    NS_LOG_FUNCTION(this << mode);
    m_mode = mode;
}

void
CollectiveCallOrder::Number(const EtNode& node)
{
    NS_LOG_FUNCTION(this << node.GetId());
    if (node.GetType() != ChakraProtoMsg::COMM_COLL_NODE || !node.GetCommType())
    {
        return;
    }
    const uint64_t seq = m_states[node.GetPgName()].read++;
    if (uint64_t* known = m_numbers.Find(node.GetId()))
    {
        *known = seq; // the feeder refuses a repeated id; keep the last number regardless
    }
    else
    {
        m_numbers.Insert(node.GetId(), seq);
    }
    NS_LOG_LOGIC("node " << node.GetId() << " is call #" << seq << " of pg '" << node.GetPgName()
                         << "'");
}

std::optional<uint64_t>
CollectiveCallOrder::NumberOf(uint64_t nodeId) const
{
    const uint64_t* seq = m_numbers.Find(nodeId);
    if (seq == nullptr)
    {
        return std::nullopt;
    }
    return *seq;
}

bool
CollectiveCallOrder::IsTurn(const std::string& pg, uint64_t seq)
{
    const State& state = m_states[pg];
    return seq == state.started && (m_mode != SERIAL || state.completed == state.started);
}

bool
CollectiveCallOrder::TryStart(std::shared_ptr<const EtNode> node, uint64_t seq)
{
    NS_LOG_FUNCTION(this << node->GetId() << seq);
    const std::string pg = node->GetPgName();
    if (!IsTurn(pg, seq))
    {
        NS_LOG_LOGIC("call #" << seq << " of pg '" << pg << "' parked until its turn");
        m_states[pg].parked[seq] = std::move(node);
        return false;
    }
    ++m_states[pg].started;
    return true;
}

void
CollectiveCallOrder::StartParked(const std::string& pg, const StartFn& start)
{
    NS_LOG_FUNCTION(this << pg);
    // A std::map keeps the reference valid while start() re-enters and adds other groups.
    State& state = m_states[pg];
    while (!state.parked.empty() && IsTurn(pg, state.parked.begin()->first))
    {
        auto node = std::move(state.parked.begin()->second);
        state.parked.erase(state.parked.begin());
        ++state.started;
        start(std::move(node));
    }
}

void
CollectiveCallOrder::Completed(const std::string& pg, uint64_t nodeId)
{
    NS_LOG_FUNCTION(this << pg << nodeId);
    m_numbers.Erase(nodeId);
    ++m_states[pg].completed;
}

std::vector<std::string>
CollectiveCallOrder::DescribeParked() const
{
    std::vector<std::string> lines;
    for (const auto& [pg, state] : m_states)
    {
        for (const auto& [seq, node] : state.parked)
        {
            lines.push_back(
                node->Describe() + ": call #" + std::to_string(seq) + " of " +
                (pg.empty() ? std::string("the world communicator") : "communicator '" + pg + "'") +
                " waits for call #" +
                (state.started < seq ? std::to_string(state.started) + " to start"
                                     : std::to_string(seq - 1) + " to complete") +
                " (calls of a communicator run in program order)");
        }
    }
    return lines;
}

void
CollectiveCallOrder::Clear()
{
    m_states.clear();
}

} // namespace ns3
