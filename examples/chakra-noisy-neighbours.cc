/*
 * chakra-noisy-neighbours: two jobs on one oversubscribed cluster, placed two ways.
 *
 * A dense data-parallel job (one large all-reduce) and an all-to-all-heavy job (the dispatch
 * of a mixture-of-experts layer) each take 2 hosts of 8 GPUs on a leaf-spine fabric with 2
 * hosts per leaf, one spine and 4:1 leaf uplinks. Placed contiguously, each job has a leaf to
 * itself and no link carries both: each finishes exactly as it does alone. Spread across the
 * leaves, both jobs cross the spine through the same thin uplinks, and each is slower than
 * alone by the share of the uplink the other takes. Each job is run alone on the same hosts to
 * measure its slowdown (what chakra-cluster --interference does).
 *
 *   build/bin/chakra-noisy-neighbours [--bytes=67108864] [--transport=flow]
 */
#include "example-util.h"

#include "ns3/chakra-module.h"
#include "ns3/core-module.h"

#include <iomanip>
#include <iostream>

using namespace ns3;

NS_LOG_COMPONENT_DEFINE("ChakraNoisyNeighbours");

namespace
{

/** A scenario on the example's cluster: 4 hosts of 8 GPUs, 2 per leaf, one spine at 4:1. */
void
BuildCluster(ClusterScenario& scenario, const std::string& transport)
{
    scenario.SetClusterAttribute("Transport", StringValue(transport));
    scenario.SetClusterAttribute("Hosts", UintegerValue(4));
    scenario.SetClusterAttribute("GpusPerHost", UintegerValue(8));
    scenario.SetClusterAttribute("Topology", StringValue("leaf-spine"));
    scenario.SetClusterAttribute("HostsPerLeaf", UintegerValue(2));
    scenario.SetClusterAttribute("Spines", UintegerValue(1));
    scenario.SetClusterAttribute("Oversubscription", DoubleValue(4));
}

/** Runs \p jobs together, then each alone on its hosts; prints a line per job. */
bool
RunPlacement(const std::string& label,
             const std::vector<ClusterJob>& jobs,
             JobPlacementPolicy policy,
             const std::string& transport)
{
    ClusterScenario scenario;
    BuildCluster(scenario, transport);
    scenario.SetPlacement(policy);
    for (const ClusterJob& job : jobs)
    {
        scenario.AddJob(job);
    }
    MultiJobReport report = scenario.RunJobs();
    for (std::size_t j = 0; j < jobs.size() && report.AllFinished(); ++j)
    {
        ClusterJob alone = jobs[j];
        alone.hosts = report.GetJobs()[j].hosts;
        ClusterScenario single;
        BuildCluster(single, transport);
        single.AddJob(alone);
        const MultiJobReport aloneReport = single.RunJobs();
        if (!aloneReport.AllFinished())
        {
            std::cerr << "error: " << aloneReport.DescribeFailure() << std::endl;
            return false;
        }
        report.SetAlone(j, aloneReport.GetJobs()[0].report.GetIterationTime());
    }
    if (!report.AllFinished())
    {
        std::cerr << "error: " << report.DescribeFailure() << std::endl;
        return false;
    }
    for (std::size_t j = 0; j < jobs.size(); ++j)
    {
        const MultiJobReport::Job& job = report.GetJobs()[j];
        std::cout << std::fixed << std::setprecision(3) << label << ": job " << job.name
                  << " on hosts " << FormatHostList(job.hosts) << ": "
                  << job.report.GetIterationTime().GetNanoSeconds() / 1e3 << " us, alone "
                  << job.alone->GetNanoSeconds() / 1e3 << " us, slowdown " << report.GetSlowdown(j)
                  << "\n";
    }
    return true;
}

} // namespace

int
RunExample(int argc, char* argv[])
{
    uint64_t bytes = 64u << 20;
    std::string transport = "flow";
    ExampleCommandLine cmd(__FILE__);
    cmd.AddValue("bytes", "each job's collective size in bytes", bytes);
    cmd.AddValue("transport", "flow, rdma or tcp", transport);
    cmd.Parse(argc, argv);

    const TemporaryDirectory directory("chakra-neighbours");
    std::vector<ClusterJob> jobs(2);
    jobs[0].name = "dense";
    jobs[1].name = "moe";
    for (ClusterJob& job : jobs)
    {
        CollectiveBenchSpec spec;
        spec.ranks = 16;
        spec.bytes = bytes;
        spec.type = job.name == "dense" ? ChakraProtoMsg::ALL_REDUCE : ChakraProtoMsg::ALL_TO_ALL;
        job.tracePrefix = directory.GetPath() + "/" + job.name;
        WorkloadGenerator::WriteCollectiveBench(job.tracePrefix, spec);
    }
    std::cout << "two 16-GPU jobs on 4 hosts x 8 GPUs, leaf-spine, 2 hosts per leaf, 1 spine, "
                 "4:1 uplinks ("
              << transport << ")\n";
    const bool ran = RunPlacement("contiguous", jobs, JobPlacementPolicy::CONTIGUOUS, transport) &&
                     RunPlacement("spread", jobs, JobPlacementPolicy::SPREAD, transport);
    return ran ? 0 : 1;
}

int
main(int argc, char* argv[])
{
    // A mistake (a refused value, an absurd size) is one line naming it and exit 1, not an abort.
    return RunTool("chakra-noisy-neighbours", [&] { return RunExample(argc, argv); });
}
