/*
 * NodeRoles: what each node of a PyTorch trace becomes in the .et (private to helper/convert).
 */
#ifndef CHAKRA_NODE_ROLES_H
#define CHAKRA_NODE_ROLES_H

#include "conversion-report.h"
#include "pytorch-trace.h"

#include <cstddef>
#include <vector>

namespace ns3
{

/** \ingroup chakra-converter \brief What a trace node becomes. */
enum class NodeRole
{
    Dropped,  //!< profiler thread/process root: not work, left out
    Metadata, //!< process_group:init
    HostOp,   //!< host op (COMP, or the comm node of a call without kernel)
    GpuOp,    //!< kernel, memcpy, memset (COMP, or the comm node of a call)
};

/**
 * \ingroup chakra-converter
 * \brief The role of every node of a trace: GPU op, process group declaration, profiler root
 * (left out) or host op.
 */
class NodeRoles
{
  public:
    /**
     * \param trace the trace
     * \param report counts the profiler roots left out
     */
    NodeRoles(const PyTorchTrace& trace, ConversionReport& report);

    /** \return the role of node \p i */
    NodeRole Get(std::size_t i) const;
    /** \return whether node \p i is a host op */
    bool IsHostWork(std::size_t i) const;
    /** \return whether node \p i is written (a METADATA node too) */
    bool InOutput(std::size_t i) const;
    /** \return whether node \p i is written as an op (not left out, not METADATA) */
    bool IsOp(std::size_t i) const;

  private:
    std::vector<NodeRole> m_role; //!< per node
};

} // namespace ns3

#endif // CHAKRA_NODE_ROLES_H
