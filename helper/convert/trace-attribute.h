/*
 * How the converter copies a trace node's attributes into its .et node.
 */
#ifndef CHAKRA_TRACE_ATTRIBUTE_H
#define CHAKRA_TRACE_ATTRIBUTE_H

#include "pytorch-trace.h"

#include "ns3/et-node.h"

#include <string_view>

namespace ns3
{

/**
 * \param name an attribute name
 * \return true for the names the converter writes itself (is_cpu_op, comm_size, tid, ...): a
 *         trace attribute of that name is not copied
 */
bool IsConverterAttribute(std::string_view name);

/**
 * Adds one trace attribute to \p node with the oneof its JSON value calls for: int64_val for an
 * integer (uint64_val above the int64 range), double_val, bool_val, string_val, and any other
 * value as its compact JSON text in string_val. A null value is left out.
 * \param node the .et node
 * \param attr the trace attribute
 */
void AddTraceAttribute(ChakraProtoMsg::Node& node, const PyTorchAttr& attr);

} // namespace ns3

#endif // CHAKRA_TRACE_ATTRIBUTE_H
