/*
 * TraceLinker: links one rank's two traces by running a LinkJob (link-job.h).
 */
#include "link-job.h"

namespace ns3
{

TraceLinker::TraceLinker()
    : m_options()
{
}

TraceLinker::TraceLinker(const Options& options)
    : m_options(options)
{
}

LinkResult
TraceLinker::Link(const std::string& hostPath, const std::string& devicePath, int64_t rank) const
{
    HostTrace host(hostPath);
    KinetoTrace device(devicePath);
    LinkJob job(m_options, host, device, rank);
    return job.Run();
}

} // namespace ns3
