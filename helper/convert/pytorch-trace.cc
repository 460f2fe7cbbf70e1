#include "pytorch-trace.h"

#include "json-event-reader.h"

#include "ns3/trace-error.h"
#include "ns3/trace-file.h"

#include <algorithm>
#include <array>
#include <functional>
#include <limits>
#include <regex>
#include <string_view>

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

/**
 * Reads the events of one JSON value into compact JSON text, as nlohmann/json's dump(-1) would
 * write it, without building the value: the inputs and outputs of every node are most of a
 * trace's values and are only passed through as text. Objects inside are the exception: dump
 * sorts their keys and keeps the last of repeated ones, so they are built as JSON and dumped.
 */
class CompactWriter
{
  public:
    /** Starts writing into \p target (cleared). */
    void Begin(std::string* target)
    {
        m_target = target;
        m_target->clear();
        m_depth = 0;
        m_needComma = false;
    }

    /** \return the JSON an object inside is built into */
    Json& ObjectSlot()
    {
        Separate();
        return m_object;
    }

    /** Writes the object built into ObjectSlot(). */
    void EndObject()
    {
        m_target->append(DumpCompact(m_object));
        m_object = Json();
        m_needComma = true;
    }

    void StartArray()
    {
        Separate();
        m_target->push_back('[');
        ++m_depth;
        m_needComma = false;
    }

    /** \return true if the outermost array ended */
    bool EndArray()
    {
        m_target->push_back(']');
        m_needComma = true;
        return --m_depth == 0;
    }

    void Literal(const char* text)
    {
        Separate();
        m_target->append(text);
        m_needComma = true;
    }

    void Integer(int64_t value)
    {
        Separate();
        m_target->append(std::to_string(value));
        m_needComma = true;
    }

    void Unsigned(uint64_t value)
    {
        Separate();
        m_target->append(std::to_string(value));
        m_needComma = true;
    }

    void Float(double value)
    {
        Separate();
        m_target->append(Json(value).dump()); // nlohmann's shortest round-trip form
        m_needComma = true;
    }

    void String(const std::string& value, bool escaped)
    {
        Separate();
        if (escaped)
        {
            m_target->append(DumpCompact(Json(value)));
        }
        else
        {
            // Unescaped JSON string text holds no quote, backslash or control character, and
            // the reader checked its UTF-8: dump would write it back byte for byte.
            m_target->push_back('"');
            m_target->append(value);
            m_target->push_back('"');
        }
        m_needComma = true;
    }

  private:
    void Separate()
    {
        if (m_needComma)
        {
            m_target->push_back(',');
        }
    }

    std::string* m_target{nullptr};
    uint32_t m_depth{0};     //!< open arrays
    bool m_needComma{false}; //!< a value was written at this level
    Json m_object;           //!< an object being built
};

/**
 * A node's io field as read: "inputs" or "outputs" ({values, shapes, types} objects of the
 * chakra schemas) or, in 1.0.1, one of "inputs", "input_shapes", ... (arrays).
 */
struct RawIo
{
    /** What the field held. */
    enum Kind
    {
        ABSENT, //!< no such field, or null
        ARRAY,  //!< an array: in text
        OBJECT, //!< an object: its three arrays in io
        OTHER,  //!< anything else
    };

    Kind kind{ABSENT};
    std::string text;               //!< ARRAY: compact JSON
    PyTorchIo io;                   //!< OBJECT: values, shapes, types
    std::array<bool, 3> notArray{}; //!< OBJECT: which of the three is neither array nor null
};

/** The io field names, in the order of RawNode::io. */
constexpr std::array<std::string_view, 6> kIoKeys{"inputs",
                                                  "outputs",
                                                  "input_shapes",
                                                  "input_types",
                                                  "output_shapes",
                                                  "output_types"};
/** The members of a {values, shapes, types} object, in the order NodeParser checks them. */
constexpr std::array<std::string_view, 3> kIoMembers{"values", "shapes", "types"};
/** The fields of an "attrs" entry. */
constexpr std::array<std::string_view, 3> kAttrFields{"name", "type", "value"};

/**
 * \return the index of \p key in \p names, or -1 (string_view comparisons: the lengths first,
 *         no strlen; this runs for every key of every node)
 */
template <std::size_t N>
int
IndexOf(const std::array<std::string_view, N>& names, std::string_view key)
{
    for (std::size_t i = 0; i < N; ++i)
    {
        if (key == names[i])
        {
            return static_cast<int>(i);
        }
    }
    return -1;
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
     * \param io the io fields, read by the SAX reader (kIoKeys order; moved from)
     */
    NodeParser(const std::string& path,
               Json& json,
               std::size_t index,
               bool legacy,
               std::vector<PyTorchAttr>* attrs,
               const std::string& attrError,
               std::array<RawIo, kIoKeys.size()>& io)
        : m_path(path),
          m_json(json),
          m_legacy(legacy),
          m_where("node #" + std::to_string(index)),
          m_attrs(attrs),
          m_attrError(attrError),
          m_io(io)
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
            node.dur =
                node.dur ? node.dur : (node.inclusiveDur ? node.inclusiveDur : node.exclusiveDur);
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

    const Json* Find(std::string_view key) const
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

    /** 1.0.1: the io field kIoKeys[index] must be an array (or absent). */
    void TakeArray(std::size_t index, std::string& out)
    {
        RawIo& raw = m_io[index];
        if (raw.kind == RawIo::ABSENT)
        {
            return;
        }
        if (raw.kind != RawIo::ARRAY)
        {
            Fail("field \"" + std::string(kIoKeys[index]) + "\" is not an array");
        }
        out = std::move(raw.text);
    }

    /** Chakra schemas: the io field kIoKeys[index] must be a {values, shapes, types} object. */
    void TakeIo(std::size_t index, PyTorchIo& io)
    {
        RawIo& raw = m_io[index];
        if (raw.kind == RawIo::ABSENT)
        {
            return;
        }
        if (raw.kind != RawIo::OBJECT)
        {
            Fail("field \"" + std::string(kIoKeys[index]) +
                 "\" is not a {values, shapes, types} object");
        }
        for (std::size_t member = 0; member < kIoMembers.size(); ++member)
        {
            if (raw.notArray[member])
            {
                Fail("field \"" + std::string(kIoKeys[index]) + "." +
                     std::string(kIoMembers[member]) + "\" is not an array");
            }
        }
        io = std::move(raw.io);
    }

    void ParseIo(PyTorchNode& node)
    {
        // kIoKeys: inputs, outputs, input_shapes, input_types, output_shapes, output_types.
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
    std::array<RawIo, kIoKeys.size()>& m_io;
};

/** A node object as the SAX reader collects it: its fields, attribute list and io apart. */
struct RawNode
{
    Json fields;                          //!< every field but a well-formed "attrs" list and the io
    std::vector<PyTorchAttr> attrs;       //!< the "attrs" list, when it is an array
    bool hasAttrs{false};                 //!< true if "attrs" was an array
    std::string attrError;                //!< why an entry of "attrs" is malformed
    std::array<RawIo, kIoKeys.size()> io; //!< the io fields, as kIoKeys names them
    std::size_t index{0};                 //!< position in the "nodes" array
};

/**
 * SAX handler reading a trace without building a DOM for the "attrs" entries, which are most
 * of a chakra-schema trace ({name, type, value} objects would each cost a std::map), nor for
 * the inputs and outputs, kept as the compact text the converter writes. Every other value is
 * built as JSON, as nlohmann's own DOM parser does.
 */
class TraceSax : public JsonEventHandler
{
  public:
    Json top = Json::object();  //!< top-level fields other than "nodes"
    bool topIsObject{false};    //!< the document is an object
    bool nodesSeen{false};      //!< "nodes" was an array
    std::vector<RawNode> nodes; //!< nodes not handed to the sink (yet)
    /** Receives each node object when it ends; returns false to keep it in "nodes" (the
     *  schema is not known yet). */
    std::function<bool(RawNode&)> sink;

    bool Null() override
    {
        if (m_frames.empty() || m_frames.back() != Frame::Compact || !m_stack.empty())
        {
            return Value(Json());
        }
        m_compact.Literal("null");
        return true;
    }

    bool Boolean(bool value) override
    {
        if (m_frames.empty() || m_frames.back() != Frame::Compact || !m_stack.empty())
        {
            return Value(Json(value));
        }
        m_compact.Literal(value ? "true" : "false");
        return true;
    }

    bool Integer(int64_t value) override
    {
        if (m_frames.empty() || m_frames.back() != Frame::Compact || !m_stack.empty())
        {
            return Value(Json(value));
        }
        m_compact.Integer(value);
        return true;
    }

    bool Unsigned(uint64_t value) override
    {
        if (m_frames.empty() || m_frames.back() != Frame::Compact || !m_stack.empty())
        {
            return Value(Json(value));
        }
        m_compact.Unsigned(value);
        return true;
    }

    bool Float(double value) override
    {
        if (m_frames.empty() || m_frames.back() != Frame::Compact || !m_stack.empty())
        {
            return Value(Json(value));
        }
        m_compact.Float(value);
        return true;
    }

    bool String(std::string& value, bool escaped) override
    {
        if (m_frames.empty() || !m_stack.empty())
        {
            return Value(Json(std::move(value)));
        }
        if (m_frames.back() == Frame::Compact)
        {
            m_compact.String(value, escaped);
            return true;
        }
        if (m_frames.back() == Frame::Attr &&
            (m_attrField == kAttrName || m_attrField == kAttrType))
        {
            SetAttrText(value); // without a JSON value in between: two per attribute
            return true;
        }
        return Value(Json(std::move(value)));
    }

    bool Key(std::string& name) override
    {
        if (!m_stack.empty())
        {
            m_slot = &(*m_stack.back())[name];
            return true;
        }
        if (!m_frames.empty())
        {
            if (m_frames.back() == Frame::Node)
            {
                m_io = IndexOf(kIoKeys, name);
            }
            else if (m_frames.back() == Frame::Io)
            {
                m_member = IndexOf(kIoMembers, name);
            }
            else if (m_frames.back() == Frame::Attr)
            {
                m_attrField = IndexOf(kAttrFields, name);
            }
        }
        m_key = std::move(name);
        return true;
    }

    bool StartObject() override
    {
        return Start(Json::value_t::object);
    }

    bool StartArray() override
    {
        return Start(Json::value_t::array);
    }

    bool EndObject() override
    {
        return End();
    }

    bool EndArray() override
    {
        return End();
    }

  private:
    /** Where the reader is, outside a value being captured as JSON. */
    enum class Frame
    {
        Top,     //!< in the top-level object
        Nodes,   //!< in the "nodes" array
        Node,    //!< in a node object
        Attrs,   //!< in a node's "attrs" array
        Attr,    //!< in one {name, type, value} entry
        Io,      //!< in a node's {values, shapes, types} object
        Compact, //!< in an io array, written as compact text
    };

    /** Begins capturing a JSON value into \p target. */
    void Capture(Json* target, Json::value_t type)
    {
        *target = Json(type);
        m_stack.push_back(target);
    }

    /** \return the io field the current key of a node names */
    RawIo& CurrentIo()
    {
        return nodes.back().io[static_cast<std::size_t>(m_io)];
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
            if (m_io >= 0)
            {
                // A repeated key replaces the earlier value, as in a JSON object.
                CurrentIo() = RawIo();
                CurrentIo().kind = value.is_null() ? RawIo::ABSENT : RawIo::OTHER;
            }
            else
            {
                nodes.back().fields[m_key] = std::move(value);
            }
            break;
        case Frame::Io:
            if (m_member >= 0)
            {
                const auto member = static_cast<std::size_t>(m_member);
                CurrentIo().notArray[member] = !value.is_null();
                MemberOf(CurrentIo().io, member) = "[]";
            }
            break;
        case Frame::Attrs:
            SetAttrError("an entry of \"attrs\" is not a {name, type, value} object: " +
                         value.dump());
            break;
        case Frame::Attr:
            if (m_attrField == kAttrName || m_attrField == kAttrType)
            {
                if (!value.is_string())
                {
                    SetAttrError("an entry of \"attrs\" has a \"" + m_key +
                                 "\" that is not a string: " + value.dump());
                }
                else
                {
                    SetAttrText(value.get_ref<std::string&>());
                }
            }
            else if (m_attrField == kAttrValue)
            {
                m_attr.value = std::move(value);
            }
            break;
        case Frame::Compact:
            break; // (scalars in compact text are written by the callers)
        }
        return true;
    }

    /** Indices in kAttrFields. */
    static constexpr int kAttrName = 0;
    static constexpr int kAttrType = 1;
    static constexpr int kAttrValue = 2;

    /** Sets the attribute's name or type (m_attrField) to \p text (moved from). */
    void SetAttrText(std::string& text)
    {
        (m_attrField == kAttrName ? m_attr.name : m_attr.type) = std::move(text);
        (m_attrField == kAttrName ? m_attrHasName : m_attrHasType) = true;
    }

    /** \return io's values, shapes or types */
    static std::string& MemberOf(PyTorchIo& io, std::size_t member)
    {
        return member == 0 ? io.values : (member == 1 ? io.shapes : io.types);
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
            else if (m_io >= 0)
            {
                RawIo& io = CurrentIo();
                io = RawIo();
                if (isObject)
                {
                    io.kind = RawIo::OBJECT;
                    m_frames.push_back(Frame::Io);
                }
                else
                {
                    io.kind = RawIo::ARRAY;
                    m_compact.Begin(&io.text);
                    m_compact.StartArray();
                    m_frames.push_back(Frame::Compact);
                }
            }
            else
            {
                Capture(&nodes.back().fields[m_key], type);
            }
            break;
        case Frame::Io:
            if (m_member >= 0 && !isObject)
            {
                const auto member = static_cast<std::size_t>(m_member);
                CurrentIo().notArray[member] = false;
                m_compact.Begin(&MemberOf(CurrentIo().io, member));
                m_compact.StartArray();
                m_frames.push_back(Frame::Compact);
            }
            else
            {
                if (m_member >= 0)
                {
                    CurrentIo().notArray[static_cast<std::size_t>(m_member)] = true;
                }
                Capture(&m_ignored, type);
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
            Capture(m_attrField == kAttrValue ? &m_attr.value : &m_ignored, type);
            break;
        case Frame::Compact:
            if (isObject)
            {
                Capture(&m_compact.ObjectSlot(), type);
            }
            else
            {
                m_compact.StartArray();
            }
            break;
        }
        return true;
    }

    bool End()
    {
        if (!m_stack.empty())
        {
            m_stack.pop_back();
            if (m_stack.empty() && !m_frames.empty() && m_frames.back() == Frame::Compact)
            {
                m_compact.EndObject(); // an object inside an io array
            }
            return true;
        }
        if (m_frames.empty())
        {
            return true;
        }
        if (m_frames.back() == Frame::Compact)
        {
            if (m_compact.EndArray())
            {
                m_frames.pop_back();
            }
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

    std::vector<Frame> m_frames; //!< where the reader is
    std::vector<Json*> m_stack;  //!< open containers of the value being captured
    Json* m_slot{nullptr};       //!< the object member the next captured value fills
    std::string m_key;           //!< the last key outside a captured value
    int m_io{-1};                //!< in a node: the io field m_key names (kIoKeys), or -1
    int m_member{-1};            //!< in an io object: the member m_key names, or -1
    int m_attrField{-1};         //!< in an attrs entry: the field m_key names, or -1
    PyTorchAttr m_attr;          //!< the attribute being read
    bool m_attrHasName{false};   //!< it has a name
    bool m_attrHasType{false};   //!< it has a type
    Json m_ignored;              //!< values nobody needs
    CompactWriter m_compact;     //!< writes the io array being read
    std::size_t m_nodeCount{0};  //!< node objects started
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
            throw TraceError(path,
                             "",
                             "unsupported schema \"" + trace.m_schema +
                                 "\" (supported: 1.0.1 and 1.x-chakra.*)");
        }
        trace.m_legacy = trace.m_schema.find("-chakra") == std::string::npos;
        schemaKnown = true;
        return true;
    };
    auto readNode = [&](RawNode& raw) {
        trace.m_nodes.push_back(NodeParser(path,
                                           raw.fields,
                                           raw.index,
                                           trace.m_legacy,
                                           raw.hasAttrs ? &raw.attrs : nullptr,
                                           raw.attrError,
                                           raw.io)
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
    // Sorted by id, equal ids in file order. The order is found on (id, position) pairs and
    // applied in place, cycle by cycle, each node moved once: sorting the nodes themselves
    // moved each some log n times, most of the time of this function on a real trace (ids are
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
