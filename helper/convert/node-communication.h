/*
 * NodeCommunication: the process groups of a trace and what each node communicates (private to
 * helper/convert).
 */
#ifndef CHAKRA_NODE_COMMUNICATION_H
#define CHAKRA_NODE_COMMUNICATION_H

#include "collective-call.h"
#include "conversion-report.h"
#include "node-roles.h"
#include "process-group-table.h"
#include "pytorch-trace.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

namespace ns3
{

/** \ingroup chakra-converter \brief The communication a node carries. */
struct CommInfo
{
    CommOp op;                   //!< Collective, Send or Recv
    uint64_t bytes{0};           //!< comm_size
    std::string pgName;          //!< pg_name ("" = not named: the world)
    std::optional<int64_t> root; //!< global root rank
    int64_t src{0};              //!< global sender (send/recv)
    int64_t dst{0};              //!< global receiver (send/recv)
    int64_t tag{0};              //!< comm_tag (send/recv)
};

/**
 * \ingroup chakra-converter
 * \brief The process groups a trace declares, and the communication each node carries.
 *
 * A communication call (CollectiveCall) is carried by its NCCL kernel, or by its host op when
 * it has none; its ranks are made global with the process groups, and point-to-point messages
 * are numbered per (group, sender, receiver) in program order (comm_tag).
 */
class NodeCommunication
{
  public:
    /**
     * \param trace the trace
     * \param roles what each node becomes
     * \param report collects the warnings and counts
     */
    NodeCommunication(const PyTorchTrace& trace, const NodeRoles& roles, ConversionReport& report);

    /**
     * Reads the process_group:init nodes.
     * \param worldSize the number of ranks of the job, if known (fills a default group's ranks)
     */
    void ReadProcessGroups(std::optional<int64_t> worldSize);
    /**
     * Finds the communication calls and describes each one on its comm node.
     * \param rank this trace's global rank, if known (needed by send and recv)
     */
    void Find(std::optional<int64_t> rank);

    /** \return the process groups read */
    const ProcessGroupTable& GetGroups() const;
    /** \return the METADATA inputs.values of process_group:init node \p i */
    const std::string& GetMetadataValues(std::size_t i) const;
    /** \return the communication node \p i carries, if any */
    const std::optional<CommInfo>& Get(std::size_t i) const;
    /** \return whether node \p i carries its call's communication as a NCCL kernel */
    bool IsFromKernel(std::size_t i) const;

  private:
    /** Messages so far per (pg_name, src, dst): the next message's comm_tag. */
    using MessageCounts = std::map<std::tuple<std::string, int64_t, int64_t>, int64_t>;

    /** \return the pg_name of \p call: given, or found by its backend id ("" if neither) */
    std::string ResolvePg(const CollectiveCall& call) const;
    /**
     * \return the global rank of group-local rank \p local of group \p pg
     * \throws TraceError naming node \p node (\p what is the rank's role) if it is outside
     */
    int64_t ToGlobal(std::size_t node, const std::string& pg, int64_t local, const char* what);
    /**
     * \param call a communication call
     * \param sent messages sent so far (counted here)
     * \param received messages received so far (counted here)
     * \return what its comm node carries
     */
    CommInfo DescribeCall(const CollectiveCall& call, MessageCounts& sent, MessageCounts& received);
    /** Warns of the NCCL kernels no call claimed; makes a COMM_COLL of the nameable ones. */
    void ReportUnpairedKernels(const CollectiveCallSet& set);

    const PyTorchTrace& m_trace;                 //!< the input
    const NodeRoles& m_roles;                    //!< what each node becomes
    ConversionReport& m_report;                  //!< what happened
    std::optional<int64_t> m_rank;               //!< global rank, if known
    ProcessGroupTable m_groups;                  //!< process groups
    std::vector<std::string> m_metadataValues;   //!< METADATA inputs.values
    std::vector<std::optional<CommInfo>> m_comm; //!< per node: its communication
    std::vector<bool> m_fromKernel;              //!< comm node is a NCCL kernel
};

} // namespace ns3

#endif // CHAKRA_NODE_COMMUNICATION_H
