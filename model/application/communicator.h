/*
 * Process groups as a trace declares them (process_group:init), and the id of a communicator
 * by name. The Communicator a collective runs on is model/collective's
 * (collective-communicator.h).
 */
#ifndef CHAKRA_COMMUNICATOR_H
#define CHAKRA_COMMUNICATOR_H

#include "ns3/collective-communicator.h"
#include "ns3/process-group-spec.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace ns3
{

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
