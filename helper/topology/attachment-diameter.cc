#include "attachment-diameter.h"

#include "ns3/least-cost-search.h"

#include <algorithm>
#include <limits>
#include <map>
#include <unordered_map>
#include <utility>
#include <vector>

namespace ns3
{

namespace
{

constexpr uint32_t kNone = std::numeric_limits<uint32_t>::max();

/** A GPU's link into a part: the attachment switch (index in the part) and the link's cost. */
using Attachment = std::pair<uint32_t, uint32_t>;

/** A connected set of switches, with least costs and lengths between its attachments. */
struct Part
{
    std::vector<uint32_t> switches;    //!< node indices
    std::vector<uint32_t> attachments; //!< node indices of the switches GPUs link to
    std::vector<uint32_t> gpus;        //!< GPUs linked to it (each once)
    std::vector<uint32_t> cost;        //!< [a * A + b]: least cost between attachments
    std::vector<uint32_t> hops;        //!< [a * A + b]: most links among those least-cost paths
};

/** A route's least cost and its most links (cost kNone: no route). */
struct Route
{
    uint32_t cost{kNone};
    uint32_t links{0};

    /** Keeps the cheaper route; among equal costs, the longer. */
    void Merge(const Route& other)
    {
        if (other.cost < cost || (other.cost == cost && other.links > links))
        {
            *this = other;
        }
    }
};

/** Least costs and most links from one switch over the switches of its part. */
void
FromSwitch(const ClusterTopology& topology,
           uint32_t origin,
           std::vector<uint32_t>& cost,
           std::vector<uint32_t>& hops)
{
    const uint32_t gpus = topology.GetRankCount();
    const auto& links = topology.GetLinks();
    LeastCostSearch(
        topology,
        origin,
        [gpus](uint32_t node) { return node < gpus ? kNoSearchSlot : node; },
        [](uint32_t) { return true; },
        cost,
        kNone,
        [&](uint32_t u, uint32_t d) {
            // Final: its predecessors on least-cost paths are all final (costs are positive).
            uint32_t most = 0;
            for (const auto& port : topology.GetPorts(u))
            {
                if (port.peer >= gpus && cost[port.peer] != kNone &&
                    cost[port.peer] + links[port.link].cost == d)
                {
                    most = std::max(most, hops[port.peer] + 1);
                }
            }
            hops[u] = most;
        });
}

/** The best route between two GPUs through one part, from their attachments to it. */
Route
Through(const Part& part, const std::vector<Attachment>& from, const std::vector<Attachment>& to)
{
    const auto count = static_cast<uint32_t>(part.attachments.size());
    Route best;
    for (const auto& [a, up] : from)
    {
        for (const auto& [b, down] : to)
        {
            const uint32_t between = part.cost[uint64_t{a} * count + b];
            if (between != kNone)
            {
                best.Merge({up + between + down, part.hops[uint64_t{a} * count + b] + 2});
            }
        }
    }
    return best;
}

} // namespace

std::optional<uint32_t>
LeastCostDiameterByAttachment(const ClusterTopology& topology)
{
    if (topology.IsGpuTransit() || topology.HasRouteFunction())
    {
        return std::nullopt;
    }
    const uint32_t gpus = topology.GetRankCount();
    const auto nodes = static_cast<uint32_t>(topology.GetNodes().size());
    const auto& links = topology.GetLinks();

    // The parts: switches joined by switch-to-switch links.
    std::vector<uint32_t> partOf(nodes, kNone);
    std::vector<Part> parts;
    for (uint32_t s = gpus; s < nodes; ++s)
    {
        if (partOf[s] != kNone)
        {
            continue;
        }
        Part part;
        partOf[s] = static_cast<uint32_t>(parts.size());
        part.switches.push_back(s);
        for (std::size_t i = 0; i < part.switches.size(); ++i)
        {
            for (const auto& port : topology.GetPorts(part.switches[i]))
            {
                if (port.peer >= gpus && partOf[port.peer] == kNone)
                {
                    partOf[port.peer] = partOf[s];
                    part.switches.push_back(port.peer);
                }
            }
        }
        parts.push_back(std::move(part));
    }

    // Each GPU's attachments, per part; attachment switches numbered within their part.
    std::vector<uint32_t> attachmentIndex(nodes, kNone);
    std::vector<std::vector<std::pair<uint32_t, std::vector<Attachment>>>> attached(gpus);
    for (uint32_t gpu = 0; gpu < gpus; ++gpu)
    {
        for (const auto& port : topology.GetPorts(gpu))
        {
            if (port.peer < gpus)
            {
                return std::nullopt; // a GPU-to-GPU link: a route of its own
            }
            const uint32_t p = partOf[port.peer];
            Part& part = parts[p];
            if (attachmentIndex[port.peer] == kNone)
            {
                attachmentIndex[port.peer] = static_cast<uint32_t>(part.attachments.size());
                part.attachments.push_back(port.peer);
            }
            auto& mine = attached[gpu];
            auto it = std::find_if(mine.begin(), mine.end(), [p](const auto& entry) {
                return entry.first == p;
            });
            if (it == mine.end())
            {
                mine.emplace_back(p, std::vector<Attachment>());
                it = mine.end() - 1;
                part.gpus.push_back(gpu);
            }
            it->second.emplace_back(attachmentIndex[port.peer], links[port.link].cost);
        }
    }
    // Each GPU on at most one small part and one large part (a pair then shares at most one
    // of each, which the counting below relies on).
    // Small: few GPUs, and not the part most GPUs are on (in a small cluster the fabric has
    // few GPUs too). Either way of evaluating a part is exact; this only bounds the cost.
    uint32_t largest = kNone;
    for (uint32_t p = 0; p < parts.size(); ++p)
    {
        if (largest == kNone || parts[p].gpus.size() > parts[largest].gpus.size())
        {
            largest = p;
        }
    }
    auto isSmall = [&parts, largest](uint32_t p) {
        return p != largest && parts[p].gpus.size() <= kSmallPart;
    };
    std::vector<uint32_t> smallOf(gpus, kNone);
    std::vector<uint32_t> largeOf(gpus, kNone);
    for (uint32_t gpu = 0; gpu < gpus; ++gpu)
    {
        for (auto& [p, list] : attached[gpu])
        {
            std::sort(list.begin(), list.end());
            uint32_t& slot = isSmall(p) ? smallOf[gpu] : largeOf[gpu];
            if (slot != kNone)
            {
                return std::nullopt;
            }
            slot = p;
        }
    }
    auto attachmentsOf = [&attached](uint32_t gpu, uint32_t p) -> const std::vector<Attachment>& {
        for (const auto& entry : attached[gpu])
        {
            if (entry.first == p)
            {
                return entry.second;
            }
        }
        static const std::vector<Attachment> none;
        return none;
    };

    // Least costs and lengths between the attachments of each part.
    std::vector<uint32_t> cost(nodes, kNone);
    std::vector<uint32_t> hops(nodes, 0);
    for (Part& part : parts)
    {
        const auto count = static_cast<uint32_t>(part.attachments.size());
        if (count > kMaxAttachments)
        {
            return std::nullopt;
        }
        part.cost.assign(uint64_t{count} * count, kNone);
        part.hops.assign(uint64_t{count} * count, 0);
        for (uint32_t a = 0; a < count; ++a)
        {
            FromSwitch(topology, part.attachments[a], cost, hops);
            for (uint32_t b = 0; b < count; ++b)
            {
                part.cost[uint64_t{a} * count + b] = cost[part.attachments[b]];
                part.hops[uint64_t{a} * count + b] = hops[part.attachments[b]];
            }
            for (uint32_t s : part.switches)
            {
                cost[s] = kNone;
                hops[s] = 0;
            }
        }
    }

    // Classes of GPUs with the same attachments to a large part.
    std::vector<uint32_t> classOf(gpus, kNone);
    std::vector<std::vector<std::vector<Attachment>>> classes(parts.size());
    std::vector<std::vector<uint64_t>> classSize(parts.size());
    {
        std::vector<std::map<std::vector<Attachment>, uint32_t>> index(parts.size());
        for (uint32_t gpu = 0; gpu < gpus; ++gpu)
        {
            const uint32_t p = largeOf[gpu];
            if (p == kNone)
            {
                continue;
            }
            const auto& mine = attachmentsOf(gpu, p);
            auto [it, added] = index[p].emplace(mine, static_cast<uint32_t>(classes[p].size()));
            if (added)
            {
                classes[p].push_back(mine);
                classSize[p].push_back(0);
            }
            classOf[gpu] = it->second;
            ++classSize[p][it->second];
        }
    }

    uint32_t diameter = 0;
    // Pairs sharing a small part, one by one (and through their large part when they share
    // it); counted per pair of classes, so that those classes' other pairs are known to exist.
    std::vector<std::unordered_map<uint64_t, uint64_t>> counted(parts.size());
    for (uint32_t p = 0; p < parts.size(); ++p)
    {
        if (!isSmall(p))
        {
            continue;
        }
        for (uint32_t u : parts[p].gpus)
        {
            for (uint32_t d : parts[p].gpus)
            {
                if (u == d)
                {
                    continue;
                }
                Route route = Through(parts[p], attachmentsOf(u, p), attachmentsOf(d, p));
                const uint32_t large = largeOf[u];
                if (large != kNone && large == largeOf[d])
                {
                    route.Merge(Through(parts[large],
                                        classes[large][classOf[u]],
                                        classes[large][classOf[d]]));
                    ++counted[large][uint64_t{classOf[u]} << 32 | classOf[d]];
                }
                if (route.cost != kNone)
                {
                    diameter = std::max(diameter, route.links);
                }
            }
        }
    }
    // Pairs sharing only a large part: by pairs of classes that hold at least one such pair.
    for (uint32_t p = 0; p < parts.size(); ++p)
    {
        const auto count = static_cast<uint32_t>(classes[p].size());
        for (uint32_t x = 0; x < count; ++x)
        {
            for (uint32_t y = 0; y < count; ++y)
            {
                const uint64_t pairs =
                    classSize[p][x] * classSize[p][y] - (x == y ? classSize[p][x] : 0);
                const auto seen = counted[p].find(uint64_t{x} << 32 | y);
                if (pairs == 0 || (seen != counted[p].end() && seen->second >= pairs))
                {
                    continue;
                }
                const Route route = Through(parts[p], classes[p][x], classes[p][y]);
                if (route.cost != kNone)
                {
                    diameter = std::max(diameter, route.links);
                }
            }
        }
    }
    return diameter;
}

} // namespace ns3
