#include "cluster-scenario.h"

#include "ns3/simulator.h"

#include <chrono>
#include <sys/stat.h>

namespace ns3
{

ClusterScenario::ClusterScenario()
    : m_cluster(CreateObject<GpuClusterHelper>())
{
}

Ptr<GpuClusterHelper>
ClusterScenario::GetCluster() const
{
    return m_cluster;
}

void
ClusterScenario::SetAppAttribute(const std::string& name, const AttributeValue& value)
{
    m_appAttributes.emplace_back(name, value.Copy());
}

void
ClusterScenario::SetTimeline(const std::string& path)
{
    m_timeline = path;
}

void
ClusterScenario::SetStopTime(Time stop)
{
    m_stop = stop;
}

void
ClusterScenario::SetBeforeRun(std::function<void(const std::vector<Ptr<ChakraApplication>>&)> hook)
{
    m_beforeRun = std::move(hook);
}

void
ClusterScenario::SetProgress(Time interval, std::function<void(Time)> hook)
{
    m_progressInterval = interval;
    m_progress = std::move(hook);
}

void
ClusterScenario::Progress()
{
    m_progress(Simulator::Now());
    // Only while something else is scheduled: the progress event alone must not keep the
    // simulation running forever.
    if (!Simulator::IsFinished())
    {
        Simulator::Schedule(m_progressInterval, &ClusterScenario::Progress, this);
    }
}

ChakraReport
ClusterScenario::Run(const std::string& tracePrefix)
{
    auto start = std::chrono::steady_clock::now();
    m_cluster->Build();
    ChakraHelper chakra(tracePrefix);
    chakra.SetRankAddresses(m_cluster->GetRankAddresses());
    chakra.SetHostOf(m_cluster->GetHostOf());
    for (const auto& [name, value] : m_appAttributes)
    {
        chakra.SetAttribute(name, *value);
    }
    if (!m_timeline.empty())
    {
        chakra.EnableTimeline(m_timeline);
    }
    try
    {
        chakra.Install(m_cluster->GetRankNodes());
    }
    catch (...)
    {
        Simulator::Destroy();
        throw;
    }
    if (m_beforeRun)
    {
        m_beforeRun(chakra.GetApplications());
    }
    if (!m_stop.IsZero())
    {
        Simulator::Stop(m_stop);
    }
    if (m_progress && m_progressInterval.IsStrictlyPositive())
    {
        Simulator::Schedule(m_progressInterval, &ClusterScenario::Progress, this);
    }
    Simulator::Run();
    m_events = Simulator::GetEventCount();
    ChakraReport report = chakra.GetReport();
    Simulator::Destroy();
    m_wallSeconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return report;
}

uint64_t
ClusterScenario::GetEventCount() const
{
    return m_events;
}

double
ClusterScenario::GetWallSeconds() const
{
    return m_wallSeconds;
}

uint32_t
CountTraceRanks(const std::string& prefix)
{
    auto exists = [](const std::string& path) {
        struct stat info;
        return stat(path.c_str(), &info) == 0;
    };
    uint32_t ranks = 0;
    while (exists(prefix + "." + std::to_string(ranks) + ".et") ||
           exists(prefix + "." + std::to_string(ranks) + ".et.gz"))
    {
        ++ranks;
    }
    return ranks;
}

} // namespace ns3
