#include "pytorch-trace.h"

#include "json-event-reader.h"
#include "pytorch-node-parser.h"
#include "pytorch-trace-sax.h"

#include "ns3/trace-error.h"
#include "ns3/trace-file.h"

#include <algorithm>
#include <regex>

namespace ns3
{

nlohmann::json
PyTorchIo::ParseValues() const
{
    return nlohmann::json::parse(values);
}

nlohmann::json
PyTorchIo::ParseTypes() const
{
    return nlohmann::json::parse(types);
}

bool
PyTorchIo::IsEmpty() const
{
    return values == "[]" && shapes == "[]" && types == "[]";
}

const nlohmann::json*
PyTorchNode::FindAttr(std::string_view attrName) const
{
    for (const auto& attr : attrs)
    {
        if (attr.name == attrName)
        {
            return &attr.value;
        }
    }
    return nullptr;
}

std::string
PyTorchNode::Describe() const
{
    return "node " + std::to_string(id) + " (" + name + ")";
}

PyTorchTrace
PyTorchTrace::Load(const std::string& path)
{
    return Parse(ReadWholeFile(path), path);
}

namespace
{

/**
 * Reads a linked trace's "trace_link" object.
 * \param path the trace file, for errors
 * \param link the object's value
 * \return what it says
 */
TraceLinkInfo
ReadTraceLink(const std::string& path, const nlohmann::json& link)
{
    if (!link.is_object())
    {
        throw TraceError(path, "trace_link", "is not an object");
    }
    TraceLinkInfo info;
    info.present = true;
    auto readInt = [&](const char* key) -> std::optional<int64_t> {
        auto it = link.find(key);
        if (it == link.end() || it->is_null())
        {
            return std::nullopt;
        }
        if (!it->is_number_integer())
        {
            throw TraceError(path, std::string("trace_link.") + key, "is not an integer");
        }
        return it->get<int64_t>();
    };
    info.rank = readInt("rank");
    info.worldSize = readInt("world_size");
    auto backend = link.find("backend");
    if (backend != link.end() && backend->is_string())
    {
        info.backend = backend->get<std::string>();
    }
    // The GPU this rank ran on: the first entry of Kineto's deviceProperties that names one
    // (every GPU of a node is listed; a job uses one kind).
    auto properties = link.find("device_properties");
    if (properties != link.end() && properties->is_array())
    {
        for (const nlohmann::json& device : *properties)
        {
            auto name = device.is_object() ? device.find("name") : device.end();
            if (device.is_object() && name != device.end() && name->is_string() &&
                !name->get<std::string>().empty())
            {
                info.gpuName = name->get<std::string>();
                break;
            }
        }
    }
    if (info.rank && *info.rank < 0)
    {
        throw TraceError(path, "trace_link.rank", "is negative");
    }
    if (info.worldSize && (*info.worldSize <= 0 || (info.rank && *info.rank >= *info.worldSize)))
    {
        throw TraceError(path, "trace_link.world_size", "is not a positive number above rank");
    }
    // A default process group lists no ranks and spans the world: an absurd world size would
    // make the converter list billions of ranks. The same bound as a group's size.
    constexpr int64_t kMaxWorldSize = int64_t{1} << 24;
    if (info.worldSize && *info.worldSize > kMaxWorldSize)
    {
        throw TraceError(path,
                         "trace_link.world_size",
                         "absurd world size " + std::to_string(*info.worldSize) + " (at most " +
                             std::to_string(kMaxWorldSize) + " ranks)");
    }
    return info;
}

} // namespace

PyTorchTrace
PyTorchTrace::Parse(const std::string& text, const std::string& path)
{
    PyTorchTrace trace;
    trace.m_path = path;
    PyTorchTraceSax sax;
    bool schemaKnown = false;
    // The schema decides how nodes read: once it is known, each node is read as soon as it
    // ends, so that only one node's JSON is in memory at a time.
    auto readSchema = [&]() {
        auto schema = sax.top.find("schema");
        if (schema == sax.top.end() || !schema->is_string())
        {
            return false;
        }
        trace.m_schema = schema->get<std::string>();
        if (trace.m_schema.compare(0, 2, "1.") != 0)
        {
            throw TraceError(path,
                             "",
                             "unsupported schema \"" + trace.m_schema +
                                 "\" (supported: 1.0.1 and 1.x-chakra.*)");
        }
        trace.m_legacy = trace.m_schema.find("-chakra") == std::string::npos;
        schemaKnown = true;
        return true;
    };
    auto readNode = [&](PyTorchRawNode& raw) {
        trace.m_nodes.push_back(PyTorchNodeParser(path, raw, trace.m_legacy).Parse());
    };
    sax.sink = [&](PyTorchRawNode& raw) {
        if (!schemaKnown && !readSchema())
        {
            return false;
        }
        readNode(raw);
        return true;
    };
    // The reader bounds the nesting (kMaxJsonDepth): nested values are copied and dumped
    // recursively.
    JsonEventReader reader(text);
    if (!reader.Read(sax))
    {
        throw TraceError(path,
                         "byte " + std::to_string(reader.GetErrorByte()),
                         reader.IsTooDeep() ? reader.GetError()
                                            : "malformed JSON: " + reader.GetError());
    }
    if (!sax.topIsObject)
    {
        throw TraceError(path,
                         "",
                         "not a PyTorch execution trace (the top level is not an object)");
    }
    if (!schemaKnown && !readSchema())
    {
        throw TraceError(path, "", "missing \"schema\" string (not a PyTorch execution trace?)");
    }
    auto link = sax.top.find("trace_link");
    if (link != sax.top.end() && !link->is_null())
    {
        trace.m_link = ReadTraceLink(path, *link);
    }
    if (!sax.nodesSeen)
    {
        throw TraceError(path, "", "missing \"nodes\" array");
    }
    for (PyTorchRawNode& raw : sax.nodes)
    {
        readNode(raw);
        raw = PyTorchRawNode();
    }
    trace.BuildTree();
    return trace;
}

void
PyTorchTrace::SortById()
{
    // Sorted by id, equal ids in file order. The order is found on (id, position) pairs and
    // applied in place, cycle by cycle, each node moved once: sorting the nodes themselves
    // moved each some log n times, most of the time of BuildTree on a real trace (ids are
    // mostly, not fully, ascending).
    std::vector<std::pair<uint64_t, std::size_t>> order(m_nodes.size());
    for (std::size_t i = 0; i < m_nodes.size(); ++i)
    {
        order[i] = {m_nodes[i].id, i};
    }
    std::sort(order.begin(), order.end());
    std::vector<bool> placed(m_nodes.size(), false);
    for (std::size_t start = 0; start < m_nodes.size(); ++start)
    {
        if (placed[start] || order[start].second == start)
        {
            continue;
        }
        // Position j receives the node at order[j].second, until the cycle is back at start.
        PyTorchNode first = std::move(m_nodes[start]);
        std::size_t j = start;
        while (order[j].second != start)
        {
            m_nodes[j] = std::move(m_nodes[order[j].second]);
            placed[j] = true;
            j = order[j].second;
        }
        m_nodes[j] = std::move(first);
        placed[j] = true;
    }
    for (std::size_t i = 1; i < m_nodes.size(); ++i)
    {
        if (m_nodes[i].id == m_nodes[i - 1].id)
        {
            throw TraceError(m_path,
                             m_nodes[i].Describe(),
                             "duplicate node id (also " + m_nodes[i - 1].Describe() + ")");
        }
    }
}

void
PyTorchTrace::BuildTree()
{
    SortById();
    const std::size_t n = m_nodes.size();
    m_parent.assign(n, std::nullopt);
    m_children.assign(n, {});
    std::vector<std::size_t> roots;
    for (std::size_t i = 0; i < n; ++i)
    {
        const auto& parent = m_nodes[i].parent;
        if (parent && *parent != m_nodes[i].id)
        {
            m_parent[i] = FindIndex(*parent);
            if (!m_parent[i])
            {
                ++m_danglingParents;
            }
        }
        if (m_parent[i])
        {
            m_children[*m_parent[i]].push_back(i);
        }
        else
        {
            roots.push_back(i);
        }
    }
    // Iterative preorder: no recursion, whatever the depth.
    m_preorder.clear();
    m_preorder.reserve(n);
    std::vector<std::size_t> stack(roots.rbegin(), roots.rend());
    while (!stack.empty())
    {
        std::size_t i = stack.back();
        stack.pop_back();
        m_preorder.push_back(i);
        const auto& children = m_children[i];
        stack.insert(stack.end(), children.rbegin(), children.rend());
    }
    if (m_preorder.size() != n)
    {
        ThrowParentCycle();
    }
}

void
PyTorchTrace::ThrowParentCycle() const
{
    // Some nodes are not under any root: their parent links loop. Name the loop.
    const std::size_t n = m_nodes.size();
    std::vector<bool> reached(n, false);
    for (std::size_t i : m_preorder)
    {
        reached[i] = true;
    }
    std::size_t start = 0;
    while (reached[start])
    {
        ++start;
    }
    std::vector<int> seenAt(n, -1);
    std::vector<std::size_t> path;
    std::size_t i = start;
    while (seenAt[i] < 0)
    {
        seenAt[i] = static_cast<int>(path.size());
        path.push_back(i);
        i = *m_parent[i];
    }
    std::string loop;
    for (std::size_t k = static_cast<std::size_t>(seenAt[i]); k < path.size(); ++k)
    {
        loop += m_nodes[path[k]].Describe() + " -> ";
    }
    loop += m_nodes[i].Describe();
    throw TraceError(m_path, m_nodes[i].Describe(), "parent links form a cycle: " + loop);
}

const std::string&
PyTorchTrace::GetPath() const
{
    return m_path;
}

const std::string&
PyTorchTrace::GetSchema() const
{
    return m_schema;
}

bool
PyTorchTrace::IsLegacySchema() const
{
    return m_legacy;
}

const TraceLinkInfo&
PyTorchTrace::GetTraceLink() const
{
    return m_link;
}

const std::vector<PyTorchNode>&
PyTorchTrace::GetNodes() const
{
    return m_nodes;
}

std::size_t
PyTorchTrace::GetSize() const
{
    return m_nodes.size();
}

const PyTorchNode&
PyTorchTrace::GetNode(std::size_t index) const
{
    return m_nodes.at(index);
}

std::optional<std::size_t>
PyTorchTrace::FindIndex(uint64_t id) const
{
    auto it =
        std::lower_bound(m_nodes.begin(), m_nodes.end(), id, [](const auto& node, uint64_t v) {
            return node.id < v;
        });
    if (it == m_nodes.end() || it->id != id)
    {
        return std::nullopt;
    }
    return static_cast<std::size_t>(it - m_nodes.begin());
}

std::optional<std::size_t>
PyTorchTrace::GetParent(std::size_t index) const
{
    return m_parent.at(index);
}

const std::vector<std::size_t>&
PyTorchTrace::GetChildren(std::size_t index) const
{
    return m_children.at(index);
}

const std::vector<std::size_t>&
PyTorchTrace::GetPreorder() const
{
    return m_preorder;
}

uint64_t
PyTorchTrace::GetDanglingParents() const
{
    return m_danglingParents;
}

void
PyTorchTrace::ThrowNodeError(std::size_t index, const std::string& what) const
{
    throw TraceError(m_path, GetNode(index).Describe(), what);
}

bool
IsProfilerRootName(const std::string& name)
{
    static const std::regex pattern(
        R"(^\[pytorch\|profiler\|(execution_trace|execution_graph)\|(thread|process)\]$)");
    return name.size() > 2 && name.front() == '[' && std::regex_match(name, pattern);
}

bool
IsProcessGroupInitName(const std::string& name)
{
    return name.find("process_group:init") != std::string::npos;
}

} // namespace ns3
