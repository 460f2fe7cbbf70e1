/*
 * ASTRA-sim flavour of a trace set: the same workload written so that ASTRA-sim's workload
 * layer runs it (its analytical backend aborts on a METADATA node, and it names communicators
 * by number with the members in a separate JSON file).
 */
#ifndef CHAKRA_ASTRA_SIM_EXPORT_H
#define CHAKRA_ASTRA_SIM_EXPORT_H

#include "et_def.pb.h"

#include "ns3/communicator.h"

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup chakra-workload
 * \brief What ExportForAstraSim did.
 */
struct AstraSimExport
{
    std::map<std::string, std::string> groupIds;         //!< pg_name -> ASTRA-sim's communicator id
    std::map<std::string, std::vector<uint32_t>> groups; //!< id -> members (ids >= 1)
    std::string commGroupFile;                           //!< <prefix>.comm-groups.json
};

/**
 * \ingroup chakra-workload
 * \param type a collective
 * \return true for the collectives ASTRA-sim's workload layer simulates: all-reduce,
 *         all-gather, reduce-scatter and all-to-all
 */
bool AstraSimRunsCollective(ChakraProtoMsg::CollectiveCommType type);

/**
 * \ingroup chakra-workload
 * Adds the process groups a process_group:init METADATA node declares to \p declared, in
 * declaration order (a group listing no ranks spans 0 .. its size - 1).
 * \param values the node's inputs.values
 * \param declared the groups declared so far, by this and earlier ranks
 * \param path the file, for errors
 * \param node the node id, for errors
 * \throws TraceError if the description cannot be read, or a group has other members than
 *         where it was declared before
 */
void AddAstraSimGroups(const std::string& values,
                       std::vector<ProcessGroupSpec>& declared,
                       const std::string& path,
                       uint64_t node);

/**
 * \ingroup chakra-workload
 * \param declared every group the ranks declare, in declaration order (AddAstraSimGroups)
 * \param ranks the number of ranks
 * \return ASTRA-sim's communicator id of every group: "0" for the first that spans every rank
 *         (ASTRA-sim's default communicator), 1, 2, ... for the others, whose members are
 *         listed in groups (commGroupFile left empty)
 */
AstraSimExport PlanAstraSimGroups(const std::vector<ProcessGroupSpec>& declared, uint32_t ranks);

/**
 * \ingroup chakra-workload
 * Rewrites one non-METADATA node in ASTRA-sim's convention (the caller drops METADATA nodes):
 * dependencies on dropped nodes removed, pg_name replaced by its communicator id, and a
 * communication node marked is_cpu_op = false.
 * \param node the node
 * \param plan the communicator ids (PlanAstraSimGroups)
 * \param dropped the ids of the nodes left out
 * \param path the file, for errors
 * \throws TraceError naming the file and node for a collective ASTRA-sim does not run, or a
 *         pg_name that is neither a declared group nor a number
 */
void RewriteForAstraSim(ChakraProtoMsg::Node& node,
                        const AstraSimExport& plan,
                        const std::set<uint64_t>& dropped,
                        const std::string& path);

/**
 * \ingroup chakra-workload
 * \param plan the communicator ids (PlanAstraSimGroups)
 * \return ASTRA-sim's --comm-group-configuration file: {"1": [0, 1], "2": [2, 3]}
 */
std::string AstraSimCommGroupsJson(const AstraSimExport& plan);

/**
 * Rewrites <prefix>.<rank>.et for rank 0 .. ranks - 1 in ASTRA-sim's convention:
 * - the process_group:init METADATA nodes are dropped (and dependencies on them);
 * - every pg_name becomes a communicator id: "0" for the first group of every rank (ASTRA-sim's
 *   default communicator: an empty or "0" pg_name means all NPUs), 1, 2, ... for the others
 *   in the order the traces declare them; <prefix>.comm-groups.json lists the members of ids
 *   from 1 ({"1": [0, 1, 2, 3], ...}: ASTRA-sim's --comm-group-configuration file);
 * - communication nodes get is_cpu_op = false (ASTRA-sim refuses communication on the CPU).
 * ASTRA-sim's workload layer runs all-reduce, all-gather, reduce-scatter and all-to-all
 * collectives, sends and receives: another collective is an error. Nothing is replaced unless
 * every file converts (temporary files, renamed at the end).
 *
 * \param prefix the trace prefix
 * \param ranks the number of ranks
 * \return the group ids and the communicator file written
 * \throws TraceError or std::invalid_argument naming the file and node that cannot be exported
 */
AstraSimExport ExportForAstraSim(const std::string& prefix, uint32_t ranks);

} // namespace ns3

#endif // CHAKRA_ASTRA_SIM_EXPORT_H
