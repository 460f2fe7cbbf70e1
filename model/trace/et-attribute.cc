#include "et-attribute.h"

#include <cmath>
#include <limits>

namespace ns3
{

using ChakraProtoMsg::AttributeProto;

const AttributeProto*
FindAttribute(const EtAttributeList& attributes, const std::string& name)
{
    for (const auto& attribute : attributes)
    {
        if (attribute.name() == name)
        {
            return &attribute;
        }
    }
    return nullptr;
}

std::string
AttributeTypeName(const AttributeProto& attribute)
{
    if (attribute.value_case() == AttributeProto::VALUE_NOT_SET)
    {
        return "unset";
    }
    const auto* field =
        AttributeProto::descriptor()->FindFieldByNumber(static_cast<int>(attribute.value_case()));
    return field != nullptr ? field->name() : "unknown";
}

namespace
{

/** An integer read from some oneof, before range checks: signed or unsigned 64-bit. */
struct RawInteger
{
    bool isUnsigned{false};
    int64_t signedValue{0};
    uint64_t unsignedValue{0};
};

bool
ReadRawInteger(const AttributeProto& a, RawInteger& raw)
{
    switch (a.value_case())
    {
    case AttributeProto::kInt32Val:
        raw.signedValue = a.int32_val();
        return true;
    case AttributeProto::kInt64Val:
        raw.signedValue = a.int64_val();
        return true;
    case AttributeProto::kSint32Val:
        raw.signedValue = a.sint32_val();
        return true;
    case AttributeProto::kSint64Val:
        raw.signedValue = a.sint64_val();
        return true;
    case AttributeProto::kSfixed32Val:
        raw.signedValue = a.sfixed32_val();
        return true;
    case AttributeProto::kSfixed64Val:
        raw.signedValue = a.sfixed64_val();
        return true;
    case AttributeProto::kBoolVal:
        raw.signedValue = a.bool_val() ? 1 : 0;
        return true;
    case AttributeProto::kUint32Val:
        raw.isUnsigned = true;
        raw.unsignedValue = a.uint32_val();
        return true;
    case AttributeProto::kUint64Val:
        raw.isUnsigned = true;
        raw.unsignedValue = a.uint64_val();
        return true;
    case AttributeProto::kFixed32Val:
        raw.isUnsigned = true;
        raw.unsignedValue = a.fixed32_val();
        return true;
    case AttributeProto::kFixed64Val:
        raw.isUnsigned = true;
        raw.unsignedValue = a.fixed64_val();
        return true;
    default:
        return false;
    }
}

std::string
NotA(const AttributeProto& a, const char* wanted)
{
    return std::string("expected ") + wanted + ", found " + AttributeTypeName(a);
}

} // namespace

bool
AttributeToInt64(const AttributeProto& a, int64_t& value, std::string& why)
{
    RawInteger raw;
    if (!ReadRawInteger(a, raw))
    {
        why = NotA(a, "an integer");
        return false;
    }
    if (raw.isUnsigned)
    {
        if (raw.unsignedValue > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
        {
            why = "value " + std::to_string(raw.unsignedValue) + " does not fit in int64";
            return false;
        }
        value = static_cast<int64_t>(raw.unsignedValue);
        return true;
    }
    value = raw.signedValue;
    return true;
}

bool
AttributeToUint64(const AttributeProto& a, uint64_t& value, std::string& why)
{
    RawInteger raw;
    if (!ReadRawInteger(a, raw))
    {
        why = NotA(a, "an integer");
        return false;
    }
    if (raw.isUnsigned)
    {
        value = raw.unsignedValue;
        return true;
    }
    if (raw.signedValue < 0)
    {
        why =
            "negative value " + std::to_string(raw.signedValue) + " where a size or id is expected";
        return false;
    }
    value = static_cast<uint64_t>(raw.signedValue);
    return true;
}

bool
AttributeToDouble(const AttributeProto& a, double& value, std::string& why)
{
    switch (a.value_case())
    {
    case AttributeProto::kDoubleVal:
        value = a.double_val();
        return true;
    case AttributeProto::kFloatVal:
        value = a.float_val();
        return true;
    default:
        break;
    }
    RawInteger raw;
    if (!ReadRawInteger(a, raw) || a.value_case() == AttributeProto::kBoolVal)
    {
        why = NotA(a, "a number");
        return false;
    }
    value = raw.isUnsigned ? static_cast<double>(raw.unsignedValue)
                           : static_cast<double>(raw.signedValue);
    return true;
}

bool
AttributeToBool(const AttributeProto& a, bool& value, std::string& why)
{
    if (a.value_case() == AttributeProto::kBoolVal)
    {
        value = a.bool_val();
        return true;
    }
    RawInteger raw;
    if (!ReadRawInteger(a, raw))
    {
        why = NotA(a, "a bool");
        return false;
    }
    uint64_t v = raw.isUnsigned ? raw.unsignedValue : static_cast<uint64_t>(raw.signedValue);
    if (v > 1)
    {
        why = "integer " + std::to_string(v) + " is not a bool (0 or 1)";
        return false;
    }
    value = v == 1;
    return true;
}

bool
AttributeToString(const AttributeProto& a, std::string& value, std::string& why)
{
    switch (a.value_case())
    {
    case AttributeProto::kStringVal:
        value = a.string_val();
        return true;
    case AttributeProto::kBytesVal:
        value = a.bytes_val();
        return true;
    default:
        why = NotA(a, "a string");
        return false;
    }
}

namespace
{

template <typename List>
void
AppendAll(const List& list, std::vector<int64_t>& out)
{
    for (auto v : list.values())
    {
        out.push_back(static_cast<int64_t>(v));
    }
}

template <typename List>
bool
AppendUnsigned(const List& list, std::vector<int64_t>& out, std::string& why)
{
    for (auto v : list.values())
    {
        if (static_cast<uint64_t>(v) > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
        {
            why = "list value " + std::to_string(v) + " does not fit in int64";
            return false;
        }
        out.push_back(static_cast<int64_t>(v));
    }
    return true;
}

} // namespace

bool
AttributeToInt64List(const AttributeProto& a, std::vector<int64_t>& value, std::string& why)
{
    value.clear();
    switch (a.value_case())
    {
    case AttributeProto::kInt32List:
        AppendAll(a.int32_list(), value);
        return true;
    case AttributeProto::kInt64List:
        AppendAll(a.int64_list(), value);
        return true;
    case AttributeProto::kSint32List:
        AppendAll(a.sint32_list(), value);
        return true;
    case AttributeProto::kSint64List:
        AppendAll(a.sint64_list(), value);
        return true;
    case AttributeProto::kSfixed32List:
        AppendAll(a.sfixed32_list(), value);
        return true;
    case AttributeProto::kSfixed64List:
        AppendAll(a.sfixed64_list(), value);
        return true;
    case AttributeProto::kBoolList:
        AppendAll(a.bool_list(), value);
        return true;
    case AttributeProto::kUint32List:
        return AppendUnsigned(a.uint32_list(), value, why);
    case AttributeProto::kUint64List:
        return AppendUnsigned(a.uint64_list(), value, why);
    case AttributeProto::kFixed32List:
        return AppendUnsigned(a.fixed32_list(), value, why);
    case AttributeProto::kFixed64List:
        return AppendUnsigned(a.fixed64_list(), value, why);
    default:
        break;
    }
    int64_t single = 0;
    if (AttributeToInt64(a, single, why))
    {
        value.push_back(single);
        return true;
    }
    why = NotA(a, "an integer list");
    return false;
}

} // namespace ns3
