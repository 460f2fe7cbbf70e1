#include "job-interference.h"

#include "ns3/mpi-context.h"
#include "ns3/string.h"

#include <stdexcept>

namespace ns3
{

bool
FinishedEverywhere(const MultiJobReport& report)
{
    return MpiContext::Sum(report.AllFinished() ? 0 : 1) == 0;
}

void
MeasureInterference(MultiJobReport& report,
                    const std::vector<ClusterJob>& jobs,
                    const std::function<void(ClusterScenario&)>& configure,
                    std::vector<std::size_t> which)
{
    if (which.empty())
    {
        for (std::size_t j = 0; j < jobs.size(); ++j)
        {
            which.push_back(j);
        }
    }
    for (std::size_t j : which)
    {
        // The same job on the same hosts, with the fabric to itself.
        ClusterJob alone = jobs.at(j);
        alone.name = report.GetJobs().at(j).name;
        alone.hosts = report.GetJobs()[j].hosts;
        ClusterScenario single;
        configure(single);
        // The shared run's picture and timeline stay.
        single.SetClusterAttribute("TopologyDot", StringValue(""));
        single.SetTimeline("");
        single.AddJob(alone);
        const MultiJobReport aloneReport = single.RunJobs();
        if (!FinishedEverywhere(aloneReport))
        {
            throw std::invalid_argument("--interference: job " + alone.name +
                                        " alone did not finish: " + aloneReport.DescribeFailure());
        }
        report.SetAlone(j, aloneReport.GetJobs()[0].report.GetIterationTime());
    }
}

} // namespace ns3
