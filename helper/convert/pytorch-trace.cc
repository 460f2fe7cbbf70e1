#include "pytorch-trace.h"

#include "ns3/json-limits.h"
#include "ns3/trace-error.h"
#include "ns3/trace-file.h"

#include <algorithm>
#include <functional>
#include <limits>
#include <regex>

namespace ns3
{

namespace
{

using Json = nlohmann::json;

/** \return compact JSON text (invalid UTF-8 replaced, never an exception) */
std::string
DumpCompact(const Json& value)
{
    return value.dump(-1, ' ', false, Json::error_handler_t::replace);
}

/** Reads the fields of one JSON node object, naming the node in every error. */
class NodeParser
{
  public:
    /**
     * \param path the trace file
     * \param json the node object (without "attrs" when \p attrs is given)
     * \param index the node's position in the "nodes" array
     * \param legacy the 1.0.1 layout
     * \param attrs the attribute list, already read by the SAX reader (or nullptr)
     * \param attrError why that list is malformed ("" if it is fine)
     */
    NodeParser(const std::string& path,
               Json& json,
               std::size_t index,
               bool legacy,
               std::vector<PyTorchAttr>* attrs,
               const std::string& attrError)
        : m_path(path),
          m_json(json),
          m_legacy(legacy),
          m_where("node #" + std::to_string(index)),
          m_attrs(attrs),
          m_attrError(attrError)
    {
    }

    PyTorchNode Parse()
    {
        if (!m_json.is_object())
        {
            Fail("is not a JSON object");
        }
        PyTorchNode node;
        node.id = RequireUint("id");
        m_where = "node " + std::to_string(node.id);
        const Json* name = Find("name");
        if (name == nullptr || !name->is_string())
        {
            Fail(name == nullptr ? "missing field \"name\"" : "field \"name\" is not a string");
        }
        node.name = name->get<std::string>();
        m_where = "node " + std::to_string(node.id) + " (" + node.name + ")";

        ParseAttrs(node);
        ParseParent(node);
        ParseIo(node);

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
            node.dur = node.dur ? node.dur : (node.inclusiveDur ? node.inclusiveDur
                                                                : node.exclusiveDur);
        }
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
        if (node.isGpuOp)
        {
            if (!node.stream)
            {
                Fail("GPU op (it has \"cat\") without \"stream\" (at the top level or in "
                     "\"args\")");
            }
            if (!node.dur)
            {
                Fail("GPU op (it has \"cat\") without \"dur\" (or \"inclusive_dur\")");
            }
        }
        return node;
    }

  private:
    [[noreturn]] void Fail(const std::string& what) const
    {
        throw TraceError(m_path, m_where, what);
    }

    const Json* Find(const char* key) const
    {
        auto it = m_json.find(key);
        return it == m_json.end() ? nullptr : &*it;
    }

    /** An integer inside the node's "args" object (Kineto's fields, as Python linkers copy
     *  them), or nullopt. */
    std::optional<int64_t> ArgsInt(const char* key) const
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

    /** A key the linker adds: top level first, then the attribute list. */
    const Json* Linked(const char* key, const PyTorchNode& node) const
    {
        const Json* value = Find(key);
        if (value == nullptr || value->is_null())
        {
            value = node.FindAttr(key);
        }
        return value != nullptr && value->is_null() ? nullptr : value;
    }

    uint64_t ToUint(const Json& value, const std::string& key) const
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

    uint64_t RequireUint(const char* key) const
    {
        const Json* value = Find(key);
        if (value == nullptr)
        {
            Fail(std::string("missing field \"") + key + "\"");
        }
        return ToUint(*value, key);
    }

    std::optional<int64_t> OptionalInt(const char* key, const PyTorchNode& node) const
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

    std::optional<double> OptionalNumber(const char* key,
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

    void ParseParent(PyTorchNode& node) const
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

    void TakeArray(const char* key, std::string& out)
    {
        auto it = m_json.find(key);
        if (it == m_json.end() || it->is_null())
        {
            return;
        }
        if (!it->is_array())
        {
            Fail(std::string("field \"") + key + "\" is not an array");
        }
        out = DumpCompact(*it);
    }

    void TakeIo(const char* key, PyTorchIo& io)
    {
        auto it = m_json.find(key);
        if (it == m_json.end() || it->is_null())
        {
            return;
        }
        if (!it->is_object())
        {
            Fail(std::string("field \"") + key + "\" is not a {values, shapes, types} object");
        }
        for (auto [field, target] : {std::pair<const char*, std::string*>{"values", &io.values},
                                     {"shapes", &io.shapes},
                                     {"types", &io.types}})
        {
            auto sub = it->find(field);
            if (sub == it->end() || sub->is_null())
            {
                continue;
            }
            if (!sub->is_array())
            {
                Fail(std::string("field \"") + key + "." + field + "\" is not an array");
            }
            *target = DumpCompact(*sub);
        }
    }

    void ParseIo(PyTorchNode& node)
    {
        if (m_legacy)
        {
            TakeArray("inputs", node.inputs.values);
            TakeArray("input_shapes", node.inputs.shapes);
            TakeArray("input_types", node.inputs.types);
            TakeArray("outputs", node.outputs.values);
            TakeArray("output_shapes", node.outputs.shapes);
            TakeArray("output_types", node.outputs.types);
        }
        else
        {
            TakeIo("inputs", node.inputs);
            TakeIo("outputs", node.outputs);
        }
    }

    static std::string TypeOf(const Json& value)
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

    void ParseAttrs(PyTorchNode& node)
    {
        if (m_legacy)
        {
            for (const char* key : {"rf_id", "fw_parent", "seq_id", "scope", "tid", "fw_tid",
                                    "op_schema"})
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

    const std::string& m_path;
    Json& m_json;
    bool m_legacy;
    std::string m_where;
    std::vector<PyTorchAttr>* m_attrs;
    const std::string& m_attrError;
};

/** A node object as the SAX reader collects it: its fields, and its attribute list apart. */
struct RawNode
{
    Json fields;                    //!< every field but a well-formed "attrs" list
    std::vector<PyTorchAttr> attrs; //!< the "attrs" list, when it is an array
    bool hasAttrs{false};           //!< true if "attrs" was an array
    std::string attrError;          //!< why an entry of "attrs" is malformed
    std::size_t index{0};           //!< position in the "nodes" array
};

/**
 * SAX handler reading a trace without building a DOM for the "attrs" entries, which are most
 * of a chakra-schema trace ({name, type, value} objects would each cost a std::map). Every other
 * value is built as JSON, as nlohmann's own DOM parser does.
 */
class TraceSax
{
  public:
    using number_integer_t = Json::number_integer_t;
    using number_unsigned_t = Json::number_unsigned_t;
    using number_float_t = Json::number_float_t;
    using string_t = Json::string_t;
    using binary_t = Json::binary_t;

    Json top = Json::object();     //!< top-level fields other than "nodes"
    bool topIsObject{false};       //!< the document is an object
    bool nodesSeen{false};         //!< "nodes" was an array
    std::vector<RawNode> nodes;    //!< nodes not handed to the sink (yet)
    /** Receives each node object when it ends; returns false to keep it in "nodes" (the
     *  schema is not known yet). */
    std::function<bool(RawNode&)> sink;
    std::size_t errorByte{0};      //!< position of a syntax error
    std::string error;             //!< the syntax error ("" if none)

    bool null()
    {
        return Value(Json());
    }

    bool boolean(bool value)
    {
        return Value(Json(value));
    }

    bool number_integer(number_integer_t value)
    {
        return Value(Json(value));
    }

    bool number_unsigned(number_unsigned_t value)
    {
        return Value(Json(value));
    }

    bool number_float(number_float_t value, const string_t& /* text */)
    {
        return Value(Json(value));
    }

    bool string(string_t& value)
    {
        return Value(Json(std::move(value)));
    }

    bool binary(binary_t& value)
    {
        return Value(Json::binary(std::move(value)));
    }

    bool key(string_t& name)
    {
        if (!m_stack.empty())
        {
            m_slot = &(*m_stack.back())[name];
            return true;
        }
        m_key = std::move(name);
        return true;
    }

    bool start_object(std::size_t /* size */)
    {
        return Start(Json::value_t::object);
    }

    bool start_array(std::size_t /* size */)
    {
        return Start(Json::value_t::array);
    }

    bool end_object()
    {
        return End();
    }

    bool end_array()
    {
        return End();
    }

    bool parse_error(std::size_t position,
                     const std::string& /* token */,
                     const nlohmann::detail::exception& ex)
    {
        errorByte = position;
        error = ex.what();
        return false;
    }

  private:
    /** Where the reader is, outside a value being captured as JSON. */
    enum class Frame
    {
        Top,   //!< in the top-level object
        Nodes, //!< in the "nodes" array
        Node,  //!< in a node object
        Attrs, //!< in a node's "attrs" array
        Attr,  //!< in one {name, type, value} entry
    };

    /** Begins capturing a JSON value into \p target. */
    void Capture(Json* target, Json::value_t type)
    {
        *target = Json(type);
        m_stack.push_back(target);
    }

    bool Value(Json value)
    {
        if (!m_stack.empty())
        {
            Json* open = m_stack.back();
            if (open->is_array())
            {
                open->push_back(std::move(value));
            }
            else
            {
                *m_slot = std::move(value);
            }
            return true;
        }
        if (m_frames.empty())
        {
            return true; // a scalar document: not an object, reported later
        }
        switch (m_frames.back())
        {
        case Frame::Top:
            top[m_key] = std::move(value);
            break;
        case Frame::Nodes:
            nodes.emplace_back();
            nodes.back().index = m_nodeCount++;
            nodes.back().fields = std::move(value);
            break;
        case Frame::Node:
            nodes.back().fields[m_key] = std::move(value);
            break;
        case Frame::Attrs:
            SetAttrError("an entry of \"attrs\" is not a {name, type, value} object: " +
                         value.dump());
            break;
        case Frame::Attr:
            if (m_key == "name" || m_key == "type")
            {
                if (!value.is_string())
                {
                    SetAttrError("an entry of \"attrs\" has a \"" + m_key +
                                 "\" that is not a string: " + value.dump());
                }
                else
                {
                    (m_key == "name" ? m_attr.name : m_attr.type) = value.get<std::string>();
                    (m_key == "name" ? m_attrHasName : m_attrHasType) = true;
                }
            }
            else if (m_key == "value")
            {
                m_attr.value = std::move(value);
            }
            break;
        }
        return true;
    }

    bool Start(Json::value_t type)
    {
        const bool isObject = type == Json::value_t::object;
        if (!m_stack.empty())
        {
            Json* open = m_stack.back();
            if (open->is_array())
            {
                open->push_back(Json(type));
                m_stack.push_back(&open->back());
            }
            else
            {
                *m_slot = Json(type);
                m_stack.push_back(m_slot);
            }
            return true;
        }
        if (m_frames.empty())
        {
            if (isObject)
            {
                topIsObject = true;
                m_frames.push_back(Frame::Top);
            }
            else
            {
                Capture(&m_ignored, type);
            }
            return true;
        }
        switch (m_frames.back())
        {
        case Frame::Top:
            if (m_key == "nodes" && !isObject)
            {
                nodesSeen = true;
                m_frames.push_back(Frame::Nodes);
            }
            else
            {
                Capture(&top[m_key], type);
            }
            break;
        case Frame::Nodes:
            nodes.emplace_back();
            nodes.back().index = m_nodeCount++;
            if (isObject)
            {
                nodes.back().fields = Json::object();
                m_frames.push_back(Frame::Node);
            }
            else
            {
                Capture(&nodes.back().fields, type);
            }
            break;
        case Frame::Node:
            if (m_key == "attrs" && !isObject)
            {
                nodes.back().hasAttrs = true;
                m_frames.push_back(Frame::Attrs);
            }
            else
            {
                Capture(&nodes.back().fields[m_key], type);
            }
            break;
        case Frame::Attrs:
            if (isObject)
            {
                m_attr = PyTorchAttr();
                m_attrHasName = false;
                m_attrHasType = false;
                m_frames.push_back(Frame::Attr);
            }
            else
            {
                SetAttrError("an entry of \"attrs\" is a list, not a {name, type, value} object");
                Capture(&m_ignored, type);
            }
            break;
        case Frame::Attr:
            Capture(m_key == "value" ? &m_attr.value : &m_ignored, type);
            break;
        }
        return true;
    }

    bool End()
    {
        if (!m_stack.empty())
        {
            m_stack.pop_back();
            return true;
        }
        if (m_frames.empty())
        {
            return true;
        }
        Frame frame = m_frames.back();
        m_frames.pop_back();
        if (frame == Frame::Node && sink && sink(nodes.back()))
        {
            nodes.pop_back();
        }
        if (frame == Frame::Attr)
        {
            if (!m_attrHasName)
            {
                SetAttrError("an entry of \"attrs\" has no \"name\"");
            }
            else
            {
                if (!m_attrHasType)
                {
                    m_attr.type = "";
                }
                nodes.back().attrs.push_back(std::move(m_attr));
            }
        }
        return true;
    }

    void SetAttrError(const std::string& what)
    {
        if (nodes.back().attrError.empty())
        {
            nodes.back().attrError = what;
        }
    }

    std::vector<Frame> m_frames;  //!< where the reader is
    std::vector<Json*> m_stack;   //!< open containers of the value being captured
    Json* m_slot{nullptr};        //!< the object member the next captured value fills
    std::string m_key;            //!< the last key outside a captured value
    PyTorchAttr m_attr;           //!< the attribute being read
    bool m_attrHasName{false};    //!< it has a name
    bool m_attrHasType{false};    //!< it has a type
    Json m_ignored;               //!< values nobody needs
    std::size_t m_nodeCount{0};   //!< node objects started
};

} // namespace

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
PyTorchNode::FindAttr(const std::string& attrName) const
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

PyTorchTrace
PyTorchTrace::Parse(const std::string& text, const std::string& path)
{
    PyTorchTrace trace;
    trace.m_path = path;
    TraceSax sax;
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
            throw TraceError(path, "", "unsupported schema \"" + trace.m_schema +
                                           "\" (supported: 1.0.1 and 1.x-chakra.*)");
        }
        trace.m_legacy = trace.m_schema.find("-chakra") == std::string::npos;
        schemaKnown = true;
        return true;
    };
    auto readNode = [&](RawNode& raw) {
        trace.m_nodes.push_back(NodeParser(path, raw.fields, raw.index, trace.m_legacy,
                                           raw.hasAttrs ? &raw.attrs : nullptr, raw.attrError)
                                    .Parse());
    };
    sax.sink = [&](RawNode& raw) {
        if (!schemaKnown && !readSchema())
        {
            return false;
        }
        readNode(raw);
        return true;
    };
    CheckJsonDepth(text, path); // nested values are copied and dumped recursively
    Json::sax_parse(text, &sax);
    if (!sax.error.empty())
    {
        throw TraceError(path, "byte " + std::to_string(sax.errorByte),
                         "malformed JSON: " + sax.error);
    }
    if (!sax.topIsObject)
    {
        throw TraceError(path, "", "not a PyTorch execution trace (the top level is not an object)");
    }
    if (!schemaKnown && !readSchema())
    {
        throw TraceError(path, "", "missing \"schema\" string (not a PyTorch execution trace?)");
    }
    Json& document = sax.top;
    auto link = document.find("trace_link");
    if (link != document.end() && !link->is_null())
    {
        if (!link->is_object())
        {
            throw TraceError(path, "trace_link", "is not an object");
        }
        trace.m_link.present = true;
        auto readInt = [&](const char* key) -> std::optional<int64_t> {
            auto it = link->find(key);
            if (it == link->end() || it->is_null())
            {
                return std::nullopt;
            }
            if (!it->is_number_integer())
            {
                throw TraceError(path, std::string("trace_link.") + key, "is not an integer");
            }
            return it->get<int64_t>();
        };
        trace.m_link.rank = readInt("rank");
        trace.m_link.worldSize = readInt("world_size");
        auto backend = link->find("backend");
        if (backend != link->end() && backend->is_string())
        {
            trace.m_link.backend = backend->get<std::string>();
        }
        // The GPU this rank ran on: the first entry of Kineto's deviceProperties that names
        // one (every GPU of a node is listed; a job uses one kind).
        auto properties = link->find("device_properties");
        if (properties != link->end() && properties->is_array())
        {
            for (const Json& device : *properties)
            {
                auto name = device.is_object() ? device.find("name") : device.end();
                if (device.is_object() && name != device.end() && name->is_string() &&
                    !name->get<std::string>().empty())
                {
                    trace.m_link.gpuName = name->get<std::string>();
                    break;
                }
            }
        }
        if (trace.m_link.rank && *trace.m_link.rank < 0)
        {
            throw TraceError(path, "trace_link.rank", "is negative");
        }
        if (trace.m_link.worldSize &&
            (*trace.m_link.worldSize <= 0 ||
             (trace.m_link.rank && *trace.m_link.rank >= *trace.m_link.worldSize)))
        {
            throw TraceError(path, "trace_link.world_size", "is not a positive number above rank");
        }
    }

    if (!sax.nodesSeen)
    {
        throw TraceError(path, "", "missing \"nodes\" array");
    }
    for (RawNode& raw : sax.nodes)
    {
        readNode(raw);
        raw = RawNode();
    }
    trace.BuildTree();
    return trace;
}

void
PyTorchTrace::BuildTree()
{
    std::stable_sort(m_nodes.begin(), m_nodes.end(), [](const auto& a, const auto& b) {
        return a.id < b.id;
    });
    for (std::size_t i = 1; i < m_nodes.size(); ++i)
    {
        if (m_nodes[i].id == m_nodes[i - 1].id)
        {
            throw TraceError(m_path, m_nodes[i].Describe(),
                             "duplicate node id (also " + m_nodes[i - 1].Describe() + ")");
        }
    }
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
    if (m_preorder.size() == n)
    {
        return;
    }
    // Some nodes are not under any root: their parent links loop. Name the loop.
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
    auto it = std::lower_bound(m_nodes.begin(), m_nodes.end(), id, [](const auto& node, uint64_t v) {
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
