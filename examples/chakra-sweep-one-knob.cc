/*
 * chakra-sweep-one-knob: one workload, one knob, one run per value, a table of the results.
 *
 * The workload is one all-reduce on every rank (WorkloadGenerator, as chakra_generator
 * writes it); the knob is the GPUs' NIC bandwidth (GpuClusterHelper::NicBandwidth). Each value
 * is a fresh ClusterScenario: ClusterScenario::Run destroys the simulator when it is done, so
 * one process can run the runs one after the other. With one GPU per host the all-reduce is a
 * ring over the NICs, so its time falls as the bandwidth rises until latency dominates.
 * (scripts/sweep.py does the same over chakra-cluster runs, in parallel, for any flag.)
 *
 *   build/bin/chakra-sweep-one-knob [--hosts=4] [--bytes=4194304]
 *                                   [--bandwidths=25Gbps,50Gbps,100Gbps,200Gbps,400Gbps]
 */
#include "example-util.h"

#include "ns3/chakra-module.h"
#include "ns3/core-module.h"

#include <filesystem>
#include <iomanip>
#include <iostream>
#include <sstream>

using namespace ns3;

NS_LOG_COMPONENT_DEFINE("ChakraSweepOneKnob");

int
RunExample(int argc, char* argv[])
{
    uint32_t hosts = 4;
    uint64_t bytes = 4u << 20;
    std::string bandwidths = "25Gbps,50Gbps,100Gbps,200Gbps,400Gbps";
    ExampleCommandLine cmd(__FILE__);
    cmd.AddValue("hosts", "hosts, one GPU (rank) each", hosts);
    cmd.AddValue("bytes", "all-reduce size in bytes", bytes);
    cmd.AddValue("bandwidths", "NIC bandwidths to run, comma-separated", bandwidths);
    cmd.Parse(argc, argv);

    const TemporaryDirectory directory("chakra-sweep");
    const std::string prefix = directory.GetPath() + "/allreduce";
    CollectiveBenchSpec spec;
    spec.type = ChakraProtoMsg::ALL_REDUCE;
    spec.ranks = hosts;
    spec.bytes = bytes;
    WorkloadGenerator::WriteCollectiveBench(prefix, spec);

    std::cout << "all-reduce of " << bytes << " bytes on " << hosts
              << " hosts x 1 GPU, one switch, rdma\n";
    std::cout << std::left << std::setw(16) << "nic_bandwidth" << std::right << std::setw(12)
              << "time_us" << std::setw(14) << "busbw_GB/s"
              << "\n";
    std::cout << std::fixed << std::setprecision(3);
    int status = 0;
    std::istringstream values(bandwidths);
    std::string bandwidth;
    while (std::getline(values, bandwidth, ','))
    {
        ClusterScenario scenario;
        Ptr<GpuClusterHelper> cluster = scenario.GetCluster();
        scenario.SetClusterAttribute("Hosts", UintegerValue(hosts));
        scenario.SetClusterAttribute("GpusPerHost", UintegerValue(1));
        scenario.SetClusterAttribute("NicBandwidth", StringValue(bandwidth)); // the knob
        ChakraReport report;
        try
        {
            report = scenario.Run(prefix);
        }
        catch (const std::exception& e) // e.g. a bandwidth that does not parse
        {
            std::cerr << bandwidth << ": " << e.what() << std::endl;
            status = 1;
            continue;
        }
        if (!report.AllFinished())
        {
            std::cerr << bandwidth << ": " << report.DescribeFailure() << std::endl;
            status = 1;
            continue;
        }
        const CollectiveSummary allReduce = report.GetCollectives().front();
        std::cout << std::left << std::setw(16) << bandwidth << std::right << std::setw(12)
                  << (allReduce.end - allReduce.start).GetNanoSeconds() / 1e3 << std::setw(14)
                  << allReduce.busBwGBps << "\n";
    }
    return status;
}

int
main(int argc, char* argv[])
{
    // A mistake (a refused value, an absurd size) is one line naming it and exit 1, not an abort.
    return RunTool("chakra-sweep-one-knob", [&] { return RunExample(argc, argv); });
}
