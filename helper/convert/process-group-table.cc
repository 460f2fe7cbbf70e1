#include "process-group-table.h"

#include "ns3/json-limits.h"
#include "ns3/trace-error.h"

namespace ns3
{

namespace
{

using Ordered = nlohmann::ordered_json;

/** Largest group accepted: a bigger one means a broken description. */
constexpr int64_t kMaxGroupSize = int64_t{1} << 24;

/**
 * \return the list of groups a process_group:init node holds in its first input value
 * \throws TraceError if that is not a JSON string holding a list
 */
Ordered
ParseGroupList(const PyTorchNode& node, const std::string& path, const std::string& where)
{
    const nlohmann::json values = node.inputs.ParseValues();
    if (!values.is_array() || values.empty() || !values[0].is_string())
    {
        throw TraceError(path,
                         where,
                         "process_group:init without a JSON string as its first input value");
    }
    Ordered groups;
    CheckJsonDepth(values[0].get_ref<const std::string&>(), path, where + ": process groups");
    try
    {
        groups = Ordered::parse(values[0].get_ref<const std::string&>());
    }
    catch (const Ordered::parse_error& e)
    {
        throw TraceError(path,
                         where,
                         std::string("process_group:init holds malformed JSON: ") + e.what());
    }
    if (!groups.is_array())
    {
        throw TraceError(path, where, "process_group:init does not hold a list of groups");
    }
    return groups;
}

/** \return the "pg_name" of one entry (a string, or an integer as text) */
std::string
ReadGroupName(const Ordered& group, const std::string& path, const std::string& where)
{
    if (!group.is_object() || !group.contains("pg_name"))
    {
        throw TraceError(path,
                         where,
                         "process_group:init entry without \"pg_name\": " + group.dump());
    }
    const Ordered& name = group["pg_name"];
    if (name.is_string())
    {
        return name.get<std::string>();
    }
    if (name.is_number_integer())
    {
        return std::to_string(name.get<int64_t>());
    }
    throw TraceError(path, where, "process_group:init \"pg_name\" is not a string: " + name.dump());
}

/**
 * Reads the "group_size" and "ranks" of one entry into \p pg, checking each (which makes them
 * fit a ProcessGroupSpec: a size from 1, ranks below kMaxGroupSize).
 */
void
ReadGroupMembers(const Ordered& group,
                 ProcessGroupSpec& pg,
                 const std::string& path,
                 const std::string& groupWhere)
{
    if (group.contains("group_size") && !group["group_size"].is_null())
    {
        const Ordered& size = group["group_size"];
        if (!size.is_number_integer() || size.get<int64_t>() <= 0 ||
            size.get<int64_t>() > kMaxGroupSize)
        {
            throw TraceError(path, groupWhere, "absurd group_size " + size.dump());
        }
        pg.size = static_cast<uint32_t>(size.get<int64_t>());
    }
    if (group.contains("ranks") && !group["ranks"].is_null())
    {
        const Ordered& ranks = group["ranks"];
        if (!ranks.is_array())
        {
            throw TraceError(path, groupWhere, "\"ranks\" is not a list");
        }
        for (const Ordered& rank : ranks)
        {
            if (!rank.is_number_integer() || rank.get<int64_t>() < 0 ||
                rank.get<int64_t>() >= kMaxGroupSize)
            {
                throw TraceError(path, groupWhere, "absurd rank " + rank.dump());
            }
            pg.ranks.push_back(static_cast<uint32_t>(rank.get<int64_t>()));
        }
    }
}

/**
 * Fills in the ranks of a group that lists none (0..size-1), refuses a group whose size
 * disagrees with its list or that lists a rank twice, and gives a listed group without a size
 * its list's.
 */
void
CompleteGroup(ProcessGroupSpec& pg,
              std::optional<int64_t> worldSize,
              const std::string& path,
              const std::string& groupWhere)
{
    if (pg.ranks.empty())
    {
        // PyTorch lists no ranks for the default group: it spans ranks 0..size-1.
        std::optional<int64_t> size = pg.size != 0 ? std::optional<int64_t>(pg.size) : worldSize;
        if (size)
        {
            for (int64_t r = 0; r < *size; ++r)
            {
                pg.ranks.push_back(static_cast<uint32_t>(r));
            }
            pg.size = static_cast<uint32_t>(*size);
        }
    }
    const GroupMemberProblems problems = FindGroupMemberProblems(pg);
    if (problems.sizeDisagrees)
    {
        // Written through, the list would win in the simulator while the size said else.
        throw TraceError(path,
                         groupWhere,
                         "lists " + std::to_string(pg.ranks.size()) +
                             " ranks but its group_size is " + std::to_string(pg.size));
    }
    if (problems.repeatedRank)
    {
        throw TraceError(path,
                         groupWhere,
                         "lists rank " + std::to_string(*problems.repeatedRank) + " twice");
    }
    if (pg.size == 0)
    {
        pg.size = static_cast<uint32_t>(pg.ranks.size());
    }
}

} // namespace

std::string
ProcessGroupTable::AddInitNode(const PyTorchNode& node,
                               const std::string& path,
                               std::optional<int64_t> worldSize)
{
    const std::string where = node.Describe();
    Ordered groups = ParseGroupList(node, path, where);
    for (Ordered& group : groups)
    {
        ProcessGroupSpec pg;
        pg.name = ReadGroupName(group, path, where);
        group["pg_name"] = pg.name;
        const std::string groupWhere = where + ": process group \"" + pg.name + "\"";
        ReadGroupMembers(group, pg, path, groupWhere);
        CompleteGroup(pg, worldSize, path, groupWhere);
        group["ranks"] = pg.ranks;
        if (pg.size != 0)
        {
            group["group_size"] = pg.size;
        }
        if (group.contains("backend_id") && group["backend_id"].is_number_integer())
        {
            m_backendIds[group["backend_id"].get<int64_t>()] = pg.name;
        }
        m_groups[pg.name] = std::move(pg);
    }
    return groups.dump();
}

bool
ProcessGroupTable::IsEmpty() const
{
    return m_groups.empty();
}

const ProcessGroupSpec*
ProcessGroupTable::Find(const std::string& name) const
{
    auto it = m_groups.find(name);
    return it == m_groups.end() ? nullptr : &it->second;
}

std::optional<std::string>
ProcessGroupTable::FindNameByBackendId(int64_t backendId) const
{
    auto it = m_backendIds.find(backendId);
    if (it == m_backendIds.end())
    {
        return std::nullopt;
    }
    return it->second;
}

std::optional<int64_t>
ProcessGroupTable::GetLargestGroupSize() const
{
    std::optional<int64_t> largest;
    for (const auto& [name, group] : m_groups)
    {
        if (group.size != 0 && (!largest || group.size > *largest))
        {
            largest = group.size;
        }
    }
    return largest;
}

std::optional<int64_t>
ProcessGroupTable::ToGlobal(const std::string& name, int64_t local) const
{
    if (local < 0)
    {
        return std::nullopt;
    }
    const ProcessGroupSpec* group = Find(name);
    if (group == nullptr || group->ranks.empty())
    {
        return local;
    }
    if (local >= static_cast<int64_t>(group->ranks.size()))
    {
        return std::nullopt;
    }
    return group->ranks[static_cast<std::size_t>(local)];
}

} // namespace ns3
