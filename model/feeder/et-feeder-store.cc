/*
 * EtFeeder's store mode: the nodes and their dependency graph are the store's (shared by the
 * ranks of a role); the feeder keeps dense state by position.
 */
#include "et-feeder.h"

#include "ns3/log.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("EtFeederStore");

void
EtFeeder::StoreInit()
{
    NS_LOG_FUNCTION(this);
    m_graph = &m_store->Graph(m_options.honourDataDeps, m_options.honourCtrlDeps);
    const std::size_t n = m_store->GetSize();
    m_pending.assign(n, 0);
    m_isLoaded.assign(n, false);
    m_isIssued.assign(n, false);
    m_isFinished.assign(n, false);
}

uint32_t
EtFeeder::StoreLoaded(uint64_t id) const
{
    const std::size_t pos = m_store->Find(id);
    // A duplicate id is refused when read, so the loaded node of an id is its first.
    if (pos >= m_isLoaded.size() || !m_isLoaded[pos])
    {
        return kNotLoaded;
    }
    return static_cast<uint32_t>(pos);
}

bool
EtFeeder::StoreLoadOne()
{
    if (m_graph == nullptr)
    {
        StoreInit();
    }
    if (m_storeNext == m_store->GetSize())
    {
        m_eof = true;
        ResolveDangling();
        return false;
    }
    const auto pos = static_cast<uint32_t>(m_storeNext);
    const EtNode& node = *m_store->At(pos);
    const uint64_t id = node.GetId();
    CheckRead(id, node.GetName(), pos + 1); // counts it read: m_storeNext is now pos + 1
    if (m_options.onRead)
    {
        m_options.onRead(node);
    }
    const uint32_t begin = m_graph->parentStart[pos];
    const uint32_t end = m_graph->parentStart[pos + 1];
    // Refused before anything records it (see LoadOne).
    for (uint32_t k = begin; k < end; ++k)
    {
        if (m_graph->parentIds[k] == id)
        {
            ThrowSelfDependency(node);
        }
    }
    // The rules of LoadOne; a parent in the file releases its loaded children through the
    // store's graph when it finishes, whether it was read before or after them.
    uint32_t pending = 0;
    for (uint32_t k = begin; k < end; ++k)
    {
        const uint64_t parent = m_graph->parentIds[k];
        const uint32_t parentPos = m_graph->parentPos[k];
        if (parentPos != EtDepGraph::kNotInFile && m_isFinished[parentPos])
        {
            continue;
        }
        if (parentPos != EtDepGraph::kNotInFile && m_isLoaded[parentPos])
        {
            ++pending;
            continue;
        }
        if (m_options.danglingAsSatisfied && m_ascending && parent < id &&
            (parentPos == EtDepGraph::kNotInFile || parentPos >= m_storeNext))
        {
            m_presumedMissing.Insert(parent);
            Warn(parent, {id});
            continue;
        }
        ++pending;
        if (parentPos == EtDepGraph::kNotInFile)
        {
            m_waiters[parent].push_back(id); // settled by ResolveDangling
        }
    }
    m_isLoaded[pos] = true;
    ++m_loadedCount;
    m_pending[pos] = pending;
    if (pending == 0)
    {
        MakeReady(id);
    }
    return true;
}

bool
EtFeeder::WasRead(uint64_t id) const
{
    // The store's Find gives an id's first position, and the nodes are read in position order.
    return m_store ? m_store->Find(id) < m_storeNext : m_seen.Contains(id);
}

bool
EtFeeder::HasFinished(uint64_t id) const
{
    if (!m_store)
    {
        return m_finished.Contains(id);
    }
    const std::size_t pos = m_store->Find(id);
    return pos < m_isFinished.size() && m_isFinished[pos];
}

uint64_t
EtFeeder::NodesRead() const
{
    // A repeated id stops the read (CheckRead), so in store mode every node read is distinct.
    return m_store ? m_storeNext : m_seen.Size();
}

void
EtFeeder::StoreFinish(uint32_t pos)
{
    m_isFinished[pos] = true;
    // A loaded child counted this parent as pending: it was read while the parent was unfinished.
    for (uint32_t k = m_graph->childStart[pos]; k < m_graph->childStart[pos + 1]; ++k)
    {
        const uint32_t child = m_graph->children[k];
        if (m_isLoaded[child] && --m_pending[child] == 0)
        {
            MakeReady(m_store->At(child)->GetId());
        }
    }
}

} // namespace ns3
