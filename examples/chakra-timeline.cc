/*
 * chakra-timeline: write a timeline of a simulated training step, to look at in a browser.
 *
 * A data-parallel step (WorkloadGenerator: forward and backward compute per layer, gradient
 * all-reduces in buckets during the backward pass, then the optimizer) on hosts x GPUs, with
 * ClusterScenario::SetTimeline: the run writes a Chrome trace JSON with one process per rank,
 * one thread per stream it used (compute, communication), an event per trace node (name, start,
 * duration) and per collective. Open the file in https://ui.perfetto.dev (or chrome://tracing)
 * to see which all-reduces hide behind compute and which do not. The file is written only if
 * every rank finished.
 *
 *   build/bin/chakra-timeline [--timeline=chakra-timeline.json] [--hosts=2] [--gpusPerHost=2]
 *                             [--layers=4]
 */
#include "example-util.h"

#include "ns3/chakra-module.h"
#include "ns3/core-module.h"

#include <filesystem>
#include <iomanip>
#include <iostream>

using namespace ns3;

NS_LOG_COMPONENT_DEFINE("ChakraTimeline");

int
RunExample(int argc, char* argv[])
{
    std::string timeline = "chakra-timeline.json";
    uint32_t hosts = 2;
    uint32_t gpusPerHost = 2;
    uint32_t layers = 4;
    ExampleCommandLine cmd(__FILE__);
    cmd.AddValue("timeline", "where to write the timeline (Chrome trace JSON)", timeline);
    cmd.AddValue("hosts", "hosts", hosts);
    cmd.AddValue("gpusPerHost", "GPUs (ranks) per host", gpusPerHost);
    cmd.AddValue("layers", "model layers", layers);
    cmd.Parse(argc, argv);

    // The cluster first: its attributes check the sizes (and their product) before traces for
    // that many ranks are written.
    ClusterScenario scenario;
    scenario.SetClusterAttribute("Hosts", UintegerValue(hosts));
    scenario.SetClusterAttribute("GpusPerHost", UintegerValue(gpusPerHost));
    scenario.GetCluster()->Validate();

    const TemporaryDirectory directory("chakra-timeline");
    const std::string prefix = directory.GetPath() + "/step";
    DataParallelSpec spec;
    spec.ranks = scenario.GetCluster()->GetRankCount();
    spec.layers = layers;
    spec.parameterBytesPerLayer = 8u << 20; // 8 MiB of gradients per layer,
    spec.bucketBytes = 16u << 20;           // all-reduced two layers at a time
    WorkloadGenerator::WriteDataParallelStep(prefix, spec);

    scenario.SetTimeline(timeline);
    ChakraReport report;
    try
    {
        report = scenario.Run(prefix);
    }
    catch (const std::exception& e) // e.g. a timeline path that cannot be written
    {
        std::cerr << "error: " << e.what() << std::endl;
        return 1;
    }
    if (!report.AllFinished())
    {
        report.PrintProblems(std::cerr);
        return 1;
    }
    const RankStats& rank0 = report.GetRanks().front();
    std::cout << std::fixed << std::setprecision(3)
              << "iteration time: " << report.GetIterationTime().GetNanoSeconds() / 1e3
              << " us; rank 0: compute " << rank0.computeBusy.GetNanoSeconds() / 1e3
              << " us, communication " << rank0.commTime.GetNanoSeconds() / 1e3
              << " us, of which exposed " << rank0.exposedComm.GetNanoSeconds() / 1e3 << " us\n";
    std::cout << "timeline: " << std::filesystem::absolute(timeline).string()
              << " (open in https://ui.perfetto.dev)" << std::endl;
    return 0;
}

int
main(int argc, char* argv[])
{
    // A mistake (a refused value, an absurd size) is one line naming it and exit 1, not an abort.
    return RunTool("chakra-timeline", [&] { return RunExample(argc, argv); });
}
