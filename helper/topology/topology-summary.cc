#include "topology-summary.h"

#include "attachment-diameter.h"

#include "ns3/temporary-file-guard.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <functional>
#include <iomanip>
#include <limits>
#include <map>
#include <queue>
#include <sstream>
#include <stdexcept>

namespace ns3
{

namespace
{

/** Dinic's maximum flow on a small directed graph with 64-bit capacities. */
class MaxFlow
{
  public:
    explicit MaxFlow(uint32_t nodes)
        : m_first(nodes, kNone),
          m_level(nodes),
          m_next(nodes)
    {
    }

    void AddArc(uint32_t from, uint32_t to, uint64_t capacity)
    {
        m_arcs.push_back({to, m_first[from], capacity});
        m_first[from] = static_cast<uint32_t>(m_arcs.size() - 1);
        m_arcs.push_back({from, m_first[to], 0});
        m_first[to] = static_cast<uint32_t>(m_arcs.size() - 1);
    }

    uint64_t Run(uint32_t source, uint32_t sink)
    {
        uint64_t total = 0;
        while (Levels(source, sink))
        {
            m_next = m_first;
            while (uint64_t pushed = Push(source, sink, kInfinite))
            {
                total += pushed;
            }
        }
        return total;
    }

    static constexpr uint64_t kInfinite = uint64_t(1) << 62;

  private:
    static constexpr uint32_t kNone = std::numeric_limits<uint32_t>::max();

    struct Arc
    {
        uint32_t to;
        uint32_t next;
        uint64_t capacity;
    };

    bool Levels(uint32_t source, uint32_t sink)
    {
        std::fill(m_level.begin(), m_level.end(), kNone);
        std::queue<uint32_t> frontier;
        m_level[source] = 0;
        frontier.push(source);
        while (!frontier.empty())
        {
            const uint32_t u = frontier.front();
            frontier.pop();
            for (uint32_t a = m_first[u]; a != kNone; a = m_arcs[a].next)
            {
                if (m_arcs[a].capacity > 0 && m_level[m_arcs[a].to] == kNone)
                {
                    m_level[m_arcs[a].to] = m_level[u] + 1;
                    frontier.push(m_arcs[a].to);
                }
            }
        }
        return m_level[sink] != kNone;
    }

    uint64_t Push(uint32_t u, uint32_t sink, uint64_t limit)
    {
        if (u == sink)
        {
            return limit;
        }
        for (uint32_t& a = m_next[u]; a != kNone; a = m_arcs[a].next)
        {
            Arc& arc = m_arcs[a];
            if (arc.capacity == 0 || m_level[arc.to] != m_level[u] + 1)
            {
                continue;
            }
            const uint64_t pushed = Push(arc.to, sink, std::min(limit, arc.capacity));
            if (pushed > 0)
            {
                arc.capacity -= pushed;
                m_arcs[a ^ 1].capacity += pushed;
                return pushed;
            }
        }
        return 0;
    }

    std::vector<Arc> m_arcs;
    std::vector<uint32_t> m_first;
    std::vector<uint32_t> m_level;
    std::vector<uint32_t> m_next;
};

/** \return a rate as "400 Gbps", "12.8 Tbps" */
std::string
Rate(uint64_t bps)
{
    std::ostringstream text;
    text << std::setprecision(4);
    if (bps >= 1000000000000ull)
    {
        text << bps / 1e12 << " Tbps";
    }
    else if (bps >= 1000000000ull)
    {
        text << bps / 1e9 << " Gbps";
    }
    else
    {
        text << bps / 1e6 << " Mbps";
    }
    return text.str();
}

/** \return "400G" style short rate for edge labels */
std::string
ShortRate(uint64_t bps)
{
    std::ostringstream text;
    text << std::setprecision(4);
    if (bps >= 1000000000000ull)
    {
        text << bps / 1e12 << "T";
    }
    else
    {
        text << bps / 1e9 << "G";
    }
    return text.str();
}

/** \return the text escaped for a Graphviz string (without the quotes) */
std::string
Escaped(const std::string& text)
{
    std::string out;
    for (char c : text)
    {
        if (c == '"' || c == '\\')
        {
            out += '\\';
        }
        out += c;
    }
    return out;
}

/** \return the text quoted for Graphviz */
std::string
Quoted(const std::string& text)
{
    return "\"" + Escaped(text) + "\"";
}

} // namespace

uint64_t
BisectionBandwidth(const ClusterTopology& topology)
{
    const uint32_t gpus = topology.GetRankCount();
    if (gpus < 2)
    {
        return 0;
    }
    const auto nodes = static_cast<uint32_t>(topology.GetNodes().size());
    const uint32_t source = nodes;
    const uint32_t sink = nodes + 1;
    MaxFlow flow(nodes + 2);
    for (const auto& link : topology.GetLinks())
    {
        flow.AddArc(link.a, link.b, link.rate.GetBitRate());
        flow.AddArc(link.b, link.a, link.rate.GetBitRate());
    }
    for (uint32_t rank = 0; rank < gpus; ++rank)
    {
        if (rank < gpus / 2)
        {
            flow.AddArc(source, rank, MaxFlow::kInfinite);
        }
        else
        {
            flow.AddArc(rank, sink, MaxFlow::kInfinite);
        }
    }
    return flow.Run(source, sink);
}

uint32_t
RoutedHops(const ClusterTopology& topology, uint32_t src, uint32_t dst)
{
    std::vector<uint32_t> path;
    if (src == dst || !topology.GetPath(src, dst, 0, path))
    {
        return 0;
    }
    return static_cast<uint32_t>(path.size());
}

uint64_t
CountRoutedPaths(const ClusterTopology& topology, uint32_t src, uint32_t dst)
{
    if (src == dst)
    {
        return 0;
    }
    const auto nodes = topology.GetNodes().size();
    constexpr uint64_t kUnknown = std::numeric_limits<uint64_t>::max();
    std::vector<uint64_t> paths(nodes, kUnknown);
    std::vector<uint32_t> hops;
    std::function<uint64_t(uint32_t, std::size_t)> count = [&](uint32_t node, std::size_t depth) {
        if (node == dst)
        {
            return uint64_t(1);
        }
        if (paths[node] != kUnknown)
        {
            return paths[node];
        }
        if (depth > nodes)
        {
            throw std::logic_error("routes loop towards rank " + std::to_string(dst));
        }
        std::vector<uint32_t> next;
        topology.GetNextHops(node, dst, next);
        uint64_t total = 0;
        for (uint32_t port : next)
        {
            total += count(topology.GetPorts(node)[port].peer, depth + 1);
        }
        return paths[node] = total;
    };
    return count(src, 0);
}

namespace
{

/**
 * RoutedDiameter for a topology routed on least-cost paths (no route function): per
 * destination, the least costs by Dial's algorithm (costs are small integers), then the most
 * links on a least-cost path from every node, in the order the nodes were settled (a next hop
 * is always settled before the node it serves, costs being positive). O(nodes + links) per
 * destination, and nothing kept between destinations (per-destination tables over every node
 * would take 2 bytes per node and destination: 0.7 GB at 16,384 GPUs).
 */
uint32_t
LeastCostDiameter(const ClusterTopology& topology)
{
    const uint32_t gpus = topology.GetRankCount();
    const auto& nodes = topology.GetNodes();
    const auto& links = topology.GetLinks();
    const bool transit = topology.IsGpuTransit();
    constexpr uint32_t kUnreachable = std::numeric_limits<uint32_t>::max();
    std::vector<uint32_t> distance(nodes.size());
    std::vector<uint32_t> longest(nodes.size());
    std::vector<uint32_t> settled; // nodes in the order their least cost became final
    std::vector<std::vector<uint32_t>> buckets;
    auto relays = [&](uint32_t node, uint32_t dst) {
        return node == dst || nodes[node].kind != ClusterTopology::GPU || transit;
    };
    uint32_t diameter = 0;
    for (uint32_t dst = 0; dst < gpus; ++dst)
    {
        std::fill(distance.begin(), distance.end(), kUnreachable);
        settled.clear();
        distance[dst] = 0;
        buckets.assign(1, {dst});
        for (uint32_t d = 0; d < buckets.size(); ++d)
        {
            for (std::size_t i = 0; i < buckets[d].size(); ++i)
            {
                const uint32_t u = buckets[d][i];
                if (distance[u] != d)
                {
                    continue; // reached again later at a lower cost
                }
                settled.push_back(u);
                if (!relays(u, dst))
                {
                    continue; // reached, but does not forward
                }
                for (const auto& port : topology.GetPorts(u))
                {
                    const uint32_t next = d + links[port.link].cost;
                    if (next < distance[port.peer])
                    {
                        distance[port.peer] = next;
                        if (next >= buckets.size())
                        {
                            buckets.resize(next + 1);
                        }
                        buckets[next].push_back(port.peer);
                    }
                }
            }
        }
        for (uint32_t u : settled)
        {
            uint32_t most = u == dst ? 0 : kUnreachable;
            for (const auto& port : topology.GetPorts(u))
            {
                const uint32_t peer = port.peer;
                if (u != dst && distance[peer] != kUnreachable && relays(peer, dst) &&
                    distance[peer] + links[port.link].cost == distance[u] &&
                    longest[peer] != kUnreachable)
                {
                    most = most == kUnreachable ? longest[peer] + 1
                                                : std::max(most, longest[peer] + 1);
                }
            }
            longest[u] = most;
            if (u < gpus && most != kUnreachable)
            {
                diameter = std::max(diameter, most);
            }
        }
    }
    return diameter;
}

/** RoutedDiameter by following the route function's next hops from every GPU to every GPU. */
uint32_t
FollowedRoutesDiameter(const ClusterTopology& topology)
{
    const uint32_t gpus = topology.GetRankCount();
    const auto nodes = topology.GetNodes().size();
    constexpr uint32_t kUnknown = std::numeric_limits<uint32_t>::max();
    constexpr uint32_t kUnreachable = kUnknown - 1;
    std::vector<uint32_t> longest(nodes);
    uint32_t diameter = 0;
    for (uint32_t dst = 0; dst < gpus; ++dst)
    {
        std::fill(longest.begin(), longest.end(), kUnknown);
        longest[dst] = 0;
        std::function<uint32_t(uint32_t, std::size_t)> hops = [&](uint32_t node,
                                                                  std::size_t depth) {
            if (longest[node] != kUnknown)
            {
                return longest[node];
            }
            if (depth > nodes)
            {
                throw std::logic_error("routes loop towards rank " + std::to_string(dst));
            }
            std::vector<uint32_t> next;
            topology.GetNextHops(node, dst, next);
            uint32_t most = next.empty() ? kUnreachable : 0;
            for (uint32_t port : next)
            {
                const uint32_t after = hops(topology.GetPorts(node)[port].peer, depth + 1);
                if (after != kUnreachable)
                {
                    most = std::max(most, after + 1);
                }
            }
            return longest[node] = most;
        };
        for (uint32_t src = 0; src < gpus; ++src)
        {
            const uint32_t h = hops(src, 0);
            if (h != kUnreachable)
            {
                diameter = std::max(diameter, h);
            }
        }
    }
    return diameter;
}

} // namespace

uint32_t
RoutedDiameter(const ClusterTopology& topology)
{
    if (topology.HasRouteFunction())
    {
        return FollowedRoutesDiameter(topology);
    }
    // The usual cluster by its GPUs' attachments; otherwise a search per destination.
    const std::optional<uint32_t> byAttachment = LeastCostDiameterByAttachment(topology);
    return byAttachment ? *byAttachment : LeastCostDiameter(topology);
}

TopologySummary
Summarize(const ClusterTopology& topology)
{
    TopologySummary summary;
    for (const auto& node : topology.GetNodes())
    {
        summary.gpus += node.kind == ClusterTopology::GPU;
        summary.nvSwitches += node.kind == ClusterTopology::NVSWITCH;
        summary.switches += node.kind == ClusterTopology::SWITCH;
    }
    for (const auto& link : topology.GetLinks())
    {
        summary.scaleUpLinks += link.kind == ClusterTopology::SCALE_UP;
        summary.scaleOutLinks += link.kind == ClusterTopology::SCALE_OUT;
    }
    summary.bisectionBps = BisectionBandwidth(topology);
    summary.diameter = RoutedDiameter(topology);
    return summary;
}

std::string
DescribeTopology(const ClusterTopology& topology)
{
    const TopologySummary s = Summarize(topology);
    std::ostringstream text;
    text << topology.GetName() << ": " << s.gpus << " GPUs, " << s.nvSwitches << " NVSwitches, "
         << s.switches << " switches, " << s.scaleUpLinks + s.scaleOutLinks << " links ("
         << s.scaleUpLinks << " NVLink); bisection " << Rate(s.bisectionBps) << ", diameter "
         << s.diameter << " hops";
    return text.str();
}

namespace
{

/** \return the Graphviz attributes of a node of kind \p kind, after its label */
const char*
DotStyle(ClusterTopology::NodeKind kind)
{
    switch (kind)
    {
    case ClusterTopology::GPU:
        return ", shape=box, style=filled, fillcolor=\"#cfe8cf\"";
    case ClusterTopology::NVSWITCH:
        return ", shape=ellipse, style=filled, fillcolor=\"#9fd49f\"";
    default:
        return ", shape=box, style=\"rounded,filled\", fillcolor=\"#cfd8e8\"";
    }
}

/**
 * Writes the nodes of a topology picture. Switched fabrics are drawn by tier, bottom to top:
 * GPUs in rank order, NVSwitches, then each tier of fabric switches (leaf or rail, spine,
 * core; a dimension's switches in a multi-dimensional network), each tier on one rank of the
 * picture in node order (an invisible chain of flat edges keeps that order: dot places the
 * tail of a flat edge left of its head).
 * Wide tiers make a strip: the nodes are then made smaller and the drawing stretched upwards
 * to a readable aspect (about 5:2).
 * Without switches (torus, ring of GPUs), GPUs are grouped by their line instead, for neato.
 */
void
WriteDotNodes(const ClusterTopology& topology,
              std::ostream& out,
              const std::vector<std::string>& gpuJob)
{
    const auto& nodes = topology.GetNodes();
    // Several jobs: each job's GPUs in a colour of their own, with its name; idle GPUs white.
    static const char* const kJobColours[] =
        {"#f4a582", "#92c5de", "#f7e08b", "#c2a5cf", "#a6dba0", "#fddbc7", "#d1e5f0", "#dfc27d"};
    std::map<std::string, std::size_t> colourOf;
    for (const std::string& job : gpuJob)
    {
        if (!job.empty() && colourOf.count(job) == 0)
        {
            const std::size_t next = colourOf.size();
            colourOf[job] = next;
        }
    }
    auto declare = [&](uint32_t v, const char* indent) {
        if (nodes[v].kind == ClusterTopology::GPU && v < gpuJob.size())
        {
            const std::string& job = gpuJob[v];
            out << indent << "n" << v << " [label="
                << (job.empty() ? Quoted(nodes[v].label)
                                : "\"" + Escaped(nodes[v].label) + "\\n" + Escaped(job) + "\"")
                << ", shape=box, style=filled, fillcolor=\""
                << (job.empty() ? "#ffffff"
                                : kJobColours[colourOf[job] %
                                              (sizeof(kJobColours) / sizeof(kJobColours[0]))])
                << "\"];\n";
            return;
        }
        out << indent << "n" << v << " [label=" << Quoted(nodes[v].label) << DotStyle(nodes[v].kind)
            << "];\n";
    };
    std::vector<std::vector<uint32_t>> tiers(2); // GPUs, NVSwitches, then the switch tiers
    for (uint32_t v = 0; v < nodes.size(); ++v)
    {
        std::size_t tier = 0;
        if (nodes[v].kind == ClusterTopology::NVSWITCH)
        {
            tier = 1;
        }
        else if (nodes[v].kind == ClusterTopology::SWITCH)
        {
            tier = 2 + nodes[v].group;
            tiers.resize(std::max(tiers.size(), tier + 1));
        }
        tiers[tier].push_back(v);
    }
    if (tiers.size() == 2 && tiers[1].empty())
    {
        // GPUs only, linked to one another: one box per group (a torus's dimension-0 line).
        std::map<uint32_t, std::vector<uint32_t>> groups;
        for (uint32_t v : tiers[0])
        {
            groups[nodes[v].group].push_back(v);
        }
        for (const auto& [group, members] : groups)
        {
            out << "  subgraph cluster_" << group << " {\n    style=rounded; color=grey;\n";
            for (uint32_t v : members)
            {
                declare(v, "    ");
            }
            out << "  }\n";
        }
        return;
    }
    out << "  newrank=true;\n"; // rank=same across the whole graph
    std::size_t widest = 0;
    for (const auto& tier : tiers)
    {
        widest = std::max(widest, tier.size());
    }
    // Past about 24 nodes a tier makes a strip: smaller nodes closer together, and ratio
    // (height / width) makes dot spread the tiers upwards (node sizes stay).
    if (widest > 24)
    {
        out << "  ratio=0.4;\n  nodesep=0.06;\n"
            << "  node [fontsize=7, width=0.3, height=0.25, margin=\"0.02,0.02\"];\n";
    }
    std::vector<uint32_t> firsts; // the first node of every tier, bottom to top
    for (const auto& tier : tiers)
    {
        if (tier.empty())
        {
            continue;
        }
        firsts.push_back(tier.front());
        out << "  { rank=same;\n";
        for (uint32_t v : tier)
        {
            declare(v, "    ");
        }
        if (tier.size() > 1)
        {
            out << "    ";
            for (std::size_t i = 0; i < tier.size(); ++i)
            {
                out << (i == 0 ? "" : " -- ") << "n" << tier[i];
            }
            out << " [style=invis];\n";
        }
        out << "  }\n";
    }
    // Each tier one rank above the one below: a switch linked to GPUs would otherwise share
    // the NVSwitches' rank (a rail switch, a leaf).
    if (firsts.size() > 1)
    {
        out << "  ";
        for (std::size_t i = 0; i < firsts.size(); ++i)
        {
            out << (i == 0 ? "" : " -- ") << "n" << firsts[i];
        }
        out << " [style=invis];\n";
    }
    // (No box around an NVLink domain: dot's clusters override the order of flat edges. The
    // NVSwitch above its GPUs, with green links, shows the domain.)
}

} // namespace

void
WriteTopologyDot(const ClusterTopology& topology, const std::string& path)
{
    WriteTopologyDot(topology, path, {});
}

void
WriteTopologyDot(const ClusterTopology& topology,
                 const std::string& path,
                 const std::vector<std::string>& gpuJob)
{
    const std::string temporary = path + ".tmp";
    // Armed before the file exists: a signal while it is written removes it.
    TemporaryFileGuard guard(temporary);
    {
        std::ofstream out(temporary);
        if (!out)
        {
            throw std::runtime_error(path + ": cannot write the topology picture");
        }
        const auto& links = topology.GetLinks();
        const bool labels = links.size() <= 64;
        out << "// " << topology.GetName() << "\n";
        out << "graph topology {\n  rankdir=BT;\n  node [fontsize=10];\n";
        WriteDotNodes(topology, out, gpuJob);
        for (const auto& link : links)
        {
            const bool scaleUp = link.kind == ClusterTopology::SCALE_UP;
            out << "  n" << link.a << " -- n" << link.b
                << " [color=" << (scaleUp ? "\"#2e8b57\"" : "black");
            if (labels && !scaleUp)
            {
                out << ", label=" << Quoted(ShortRate(link.rate.GetBitRate())) << ", fontsize=8";
            }
            out << "];\n";
        }
        out << "}\n";
        out.flush();
        if (!out)
        {
            out.close();
            std::remove(temporary.c_str());
            throw std::runtime_error(path + ": cannot write the topology picture");
        }
    }
    if (std::rename(temporary.c_str(), path.c_str()) != 0)
    {
        std::remove(temporary.c_str());
        throw std::runtime_error(path + ": cannot write the topology picture");
    }
}

} // namespace ns3
