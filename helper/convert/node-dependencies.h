/*
 * NodeDependencies: the control and data dependencies of the nodes a conversion writes
 * (private to helper/convert).
 */
#ifndef CHAKRA_NODE_DEPENDENCIES_H
#define CHAKRA_NODE_DEPENDENCIES_H

#include "conversion-report.h"
#include "node-roles.h"
#include "pytorch-trace.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace ns3
{

/**
 * \ingroup chakra-converter
 * \brief What each node of the output waits for.
 *
 * Control: the nearest ancestor in the output. Data: a host op waits for the previous host
 * op of its thread, its inter_thread_dep and the GPU ops it synchronises with; a GPU op waits
 * for its launcher, the previous op of its stream and its cross_stream_deps. A reference to a
 * node not in the output is dropped with a warning.
 */
class NodeDependencies
{
  public:
    /**
     * \param trace the trace
     * \param roles what each node becomes
     * \param report collects the warnings and counts
     */
    NodeDependencies(const PyTorchTrace& trace, const NodeRoles& roles, ConversionReport& report);

    /** Finds every dependency (each node's data deps sorted, without repeats or itself). */
    void Build();
    /** \throws TraceError naming a cycle of dependencies, if there is one */
    void CheckCycles() const;

    /** \return the nodes node \p i waits for (indices, ascending) */
    const std::vector<std::size_t>& GetDataDeps(std::size_t i) const;
    /** \return the nearest ancestor of node \p i in the output, if any */
    const std::optional<std::size_t>& GetControlDep(std::size_t i) const;
    /** \return the host thread of node \p i (inherited from its ancestors if it has none) */
    int64_t GetTid(std::size_t i) const;

  private:
    /** The host ops of each thread in program order. */
    struct ThreadOrder
    {
        std::vector<std::size_t> position;            //!< per host op: its place (from 1)
        std::vector<std::optional<std::size_t>> next; //!< per host op: the next of its thread
    };

    /** Control: the nearest ancestor in the output (not a metadata node); tids inherited. */
    void AddControlDeps();
    /** Makes each host op wait for the previous one of its thread. \return the order */
    ThreadOrder ChainHostOps();
    /** Host ops: after the previous one of their thread, their inter-thread and sync deps. */
    void AddHostDeps();
    /** GPU ops: after their launcher, and after the previous GPU op of their stream. */
    void AddGpuDeps();

    const PyTorchTrace& m_trace;                    //!< the input
    const NodeRoles& m_roles;                       //!< what each node becomes
    ConversionReport& m_report;                     //!< what happened
    std::vector<std::vector<std::size_t>> m_deps;   //!< data deps (indices)
    std::vector<std::optional<std::size_t>> m_ctrl; //!< ctrl dep (index)
    std::vector<int64_t> m_tid;                     //!< host thread (inherited if absent)
};

} // namespace ns3

#endif // CHAKRA_NODE_DEPENDENCIES_H
