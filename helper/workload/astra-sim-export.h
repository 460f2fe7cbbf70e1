/*
 * ASTRA-sim flavour of a trace set: the same workload written so that ASTRA-sim's workload
 * layer runs it (its analytical backend aborts on a METADATA node, and it names communicators
 * by number with the members in a separate JSON file).
 */
#ifndef CHAKRA_ASTRA_SIM_EXPORT_H
#define CHAKRA_ASTRA_SIM_EXPORT_H

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup chakra
 * \brief What ExportForAstraSim did.
 */
struct AstraSimExport
{
    std::map<std::string, std::string> groupIds; //!< pg_name -> ASTRA-sim's communicator id
    std::map<std::string, std::vector<uint32_t>> groups; //!< id -> members (ids >= 1)
    std::string commGroupFile; //!< <prefix>.comm-groups.json
};

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
