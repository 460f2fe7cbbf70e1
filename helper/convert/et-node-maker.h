/*
 * EtNodeMaker: one node of a PyTorch trace as a Chakra .et node (private to helper/convert).
 */
#ifndef CHAKRA_ET_NODE_MAKER_H
#define CHAKRA_ET_NODE_MAKER_H

#include "conversion-report.h"
#include "node-communication.h"
#include "node-dependencies.h"
#include "node-roles.h"
#include "pytorch-trace.h"

#include "ns3/et-attribute.h"

#include <cstddef>
#include <optional>

namespace ns3
{

/**
 * \ingroup chakra-converter
 * \brief Makes the .et node of a trace node: its type (METADATA, COMP or COMM_*), times,
 * dependencies, io, and attributes (the converter's own, then the trace's).
 */
class EtNodeMaker
{
  public:
    /**
     * \param trace the trace
     * \param roles what each node becomes
     * \param communication what each node communicates
     * \param dependencies what each node waits for
     * \param report counts the nodes by type, the edges and the communication
     */
    EtNodeMaker(const PyTorchTrace& trace,
                const NodeRoles& roles,
                const NodeCommunication& communication,
                const NodeDependencies& dependencies,
                ConversionReport& report);

    /** \return the .et node of trace node \p i (one in the output) */
    ChakraProtoMsg::Node Make(std::size_t i);

  private:
    /** \return the time an op of \p source runs on its own (microseconds), if known */
    static std::optional<double> Duration(const PyTorchNode& source, bool gpu);
    /** Sets the node type of op \p i (COMP or COMM_*) and counts it. */
    void SetType(ChakraProtoMsg::Node& node, std::size_t i, bool gpu);
    /** Adds the attributes of op \p i: the converter's own, then the trace's. */
    void AddAttributes(ChakraProtoMsg::Node& node,
                       std::size_t i,
                       bool gpu,
                       std::optional<double> duration);

    const PyTorchTrace& m_trace;              //!< the input
    const NodeRoles& m_roles;                 //!< what each node becomes
    const NodeCommunication& m_communication; //!< what each node communicates
    const NodeDependencies& m_dependencies;   //!< what each node waits for
    ConversionReport& m_report;               //!< what happened
};

} // namespace ns3

#endif // CHAKRA_ET_NODE_MAKER_H
