/*
 * What a replay drops from each node as it is read: fields that no part of the simulation
 * reads, so that the nodes a rank holds cost what the simulation needs of them.
 */
#ifndef CHAKRA_NODE_TRIM_H
#define CHAKRA_NODE_TRIM_H

#include "ns3/et-attribute.h"

#include <string>

namespace ns3
{

/**
 * \ingroup chakra-application
 * \param name an attribute name
 * \return true if it is one of the host trace's provenance attributes that the converter copies
 *         onto nodes (record function id, forward parent, sequence id, scope, forward thread,
 *         operator schema; and on GPU kernels the device, correlation id and category) and that
 *         no part of the simulation reads
 */
bool IsUnsimulatedAttribute(const std::string& name);

/**
 * \ingroup chakra-application
 * \brief Drops from a node, as it is read, the fields the simulation never reads.
 *
 * Removes the attributes IsUnsimulatedAttribute names (the others keep their order) and, except
 * on METADATA nodes (a process_group:init node's inputs.values declares the process groups),
 * the tensor inputs and outputs (values, shapes and types as text). Id, name, type, times and
 * dependency lists are kept. On the recorded DLRM job these fields are about two thirds of a
 * parsed node (doc/workloads.md, the DLRM job scaled).
 * \param node the node, changed in place
 */
void DropUnsimulatedFields(ChakraProtoMsg::Node& node);

} // namespace ns3

#endif // CHAKRA_NODE_TRIM_H
