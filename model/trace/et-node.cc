#include "et-node.h"

#include "trace-error.h"

#include <cstring>

namespace ns3
{

using ChakraProtoMsg::AttributeProto;

namespace
{

/** The names of EtNode::Known, in its order. */
constexpr const char* kKnownNames[] = {
    "is_cpu_op",
    "comm_type",
    "comm_size",
    "pg_name",
    "comm_src",
    "comm_dst",
    "comm_tag",
    "stream",
    "tid",
    "num_ops",
    "tensor_size",
    "root_rank",
    "duration_exact_micros",
};
static_assert(sizeof(kKnownNames) / sizeof(kKnownNames[0]) == EtNode::KNOWN_COUNT,
              "a name for every indexed attribute");

} // namespace

EtNode::EtNode(ChakraProtoMsg::Node proto)
    : m_proto(std::move(proto))
{
    IndexAttributes();
}

EtNode::Known
EtNode::Classify(const std::string& name)
{
    // By length first: most names of a trace match no indexed one, and are told apart by their
    // length alone.
    auto is = [&name](Known which) {
        return std::memcmp(name.data(), kKnownNames[which], name.size()) == 0;
    };
    switch (name.size())
    {
    case 3:
        return is(TID) ? TID : KNOWN_COUNT;
    case 6:
        return is(STREAM) ? STREAM : KNOWN_COUNT;
    case 7:
        return is(PG_NAME) ? PG_NAME : (is(NUM_OPS) ? NUM_OPS : KNOWN_COUNT);
    case 8:
        if (std::memcmp(name.data(), "comm_", 5) != 0)
        {
            return KNOWN_COUNT;
        }
        return is(COMM_SRC) ? COMM_SRC
                            : (is(COMM_DST) ? COMM_DST : (is(COMM_TAG) ? COMM_TAG : KNOWN_COUNT));
    case 9:
        for (Known which : {IS_CPU_OP, COMM_TYPE, COMM_SIZE, ROOT_RANK})
        {
            if (is(which))
            {
                return which;
            }
        }
        return KNOWN_COUNT;
    case 11:
        return is(TENSOR_SIZE) ? TENSOR_SIZE : KNOWN_COUNT;
    case 21:
        return is(DURATION_EXACT_MICROS) ? DURATION_EXACT_MICROS : KNOWN_COUNT;
    default:
        return KNOWN_COUNT;
    }
}

void
EtNode::IndexAttributes()
{
    const auto& attributes = m_proto.attr();
    for (int i = attributes.size() - 1; i >= 0; --i)
    {
        // Backwards, so that the first of repeated names is the one kept (as FindAttribute).
        const Known which = Classify(attributes.Get(i).name());
        if (which != KNOWN_COUNT)
        {
            m_known[which] = i < kBeyond - 1 ? static_cast<uint8_t>(i + 1) : kBeyond;
        }
    }
}

const AttributeProto*
EtNode::FindKnown(Known which) const
{
    const uint8_t slot = m_known[which];
    if (slot == kAbsent)
    {
        return nullptr;
    }
    if (slot == kBeyond)
    {
        return FindAttribute(m_proto.attr(), kKnownNames[which]);
    }
    return &m_proto.attr().Get(slot - 1);
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
    return FindAttr(name) != nullptr;
}

const AttributeProto*
EtNode::FindAttr(const std::string& name) const
{
    const Known which = Classify(name);
    return which != KNOWN_COUNT ? FindKnown(which) : FindAttribute(m_proto.attr(), name);
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
EtNode::GetTyped(const char* name,
                 const AttributeProto* attribute,
                 Convert convert,
                 const T* defaultValue) const
{
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
    return GetTyped<int64_t>(name.c_str(), FindAttr(name), AttributeToInt64, nullptr);
}

int64_t
EtNode::GetInt(const std::string& name, int64_t defaultValue) const
{
    return GetTyped(name.c_str(), FindAttr(name), AttributeToInt64, &defaultValue);
}

uint64_t
EtNode::GetUint(const std::string& name) const
{
    return GetTyped<uint64_t>(name.c_str(), FindAttr(name), AttributeToUint64, nullptr);
}

uint64_t
EtNode::GetUint(const std::string& name, uint64_t defaultValue) const
{
    return GetTyped(name.c_str(), FindAttr(name), AttributeToUint64, &defaultValue);
}

double
EtNode::GetDouble(const std::string& name) const
{
    return GetTyped<double>(name.c_str(), FindAttr(name), AttributeToDouble, nullptr);
}

double
EtNode::GetDouble(const std::string& name, double defaultValue) const
{
    return GetTyped(name.c_str(), FindAttr(name), AttributeToDouble, &defaultValue);
}

bool
EtNode::GetBool(const std::string& name) const
{
    return GetTyped<bool>(name.c_str(), FindAttr(name), AttributeToBool, nullptr);
}

bool
EtNode::GetBool(const std::string& name, bool defaultValue) const
{
    return GetTyped(name.c_str(), FindAttr(name), AttributeToBool, &defaultValue);
}

std::string
EtNode::GetString(const std::string& name) const
{
    return GetTyped<std::string>(name.c_str(), FindAttr(name), AttributeToString, nullptr);
}

std::string
EtNode::GetString(const std::string& name, const std::string& defaultValue) const
{
    return GetTyped(name.c_str(), FindAttr(name), AttributeToString, &defaultValue);
}

std::vector<int64_t>
EtNode::GetIntList(const std::string& name) const
{
    return GetTyped<std::vector<int64_t>>(name.c_str(),
                                          FindAttr(name),
                                          AttributeToInt64List,
                                          nullptr);
}

std::optional<int64_t>
EtNode::OptionalInt(Known which) const
{
    const AttributeProto* attribute = FindKnown(which);
    if (attribute == nullptr)
    {
        return std::nullopt;
    }
    int64_t value = 0;
    std::string why;
    if (!AttributeToInt64(*attribute, value, why))
    {
        ThrowMistyped(kKnownNames[which], why);
    }
    return value;
}

bool
EtNode::IsCpuOp() const
{
    const bool no = false;
    return GetTyped(kKnownNames[IS_CPU_OP], FindKnown(IS_CPU_OP), AttributeToBool, &no);
}

std::optional<ChakraProtoMsg::CollectiveCommType>
EtNode::GetCommType() const
{
    std::optional<int64_t> value = OptionalInt(COMM_TYPE);
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
    const uint64_t none = 0;
    return GetTyped(kKnownNames[COMM_SIZE], FindKnown(COMM_SIZE), AttributeToUint64, &none);
}

const std::string&
EtNode::GetPgName() const
{
    // As GetString("pg_name", ""), without a copy: the replay reads it several times a call.
    static const std::string kWorld;
    const AttributeProto* attribute = FindKnown(PG_NAME);
    if (attribute == nullptr)
    {
        return kWorld;
    }
    switch (attribute->value_case())
    {
    case AttributeProto::kStringVal:
        return attribute->string_val();
    case AttributeProto::kBytesVal:
        return attribute->bytes_val();
    default: {
        std::string value;
        std::string why;
        AttributeToString(*attribute, value, why);
        ThrowMistyped(kKnownNames[PG_NAME], why);
    }
    }
}

std::optional<int64_t>
EtNode::GetCommSrc() const
{
    return OptionalInt(COMM_SRC);
}

std::optional<int64_t>
EtNode::GetCommDst() const
{
    return OptionalInt(COMM_DST);
}

std::optional<int64_t>
EtNode::GetCommTag() const
{
    return OptionalInt(COMM_TAG);
}

std::optional<int64_t>
EtNode::GetStream() const
{
    return OptionalInt(STREAM);
}

std::optional<int64_t>
EtNode::GetTid() const
{
    return OptionalInt(TID);
}

uint64_t
EtNode::GetNumOps() const
{
    const uint64_t none = 0;
    return GetTyped(kKnownNames[NUM_OPS], FindKnown(NUM_OPS), AttributeToUint64, &none);
}

uint64_t
EtNode::GetTensorSize() const
{
    const uint64_t none = 0;
    return GetTyped(kKnownNames[TENSOR_SIZE], FindKnown(TENSOR_SIZE), AttributeToUint64, &none);
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
