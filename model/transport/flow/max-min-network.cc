#include "max-min-network.h"

#include "ns3/log.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <stdexcept>
#include <string>
#include <utility>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("ChakraMaxMinNetwork");

namespace
{
/**
 * Relative slack of the float comparisons: a link counts as full within it, and a rate that
 * moves by less is not reported as changed (so that flows are not rescheduled for rounding).
 */
constexpr double kSlack = 1e-9;
} // namespace

uint32_t
MaxMinNetwork::AddLink(double capacity)
{
    NS_LOG_FUNCTION(this << capacity);
    // A link and a flow each fill two cache lines (see their comments).
    static_assert(sizeof(Link) == 128 && sizeof(Flow) == 128,
                  "a link or a flow has outgrown its two cache lines");
    if (!(capacity > 0))
    {
        throw std::invalid_argument("MaxMinNetwork: a link needs a positive capacity");
    }
    Link link;
    link.capacity = capacity;
    m_links.push_back(std::move(link));
    return static_cast<uint32_t>(m_links.size() - 1);
}

uint32_t
MaxMinNetwork::GetLinkCount() const
{
    return static_cast<uint32_t>(m_links.size());
}

double
MaxMinNetwork::GetCapacity(uint32_t link) const
{
    return m_links.at(link).capacity;
}

uint32_t
MaxMinNetwork::AddFlow(const std::vector<uint32_t>& path, const std::vector<double>& weights)
{
    CheckPath(path, weights);
    return AddCheckedFlow(path, weights);
}

void
MaxMinNetwork::CheckPath(const std::vector<uint32_t>& path,
                         const std::vector<double>& weights) const
{
    if (path.empty())
    {
        throw std::invalid_argument("MaxMinNetwork: a flow needs at least one link");
    }
    if (!weights.empty() && weights.size() != path.size())
    {
        throw std::invalid_argument("MaxMinNetwork: a flow needs one weight per link");
    }
    for (double w : weights)
    {
        if (!(w > 0 && w <= 1))
        {
            throw std::invalid_argument("MaxMinNetwork: a weight must be in (0, 1]");
        }
    }
    for (std::size_t i = 0; i < path.size(); ++i)
    {
        if (path[i] >= m_links.size())
        {
            throw std::invalid_argument("MaxMinNetwork: no link " + std::to_string(path[i]));
        }
        for (std::size_t j = 0; j < i; ++j)
        {
            if (path[j] == path[i])
            {
                throw std::invalid_argument("MaxMinNetwork: a path crosses link " +
                                            std::to_string(path[i]) + " twice");
            }
        }
    }
}

uint32_t
MaxMinNetwork::AddCheckedFlow(const std::vector<uint32_t>& path, const std::vector<double>& weights)
{
    NS_LOG_FUNCTION(this << path.size());
    uint32_t id;
    if (!m_freeFlows.empty())
    {
        id = m_freeFlows.back();
        m_freeFlows.pop_back();
    }
    else
    {
        id = static_cast<uint32_t>(m_flows.size());
        m_flows.emplace_back();
    }
    Flow& flow = m_flows[id];
    flow.hops.assign(static_cast<uint32_t>(path.size()), Hop{0, 0});
    if (!weights.empty())
    {
        flow.weight.reset(new double[weights.size()]);
        std::copy(weights.begin(), weights.end(), flow.weight.get());
    }
    flow.rate = 0;
    flow.alive = true;
    for (uint32_t i = 0; i < flow.hops.size(); ++i)
    {
        Link& link = m_links[path[i]];
        flow.hops[i] = Hop{path[i], link.flows.size()};
        link.flows.push_back(id);
        m_touched.push_back(path[i]);
    }
    ++m_aliveFlows;
    return id;
}

void
MaxMinNetwork::RemoveFlow(uint32_t id)
{
    NS_LOG_FUNCTION(this << id);
    if (id >= m_flows.size() || !m_flows[id].alive)
    {
        throw std::invalid_argument("MaxMinNetwork: no flow " + std::to_string(id));
    }
    Flow& flow = m_flows[id];
    for (uint32_t i = 0; i < flow.hops.size(); ++i)
    {
        const auto [l, slot] = flow.hops[i];
        Link& link = m_links[l];
        const uint32_t moved = link.flows.back();
        link.flows[slot] = moved;
        link.flows.pop_back();
        if (moved != id)
        {
            // The flow moved into the freed slot records its new position on this link.
            for (Hop& hop : m_flows[moved].hops)
            {
                if (hop.link == l)
                {
                    hop.slot = slot;
                    break;
                }
            }
        }
        link.load -= flow.rate * (flow.weight ? flow.weight[i] : 1.0);
        m_touched.push_back(l);
    }
    flow.hops.clear();
    flow.weight.reset();
    flow.rate = 0;
    flow.alive = false;
    m_freeFlows.push_back(id);
    --m_aliveFlows;
}

double
MaxMinNetwork::GetRate(uint32_t flow) const
{
    return m_flows.at(flow).rate;
}

std::vector<uint32_t>
MaxMinNetwork::GetPath(uint32_t flow) const
{
    std::vector<uint32_t> path;
    for (const Hop& hop : m_flows.at(flow).hops)
    {
        path.push_back(hop.link);
    }
    return path;
}

uint32_t
MaxMinNetwork::GetFlowCount() const
{
    return m_aliveFlows;
}

std::vector<uint32_t>
MaxMinNetwork::GetFlowsOn(uint32_t link) const
{
    const Link& l = m_links.at(link);
    return std::vector<uint32_t>(l.flows.begin(), l.flows.end());
}

double
MaxMinNetwork::GetLoad(uint32_t link) const
{
    return m_links.at(link).load;
}

const MaxMinNetwork::Counters&
MaxMinNetwork::GetCounters() const
{
    return m_counters;
}

double
MaxMinNetwork::WeightOn(const Flow& f, uint32_t l) const
{
    if (!f.weight)
    {
        return 1;
    }
    for (uint32_t i = 0; i < f.hops.size(); ++i)
    {
        if (f.hops[i].link == l)
        {
            return f.weight[i];
        }
    }
    return 1;
}

bool
MaxMinNetwork::IsFull(const Link& link) const
{
    return link.load >= link.capacity * (1 - kSlack);
}

void
MaxMinNetwork::Expand(uint32_t l)
{
    if (m_links[l].expanded == m_epoch)
    {
        return;
    }
    m_links[l].expanded = m_epoch;
    if (m_links[l].inFill != m_epoch)
    {
        m_links[l].inFill = m_epoch;
        m_fillLinks.push_back(l);
    }
    for (uint32_t f : m_links[l].flows)
    {
        if (m_flows[f].inSet == m_epoch)
        {
            continue;
        }
        m_flows[f].inSet = m_epoch;
        m_setFlows.push_back(f);
        for (const Hop& hop : m_flows[f].hops)
        {
            const uint32_t m = hop.link;
            if (m_links[m].inFill != m_epoch)
            {
                m_links[m].inFill = m_epoch;
                m_fillLinks.push_back(m);
            }
            // A full link couples its flows: whatever this flow's new rate, theirs may move.
            if (m_links[m].expanded != m_epoch && IsFull(m_links[m]))
            {
                m_queue.push_back(m);
            }
        }
    }
}

bool
MaxMinNetwork::ExtendIfUnfair(uint32_t link, double level)
{
    if (m_links[link].expanded == m_epoch ||
        m_links[link].outsideMax <= level + kSlack * m_links[link].capacity)
    {
        return false;
    }
    // A flow left out keeps more than the recomputed flows get on a link it shares with them:
    // it is not fair any more, so it (and what it couples) is recomputed.
    m_queue.push_back(link);
    ++m_counters.extensions;
    return true;
}

bool
MaxMinNetwork::Fill()
{
    NS_LOG_FUNCTION(this);
    for (uint32_t l : m_fillLinks)
    {
        double remaining = m_links[l].capacity;
        uint32_t unfrozen = 0;
        double unfrozenWeight = 0;
        double outsideMax = 0;
        for (uint32_t f : m_links[l].flows)
        {
            if (m_flows[f].inSet == m_epoch)
            {
                ++unfrozen;
                unfrozenWeight += WeightOn(m_flows[f], l);
            }
            else
            {
                remaining -= m_flows[f].rate * WeightOn(m_flows[f], l);
                outsideMax = std::max(outsideMax, m_flows[f].rate);
            }
        }
        m_links[l].remaining = remaining;
        m_links[l].unfrozen = unfrozen;
        m_links[l].unfrozenWeight = unfrozenWeight;
        m_links[l].outsideMax = outsideMax;
    }
    for (uint32_t f : m_setFlows)
    {
        m_flows[f].frozen = false;
    }
    auto share = [this](uint32_t l) {
        return std::max(m_links[l].remaining, 0.0) / m_links[l].unfrozenWeight;
    };
    // A flow frozen at \p level leaves link \p l: its share of the link is used up.
    auto freeze = [this](const Flow& flow, uint32_t i, double level) {
        const uint32_t m = flow.hops[i].link;
        const double w = flow.weight ? flow.weight[i] : 1.0;
        m_links[m].remaining -= level * w;
        m_links[m].unfrozenWeight = --m_links[m].unfrozen == 0 ? 0 : m_links[m].unfrozenWeight - w;
    };
    // A flow that shares none of its links with another recomputed flow (the common case when
    // many start at one instant, each alone on its NIC's links) is raised against nobody: it
    // stops at the smallest share on its path, the first of its links the heap below would
    // pop (the same level, the same fairness check), without the heap's O(log) per link.
    std::size_t frozen = 0;
    for (uint32_t f : m_setFlows)
    {
        const SmallArray<Hop, kInlineHops>& hops = m_flows[f].hops;
        // The (share, link) the heap would pop first among its links.
        HeapEntry first(share(hops[0].link), hops[0].link);
        bool alone = true;
        for (const Hop& hop : hops)
        {
            const uint32_t m = hop.link;
            if (m_links[m].unfrozen != 1)
            {
                alone = false;
                break;
            }
            first = std::min(first, HeapEntry(share(m), m));
        }
        if (!alone)
        {
            continue;
        }
        const auto [level, bottleneck] = first;
        if (ExtendIfUnfair(bottleneck, level))
        {
            return false;
        }
        m_flows[f].frozen = true;
        m_flows[f].newRate = level;
        ++frozen;
        for (uint32_t i = 0; i < hops.size(); ++i)
        {
            freeze(m_flows[f], i, level);
        }
    }
    // A min-heap of (fair share, link), kept between calls (no allocation per call).
    std::vector<HeapEntry>& heap = m_heap;
    heap.clear();
    const std::greater<HeapEntry> later;
    for (uint32_t l : m_fillLinks)
    {
        if (m_links[l].unfrozen > 0)
        {
            heap.emplace_back(share(l), l);
        }
    }
    std::make_heap(heap.begin(), heap.end(), later);
    while (!heap.empty() && frozen < m_setFlows.size())
    {
        std::pop_heap(heap.begin(), heap.end(), later);
        const auto [level, l] = heap.back();
        heap.pop_back();
        if (m_links[l].unfrozen == 0)
        {
            continue;
        }
        // A link's entry is a lower bound of its share: freezing a flow at the lowest level
        // only raises the shares of its other links (below, where rounding lowered one, a
        // fresh entry was pushed). An entry below the share now goes back in at the share, so
        // the first entry popped at its link's share is the lowest share (lowest link first
        // among equals), as with an entry per change, without pushing one per frozen flow.
        const double current = share(l);
        if (current != level)
        {
            heap.emplace_back(current, l);
            std::push_heap(heap.begin(), heap.end(), later);
            continue;
        }
        if (ExtendIfUnfair(l, level))
        {
            return false;
        }
        for (uint32_t f : m_links[l].flows)
        {
            if (m_flows[f].inSet != m_epoch || m_flows[f].frozen)
            {
                continue;
            }
            m_flows[f].frozen = true;
            m_flows[f].newRate = level;
            ++frozen;
            const Flow& flow = m_flows[f];
            for (uint32_t i = 0; i < flow.hops.size(); ++i)
            {
                const uint32_t m = flow.hops[i].link;
                const double before = share(m);
                freeze(flow, i, level);
                if (m_links[m].unfrozen > 0 && share(m) < before)
                {
                    heap.emplace_back(share(m), m);
                    std::push_heap(heap.begin(), heap.end(), later);
                }
            }
        }
    }
    return true;
}

void
MaxMinNetwork::Reallocate(std::vector<uint32_t>& changed)
{
    NS_LOG_FUNCTION(this);
    changed.clear();
    if (m_touched.empty())
    {
        return;
    }
    ++m_epoch;
    m_setFlows.clear();
    m_fillLinks.clear();
    m_queue.swap(m_touched);
    m_touched.clear();
    do
    {
        while (!m_queue.empty())
        {
            const uint32_t l = m_queue.back();
            m_queue.pop_back();
            Expand(l);
        }
    } while (!Fill());

    for (uint32_t f : m_setFlows)
    {
        Flow& flow = m_flows[f];
        const double rate = m_flows[f].newRate;
        if (std::abs(rate - flow.rate) > kSlack * std::max(rate, flow.rate))
        {
            flow.rate = rate;
            changed.push_back(f);
        }
    }
    for (uint32_t l : m_fillLinks)
    {
        double load = 0;
        for (uint32_t f : m_links[l].flows)
        {
            load += m_flows[f].rate * WeightOn(m_flows[f], l);
        }
        m_links[l].load = load;
    }
    ++m_counters.reallocations;
    m_counters.flowsRecomputed += m_setFlows.size();
    m_counters.largestComponent =
        std::max<uint64_t>(m_counters.largestComponent, m_setFlows.size());
}

} // namespace ns3
