/*
 * The .et -> JSON direction of et-json.h: protobuf values, attributes, nodes and the metadata
 * as JSON, and a .et file streamed into one JSON document.
 */
#include "et-json-format.h"
#include "et-json.h"
#include "et-reader.h"
#include "trace-file.h"

#include <cmath>
#include <google/protobuf/unknown_field_set.h>

namespace ns3
{

using ChakraProtoMsg::AttributeProto;
using google::protobuf::FieldDescriptor;
using google::protobuf::Message;
using google::protobuf::Reflection;

namespace
{

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

uint64_t
ConvertEtToJson(const std::string& etPath, const std::string& jsonPath)
{
    EtReader reader(etPath);
    AtomicOutputFile out(jsonPath);
    out.Write("{\"format\": \"" + std::string(kEtJsonFormatName) +
              "\", \"format_version\": " + std::to_string(kEtJsonFormatVersion) + ",\n");
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

} // namespace ns3
