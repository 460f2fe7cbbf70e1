/*
 * ProcessGroupSpec: a process group as a trace declares it, used by the converter (which reads
 * it from a host trace) and the simulator (which reads it from a .et), and the one check of
 * its members both apply.
 */
#ifndef CHAKRA_PROCESS_GROUP_SPEC_H
#define CHAKRA_PROCESS_GROUP_SPEC_H

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup chakra-trace
 * \brief A process group as a trace declares it.
 *
 * A group of size 0 is not a group: size 0 means the size is unknown.
 */
struct ProcessGroupSpec
{
    std::string name;            //!< pg_name
    std::vector<uint32_t> ranks; //!< global ranks in group order (empty: 0 .. size-1)
    uint32_t size{0};            //!< group_size (0: unknown)
};

/** \ingroup chakra-trace \brief What is wrong with the members a group declares. */
struct GroupMemberProblems
{
    std::optional<uint32_t> repeatedRank; //!< the smallest rank listed twice, if any
    bool sizeDisagrees{false};            //!< a known size differs from the listed ranks' count
};

/**
 * \ingroup chakra-trace
 * \brief Checks a group's members: a rank listed twice, or a size that disagrees with the
 * list, would leave the list to win silently and run its collectives over other ranks than
 * the job had.
 * \param group the group (a size of 0 or an empty list is not checked against the other)
 * \return what is wrong (nothing if the group is sound)
 */
GroupMemberProblems FindGroupMemberProblems(const ProcessGroupSpec& group);

} // namespace ns3

#endif // CHAKRA_PROCESS_GROUP_SPEC_H
