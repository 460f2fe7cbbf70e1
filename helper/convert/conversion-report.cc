#include "conversion-report.h"

namespace ns3
{

uint64_t
ConversionReport::GetCollectiveCount() const
{
    uint64_t total = 0;
    for (const auto& [name, count] : collectives)
    {
        total += count;
    }
    return total;
}

void
ConversionReport::AddWarning(const std::string& what)
{
    ++warningCount;
    if (warnings.size() < kMaxWarnings)
    {
        warnings.push_back(what);
    }
}

std::ostream&
operator<<(std::ostream& os, const ConversionReport& report)
{
    os << "input: " << report.input << " (schema " << report.schema
       << (report.linked ? ", linked" : ", host only") << ")\n";
    os << "output: " << report.output << "\n";
    os << "rank: " << (report.rank ? std::to_string(*report.rank) : "unknown")
       << ", world size: " << (report.worldSize ? std::to_string(*report.worldSize) : "unknown")
       << "\n";
    os << "nodes: " << report.inputNodes << " read, " << report.outputNodes << " written ("
       << report.cpuOps << " CPU, " << report.gpuOps << " GPU, " << report.GetCollectiveCount()
       << " collectives, " << report.sends << " sends, " << report.recvs << " recvs, "
       << report.metadataNodes << " metadata; " << report.droppedRoots
       << " profiler roots left out)\n";
    os << "collectives:";
    for (const auto& [name, count] : report.collectives)
    {
        os << " " << name << " " << count;
    }
    os << (report.collectives.empty() ? " none" : "") << "\n";
    os << "comm nodes: " << report.commFromKernels << " NCCL kernels, " << report.commFromHostOps
       << " host ops; " << report.commBytes << " bytes\n";
    if (!report.commGroupFile.empty())
    {
        os << "ASTRA-sim communicators: " << report.commGroupFile << "\n";
    }
    os << "dependencies: " << report.dataDeps << " data, " << report.ctrlDeps << " control; "
       << report.droppedReferences << " references to nodes not in the output dropped, "
       << report.movedSyncDeps << " sync deps moved to the next host op\n";
    os << "warnings: " << report.warningCount << "\n";
    for (const auto& warning : report.warnings)
    {
        os << "  " << warning << "\n";
    }
    if (report.warningCount > report.warnings.size())
    {
        os << "  ... " << report.warningCount - report.warnings.size() << " more\n";
    }
    return os;
}

} // namespace ns3
