#include "communicator.h"

#include "ns3/json-limits.h"
#include "ns3/python-literal.h"

#include <limits>
#include <nlohmann/json.hpp>
#include <optional>

namespace ns3
{

uint64_t
CommunicatorId(const std::string& name)
{
    uint64_t hash = 1469598103934665603ull;
    for (unsigned char c : name)
    {
        hash ^= c;
        hash *= 1099511628211ull;
    }
    return hash;
}

namespace
{

using nlohmann::json;

/**
 * Parses the text of a process_group:init node into the list of groups: JSON, else Python's
 * text of a literal (the reference converter's str() of the inputs), unwrapping the ["[...]"]
 * and [[...]] forms.
 * \param[out] error why parsing failed
 * \return the list (discarded or not a list on error)
 */
json
ParseGroupList(const std::string& text, std::string& error)
{
    // Nesting past the readers' limit would overflow the stack in the copies below.
    auto tooDeep = [&error](const std::string& candidate) {
        std::optional<uint64_t> excess = FindJsonDepthExcess(candidate);
        if (excess)
        {
            error = "process groups: byte " + std::to_string(*excess) + ": " + JsonTooDeepMessage();
        }
        return excess.has_value();
    };
    if (tooDeep(text))
    {
        return json(json::value_t::discarded);
    }
    bool tooDeepSeen = false;
    auto parse = [&](const std::string& candidate) {
        if (tooDeep(candidate))
        {
            tooDeepSeen = true;
            return json(json::value_t::discarded);
        }
        json parsed = json::parse(candidate, nullptr, false);
        if (parsed.is_discarded())
        {
            std::optional<std::string> converted = PythonLiteralToJson(candidate);
            if (converted && !tooDeep(*converted))
            {
                parsed = json::parse(*converted, nullptr, false);
            }
        }
        return parsed;
    };
    json document = parse(text);
    for (int depth = 0; depth < 3 && !tooDeepSeen; ++depth)
    {
        if (document.is_string())
        {
            document = parse(document.get<std::string>());
        }
        else if (document.is_array() && document.size() == 1 && !document[0].is_object())
        {
            document = json(document[0]);
        }
    }
    if (tooDeepSeen)
    {
        return json(json::value_t::discarded);
    }
    if (document.is_discarded() || !document.is_array())
    {
        error = "process groups are neither a JSON list of objects nor Python's text of one "
                "(['[{\"pg_name\": ...}]'])";
        return json(json::value_t::discarded);
    }
    return document;
}

/**
 * Reads the ranks and size of one entry of the list into \p group.
 * \param[out] error why the entry is refused
 * \return false if it is
 */
bool
ReadGroupMembers(const json& item, ProcessGroupSpec& group, std::string& error)
{
    if (item.contains("ranks") && item["ranks"].is_array())
    {
        for (const auto& rank : item["ranks"])
        {
            if (!rank.is_number_integer() || rank.get<int64_t>() < 0 ||
                rank.get<int64_t>() > std::numeric_limits<uint32_t>::max())
            {
                error = "process group '" + group.name + "' has a bad rank " + rank.dump();
                return false;
            }
            group.ranks.push_back(rank.get<uint32_t>());
        }
    }
    // PyTorch writes "group_size" (older) or "pg_size" (newer).
    for (const char* key : {"group_size", "pg_size"})
    {
        if (group.size == 0 && item.contains(key) && item[key].is_number_integer())
        {
            const auto size = item[key].get<int64_t>();
            if (size < 0 || size > std::numeric_limits<uint32_t>::max())
            {
                error =
                    "process group '" + group.name + "' has a bad " + key + " " + item[key].dump();
                return false;
            }
            group.size = static_cast<uint32_t>(size);
        }
    }
    return true;
}

/**
 * Refuses a group that lists a rank twice or whose size disagrees with its list; gives a group
 * without a size its list's.
 * \param[out] error why the group is refused
 * \return false if it is
 */
bool
AcceptGroupMembers(ProcessGroupSpec& group, std::string& error)
{
    const GroupMemberProblems problems = FindGroupMemberProblems(group);
    if (problems.repeatedRank)
    {
        error = "process group '" + group.name + "' lists rank " +
                std::to_string(*problems.repeatedRank) + " twice";
        return false;
    }
    if (problems.sizeDisagrees)
    {
        error = "process group '" + group.name + "' lists " + std::to_string(group.ranks.size()) +
                " ranks but its group size is " + std::to_string(group.size);
        return false;
    }
    if (group.size == 0)
    {
        group.size = static_cast<uint32_t>(group.ranks.size());
    }
    return true;
}

} // namespace

std::vector<ProcessGroupSpec>
ParseProcessGroups(const std::string& text, std::string& error)
{
    const json document = ParseGroupList(text, error);
    if (document.is_discarded())
    {
        return {};
    }
    std::vector<ProcessGroupSpec> groups;
    for (const auto& item : document)
    {
        if (!item.is_object() || !item.contains("pg_name"))
        {
            error = "a process group without \"pg_name\"";
            return {};
        }
        ProcessGroupSpec group;
        const auto& name = item["pg_name"];
        group.name = name.is_string() ? name.get<std::string>() : name.dump();
        if (!ReadGroupMembers(item, group, error) || !AcceptGroupMembers(group, error))
        {
            return {};
        }
        groups.push_back(std::move(group));
    }
    return groups;
}

} // namespace ns3
