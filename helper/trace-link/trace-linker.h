/*
 * TraceLinker: a PyTorch host execution trace + the Kineto trace of the same run -> one linked
 * trace (ET+ JSON, doc/linked-trace.md) with timings, GPU operations and dependencies.
 */
#ifndef CHAKRA_TRACE_LINKER_H
#define CHAKRA_TRACE_LINKER_H

#include "host-trace.h"
#include "kineto-trace.h"
#include "link-summary.h"

#include <cstdint>
#include <string>

namespace ns3
{

/** \ingroup chakra-linker \brief The linked trace (a JSON document) and its summary. */
struct LinkResult
{
    HostJson trace;      //!< the linked trace, nodes sorted by id
    LinkSummary summary; //!< counts and unmatched ops
};

/**
 * \ingroup chakra-linker
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
        /**
         * A GPU op that starts at least this much after it could have (its launch returned,
         * the previous op of its stream ended) ...
         */
        TimeNs crossStreamMinDelay{10000};
        /**
         * ... and at most this much after an op of another stream ended, with a stream-wait
         * call (cudaStreamWaitEvent) issued between their launches, waited for that op.
         */
        TimeNs crossStreamMaxGap{10000};
        /**
         * A host op idle inside its own span (no nested op, no runtime call) for at least
         * this long ...
         */
        TimeNs threadWaitMinGap{50000};
        /**
         * ... that goes on at most this long after an op of another thread ended was waiting
         * for that op.
         */
        TimeNs threadWaitMaxResume{50000};
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
    LinkResult Link(const std::string& hostPath, const std::string& devicePath, int64_t rank) const;

  private:
    Options m_options; //!< tuning
};

/**
 * \ingroup chakra-linker
 * \brief Writes a linked trace: one JSON document, one node per line, atomically (the file
 * appears only when complete), gzip'd if \p path ends in ".gz".
 * \param result from TraceLinker::Link
 * \param path the output file
 * \throws TraceError on a write error
 */
void WriteLinkedTrace(const LinkResult& result, const std::string& path);

/**
 * \ingroup chakra-linker
 * \brief Serialises a linked trace exactly as WriteLinkedTrace writes it.
 * \param trace the linked trace
 * \return the bytes
 */
std::string SerializeLinkedTrace(const HostJson& trace);

} // namespace ns3

#endif // CHAKRA_TRACE_LINKER_H
