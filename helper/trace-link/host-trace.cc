#include "host-trace.h"

#include "ns3/json-limits.h"
#include "ns3/trace-error.h"
#include "ns3/trace-file.h"

#include <algorithm>
#include <istream>
#include <unordered_map>

namespace ns3
{

namespace
{

bool
StartsWith(const std::string& text, const std::string& prefix)
{
    return text.compare(0, prefix.size(), prefix) == 0;
}

bool
EndsWith(const std::string& text, const std::string& suffix)
{
    return text.size() >= suffix.size() &&
           text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

/** \return true for the profiler's own process and thread nodes */
bool
IsTraceNode(const std::string& name)
{
    return StartsWith(name, "[pytorch|profiler|") &&
           (EndsWith(name, "|process]") || EndsWith(name, "|thread]"));
}

} // namespace

const HostJson*
HostTrace::FindField(const HostJson& node, const std::string& key)
{
    auto it = node.find(key);
    if (it != node.end())
    {
        return &*it;
    }
    auto attrs = node.find("attrs");
    if (attrs == node.end() || !attrs->is_array())
    {
        return nullptr;
    }
    for (const auto& attr : *attrs)
    {
        auto name = attr.find("name");
        if (attr.is_object() && name != attr.end() && name->is_string() && *name == key)
        {
            auto value = attr.find("value");
            return value == attr.end() ? nullptr : &*value;
        }
    }
    return nullptr;
}

HostTrace::HostTrace(const std::string& path)
    : m_path(path)
{
    ReadDocument();
    const HostJson& nodes = ReadTopLevel();
    m_ops.reserve(nodes.size());
    for (std::size_t i = 0; i < nodes.size(); ++i)
    {
        m_ops.push_back(ReadOp(nodes[i], i));
    }
    CheckCallTree();
}

void
HostTrace::ReadDocument()
{
    InputFileStreamBuf buffer(m_path);
    std::istream stream(&buffer);
    try
    {
        m_document = HostJson::parse(stream);
    }
    catch (const HostJson::parse_error& e)
    {
        if (buffer.GetFile().GetOffset() == 0)
        {
            throw TraceError(m_path, "", "the file is empty");
        }
        ThrowJsonError(e, m_path, 0); // at the error's byte
    }
    catch (const HostJson::exception& e)
    {
        ThrowJsonError(e, m_path, buffer.GetConsumed()); // a number too large (1e9999)
    }
}

const HostJson&
HostTrace::ReadTopLevel()
{
    if (!m_document.is_object())
    {
        throw TraceError(m_path,
                         "top level",
                         "not a host execution trace: expected a JSON object with \"nodes\"");
    }
    auto nodes = m_document.find("nodes");
    if (nodes == m_document.end() || !nodes->is_array())
    {
        throw TraceError(m_path, "top level", "\"nodes\" is missing or not a list");
    }
    if (nodes->empty())
    {
        throw TraceError(m_path, "", "the trace has no nodes");
    }
    // Linking a linked trace again would attach every GPU op a second time (as new nodes next
    // to the ones already there): refuse it instead of writing a trace with each kernel twice.
    if (m_document.contains("trace_link"))
    {
        throw TraceError(m_path,
                         "top level",
                         "this is already a linked trace (it has a \"trace_link\" object, "
                         "written by chakra_trace_link): give the host execution trace that "
                         "PyTorch wrote, or convert this file directly with chakra_converter");
    }
    RefuseGpuOps(*nodes);
    auto schema = m_document.find("schema");
    if (schema != m_document.end())
    {
        if (!schema->is_string())
        {
            throw TraceError(m_path, "top level", "\"schema\" is not a string");
        }
        m_schema = schema->get<std::string>();
    }
    auto pid = m_document.find("pid");
    if (pid != m_document.end() && pid->is_number_integer())
    {
        m_pid = pid->get<int64_t>();
    }

    if (m_schema.find("-chakra.") != std::string::npos)
    {
        m_style = HostSchemaStyle::ATTRS;
    }
    else if (StartsWith(m_schema, "1.0.1"))
    {
        m_style = HostSchemaStyle::TOP_LEVEL;
    }
    else
    {
        // Unknown version: the first node tells the layout.
        const auto& first = nodes->front();
        m_style = first.is_object() && first.contains("ctrl_deps") && !first.contains("parent")
                      ? HostSchemaStyle::ATTRS
                      : HostSchemaStyle::TOP_LEVEL;
    }
    return *nodes;
}

void
HostTrace::RefuseGpuOps(const HostJson& nodes) const
{
    for (const auto& node : nodes)
    {
        if (node.is_object() && node.contains("cat"))
        {
            const auto id = node.find("id");
            throw TraceError(m_path,
                             "node " + (id != node.end() ? id->dump() : std::string("?")),
                             "this is already a linked trace (the node is a GPU op with \"cat\" " +
                                 node["cat"].dump() +
                                 "): give the host execution trace that PyTorch wrote, or "
                                 "convert this file directly with chakra_converter");
        }
    }
}

HostOp
HostTrace::ReadOp(const HostJson& node, std::size_t index) const
{
    const std::string parentKey = GetParentKey();
    std::string where = "node #" + std::to_string(index);
    if (!node.is_object())
    {
        throw TraceError(m_path, where, "not a JSON object");
    }
    HostOp op;
    op.index = index;
    auto id = node.find("id");
    if (id == node.end() || !id->is_number_integer() || id->get<int64_t>() < 0)
    {
        throw TraceError(m_path, where, "\"id\" is missing or not a non-negative integer");
    }
    op.id = id->get<uint64_t>();
    where = "node " + std::to_string(op.id);
    auto name = node.find("name");
    if (name == node.end() || !name->is_string())
    {
        throw TraceError(m_path, where, "\"name\" is missing or not a string");
    }
    op.name = name->get<std::string>();
    op.traceNode = IsTraceNode(op.name);

    auto parent = node.find(parentKey);
    if (parent == node.end())
    {
        throw TraceError(m_path, where, "\"" + parentKey + "\" (the parent id) is missing");
    }
    const HostJson* parentValue = &*parent;
    if (parent->is_array())
    {
        if (parent->size() > 1)
        {
            throw TraceError(m_path, where, "\"" + parentKey + "\" names more than one parent");
        }
        parentValue = parent->empty() ? nullptr : &parent->front();
    }
    if (parentValue != nullptr)
    {
        if (!parentValue->is_number_integer() || parentValue->get<int64_t>() < 0)
        {
            throw TraceError(m_path, where, "\"" + parentKey + "\" is not a non-negative integer");
        }
        op.parent = parentValue->get<uint64_t>();
        op.hasParent = true;
    }

    auto integer = [&](const char* key, bool required) -> int64_t {
        const HostJson* value = FindField(node, key);
        if (value == nullptr)
        {
            if (required)
            {
                throw TraceError(m_path, where, std::string("\"") + key + "\" is missing");
            }
            return kHostNone;
        }
        if (!value->is_number_integer())
        {
            throw TraceError(m_path, where, std::string("\"") + key + "\" is not an integer");
        }
        return value->get<int64_t>();
    };
    op.tid = integer("tid", true);
    op.rfId = integer("rf_id", false);
    op.seqId = integer("seq_id", false);
    op.fwParent = integer("fw_parent", false);
    return op;
}

void
HostTrace::CheckCallTree()
{
    const std::string parentKey = GetParentKey();
    std::sort(m_ops.begin(), m_ops.end(), [](const HostOp& a, const HostOp& b) {
        return a.id < b.id;
    });
    for (std::size_t i = 1; i < m_ops.size(); ++i)
    {
        if (m_ops[i].id == m_ops[i - 1].id)
        {
            throw TraceError(m_path, "node " + std::to_string(m_ops[i].id), "duplicate node id");
        }
    }
    bool anyOperator = false;
    for (auto& op : m_ops)
    {
        anyOperator = anyOperator || !op.traceNode;
        if (op.hasParent && op.parent == op.id && !op.traceNode)
        {
            // PyTorch writes its process root as its own parent; an operator that names
            // itself has lost its place in the call tree (the converter stops on it).
            throw TraceError(m_path,
                             "node " + std::to_string(op.id) + " (" + op.name + ")",
                             "is its own parent (\"" + parentKey + "\": " + std::to_string(op.id) +
                                 "); only the profiler's root nodes ([pytorch|profiler|...|"
                                 "process] or |thread]) may name themselves");
        }
        if (op.hasParent && FindOp(op.parent) < 0)
        {
            if (op.parent == 0)
            {
                op.hasParent = false; // 0 conventionally means "no parent"
                continue;
            }
            throw TraceError(m_path,
                             "node " + std::to_string(op.id),
                             "parent " + std::to_string(op.parent) + " is not a node of the trace");
        }
    }
    CheckNoParentCycle();
    if (!anyOperator)
    {
        throw TraceError(m_path, "", "the trace has no operator nodes");
    }
}

void
HostTrace::CheckNoParentCycle() const
{
    // The call tree must be a tree: a parent cycle (other than the root naming itself) would
    // make every walk up the tree endless.
    std::vector<uint8_t> state(m_ops.size(), 0); // 0 unseen, 1 on the current path, 2 done
    std::vector<std::size_t> walk;
    for (std::size_t start = 0; start < m_ops.size(); ++start)
    {
        std::size_t i = start;
        while (state[i] == 0)
        {
            state[i] = 1;
            walk.push_back(i);
            const HostOp& op = m_ops[i];
            if (!op.hasParent || op.parent == op.id)
            {
                break;
            }
            i = static_cast<std::size_t>(FindOp(op.parent));
            if (state[i] == 1)
            {
                throw TraceError(m_path,
                                 "node " + std::to_string(m_ops[i].id),
                                 "the parent links form a cycle");
            }
        }
        for (std::size_t j : walk)
        {
            state[j] = 2;
        }
        walk.clear();
    }
}

const std::string&
HostTrace::GetPath() const
{
    return m_path;
}

const std::string&
HostTrace::GetSchema() const
{
    return m_schema;
}

HostSchemaStyle
HostTrace::GetStyle() const
{
    return m_style;
}

const char*
HostTrace::GetParentKey() const
{
    return m_style == HostSchemaStyle::TOP_LEVEL ? "parent" : "ctrl_deps";
}

std::optional<int64_t>
HostTrace::GetPid() const
{
    return m_pid;
}

const std::vector<HostOp>&
HostTrace::GetOps() const
{
    return m_ops;
}

const HostJson&
HostTrace::GetDocument() const
{
    return m_document;
}

HostJson&
HostTrace::GetDocument()
{
    return m_document;
}

int64_t
HostTrace::FindOp(uint64_t id) const
{
    auto it =
        std::lower_bound(m_ops.begin(), m_ops.end(), id, [](const HostOp& op, uint64_t value) {
            return op.id < value;
        });
    return it != m_ops.end() && it->id == id ? it - m_ops.begin() : -1;
}

} // namespace ns3
