#include "scaled-process-groups.h"

#include <algorithm>
#include <set>
#include <stdexcept>

namespace ns3
{

namespace
{

/** \return "'name' (ranks 0 1 2)" for errors */
std::string
DescribeGroup(const ProcessGroupSpec& group)
{
    std::string text = "'" + group.name + "' (ranks";
    for (std::size_t i = 0; i < group.ranks.size() && i < 16; ++i)
    {
        text += " " + std::to_string(group.ranks[i]);
    }
    return text + (group.ranks.size() > 16 ? " ...)" : ")");
}

/** \return true if \p ranks are all in one block of \p size ranks */
bool
InOneReplica(const std::vector<uint32_t>& ranks, uint32_t size)
{
    return std::all_of(ranks.begin(), ranks.end(), [&](uint32_t r) {
        return r / size == ranks.front() / size;
    });
}

/** \return true if \p ranks are, as a set, {o, o + size, o + 2 size, ...} below \p total */
bool
OnePerReplica(const std::vector<uint32_t>& ranks, uint32_t size, uint32_t total)
{
    const std::set<uint32_t> members(ranks.begin(), ranks.end());
    if (members.size() != total / size)
    {
        return false;
    }
    const uint32_t offset = *members.begin() % size;
    for (uint32_t rank = offset; rank < total; rank += size)
    {
        if (members.count(rank) == 0)
        {
            return false;
        }
    }
    return true;
}

} // namespace

ScaledProcessGroups::ScaledProcessGroups(const std::vector<ProcessGroupSpec>& recorded,
                                         uint32_t recordedRanks,
                                         bool dpOnly)
    : m_recordedRanks(recordedRanks)
{
    for (ProcessGroupSpec group : recorded)
    {
        if (group.ranks.empty())
        {
            for (uint32_t r = 0; r < group.size; ++r)
            {
                group.ranks.push_back(r);
            }
        }
        for (uint32_t rank : group.ranks)
        {
            if (rank >= recordedRanks)
            {
                throw std::invalid_argument("--input: process group " + DescribeGroup(group) +
                                            " names rank " + std::to_string(rank) + " of a " +
                                            std::to_string(recordedRanks) + "-rank job");
            }
        }
        if (!group.ranks.empty())
        {
            m_recorded.push_back(group);
        }
    }
    if (dpOnly)
    {
        for (const auto& group : m_recorded)
        {
            m_dp[group.name] = true;
        }
        return;
    }
    // The smallest replica that explains every group: the widest data-parallel scaling.
    std::string misfit;
    for (uint32_t size = 1; size < recordedRanks || size == 1; ++size)
    {
        std::map<std::string, bool> dp;
        if (recordedRanks % size == 0 && Fits(size, misfit, dp))
        {
            m_replicaSize = size;
            m_dp = dp;
            return;
        }
    }
    throw std::invalid_argument(
        "--input: process group " + misfit +
        " is neither the whole job, nor inside one replica, nor one rank of every replica, for "
        "any replica size dividing " +
        std::to_string(recordedRanks) +
        ": it cannot be classified as data-parallel or tensor/pipeline-parallel (give --dp-only "
        "to widen every group as data-parallel)");
}

bool
ScaledProcessGroups::Fits(uint32_t size, std::string& misfit, std::map<std::string, bool>& dp) const
{
    for (const auto& group : m_recorded)
    {
        const bool whole =
            std::set<uint32_t>(group.ranks.begin(), group.ranks.end()).size() == m_recordedRanks;
        if (whole || (size > 1 && OnePerReplica(group.ranks, size, m_recordedRanks)))
        {
            dp[group.name] = true;
        }
        else if (InOneReplica(group.ranks, size))
        {
            dp[group.name] = false;
        }
        else
        {
            misfit = DescribeGroup(group);
            return false;
        }
    }
    return true;
}

void
ScaledProcessGroups::SetScaledRanks(uint32_t ranks)
{
    if (ranks < m_recordedRanks)
    {
        throw std::invalid_argument(
            "--ranks " + std::to_string(ranks) + " is below the " +
            std::to_string(m_recordedRanks) +
            " recorded ranks: chakra_scale adds replicas, it does not drop recorded ranks");
    }
    if (ranks % m_replicaSize != 0)
    {
        throw std::invalid_argument(
            "--ranks " + std::to_string(ranks) + " is not a multiple of the replica size " +
            std::to_string(m_replicaSize) + " (the ranks of one tensor/pipeline-parallel replica)");
    }
    m_ranks = ranks;
}

uint32_t
ScaledProcessGroups::GetReplicaSize() const
{
    return m_replicaSize;
}

bool
ScaledProcessGroups::IsDataParallel(const std::string& name) const
{
    auto it = m_dp.find(name);
    return it == m_dp.end() || it->second; // undeclared: the simulator's whole job
}

std::vector<std::string>
ScaledProcessGroups::GetReplicaGroupNames() const
{
    std::vector<std::string> names;
    for (const auto& [name, dp] : m_dp)
    {
        if (!dp)
        {
            names.push_back(name);
        }
    }
    return names;
}

std::string
ScaledProcessGroups::ScaledName(const std::string& name, uint32_t copy) const
{
    return IsDataParallel(name) || copy == 0 ? name : name + "@" + std::to_string(copy);
}

std::vector<uint32_t>
ScaledProcessGroups::Widen(const std::vector<uint32_t>& ranks) const
{
    std::vector<uint32_t> widened;
    for (uint64_t base = 0; base < m_ranks; base += m_recordedRanks)
    {
        for (uint32_t rank : ranks)
        {
            if (base + rank < m_ranks)
            {
                widened.push_back(static_cast<uint32_t>(base + rank));
            }
        }
    }
    return widened;
}

double
ScaledProcessGroups::WideningFactor(const std::string& name) const
{
    if (!IsDataParallel(name))
    {
        return 1.0;
    }
    for (const auto& group : m_recorded)
    {
        if (group.name == name)
        {
            return static_cast<double>(Widen(group.ranks).size()) / group.ranks.size();
        }
    }
    return static_cast<double>(m_ranks) / m_recordedRanks; // undeclared: the whole job
}

std::vector<ProcessGroupSpec>
ScaledProcessGroups::ScaledGroups() const
{
    std::vector<ProcessGroupSpec> groups;
    for (const auto& group : m_recorded)
    {
        if (IsDataParallel(group.name))
        {
            std::vector<uint32_t> ranks = Widen(group.ranks);
            groups.push_back({group.name, ranks, static_cast<uint32_t>(ranks.size())});
            continue;
        }
        // A replica group lies inside one block of R ranks and M is a multiple of R: each
        // copy holds all of it or none of it.
        for (uint32_t copy = 0; uint64_t(copy) * m_recordedRanks + group.ranks.front() < m_ranks;
             ++copy)
        {
            ProcessGroupSpec clone{ScaledName(group.name, copy), {}, 0};
            for (uint32_t rank : group.ranks)
            {
                clone.ranks.push_back(copy * m_recordedRanks + rank);
            }
            clone.size = static_cast<uint32_t>(clone.ranks.size());
            groups.push_back(std::move(clone));
        }
    }
    return groups;
}

} // namespace ns3
