/*
 * simulation-bench: wall time, simulator events per second and peak RSS of whole simulations.
 *
 *   build/bench/simulation-bench [options] dp [gpus...]    data-parallel step (default 16 64
 *                                                          GPUs, 8 per host, the demo's workload)
 *   build/bench/simulation-bench [options] ring [ranks...]  ring all-reduce on one switch, one
 *                                                          GPU per host (default 8 16 64)
 * Options: --transport=MODEL (a transport model, default: the cluster's default; a list such as
 * --transport=tcp,rdma runs every size with each model), --size=BYTES (ring: the all-reduce
 * size, default 64MiB; 1GiB, 256MiB ...), --quiet (no progress lines: by default a run prints
 * its simulated time, nodes done and events/s on stderr about once a wall-clock second).
 * Each run is a child process, so its peak RSS and CPU time are its own. CPU seconds (user +
 * system, build and trace writing included) and events per CPU second depend less on the
 * machine's load than wall seconds.
 */
#include "bench-args.h"
#include "bench-util.h"

#include "ns3/chakra-module.h"
#include "ns3/core-module.h"

#include <cstdio>
#include <string>
#include <sys/resource.h>
#include <unistd.h>
#include <vector>

using namespace ns3;

namespace
{

/** \return this process's CPU seconds (user + system) */
double
CpuSeconds()
{
    struct rusage usage;
    getrusage(RUSAGE_SELF, &usage);
    return static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
           static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
}

int
RunOne(const std::string& workload,
       uint32_t ranks,
       const std::string& transport,
       uint64_t bytes,
       bool quiet)
{
    const TemporaryDirectory directory("chakra-sim-bench");
    const std::string prefix = directory.File("trace");
    ClusterScenario scenario;
    if (!transport.empty())
    {
        scenario.GetCluster()->SetAttribute("Transport", StringValue(transport));
    }
    if (workload == "dp")
    {
        DataParallelSpec spec;
        spec.ranks = ranks;
        spec.layers = 16;
        spec.parameterBytesPerLayer = 16 << 20;
        spec.forwardMicros = 300;
        spec.backwardMicros = 600;
        WorkloadGenerator::WriteDataParallelStep(prefix, spec);
        scenario.GetCluster()->SetAttribute("GpusPerHost", UintegerValue(8));
        scenario.GetCluster()->SetAttribute("Hosts", UintegerValue(ranks / 8));
    }
    else
    {
        CollectiveBenchSpec spec;
        spec.ranks = ranks;
        spec.bytes = bytes;
        WorkloadGenerator::WriteCollectiveBench(prefix, spec);
        scenario.GetCluster()->SetAttribute("GpusPerHost", UintegerValue(1));
        scenario.GetCluster()->SetAttribute("Hosts", UintegerValue(ranks));
        scenario.SetAppAttribute("AllReduceAlgorithm", StringValue("ring"));
    }
    if (!quiet)
    {
        scenario.SetWallClockProgress(1.0, [](const ClusterScenario::WallProgress& progress) {
            std::fprintf(stderr,
                         "simulation-bench: %s\n",
                         ClusterScenario::FormatProgress(progress).c_str());
        });
    }
    ChakraReport report = scenario.Run(prefix);
    double wall = scenario.GetWallSeconds();
    double cpu = CpuSeconds();
    std::printf("%-5s %-5s %5u ranks: wall %7.2f s, cpu %7.2f s, simulated %10.1f us, %10llu "
                "events, %6.2f M events/s (%5.2f per cpu s), peak RSS %7.1f MiB, finished %s\n",
                workload.c_str(),
                scenario.GetCluster()->GetTransportModel().c_str(),
                ranks,
                wall,
                cpu,
                static_cast<double>(report.GetIterationTime().GetNanoSeconds()) / 1e3,
                static_cast<unsigned long long>(scenario.GetEventCount()),
                static_cast<double>(scenario.GetEventCount()) / 1e6 / wall,
                static_cast<double>(scenario.GetEventCount()) / 1e6 / cpu,
                chakra_bench::PeakRssMiB(),
                report.AllFinished() ? "yes" : "NO");
    return report.AllFinished() ? 0 : 1;
}

} // namespace

int
main(int argc, char** argv)
{
    const std::string program = "simulation-bench";
    ToolArgs args(program,
                  "Wall time, simulator events per second and peak RSS of whole simulations "
                  "(each run a child process).");
    args.AddPositional("workload",
                       "dp: a data-parallel step on 8-GPU hosts (the demo's workload); ring: a "
                       "ring all-reduce on one switch, one GPU per host (default dp)",
                       false);
    args.AllowMorePositionals("ranks", "GPUs of each run (default dp: 16 64; ring: 8 16 64)");
    args.AddOption("transport",
                   "transport models, comma separated (tcp,rdma runs every size with each; "
                   "default: the cluster's default)");
    args.AddOption("size", "ring: the all-reduce's size (1GiB, 256MiB, ...)", "64MiB");
    args.AddFlag("quiet",
                 "no progress lines (by default a run prints its simulated time, nodes done "
                 "and events/s on stderr about once a wall-clock second)");
    std::vector<std::string> transports;
    uint64_t bytes = 64 << 20;
    bool quiet = false;
    std::string workload = "dp";
    std::vector<uint32_t> sizes;
    auto readValues = [&]() {
        if (args.Has("transport"))
        {
            transports = chakra_bench::ParseCheckedList(args.Get("transport"),
                                                        "--transport",
                                                        CommTransport::LookupModel);
        }
        bytes = ParseByteSize(args.Get("size"), "--size", 1, uint64_t(1) << 40);
        quiet = args.Has("quiet");
        if (args.Has("workload"))
        {
            workload = chakra_bench::ParseName(args.Get("workload"), "<workload>", {"dp", "ring"});
        }
        for (const auto& text : args.GetMorePositionals())
        {
            sizes.push_back(static_cast<uint32_t>(ParseWholeNumber(text, "<ranks>", 2, 1000000)));
        }
    };
    int exitCode = 0;
    if (!chakra_bench::ParseFlags(program, args, argc, argv, readValues, exitCode))
    {
        return exitCode;
    }
    if (sizes.empty())
    {
        sizes = workload == "dp" ? std::vector<uint32_t>{16, 64} : std::vector<uint32_t>{8, 16, 64};
    }
    if (transports.empty())
    {
        transports.emplace_back(); // the cluster's default
    }
    int status = 0;
    for (uint32_t ranks : sizes)
    {
        for (const auto& transport : transports)
        {
            status |= chakra_bench::RunInChild(
                [&]() { return RunOne(workload, ranks, transport, bytes, quiet); });
        }
    }
    return status;
}
