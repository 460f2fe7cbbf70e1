#include "communicator-table.h"

#include "ns3/log.h"

#include <algorithm>
#include <cstring>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("CommunicatorTable");

void
CommunicatorTable::Configure(uint32_t rank, uint32_t peerCount, SharedRankList hostOf)
{
    NS_LOG_FUNCTION(this << rank << peerCount);
    m_rank = rank;
    m_peerCount = peerCount;
    m_hostOf = std::move(hostOf);
}

void
CommunicatorTable::SetCommGroups(std::shared_ptr<const CommGroupFile> groups)
{
    NS_LOG_FUNCTION(this << groups.get());
    m_commGroups = std::move(groups);
}

const CommGroupFile*
CommunicatorTable::GetCommGroups() const
{
    return m_commGroups.get();
}

void
CommunicatorTable::SetRankShift(RankShift shift)
{
    NS_LOG_FUNCTION(this << shift.ToText());
    m_shift = std::move(shift);
}

std::string
CommunicatorTable::NameOf(const std::string& pg) const
{
    return m_shift.Name(pg);
}

void
CommunicatorTable::SetWarnings(std::string tracePath, WarnFn warn)
{
    m_tracePath = std::move(tracePath);
    m_warn = std::move(warn);
}

uint32_t
CommunicatorTable::HostOf(uint32_t rank) const
{
    return m_hostOf && rank < m_hostOf->size() ? (*m_hostOf)[rank] : rank;
}

bool
CommunicatorTable::Has(const std::string& pg) const
{
    return m_communicators.count(pg) != 0;
}

bool
CommunicatorTable::IsForeign(const std::string& pg) const
{
    return !Has(pg) &&
           std::binary_search(m_foreignGroups.begin(), m_foreignGroups.end(), CommunicatorId(pg));
}

Communicator&
CommunicatorTable::World()
{
    auto it = m_communicators.find("");
    if (it != m_communicators.end())
    {
        return it->second;
    }
    Communicator world;
    world.name = "";
    world.id = CommunicatorId("");
    std::vector<uint32_t> ranks;
    std::vector<uint32_t> hostOf;
    for (uint32_t r = 0; r < m_peerCount; ++r)
    {
        ranks.push_back(r);
        hostOf.push_back(HostOf(r));
    }
    world.ranks = ShareRankList(std::move(ranks));
    world.hostOf = ShareRankList(std::move(hostOf));
    world.myIndex = m_rank;
    return m_communicators[""] = world;
}

Communicator&
CommunicatorTable::Of(const EtNode& node)
{
    NS_LOG_FUNCTION(this << node.GetId());
    std::string pg = node.GetPgName();
    auto it = m_communicators.find(pg);
    if (it != m_communicators.end())
    {
        return it->second;
    }
    if (pg.empty())
    {
        return World();
    }
    if (const std::vector<uint32_t>* members = m_commGroups ? m_commGroups->Find(pg) : nullptr)
    {
        // The caller has checked that this rank is a member.
        return m_communicators[pg] = Make(pg, *members);
    }
    WarnUndeclared(pg, node);
    // An undeclared group spans every rank, but keeps its own name: its calls are numbered
    // apart from the world's, as they are on every rank.
    Communicator comm = World();
    comm.name = m_shift.Name(pg);
    comm.id = CommunicatorId(comm.name);
    return m_communicators[pg] = comm;
}

void
CommunicatorTable::WarnUndeclared(const std::string& pg, const EtNode& node) const
{
    // ASTRA-sim's default communicator, "0" (not listed in its file), is every rank.
    const bool numbered = pg.find_first_not_of("0123456789") == std::string::npos;
    if (m_declaredGroups)
    {
        m_warn("process group '" + pg + "' (first named by " + node.Describe() +
               ") is not declared by a process_group:init node: using every rank");
    }
    else if (m_commGroups && pg != "0")
    {
        m_warn("process group '" + pg + "' (first named by " + node.Describe() + ") is not in " +
               m_commGroups->path + ": using every rank");
    }
    else if (!m_commGroups && numbered && pg != "0")
    {
        // ASTRA-sim's traces name their communicators by number and list the members in a
        // separate file: without it a subgroup would wait for ranks that never call it.
        std::string prefix = m_tracePath;
        for (const char* suffix : {".gz", ".et"})
        {
            if (prefix.size() > std::strlen(suffix) &&
                prefix.compare(prefix.size() - std::strlen(suffix), std::string::npos, suffix) == 0)
            {
                prefix.erase(prefix.size() - std::strlen(suffix));
            }
        }
        prefix.erase(std::min(prefix.size(), prefix.find_last_of('.')));
        m_warn("process group '" + pg + "' (first named by " + node.Describe() +
               ") is a communicator number, as in ASTRA-sim's traces, but neither a "
               "process_group:init node nor a comm-groups file (" +
               prefix +
               ".comm-groups.json, ASTRA-sim's --comm-group-configuration) lists its members: "
               "using every rank");
    }
}

Communicator
CommunicatorTable::Make(const std::string& name, std::vector<uint32_t> members) const
{
    Communicator comm;
    comm.name = name;
    comm.id = CommunicatorId(name);
    comm.myIndex =
        static_cast<uint32_t>(std::find(members.begin(), members.end(), m_rank) - members.begin());
    std::vector<uint32_t> hostOf;
    for (uint32_t r : members)
    {
        hostOf.push_back(HostOf(r));
    }
    comm.ranks = ShareRankList(std::move(members));
    comm.hostOf = ShareRankList(std::move(hostOf));
    return comm;
}

void
CommunicatorTable::NoteDeclared(bool any)
{
    NS_LOG_FUNCTION(this << any);
    m_declaredGroups = m_declaredGroups || any;
}

std::string
CommunicatorTable::Declare(const ProcessGroupSpec& group)
{
    NS_LOG_FUNCTION(this << group.name);
    Communicator comm;
    comm.name = m_shift.Name(group.name);
    comm.id = CommunicatorId(comm.name);
    std::vector<uint32_t> ranks = group.ranks;
    if (ranks.empty())
    {
        uint32_t size = group.size > 0 ? group.size : m_peerCount;
        for (uint32_t r = 0; r < size; ++r)
        {
            ranks.push_back(r);
        }
    }
    if (!m_shift.IsIdentity())
    {
        // A role's trace: its members as this rank's replica has them, in the order every
        // member lists them (ascending, as the role's writer lists them).
        for (uint32_t& r : ranks)
        {
            r = r < m_peerCount ? m_shift.Map(r) : r;
        }
        std::sort(ranks.begin(), ranks.end());
    }
    auto me = std::find(ranks.begin(), ranks.end(), m_rank);
    if (me == ranks.end())
    {
        // A group this rank is not part of: remembered (by the name the nodes give it), so
        // that a collective on it is an error rather than a call over every rank.
        const uint64_t id = CommunicatorId(group.name);
        auto at = std::lower_bound(m_foreignGroups.begin(), m_foreignGroups.end(), id);
        if (at == m_foreignGroups.end() || *at != id)
        {
            m_foreignGroups.insert(at, id);
        }
        return "";
    }
    comm.myIndex = static_cast<uint32_t>(me - ranks.begin());
    bool valid = true;
    std::vector<uint32_t> hostOf;
    for (uint32_t r : ranks)
    {
        valid = valid && r < m_peerCount;
        hostOf.push_back(HostOf(r));
    }
    comm.ranks = ShareRankList(std::move(ranks));
    comm.hostOf = ShareRankList(std::move(hostOf));
    if (!valid)
    {
        return "process group '" + group.name + "' names a rank beyond the " +
               std::to_string(m_peerCount) + " ranks of this job (a rank's trace missing?)";
    }
    m_communicators[group.name] = comm;
    return "";
}

std::string
CommunicatorTable::Label(uint64_t id) const
{
    for (const auto& [pg, comm] : m_communicators)
    {
        if (comm.id == id)
        {
            return comm.name.empty() ? "the world communicator"
                                     : "communicator '" + comm.name + "'";
        }
    }
    if (m_commGroups)
    {
        for (const auto& [name, members] : m_commGroups->groups)
        {
            if (CommunicatorId(name) == id)
            {
                return "communicator '" + name + "'";
            }
        }
    }
    if (id == CommunicatorId(""))
    {
        return "the world communicator";
    }
    // A group this rank never used: its name is only on the sender's side.
    return "a communicator this rank never used (id " + std::to_string(id) + ")";
}

} // namespace ns3
