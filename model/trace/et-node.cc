#include "et-node.h"

#include "trace-error.h"

namespace ns3
{

using ChakraProtoMsg::AttributeProto;

EtNode::EtNode(ChakraProtoMsg::Node proto)
    : m_proto(std::move(proto))
{
}

uint64_t
EtNode::GetId() const
{
    return m_proto.id();
}

const std::string&
EtNode::GetName() const
{
    return m_proto.name();
}

ChakraProtoMsg::NodeType
EtNode::GetType() const
{
    return m_proto.type();
}

const google::protobuf::RepeatedField<uint64_t>&
EtNode::GetDataDeps() const
{
    return m_proto.data_deps();
}

const google::protobuf::RepeatedField<uint64_t>&
EtNode::GetCtrlDeps() const
{
    return m_proto.ctrl_deps();
}

uint64_t
EtNode::GetDurationMicros() const
{
    return m_proto.duration_micros();
}

const ChakraProtoMsg::Node&
EtNode::GetProto() const
{
    return m_proto;
}

std::string
EtNode::Describe() const
{
    return "node " + std::to_string(m_proto.id()) + " (" + m_proto.name() + ")";
}

bool
EtNode::HasAttr(const std::string& name) const
{
    return FindAttribute(m_proto.attr(), name) != nullptr;
}

const AttributeProto*
EtNode::FindAttr(const std::string& name) const
{
    return FindAttribute(m_proto.attr(), name);
}

void
EtNode::ThrowMissing(const std::string& name) const
{
    throw TraceError("", Describe(), "missing attribute '" + name + "'");
}

void
EtNode::ThrowMistyped(const std::string& name, const std::string& why) const
{
    throw TraceError("", Describe(), "attribute '" + name + "': " + why);
}

template <typename T, typename Convert>
T
EtNode::GetTyped(const std::string& name, Convert convert, const T* defaultValue) const
{
    const AttributeProto* attribute = FindAttr(name);
    if (attribute == nullptr)
    {
        if (defaultValue != nullptr)
        {
            return *defaultValue;
        }
        ThrowMissing(name);
    }
    T value{};
    std::string why;
    if (!convert(*attribute, value, why))
    {
        ThrowMistyped(name, why);
    }
    return value;
}

int64_t
EtNode::GetInt(const std::string& name) const
{
    return GetTyped<int64_t>(name, AttributeToInt64, nullptr);
}

int64_t
EtNode::GetInt(const std::string& name, int64_t defaultValue) const
{
    return GetTyped(name, AttributeToInt64, &defaultValue);
}

uint64_t
EtNode::GetUint(const std::string& name) const
{
    return GetTyped<uint64_t>(name, AttributeToUint64, nullptr);
}

uint64_t
EtNode::GetUint(const std::string& name, uint64_t defaultValue) const
{
    return GetTyped(name, AttributeToUint64, &defaultValue);
}

double
EtNode::GetDouble(const std::string& name) const
{
    return GetTyped<double>(name, AttributeToDouble, nullptr);
}

double
EtNode::GetDouble(const std::string& name, double defaultValue) const
{
    return GetTyped(name, AttributeToDouble, &defaultValue);
}

bool
EtNode::GetBool(const std::string& name) const
{
    return GetTyped<bool>(name, AttributeToBool, nullptr);
}

bool
EtNode::GetBool(const std::string& name, bool defaultValue) const
{
    return GetTyped(name, AttributeToBool, &defaultValue);
}

std::string
EtNode::GetString(const std::string& name) const
{
    return GetTyped<std::string>(name, AttributeToString, nullptr);
}

std::string
EtNode::GetString(const std::string& name, const std::string& defaultValue) const
{
    return GetTyped(name, AttributeToString, &defaultValue);
}

std::vector<int64_t>
EtNode::GetIntList(const std::string& name) const
{
    return GetTyped<std::vector<int64_t>>(name, AttributeToInt64List, nullptr);
}

std::optional<int64_t>
EtNode::OptionalInt(const std::string& name) const
{
    const AttributeProto* attribute = FindAttr(name);
    if (attribute == nullptr)
    {
        return std::nullopt;
    }
    int64_t value = 0;
    std::string why;
    if (!AttributeToInt64(*attribute, value, why))
    {
        ThrowMistyped(name, why);
    }
    return value;
}

bool
EtNode::IsCpuOp() const
{
    return GetBool("is_cpu_op", false);
}

std::optional<ChakraProtoMsg::CollectiveCommType>
EtNode::GetCommType() const
{
    std::optional<int64_t> value = OptionalInt("comm_type");
    if (!value)
    {
        return std::nullopt;
    }
    if (!ChakraProtoMsg::CollectiveCommType_IsValid(static_cast<int>(*value)) || *value < 0 ||
        *value > 1000)
    {
        ThrowMistyped("comm_type", "unknown collective type " + std::to_string(*value));
    }
    return static_cast<ChakraProtoMsg::CollectiveCommType>(*value);
}

uint64_t
EtNode::GetCommSize() const
{
    return GetUint("comm_size", 0);
}

std::string
EtNode::GetPgName() const
{
    return GetString("pg_name", "");
}

std::optional<int64_t>
EtNode::GetCommSrc() const
{
    return OptionalInt("comm_src");
}

std::optional<int64_t>
EtNode::GetCommDst() const
{
    return OptionalInt("comm_dst");
}

std::optional<int64_t>
EtNode::GetCommTag() const
{
    return OptionalInt("comm_tag");
}

std::optional<int64_t>
EtNode::GetStream() const
{
    return OptionalInt("stream");
}

std::optional<int64_t>
EtNode::GetTid() const
{
    return OptionalInt("tid");
}

uint64_t
EtNode::GetNumOps() const
{
    return GetUint("num_ops", 0);
}

uint64_t
EtNode::GetTensorSize() const
{
    return GetUint("tensor_size", 0);
}

std::string
NodeTypeName(int type)
{
    if (ChakraProtoMsg::NodeType_IsValid(type))
    {
        return ChakraProtoMsg::NodeType_Name(static_cast<ChakraProtoMsg::NodeType>(type));
    }
    return "NodeType(" + std::to_string(type) + ")";
}

std::string
CommTypeName(int type)
{
    if (ChakraProtoMsg::CollectiveCommType_IsValid(type))
    {
        return ChakraProtoMsg::CollectiveCommType_Name(
            static_cast<ChakraProtoMsg::CollectiveCommType>(type));
    }
    return "CollectiveCommType(" + std::to_string(type) + ")";
}

} // namespace ns3
