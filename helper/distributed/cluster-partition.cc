#include "cluster-partition.h"

#include "ns3/channel.h"
#include "ns3/net-device.h"
#include "ns3/node.h"

#include <algorithm>
#include <numeric>
#include <sstream>
#include <stdexcept>

namespace ns3
{

namespace
{

/** Union-find over the nodes: the scale-up units. */
class Units
{
  public:
    explicit Units(std::size_t n)
        : m_parent(n)
    {
        std::iota(m_parent.begin(), m_parent.end(), 0);
    }

    uint32_t Find(uint32_t v)
    {
        while (m_parent[v] != v)
        {
            m_parent[v] = m_parent[m_parent[v]];
            v = m_parent[v];
        }
        return v;
    }

    void Join(uint32_t a, uint32_t b)
    {
        a = Find(a);
        b = Find(b);
        if (a != b)
        {
            m_parent[std::max(a, b)] = std::min(a, b); // the root is the smallest node
        }
    }

  private:
    std::vector<uint32_t> m_parent;
};

std::string
Label(const ClusterTopology& topology, uint32_t node)
{
    const std::string& label = topology.GetNodes()[node].label;
    return label.empty() ? "node " + std::to_string(node) : label;
}

/** The process of each unit under \p policy. */
std::vector<uint32_t>
AssignUnits(uint32_t units, uint32_t processes, const std::string& policy)
{
    std::vector<uint32_t> processOfUnit(units);
    if (policy == "hosts")
    {
        for (uint32_t u = 0; u < units; ++u)
        {
            processOfUnit[u] = static_cast<uint32_t>(uint64_t(u) * processes / units);
        }
        return processOfUnit;
    }
    if (policy == "round-robin")
    {
        for (uint32_t u = 0; u < units; ++u)
        {
            processOfUnit[u] = u % processes;
        }
        return processOfUnit;
    }
    if (policy.empty() || policy.find_first_not_of("0123456789, ") != std::string::npos)
    {
        throw std::invalid_argument("partition \"" + policy +
                                    "\": expected hosts, round-robin or a comma-separated list "
                                    "of processes, one per host (scale-up domain)");
    }
    std::vector<uint32_t> listed;
    std::istringstream in(policy);
    std::string item;
    while (std::getline(in, item, ','))
    {
        item.erase(std::remove(item.begin(), item.end(), ' '), item.end());
        if (item.empty() || item.size() > 9)
        {
            throw std::invalid_argument("partition \"" + policy + "\": entry " +
                                        std::to_string(listed.size()) + " is not a process number");
        }
        listed.push_back(static_cast<uint32_t>(std::stoul(item)));
    }
    if (listed.size() != units)
    {
        throw std::invalid_argument("partition \"" + policy + "\" lists " +
                                    std::to_string(listed.size()) +
                                    " process(es) but the cluster has " + std::to_string(units) +
                                    " host(s) (scale-up domains)");
    }
    for (uint32_t u = 0; u < units; ++u)
    {
        if (listed[u] >= processes)
        {
            throw std::invalid_argument("partition \"" + policy + "\": host " + std::to_string(u) +
                                        " is put on process " + std::to_string(listed[u]) +
                                        " but the run has " + std::to_string(processes) +
                                        " process(es) (0.." + std::to_string(processes - 1) + ")");
        }
    }
    return listed;
}

/**
 * Numbers the scale-up units (the GPUs of one host, and whatever NVLink joins) into
 * partition.units and partition.unitOf; a switch outside every unit gets kNoUnit.
 */
void
FindUnits(const ClusterTopology& topology, ClusterPartition& partition)
{
    const auto& nodes = topology.GetNodes();
    const uint32_t ranks = topology.GetRankCount();
    const auto n = static_cast<uint32_t>(nodes.size());
    Units sets(n);
    std::vector<uint32_t> firstGpuOfHost;
    for (uint32_t rank = 0; rank < ranks; ++rank)
    {
        const uint32_t host = nodes[rank].group;
        if (host >= firstGpuOfHost.size())
        {
            firstGpuOfHost.resize(host + 1, UINT32_MAX);
        }
        if (firstGpuOfHost[host] == UINT32_MAX)
        {
            firstGpuOfHost[host] = rank;
        }
        sets.Join(firstGpuOfHost[host], rank);
    }
    for (const auto& link : topology.GetLinks())
    {
        if (link.kind == ClusterTopology::SCALE_UP)
        {
            sets.Join(link.a, link.b);
        }
    }
    partition.unitOf.assign(n, ClusterPartition::kNoUnit);
    // Units are numbered by their smallest node, a GPU (GPUs come first): in rank order.
    std::vector<uint32_t> unitOfRoot(n, ClusterPartition::kNoUnit);
    for (uint32_t rank = 0; rank < ranks; ++rank)
    {
        const uint32_t root = sets.Find(rank);
        if (unitOfRoot[root] == ClusterPartition::kNoUnit)
        {
            unitOfRoot[root] = partition.units++;
        }
    }
    for (uint32_t v = 0; v < n; ++v)
    {
        partition.unitOf[v] = unitOfRoot[sets.Find(v)];
    }
}

/** The process of each unit under \p policy, every process with one unit at least. */
std::vector<uint32_t>
AssignUnitsToProcesses(uint32_t units, uint32_t processes, const std::string& policy)
{
    if (processes > units)
    {
        throw std::invalid_argument(
            "partition: " + std::to_string(processes) + " processes but the cluster has " +
            std::to_string(units) +
            " host(s) (scale-up domains), and a host is never split: run with at most " +
            std::to_string(units) + " process(es)");
    }
    std::vector<uint32_t> processOfUnit = AssignUnits(units, processes, policy);
    std::vector<uint32_t> unitsOfProcess(processes, 0);
    for (uint32_t process : processOfUnit)
    {
        ++unitsOfProcess[process];
    }
    for (uint32_t p = 0; p < processes; ++p)
    {
        if (unitsOfProcess[p] == 0)
        {
            throw std::invalid_argument("partition \"" + policy + "\" gives process " +
                                        std::to_string(p) +
                                        " no host: every process needs at least one");
        }
    }
    return processOfUnit;
}

/**
 * Puts each node on a process: a unit's nodes on the unit's; a switch with the process that has
 * most of the units' nodes it links to, else (spines, cores) on the next process in turn.
 */
void
PlaceNodes(const ClusterTopology& topology,
           const std::vector<uint32_t>& processOfUnit,
           ClusterPartition& partition)
{
    const auto n = static_cast<uint32_t>(topology.GetNodes().size());
    partition.processOf.assign(n, 0);
    uint32_t spread = 0;
    for (uint32_t v = 0; v < n; ++v)
    {
        if (partition.unitOf[v] != ClusterPartition::kNoUnit)
        {
            partition.processOf[v] = processOfUnit[partition.unitOf[v]];
            continue;
        }
        std::vector<uint32_t> votes(partition.processes, 0);
        bool edge = false;
        for (const auto& port : topology.GetPorts(v))
        {
            const uint32_t unit = partition.unitOf[port.peer];
            if (unit != ClusterPartition::kNoUnit)
            {
                ++votes[processOfUnit[unit]];
                edge = true;
            }
        }
        partition.processOf[v] =
            edge ? static_cast<uint32_t>(std::max_element(votes.begin(), votes.end()) -
                                         votes.begin())
                 : spread++ % partition.processes;
    }
}

/**
 * Counts the links between processes and their smallest delay (the lookahead); a link between
 * processes without delay is refused.
 */
void
FindCrossingLinks(const ClusterTopology& topology, ClusterPartition& partition)
{
    const auto& links = topology.GetLinks();
    for (uint32_t i = 0; i < links.size(); ++i)
    {
        const auto& link = links[i];
        const uint32_t pa = partition.processOf[link.a];
        const uint32_t pb = partition.processOf[link.b];
        if (pa == pb)
        {
            continue;
        }
        if (!link.delay.IsStrictlyPositive())
        {
            throw std::invalid_argument(
                "partition: link " + std::to_string(i) + " (" + Label(topology, link.a) + " - " +
                Label(topology, link.b) + ") joins processes " + std::to_string(pa) + " and " +
                std::to_string(pb) +
                " without delay; a link between processes needs a positive delay (the "
                "lookahead of the distributed simulation): give it one or choose another "
                "partition");
        }
        partition.lookahead =
            partition.crossingLinks == 0 ? link.delay : std::min(partition.lookahead, link.delay);
        ++partition.crossingLinks;
    }
}

} // namespace

ClusterPartition
PartitionCluster(const ClusterTopology& topology, uint32_t processes, const std::string& policy)
{
    if (processes == 0)
    {
        throw std::invalid_argument("a partition needs at least one process");
    }
    ClusterPartition partition;
    partition.processes = processes;
    FindUnits(topology, partition);
    const std::vector<uint32_t> processOfUnit =
        AssignUnitsToProcesses(partition.units, processes, policy);
    PlaceNodes(topology, processOfUnit, partition);
    FindCrossingLinks(topology, partition);
    return partition;
}

std::string
DescribePartition(const ClusterTopology& topology, const ClusterPartition& partition)
{
    std::vector<uint32_t> gpus(partition.processes, 0);
    std::vector<uint32_t> nodes(partition.processes, 0);
    for (uint32_t v = 0; v < partition.processOf.size(); ++v)
    {
        ++nodes[partition.processOf[v]];
        gpus[partition.processOf[v]] += v < topology.GetRankCount();
    }
    std::ostringstream text;
    text << partition.processes << " process(es), GPUs/nodes per process ";
    for (uint32_t p = 0; p < partition.processes; ++p)
    {
        text << (p > 0 ? " " : "") << gpus[p] << "/" << nodes[p];
    }
    text << ", " << partition.crossingLinks << " link(s) between processes";
    if (partition.crossingLinks > 0)
    {
        text << " (lookahead " << partition.lookahead.GetNanoSeconds() << " ns)";
    }
    return text.str();
}

void
CheckRemoteLinks(const ClusterTopology& topology,
                 const NodeContainer& nodes,
                 const ClusterPartition& partition,
                 const std::string& transport)
{
    // Every node, not only this process's: every process builds the whole cluster, so every
    // process reaches the same verdict.
    for (uint32_t v = 0; v < nodes.GetN(); ++v)
    {
        const uint32_t self = partition.processOf[v];
        uint32_t expected = 0;
        for (const auto& port : topology.GetPorts(v))
        {
            expected += partition.processOf[port.peer] != self;
        }
        if (expected == 0)
        {
            continue;
        }
        uint32_t remote = 0;
        Ptr<Node> node = nodes.Get(v);
        for (uint32_t i = 0; i < node->GetNDevices(); ++i)
        {
            Ptr<Channel> channel = node->GetDevice(i)->GetChannel();
            if (!channel || channel->GetNDevices() != 2)
            {
                continue;
            }
            Ptr<NetDevice> peer =
                channel->GetDevice(channel->GetDevice(0) == node->GetDevice(i) ? 1 : 0);
            if (peer && peer->GetNode()->GetSystemId() != self &&
                channel->GetInstanceTypeId().GetName().find("Remote") != std::string::npos)
            {
                ++remote;
            }
        }
        if (remote < expected)
        {
            throw std::invalid_argument(
                "the " + transport + " transport's fabric cannot run over several processes: " +
                Label(topology, v) + " has " + std::to_string(expected) +
                " link(s) to nodes of other processes but " + std::to_string(remote) +
                " remote channel(s) (only packet-level fabrics whose links have a remote "
                "variant can be distributed; run it on one process)");
        }
    }
}

} // namespace ns3
