#include "rank-roles.h"

#include "json-document.h"
#include "trace-error.h"
#include "trace-file.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <sys/stat.h>

namespace ns3
{

namespace
{

/** The value of "format" in a manifest. */
const char* const kFormat = "chakra-rank-roles";

bool
FileExists(const std::string& path)
{
    struct stat info;
    return stat(path.c_str(), &info) == 0 && S_ISREG(info.st_mode);
}

/** \return the directory part of \p path with its '/', or "" */
std::string
DirectoryOf(const std::string& path)
{
    const auto slash = path.find_last_of('/');
    return slash == std::string::npos ? "" : path.substr(0, slash + 1);
}

/**
 * \return a key's value as a count in [minimum, 2^32), or throws naming the key (after
 *         \p context, where the object sits in the file)
 */
uint32_t
Count(const nlohmann::json& document,
      const std::string& path,
      const std::string& key,
      uint32_t minimum,
      const std::string& context = "")
{
    auto it = document.find(key);
    if (it == document.end())
    {
        throw TraceError(path, context + "key '" + key + "'", "missing");
    }
    if (!it->is_number_integer() || it->get<int64_t>() < minimum ||
        it->get<int64_t>() > int64_t{UINT32_MAX})
    {
        throw TraceError(path,
                         context + "key '" + key + "'",
                         it->dump() + " is not an integer of at least " + std::to_string(minimum));
    }
    return static_cast<uint32_t>(it->get<int64_t>());
}

/** \return \p text as a count below 2^32, or false */
bool
ParseCount(const std::string& text, uint32_t& value)
{
    if (text.empty() || text.size() > 10 ||
        text.find_first_not_of("0123456789") != std::string::npos || std::stoull(text) > UINT32_MAX)
    {
        return false;
    }
    value = static_cast<uint32_t>(std::stoull(text));
    return true;
}

/** \return \p text as a rank (decimal, no sign, no leading zero), or throws */
uint32_t
RankKey(const std::string& text, const std::string& path)
{
    uint32_t rank = 0;
    if (!ParseCount(text, rank) || (text.size() > 1 && text[0] == '0'))
    {
        throw TraceError(path, "key 'roles'", "'" + text + "' is not a rank");
    }
    return rank;
}

/** \return \p group's prefix and trailing number, or false if it has not both */
bool
SplitGroupName(const std::string& group, std::string& prefix, uint64_t& number)
{
    const auto last = group.find_last_not_of("0123456789");
    const std::size_t digits = last == std::string::npos ? 0 : last + 1;
    if (digits == group.size() || digits == 0 || group.size() - digits > 9)
    {
        return false; // no trailing number, or no prefix
    }
    prefix = group.substr(0, digits);
    number = std::stoull(group.substr(digits));
    return true;
}

/** \return \p text split at every \p separator ("" gives no part) */
std::vector<std::string>
SplitText(const std::string& text, char separator)
{
    std::vector<std::string> parts;
    std::size_t at = 0;
    while (at <= text.size() && !text.empty())
    {
        const std::size_t end = std::min(text.find(separator, at), text.size());
        parts.push_back(text.substr(at, end - at));
        at = end + 1;
    }
    return parts;
}

} // namespace

RankShift
RankShift::One(uint32_t shift,
               uint32_t stride,
               uint32_t period,
               std::shared_ptr<const std::map<std::string, uint32_t>> groupStrides)
{
    RankShift one;
    one.turns.push_back({RankDigit{stride, period, std::move(groupStrides)}, shift});
    return one;
}

bool
RankShift::IsIdentity() const
{
    for (const Turn& turn : turns)
    {
        if (turn.digit.period > 1 && turn.shift % turn.digit.period != 0)
        {
            return false;
        }
    }
    return true;
}

uint32_t
RankShift::Map(uint32_t rank) const
{
    uint64_t mapped = rank;
    for (const Turn& turn : turns)
    {
        const RankDigit& digit = turn.digit;
        if (digit.period <= 1 || turn.shift % digit.period == 0)
        {
            continue;
        }
        const uint64_t value = (mapped / digit.stride) % digit.period;
        const uint64_t shifted = (value + turn.shift) % digit.period;
        mapped = mapped - value * digit.stride + shifted * digit.stride;
    }
    return static_cast<uint32_t>(mapped);
}

std::string
RankShift::Name(const std::string& group) const
{
    std::string prefix;
    uint64_t number = 0;
    if (IsIdentity() || !SplitGroupName(group, prefix, number))
    {
        return group;
    }
    bool renamed = false;
    for (const Turn& turn : turns)
    {
        if (!turn.digit.groupStrides)
        {
            continue;
        }
        const auto it = turn.digit.groupStrides->find(prefix);
        if (it != turn.digit.groupStrides->end())
        {
            number += uint64_t{it->second} * turn.shift;
            renamed = true;
        }
    }
    return renamed ? prefix + std::to_string(number) : group;
}

std::string
RankShift::ToText() const
{
    std::string text;
    for (const Turn& turn : turns)
    {
        text += (text.empty() ? "" : ";") + std::to_string(turn.shift) + "," +
                std::to_string(turn.digit.stride) + "," + std::to_string(turn.digit.period);
        if (turn.digit.groupStrides)
        {
            for (const auto& [prefix, stride] : *turn.digit.groupStrides)
            {
                text += "," + prefix + ":" + std::to_string(stride);
            }
        }
    }
    return text;
}

RankShift
RankShift::FromText(const std::string& text, std::string& error)
{
    error.clear();
    RankShift shift;
    for (const std::string& part : SplitText(text, ';'))
    {
        const std::vector<std::string> fields = SplitText(part, ',');
        Turn turn;
        if (fields.size() < 3 || !ParseCount(fields[0], turn.shift) ||
            !ParseCount(fields[1], turn.digit.stride) ||
            !ParseCount(fields[2], turn.digit.period) || turn.digit.stride == 0 ||
            turn.digit.period == 0)
        {
            error = "'" + part + "' is not shift,stride,period (stride and period at least 1)";
            return RankShift();
        }
        auto strides = std::make_shared<std::map<std::string, uint32_t>>();
        for (std::size_t i = 3; i < fields.size(); ++i)
        {
            const std::size_t colon = fields[i].find(':');
            uint32_t stride = 0;
            if (colon == 0 || colon == std::string::npos ||
                !ParseCount(fields[i].substr(colon + 1), stride))
            {
                error = "'" + fields[i] + "' is not prefix:stride (e.g. tp:2)";
                return RankShift();
            }
            (*strides)[fields[i].substr(0, colon)] = stride;
        }
        turn.digit.groupStrides = strides;
        shift.turns.push_back(turn);
    }
    return shift;
}

RankShift
RankRoles::ShiftOf(uint32_t rank) const
{
    RankShift shift;
    for (const RankDigit& digit : digits)
    {
        shift.turns.push_back({digit, (rank / digit.stride) % digit.period});
    }
    return shift;
}

uint32_t
RankRoles::RoleOf(uint32_t rank) const
{
    uint32_t role = rank;
    for (const RankDigit& digit : digits)
    {
        role -= ((rank / digit.stride) % digit.period) * digit.stride;
    }
    return role;
}

const std::string&
RankRoles::TraceOf(uint32_t rank) const
{
    return roles.at(RoleOf(rank));
}

namespace
{

/** \return the digits' description for errors: "(rank / 1) % 8, (rank / 8) % 2" */
std::string
DescribeDigits(const std::vector<RankDigit>& digits)
{
    std::string text;
    for (const RankDigit& digit : digits)
    {
        text += (text.empty() ? "" : ", ") + std::string("(rank / ") +
                std::to_string(digit.stride) + ") % " + std::to_string(digit.period);
    }
    return text;
}

/** \return the group strides of \p value (a "group_strides" object), or throws naming \p key */
std::shared_ptr<const std::map<std::string, uint32_t>>
GroupStrides(const nlohmann::json* value, const std::string& path, const std::string& key)
{
    auto strides = std::make_shared<std::map<std::string, uint32_t>>();
    if (!value)
    {
        return strides;
    }
    if (!value->is_object())
    {
        throw TraceError(path, key, "expected an object of group name prefixes and strides");
    }
    for (const auto& [prefix, stride] : value->items())
    {
        if (prefix.empty() || !stride.is_number_integer() || stride.get<int64_t>() < 0 ||
            stride.get<int64_t>() > int64_t{UINT32_MAX})
        {
            throw TraceError(path,
                             key + ", '" + prefix + "'",
                             "expected a non-empty prefix and a non-negative integer");
        }
        (*strides)[prefix] = static_cast<uint32_t>(stride.get<int64_t>());
    }
    return strides;
}

/** \return the member \p key of \p object, or nullptr */
const nlohmann::json*
Member(const nlohmann::json& object, const std::string& key)
{
    auto it = object.find(key);
    return it == object.end() ? nullptr : &*it;
}

/** Reads the digits of a manifest of \p version into \p roles, checked, or throws. */
void
ReadDigits(const nlohmann::json& document,
           const std::string& path,
           uint32_t version,
           RankRoles& roles)
{
    if (version == 1)
    {
        RankDigit digit;
        digit.stride = Count(document, path, "shift_stride", 1);
        digit.period = Count(document, path, "shift_period", 1);
        digit.groupStrides =
            GroupStrides(Member(document, "group_strides"), path, "key 'group_strides'");
        if (uint64_t{digit.stride} * digit.period > roles.ranks ||
            roles.ranks % (uint64_t{digit.stride} * digit.period) != 0)
        {
            throw TraceError(path,
                             "key 'shift_period'",
                             "shift_stride " + std::to_string(digit.stride) + " x shift_period " +
                                 std::to_string(digit.period) + " does not divide the " +
                                 std::to_string(roles.ranks) + " ranks");
        }
        roles.digits.push_back(digit);
        return;
    }
    const nlohmann::json* list = Member(document, "digits");
    if (!list || !list->is_array())
    {
        throw TraceError(path,
                         "key 'digits'",
                         list ? "expected a list of {stride, period, group_strides}" : "missing");
    }
    uint64_t below = 1; // the place value above the previous digit
    for (std::size_t i = 0; i < list->size(); ++i)
    {
        const nlohmann::json& item = (*list)[i];
        const std::string where = "key 'digits', item " + std::to_string(i);
        if (!item.is_object())
        {
            throw TraceError(path, where, "expected an object {stride, period, group_strides}");
        }
        RankDigit digit;
        digit.stride = Count(item, path, "stride", 1, where + ", ");
        digit.period = Count(item, path, "period", 1, where + ", ");
        digit.groupStrides =
            GroupStrides(Member(item, "group_strides"), path, where + ", key 'group_strides'");
        const uint64_t span = uint64_t{digit.stride} * digit.period;
        if (digit.stride % below != 0 || span > roles.ranks || roles.ranks % span != 0)
        {
            throw TraceError(
                path,
                where,
                "stride " + std::to_string(digit.stride) + " x period " +
                    std::to_string(digit.period) +
                    (digit.stride % below != 0
                         ? " overlaps the digit before it (strides ascending, "
                           "each a multiple of the one below times its period)"
                         : " does not divide the " + std::to_string(roles.ranks) + " ranks"));
        }
        below = span;
        roles.digits.push_back(digit);
    }
}

} // namespace

std::string
RankRolesPath(const std::string& prefix)
{
    return prefix + ".roles.json";
}

bool
HasRankRoles(const std::string& prefix)
{
    return FileExists(RankRolesPath(prefix));
}

RankRoles
ReadRankRoles(const std::string& path)
{
    const nlohmann::json document = ReadJsonDocument(path);
    if (!document.is_object())
    {
        throw TraceError(path, "top level", "not a rank-roles manifest: expected a JSON object");
    }
    auto format = document.find("format");
    if (format == document.end() || !format->is_string() || *format != kFormat)
    {
        throw TraceError(path,
                         "key 'format'",
                         std::string("expected \"") + kFormat + "\" (a rank-roles manifest)");
    }
    const uint32_t version = Count(document, path, "version", 1);
    if (version > 2)
    {
        throw TraceError(path, "key 'version'", "only versions 1 and 2 are known");
    }
    RankRoles roles;
    roles.path = path;
    roles.ranks = Count(document, path, "ranks", 1);
    ReadDigits(document, path, version, roles);
    auto list = document.find("roles");
    if (list == document.end() || !list->is_object())
    {
        throw TraceError(path,
                         "key 'roles'",
                         list == document.end() ? "missing"
                                                : "expected an object of ranks and their traces");
    }
    const std::string directory = DirectoryOf(path);
    for (const auto& [key, file] : list->items())
    {
        const uint32_t rank = RankKey(key, path);
        const std::string where = "key 'roles', rank " + key;
        if (rank >= roles.ranks || roles.RoleOf(rank) != rank)
        {
            throw TraceError(path,
                             where,
                             "not a role: roles are the ranks below " +
                                 std::to_string(roles.ranks) + " whose digits " +
                                 DescribeDigits(roles.digits) + " are 0");
        }
        if (!file.is_string() || file.get<std::string>().empty())
        {
            throw TraceError(path, where, "expected the trace's path");
        }
        std::string trace = file.get<std::string>();
        trace = trace[0] == '/' ? trace : directory + trace;
        if (!FileExists(trace) && !FileExists(trace + ".gz"))
        {
            throw TraceError(path, where, "the trace " + trace + " does not exist");
        }
        roles.roles[rank] = FileExists(trace) ? trace : trace + ".gz";
    }
    for (uint32_t rank = 0; rank < roles.ranks; ++rank)
    {
        if (roles.RoleOf(rank) == rank && roles.roles.count(rank) == 0)
        {
            throw TraceError(path,
                             "key 'roles'",
                             "no trace for role " + std::to_string(rank) +
                                 " (the ranks that differ from it only in the digits " +
                                 DescribeDigits(roles.digits) + " read it)");
        }
    }
    return roles;
}

void
WriteRankRoles(const std::string& path, const RankRoles& roles)
{
    nlohmann::ordered_json document;
    document["format"] = kFormat;
    document["version"] = 2;
    document["ranks"] = roles.ranks;
    nlohmann::ordered_json digits = nlohmann::ordered_json::array();
    for (const RankDigit& digit : roles.digits)
    {
        nlohmann::ordered_json item;
        item["stride"] = digit.stride;
        item["period"] = digit.period;
        nlohmann::ordered_json strides = nlohmann::ordered_json::object();
        if (digit.groupStrides)
        {
            for (const auto& [prefix, stride] : *digit.groupStrides)
            {
                strides[prefix] = stride;
            }
        }
        item["group_strides"] = strides;
        digits.push_back(item);
    }
    document["digits"] = digits;
    nlohmann::ordered_json list = nlohmann::ordered_json::object();
    for (const auto& [rank, file] : roles.roles)
    {
        list[std::to_string(rank)] = file;
    }
    document["roles"] = list;
    AtomicOutputFile out(path);
    out.Write(document.dump(1) + "\n");
    out.Commit();
}

} // namespace ns3
