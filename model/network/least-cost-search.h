/*
 * The one Dijkstra search over a cluster's links: routing's per-destination and per-switch
 * tables (ClusterTopology) and the diameter's costs between a part's attachments
 * (helper/topology/attachment-diameter.cc) differ only in which nodes a search enters, which
 * it continues through, how it numbers them and what it records once a node's cost is final.
 */
#ifndef CHAKRA_LEAST_COST_SEARCH_H
#define CHAKRA_LEAST_COST_SEARCH_H

#include "cluster-topology.h"

#include <cstdint>
#include <functional>
#include <limits>
#include <queue>
#include <stdexcept>
#include <utility>
#include <vector>

namespace ns3
{

/** A node a least-cost search never enters (LeastCostSearch's slotOf). */
constexpr uint32_t kNoSearchSlot = std::numeric_limits<uint32_t>::max();

/**
 * Least costs from \p source over the links of \p topology (costs are symmetric: they are also
 * the costs to it), by Dijkstra.
 * \param topology the graph
 * \param source the node the search starts from (it always continues through it)
 * \param slotOf slotOf(node): the node's index into \p cost, or kNoSearchSlot for a node the
 *        search never enters
 * \param expands expands(node): whether paths continue through a node the search reached
 * \param cost costs by slot (an unsigned type); entries not yet reached hold its largest
 *        value; the source's is set to 0
 * \param limit a cost this high or higher is an overflow (std::overflow_error naming it), at
 *        most the largest value of \p cost's type
 * \param settled settled(node, cost): called once per entered node, in increasing cost, when
 *        its cost is final
 */
template <typename Cost, typename SlotOf, typename Expands, typename Settled>
void
LeastCostSearch(const ClusterTopology& topology,
                uint32_t source,
                SlotOf slotOf,
                Expands expands,
                std::vector<Cost>& cost,
                uint32_t limit,
                Settled settled)
{
    const auto& links = topology.GetLinks();
    using Item = std::pair<uint32_t, uint32_t>;
    std::priority_queue<Item, std::vector<Item>, std::greater<Item>> frontier;
    cost[slotOf(source)] = 0;
    frontier.push({0, source});
    while (!frontier.empty())
    {
        const auto [d, u] = frontier.top();
        frontier.pop();
        if (d != cost[slotOf(u)])
        {
            continue;
        }
        settled(u, d);
        if (u != source && !expands(u))
        {
            continue;
        }
        for (const ClusterTopology::Port& port : topology.GetPorts(u))
        {
            const uint32_t slot = slotOf(port.peer);
            if (slot == kNoSearchSlot)
            {
                continue;
            }
            const uint32_t next = d + links[port.link].cost;
            if (next < cost[slot])
            {
                if (next >= limit)
                {
                    throw std::overflow_error("ClusterTopology: path cost above " +
                                              std::to_string(limit - 1));
                }
                cost[slot] = static_cast<Cost>(next);
                frontier.push({next, port.peer});
            }
        }
    }
}

} // namespace ns3

#endif // CHAKRA_LEAST_COST_SEARCH_H
