/*
 * Typed, tolerant access to Chakra AttributeProto values.
 *
 * Writers disagree on which oneof holds a value (comm_size as int64_val in one tool, uint64_val
 * in another), so readers accept any integer oneof for an integer and any float oneof for a
 * floating-point value, and check the range instead of silently truncating.
 */
#ifndef CHAKRA_ET_ATTRIBUTE_H
#define CHAKRA_ET_ATTRIBUTE_H

#include "et_def.pb.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/** Attributes of a node or of the global metadata. */
using EtAttributeList = google::protobuf::RepeatedPtrField<ChakraProtoMsg::AttributeProto>;

/**
 * \param attributes where to look
 * \param name the attribute name
 * \return the first attribute called \p name, or nullptr
 */
const ChakraProtoMsg::AttributeProto* FindAttribute(const EtAttributeList& attributes,
                                                    const std::string& name);

/**
 * \param attribute an attribute
 * \return the name of its oneof field ("int64_val", "string_list", ...) or "unset"
 */
std::string AttributeTypeName(const ChakraProtoMsg::AttributeProto& attribute);

/**
 * Reads an integer from any integer oneof (int32/64, uint32/64, sint32/64, fixed32/64,
 * sfixed32/64) or from bool_val (as 0 or 1).
 * \param attribute the attribute
 * \param[out] value the value
 * \param[out] why the reason on failure ("holds a string_val", "uint64 value ... exceeds ...")
 * \return true on success
 */
bool AttributeToInt64(const ChakraProtoMsg::AttributeProto& attribute,
                      int64_t& value,
                      std::string& why);

/** As AttributeToInt64, for a value that must not be negative (sizes, ids). */
bool AttributeToUint64(const ChakraProtoMsg::AttributeProto& attribute,
                       uint64_t& value,
                       std::string& why);

/** Reads a number from double_val or float_val, or from any integer oneof. */
bool AttributeToDouble(const ChakraProtoMsg::AttributeProto& attribute,
                       double& value,
                       std::string& why);

/** Reads bool_val, or an integer oneof holding 0 or 1. */
bool AttributeToBool(const ChakraProtoMsg::AttributeProto& attribute,
                     bool& value,
                     std::string& why);

/** Reads string_val (or bytes_val). */
bool AttributeToString(const ChakraProtoMsg::AttributeProto& attribute,
                       std::string& value,
                       std::string& why);

/** Reads any integer list oneof (or bool_list), or a single integer as a list of one. */
bool AttributeToInt64List(const ChakraProtoMsg::AttributeProto& attribute,
                          std::vector<int64_t>& value,
                          std::string& why);

} // namespace ns3

#endif // CHAKRA_ET_ATTRIBUTE_H
