/*
 * flow-scaling-bench: how the flow model scales with the number of GPUs, and where it overtakes
 * packet level (issue 15). Every run is the whole stack in one child process: write the
 * traces, build the cluster, one ChakraApplication per rank, simulate, report.
 *
 *   build/bench/flow-scaling-bench [options]
 *     --workloads=ring64M,ring1G,dp   ringS: ring all-reduce of S (64M, 1G, any size) on one
 *                                     switch, one GPU per host, NIC 100 Gbps (the setting of the
 *                                     ASTRA-sim comparison); dp: a data-parallel step (16
 *                                     layers x 16 MiB, as simulation-bench) on 8-GPU hosts
 *                                     (cluster defaults), default algorithms (hierarchical)
 *     --ranks=64,128,...,8192
 *     --transports=flow,tcp           models to run (a packet model stops growing once a run
 *                                     takes longer than the timeout)
 *     --topology=single-switch        dp's topology (ring: always one switch)
 *     --timeout=SECONDS               a run taking longer is killed (default 600)
 *     --markdown                      print the table as Markdown
 * Columns: ranks, flows (times a pair's channel became a flow; flow model only), messages,
 * simulator events, simulated time, wall time of writing the traces and of the simulation
 * (cluster build, install, run, report), CPU time of the child (user + system: the wall time
 * the run would take on an idle core; wall times on the shared VM follow the load), peak RSS of
 * the child (the whole stack), and for the flow model the most flows and the most pending
 * events at once (the report's flow table).
 */
#include "bench-args.h"
#include "bench-util.h"

#include "ns3/chakra-module.h"
#include "ns3/core-module.h"

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <unistd.h>
#include <vector>

using namespace ns3;

namespace
{

/** What a child sends back through a pipe. */
struct RunResult
{
    bool ok{false};
    bool finished{false};
    double simulatedMs{0};
    double generateSeconds{0};
    double simulateSeconds{0};
    double peakRssMiB{0};
    double cpuSeconds{0}; //!< user + system time of the child: what the wall time would be alone
    uint64_t events{0};
    uint64_t flows{0};
    uint64_t messages{0};
    uint64_t peakFlows{0};  //!< most flows at once
    uint64_t peakEvents{0}; //!< the event list's largest size (pending + cancelled events)
    char error[120]{};
};

/** A workload of the table. */
struct Workload
{
    std::string name;
    uint64_t ringBytes{0}; //!< > 0: ring all-reduce of this size; 0: data-parallel step
};

/** Command-line options (defaults: DeclareOptions). */
struct Options
{
    std::vector<Workload> workloads;
    std::vector<uint32_t> ranks;
    std::vector<std::string> transports;
    std::string topology;
    unsigned timeout{0};
    bool markdown{false};
};

bool
ParseWorkload(const std::string& name, Workload& workload)
{
    workload.name = name;
    if (name == "dp")
    {
        workload.ringBytes = 0;
        return true;
    }
    if (name.rfind("ring", 0) != 0)
    {
        return false;
    }
    std::string size = name.substr(4);
    // "64M" and "1G" read as binary sizes.
    if (!size.empty() && (size.back() == 'M' || size.back() == 'G' || size.back() == 'K'))
    {
        size += "iB";
    }
    return WorkloadGenerator::ParseBytes(size, workload.ringBytes) && workload.ringBytes > 0;
}

/** Writes the traces of \p workload for \p ranks ranks at \p prefix. */
std::vector<std::string>
WriteTraces(const Workload& workload, uint32_t ranks, const std::string& prefix)
{
    if (workload.ringBytes > 0)
    {
        CollectiveBenchSpec spec;
        spec.ranks = ranks;
        spec.bytes = workload.ringBytes;
        return WorkloadGenerator::WriteCollectiveBench(prefix, spec);
    }
    DataParallelSpec spec;
    spec.ranks = ranks;
    spec.layers = 16;
    spec.parameterBytesPerLayer = 16 << 20;
    spec.forwardMicros = 300;
    spec.backwardMicros = 600;
    return WorkloadGenerator::WriteDataParallelStep(prefix, spec);
}

/**
 * One run, in the current (child) process, its traces written at \p prefix (in a directory
 * the parent made and removes: a child killed at its time limit cleans nothing up).
 */
RunResult
RunOne(const Options& options,
       const Workload& workload,
       uint32_t ranks,
       const std::string& model,
       const std::string& prefix)
{
    RunResult result;
    double start = chakra_bench::Now();
    WriteTraces(workload, ranks, prefix);
    result.generateSeconds = chakra_bench::Now() - start;

    ClusterScenario scenario;
    Ptr<GpuClusterHelper> cluster = scenario.GetCluster();
    cluster->SetAttribute("Transport", StringValue(model));
    if (workload.ringBytes > 0)
    {
        cluster->SetAttribute("Hosts", UintegerValue(ranks));
        cluster->SetAttribute("GpusPerHost", UintegerValue(1));
        cluster->SetAttribute("NicBandwidth", StringValue("100Gbps"));
        cluster->SetAttribute("Topology", StringValue("single-switch"));
        scenario.SetAppAttribute("AllReduceAlgorithm", StringValue("ring"));
    }
    else
    {
        cluster->SetAttribute("Hosts", UintegerValue(ranks / 8));
        cluster->SetAttribute("GpusPerHost", UintegerValue(8));
        cluster->SetAttribute("Topology", StringValue(options.topology));
    }
    ChakraReport report = scenario.Run(prefix);
    result.simulateSeconds = scenario.GetWallSeconds();
    result.events = scenario.GetEventCount();
    result.finished = report.AllFinished();
    result.simulatedMs = static_cast<double>(report.GetIterationTime().GetNanoSeconds()) / 1e6;
    for (const ReportTable& table : report.GetTables())
    {
        if (table.name != "flow")
        {
            continue;
        }
        for (const auto& row : table.rows)
        {
            if (row[0] == "flow starts")
            {
                result.flows = std::stoull(row[1]);
            }
            else if (row[0] == "messages")
            {
                result.messages = std::stoull(row[1]);
            }
            else if (row[0] == "most flows at once")
            {
                result.peakFlows = std::stoull(row[1]);
            }
            else if (row[0] == "event list's largest size (pending + cancelled)")
            {
                result.peakEvents = std::stoull(row[1]);
            }
        }
    }
    result.ok = true;
    return result;
}

/** Runs one configuration in a child process killed after the timeout. */
RunResult
RunInChild(const Options& options,
           const Workload& workload,
           uint32_t ranks,
           const std::string& model)
{
    int fds[2];
    RunResult result;
    if (pipe(fds) != 0)
    {
        std::perror("pipe");
        return result;
    }
    const double start = chakra_bench::Now();
    const TemporaryDirectory directory("chakra-flow-scaling");
    chakra_bench::RunInChild([&]() {
        close(fds[0]);
        if (options.timeout > 0)
        {
            alarm(options.timeout);
        }
        RunResult child;
        try
        {
            child = RunOne(options, workload, ranks, model, directory.File("t"));
        }
        catch (const std::exception& e)
        {
            std::snprintf(child.error, sizeof(child.error), "%s", e.what());
        }
        child.peakRssMiB = chakra_bench::PeakRssMiB();
        struct rusage usage;
        getrusage(RUSAGE_SELF, &usage);
        child.cpuSeconds =
            static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
            static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
        ssize_t written = write(fds[1], &child, sizeof(child));
        close(fds[1]);
        return written == static_cast<ssize_t>(sizeof(child)) ? 0 : 1;
    });
    close(fds[1]);
    ssize_t got = read(fds[0], &result, sizeof(result));
    close(fds[0]);
    if (got != static_cast<ssize_t>(sizeof(result)))
    {
        result = RunResult();
        const double elapsed = chakra_bench::Now() - start;
        std::snprintf(result.error,
                      sizeof(result.error),
                      "%s after %.0f s",
                      options.timeout > 0 && elapsed >= options.timeout - 1 ? "timeout" : "failed",
                      elapsed);
    }
    return result;
}

void
PrintHeader(bool markdown)
{
    if (markdown)
    {
        std::printf("| workload | model | ranks | flows | messages | events | simulated ms | "
                    "traces s | simulation s | CPU s | peak RSS MiB | peak flows | peak events |\n"
                    "|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    }
    else
    {
        std::printf("%-9s %-5s %6s %10s %10s %12s %13s %9s %12s %7s %9s %10s %11s  %s\n",
                    "workload",
                    "model",
                    "ranks",
                    "flows",
                    "messages",
                    "events",
                    "simulated_ms",
                    "traces_s",
                    "simulation_s",
                    "cpu_s",
                    "rss_MiB",
                    "peak_flows",
                    "list_peak",
                    "note");
    }
    std::fflush(stdout);
}

void
PrintRow(bool markdown,
         const Workload& workload,
         const std::string& model,
         uint32_t ranks,
         const RunResult& r)
{
    std::string note = r.error;
    if (r.ok && !r.finished)
    {
        note = "UNFINISHED";
    }
    const std::string flows = model == "flow" && r.ok ? std::to_string(r.flows) : "-";
    const std::string messages = model == "flow" && r.ok ? std::to_string(r.messages) : "-";
    const std::string peakFlows = model == "flow" && r.ok ? std::to_string(r.peakFlows) : "-";
    const std::string peakEvents = model == "flow" && r.ok ? std::to_string(r.peakEvents) : "-";
    if (!r.ok)
    {
        if (markdown)
        {
            std::printf("| %s | %s | %u | - | - | - | - | - | %s | - | - | - | - |\n",
                        workload.name.c_str(),
                        model.c_str(),
                        ranks,
                        note.c_str());
        }
        else
        {
            std::printf("%-9s %-5s %6u %10s %10s %12s %13s %9s %12s %7s %9s %10s %11s  %s\n",
                        workload.name.c_str(),
                        model.c_str(),
                        ranks,
                        "-",
                        "-",
                        "-",
                        "-",
                        "-",
                        "-",
                        "-",
                        "-",
                        "-",
                        "-",
                        note.c_str());
        }
    }
    else if (markdown)
    {
        std::printf(
            "| %s | %s | %u | %s | %s | %llu | %.3f | %.2f | %.2f | %.2f | %.0f | %s | %s |%s\n",
            workload.name.c_str(),
            model.c_str(),
            ranks,
            flows.c_str(),
            messages.c_str(),
            static_cast<unsigned long long>(r.events),
            r.simulatedMs,
            r.generateSeconds,
            r.simulateSeconds,
            r.cpuSeconds,
            r.peakRssMiB,
            peakFlows.c_str(),
            peakEvents.c_str(),
            note.empty() ? "" : (" " + note).c_str());
    }
    else
    {
        std::printf(
            "%-9s %-5s %6u %10s %10s %12llu %13.3f %9.2f %12.2f %7.2f %9.0f %10s %11s  %s\n",
            workload.name.c_str(),
            model.c_str(),
            ranks,
            flows.c_str(),
            messages.c_str(),
            static_cast<unsigned long long>(r.events),
            r.simulatedMs,
            r.generateSeconds,
            r.simulateSeconds,
            r.cpuSeconds,
            r.peakRssMiB,
            peakFlows.c_str(),
            peakEvents.c_str(),
            note.c_str());
    }
    std::fflush(stdout);
}

/**
 * Declares the flags on \p args and returns what takes their values into \p options, checking
 * each (std::invalid_argument naming the flag).
 */
std::function<void()>
DeclareOptions(ToolArgs& args, Options& options)
{
    args.AddOption("workloads",
                   "ringS: ring all-reduce of S (64M, 1G, any size) on one switch, one GPU per "
                   "host, NIC 100 Gbps; dp: a data-parallel step (16 layers x 16 MiB) on 8-GPU "
                   "hosts (comma separated)",
                   "ring64M,ring1G,dp");
    args.AddOption("ranks", "GPU counts (comma separated)", "64,128,256,512,1024,2048,4096,8192");
    args.AddOption("transports",
                   "models to run (a packet model stops growing once a run takes longer than "
                   "the timeout)",
                   "flow,tcp");
    args.AddOption("topology", "dp's topology (ring: always one switch)", "single-switch");
    args.AddOption("timeout", "a run taking longer (seconds) is killed", "600");
    args.AddFlag("markdown", "print the table as Markdown");
    return [&args, &options]() {
        for (const auto& name : chakra_bench::NonEmptyList(args.Get("workloads"), "--workloads"))
        {
            Workload workload;
            if (!ParseWorkload(name, workload))
            {
                throw std::invalid_argument("--workloads: unknown workload '" + name +
                                            "' (ringS with S a size such as 64M, 1G; or dp)");
            }
            options.workloads.push_back(workload);
        }
        options.ranks = chakra_bench::ParseCountList(args.Get("ranks"), "--ranks", 2, 1000000);
        options.transports = chakra_bench::ParseCheckedList(args.Get("transports"),
                                                            "--transports",
                                                            CommTransport::LookupModel);
        options.topology =
            chakra_bench::ParseName(args.Get("topology"), "--topology", TopologyKindNames());
        options.timeout =
            static_cast<unsigned>(ParseWholeNumber(args.Get("timeout"), "--timeout", 1, 86400));
        options.markdown = args.Has("markdown");
    };
}

} // namespace

int
main(int argc, char** argv)
{
    const std::string program = "flow-scaling-bench";
    ToolArgs args(program,
                  "How the flow model scales with the number of GPUs, and where it overtakes "
                  "packet level: every run the whole stack in a child process.");
    // ns-3 flags (--ns3::Type::Attribute=..., --SchedulerType=...) reach every run: the
    // children are forked after they are set. For A/B runs of one binary.
    args.EnableNs3Attributes();
    Options options;
    const std::function<void()> readValues = DeclareOptions(args, options);
    int exitCode = 0;
    if (!chakra_bench::ParseFlags(program, args, argc, argv, readValues, exitCode))
    {
        return exitCode;
    }
    PrintHeader(options.markdown);
    for (const Workload& workload : options.workloads)
    {
        for (const std::string& model : options.transports)
        {
            bool stop = false;
            for (uint32_t ranks : options.ranks)
            {
                if (workload.ringBytes == 0 && ranks % 8 != 0)
                {
                    continue;
                }
                if (stop)
                {
                    PrintRow(options.markdown, workload, model, ranks, [] {
                        RunResult skipped;
                        std::snprintf(skipped.error,
                                      sizeof(skipped.error),
                                      "not run (a smaller run exceeded the timeout)");
                        return skipped;
                    }());
                    continue;
                }
                RunResult result = RunInChild(options, workload, ranks, model);
                PrintRow(options.markdown, workload, model, ranks, result);
                stop = !result.ok;
            }
        }
    }
    return 0;
}
