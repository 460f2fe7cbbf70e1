#include "et-attribute-writer.h"

namespace ns3
{

EtAttributeWriter::EtAttributeWriter(EtAttributeList* attributes)
    : m_attributes(attributes)
{
}

ChakraProtoMsg::AttributeProto*
EtAttributeWriter::Append(const std::string& name)
{
    ChakraProtoMsg::AttributeProto* attribute = m_attributes->Add();
    attribute->set_name(name);
    return attribute;
}

EtAttributeWriter&
EtAttributeWriter::Bool(const std::string& name, bool value)
{
    Append(name)->set_bool_val(value);
    return *this;
}

EtAttributeWriter&
EtAttributeWriter::Int32(const std::string& name, int32_t value)
{
    Append(name)->set_int32_val(value);
    return *this;
}

EtAttributeWriter&
EtAttributeWriter::Int64(const std::string& name, int64_t value)
{
    Append(name)->set_int64_val(value);
    return *this;
}

EtAttributeWriter&
EtAttributeWriter::Uint64(const std::string& name, uint64_t value)
{
    Append(name)->set_uint64_val(value);
    return *this;
}

EtAttributeWriter&
EtAttributeWriter::Double(const std::string& name, double value)
{
    Append(name)->set_double_val(value);
    return *this;
}

EtAttributeWriter&
EtAttributeWriter::String(const std::string& name, const std::string& value)
{
    Append(name)->set_string_val(value);
    return *this;
}

} // namespace ns3
