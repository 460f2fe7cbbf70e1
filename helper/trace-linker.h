/*
 * TraceLinker: a PyTorch host execution trace + the Kineto trace of the same run -> one linked
 * trace (ET+ JSON, doc/linked-trace.md) with timings, GPU operations and dependencies.
 */
#ifndef CHAKRA_TRACE_LINKER_H
#define CHAKRA_TRACE_LINKER_H

#include "host-trace.h"
#include "kineto-trace.h"

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup chakra
 * \brief A host or GPU operation the linker could not place, and why.
 */
struct UnmatchedOp
{
    /** Which side the op comes from. */
    enum class Kind
    {
        HOST, //!< a host execution trace node without a Kineto CPU op
        GPU   //!< a Kineto device op without a launching host op
    };

    Kind kind{Kind::HOST};        //!< side
    std::string reasonCode;       //!< stable short key of the reason (groups the summary)
    std::string reason;           //!< the reason, in words
    std::string name;             //!< op name
    uint64_t id{0};               //!< HOST: id in the linked trace
    uint64_t inputId{0};          //!< HOST: id in the host trace
    int64_t correlation{kKinetoNone}; //!< GPU: correlation (kKinetoNone if absent)
    TimeNs ts{0};                 //!< GPU: start on the device
    GpuOpKind gpuKind{GpuOpKind::KERNEL}; //!< GPU: kernel, memcpy or memset
};

/** \ingroup chakra \brief Counts and findings of one link. */
struct LinkSummary
{
    std::string hostPath;        //!< host execution trace
    std::string devicePath;      //!< Kineto trace
    int64_t rank{0};             //!< rank given by the caller
    std::string schema;          //!< host schema
    std::string method;          //!< how host ops were matched: "rf_id" or "order"
    bool legacyDeviceTrace{false}; //!< the device trace is the legacy autograd-profiler list
    uint64_t hostOps{0};         //!< operator nodes of the host trace
    uint64_t hostOpsLinked{0};   //!< of which matched to a Kineto CPU op
    uint64_t gpuOps{0};          //!< device ops (kernel, memcpy, memset) of the Kineto trace
    uint64_t gpuOpsAttached{0};  //!< of which attached to a host op
    uint64_t gpuOpsByKind[3]{0, 0, 0};         //!< device ops by GpuOpKind
    uint64_t gpuOpsAttachedByKind[3]{0, 0, 0}; //!< attached device ops by GpuOpKind
    uint64_t syncDeps{0};        //!< GPU op -> host op synchronisation edges
    uint64_t interThreadDeps{0}; //!< host ops given an inter_thread_dep
    std::string iterationName;   //!< ProfilerStep#N, or "" (span of the linked host ops)
    TimeNs iterationTs{0};       //!< iteration start
    TimeNs iterationDur{0};      //!< iteration duration
    /** "host tid -> device tid: matched/ops" for each host thread */
    std::vector<std::string> threads;
    std::vector<UnmatchedOp> unmatched; //!< host ops first (by id), then GPU ops (file order)
    std::vector<std::string> warnings;  //!< things the user should know
};

/** \ingroup chakra \brief The linked trace (a JSON document) and its summary. */
struct LinkResult
{
    HostJson trace;      //!< the linked trace, nodes sorted by id
    LinkSummary summary; //!< counts and unmatched ops
};

/**
 * \ingroup chakra
 * \brief Links a host execution trace to the Kineto trace of the same run.
 *
 * Host ops get their Kineto CPU op's timing (matched by rf_id == "Record function id" when the
 * Kineto trace has those ids, else by order and name per thread, see OpAligner); every kernel,
 * memcpy and memset becomes a node under the host op that launched it (correlation -> runtime
 * call -> innermost enclosing linked host op on the call's thread); host ops that waited for the
 * device get sync_deps, and ops that resume a thread after another thread's op get an
 * inter_thread_dep. doc/trace-linker.md describes the rules, doc/linked-trace.md the output.
 */
class TraceLinker
{
  public:
    /** Tuning of the matching. */
    struct Options
    {
        /** How many device ops around the expected position the order matching inspects. */
        uint32_t matchWindow{16};
        /**
         * A host thread is matched to a device thread only if at least this fraction of its
         * ops matched (order matching); otherwise its ops are reported unmatched.
         */
        double minThreadMatchFraction{0.1};
        /**
         * An op starts a new run on its thread (and may get an inter_thread_dep) when the gap
         * since the previous top-level op of its thread ended is at least this long.
         */
        TimeNs interThreadMinGap{0};
    };

    TraceLinker();
    /** \param options tuning */
    explicit TraceLinker(const Options& options);

    /**
     * Links one rank's pair of traces.
     * \param hostPath host execution trace JSON (plain or gzip'd)
     * \param devicePath Kineto trace JSON or legacy autograd-profiler list (plain or gzip'd)
     * \param rank the rank (recorded in the output)
     * \return the linked trace and the summary
     * \throws TraceError naming the file (and node or event) on bad input, when the traces
     * come from different runs (their pids differ), or when no host op matches at all
     */
    LinkResult Link(const std::string& hostPath, const std::string& devicePath,
                    int64_t rank) const;

  private:
    Options m_options; //!< tuning
};

/**
 * \ingroup chakra
 * \brief Writes a linked trace: one JSON document, one node per line, atomically (the file
 * appears only when complete), gzip'd if \p path ends in ".gz".
 * \param result from TraceLinker::Link
 * \param path the output file
 * \throws TraceError on a write error
 */
void WriteLinkedTrace(const LinkResult& result, const std::string& path);

/**
 * \ingroup chakra
 * \brief Serialises a linked trace exactly as WriteLinkedTrace writes it.
 * \param trace the linked trace
 * \return the bytes
 */
std::string SerializeLinkedTrace(const HostJson& trace);

/** \ingroup chakra \brief Verbosity of the summary, as Python's logging levels. */
enum class LinkLogLevel
{
    DEBUG,
    INFO,
    WARNING,
    ERROR,
    CRITICAL
};

/**
 * \param name DEBUG, INFO, WARNING (or WARN), ERROR, CRITICAL, any case
 * \return the level \throws std::invalid_argument for another name
 */
LinkLogLevel ParseLinkLogLevel(const std::string& name);

/**
 * \ingroup chakra
 * \brief Prints the summary of a link.
 *
 * INFO: counts, thread mapping, each unmatched host op, unmatched GPU ops grouped by reason
 * with a few examples. DEBUG: also every unmatched GPU op. WARNING: one line per kind of
 * problem. ERROR and CRITICAL: nothing (a successful link has no error).
 * \param os where to print
 * \param summary the summary
 * \param level verbosity
 */
void PrintLinkSummary(std::ostream& os, const LinkSummary& summary, LinkLogLevel level);

} // namespace ns3

#endif // CHAKRA_TRACE_LINKER_H
