/*
 * chakra-replay-trace: write a small per-rank trace by hand and replay it on a GPU cluster.
 *
 * Every rank's trace is three nodes: a forward compute, an all-reduce of the gradients that
 * depends on it, and an optimizer compute that depends on the all-reduce. RankTraceBuilder
 * writes them as Chakra .et files (what chakra_converter makes from PyTorch traces), then
 * ClusterScenario builds hosts x GPUs-per-host GPUs on one switch, installs one
 * ChakraApplication per rank, runs, and the report gives the iteration time. Nothing overlaps,
 * so the iteration is forward + all-reduce + optimizer.
 *
 *   build/bin/chakra-replay-trace [--hosts=2] [--gpusPerHost=4] [--bytes=4194304]
 *                                 [--forwardUs=100] [--optimizerUs=50]
 */
#include "example-util.h"

#include "ns3/chakra-module.h"
#include "ns3/core-module.h"

#include <filesystem>
#include <iomanip>
#include <iostream>

using namespace ns3;

NS_LOG_COMPONENT_DEFINE("ChakraReplayTrace");

int
RunExample(int argc, char* argv[])
{
    uint32_t hosts = 2;
    uint32_t gpusPerHost = 4;
    uint64_t bytes = 4u << 20;
    uint64_t forwardUs = 100;
    uint64_t optimizerUs = 50;
    ExampleCommandLine cmd(__FILE__);
    cmd.AddValue("hosts", "hosts", hosts);
    cmd.AddValue("gpusPerHost", "GPUs (ranks) per host", gpusPerHost);
    cmd.AddValue("bytes", "gradient bytes all-reduced by every rank", bytes);
    cmd.AddValue("forwardUs", "forward compute per rank (us)", forwardUs);
    cmd.AddValue("optimizerUs", "optimizer compute per rank (us)", optimizerUs);
    cmd.Parse(argc, argv);

    // The cluster first: its attributes check the sizes (and their product) before traces for
    // that many ranks are written.
    ClusterScenario scenario;
    scenario.SetClusterAttribute("Hosts", UintegerValue(hosts));
    scenario.SetClusterAttribute("GpusPerHost", UintegerValue(gpusPerHost));
    scenario.GetCluster()->Validate();
    const uint32_t ranks = scenario.GetCluster()->GetRankCount();

    // The traces go to a fresh temporary directory: the example needs no input files.
    const TemporaryDirectory directory("chakra-replay");
    const std::string prefix = directory.GetPath() + "/step";
    std::vector<uint32_t> everyRank;
    for (uint32_t rank = 0; rank < ranks; ++rank)
    {
        everyRank.push_back(rank);
    }
    for (uint32_t rank = 0; rank < ranks; ++rank)
    {
        RankTraceBuilder trace(RankTraceBuilder::Path(prefix, rank), ranks);
        trace.ProcessGroups({{"0", everyRank, ranks}}); // process group "0": the whole job
        const uint64_t forward = trace.Compute("forward", forwardUs, {});
        const uint64_t allReduce = trace.Collective("all_reduce_gradients",
                                                    ChakraProtoMsg::ALL_REDUCE,
                                                    bytes,
                                                    {forward},
                                                    "0");
        trace.Compute("optimizer", optimizerUs, {allReduce});
        trace.Commit();
    }

    ChakraReport report;
    try
    {
        report = scenario.Run(prefix);
    }
    catch (const std::exception& e) // a configuration that cannot run: the message says why
    {
        std::cerr << "error: " << e.what() << std::endl;
        return 1;
    }
    report.Print(std::cout, 4); // 4 rows per table

    if (!report.AllFinished() || report.GetCollectives().empty())
    {
        return 1;
    }
    const CollectiveSummary allReduce = report.GetCollectives().front();
    std::cout << std::fixed << std::setprecision(3);
    std::cout << "\nforward " << forwardUs << " us + all-reduce "
              << (allReduce.end - allReduce.start).GetNanoSeconds() / 1e3 << " us ("
              << allReduce.algorithm << ", " << bytes << " bytes) + optimizer " << optimizerUs
              << " us\n";
    std::cout << "iteration time: " << report.GetIterationTime().GetNanoSeconds() / 1e3 << " us"
              << std::endl;
    return 0;
}

int
main(int argc, char* argv[])
{
    // A mistake (a refused value, an absurd size) is one line naming it and exit 1, not an abort.
    return RunTool("chakra-replay-trace", [&] { return RunExample(argc, argv); });
}
