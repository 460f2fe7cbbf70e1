/*
 * LinkDependencies: the linker's third step, the waits the two traces show (private to
 * helper/trace-link).
 */
#ifndef CHAKRA_LINK_DEPENDENCIES_H
#define CHAKRA_LINK_DEPENDENCIES_H

#include "gpu-op-attachment.h"
#include "host-op-matching.h"

#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

namespace ns3
{

/**
 * \ingroup chakra-linker
 * \brief What the linked host ops and GPU ops waited for.
 *
 * A host op waited for GPU ops (sync_deps: a synchronising runtime call), for an op of another
 * thread (inter_thread_dep, and the idle time inside it, wait_dur), and for framework code no
 * op records (gap_dur); a GPU op waited for ops of other streams (cross_stream_deps).
 */
class LinkDependencies
{
  public:
    /**
     * \param options the linker's options (the gaps and delays that count as waits)
     * \param host the host trace
     * \param device the Kineto trace
     * \param matching the host ops matched to Kineto CPU ops
     * \param attachment the GPU ops attached to host ops
     */
    LinkDependencies(const TraceLinker::Options& options,
                     const HostTrace& host,
                     const KinetoTrace& device,
                     const HostOpMatching& matching,
                     const GpuOpAttachment& attachment);

    /**
     * Finds every kind of dependency, in the order each needs the previous ones.
     * \param stepStart the start of the ProfilerStep the iteration is, if the trace has one
     */
    void Find(std::optional<TimeNs> stepStart);

    /** \return the GPU ops host op \p host waited for, ascending */
    const std::vector<uint32_t>& GetSyncDeps(std::size_t host) const;
    /** \return the host op of another thread host op \p host waited for, or -1 */
    int32_t GetInterThreadDep(std::size_t host) const;
    /** \return the part of host op \p host's own time spent blocked */
    TimeNs GetWaitTime(std::size_t host) const;
    /** \return the thread time before host op \p host outside any op */
    TimeNs GetGapTime(std::size_t host) const;
    /** \return the GPU ops of other streams GPU op \p gpu waited for */
    const std::vector<uint32_t>& GetCrossStreamDeps(uint32_t gpu) const;
    /** \return the part of a linked host op's time its linked children do not cover */
    TimeNs ExclusiveDuration(uint32_t host) const;

    /** \return the number of GPU op -> host op synchronisation edges */
    uint64_t GetSyncDepCount() const;
    /** \return the number of host ops given an inter_thread_dep */
    uint64_t GetInterThreadDepCount() const;
    /** \return the number of idle stretches found to wait for another thread */
    uint64_t GetThreadWaitCount() const;
    /** \return the number of GPU op -> GPU op stream waits */
    uint64_t GetCrossStreamDepCount() const;

  private:
    /** The GPU ops attached to a launcher, indexed for the synchronisation calls. */
    struct AttachedGpuIndex
    {
        /** per (device, stream): its ops in launch order */
        std::map<std::pair<int64_t, int64_t>, std::vector<uint32_t>> byStream;
        std::vector<uint32_t> byEnd;                         //!< all, by end time
        std::unordered_map<int64_t, uint32_t> byCorrelation; //!< correlation -> op
    };

    AttachedGpuIndex IndexAttachedGpuOps() const;
    /**
     * \param call a runtime call
     * \param index the attached GPU ops (a stream named for the first time gets an empty list)
     * \return the streams \p call waited for (none if it is no synchronisation, or waited for
     *         nothing)
     */
    std::vector<const std::vector<uint32_t>*> WaitedStreams(const KinetoRuntimeCall& call,
                                                            AttachedGpuIndex& index) const;
    /** Adds the sync deps and the wait time of one synchronising runtime call. */
    void AddSyncDepsOfCall(const KinetoRuntimeCall& call,
                           const std::vector<const std::vector<uint32_t>*>& streams);
    void AddSyncDeps();
    void AddInterThreadDeps();
    void AddCrossStreamDeps();
    /** \return the order of linked host ops by end (then latest start, then highest id) */
    std::tuple<TimeNs, TimeNs, int64_t> ThreadEndKey(uint32_t host) const;
    /** \return per host thread, its linked ops by ThreadEndKey */
    std::map<int64_t, std::vector<uint32_t>> LinkedOpsByEnd() const;
    /** \return per device thread, its runtime calls in start order */
    std::vector<std::vector<uint32_t>> RuntimeCallsByThread() const;
    /**
     * What the thread did inside Kineto CPU op \p k: the spans of its nested operators and
     * runtime calls, sorted, closed by an empty span at the op's end.
     */
    void FindBusyStretches(uint32_t k,
                           const std::vector<std::vector<uint32_t>>& callsByThread,
                           std::vector<std::pair<TimeNs, TimeNs>>& busy) const;
    /**
     * \return the host op of another thread whose end released \p host, idle from
     *         \p idleFrom until \p resume (the latest one to end shortly before), or -1
     */
    int64_t FindRelease(uint32_t host,
                        TimeNs idleFrom,
                        TimeNs resume,
                        const std::map<int64_t, std::vector<uint32_t>>& byEnd) const;
    /** Records that \p host waited from \p idleFrom for \p release (wait_dur, the dep). */
    void AddThreadWait(uint32_t host, uint32_t release, TimeNs idleFrom, TimeNs resume);
    void AddThreadWaits();
    /** \param stepStart the start of the measured ProfilerStep, if any */
    void AddGaps(std::optional<TimeNs> stepStart);

    /** The earliest time: "no bound yet" in searches for the latest op before a time. */
    static constexpr TimeNs kMinTime = std::numeric_limits<TimeNs>::min();

    const TraceLinker::Options& m_options;
    const KinetoTrace& m_device;
    const HostOpMatching& m_matching;
    const GpuOpAttachment& m_attachment;
    const std::vector<HostOp>& m_ops;
    const std::vector<KinetoCpuOp>& m_cpu;
    const std::vector<KinetoGpuOp>& m_gpu;

    std::vector<std::vector<uint32_t>> m_syncDeps; //!< host op -> GPU ops it waited for
    std::vector<int32_t> m_interThreadDep;         //!< host op -> host op of another thread or -1
    std::vector<TimeNs> m_waitNs; //!< host op -> part of its own time spent blocked (wait_dur)
    std::vector<TimeNs> m_gapNs;  //!< host op -> thread time before it outside any op (gap_dur)
    std::vector<std::vector<uint32_t>> m_crossStreamDeps; //!< GPU op -> ops of other streams
    uint64_t m_syncDepCount{0};                           //!< sync_deps edges
    uint64_t m_interThreadDepCount{0};                    //!< host ops with inter_thread_dep
    uint64_t m_threadWaitCount{0};                        //!< waits for another thread
    uint64_t m_crossStreamDepCount{0};                    //!< cross_stream_deps edges
};

} // namespace ns3

#endif // CHAKRA_LINK_DEPENDENCIES_H
