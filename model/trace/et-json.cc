#include "et-json.h"

#include "et-reader.h"
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

constexpr const char* kFormatName = "chakra-et-json";
constexpr int kFormatVersion = 1;

// ----- base64 (bytes values and unknown fields) ---------------------------------------------

constexpr char kBase64Alphabet[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

std::string
EncodeBase64(const std::string& bytes)
{
    std::string out;
    out.reserve((bytes.size() + 2) / 3 * 4);
    std::size_t i = 0;
    for (; i + 2 < bytes.size(); i += 3)
    {
        uint32_t v = (static_cast<uint8_t>(bytes[i]) << 16) |
                     (static_cast<uint8_t>(bytes[i + 1]) << 8) | static_cast<uint8_t>(bytes[i + 2]);
        out += kBase64Alphabet[(v >> 18) & 63];
        out += kBase64Alphabet[(v >> 12) & 63];
        out += kBase64Alphabet[(v >> 6) & 63];
        out += kBase64Alphabet[v & 63];
    }
    std::size_t rest = bytes.size() - i;
    if (rest > 0)
    {
        uint32_t v = static_cast<uint8_t>(bytes[i]) << 16;
        if (rest == 2)
        {
            v |= static_cast<uint8_t>(bytes[i + 1]) << 8;
        }
        out += kBase64Alphabet[(v >> 18) & 63];
        out += kBase64Alphabet[(v >> 12) & 63];
        out += rest == 2 ? kBase64Alphabet[(v >> 6) & 63] : '=';
        out += '=';
    }
    return out;
}

std::optional<std::string>
DecodeBase64(const std::string& text)
{
    std::string out;
    uint32_t accumulator = 0;
    int bits = 0;
    std::size_t padding = 0;
    for (char c : text)
    {
        int v;
        if (c >= 'A' && c <= 'Z')
        {
            v = c - 'A';
        }
        else if (c >= 'a' && c <= 'z')
        {
            v = c - 'a' + 26;
        }
        else if (c >= '0' && c <= '9')
        {
            v = c - '0' + 52;
        }
        else if (c == '+')
        {
            v = 62;
        }
        else if (c == '/')
        {
            v = 63;
        }
        else if (c == '=')
        {
            ++padding;
            continue;
        }
        else
        {
            return std::nullopt;
        }
        if (padding > 0)
        {
            return std::nullopt; // data after padding
        }
        accumulator = (accumulator << 6) | static_cast<uint32_t>(v);
        bits += 6;
        if (bits >= 8)
        {
            bits -= 8;
            out += static_cast<char>((accumulator >> bits) & 0xff);
        }
    }
    if (padding > 2 || (text.size() % 4) != 0)
    {
        return std::nullopt;
    }
    return out;
}

// ----- protobuf values -> JSON ----------------------------------------------------------------

EtJson
FloatingToJson(double value)
{
    if (std::isnan(value))
    {
        return "nan";
    }
    if (std::isinf(value))
    {
        return value > 0 ? "inf" : "-inf";
    }
    return value;
}

/** One value of field \p f of \p m (element \p index if repeated). */
EtJson
FieldValueToJson(const Message& m, const FieldDescriptor* f, int index)
{
    const Reflection* r = m.GetReflection();
    bool repeated = f->is_repeated();
    switch (f->cpp_type())
    {
    case FieldDescriptor::CPPTYPE_INT32:
        return repeated ? r->GetRepeatedInt32(m, f, index) : r->GetInt32(m, f);
    case FieldDescriptor::CPPTYPE_INT64:
        return repeated ? r->GetRepeatedInt64(m, f, index) : r->GetInt64(m, f);
    case FieldDescriptor::CPPTYPE_UINT32:
        return repeated ? r->GetRepeatedUInt32(m, f, index) : r->GetUInt32(m, f);
    case FieldDescriptor::CPPTYPE_UINT64:
        return repeated ? r->GetRepeatedUInt64(m, f, index) : r->GetUInt64(m, f);
    case FieldDescriptor::CPPTYPE_DOUBLE:
        return FloatingToJson(repeated ? r->GetRepeatedDouble(m, f, index) : r->GetDouble(m, f));
    case FieldDescriptor::CPPTYPE_FLOAT:
        return FloatingToJson(repeated ? r->GetRepeatedFloat(m, f, index) : r->GetFloat(m, f));
    case FieldDescriptor::CPPTYPE_BOOL:
        return repeated ? r->GetRepeatedBool(m, f, index) : r->GetBool(m, f);
    case FieldDescriptor::CPPTYPE_STRING: {
        std::string value = repeated ? r->GetRepeatedString(m, f, index) : r->GetString(m, f);
        return f->type() == FieldDescriptor::TYPE_BYTES ? EtJson(EncodeBase64(value))
                                                        : EtJson(value);
    }
    default:
        return nullptr; // messages and enums are handled by the callers
    }
}

/** Stores the fields \p message does not define, as base64 wire bytes, under \p key. */
void
AddUnknownFields(const Message& message, EtJson& json, const char* key)
{
    const auto& unknown = message.GetReflection()->GetUnknownFields(message);
    if (!unknown.empty())
    {
        std::string bytes;
        unknown.SerializeToString(&bytes);
        json[key] = EncodeBase64(bytes);
    }
}

EtJson
AttributeToJson(const AttributeProto& attribute)
{
    EtJson json;
    json["name"] = attribute.name();
    if (!attribute.doc_string().empty())
    {
        json["doc_string"] = attribute.doc_string();
    }
    const FieldDescriptor* f = attribute.value_case() == AttributeProto::VALUE_NOT_SET
                                   ? nullptr
                                   : AttributeProto::descriptor()->FindFieldByNumber(
                                         static_cast<int>(attribute.value_case()));
    if (f == nullptr)
    {
        json["type"] = "unset";
    }
    else if (f->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE)
    {
        // A <T>List message: its single repeated field "values".
        json["type"] = f->name();
        const Message& list = attribute.GetReflection()->GetMessage(attribute, f);
        const FieldDescriptor* values = list.GetDescriptor()->FindFieldByNumber(1);
        EtJson array = EtJson::array();
        int count = list.GetReflection()->FieldSize(list, values);
        for (int i = 0; i < count; ++i)
        {
            array.push_back(FieldValueToJson(list, values, i));
        }
        json["value"] = std::move(array);
        // Fields the list message does not define (a newer schema, or damage) are kept too:
        // the JSON form is a lossless view (found by the et_stream fuzz target).
        AddUnknownFields(list, json, "list_unknown_fields");
    }
    else
    {
        json["type"] = f->name();
        json["value"] = FieldValueToJson(attribute, f, 0);
    }
    AddUnknownFields(attribute, json, "unknown_fields");
    return json;
}

EtJson
AttributesToJson(const google::protobuf::RepeatedPtrField<AttributeProto>& attributes)
{
    EtJson array = EtJson::array();
    for (const auto& attribute : attributes)
    {
        array.push_back(AttributeToJson(attribute));
    }
    return array;
}

EtJson
IoInfoToJson(const ChakraProtoMsg::IOInfo& info)
{
    EtJson json;
    json["values"] = info.values();
    json["shapes"] = info.shapes();
    json["types"] = info.types();
    AddUnknownFields(info, json, "unknown_fields");
    return json;
}

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

EtJson
NodeToJson(const ChakraProtoMsg::Node& node)
{
    EtJson json;
    json["id"] = node.id();
    json["name"] = node.name();
    if (ChakraProtoMsg::NodeType_IsValid(node.type()))
    {
        json["type"] = ChakraProtoMsg::NodeType_Name(node.type());
    }
    else
    {
        json["type"] = static_cast<int>(node.type());
    }
    json["ctrl_deps"] = std::vector<uint64_t>(node.ctrl_deps().begin(), node.ctrl_deps().end());
    json["data_deps"] = std::vector<uint64_t>(node.data_deps().begin(), node.data_deps().end());
    json["start_time_micros"] = node.start_time_micros();
    json["duration_micros"] = node.duration_micros();
    // IOInfo is a message field: present-but-empty and absent serialize differently.
    if (node.has_inputs())
    {
        json["inputs"] = IoInfoToJson(node.inputs());
    }
    if (node.has_outputs())
    {
        json["outputs"] = IoInfoToJson(node.outputs());
    }
    json["attr"] = AttributesToJson(node.attr());
    AddUnknownFields(node, json, "unknown_fields");
    return json;
}

EtJson
MetadataToJson(const ChakraProtoMsg::GlobalMetadata& metadata)
{
    EtJson json;
    json["version"] = metadata.version();
    json["attr"] = AttributesToJson(metadata.attr());
    AddUnknownFields(metadata, json, "unknown_fields");
    return json;
}

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

uint64_t
ConvertEtToJson(const std::string& etPath, const std::string& jsonPath)
{
    EtReader reader(etPath);
    AtomicOutputFile out(jsonPath);
    out.Write("{\"format\": \"" + std::string(kFormatName) +
              "\", \"format_version\": " + std::to_string(kFormatVersion) + ",\n");
    out.Write("\"metadata\": " + MetadataToJson(reader.GetMetadata()).dump() + ",\n");
    out.Write("\"nodes\": [");
    ChakraProtoMsg::Node node;
    std::string line;
    while (reader.ReadNode(node))
    {
        line = reader.GetNodesRead() == 1 ? "\n" : ",\n";
        line += NodeToJson(node).dump();
        out.Write(line);
    }
    out.Write("\n]}\n");
    out.Commit();
    return reader.GetNodesRead();
}

uint64_t
ConvertJsonToEt(const std::string& jsonPath, const std::string& etPath)
{
    InputFileStreamBuf buffer(jsonPath);
    std::istream stream(&buffer);

    // Nodes are converted and written as the parser completes each one, so memory does not
    // grow with the trace. Nodes that come before "metadata" (hand-written files) wait.
    std::optional<EtWriter> writer;
    std::vector<ChakraProtoMsg::Node> early;
    std::string topKey;
    std::vector<std::string> topKeys; // seen so far: a repeated one is an error
    uint64_t nodeIndex = 0;
    auto where = [&]() { return "node #" + std::to_string(nodeIndex); };

    using Event = EtJson::parse_event_t;
    auto callback = [&](int depth, Event event, EtJson& parsed) -> bool {
        if (depth == 0 && (event == Event::array_start || event == Event::value))
        {
            Fail("top level", "expected a JSON object with \"metadata\" and \"nodes\"");
        }
        if (depth == 1 && event == Event::key)
        {
            topKey = parsed.get<std::string>();
            static const std::vector<std::string> known = {"format",
                                                           "format_version",
                                                           "metadata",
                                                           "nodes"};
            if (std::find(known.begin(), known.end(), topKey) == known.end())
            {
                Fail("top level",
                     "unknown key '" + topKey +
                         "' (allowed: format, format_version, metadata, nodes)");
            }
            // Streamed as they come, a second "metadata" or "nodes" would silently restart or
            // extend the output.
            if (std::find(topKeys.begin(), topKeys.end(), topKey) != topKeys.end())
            {
                Fail("top level", "key '" + topKey + "' appears twice");
            }
            topKeys.push_back(topKey);
            return true;
        }
        const bool startsValue =
            event == Event::object_start || event == Event::array_start || event == Event::value;
        if (depth == 1 && startsValue && topKey == "nodes" && event != Event::array_start)
        {
            Fail("top level", "'nodes' must be an array of node objects");
        }
        if (depth == 1 && startsValue && topKey == "metadata" && event != Event::object_start)
        {
            Fail("top level", "'metadata' must be an object");
        }
        if (depth == 1 && event == Event::value && topKey == "format" && parsed != kFormatName)
        {
            Fail("top level", "format is " + parsed.dump() + ", expected \"" + kFormatName + "\"");
        }
        if (depth == 1 && event == Event::value && topKey == "format_version" &&
            parsed != kFormatVersion)
        {
            Fail("top level",
                 "format_version is " + parsed.dump() + ", this reader knows " +
                     std::to_string(kFormatVersion));
        }
        if (depth == 1 && event == Event::object_end && topKey == "metadata")
        {
            writer.emplace(etPath, MetadataFromJson(parsed));
            for (const auto& node : early)
            {
                writer->WriteNode(node);
            }
            early.clear();
            return false;
        }
        if (depth == 2 && topKey == "nodes" && event == Event::array_start)
        {
            ++nodeIndex;
            Fail(where(), "each entry of 'nodes' must be an object");
        }
        if (depth == 2 && topKey == "nodes" &&
            (event == Event::object_end || event == Event::value))
        {
            ++nodeIndex;
            if (!parsed.is_object())
            {
                Fail(where(), "each entry of 'nodes' must be an object");
            }
            ChakraProtoMsg::Node node = NodeFromJson(parsed, where());
            if (writer)
            {
                writer->WriteNode(node);
            }
            else
            {
                early.push_back(std::move(node));
            }
            return false;
        }
        return true;
    };

    try
    {
        // Everything is handled in the callback; what remains is the empty skeleton.
        EtJson skeleton = EtJson::parse(stream, callback);
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
    if (!writer)
    {
        throw TraceError(jsonPath, "", "missing \"metadata\" object (every .et starts with one)");
    }
    writer->Commit();
    return nodeIndex;
}

} // namespace ns3
