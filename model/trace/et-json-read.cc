/*
 * The JSON -> .et direction of et-json.h: JSON values checked into protobuf values,
 * attributes, nodes and the metadata, and a JSON document streamed into a .et file.
 */
#include "et-json-format.h"
#include "et-json.h"
#include "et-writer.h"
#include "json-limits.h"
#include "trace-error.h"
#include "trace-file.h"

#include <algorithm>
#include <cmath>
#include <google/protobuf/unknown_field_set.h>
#include <istream>
#include <limits>
#include <optional>
#include <vector>

namespace ns3
{

using ChakraProtoMsg::AttributeProto;
using google::protobuf::FieldDescriptor;
using google::protobuf::Message;
using google::protobuf::Reflection;

namespace
{

// ----- JSON -> protobuf values ----------------------------------------------------------------

[[noreturn]] void
Fail(const std::string& where, const std::string& what)
{
    throw TraceError("", where, what);
}

template <typename T>
T
IntegerFromJson(const EtJson& json, const std::string& where, const char* type)
{
    auto outOfRange = [&]() -> T {
        Fail(where, "value " + json.dump() + " does not fit in " + type);
    };
    if (json.is_number_unsigned())
    {
        auto v = json.get<uint64_t>();
        if (v > static_cast<uint64_t>(std::numeric_limits<T>::max()))
        {
            return outOfRange();
        }
        return static_cast<T>(v);
    }
    if (json.is_number_integer())
    {
        auto v = json.get<int64_t>();
        if ((std::numeric_limits<T>::is_signed &&
             v < static_cast<int64_t>(std::numeric_limits<T>::min())) ||
            (!std::numeric_limits<T>::is_signed && v < 0) ||
            (v > 0 &&
             static_cast<uint64_t>(v) > static_cast<uint64_t>(std::numeric_limits<T>::max())))
        {
            return outOfRange();
        }
        return static_cast<T>(v);
    }
    Fail(where, std::string("expected an integer (") + type + "), found " + json.dump());
}

double
FloatingFromJson(const EtJson& json, const std::string& where)
{
    if (json.is_number())
    {
        return json.get<double>();
    }
    if (json.is_string())
    {
        const auto& text = json.get_ref<const std::string&>();
        if (text == "nan")
        {
            return std::numeric_limits<double>::quiet_NaN();
        }
        if (text == "inf" || text == "+inf")
        {
            return std::numeric_limits<double>::infinity();
        }
        if (text == "-inf")
        {
            return -std::numeric_limits<double>::infinity();
        }
    }
    Fail(where, "expected a number, found " + json.dump());
}

std::string
StringFromJson(const EtJson& json, const std::string& where, bool bytes)
{
    if (!json.is_string())
    {
        Fail(where, "expected a string, found " + json.dump());
    }
    if (!bytes)
    {
        return json.get<std::string>();
    }
    std::optional<std::string> decoded = DecodeBase64(json.get_ref<const std::string&>());
    if (!decoded)
    {
        Fail(where, "bytes value is not valid base64");
    }
    return *decoded;
}

/** Sets field \p f of \p m (appends if repeated) from \p json. */
void
FieldValueFromJson(Message& m,
                   const FieldDescriptor* f,
                   const EtJson& json,
                   const std::string& where)
{
    const Reflection* r = m.GetReflection();
    bool repeated = f->is_repeated();
    switch (f->cpp_type())
    {
    case FieldDescriptor::CPPTYPE_INT32: {
        auto v = IntegerFromJson<int32_t>(json, where, "int32");
        repeated ? r->AddInt32(&m, f, v) : r->SetInt32(&m, f, v);
        return;
    }
    case FieldDescriptor::CPPTYPE_INT64: {
        auto v = IntegerFromJson<int64_t>(json, where, "int64");
        repeated ? r->AddInt64(&m, f, v) : r->SetInt64(&m, f, v);
        return;
    }
    case FieldDescriptor::CPPTYPE_UINT32: {
        auto v = IntegerFromJson<uint32_t>(json, where, "uint32");
        repeated ? r->AddUInt32(&m, f, v) : r->SetUInt32(&m, f, v);
        return;
    }
    case FieldDescriptor::CPPTYPE_UINT64: {
        auto v = IntegerFromJson<uint64_t>(json, where, "uint64");
        repeated ? r->AddUInt64(&m, f, v) : r->SetUInt64(&m, f, v);
        return;
    }
    case FieldDescriptor::CPPTYPE_DOUBLE: {
        double v = FloatingFromJson(json, where);
        repeated ? r->AddDouble(&m, f, v) : r->SetDouble(&m, f, v);
        return;
    }
    case FieldDescriptor::CPPTYPE_FLOAT: {
        auto v = static_cast<float>(FloatingFromJson(json, where));
        repeated ? r->AddFloat(&m, f, v) : r->SetFloat(&m, f, v);
        return;
    }
    case FieldDescriptor::CPPTYPE_BOOL: {
        if (!json.is_boolean())
        {
            Fail(where, "expected true or false, found " + json.dump());
        }
        bool v = json.get<bool>();
        repeated ? r->AddBool(&m, f, v) : r->SetBool(&m, f, v);
        return;
    }
    case FieldDescriptor::CPPTYPE_STRING: {
        std::string v = StringFromJson(json, where, f->type() == FieldDescriptor::TYPE_BYTES);
        repeated ? r->AddString(&m, f, std::move(v)) : r->SetString(&m, f, std::move(v));
        return;
    }
    default:
        Fail(where, "internal error: unsupported field type");
    }
}

void
MergeUnknownFields(Message& message,
                   const EtJson& json,
                   const std::string& where,
                   const std::string& key = "unknown_fields")
{
    auto it = json.find(key);
    if (it == json.end())
    {
        return;
    }
    std::string bytes = StringFromJson(*it, where + ": " + key, true);
    google::protobuf::UnknownFieldSet unknown;
    if (!unknown.ParseFromArray(bytes.data(), static_cast<int>(bytes.size())))
    {
        Fail(where, key + " is not valid protobuf wire data");
    }
    message.GetReflection()->MutableUnknownFields(&message)->MergeFrom(unknown);
}

/** Throws if \p json has a key outside \p allowed (catches typos in hand-written traces). */
void
CheckKeys(const EtJson& json, const std::vector<std::string>& allowed, const std::string& where)
{
    if (!json.is_object())
    {
        Fail(where, "expected a JSON object, found " + std::string(json.type_name()));
    }
    for (const auto& item : json.items())
    {
        bool known = false;
        for (const auto& key : allowed)
        {
            known = known || item.key() == key;
        }
        if (!known)
        {
            std::string list;
            for (const auto& key : allowed)
            {
                list += (list.empty() ? "" : ", ") + key;
            }
            Fail(where, "unknown key '" + item.key() + "' (allowed: " + list + ")");
        }
    }
}

AttributeProto
AttributeFromJson(const EtJson& json, const std::string& outerWhere)
{
    CheckKeys(json,
              {"name", "doc_string", "type", "value", "unknown_fields", "list_unknown_fields"},
              outerWhere);
    AttributeProto attribute;
    if (!json.contains("name") || !json["name"].is_string())
    {
        Fail(outerWhere, "attribute without a string 'name'");
    }
    attribute.set_name(json["name"].get<std::string>());
    std::string where = outerWhere + ": attribute '" + attribute.name() + "'";
    if (json.contains("doc_string"))
    {
        attribute.set_doc_string(StringFromJson(json["doc_string"], where, false));
    }
    if (!json.contains("type") || !json["type"].is_string())
    {
        Fail(where, "missing 'type' (int64_val, string_val, bool_val, uint64_list, ...)");
    }
    std::string type = json["type"].get<std::string>();
    if (type != "unset")
    {
        // "int64" is accepted for "int64_val" in hand-written files.
        const auto* descriptor = AttributeProto::descriptor();
        const FieldDescriptor* f = descriptor->FindFieldByName(type);
        if (f == nullptr)
        {
            f = descriptor->FindFieldByName(type + "_val");
        }
        if (f == nullptr || f->containing_oneof() == nullptr)
        {
            Fail(where, "unknown attribute type '" + type + "'");
        }
        if (!json.contains("value"))
        {
            Fail(where, "missing 'value'");
        }
        const EtJson& value = json["value"];
        if (f->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE)
        {
            if (!value.is_array())
            {
                Fail(where, "a " + type + " value must be a JSON array");
            }
            Message* list = attribute.GetReflection()->MutableMessage(&attribute, f);
            const FieldDescriptor* values = list->GetDescriptor()->FindFieldByNumber(1);
            for (const auto& element : value)
            {
                FieldValueFromJson(*list, values, element, where);
            }
            MergeUnknownFields(*list, json, where, "list_unknown_fields");
        }
        else
        {
            FieldValueFromJson(attribute, f, value, where);
        }
    }
    if (json.contains("list_unknown_fields") &&
        (attribute.value_case() == AttributeProto::VALUE_NOT_SET ||
         AttributeProto::descriptor()
                 ->FindFieldByNumber(static_cast<int>(attribute.value_case()))
                 ->cpp_type() != FieldDescriptor::CPPTYPE_MESSAGE))
    {
        Fail(where, "list_unknown_fields belongs to a list type");
    }
    MergeUnknownFields(attribute, json, where);
    return attribute;
}

void
AttributesFromJson(const EtJson& json,
                   google::protobuf::RepeatedPtrField<AttributeProto>& out,
                   const std::string& where)
{
    if (!json.is_array())
    {
        Fail(where, "'attr' must be an array");
    }
    for (const auto& element : json)
    {
        *out.Add() = AttributeFromJson(element, where);
    }
}

void
IoInfoFromJson(const EtJson& json, ChakraProtoMsg::IOInfo& info, const std::string& where)
{
    CheckKeys(json, {"values", "shapes", "types", "unknown_fields"}, where);
    if (json.contains("values"))
    {
        info.set_values(StringFromJson(json["values"], where + ": values", false));
    }
    if (json.contains("shapes"))
    {
        info.set_shapes(StringFromJson(json["shapes"], where + ": shapes", false));
    }
    if (json.contains("types"))
    {
        info.set_types(StringFromJson(json["types"], where + ": types", false));
    }
    MergeUnknownFields(info, json, where);
}

template <typename Field>
void
IdsFromJson(const EtJson& json, Field& out, const std::string& where)
{
    if (!json.is_array())
    {
        Fail(where, "must be an array of node ids");
    }
    for (const auto& element : json)
    {
        out.Add(IntegerFromJson<uint64_t>(element, where, "uint64 node id"));
    }
}

} // namespace

ChakraProtoMsg::Node
NodeFromJson(const EtJson& json, const std::string& where)
{
    CheckKeys(json,
              {"id",
               "name",
               "type",
               "ctrl_deps",
               "data_deps",
               "start_time_micros",
               "duration_micros",
               "inputs",
               "outputs",
               "attr",
               "unknown_fields"},
              where);
    ChakraProtoMsg::Node node;
    if (!json.contains("id"))
    {
        Fail(where, "node without 'id'");
    }
    node.set_id(IntegerFromJson<uint64_t>(json["id"], where + ": id", "uint64"));
    std::string at = "node " + std::to_string(node.id());
    if (json.contains("name"))
    {
        node.set_name(StringFromJson(json["name"], at + ": name", false));
    }
    if (json.contains("type"))
    {
        const EtJson& type = json["type"];
        ChakraProtoMsg::NodeType value = ChakraProtoMsg::INVALID_NODE;
        if (type.is_string())
        {
            if (!ChakraProtoMsg::NodeType_Parse(type.get<std::string>(), &value))
            {
                Fail(at,
                     "unknown node type " + type.dump() +
                         " (COMP_NODE, COMM_COLL_NODE, COMM_SEND_NODE, COMM_RECV_NODE, "
                         "METADATA_NODE, ...)");
            }
        }
        else
        {
            value = static_cast<ChakraProtoMsg::NodeType>(
                IntegerFromJson<int32_t>(type, at + ": type", "enum"));
        }
        node.set_type(value);
    }
    if (json.contains("ctrl_deps"))
    {
        IdsFromJson(json["ctrl_deps"], *node.mutable_ctrl_deps(), at + ": ctrl_deps");
    }
    if (json.contains("data_deps"))
    {
        IdsFromJson(json["data_deps"], *node.mutable_data_deps(), at + ": data_deps");
    }
    if (json.contains("start_time_micros"))
    {
        node.set_start_time_micros(IntegerFromJson<uint64_t>(json["start_time_micros"],
                                                             at + ": start_time_micros",
                                                             "uint64"));
    }
    if (json.contains("duration_micros"))
    {
        node.set_duration_micros(
            IntegerFromJson<uint64_t>(json["duration_micros"], at + ": duration_micros", "uint64"));
    }
    if (json.contains("inputs"))
    {
        IoInfoFromJson(json["inputs"], *node.mutable_inputs(), at + ": inputs");
    }
    if (json.contains("outputs"))
    {
        IoInfoFromJson(json["outputs"], *node.mutable_outputs(), at + ": outputs");
    }
    if (json.contains("attr"))
    {
        AttributesFromJson(json["attr"], *node.mutable_attr(), at);
    }
    MergeUnknownFields(node, json, at);
    return node;
}

ChakraProtoMsg::GlobalMetadata
MetadataFromJson(const EtJson& json)
{
    const std::string where = "metadata";
    CheckKeys(json, {"version", "attr", "unknown_fields"}, where);
    ChakraProtoMsg::GlobalMetadata metadata;
    if (json.contains("version"))
    {
        metadata.set_version(StringFromJson(json["version"], where + ": version", false));
    }
    if (json.contains("attr"))
    {
        AttributesFromJson(json["attr"], *metadata.mutable_attr(), where);
    }
    MergeUnknownFields(metadata, json, where);
    return metadata;
}

namespace
{

/**
 * One JSON document streamed into a .et: the parser's callback (OnEvent) converts and writes
 * each node as the parser completes it, so memory does not grow with the trace. Nodes that
 * come before "metadata" (hand-written files) wait.
 */
class JsonToEtStream
{
  public:
    /** \param etPath the .et file to create */
    explicit JsonToEtStream(const std::string& etPath)
        : m_etPath(etPath)
    {
    }

    /**
     * The parser's callback.
     * \return whether the parser keeps \p parsed (a node or the metadata is consumed here)
     */
    bool OnEvent(int depth, EtJson::parse_event_t event, EtJson& parsed);

    /**
     * Commits the .et.
     * \param jsonPath the JSON file, for the error
     * \return the number of nodes
     * \throws TraceError if the document had no metadata
     */
    uint64_t Finish(const std::string& jsonPath);

  private:
    using Event = EtJson::parse_event_t;

    /** \return the position of the current node for errors ("node #3") */
    std::string Where() const;
    /** Checks a key of the top-level object: known, and not seen before. */
    void OnTopLevelKey(const EtJson& parsed);
    /** Checks the value of the current top-level key: its JSON type, format and version. */
    void CheckTopLevelValue(Event event, const EtJson& parsed) const;
    /** Opens the .et with the metadata, and writes the nodes that came before it. */
    void OnMetadata(const EtJson& parsed);
    /** Converts and writes (or keeps, before the metadata) one entry of "nodes". */
    void OnNode(const EtJson& parsed);

    const std::string& m_etPath;               //!< the .et to create
    std::optional<EtWriter> m_writer;          //!< open once the metadata is read
    std::vector<ChakraProtoMsg::Node> m_early; //!< nodes read before the metadata
    std::string m_topKey;                      //!< the current top-level key
    std::vector<std::string> m_topKeys;        //!< seen so far: a repeated one is an error
    uint64_t m_nodeIndex{0};                   //!< entries of "nodes" so far
};

std::string
JsonToEtStream::Where() const
{
    return "node #" + std::to_string(m_nodeIndex);
}

void
JsonToEtStream::OnTopLevelKey(const EtJson& parsed)
{
    m_topKey = parsed.get<std::string>();
    static const std::vector<std::string> known = {"format", "format_version", "metadata", "nodes"};
    if (std::find(known.begin(), known.end(), m_topKey) == known.end())
    {
        Fail("top level",
             "unknown key '" + m_topKey + "' (allowed: format, format_version, metadata, nodes)");
    }
    // Streamed as they come, a second "metadata" or "nodes" would silently restart or
    // extend the output.
    if (std::find(m_topKeys.begin(), m_topKeys.end(), m_topKey) != m_topKeys.end())
    {
        Fail("top level", "key '" + m_topKey + "' appears twice");
    }
    m_topKeys.push_back(m_topKey);
}

void
JsonToEtStream::CheckTopLevelValue(Event event, const EtJson& parsed) const
{
    const bool startsValue =
        event == Event::object_start || event == Event::array_start || event == Event::value;
    if (startsValue && m_topKey == "nodes" && event != Event::array_start)
    {
        Fail("top level", "'nodes' must be an array of node objects");
    }
    if (startsValue && m_topKey == "metadata" && event != Event::object_start)
    {
        Fail("top level", "'metadata' must be an object");
    }
    if (event == Event::value && m_topKey == "format" && parsed != kEtJsonFormatName)
    {
        Fail("top level",
             "format is " + parsed.dump() + ", expected \"" + kEtJsonFormatName + "\"");
    }
    if (event == Event::value && m_topKey == "format_version" && parsed != kEtJsonFormatVersion)
    {
        Fail("top level",
             "format_version is " + parsed.dump() + ", this reader knows " +
                 std::to_string(kEtJsonFormatVersion));
    }
}

void
JsonToEtStream::OnMetadata(const EtJson& parsed)
{
    m_writer.emplace(m_etPath, MetadataFromJson(parsed));
    for (const auto& node : m_early)
    {
        m_writer->WriteNode(node);
    }
    m_early.clear();
}

void
JsonToEtStream::OnNode(const EtJson& parsed)
{
    ++m_nodeIndex;
    if (!parsed.is_object())
    {
        Fail(Where(), "each entry of 'nodes' must be an object");
    }
    ChakraProtoMsg::Node node = NodeFromJson(parsed, Where());
    if (m_writer)
    {
        m_writer->WriteNode(node);
    }
    else
    {
        m_early.push_back(std::move(node));
    }
}

bool
JsonToEtStream::OnEvent(int depth, Event event, EtJson& parsed)
{
    if (depth == 0 && (event == Event::array_start || event == Event::value))
    {
        Fail("top level", "expected a JSON object with \"metadata\" and \"nodes\"");
    }
    if (depth == 1 && event == Event::key)
    {
        OnTopLevelKey(parsed);
        return true;
    }
    if (depth == 1)
    {
        CheckTopLevelValue(event, parsed);
    }
    if (depth == 1 && event == Event::object_end && m_topKey == "metadata")
    {
        OnMetadata(parsed);
        return false;
    }
    if (depth == 2 && m_topKey == "nodes" && event == Event::array_start)
    {
        ++m_nodeIndex;
        Fail(Where(), "each entry of 'nodes' must be an object");
    }
    if (depth == 2 && m_topKey == "nodes" && (event == Event::object_end || event == Event::value))
    {
        OnNode(parsed);
        return false;
    }
    return true;
}

uint64_t
JsonToEtStream::Finish(const std::string& jsonPath)
{
    if (!m_writer)
    {
        throw TraceError(jsonPath, "", "missing \"metadata\" object (every .et starts with one)");
    }
    m_writer->Commit();
    return m_nodeIndex;
}

} // namespace

uint64_t
ConvertJsonToEt(const std::string& jsonPath, const std::string& etPath)
{
    InputFileStreamBuf buffer(jsonPath);
    std::istream stream(&buffer);
    JsonToEtStream converter(etPath);
    try
    {
        // Everything is handled in the callback; what remains is the empty skeleton.
        EtJson skeleton =
            EtJson::parse(stream,
                          [&converter](int depth, EtJson::parse_event_t event, EtJson& parsed) {
                              return converter.OnEvent(depth, event, parsed);
                          });
    }
    catch (const EtJson::exception& e)
    {
        // Syntax errors, and numbers too large for a double (1e9999).
        ThrowJsonError(e, jsonPath, buffer.GetConsumed());
    }
    catch (const TraceError& e)
    {
        if (!e.GetFile().empty())
        {
            throw;
        }
        throw TraceError(jsonPath, "", e.what());
    }
    return converter.Finish(jsonPath);
}

} // namespace ns3
