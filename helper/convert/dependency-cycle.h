/*
 * Finding a cycle in a dependency graph without recursion.
 */
#ifndef CHAKRA_DEPENDENCY_CYCLE_H
#define CHAKRA_DEPENDENCY_CYCLE_H

#include <cstddef>
#include <vector>

namespace ns3
{

/**
 * \ingroup chakra-converter
 * \brief Looks for a dependency cycle, iteratively (Kahn's algorithm, then a walk along the
 * dependencies of the nodes it could not order), so any depth is fine.
 * \param deps for every node (by index), the indices of the nodes it depends on
 * \return the indices of one cycle in execution order (each depends on the one before, the
 *         first on the last), starting at its smallest index; empty if the graph is acyclic
 */
std::vector<std::size_t> FindDependencyCycle(const std::vector<std::vector<std::size_t>>& deps);

} // namespace ns3

#endif // CHAKRA_DEPENDENCY_CYCLE_H
