#include "topology-summary.h"

#include "ns3/temporary-file-guard.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <functional>
#include <iomanip>
#include <limits>
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

/** \return the text quoted for Graphviz */
std::string
Quoted(const std::string& text)
{
    std::string out = "\"";
    for (char c : text)
    {
        if (c == '"' || c == '\\')
        {
            out += '\\';
        }
        out += c;
    }
    return out + "\"";
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

uint32_t
RoutedDiameter(const ClusterTopology& topology)
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

void
WriteTopologyDot(const ClusterTopology& topology, const std::string& path)
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
        const auto& nodes = topology.GetNodes();
        const auto& links = topology.GetLinks();
        const bool labels = links.size() <= 64;
        out << "// " << topology.GetName() << "\n";
        out << "graph topology {\n  rankdir=BT;\n  node [fontsize=10];\n";
        // GPUs of one NVLink domain (or host, or dimension-0 line) and their NVSwitch together.
        uint32_t maxGroup = 0;
        for (const auto& node : nodes)
        {
            if (node.kind != ClusterTopology::SWITCH)
            {
                maxGroup = std::max(maxGroup, node.group);
            }
        }
        for (uint32_t group = 0; group <= maxGroup; ++group)
        {
            std::ostringstream members;
            for (uint32_t v = 0; v < nodes.size(); ++v)
            {
                if (nodes[v].kind != ClusterTopology::SWITCH && nodes[v].group == group)
                {
                    members << "    n" << v << " [label=" << Quoted(nodes[v].label)
                            << (nodes[v].kind == ClusterTopology::GPU
                                    ? ", shape=box, style=filled, fillcolor=\"#cfe8cf\""
                                    : ", shape=ellipse, style=filled, fillcolor=\"#9fd49f\"")
                            << "];\n";
                }
            }
            if (!members.str().empty())
            {
                out << "  subgraph cluster_" << group << " {\n    style=rounded; color=grey;\n"
                    << members.str() << "  }\n";
            }
        }
        // Switches of one tier on one rank of the picture.
        uint32_t maxTier = 0;
        for (const auto& node : nodes)
        {
            if (node.kind == ClusterTopology::SWITCH)
            {
                maxTier = std::max(maxTier, node.group);
            }
        }
        for (uint32_t tier = 0; tier <= maxTier; ++tier)
        {
            std::ostringstream members;
            for (uint32_t v = 0; v < nodes.size(); ++v)
            {
                if (nodes[v].kind == ClusterTopology::SWITCH && nodes[v].group == tier)
                {
                    members << " n" << v << " [label=" << Quoted(nodes[v].label)
                            << ", shape=box, style=\"rounded,filled\", fillcolor=\"#cfd8e8\"];";
                }
            }
            if (!members.str().empty())
            {
                out << "  { rank=same;" << members.str() << " }\n";
            }
        }
        for (const auto& link : links)
        {
            const bool scaleUp = link.kind == ClusterTopology::SCALE_UP;
            out << "  n" << link.a << " -- n" << link.b << " [color="
                << (scaleUp ? "\"#2e8b57\"" : "black");
            if (labels && !scaleUp)
            {
                out << ", label=" << Quoted(ShortRate(link.rate.GetBitRate()))
                    << ", fontsize=8";
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
