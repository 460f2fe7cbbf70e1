#include "collective-bench-run.h"

#include "temporary-directory.h"

#include "ns3/log.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("CollectiveBenchRun");

CollectiveBenchResult
SummarizeCollectiveBench(const ChakraReport& report, const ClusterScenario& scenario)
{
    CollectiveBenchResult result;
    result.time = report.GetIterationTime();
    result.finished = report.AllFinished();
    result.failure = result.finished ? "" : report.DescribeFailure();
    result.events = scenario.GetEventCount();
    result.wallSeconds = scenario.GetWallSeconds();
    for (const auto& collective : report.GetCollectives())
    {
        if (result.algorithms.find(collective.algorithm) == std::string::npos)
        {
            result.algorithms += (result.algorithms.empty() ? "" : "+") + collective.algorithm;
        }
    }
    return result;
}

CollectiveBenchResult
RunCollectiveBench(ClusterScenario& scenario, const CollectiveBenchSpec& spec, bool sendRecv)
{
    NS_LOG_FUNCTION(spec.type << spec.bytes << spec.ranks << sendRecv);
    const TemporaryDirectory directory("chakra-bench");
    const std::string prefix = directory.File("c");
    if (sendRecv)
    {
        WorkloadGenerator::WriteSendRecvBench(prefix, spec);
    }
    else
    {
        WorkloadGenerator::WriteCollectiveBench(prefix, spec);
    }
    return SummarizeCollectiveBench(scenario.Run(prefix), scenario);
}

} // namespace ns3
