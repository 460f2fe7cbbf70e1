#include "rank-roles.h"

#include "json-document.h"
#include "trace-error.h"
#include "trace-file.h"

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

/** \return a key's value as a count in [minimum, 2^32), or throws naming the key */
uint32_t
Count(const nlohmann::json& document,
      const std::string& path,
      const std::string& key,
      uint32_t minimum)
{
    auto it = document.find(key);
    if (it == document.end())
    {
        throw TraceError(path, "key '" + key + "'", "missing");
    }
    if (!it->is_number_integer() || it->get<int64_t>() < minimum ||
        it->get<int64_t>() > int64_t{UINT32_MAX})
    {
        throw TraceError(path,
                         "key '" + key + "'",
                         it->dump() + " is not an integer of at least " + std::to_string(minimum));
    }
    return static_cast<uint32_t>(it->get<int64_t>());
}

/** \return \p text as a rank (decimal, no sign, no leading zero), or throws */
uint32_t
RankKey(const std::string& text, const std::string& path)
{
    const bool digits = !text.empty() && text.size() <= 10 &&
                        text.find_first_not_of("0123456789") == std::string::npos &&
                        (text.size() == 1 || text[0] != '0');
    if (!digits || std::stoull(text) > UINT32_MAX)
    {
        throw TraceError(path, "key 'roles'", "'" + text + "' is not a rank");
    }
    return static_cast<uint32_t>(std::stoull(text));
}

} // namespace

bool
RankShift::IsIdentity() const
{
    return period <= 1 || shift % period == 0;
}

uint32_t
RankShift::Map(uint32_t rank) const
{
    if (IsIdentity())
    {
        return rank;
    }
    const uint64_t digit = (uint64_t{rank} / stride) % period;
    const uint64_t shifted = (digit + shift) % period;
    return static_cast<uint32_t>(uint64_t{rank} - digit * stride + shifted * stride);
}

std::string
RankShift::Name(const std::string& group) const
{
    if (IsIdentity() || !groupStrides)
    {
        return group;
    }
    const auto last = group.find_last_not_of("0123456789");
    const std::size_t digits = last == std::string::npos ? 0 : last + 1;
    if (digits == group.size() || digits == 0 || group.size() - digits > 9)
    {
        return group; // no trailing number, or no prefix
    }
    const auto it = groupStrides->find(group.substr(0, digits));
    if (it == groupStrides->end())
    {
        return group;
    }
    const uint64_t number = std::stoull(group.substr(digits));
    return group.substr(0, digits) + std::to_string(number + uint64_t{it->second} * shift);
}

RankShift
RankRoles::ShiftOf(uint32_t rank) const
{
    RankShift shift;
    shift.stride = stride;
    shift.period = period;
    shift.shift = (rank / stride) % period;
    shift.groupStrides = groupStrides;
    return shift;
}

uint32_t
RankRoles::RoleOf(uint32_t rank) const
{
    return rank - ((rank / stride) % period) * stride;
}

const std::string&
RankRoles::TraceOf(uint32_t rank) const
{
    return roles.at(RoleOf(rank));
}

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
    if (Count(document, path, "version", 1) != 1)
    {
        throw TraceError(path, "key 'version'", "only version 1 is known");
    }
    RankRoles roles;
    roles.path = path;
    roles.ranks = Count(document, path, "ranks", 1);
    roles.stride = Count(document, path, "shift_stride", 1);
    roles.period = Count(document, path, "shift_period", 1);
    if (uint64_t{roles.stride} * roles.period > roles.ranks ||
        roles.ranks % (uint64_t{roles.stride} * roles.period) != 0)
    {
        throw TraceError(path,
                         "key 'shift_period'",
                         "shift_stride " + std::to_string(roles.stride) + " x shift_period " +
                             std::to_string(roles.period) + " does not divide the " +
                             std::to_string(roles.ranks) + " ranks");
    }
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
                                 std::to_string(roles.ranks) + " whose digit (rank / " +
                                 std::to_string(roles.stride) + ") % " +
                                 std::to_string(roles.period) + " is 0");
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
                             "no trace for role " + std::to_string(rank) + " (ranks " +
                                 std::to_string(rank) + " + k x " + std::to_string(roles.stride) +
                                 ", k < " + std::to_string(roles.period) + ", read it)");
        }
    }
    auto strides = std::make_shared<std::map<std::string, uint32_t>>();
    auto groups = document.find("group_strides");
    if (groups != document.end())
    {
        if (!groups->is_object())
        {
            throw TraceError(path,
                             "key 'group_strides'",
                             "expected an object of group name prefixes and strides");
        }
        for (const auto& [prefix, stride] : groups->items())
        {
            if (prefix.empty() || !stride.is_number_integer() || stride.get<int64_t>() < 0 ||
                stride.get<int64_t>() > int64_t{UINT32_MAX})
            {
                throw TraceError(path,
                                 "key 'group_strides', '" + prefix + "'",
                                 "expected a non-empty prefix and a non-negative integer");
            }
            (*strides)[prefix] = static_cast<uint32_t>(stride.get<int64_t>());
        }
    }
    roles.groupStrides = strides;
    return roles;
}

void
WriteRankRoles(const std::string& path, const RankRoles& roles)
{
    nlohmann::ordered_json document;
    document["format"] = kFormat;
    document["version"] = 1;
    document["ranks"] = roles.ranks;
    document["shift_stride"] = roles.stride;
    document["shift_period"] = roles.period;
    nlohmann::ordered_json list = nlohmann::ordered_json::object();
    for (const auto& [rank, file] : roles.roles)
    {
        list[std::to_string(rank)] = file;
    }
    document["roles"] = list;
    nlohmann::ordered_json strides = nlohmann::ordered_json::object();
    if (roles.groupStrides)
    {
        for (const auto& [prefix, stride] : *roles.groupStrides)
        {
            strides[prefix] = stride;
        }
    }
    document["group_strides"] = strides;
    AtomicOutputFile out(path);
    out.Write(document.dump(1) + "\n");
    out.Commit();
}

} // namespace ns3
