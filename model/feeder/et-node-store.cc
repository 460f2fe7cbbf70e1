#include "et-node-store.h"

#include "ns3/et-reader.h"
#include "ns3/log.h"
#include "ns3/trace-error.h"

#include <algorithm>
#include <map>
#include <utility>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("EtNodeStore");

EtNodeStore::EtNodeStore(const std::string& path, const TrimFn& trim)
    : m_path(path)
{
    NS_LOG_FUNCTION(this << path);
    EtReader reader(path);
    m_metadata = reader.GetMetadata();
    ChakraProtoMsg::Node node;
    while (reader.ReadNode(node))
    {
        if (trim)
        {
            trim(node);
        }
        m_nodes.push_back(std::make_shared<const EtNode>(std::move(node)));
        node = ChakraProtoMsg::Node();
    }
    m_nodes.shrink_to_fit();
    if (m_nodes.size() >= EtDepGraph::kNotInFile)
    {
        throw TraceError(path, "", "more than 2^32 - 2 nodes in one file");
    }
    m_byId.reserve(m_nodes.size());
    for (std::size_t i = 0; i < m_nodes.size(); ++i)
    {
        m_byId.emplace_back(m_nodes[i]->GetId(), static_cast<uint32_t>(i));
    }
    std::sort(m_byId.begin(), m_byId.end());
    if (!m_byId.empty() && m_byId.back().first - m_byId.front().first < 4 * m_byId.size())
    {
        m_minId = m_byId.front().first;
        m_posById.assign(m_byId.back().first - m_minId + 1, EtDepGraph::kNotInFile);
        for (auto it = m_byId.rbegin(); it != m_byId.rend(); ++it)
        {
            m_posById[it->first - m_minId] = it->second; // the first position of an id wins
        }
        m_byId.clear();
        m_byId.shrink_to_fit();
    }
}

std::shared_ptr<const EtNodeStore>
EtNodeStore::Shared(const std::string& path, const std::string& trimKey, const TrimFn& trim)
{
    NS_LOG_FUNCTION(path << trimKey);
    // The simulator is single-threaded; a distributed run has a cache per process.
    static std::map<std::pair<std::string, std::string>, std::weak_ptr<const EtNodeStore>> cache;
    auto& slot = cache[{path, trimKey}];
    if (auto store = slot.lock())
    {
        return store;
    }
    auto store = std::make_shared<const EtNodeStore>(path, trim);
    slot = store;
    return store;
}

const ChakraProtoMsg::GlobalMetadata&
EtNodeStore::GetMetadata() const
{
    return m_metadata;
}

const std::string&
EtNodeStore::GetPath() const
{
    return m_path;
}

std::size_t
EtNodeStore::GetSize() const
{
    return m_nodes.size();
}

const std::shared_ptr<const EtNode>&
EtNodeStore::At(std::size_t index) const
{
    return m_nodes.at(index);
}

void
HonouredParents(const EtNode& node, bool data, bool ctrl, std::vector<uint64_t>& parents)
{
    parents.clear();
    if (data)
    {
        parents.assign(node.GetDataDeps().begin(), node.GetDataDeps().end());
    }
    if (ctrl)
    {
        parents.insert(parents.end(), node.GetCtrlDeps().begin(), node.GetCtrlDeps().end());
    }
    if (parents.size() > 1)
    {
        std::sort(parents.begin(), parents.end());
        parents.erase(std::unique(parents.begin(), parents.end()), parents.end());
    }
}

std::size_t
EtNodeStore::Find(uint64_t id) const
{
    if (!m_posById.empty())
    {
        if (id < m_minId || id - m_minId >= m_posById.size())
        {
            return m_nodes.size();
        }
        const uint32_t pos = m_posById[id - m_minId];
        return pos == EtDepGraph::kNotInFile ? m_nodes.size() : pos;
    }
    auto it = std::lower_bound(m_byId.begin(),
                               m_byId.end(),
                               std::make_pair(id, static_cast<uint32_t>(0)));
    return it != m_byId.end() && it->first == id ? it->second : m_nodes.size();
}

const EtDepGraph&
EtNodeStore::Graph(bool data, bool ctrl) const
{
    auto& slot = m_graphs[(data ? 1 : 0) + (ctrl ? 2 : 0)];
    if (slot)
    {
        return *slot;
    }
    NS_LOG_FUNCTION(this << data << ctrl);
    auto graph = std::make_unique<EtDepGraph>();
    const std::size_t n = m_nodes.size();
    graph->parentStart.reserve(n + 1);
    graph->parentStart.push_back(0);
    std::vector<uint64_t> parents;
    std::vector<uint32_t> childCount(n + 1, 0);
    for (const auto& node : m_nodes)
    {
        HonouredParents(*node, data, ctrl, parents);
        for (uint64_t parent : parents)
        {
            std::size_t pos = Find(parent);
            graph->parentIds.push_back(parent);
            graph->parentPos.push_back(pos == n ? EtDepGraph::kNotInFile
                                                : static_cast<uint32_t>(pos));
            if (pos != n)
            {
                ++childCount[pos + 1];
            }
        }
        graph->parentStart.push_back(static_cast<uint32_t>(graph->parentIds.size()));
    }
    for (std::size_t i = 0; i < n; ++i)
    {
        childCount[i + 1] += childCount[i];
    }
    graph->childStart = childCount;
    graph->children.resize(graph->childStart[n]);
    for (std::size_t child = 0; child < n; ++child)
    {
        for (uint32_t k = graph->parentStart[child]; k < graph->parentStart[child + 1]; ++k)
        {
            uint32_t pos = graph->parentPos[k];
            if (pos != EtDepGraph::kNotInFile)
            {
                graph->children[childCount[pos]++] = static_cast<uint32_t>(child);
            }
        }
    }
    slot = std::move(graph);
    return *slot;
}

} // namespace ns3
