/*
 * Attribute values as users give them (a --ns3::Type::Name=value flag, a helper's
 * SetAttribute): checked before ns-3 sees them, so that a wrong value is an error that names the
 * attribute and lists what is valid, not an abort (NS_FATAL_ERROR) or a silent default.
 */
#ifndef CHAKRA_ATTRIBUTE_TEXT_H
#define CHAKRA_ATTRIBUTE_TEXT_H

#include "ns3/attribute.h"
#include "ns3/ptr.h"
#include "ns3/type-id.h"

#include <string>

namespace ns3
{

/**
 * \return what \p checker accepts, for an error message: "one of: ring, tree", "a bandwidth
 *         with a unit (e.g. 400Gbps)", "uint32_t 1:4294967295", ...
 */
std::string DescribeAcceptedValues(Ptr<const AttributeChecker> checker);

/**
 * Converts the text a user gave for attribute \p name of \p tid: bandwidths and times need a
 * unit (ParseBandwidth, ParseDuration), whole numbers are plain decimal (no wrap-around of
 * "-1"), enumerations must name a value, and the attribute's own checker (its bounds) must
 * accept the result.
 * \param tid the type
 * \param name the attribute
 * \param text the value's text
 * \param what what to name in the error (a flag, "ns3::ChakraApplication::Transport")
 * \return the value, valid for the attribute
 * \throws std::invalid_argument naming \p what, with what is accepted (and a near name)
 */
Ptr<AttributeValue> ParseAttributeText(TypeId tid,
                                       const std::string& name,
                                       const std::string& text,
                                       const std::string& what);

/**
 * Checks a value for attribute \p name of \p tid before a helper stores it (a StringValue is
 * read as ParseAttributeText reads text).
 * \param tid the type
 * \param name the attribute
 * \param value the value
 * \return the value as the attribute takes it
 * \throws std::invalid_argument if \p tid has no such attribute (with a near name) or the
 *         value is not valid for it
 */
Ptr<AttributeValue> CheckAttributeValue(TypeId tid,
                                        const std::string& name,
                                        const AttributeValue& value);

/**
 * Sets an attribute's default from a flag "ns3::Type::Name" (or the name of a GlobalValue, such
 * as RngRun) and its text, as ns-3's CommandLine does, after ParseAttributeText.
 * \param path "ns3::Type::Name" (or a global value's name)
 * \param text the value's text
 * \throws std::invalid_argument naming the flag: unknown type (with a near name), unknown
 *         attribute (with a near name), invalid value
 */
void SetDefaultFromText(const std::string& path, const std::string& text);

} // namespace ns3

#endif // CHAKRA_ATTRIBUTE_TEXT_H
