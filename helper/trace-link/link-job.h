/*
 * LinkJob: one linking of a host execution trace to the Kineto trace of the same run, the
 * engine behind TraceLinker::Link. It runs the linker's steps, each a class of its own; this
 * header is private to helper/trace-link.
 */
#ifndef CHAKRA_LINK_JOB_H
#define CHAKRA_LINK_JOB_H

#include "gpu-op-attachment.h"
#include "host-op-matching.h"
#include "link-dependencies.h"
#include "linked-trace-output.h"
#include "trace-linker.h"

#include <cstdint>

namespace ns3
{

/**
 * \ingroup chakra-linker
 * \brief One linking job: the driver of the linker's steps.
 *
 * Run() matches host ops to Kineto CPU ops (HostOpMatching), attaches GPU ops to their
 * launchers (GpuOpAttachment), adds the dependencies the traces show (LinkDependencies) and
 * builds the output document (LinkedTraceOutput), passing each step's result to the next, and
 * gathers the summary.
 */
class LinkJob
{
  public:
    /**
     * \param options the linker's options
     * \param host the host trace (its nodes are moved into the output)
     * \param device the Kineto trace
     * \param rank the rank the caller gives
     */
    LinkJob(const TraceLinker::Options& options,
            HostTrace& host,
            const KinetoTrace& device,
            int64_t rank);

    /** Runs every step in order and returns the linked trace and its summary. */
    LinkResult Run();

  private:
    /** Throws if the host trace's pid is not among the device trace's host pids. */
    void CheckSameRun() const;
    /** Matches the host ops; throws if none matches. */
    void MatchHostOps(HostOpMatching& matching);
    /** Warns if the device trace names another rank than the one given. */
    void CheckRank();
    /** Lists the host ops left unmatched and the GPU ops left unattached, with reasons. */
    void ListUnmatched(const HostOpMatching& matching,
                       const GpuOpAttachment& attachment,
                       const LinkedTraceOutput& output);

    const TraceLinker::Options& m_options;
    HostTrace& m_host;
    const KinetoTrace& m_device;
    LinkSummary m_summary; //!< what the steps found
};

} // namespace ns3

#endif // CHAKRA_LINK_JOB_H
