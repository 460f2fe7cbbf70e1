#include "cluster-topology.h"

#include "least-cost-search.h"

#include "ns3/log.h"

#include <algorithm>
#include <limits>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("ChakraClusterTopology");

namespace
{
constexpr uint16_t kUnreachable = std::numeric_limits<uint16_t>::max();
/** CostTo's "no path" (costs are summed in 32 bits and checked against kUnreachable). */
constexpr uint32_t kNoPath = std::numeric_limits<uint32_t>::max();
} // namespace

uint32_t
ClusterTopology::AddGpu(uint32_t host, const std::string& label)
{
    NS_LOG_FUNCTION(this << host << label);
    if (m_nodes.size() != m_gpus)
    {
        throw std::logic_error("ClusterTopology: GPUs must be added before switches");
    }
    Node node;
    node.kind = GPU;
    node.group = host;
    node.label = label.empty() ? "gpu" + std::to_string(m_gpus) : label;
    m_nodes.push_back(node);
    m_ports.emplace_back();
    m_distances.emplace_back();
    return m_gpus++;
}

uint32_t
ClusterTopology::AddSwitch(NodeKind kind, uint32_t group, const std::string& label)
{
    NS_LOG_FUNCTION(this << group << label);
    if (kind == GPU)
    {
        throw std::invalid_argument("ClusterTopology::AddSwitch: a GPU is not a switch");
    }
    Node node;
    node.kind = kind;
    node.group = group;
    node.label = label;
    m_nodes.push_back(node);
    m_ports.emplace_back();
    m_switchTables.emplace_back();
    return static_cast<uint32_t>(m_nodes.size() - 1);
}

uint32_t
ClusterTopology::AddLink(uint32_t a,
                         uint32_t b,
                         DataRate rate,
                         Time delay,
                         uint32_t mtu,
                         LinkKind kind)
{
    NS_LOG_FUNCTION(this << a << b << rate << delay << mtu);
    if (a >= m_nodes.size() || b >= m_nodes.size() || a == b)
    {
        throw std::invalid_argument("ClusterTopology::AddLink: bad link " + std::to_string(a) +
                                    " - " + std::to_string(b) + " (" +
                                    std::to_string(m_nodes.size()) + " nodes)");
    }
    Link link;
    link.a = a;
    link.b = b;
    link.rate = rate;
    link.delay = delay;
    link.mtu = mtu;
    link.kind = kind;
    link.cost = kind == SCALE_UP ? kScaleUpCost : kScaleOutCost;
    const auto index = static_cast<uint32_t>(m_links.size());
    m_links.push_back(link);
    m_ports[a].push_back({index, b});
    m_ports[b].push_back({index, a});
    return index;
}

void
ClusterTopology::SetGpuTransit(bool transit)
{
    NS_LOG_FUNCTION(this << transit);
    m_gpuTransit = transit;
}

void
ClusterTopology::SetRouteFunction(RouteFunction route)
{
    NS_LOG_FUNCTION(this);
    m_route = std::move(route);
}

void
ClusterTopology::SetName(const std::string& name)
{
    NS_LOG_FUNCTION(this << name);
    m_name = name;
}

const std::string&
ClusterTopology::GetName() const
{
    return m_name;
}

uint32_t
ClusterTopology::GetRankCount() const
{
    return m_gpus;
}

const std::vector<ClusterTopology::Node>&
ClusterTopology::GetNodes() const
{
    return m_nodes;
}

const std::vector<ClusterTopology::Link>&
ClusterTopology::GetLinks() const
{
    return m_links;
}

const std::vector<ClusterTopology::Port>&
ClusterTopology::GetPorts(uint32_t node) const
{
    return m_ports.at(node);
}

std::vector<uint32_t>
ClusterTopology::GetHostOf() const
{
    std::vector<uint32_t> hostOf;
    hostOf.reserve(m_gpus);
    for (uint32_t rank = 0; rank < m_gpus; ++rank)
    {
        hostOf.push_back(m_nodes[rank].group);
    }
    return hostOf;
}

bool
ClusterTopology::IsGpuTransit() const
{
    return m_gpuTransit;
}

bool
ClusterTopology::HasRouteFunction() const
{
    return static_cast<bool>(m_route);
}

const std::vector<uint16_t>&
ClusterTopology::DistancesTo(uint32_t dstRank) const
{
    NS_LOG_FUNCTION(this << dstRank);
    std::vector<uint16_t>& distance = m_distances.at(dstRank);
    if (!distance.empty())
    {
        return distance;
    }
    // From the destination over the (symmetric) graph; nodes that do not forward (GPUs,
    // unless transit) are reached but not expanded.
    distance.assign(m_nodes.size(), kUnreachable);
    LeastCostSearch(
        *this,
        dstRank,
        [](uint32_t node) { return node; },
        [this](uint32_t node) { return m_nodes[node].kind != GPU || m_gpuTransit; },
        distance,
        kUnreachable,
        [](uint32_t, uint32_t) {});
    return distance;
}

uint32_t
ClusterTopology::SwitchCost(uint32_t from, uint32_t to) const
{
    SwitchTable& table = m_switchTables[to - m_gpus];
    if (!table.computed)
    {
        NS_LOG_FUNCTION(this << to);
        // From the destination switch over switch-to-switch links (symmetric costs).
        std::vector<uint32_t> cost(m_nodes.size() - m_gpus, kNoPath);
        std::vector<uint32_t> reached;
        const uint32_t gpus = m_gpus;
        LeastCostSearch(
            *this,
            to,
            [gpus](uint32_t node) { return node < gpus ? kNoSearchSlot : node - gpus; },
            [](uint32_t) { return true; },
            cost,
            kUnreachable,
            [&reached, gpus](uint32_t node, uint32_t) { reached.push_back(node - gpus); });
        // An NVSwitch reaches no other switch: a sorted list of the few reached is enough.
        if (reached.size() * 8 < cost.size())
        {
            std::sort(reached.begin(), reached.end());
            table.sparse.reserve(reached.size());
            for (uint32_t s : reached)
            {
                table.sparse.emplace_back(s, static_cast<uint16_t>(cost[s]));
            }
        }
        else
        {
            table.dense.assign(cost.size(), kUnreachable);
            for (uint32_t s : reached)
            {
                table.dense[s] = static_cast<uint16_t>(cost[s]);
            }
        }
        table.computed = true;
    }
    const uint32_t index = from - m_gpus;
    if (!table.dense.empty())
    {
        const uint16_t d = table.dense[index];
        return d == kUnreachable ? kNoPath : d;
    }
    auto it = std::lower_bound(table.sparse.begin(),
                               table.sparse.end(),
                               std::make_pair(index, uint16_t{0}));
    return it != table.sparse.end() && it->first == index ? it->second : kNoPath;
}

uint32_t
ClusterTopology::CostTo(uint32_t node, uint32_t dstRank) const
{
    if (node == dstRank)
    {
        return 0;
    }
    if (m_gpuTransit)
    {
        const uint16_t d = DistancesTo(dstRank)[node];
        return d == kUnreachable ? kNoPath : d;
    }
    uint32_t best = kNoPath;
    if (node < m_gpus)
    {
        // A GPU that does not forward starts a path: its first hop is the destination or a
        // switch.
        for (const Port& port : m_ports[node])
        {
            const uint32_t rest = port.peer == dstRank ? 0
                                  : port.peer < m_gpus ? kNoPath
                                                       : CostTo(port.peer, dstRank);
            if (rest != kNoPath)
            {
                best = std::min(best, rest + m_links[port.link].cost);
            }
        }
    }
    else
    {
        best = SwitchPathCost(node, dstRank);
    }
    if (best != kNoPath && best >= kUnreachable)
    {
        throw std::overflow_error("ClusterTopology: path cost above 65534");
    }
    return best;
}

uint32_t
ClusterTopology::SwitchPathCost(uint32_t node, uint32_t dstRank) const
{
    // Through switches to one of the destination's switches, then its link.
    uint32_t best = kNoPath;
    for (const Port& port : m_ports[dstRank])
    {
        if (port.peer < m_gpus)
        {
            continue;
        }
        const uint32_t rest = SwitchCost(node, port.peer);
        if (rest != kNoPath)
        {
            best = std::min(best, rest + m_links[port.link].cost);
        }
    }
    return best;
}

void
ClusterTopology::GetSwitchNextHops(uint32_t node,
                                   uint32_t dstRank,
                                   std::vector<uint32_t>& ports) const
{
    ports.clear();
    if (node < m_gpus || node >= m_nodes.size() || dstRank >= m_gpus)
    {
        return;
    }
    PortsOnLeastCostPaths(
        node,
        dstRank,
        false,
        [this](uint32_t from, uint32_t to) { return SwitchPathCost(from, to); },
        ports);
}

uint16_t
ClusterTopology::GetDistance(uint32_t node, uint32_t dstRank) const
{
    if (node >= m_nodes.size() || dstRank >= m_gpus)
    {
        throw std::out_of_range("ClusterTopology::GetDistance: no node " + std::to_string(node) +
                                " or rank " + std::to_string(dstRank));
    }
    const uint32_t cost = CostTo(node, dstRank);
    return cost == kNoPath ? kUnreachable : static_cast<uint16_t>(cost);
}

void
ClusterTopology::GetNextHops(uint32_t node, uint32_t dstRank, std::vector<uint32_t>& ports) const
{
    ports.clear();
    if (node == dstRank || dstRank >= m_gpus)
    {
        return;
    }
    if (m_route)
    {
        m_route(*this, node, dstRank, ports);
        return;
    }
    PortsOnLeastCostPaths(
        node,
        dstRank,
        m_gpuTransit,
        [this](uint32_t from, uint32_t to) { return CostTo(from, to); },
        ports);
}

template <typename CostFunction>
void
ClusterTopology::PortsOnLeastCostPaths(uint32_t node,
                                       uint32_t dstRank,
                                       bool gpusForward,
                                       CostFunction costTo,
                                       std::vector<uint32_t>& ports) const
{
    const uint32_t here = costTo(node, dstRank);
    if (here == kNoPath)
    {
        return;
    }
    const std::vector<Port>& mine = m_ports[node];
    for (uint32_t i = 0; i < mine.size(); ++i)
    {
        const Port& port = mine[i];
        const bool forwards = port.peer == dstRank || port.peer >= m_gpus || gpusForward;
        if (!forwards || m_links[port.link].cost > here)
        {
            continue;
        }
        const uint32_t there = port.peer == dstRank ? 0 : costTo(port.peer, dstRank);
        if (there != kNoPath && there + m_links[port.link].cost == here)
        {
            ports.push_back(i);
        }
    }
}

uint64_t
ClusterTopology::Mix(uint64_t hash, uint64_t value)
{
    // A hash_combine step: cheap, and enough to spread flows over a few equal-cost ports.
    hash ^= value + 0x9E3779B97F4A7C15ull + (hash << 6) + (hash >> 2);
    return hash;
}

uint32_t
ClusterTopology::SelectNextHop(uint32_t node, uint32_t dstRank, uint64_t flowHash) const
{
    NS_LOG_FUNCTION(this << node << dstRank << flowHash);
    GetNextHops(node, dstRank, m_scratch);
    if (m_scratch.empty())
    {
        return static_cast<uint32_t>(m_ports[node].size());
    }
    if (m_scratch.size() == 1)
    {
        return m_scratch[0];
    }
    // Salted with the node, as ClusterRouting does, so that successive tiers do not pick
    // correlated indices (ECMP polarisation).
    return m_scratch[Mix(Mix(0, node), flowHash) % m_scratch.size()];
}

bool
ClusterTopology::GetPath(uint32_t srcRank,
                         uint32_t dstRank,
                         uint64_t flowHash,
                         std::vector<uint32_t>& directedLinks) const
{
    directedLinks.clear();
    uint32_t node = srcRank;
    // A simple path has fewer hops than nodes; a route function that loops is caught here.
    for (std::size_t hops = 0; node != dstRank; ++hops)
    {
        const uint32_t choice = SelectNextHop(node, dstRank, flowHash);
        if (choice >= m_ports[node].size() || hops > m_nodes.size())
        {
            directedLinks.clear();
            return false;
        }
        const Port& port = m_ports[node][choice];
        directedLinks.push_back(2 * port.link + (m_links[port.link].a == node ? 0 : 1));
        node = port.peer;
    }
    return true;
}

} // namespace ns3
