/*
 * What a link found: counts, the thread mapping, unmatched ops with reasons, and how the
 * command prints it at each log level.
 */
#ifndef CHAKRA_LINK_SUMMARY_H
#define CHAKRA_LINK_SUMMARY_H

#include "host-trace.h"
#include "kineto-trace.h"

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup chakra-linker
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

    Kind kind{Kind::HOST};                //!< side
    std::string reasonCode;               //!< stable short key of the reason (groups the summary)
    std::string reason;                   //!< the reason, in words
    std::string name;                     //!< op name
    uint64_t id{0};                       //!< HOST: id in the linked trace
    uint64_t inputId{0};                  //!< HOST: id in the host trace
    int64_t correlation{kKinetoNone};     //!< GPU: correlation (kKinetoNone if absent)
    TimeNs ts{0};                         //!< GPU: start on the device
    GpuOpKind gpuKind{GpuOpKind::KERNEL}; //!< GPU: kernel, memcpy or memset
};

/** \ingroup chakra-linker \brief Counts and findings of one link. */
struct LinkSummary
{
    std::string hostPath;              //!< host execution trace
    std::string devicePath;            //!< Kineto trace
    int64_t rank{0};                   //!< rank given by the caller
    std::string schema;                //!< host schema
    std::string method;                //!< how host ops were matched: "rf_id" or "order"
    bool legacyDeviceTrace{false};     //!< the device trace is the legacy autograd-profiler list
    uint64_t hostOps{0};               //!< operator nodes of the host trace
    uint64_t hostOpsLinked{0};         //!< of which matched to a Kineto CPU op
    uint64_t gpuOps{0};                //!< device ops (kernel, memcpy, memset) of the Kineto trace
    uint64_t gpuOpsAttached{0};        //!< of which attached to a host op
    uint64_t gpuOpsByKind[3]{0, 0, 0}; //!< device ops by GpuOpKind
    uint64_t gpuOpsAttachedByKind[3]{0, 0, 0}; //!< attached device ops by GpuOpKind
    uint64_t syncDeps{0};                      //!< GPU op -> host op synchronisation edges
    uint64_t interThreadDeps{0};               //!< host ops given an inter_thread_dep
    uint64_t threadWaits{0};     //!< idle stretches inside host ops found to wait for a thread
    uint64_t crossStreamDeps{0}; //!< GPU op -> GPU op of another stream (stream waits)
    std::string iterationName;   //!< ProfilerStep#N, or "" (span of the linked host ops)
    TimeNs iterationTs{0};       //!< iteration start
    TimeNs iterationDur{0};      //!< iteration duration
    /** "host tid -> device tid: matched/ops" for each host thread */
    std::vector<std::string> threads;
    std::vector<UnmatchedOp> unmatched; //!< host ops first (by id), then GPU ops (file order)
    std::vector<std::string> warnings;  //!< things the user should know
};

/** \ingroup chakra-linker \brief Verbosity of the summary, as Python's logging levels. */
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
 * \ingroup chakra-linker
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

/**
 * \ingroup chakra-linker
 * \brief A time as the linked trace writes it: microseconds, an integer when exact.
 * \param ns the time in nanoseconds
 * \return the JSON number
 */
HostJson MicrosecondsJson(TimeNs ns);

} // namespace ns3

#endif // CHAKRA_LINK_SUMMARY_H
