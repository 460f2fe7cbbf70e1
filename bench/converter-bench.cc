/*
 * converter-bench: wall time and peak RSS of TraceConverter on real traces.
 *
 *   converter-bench [RESNET_HOST_TRACE] [LINKED_TRACE ...]
 *
 * Without arguments it converts the shared resnet host trace
 * ($CHAKRA_TEST_DATA or ../shared/data, relative to the working directory:
 * host-only/param-resnet/resnet_et_1.1.0.json.gz). Each trace is converted
 * five times; the best wall time is reported, split into reading (gunzip + JSON + node model)
 * and converting (classification, dependencies, writing the .et), and the best CPU time of the
 * process (on a shared machine other processes stretch the wall time, far less the CPU time).
 * Peak RSS is the process's maximum resident set size (getrusage), so it covers the largest
 * trace given. Beside it, the CPU time of nlohmann/json's DOM parse of the same text and the
 * ratio, a yardstick that a slow or loaded machine stretches as much as the converter.
 */
#include "bench-args.h"

#include "ns3/pytorch-trace.h"
#include "ns3/trace-converter.h"
#include "ns3/trace-error.h"
#include "ns3/trace-file.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>
#include <sys/resource.h>
#include <time.h>
#include <vector>

namespace
{

double
Seconds(std::chrono::steady_clock::time_point from)
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - from).count();
}

/** \return the CPU time this process has used, seconds */
double
CpuSeconds()
{
    timespec now{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now);
    return static_cast<double>(now.tv_sec) + static_cast<double>(now.tv_nsec) / 1e9;
}

long
PeakRssKiB()
{
    struct rusage usage
    {
    };

    getrusage(RUSAGE_SELF, &usage);
    return usage.ru_maxrss;
}

} // namespace

int
main(int argc, char** argv)
{
    const std::string program = "converter-bench";
    ns3::ToolArgs args(program,
                       "Converts PyTorch traces five times each; prints the best wall and CPU "
                       "time (read, convert + write) and the peak RSS.");
    args.AddPositional("trace",
                       "a host or linked trace (default: the shared resnet host trace under "
                       "$CHAKRA_TEST_DATA, else ../shared/data)",
                       false);
    args.AllowMorePositionals("more", "more traces");
    std::vector<std::string> inputs;
    auto readValues = [&]() {
        if (args.Has("trace"))
        {
            inputs.push_back(args.Get("trace"));
        }
        for (const auto& path : args.GetMorePositionals())
        {
            inputs.push_back(path);
        }
    };
    int exitCode = 0;
    if (!chakra_bench::ParseFlags(program, args, argc, argv, readValues, exitCode))
    {
        return exitCode;
    }
    if (inputs.empty())
    {
        const char* data = std::getenv("CHAKRA_TEST_DATA");
        inputs.push_back(std::string(data != nullptr && *data != '\0' ? data : "../shared/data") +
                         "/host-only/param-resnet/resnet_et_1.1.0.json.gz");
    }
    const std::string output =
        (std::filesystem::temp_directory_path() / "converter-bench-output.et").string();
    try
    {
        for (const auto& input : inputs)
        {
            double bestRead = 1e30;
            double bestConvert = 1e30;
            double bestTotal = 1e30;
            double bestCpu = 1e30;
            ns3::ConversionReport report;
            for (int round = 0; round < 5; ++round)
            {
                const double cpuStart = CpuSeconds();
                auto start = std::chrono::steady_clock::now();
                ns3::PyTorchTrace trace = ns3::PyTorchTrace::Load(input);
                double read = Seconds(start);
                auto convertStart = std::chrono::steady_clock::now();
                report = ns3::TraceConverter().Convert(trace, output);
                double convert = Seconds(convertStart);
                double total = Seconds(start);
                bestCpu = std::min(bestCpu, CpuSeconds() - cpuStart);
                if (total < bestTotal)
                {
                    bestTotal = total;
                    bestRead = read;
                    bestConvert = convert;
                }
            }
            // A yardstick on the same machine at the same moment, so that a slow or loaded
            // machine shows in both: nlohmann/json's parse of the same text into a DOM (the
            // converter cost 1.1-1.2 x this before its own JSON reader, 0.5-0.6 x after).
            double bestDom = 1e30;
            const std::string text = ns3::ReadWholeFile(input);
            for (int round = 0; round < 5; ++round)
            {
                const double cpuStart = CpuSeconds();
                const auto nodes = nlohmann::json::parse(text)["nodes"].size();
                bestDom = std::min(bestDom, CpuSeconds() - cpuStart);
                (void)nodes;
            }
            std::cout << input << "\n  nodes: " << report.inputNodes << " in, "
                      << report.outputNodes << " out; collectives " << report.GetCollectiveCount()
                      << "\n  wall: " << bestTotal << " s (read " << bestRead
                      << " s, convert+write " << bestConvert << " s), best of 5\n  CPU: " << bestCpu
                      << " s, best of 5 (nlohmann DOM parse of the same text: " << bestDom
                      << " s CPU; ratio " << bestCpu / bestDom
                      << ")\n  peak RSS so far: " << PeakRssKiB() / 1024.0 << " MiB" << std::endl;
        }
    }
    catch (const ns3::TraceError& e)
    {
        std::cerr << "converter-bench: " << e.what() << std::endl;
        std::remove(output.c_str());
        return 1;
    }
    std::remove(output.c_str());
    return 0;
}
