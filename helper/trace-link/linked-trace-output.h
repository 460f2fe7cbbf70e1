/*
 * LinkedTraceOutput: the linker's last step, the linked trace document (private to
 * helper/trace-link).
 */
#ifndef CHAKRA_LINKED_TRACE_OUTPUT_H
#define CHAKRA_LINKED_TRACE_OUTPUT_H

#include "gpu-op-attachment.h"
#include "host-op-matching.h"
#include "link-dependencies.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup chakra-linker
 * \brief The iteration a linked trace covers: the ProfilerStep that overlaps the linked host
 * ops most, else their span.
 */
struct LinkedIteration
{
    std::string name; //!< ProfilerStep#N, or "" (the span of the linked host ops)
    TimeNs ts{0};     //!< start
    TimeNs dur{0};    //!< duration
};

/**
 * \ingroup chakra-linker
 * \brief The linked trace: the host nodes with their device times and dependencies, each
 * followed by the GPU nodes it launched, renumbered in that order, and the trace_link object.
 */
class LinkedTraceOutput
{
  public:
    /**
     * \param matching the host ops matched to Kineto CPU ops
     * \param device the Kineto trace
     * \return the iteration the linked ops cover
     */
    static LinkedIteration FindIteration(const HostOpMatching& matching, const KinetoTrace& device);

    /**
     * Numbers the output nodes: each host node, then the GPU ops it launched.
     * \param host the host trace (its nodes are moved into the document)
     * \param device the Kineto trace
     * \param matching the host ops matched to Kineto CPU ops
     * \param attachment the GPU ops attached to host ops
     * \param dependencies what the ops waited for
     */
    LinkedTraceOutput(HostTrace& host,
                      const KinetoTrace& device,
                      const HostOpMatching& matching,
                      const GpuOpAttachment& attachment,
                      const LinkDependencies& dependencies);

    /** \return the id of host op \p host in the output */
    uint64_t GetHostId(std::size_t host) const;

    /**
     * Builds the document; moves the host trace's nodes into it (call once).
     * \param summary the counts and findings of the link (the trace_link object)
     * \return the linked trace
     */
    HostJson BuildDocument(const LinkSummary& summary);

  private:
    /**
     * \param i a host op
     * \param node its node as read
     * \return the node with the output's ids, and the device times and dependencies if linked
     */
    HostJson BuildHostNode(std::size_t i, HostJson node) const;
    /** Sets the fw_parent of host op \p op's \p node to the output id it names. */
    void RemapForwardParent(const HostOp& op, HostJson& node) const;
    /** \return the node of GPU op \p gpu launched by host op \p host */
    HostJson BuildGpuNode(uint32_t gpu, int32_t host) const;
    /** \return the trace_link object */
    HostJson BuildTraceLink(const LinkSummary& summary) const;

    HostTrace& m_host;
    const KinetoTrace& m_device;
    const HostOpMatching& m_matching;
    const GpuOpAttachment& m_attachment;
    const LinkDependencies& m_dependencies;
    const std::vector<HostOp>& m_ops;

    std::vector<uint64_t> m_newHostId; //!< host op -> id in the output
    std::vector<uint64_t> m_newGpuId;  //!< GPU op -> id in the output (0 = not output)
};

} // namespace ns3

#endif // CHAKRA_LINKED_TRACE_OUTPUT_H
