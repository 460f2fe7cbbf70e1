/*
 * The process groups of a job, as a trace's process_group:init node describes them.
 */
#ifndef CHAKRA_PROCESS_GROUP_TABLE_H
#define CHAKRA_PROCESS_GROUP_TABLE_H

#include "pytorch-trace.h"

#include "ns3/process-group-spec.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup chakra-converter
 * \brief The process groups named by process_group:init nodes.
 *
 * A process_group:init node holds, in its first input value, a JSON string: a list of objects
 * with "pg_name", "ranks" (global ranks; PyTorch writes [] for the default group, which spans
 * every rank), "group_size" and further keys (pg_desc, backend_config, backend_id, ...).
 */
class ProcessGroupTable
{
  public:
    /**
     * Reads one process_group:init node. A group with an empty rank list gets the ranks
     * 0..size-1, where size is its group_size or, without one, \p worldSize.
     * \param node the node
     * \param path the trace file, for errors
     * \param worldSize the number of ranks of the job, if known
     * \return the METADATA node's inputs.values: a JSON list of the groups, with "pg_name" a
     *         string and the filled-in "ranks" and "group_size" (other keys kept as given)
     * \throws TraceError if the description is not a list of groups or a group is absurd
     */
    std::string AddInitNode(const PyTorchNode& node,
                            const std::string& path,
                            std::optional<int64_t> worldSize);

    /** \return true if no group is known */
    bool IsEmpty() const;
    /** \param name a pg_name \return the group, or nullptr */
    const ProcessGroupSpec* Find(const std::string& name) const;
    /** \param backendId a backend_id \return the name of its group, if a group gives it */
    std::optional<std::string> FindNameByBackendId(int64_t backendId) const;
    /** \return the size of the largest group: the job's world size, if any group is known */
    std::optional<int64_t> GetLargestGroupSize() const;

    /**
     * Maps a group-local rank to a global rank. A group without a known rank list (or a name
     * no process_group:init gives, like "" for the world) maps each rank to itself.
     * \param name the pg_name
     * \param local the group-local rank
     * \return the global rank, or nullopt if \p local is outside the group
     */
    std::optional<int64_t> ToGlobal(const std::string& name, int64_t local) const;

  private:
    std::map<std::string, ProcessGroupSpec> m_groups; //!< by name
    std::map<int64_t, std::string> m_backendIds;      //!< backend_id -> name
};

} // namespace ns3

#endif // CHAKRA_PROCESS_GROUP_TABLE_H
