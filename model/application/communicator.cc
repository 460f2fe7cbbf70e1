#include "communicator.h"

#include "ns3/json-limits.h"

#include <nlohmann/json.hpp>

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

std::vector<ProcessGroupSpec>
ParseProcessGroups(const std::string& text, std::string& error)
{
    using nlohmann::json;
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
        return {};
    }
    json document = json::parse(text, nullptr, false);
    // Unwrap ["[...]"] and [[...]] forms.
    for (int depth = 0; depth < 3; ++depth)
    {
        if (document.is_string())
        {
            if (tooDeep(document.get<std::string>()))
            {
                return {};
            }
            document = json::parse(document.get<std::string>(), nullptr, false);
        }
        else if (document.is_array() && document.size() == 1 && !document[0].is_object())
        {
            document = json(document[0]);
        }
    }
    if (document.is_discarded() || !document.is_array())
    {
        error = "process groups are not a JSON list of objects";
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
        if (item.contains("ranks") && item["ranks"].is_array())
        {
            for (const auto& rank : item["ranks"])
            {
                if (!rank.is_number_integer() || rank.get<int64_t>() < 0)
                {
                    error = "process group '" + group.name + "' has a bad rank " + rank.dump();
                    return {};
                }
                group.ranks.push_back(rank.get<uint32_t>());
            }
        }
        if (item.contains("group_size") && item["group_size"].is_number_integer())
        {
            group.size = item["group_size"].get<uint32_t>();
        }
        if (group.size == 0)
        {
            group.size = static_cast<uint32_t>(group.ranks.size());
        }
        groups.push_back(std::move(group));
    }
    return groups;
}

} // namespace ns3
