#include "attribute-text.h"

#include "name-suggestion.h"
#include "quantity-parser.h"

#include "ns3/config.h"
#include "ns3/data-rate.h"
#include "ns3/double.h"
#include "ns3/global-value.h"
#include "ns3/integer.h"
#include "ns3/nstime.h"
#include "ns3/string.h"
#include "ns3/uinteger.h"

#include <sstream>
#include <stdexcept>
#include <vector>

namespace ns3
{

namespace
{

std::vector<std::string>
Split(const std::string& text, char separator)
{
    std::vector<std::string> parts;
    std::string part;
    std::istringstream in(text);
    while (std::getline(in, part, separator))
    {
        parts.push_back(part);
    }
    return parts;
}

/**
 * \return the checker's value type without "ns3::": ns-3's own checkers name it with the
 *         namespace ("ns3::TimeValue"), those made by ATTRIBUTE_HELPER_CPP without it
 *         ("DataRateValue"), so a comparison with one spelling misses the other
 */
std::string
ValueType(Ptr<const AttributeChecker> checker)
{
    const std::string type = checker->GetValueTypeName();
    return type.compare(0, 5, "ns3::") == 0 ? type.substr(5) : type;
}

bool
IsEnum(Ptr<const AttributeChecker> checker)
{
    return ValueType(checker) == "EnumValue";
}

/** \return every attribute name of \p tid and its parents */
std::vector<std::string>
AttributeNames(TypeId tid)
{
    std::vector<std::string> names;
    for (TypeId t = tid;; t = t.GetParent())
    {
        for (std::size_t i = 0; i < t.GetAttributeN(); ++i)
        {
            names.push_back(t.GetAttribute(i).name);
        }
        if (t == t.GetParent())
        {
            break;
        }
    }
    return names;
}

TypeId::AttributeInformation
LookUp(TypeId tid, const std::string& name, const std::string& what)
{
    TypeId::AttributeInformation info;
    if (!tid.LookupAttributeByName(name, &info))
    {
        throw std::invalid_argument(what + ": " + tid.GetName() + " has no attribute '" + name +
                                    "'" + DidYouMean(name, AttributeNames(tid)));
    }
    return info;
}

} // namespace

std::string
DescribeAcceptedValues(Ptr<const AttributeChecker> checker)
{
    const std::string type = ValueType(checker);
    if (IsEnum(checker))
    {
        std::string list;
        for (const std::string& name : Split(checker->GetUnderlyingTypeInformation(), '|'))
        {
            list += (list.empty() ? "" : ", ") + name;
        }
        return "one of: " + list;
    }
    if (type == "DataRateValue")
    {
        return "a bandwidth with a unit (e.g. 400Gbps, 50GB/s)";
    }
    if (type == "TimeValue")
    {
        return "a time with a unit (e.g. 500ns, 2us)";
    }
    if (checker->HasUnderlyingTypeInformation())
    {
        return checker->GetUnderlyingTypeInformation();
    }
    return type;
}

Ptr<AttributeValue>
ParseAttributeText(TypeId tid,
                   const std::string& name,
                   const std::string& text,
                   const std::string& what)
{
    const TypeId::AttributeInformation info = LookUp(tid, name, what);
    Ptr<const AttributeChecker> checker = info.checker;
    const std::string type = ValueType(checker);
    Ptr<AttributeValue> value;
    // Values ns-3 would read too liberally: a rate or a time without a unit ("100" is 100 bit/s,
    // "500 ns" is 500 s), a negative whole number that wraps to a huge one.
    if (type == "DataRateValue")
    {
        value = Create<DataRateValue>(ParseBandwidth(text, what, true));
    }
    else if (type == "TimeValue")
    {
        value = Create<TimeValue>(ParseDuration(text, what, Seconds(1e6), false));
    }
    else if (type == "UintegerValue")
    {
        value = Create<UintegerValue>(
            ParseWholeNumber(text, what, 0, std::numeric_limits<uint64_t>::max() / 10));
    }
    else if (type == "DoubleValue")
    {
        value = Create<DoubleValue>(ParseRealNumber(text,
                                                    what,
                                                    -std::numeric_limits<double>::max(),
                                                    std::numeric_limits<double>::max()));
    }
    else
    {
        value = Create<StringValue>(text);
    }
    Ptr<AttributeValue> valid = checker->CreateValidValue(*value);
    if (!valid)
    {
        std::string near;
        if (IsEnum(checker))
        {
            near = DidYouMean(text, Split(checker->GetUnderlyingTypeInformation(), '|'));
        }
        throw std::invalid_argument(what + ": '" + text + "' is not valid" + near + " (" +
                                    DescribeAcceptedValues(checker) + ")");
    }
    return valid;
}

Ptr<AttributeValue>
CheckAttributeValue(TypeId tid, const std::string& name, const AttributeValue& value)
{
    const std::string what = tid.GetName() + "::" + name;
    if (const auto* text = dynamic_cast<const StringValue*>(&value))
    {
        const TypeId::AttributeInformation info = LookUp(tid, name, what);
        if (ValueType(info.checker) != "StringValue")
        {
            return ParseAttributeText(tid, name, text->Get(), what);
        }
    }
    const TypeId::AttributeInformation info = LookUp(tid, name, what);
    Ptr<AttributeValue> valid = info.checker->CreateValidValue(value);
    if (!valid)
    {
        throw std::invalid_argument(what + ": '" + value.SerializeToString(info.checker) +
                                    "' is not valid (" + DescribeAcceptedValues(info.checker) +
                                    ")");
    }
    return valid;
}

void
SetDefaultFromText(const std::string& path, const std::string& text)
{
    const std::string what = "--" + path;
    const auto split = path.rfind("::");
    if (split == std::string::npos)
    {
        // A global value (RngRun, SimulatorImplementationType, ...).
        for (auto it = GlobalValue::Begin(); it != GlobalValue::End(); ++it)
        {
            if ((*it)->GetName() == path)
            {
                if (!(*it)->SetValue(StringValue(text)))
                {
                    throw std::invalid_argument(what + ": '" + text + "' is not valid (" +
                                                DescribeAcceptedValues((*it)->GetChecker()) + ")");
                }
                return;
            }
        }
        throw std::invalid_argument(what + ": no such ns-3 global value");
    }
    const std::string typeName = path.substr(0, split);
    const std::string name = path.substr(split + 2);
    TypeId tid;
    if (!TypeId::LookupByNameFailSafe(typeName, &tid))
    {
        std::vector<std::string> types;
        for (uint16_t i = 0; i < TypeId::GetRegisteredN(); ++i)
        {
            types.push_back(TypeId::GetRegistered(i).GetName());
        }
        throw std::invalid_argument(what + ": no ns-3 type '" + typeName + "'" +
                                    DidYouMean(typeName, types));
    }
    Ptr<AttributeValue> value = ParseAttributeText(tid, name, text, what);
    if (!Config::SetDefaultFailSafe(path, *value))
    {
        throw std::invalid_argument(what + ": '" + text + "' could not be set");
    }
}

} // namespace ns3
