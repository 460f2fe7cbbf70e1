/*
 * EtFeeder: the stuck-run report (the nodes that can never run, dependency cycles).
 */
#include "et-feeder.h"

#include "ns3/trace-error.h"

#include <algorithm>
#include <sstream>
#include <unordered_map>

namespace ns3
{

std::vector<EtStuckNode>
EtFeeder::GetStuckNodes()
{
    while (LoadOne())
    {
    }
    std::vector<EtStuckNode> stuck;
    if (m_store)
    {
        for (std::size_t pos = 0; pos < m_isLoaded.size(); ++pos)
        {
            if (m_isLoaded[pos] && !m_isIssued[pos] && !m_isFinished[pos] && m_pending[pos] > 0)
            {
                const auto& node = m_store->At(pos);
                stuck.push_back(StuckItem(node->GetId(), *node));
            }
        }
    }
    m_loaded.ForEach([&](uint64_t id, const Entry& entry) {
        if (!entry.issued && !entry.finished && entry.pending > 0)
        {
            stuck.push_back(StuckItem(id, *entry.node));
        }
    });
    std::sort(stuck.begin(), stuck.end(), [](const EtStuckNode& a, const EtStuckNode& b) {
        return a.id < b.id;
    });
    return stuck;
}

EtStuckNode
EtFeeder::StuckItem(uint64_t id, const EtNode& node) const
{
    EtStuckNode item;
    item.id = id;
    item.name = node.GetName();
    std::vector<uint64_t> parents;
    ParentsOf(node, parents);
    for (uint64_t parent : parents)
    {
        if (parent == id || HasFinished(parent) || m_presumedMissing.Contains(parent))
        {
            continue;
        }
        item.waitingFor.push_back(parent);
        if (!WasRead(parent))
        {
            item.missing.push_back(parent);
        }
    }
    return item;
}

std::vector<uint64_t>
EtFeeder::FindCycle()
{
    std::vector<EtStuckNode> stuck = GetStuckNodes();
    std::unordered_map<uint64_t, const EtStuckNode*> byId;
    for (const auto& node : stuck)
    {
        byId[node.id] = &node;
    }
    // Iterative depth-first search over "waits for" edges (no recursion: traces can hold
    // millions of nodes in one chain). 1 = on the current path, 2 = explored.
    std::unordered_map<uint64_t, int> state;
    for (const auto& start : stuck)
    {
        if (state[start.id] != 0)
        {
            continue;
        }
        std::vector<std::pair<uint64_t, std::size_t>> path{{start.id, 0}};
        state[start.id] = 1;
        while (!path.empty())
        {
            auto& [id, next] = path.back();
            const EtStuckNode* node = byId.at(id);
            if (next == node->waitingFor.size())
            {
                state[id] = 2;
                path.pop_back();
                continue;
            }
            uint64_t parent = node->waitingFor[next++];
            if (byId.count(parent) == 0)
            {
                continue; // missing or in flight: not part of a cycle
            }
            int& parentState = state[parent];
            if (parentState == 1)
            {
                std::vector<uint64_t> cycle;
                auto from = std::find_if(path.begin(), path.end(), [&](const auto& step) {
                    return step.first == parent;
                });
                for (auto step = from; step != path.end(); ++step)
                {
                    cycle.push_back(step->first);
                }
                return cycle;
            }
            if (parentState == 0)
            {
                parentState = 1;
                path.emplace_back(parent, 0);
            }
        }
    }
    return {};
}

void
EtFeeder::ThrowStuck()
{
    std::vector<EtStuckNode> stuck = GetStuckNodes();
    std::ostringstream text;
    text << stuck.size() << " node" << (stuck.size() == 1 ? "" : "s")
         << " can never run (end of file, nothing ready, nothing in flight)";
    std::size_t shown = 0;
    for (const auto& node : stuck)
    {
        if (node.missing.empty())
        {
            continue;
        }
        if (shown++ == 5)
        {
            text << "; ...";
            break;
        }
        text << "; node " << node.id << " (" << node.name << ") waits for id";
        text << (node.missing.size() > 1 ? "s " : " ");
        for (std::size_t i = 0; i < node.missing.size(); ++i)
        {
            text << (i > 0 ? ", " : "") << node.missing[i];
        }
        text << " which never appear" << (node.missing.size() > 1 ? "" : "s") << " in the file";
    }
    std::vector<uint64_t> cycle = FindCycle();
    if (!cycle.empty())
    {
        text << "; dependency cycle:";
        bool throughCtrl = false;
        for (std::size_t i = 0; i < cycle.size(); ++i)
        {
            const EtNode& node = *LookupNode(cycle[i]);
            uint64_t next = cycle[(i + 1) % cycle.size()];
            const auto& data = node.GetDataDeps();
            throughCtrl = throughCtrl || !m_options.honourDataDeps ||
                          std::find(data.begin(), data.end(), next) == data.end();
            text << " " << cycle[i] << " (" << node.GetName() << ") ->";
        }
        text << " " << cycle.front();
        if (throughCtrl)
        {
            text << " (the cycle goes through ctrl_deps: in output of the reference converter "
                    "they are call-tree links, not dependencies; switch ctrl_deps off)";
        }
    }
    if (shown > 0 && m_options.danglingAsSatisfied == false)
    {
        text << " (option danglingAsSatisfied / --dangling-deps=ignore treats missing ids as "
                "finished)";
    }
    throw TraceError(GetPath(), "", text.str());
}

} // namespace ns3
