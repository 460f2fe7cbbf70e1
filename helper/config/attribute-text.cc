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

#include <algorithm>
#include <limits>
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

/**
 * The bounds of a UintegerValue checker. ns-3's integer checkers describe themselves as
 * "<type> <min>:<max>" (uint32_t 1:4096), so a value out of range is refused with the
 * attribute's own bounds rather than the type's.
 * \return whether \p checker described its bounds
 */
bool
CheckerBounds(Ptr<const AttributeChecker> checker, uint64_t& low, uint64_t& high)
{
    if (!checker->HasUnderlyingTypeInformation())
    {
        return false;
    }
    const std::string info = checker->GetUnderlyingTypeInformation();
    const auto space = info.rfind(' ');
    const auto colon = info.find(':', space == std::string::npos ? 0 : space);
    if (space == std::string::npos || colon == std::string::npos)
    {
        return false;
    }
    std::istringstream lowText(info.substr(space + 1, colon - space - 1));
    std::istringstream highText(info.substr(colon + 1));
    uint64_t a = 0;
    uint64_t b = 0;
    if (!(lowText >> a) || !(highText >> b) || a > b)
    {
        return false;
    }
    low = a;
    high = b;
    return true;
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
        uint64_t low = 0;
        uint64_t high = std::numeric_limits<uint64_t>::max();
        CheckerBounds(checker, low, high);
        value = Create<UintegerValue>(ParseWholeNumber(text, what, low, high));
    }
    else if (type == "DoubleValue")
    {
        // The checker's own bounds are checked below (CreateValidValue): ns-3 prints them
        // rounded to 6 digits, which could refuse a value at the bound.
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
