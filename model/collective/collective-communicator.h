/*
 * Communicator: the members of a collective call as one of them sees them. What a collective
 * needs of a process group, and no more: how a trace declares its groups is the application's
 * part (application/communicator.h).
 */
#ifndef CHAKRA_COLLECTIVE_COMMUNICATOR_H
#define CHAKRA_COLLECTIVE_COMMUNICATOR_H

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace ns3
{

/** A list of ranks or hosts that many ranks hold alike (one copy per job, not per rank). */
using SharedRankList = std::shared_ptr<const std::vector<uint32_t>>;

/**
 * \param list a list
 * \return a shared list equal to \p list: the same object for equal lists while any holder keeps
 *         it, so that n ranks holding the world's n members cost O(n) memory, not O(n^2)
 */
SharedRankList ShareRankList(std::vector<uint32_t> list);

/**
 * \ingroup chakra-collective
 * \brief A process group as one member sees it.
 */
struct Communicator
{
    std::string name;      //!< pg_name ("" = the world)
    uint64_t id{0};        //!< stable id derived from the name (the same on every rank)
    SharedRankList ranks;  //!< global ranks; index = rank within the communicator
    uint32_t myIndex{0};   //!< this rank's index
    SharedRankList hostOf; //!< host of each member (for hierarchical algorithms)

    /** \return the number of members */
    uint32_t Size() const
    {
        return ranks ? static_cast<uint32_t>(ranks->size()) : 0;
    }
};

} // namespace ns3

#endif // CHAKRA_COLLECTIVE_COMMUNICATOR_H
