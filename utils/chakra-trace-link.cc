/*
 * chakra_trace_link: one rank's PyTorch host execution trace + Kineto trace -> a linked trace.
 *
 * Same flags as the reference Chakra trace linker; the output is described in
 * doc/linked-trace.md, the matching rules in doc/trace-linker.md.
 */
#include "ns3/tool-args.h"
#include "ns3/trace-linker.h"

#include <iostream>

int
main(int argc, char** argv)
{
    const std::string program = "chakra_trace_link";
    ns3::ToolArgs args(program,
                       "Links a PyTorch host execution trace with the Kineto trace of the same "
                       "run: host ops get their\ntimes, kernels/memcpy/memset become nodes under "
                       "the host op that launched them, and\nsynchronisation and inter-thread "
                       "dependencies are recorded. Inputs may be gzip'd; the output\n(gzip'd if "
                       "it ends in .gz) appears only when complete. A summary goes to stderr.");
    args.AddOption("chakra-host-trace",
                   "host execution trace JSON (PyTorch ExecutionTraceObserver)",
                   "",
                   true,
                   {"chakra_host_trace"});
    args.AddOption("chakra-device-trace",
                   "Kineto trace JSON (or the legacy autograd-profiler trace)",
                   "",
                   true,
                   {"chakra_device_trace"});
    args.AddOption("rank", "rank of the traces (recorded in the output)", "", true);
    args.AddOption("output-file", "linked trace to write", "", true, {"output"});
    args.AddOption("log-level",
                   "summary verbosity: DEBUG, INFO, WARNING, ERROR or CRITICAL",
                   "INFO",
                   false,
                   {"log_level"});
    bool done = false;
    int code = args.Parse(argc, argv, done);
    if (done)
    {
        return code;
    }
    ns3::LinkLogLevel level;
    long long rank = 0;
    try
    {
        level = ns3::ParseLinkLogLevel(args.Get("log-level"));
        rank = args.GetInt("rank");
    }
    catch (const std::exception& e)
    {
        std::cerr << program << ": error: " << e.what() << std::endl;
        return 2;
    }
    return ns3::RunTool(program, [&]() {
        ns3::TraceLinker linker;
        ns3::LinkResult result =
            linker.Link(args.Get("chakra-host-trace"), args.Get("chakra-device-trace"), rank);
        ns3::WriteLinkedTrace(result, args.Get("output-file"));
        ns3::PrintLinkSummary(std::cerr, result.summary, level);
        if (level <= ns3::LinkLogLevel::INFO)
        {
            std::cerr << "INFO: wrote " << args.Get("output-file") << std::endl;
        }
        return 0;
    });
}
