#include "et-node-store.h"

#include "ns3/et-reader.h"
#include "ns3/log.h"

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

} // namespace ns3
