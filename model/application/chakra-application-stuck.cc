/*
 * What ChakraApplication reports of its rank: the totals, and for a rank that did not finish,
 * what it waits for, the cause first. The rest of the class is in chakra-application.cc.
 */
#include "chakra-application.h"

#include "ns3/text-format.h"
#include "ns3/trace-error.h"

namespace ns3
{

RankStats
ChakraApplication::GetStats()
{
    RankStats stats = m_stats.Summarize(m_tracePath);
    if (!stats.finished && stats.error.empty() && m_feeder)
    {
        stats.stuck = DescribeStuck();
    }
    if (stats.finished && m_transport)
    {
        CheckUnreceived(stats);
    }
    if (m_transport)
    {
        for (const auto& error : m_transport->GetErrors())
        {
            stats.warnings.push_back(error);
        }
    }
    return stats;
}

std::vector<std::string>
ChakraApplication::DescribeStuck() const
{
    std::vector<std::string> stuck;
    // What holds the rank first (the calls and messages it waits for), then the nodes that
    // wait behind them: a report cut after its first lines still names the cause.
    for (const auto& [id, collective] : m_activeCollectives)
    {
        auto node = m_feeder->LookupNode(id);
        std::string prefix = node ? node->Describe() : "node " + std::to_string(id);
        const auto waiting = collective->DescribeWaiting();
        stuck.push_back(prefix + ": " + collective->Describe() + ": " +
                        std::to_string(waiting.size()) + " of its " +
                        std::to_string(collective->GetStepCount()) + " steps not done; the first " +
                        (waiting.empty() ? std::string("?") : waiting.front()));
    }
    for (const auto& [id, until] : m_finishingCollectives)
    {
        auto node = m_feeder->LookupNode(id);
        std::string prefix = node ? node->Describe() : "node " + std::to_string(id);
        stuck.push_back(prefix + ": collective's messages are through; it ends at " +
                        FormatMicros(until - m_replayStart) +
                        " us, after its software cost and this rank's call delay");
    }
    for (const auto& [id, p2p] : m_activeP2p)
    {
        stuck.push_back(p2p.node->Describe() + ": " +
                        (p2p.send ? "send to rank " : "waits for a message from rank ") +
                        std::to_string(p2p.peer) + " with tag " + std::to_string(p2p.tag) + " (" +
                        std::to_string(p2p.bytes) + " bytes)");
    }
    for (auto& line : m_resources.DescribeWaiting())
    {
        stuck.push_back(std::move(line));
    }
    for (auto& line : m_callOrder.DescribeParked())
    {
        stuck.push_back(std::move(line));
    }
    if (m_transport)
    {
        // Messages of calls this rank has not reached yet wait here too: a few name them.
        const auto unreceived = m_transport->GetUnreceived();
        constexpr std::size_t kNamed = 3;
        for (std::size_t i = 0; i < unreceived.size() && i < kNamed; ++i)
        {
            stuck.push_back("a message arrived that no receive has taken: " +
                            DescribeUnreceived(unreceived[i]));
        }
        if (unreceived.size() > kNamed)
        {
            stuck.push_back(std::to_string(unreceived.size() - kNamed) +
                            " more messages arrived that no receive has taken");
        }
    }
    try
    {
        for (const auto& waiting : m_feeder->GetStuckNodes())
        {
            std::string line = "node " + std::to_string(waiting.id) + " (" + waiting.name +
                               ") waits for parent node(s)";
            for (uint64_t parent : waiting.waitingFor)
            {
                line += " " + std::to_string(parent);
            }
            stuck.push_back(line);
        }
    }
    catch (const TraceError& e)
    {
        stuck.push_back(e.what());
    }
    if (stuck.empty())
    {
        stuck.push_back(!m_replayStarted || !m_feeder
                            ? "never started"
                            : "no node waiting (the simulation stopped early?)");
    }
    return stuck;
}

void
ChakraApplication::CheckUnreceived(RankStats& stats) const
{
    // Every model delivers a message whether a receive waits for it or not (an eager send
    // completes without one): once this rank has run its whole trace, a message still waiting
    // is one that nobody receives, which the job could not have run.
    const auto unreceived = m_transport->GetUnreceived();
    if (unreceived.empty())
    {
        return;
    }
    stats.finished = false;
    stats.error =
        "rank " + std::to_string(m_rank) + " ran its whole trace, but " +
        std::to_string(unreceived.size()) +
        " message(s) sent to it were never received: " + DescribeUnreceived(unreceived.front());
    constexpr std::size_t kNamed = 3;
    for (std::size_t i = 1; i < unreceived.size() && i < kNamed; ++i)
    {
        stats.error += "; " + DescribeUnreceived(unreceived[i]);
    }
    if (unreceived.size() > kNamed)
    {
        stats.error += "; and " + std::to_string(unreceived.size() - kNamed) + " more";
    }
}

std::string
ChakraApplication::DescribeUnreceived(const CommTransport::UnreceivedMessage& message) const
{
    const std::string sender = "rank " + std::to_string(message.src);
    const std::string node =
        message.call.IsKnown() ? "node " + std::to_string(message.call.node) + ", " : "";
    if (message.key.kind == MessageKey::P2P)
    {
        return sender + " sent " + std::to_string(message.bytes) + " bytes with tag " +
               std::to_string(message.key.tag) + " (" + node + "a send) and rank " +
               std::to_string(m_rank) + " has no receive from rank " + std::to_string(message.src) +
               " with that tag";
    }
    return sender + "'s message (tag " + std::to_string(message.key.tag) +
           ") of collective call #" + std::to_string(message.key.seq) + " of " +
           m_communicators.Label(message.key.comm) + " (" + message.call.ToString() + " on rank " +
           std::to_string(message.src) + "): rank " + std::to_string(m_rank) +
           " never made that call";
}

} // namespace ns3
