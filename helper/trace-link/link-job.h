/*
 * LinkJob: one linking of a host execution trace to the Kineto trace of the same run, the
 * engine behind TraceLinker::Link. Its steps live in one file per seam (see the declarations);
 * this header is private to helper/trace-link.
 */
#ifndef CHAKRA_LINK_JOB_H
#define CHAKRA_LINK_JOB_H

#include "op-alignment.h"
#include "trace-linker.h"

#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

namespace ns3
{

/**
 * \ingroup chakra-linker
 * \brief One linking job: the two traces and everything derived from them.
 *
 * Run() is the driver: it matches host ops to Kineto CPU ops, attaches GPU ops to their
 * launchers, adds the dependencies the traces show and builds the output document, each a
 * group of steps in its own file.
 */
class LinkJob
{
  public:
    /** Indexes the Kineto CPU ops by "External id" when the trace's ids name launching ops. */
    LinkJob(const TraceLinker::Options& options,
            HostTrace& host,
            const KinetoTrace& device,
            int64_t rank);

    /** Runs every step in order and returns the linked trace and its summary. */
    LinkResult Run();

    /** \return \p text with ASCII capitals lowered (runtime call and kernel names) */
    static std::string Lower(const std::string& text);
    /** \return whether \p text contains \p part */
    static bool Contains(const std::string& text, const char* part);

  private:
    /** Result of matching host ops to Kineto CPU ops. */
    struct Matching
    {
        std::vector<int32_t> hostToCpu;      //!< per host op: Kineto CPU op or -1
        std::vector<std::string> reasonCode; //!< per unmatched host op
        std::vector<std::string> reason;     //!< per unmatched host op
        std::vector<std::string> threads;    //!< thread mapping lines
        uint64_t linked{0};                  //!< matched host ops
    };

    // link-job.cc: the driver's own check.
    void CheckSameRun() const;

    // host-op-matching.cc: host ops <-> Kineto CPU ops (rf_id or order and name per thread),
    // which puts the host ops on the device trace's clock.
    Matching MatchByRecordFunctionId() const;
    Matching MatchByOrder() const;

    /** Where the ops of one host thread run in the device trace: its best alignment. */
    struct ThreadPlacement
    {
        bool found{false};    //!< some device thread matched at least one op
        uint32_t thread{0};   //!< the device thread
        AlignmentScore score; //!< the alignment (offset, matched, skipped, ...)
        TimeNs distance{0};   //!< gap to the span of the threads placed before
        TimeNs start{0};      //!< start of the first matched device op
        TimeNs end{0};        //!< end of the matched device ops
    };

    /** \return per device thread, its host operators in start order (names, seq, ids) */
    std::vector<OpSequence> DeviceSequences() const;
    /**
     * Best (thread, offset) for one host thread among the device threads not \p taken: most
     * matches, then agreeing sequence numbers, then closest in time to the threads already
     * placed (the reference span), then fewest skipped ops, then agreeing ids, then earliest.
     */
    ThreadPlacement PlaceHostThread(const OpSequence& hostSeq,
                                    const std::vector<OpSequence>& deviceSeqs,
                                    const std::vector<bool>& taken,
                                    bool haveReference,
                                    TimeNs refStart,
                                    TimeNs refEnd) const;
    /**
     * Links the host ops \p ops to the device thread of \p best, and gives each op left
     * unmatched its reason.
     * \return the number of ops linked
     */
    uint64_t ApplyThreadMatch(Matching& result,
                              const std::vector<uint32_t>& ops,
                              const OpSequence& hostSeq,
                              const std::vector<OpSequence>& deviceSeqs,
                              const ThreadPlacement& best) const;
    void MatchAcrossThreads(Matching& result,
                            bool haveSpan,
                            TimeNs spanStart,
                            TimeNs spanEnd) const;
    void ApplyMatching(Matching matching);
    void ComputeLinkedParents();

    // gpu-op-attachment.cc: each kernel, memcpy and memset under the host op that launched it.
    int32_t EnclosingLinkedOp(uint32_t thread, TimeNs t, int64_t externalId) const;
    int32_t NextLinkedOp(uint32_t thread, TimeNs t) const;
    void AttachGpuOps();

    // link-dependencies.cc: the waits the traces show (sync, inter-thread, cross-stream, gaps).
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
    /** \return the Kineto CPU op a linked host op matched */
    const KinetoCpuOp& LinkedCpuOp(uint32_t host) const;
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
    void AddGaps();
    TimeNs ExclusiveDuration(uint32_t host) const;

    // linked-trace-output.cc: the output document (iteration, ids, host and GPU nodes).
    void FindIteration();
    void Renumber();
    HostJson BuildDocument();
    HostJson BuildGpuNode(uint32_t gpu, int32_t host) const;
    HostJson BuildTraceLink() const;

    /** The earliest time: "no bound yet" in searches for the latest op before a time. */
    static constexpr TimeNs kMinTime = std::numeric_limits<TimeNs>::min();

    const TraceLinker::Options& m_options;
    HostTrace& m_host;
    const KinetoTrace& m_device;
    const std::vector<HostOp>& m_ops;
    const std::vector<KinetoCpuOp>& m_cpu;
    const std::vector<KinetoGpuOp>& m_gpu;

    std::unordered_map<int64_t, int32_t> m_cpuByExternalId; //!< External id -> Kineto CPU op
    Matching m_matching;                                    //!< host op -> Kineto CPU op
    std::vector<int32_t> m_cpuToHost;                       //!< Kineto CPU op -> host op or -1
    std::vector<int32_t> m_linkedParent;                //!< nearest linked ancestor of a host op
    std::vector<std::vector<int32_t>> m_linkedChildren; //!< host ops whose m_linkedParent is it
    bool m_hasSpan{false};                              //!< any host op linked
    TimeNs m_spanStart{0};                              //!< first linked start
    TimeNs m_spanEnd{0};                                //!< last linked end

    std::vector<int32_t> m_gpuHost;     //!< GPU op -> launching host op or -1
    std::vector<TimeNs> m_gpuLaunch;    //!< GPU op -> its launcher's start
    std::vector<int64_t> m_gpuLauncher; //!< GPU op -> runtime call index or -1
    std::vector<std::pair<std::string, std::string>> m_gpuReason; //!< code, reason
    std::vector<std::vector<uint32_t>> m_hostGpuOps; //!< host op -> its GPU ops, launch order
    std::vector<std::vector<uint32_t>> m_syncDeps;   //!< host op -> GPU ops it waited for
    std::vector<int32_t> m_interThreadDep;           //!< host op -> host op of another thread or -1
    std::vector<TimeNs> m_waitNs; //!< host op -> part of its own time spent blocked (wait_dur)
    std::vector<TimeNs> m_gapNs;  //!< host op -> thread time before it outside any op (gap_dur)
    std::vector<std::vector<uint32_t>> m_crossStreamDeps; //!< GPU op -> ops of other streams

    std::vector<uint64_t> m_newHostId; //!< host op -> id in the output
    std::vector<uint64_t> m_newGpuId;  //!< GPU op -> id in the output (0 = not output)

    LinkSummary m_summary;
};

} // namespace ns3

#endif // CHAKRA_LINK_JOB_H
