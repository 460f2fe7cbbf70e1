#include "et-feeder.h"

#include "ns3/log.h"
#include "ns3/trace-error.h"

#include <algorithm>
#include <sstream>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("EtFeeder");

EtFeeder::EtFeeder(const std::string& path, EtFeederOptions options)
    : m_options(std::move(options)),
      m_reader(std::make_unique<EtReader>(path))
{
    NS_LOG_FUNCTION(this << path << m_options.windowSize);
    if (m_options.windowSize == 0)
    {
        m_options.windowSize = 1;
    }
}

EtFeeder::EtFeeder(std::shared_ptr<const EtNodeStore> store, EtFeederOptions options)
    : m_options(std::move(options)),
      m_store(std::move(store))
{
    NS_LOG_FUNCTION(this << m_store->GetPath() << m_options.windowSize);
    if (m_options.windowSize == 0)
    {
        m_options.windowSize = 1;
    }
}

bool
HasCallTreeCtrlDeps(const ChakraProtoMsg::GlobalMetadata& metadata)
{
    bool pid = false;
    bool timestamps = false;
    for (const auto& attribute : metadata.attr())
    {
        if (attribute.name() == "source")
        {
            return false;
        }
        pid = pid || attribute.name() == "pid";
        timestamps =
            timestamps || attribute.name() == "start_ts" || attribute.name() == "finish_ts";
    }
    return pid && timestamps;
}

void
EtFeeder::SetHonourCtrlDeps(bool honour)
{
    NS_LOG_FUNCTION(this << honour);
    if ((m_reader ? m_reader->GetNodesRead() : m_storeNext) > 0)
    {
        throw std::logic_error("EtFeeder::SetHonourCtrlDeps after nodes were read");
    }
    m_options.honourCtrlDeps = honour;
}

void
EtFeeder::ParentsOf(const EtNode& node, std::vector<uint64_t>& parents) const
{
    HonouredParents(node, m_options.honourDataDeps, m_options.honourCtrlDeps, parents);
}

void
EtFeeder::ReleaseOne(uint64_t child)
{
    if (m_store)
    {
        uint32_t pos = StoreLoaded(child);
        if (--m_pending[pos] == 0)
        {
            MakeReady(child);
        }
        return;
    }
    if (--m_loaded.Find(child)->pending == 0)
    {
        MakeReady(child);
    }
}

void
EtFeeder::CheckRead(uint64_t id, const std::string& name, uint64_t read)
{
    auto where = [&]() {
        return "node " + std::to_string(id) + " (" + name + ", message " + std::to_string(read) +
               ")";
    };
    // Counted as read unless its id repeats, before the other checks (as in file mode, where
    // m_seen holds it). In store mode a repeated id is one whose first position is not this.
    if (m_store ? m_store->Find(id) != m_storeNext : !m_seen.Insert(id))
    {
        throw TraceError(GetPath(), where(), "duplicate node id");
    }
    if (m_store)
    {
        ++m_storeNext;
    }
    if (m_presumedMissing.Contains(id))
    {
        throw TraceError(GetPath(),
                         where(),
                         "this id was treated as a dangling dependency (the file's ids were "
                         "ascending until here) and its dependents already ran; ids out of "
                         "order and dangling dependencies cannot be combined");
    }
    if (read > 1 && id <= m_lastId)
    {
        m_ascending = false;
    }
    m_lastId = id;
}

void
EtFeeder::ThrowSelfDependency(const EtNode& node) const
{
    // It can never be met: running the node anyway would hide a broken trace.
    const auto& data = node.GetDataDeps();
    const bool inData =
        m_options.honourDataDeps && std::find(data.begin(), data.end(), node.GetId()) != data.end();
    throw TraceError(GetPath(),
                     node.Describe(),
                     std::string("lists itself in ") + (inData ? "data_deps" : "ctrl_deps") +
                         ": a node cannot wait for itself" +
                         (inData ? ""
                                 : " (in output of the reference converter ctrl_deps "
                                   "are call-tree links, not dependencies: switch "
                                   "ctrl_deps off)"));
}

bool
EtFeeder::LoadOne()
{
    if (m_eof)
    {
        return false;
    }
    if (m_store)
    {
        return StoreLoadOne();
    }
    if (!m_reader->ReadNode(m_scratch))
    {
        m_eof = true;
        ResolveDangling();
        return false;
    }
    const uint64_t id = m_scratch.id();
    CheckRead(id, m_scratch.name(), m_reader->GetNodesRead());
    if (m_options.trim)
    {
        m_options.trim(m_scratch);
    }
    auto node = std::make_shared<const EtNode>(std::move(m_scratch));
    if (m_options.onRead)
    {
        m_options.onRead(*node);
    }
    Entry entry;
    entry.node = node;
    ParentsOf(*node, m_parents);
    // Refused before any parent records this node as its child: a parent that finishes later
    // would otherwise release a node that never entered the window.
    if (std::find(m_parents.begin(), m_parents.end(), id) != m_parents.end())
    {
        ThrowSelfDependency(*node);
    }
    for (uint64_t parent : m_parents)
    {
        if (m_finished.Contains(parent))
        {
            continue;
        }
        if (Entry* loadedParent = m_loaded.Find(parent))
        {
            loadedParent->children.push_back(id);
            ++entry.pending;
            continue;
        }
        if (m_options.danglingAsSatisfied && m_ascending && parent < id && !m_seen.Contains(parent))
        {
            // With ascending ids a smaller id not seen yet will not come: decide now, so that
            // a trace full of such references still streams through a small window.
            m_presumedMissing.Insert(parent);
            Warn(parent, {id});
            continue;
        }
        ++entry.pending;
        m_waiters[parent].push_back(id);
    }
    if (!m_waiters.empty())
    {
        // Children read before this node (forward references) now wait on its entry.
        auto waiting = m_waiters.find(id);
        if (waiting != m_waiters.end())
        {
            entry.children = std::move(waiting->second);
            m_waiters.erase(waiting);
        }
    }
    bool ready = entry.pending == 0;
    m_loaded.Insert(id, std::move(entry));
    if (ready)
    {
        MakeReady(id);
    }
    return true;
}

void
EtFeeder::Warn(uint64_t missing, const std::vector<uint64_t>& children)
{
    if (!m_options.warn)
    {
        return;
    }
    std::ostringstream text;
    text << GetPath() << ": node";
    text << (children.size() > 1 ? "s " : " ");
    for (std::size_t i = 0; i < children.size() && i < 5; ++i)
    {
        text << (i > 0 ? ", " : "") << children[i];
    }
    if (children.size() > 5)
    {
        text << " and " << children.size() - 5 << " more";
    }
    text << " depend" << (children.size() > 1 ? "" : "s") << " on id " << missing
         << ", which is not in the file: treated as satisfied";
    NS_LOG_WARN(text.str());
    m_options.warn(text.str());
}

void
EtFeeder::ResolveDangling()
{
    NS_LOG_FUNCTION(this);
    std::vector<uint64_t> missing;
    for (const auto& [parent, children] : m_waiters)
    {
        if (!WasRead(parent))
        {
            missing.push_back(parent);
        }
    }
    if (!m_options.danglingAsSatisfied)
    {
        return; // reported by GetStuckNodes / the stuck error
    }
    std::sort(missing.begin(), missing.end());
    for (uint64_t parent : missing)
    {
        auto it = m_waiters.find(parent);
        std::vector<uint64_t> children = std::move(it->second);
        m_waiters.erase(it);
        // Settled as satisfied: what waits only for it is not stuck (GetStuckNodes).
        m_presumedMissing.Insert(parent);
        Warn(parent, children);
        for (uint64_t child : children)
        {
            ReleaseOne(child);
        }
    }
}

void
EtFeeder::MakeReady(uint64_t id)
{
    m_ready.push(id);
}

bool
EtFeeder::HasNodesToIssue()
{
    // Read lazily: only while nothing is ready, and within the window. A node read long before
    // it runs is a cache miss when it runs; reading just in time keeps the hot set small.
    while (m_ready.empty() && !m_eof && GetLoadedCount() < m_options.windowSize)
    {
        LoadOne();
    }
    // Past the window only when nothing could run otherwise.
    while (m_ready.empty() && m_inFlight == 0 && !m_eof)
    {
        LoadOne();
    }
    if (!m_ready.empty())
    {
        return true;
    }
    if (m_inFlight == 0 && m_eof && m_finishedCount < NodesRead())
    {
        ThrowStuck();
    }
    return false;
}

std::shared_ptr<const EtNode>
EtFeeder::GetNextIssuableNode()
{
    NS_LOG_FUNCTION(this);
    if (m_ready.empty())
    {
        return nullptr;
    }
    uint64_t id = m_ready.top();
    m_ready.pop();
    ++m_inFlight;
    if (m_store)
    {
        uint32_t pos = StoreLoaded(id);
        m_isIssued[pos] = true;
        return m_store->At(pos);
    }
    Entry* entry = m_loaded.Find(id);
    entry->issued = true;
    return entry->node;
}

void
EtFeeder::PushBackIssuableNode(uint64_t id)
{
    NS_LOG_FUNCTION(this << id);
    if (m_store)
    {
        uint32_t pos = StoreLoaded(id);
        if (pos == kNotLoaded || !m_isIssued[pos] || m_isFinished[pos])
        {
            throw std::logic_error("EtFeeder::PushBackIssuableNode: node " + std::to_string(id) +
                                   " was not taken with GetNextIssuableNode");
        }
        m_isIssued[pos] = false;
        --m_inFlight;
        m_ready.push(id);
        return;
    }
    Entry* entry = m_loaded.Find(id);
    if (entry == nullptr || !entry->issued || entry->finished)
    {
        throw std::logic_error("EtFeeder::PushBackIssuableNode: node " + std::to_string(id) +
                               " was not taken with GetNextIssuableNode");
    }
    entry->issued = false;
    --m_inFlight;
    m_ready.push(id);
}

void
EtFeeder::FreeChildrenNodes(uint64_t id)
{
    NS_LOG_FUNCTION(this << id);
    uint32_t pos = m_store ? StoreLoaded(id) : kNotLoaded;
    Entry* entry = m_store ? nullptr : m_loaded.Find(id);
    if (m_store ? pos == kNotLoaded || !m_isIssued[pos] || m_isFinished[pos]
                : entry == nullptr || !entry->issued || entry->finished)
    {
        throw std::logic_error("EtFeeder::FreeChildrenNodes: node " + std::to_string(id) +
                               " is not in flight (never issued, or already finished)");
    }
    --m_inFlight;
    ++m_finishedCount;
    if (m_store)
    {
        StoreFinish(pos);
        return;
    }
    m_finished.Insert(id);
    entry->finished = true;
    std::vector<uint64_t> children = std::move(entry->children);
    for (uint64_t child : children)
    {
        ReleaseOne(child);
    }
}

void
EtFeeder::RemoveNode(uint64_t id)
{
    NS_LOG_FUNCTION(this << id);
    if (m_store)
    {
        uint32_t pos = StoreLoaded(id);
        if (pos == kNotLoaded)
        {
            return; // already removed
        }
        if (!m_isFinished[pos])
        {
            throw std::logic_error("EtFeeder::RemoveNode: node " + std::to_string(id) +
                                   " has not finished");
        }
        m_isLoaded[pos] = false;
        --m_loadedCount;
        return;
    }
    Entry* entry = m_loaded.Find(id);
    if (entry == nullptr)
    {
        return; // already removed
    }
    if (!entry->finished)
    {
        throw std::logic_error("EtFeeder::RemoveNode: node " + std::to_string(id) +
                               " has not finished");
    }
    m_loaded.Erase(id);
}

std::shared_ptr<const EtNode>
EtFeeder::LookupNode(uint64_t id) const
{
    if (m_store)
    {
        uint32_t pos = StoreLoaded(id);
        return pos == kNotLoaded ? nullptr : m_store->At(pos);
    }
    const Entry* entry = m_loaded.Find(id);
    return entry == nullptr ? nullptr : entry->node;
}

bool
EtFeeder::IsDone()
{
    if (!m_eof && m_finishedCount == NodesRead())
    {
        LoadOne();
    }
    return m_eof && m_finishedCount == NodesRead();
}

std::size_t
EtFeeder::GetInFlightCount() const
{
    return m_inFlight;
}

uint64_t
EtFeeder::GetNodesRead() const
{
    return NodesRead();
}

uint64_t
EtFeeder::GetNodesFinished() const
{
    return m_finishedCount;
}

std::size_t
EtFeeder::GetLoadedCount() const
{
    return m_store ? m_loadedCount : m_loaded.Size();
}

const ChakraProtoMsg::GlobalMetadata&
EtFeeder::GetMetadata() const
{
    return m_reader ? m_reader->GetMetadata() : m_store->GetMetadata();
}

const std::string&
EtFeeder::GetPath() const
{
    return m_reader ? m_reader->GetPath() : m_store->GetPath();
}

} // namespace ns3
