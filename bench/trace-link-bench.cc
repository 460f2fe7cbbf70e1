/*
 * Benchmark of TraceLinker on param-linear (21 MB Kineto trace, 86,859 events): wall time of
 * link + write, and peak resident memory, against the targets (<= 2 s, <= 10x the raw
 * input size).
 *
 * Usage: trace-link-bench [DATA_DIR] [REPEATS]
 *   DATA_DIR defaults to $CHAKRA_TEST_DATA, else ../shared/data (run from the repository root).
 */
#include "bench-args.h"

#include "ns3/trace-file.h"
#include "ns3/trace-linker.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>
#include <sys/resource.h>
#include <unistd.h>
#include <vector>

namespace
{

/** \return the uncompressed size of a plain or gzip'd file, read through a fixed buffer */
uint64_t
RawSize(const std::string& path)
{
    ns3::InputFile file(path);
    std::vector<char> buffer(1 << 16);
    while (file.Read(buffer.data(), buffer.size()) > 0)
    {
    }
    return file.GetOffset();
}

/** \return the peak resident set size so far, in bytes */
uint64_t
PeakRss()
{
    struct rusage usage;
    getrusage(RUSAGE_SELF, &usage);
    return static_cast<uint64_t>(usage.ru_maxrss) * 1024;
}

} // namespace

int
main(int argc, char** argv)
{
    const std::string program = "trace-link-bench";
    ns3::ToolArgs args(program,
                       "Links param-linear's host and device traces and writes the result; "
                       "prints wall time and peak RSS against the targets (<= 2 s, <= 10x "
                       "the raw input).");
    args.AddPositional("data-dir",
                       "the shared traces (default $CHAKRA_TEST_DATA, else ../shared/data)",
                       false);
    args.AddPositional("repeats", "runs, the median reported (default 3)", false);
    const char* env = std::getenv("CHAKRA_TEST_DATA");
    std::string data = env != nullptr ? env : "../shared/data";
    int repeats = 3;
    auto readValues = [&]() {
        if (args.Has("data-dir"))
        {
            data = args.Get("data-dir");
        }
        if (args.Has("repeats"))
        {
            repeats =
                static_cast<int>(ns3::ParseWholeNumber(args.Get("repeats"), "<repeats>", 1, 1000));
        }
    };
    int exitCode = 0;
    if (!chakra_bench::ParseFlags(program, args, argc, argv, readValues, exitCode))
    {
        return exitCode;
    }
    const std::string host = data + "/host-device/param-linear/linear_et.json.gz";
    const std::string device = data + "/host-device/param-linear/linear_kineto.json.gz";
    const std::string output = "/tmp/trace-link-bench-" + std::to_string(getpid()) + ".json";

    try
    {
        const uint64_t rssBefore = PeakRss();
        std::vector<double> seconds;
        ns3::LinkSummary summary;
        for (int i = 0; i < repeats; ++i)
        {
            auto start = std::chrono::steady_clock::now();
            ns3::LinkResult result = ns3::TraceLinker().Link(host, device, 0);
            ns3::WriteLinkedTrace(result, output);
            auto end = std::chrono::steady_clock::now();
            seconds.push_back(std::chrono::duration<double>(end - start).count());
            summary = std::move(result.summary);
        }
        const uint64_t rssPeak = PeakRss();
        std::remove(output.c_str());
        const uint64_t raw = RawSize(host) + RawSize(device);
        std::sort(seconds.begin(), seconds.end());

        std::printf("trace-link-bench: param-linear (host + device raw %.1f MB)\n", raw / 1e6);
        std::printf("  host ops linked %llu/%llu, GPU ops attached %llu/%llu\n",
                    static_cast<unsigned long long>(summary.hostOpsLinked),
                    static_cast<unsigned long long>(summary.hostOps),
                    static_cast<unsigned long long>(summary.gpuOpsAttached),
                    static_cast<unsigned long long>(summary.gpuOps));
        std::printf("  wall time (link + write), %d runs: min %.3f s, median %.3f s, max %.3f s "
                    "(target <= 2 s)\n",
                    repeats,
                    seconds.front(),
                    seconds[seconds.size() / 2],
                    seconds.back());
        std::printf("  peak RSS %.1f MB (%.1fx raw input; target <= 10x), of which %.1f MB "
                    "before linking (program and libraries)\n",
                    rssPeak / 1e6,
                    static_cast<double>(rssPeak) / raw,
                    rssBefore / 1e6);
        return seconds[seconds.size() / 2] <= 2.0 && rssPeak <= 10 * raw ? 0 : 1;
    }
    catch (const std::exception& e)
    {
        std::cerr << "trace-link-bench: error: " << e.what() << std::endl;
        return 1;
    }
}
