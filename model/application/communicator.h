/*
 * Communicators (process groups): which global ranks take part in a collective.
 */
#ifndef CHAKRA_COMMUNICATOR_H
#define CHAKRA_COMMUNICATOR_H

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
 * \ingroup chakra
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

/**
 * \ingroup chakra
 * \brief A process group as a trace declares it.
 */
struct ProcessGroupSpec
{
    std::string name;             //!< pg_name
    std::vector<uint32_t> ranks;  //!< global ranks (empty: 0 .. size-1)
    uint32_t size{0};             //!< group_size
};

/**
 * Parses the process groups of a `process_group:init` METADATA node: its inputs.values holds a
 * JSON list of objects with "pg_name", "ranks" and "group_size" (or "pg_size"). Also accepted:
 * that list wrapped in a one-element list, or as a JSON string inside one, as host traces carry
 * it; and Python's text of either (single quotes, True/False/None), as the reference Chakra
 * converter writes it: ['[{"pg_name": "0", ...}]'].
 * \param text the JSON text
 * \param[out] error why parsing failed
 * \return the groups (empty on error)
 */
std::vector<ProcessGroupSpec> ParseProcessGroups(const std::string& text, std::string& error);

/** \return the communicator id for a pg name (FNV-1a, the same on every rank) */
uint64_t CommunicatorId(const std::string& name);

} // namespace ns3

#endif // CHAKRA_COMMUNICATOR_H
