/*
 * NodeRoles: a node is a GPU op, a process group declaration, a profiler root or a host op.
 */
#include "node-roles.h"

namespace ns3
{

NodeRoles::NodeRoles(const PyTorchTrace& trace, ConversionReport& report)
{
    m_role.assign(trace.GetSize(), NodeRole::HostOp);
    for (std::size_t i = 0; i < trace.GetSize(); ++i)
    {
        const PyTorchNode& node = trace.GetNode(i);
        if (node.isGpuOp)
        {
            m_role[i] = NodeRole::GpuOp;
        }
        else if (IsProfilerRootName(node.name))
        {
            m_role[i] = NodeRole::Dropped;
            ++report.droppedRoots;
        }
        else if (IsProcessGroupInitName(node.name))
        {
            m_role[i] = NodeRole::Metadata;
        }
    }
}

NodeRole
NodeRoles::Get(std::size_t i) const
{
    return m_role[i];
}

bool
NodeRoles::IsHostWork(std::size_t i) const
{
    return m_role[i] == NodeRole::HostOp;
}

bool
NodeRoles::InOutput(std::size_t i) const
{
    return m_role[i] != NodeRole::Dropped;
}

bool
NodeRoles::IsOp(std::size_t i) const
{
    return InOutput(i) && m_role[i] != NodeRole::Metadata;
}

} // namespace ns3
