#include "link-summary.h"

#include <map>
#include <stdexcept>

namespace ns3
{

namespace
{

/** \return a time in nanoseconds as microseconds text ("12", "12.5") */
std::string
MicrosText(TimeNs ns)
{
    return MicrosecondsJson(ns).dump();
}

std::string
Shorten(const std::string& text, std::size_t size = 60)
{
    return text.size() <= size ? text : text.substr(0, size - 3) + "...";
}

} // namespace

HostJson
MicrosecondsJson(TimeNs ns)
{
    if (ns % 1000 == 0)
    {
        return HostJson(ns / 1000);
    }
    // Whole microseconds and the fraction separately: exact for any realistic epoch time.
    TimeNs whole = ns / 1000;
    TimeNs fraction = ns % 1000;
    return HostJson(static_cast<double>(whole) + static_cast<double>(fraction) / 1000.0);
}

LinkLogLevel
ParseLinkLogLevel(const std::string& name)
{
    std::string upper = name;
    for (char& c : upper)
    {
        if (c >= 'a' && c <= 'z')
        {
            c = static_cast<char>(c - 'a' + 'A');
        }
    }
    if (upper == "DEBUG")
    {
        return LinkLogLevel::DEBUG;
    }
    if (upper == "INFO")
    {
        return LinkLogLevel::INFO;
    }
    if (upper == "WARNING" || upper == "WARN")
    {
        return LinkLogLevel::WARNING;
    }
    if (upper == "ERROR")
    {
        return LinkLogLevel::ERROR;
    }
    if (upper == "CRITICAL" || upper == "FATAL")
    {
        return LinkLogLevel::CRITICAL;
    }
    throw std::invalid_argument("unknown log level \"" + name +
                                "\" (DEBUG, INFO, WARNING, ERROR or CRITICAL)");
}

void
PrintLinkSummary(std::ostream& os, const LinkSummary& summary, LinkLogLevel level)
{
    if (level >= LinkLogLevel::ERROR)
    {
        return;
    }
    const bool info = level <= LinkLogLevel::INFO;
    const bool debug = level == LinkLogLevel::DEBUG;
    if (info)
    {
        os << "INFO: rank " << summary.rank << ": host trace " << summary.hostPath << " (schema "
           << (summary.schema.empty() ? "?" : summary.schema) << "), device trace "
           << summary.devicePath << (summary.legacyDeviceTrace ? " (legacy profiler list)" : "")
           << "\n";
        os << "INFO: host ops linked: " << summary.hostOpsLinked << " of " << summary.hostOps
           << " (by " << (summary.method == "rf_id" ? "rf_id" : "order and name") << ")\n";
        for (const auto& line : summary.threads)
        {
            os << "INFO:   " << line << "\n";
        }
        os << "INFO: GPU ops attached: " << summary.gpuOpsAttached << " of " << summary.gpuOps
           << " (kernels " << summary.gpuOpsAttachedByKind[0] << "/" << summary.gpuOpsByKind[0]
           << ", memcpy " << summary.gpuOpsAttachedByKind[1] << "/" << summary.gpuOpsByKind[1]
           << ", memset " << summary.gpuOpsAttachedByKind[2] << "/" << summary.gpuOpsByKind[2]
           << ")\n";
        os << "INFO: iteration: "
           << (summary.iterationName.empty() ? std::string("span of the linked host ops")
                                             : summary.iterationName)
           << ", " << MicrosText(summary.iterationDur) << " us; sync deps: " << summary.syncDeps
           << "; inter-thread deps: " << summary.interThreadDeps
           << " (threads waiting inside an op: " << summary.threadWaits
           << "); cross-stream deps: " << summary.crossStreamDeps << "\n";
    }
    for (const auto& warning : summary.warnings)
    {
        os << "WARNING: " << warning << "\n";
    }

    // Unmatched ops: host ops one by one at INFO; GPU ops grouped by reason, one by one at DEBUG.
    std::map<std::string, std::vector<const UnmatchedOp*>> groups;
    uint64_t hostUnmatched = 0;
    for (const auto& op : summary.unmatched)
    {
        if (op.kind == UnmatchedOp::Kind::HOST)
        {
            ++hostUnmatched;
            if (info)
            {
                os << "INFO: unmatched host op " << op.id << " (input id " << op.inputId << ") "
                   << Shorten(op.name) << ": " << op.reason << "\n";
            }
        }
        else
        {
            groups[op.reasonCode].push_back(&op);
        }
    }
    if (!info && hostUnmatched > 0)
    {
        os << "WARNING: " << hostUnmatched << " host ops unmatched\n";
    }
    for (const auto& [code, ops] : groups)
    {
        const bool expected = code == "outside-iteration" || code == "no-launcher";
        if (!info && expected)
        {
            continue; // normal when the profiler window is wider than the traced iteration
        }
        os << (expected ? "INFO: " : "WARNING: ") << ops.size() << " GPU ops unmatched (" << code
           << "), e.g. " << ops.front()->reason << "\n";
        if (!info)
        {
            continue;
        }
        const std::size_t shown = debug ? ops.size() : std::min<std::size_t>(ops.size(), 5);
        for (std::size_t i = 0; i < shown; ++i)
        {
            const UnmatchedOp& op = *ops[i];
            os << (debug ? "DEBUG:" : "INFO: ") << "  unmatched " << GpuOpKindName(op.gpuKind)
               << " " << Shorten(op.name) << " at " << MicrosText(op.ts) << " us";
            if (op.correlation != kKinetoNone)
            {
                os << " (correlation " << op.correlation << ")";
            }
            os << ": " << op.reason << "\n";
        }
        if (shown < ops.size())
        {
            os << "INFO:   ... " << ops.size() - shown
               << " more (--log-level DEBUG lists them all)\n";
        }
    }
}

} // namespace ns3
