/*
 * The check of a process group's members both the converter and the simulator apply.
 */
#include "process-group-spec.h"

#include <algorithm>

namespace ns3
{

GroupMemberProblems
FindGroupMemberProblems(const ProcessGroupSpec& group)
{
    GroupMemberProblems problems;
    std::vector<uint32_t> sorted = group.ranks;
    std::sort(sorted.begin(), sorted.end());
    auto twice = std::adjacent_find(sorted.begin(), sorted.end());
    if (twice != sorted.end())
    {
        problems.repeatedRank = *twice;
    }
    problems.sizeDisagrees =
        !group.ranks.empty() && group.size != 0 && group.size != group.ranks.size();
    return problems;
}

} // namespace ns3
