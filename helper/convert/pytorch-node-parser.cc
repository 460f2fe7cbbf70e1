#include "pytorch-node-parser.h"

#include "ns3/trace-error.h"

#include <limits>

namespace ns3
{

PyTorchNodeParser::PyTorchNodeParser(const std::string& path, PyTorchRawNode& raw, bool legacy)
    : m_path(path),
      m_json(raw.fields),
      m_legacy(legacy),
      m_where("node #" + std::to_string(raw.index)),
      m_attrs(raw.hasAttrs ? &raw.attrs : nullptr),
      m_attrError(raw.attrError),
      m_io(raw.io)
{
}

PyTorchNode
PyTorchNodeParser::Parse()
{
    PyTorchNode node;
    ParseIdentity(node);
    ParseAttrs(node);
    ParseParent(node);
    ParseIo(node);
    ParseTiming(node);
    ParseLinkedKeys(node);
    CheckGpuOp(node);
    return node;
}

void
PyTorchNodeParser::ParseIdentity(PyTorchNode& node)
{
    if (!m_json.is_object())
    {
        Fail("is not a JSON object");
    }
    node.id = RequireUint("id");
    m_where = "node " + std::to_string(node.id);
    const Json* name = Find("name");
    if (name == nullptr || !name->is_string())
    {
        Fail(name == nullptr ? "missing field \"name\"" : "field \"name\" is not a string");
    }
    node.name = name->get<std::string>();
    m_where = "node " + std::to_string(node.id) + " (" + node.name + ")";
}

void
PyTorchNodeParser::ParseTiming(PyTorchNode& node) const
{
    if (const Json* cat = Find("cat"))
    {
        if (!cat->is_string())
        {
            Fail("field \"cat\" is not a string");
        }
        node.isGpuOp = true;
        node.cat = cat->get<std::string>();
    }
    node.tid = OptionalInt("tid", node);
    node.ts = OptionalNumber("ts", node, true);
    node.dur = OptionalNumber("dur", node, false);
    node.inclusiveDur = OptionalNumber("inclusive_dur", node, false);
    node.exclusiveDur = OptionalNumber("exclusive_dur", node, false);
    node.waitDur = OptionalNumber("wait_dur", node, false);
    node.gapDur = OptionalNumber("gap_dur", node, false);
    node.stream = OptionalInt("stream", node);
    node.device = OptionalInt("device", node);
    node.correlation = OptionalInt("correlation", node);
    if (node.isGpuOp)
    {
        // Chakra's Python linkers copy the Kineto event's "args" into GPU ops (stream,
        // device, correlation there), and some give only inclusive/exclusive durations.
        node.stream = node.stream ? node.stream : ArgsInt("stream");
        node.device = node.device ? node.device : ArgsInt("device");
        node.correlation = node.correlation ? node.correlation : ArgsInt("correlation");
        node.dur =
            node.dur ? node.dur : (node.inclusiveDur ? node.inclusiveDur : node.exclusiveDur);
    }
}

void
PyTorchNodeParser::ParseLinkedKeys(PyTorchNode& node) const
{
    if (const Json* pg = Linked("pg_name", node))
    {
        if (pg->is_string())
        {
            node.pgName = pg->get<std::string>();
        }
        else if (pg->is_number_integer())
        {
            node.pgName = std::to_string(pg->get<int64_t>());
        }
        else
        {
            Fail("field \"pg_name\" is neither a string nor an integer");
        }
    }
    if (const Json* dep = Linked("inter_thread_dep", node))
    {
        node.interThreadDep = ToUint(*dep, "inter_thread_dep");
    }
    if (const Json* deps = Linked("sync_deps", node))
    {
        if (deps->is_array())
        {
            for (const Json& dep : *deps)
            {
                node.syncDeps.push_back(ToUint(dep, "sync_deps"));
            }
        }
        else
        {
            node.syncDeps.push_back(ToUint(*deps, "sync_deps"));
        }
    }
    if (const Json* deps = Linked("cross_stream_deps", node))
    {
        if (!deps->is_array())
        {
            Fail("field \"cross_stream_deps\" is not a list");
        }
        for (const Json& dep : *deps)
        {
            node.crossStreamDeps.push_back(ToUint(dep, "cross_stream_deps"));
        }
    }
}

void
PyTorchNodeParser::CheckGpuOp(const PyTorchNode& node) const
{
    if (!node.isGpuOp)
    {
        return;
    }
    if (!node.stream)
    {
        Fail("GPU op (it has \"cat\") without \"stream\" (at the top level or in \"args\")");
    }
    if (!node.dur)
    {
        Fail("GPU op (it has \"cat\") without \"dur\" (or \"inclusive_dur\")");
    }
}

void
PyTorchNodeParser::Fail(const std::string& what) const
{
    throw TraceError(m_path, m_where, what);
}

const nlohmann::json*
PyTorchNodeParser::Find(std::string_view key) const
{
    auto it = m_json.find(key);
    return it == m_json.end() ? nullptr : &*it;
}

std::optional<int64_t>
PyTorchNodeParser::ArgsInt(const char* key) const
{
    const Json* args = Find("args");
    if (args == nullptr || !args->is_object())
    {
        return std::nullopt;
    }
    auto it = args->find(key);
    if (it == args->end() || it->is_null())
    {
        return std::nullopt;
    }
    if (it->is_number_integer() &&
        (!it->is_number_unsigned() ||
         it->get<uint64_t>() <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max())))
    {
        return it->get<int64_t>();
    }
    Fail(std::string("field \"args.") + key + "\" is not an integer: " + it->dump());
}

const nlohmann::json*
PyTorchNodeParser::Linked(const char* key, const PyTorchNode& node) const
{
    const Json* value = Find(key);
    if (value == nullptr || value->is_null())
    {
        value = node.FindAttr(key);
    }
    return value != nullptr && value->is_null() ? nullptr : value;
}

uint64_t
PyTorchNodeParser::ToUint(const Json& value, const std::string& key) const
{
    if (value.is_number_unsigned())
    {
        return value.get<uint64_t>();
    }
    if (value.is_number_integer() && value.get<int64_t>() >= 0)
    {
        return static_cast<uint64_t>(value.get<int64_t>());
    }
    Fail("field \"" + key + "\" is not a non-negative integer: " + value.dump());
}

uint64_t
PyTorchNodeParser::RequireUint(const char* key) const
{
    const Json* value = Find(key);
    if (value == nullptr)
    {
        Fail(std::string("missing field \"") + key + "\"");
    }
    return ToUint(*value, key);
}

std::optional<int64_t>
PyTorchNodeParser::OptionalInt(const char* key, const PyTorchNode& node) const
{
    const Json* value = Linked(key, node);
    if (value == nullptr)
    {
        return std::nullopt;
    }
    if (value->is_number_unsigned())
    {
        uint64_t u = value->get<uint64_t>();
        if (u > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
        {
            Fail(std::string("field \"") + key + "\" is out of range: " + value->dump());
        }
        return static_cast<int64_t>(u);
    }
    if (value->is_number_integer())
    {
        return value->get<int64_t>();
    }
    Fail(std::string("field \"") + key + "\" is not an integer: " + value->dump());
}

std::optional<double>
PyTorchNodeParser::OptionalNumber(const char* key,
                                  const PyTorchNode& node,
                                  bool negativeAllowed) const
{
    const Json* value = Linked(key, node);
    if (value == nullptr)
    {
        return std::nullopt;
    }
    if (!value->is_number())
    {
        Fail(std::string("field \"") + key + "\" is not a number: " + value->dump());
    }
    double number = value->get<double>();
    if (!negativeAllowed && number < 0)
    {
        Fail(std::string("field \"") + key + "\" is negative: " + value->dump());
    }
    return number;
}

void
PyTorchNodeParser::ParseParent(PyTorchNode& node) const
{
    const char* key = m_legacy ? "parent" : "ctrl_deps";
    const Json* value = Find(key);
    if (value == nullptr)
    {
        Fail(std::string("missing field \"") + key + "\" (the call-tree parent)");
    }
    if (value->is_array())
    {
        if (value->size() > 1)
        {
            Fail(std::string("field \"") + key + "\" names more than one parent");
        }
        if (value->size() == 1)
        {
            node.parent = ToUint((*value)[0], key);
        }
        return;
    }
    node.parent = ToUint(*value, key);
}

void
PyTorchNodeParser::TakeArray(std::size_t index, std::string& out)
{
    PyTorchRawIo& raw = m_io[index];
    if (raw.kind == PyTorchRawIo::ABSENT)
    {
        return;
    }
    if (raw.kind != PyTorchRawIo::ARRAY)
    {
        Fail("field \"" + std::string(kPyTorchIoKeys[index]) + "\" is not an array");
    }
    out = std::move(raw.text);
}

void
PyTorchNodeParser::TakeIo(std::size_t index, PyTorchIo& io)
{
    PyTorchRawIo& raw = m_io[index];
    if (raw.kind == PyTorchRawIo::ABSENT)
    {
        return;
    }
    if (raw.kind != PyTorchRawIo::OBJECT)
    {
        Fail("field \"" + std::string(kPyTorchIoKeys[index]) +
             "\" is not a {values, shapes, types} object");
    }
    for (std::size_t member = 0; member < kPyTorchIoMembers.size(); ++member)
    {
        if (raw.notArray[member])
        {
            Fail("field \"" + std::string(kPyTorchIoKeys[index]) + "." +
                 std::string(kPyTorchIoMembers[member]) + "\" is not an array");
        }
    }
    io = std::move(raw.io);
}

void
PyTorchNodeParser::ParseIo(PyTorchNode& node)
{
    // kPyTorchIoKeys: inputs, outputs, input_shapes, input_types, output_shapes, output_types.
    if (m_legacy)
    {
        TakeArray(0, node.inputs.values);
        TakeArray(2, node.inputs.shapes);
        TakeArray(3, node.inputs.types);
        TakeArray(1, node.outputs.values);
        TakeArray(4, node.outputs.shapes);
        TakeArray(5, node.outputs.types);
    }
    else
    {
        TakeIo(0, node.inputs);
        TakeIo(1, node.outputs);
    }
}

std::string
PyTorchNodeParser::TypeOf(const Json& value)
{
    if (value.is_number_unsigned())
    {
        return "uint64";
    }
    if (value.is_number_integer())
    {
        return "int64";
    }
    if (value.is_number())
    {
        return "double";
    }
    if (value.is_boolean())
    {
        return "bool";
    }
    if (value.is_string())
    {
        return "string";
    }
    return "json";
}

void
PyTorchNodeParser::ParseAttrs(PyTorchNode& node)
{
    if (m_legacy)
    {
        for (const char* key :
             {"rf_id", "fw_parent", "seq_id", "scope", "tid", "fw_tid", "op_schema"})
        {
            auto it = m_json.find(key);
            if (it != m_json.end() && !it->is_null())
            {
                node.attrs.push_back({key, TypeOf(*it), std::move(*it)});
            }
        }
        return;
    }
    if (!m_attrError.empty())
    {
        Fail(m_attrError);
    }
    if (m_attrs != nullptr)
    {
        node.attrs = std::move(*m_attrs);
        return;
    }
    ParseAttrsField(node);
}

void
PyTorchNodeParser::ParseAttrsField(PyTorchNode& node)
{
    auto it = m_json.find("attrs");
    if (it == m_json.end() || it->is_null())
    {
        return;
    }
    if (!it->is_array())
    {
        Fail("field \"attrs\" is not an array");
    }
    for (Json& attr : *it)
    {
        auto name = attr.is_object() ? attr.find("name") : attr.end();
        if (!attr.is_object() || name == attr.end() || !name->is_string())
        {
            Fail("an entry of \"attrs\" is not a {name, type, value} object: " +
                 attr.dump().substr(0, 200));
        }
        PyTorchAttr parsed;
        parsed.name = name->get<std::string>();
        auto value = attr.find("value");
        if (value != attr.end())
        {
            parsed.value = std::move(*value);
        }
        auto type = attr.find("type");
        parsed.type = type != attr.end() && type->is_string() ? type->get<std::string>()
                                                              : TypeOf(parsed.value);
        node.attrs.push_back(std::move(parsed));
    }
}

} // namespace ns3
