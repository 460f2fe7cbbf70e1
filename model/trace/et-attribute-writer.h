/*
 * EtAttributeWriter: appends name/value attributes (AttributeProto) to a Chakra node or to the
 * global metadata, one oneof per value type. Every .et writer of the module uses it, so that
 * one attribute is written the same way whoever writes it.
 */
#ifndef CHAKRA_ET_ATTRIBUTE_WRITER_H
#define CHAKRA_ET_ATTRIBUTE_WRITER_H

#include "et-attribute.h"

#include <cstdint>
#include <string>

namespace ns3
{

/**
 * \ingroup chakra-trace
 * \brief Appends typed name/value attributes to an attribute list.
 *
 * Each call appends one AttributeProto with the oneof its name says (Int64 sets int64_val,
 * ...), in call order; nothing is checked or merged.
 */
class EtAttributeWriter
{
  public:
    /** \param attributes the list to append to (a node's or the metadata's mutable_attr()) */
    explicit EtAttributeWriter(EtAttributeList* attributes);

    /** Appends bool_val. \param name the name \param value the value \return this writer */
    EtAttributeWriter& Bool(const std::string& name, bool value);
    /** Appends int32_val. \param name the name \param value the value \return this writer */
    EtAttributeWriter& Int32(const std::string& name, int32_t value);
    /** Appends int64_val. \param name the name \param value the value \return this writer */
    EtAttributeWriter& Int64(const std::string& name, int64_t value);
    /** Appends uint64_val. \param name the name \param value the value \return this writer */
    EtAttributeWriter& Uint64(const std::string& name, uint64_t value);
    /** Appends double_val. \param name the name \param value the value \return this writer */
    EtAttributeWriter& Double(const std::string& name, double value);
    /** Appends string_val. \param name the name \param value the value \return this writer */
    EtAttributeWriter& String(const std::string& name, const std::string& value);

  private:
    /** \return a new attribute called \p name at the end of the list */
    ChakraProtoMsg::AttributeProto* Append(const std::string& name);

    EtAttributeList* m_attributes; //!< the list written to
};

} // namespace ns3

#endif // CHAKRA_ET_ATTRIBUTE_WRITER_H
