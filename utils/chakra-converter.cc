/*
 * chakra_converter: a PyTorch host or linked trace -> a Chakra .et for its rank.
 *
 *   chakra_converter PyTorch --input LINKED.json[.gz] --output OUT.et [--log-filename F]
 *
 * The reference Chakra converter's form. The rules are in doc/converter.md.
 */
#include "ns3/tool-args.h"
#include "ns3/trace-converter.h"

#include <fstream>
#include <iostream>
#include <sstream>

int
main(int argc, char** argv)
{
    const std::string program = "chakra_converter";
    ns3::ToolArgs args(program,
                       "Converts a PyTorch execution trace (host only, or linked with its Kineto "
                       "trace by\nchakra_trace_link) into a Chakra .et trace. Outputs ending in "
                       ".gz are gzip'd; the output\nappears only when complete.");
    args.AddPositional("input_type", "the input trace type; only \"PyTorch\"");
    args.AddOption("input",
                   "the host or linked trace (JSON, plain or gzip'd)",
                   "",
                   true,
                   {"input_filename", "input-filename"});
    args.AddOption("output",
                   "the .et file to write",
                   "",
                   true,
                   {"output_filename", "output-filename"});
    args.AddOption("log-filename",
                   "write the conversion report to this file",
                   "",
                   false,
                   {"log_filename"});
    args.AddOption("rank",
                   "global rank of the trace (default: trace_link.rank; needed "
                   "for send/recv)");
    args.AddOption("world-size",
                   "number of ranks (default: trace_link.world_size, else the "
                   "largest process group)",
                   "",
                   false,
                   {"world_size"});
    args.AddFlag("quiet", "print nothing on success");
    args.AddFlag("astra-sim",
                 "write the trace as ASTRA-sim's workload layer reads it: no METADATA node, "
                 "communicators numbered (sub-groups in <prefix>.comm-groups.json beside the "
                 "output), communication nodes not on the CPU; all-reduce, all-gather, "
                 "reduce-scatter and all-to-all only (doc/converter.md)");
    bool done = false;
    int code = args.Parse(argc, argv, done);
    if (done)
    {
        return code;
    }
    if (args.Get("input_type") != "PyTorch")
    {
        std::cerr << program << ": error: unsupported input type '" << args.Get("input_type")
                  << "': only PyTorch traces are converted (see --help)" << std::endl;
        return 2;
    }
    ns3::ConversionOptions options;
    options.astraSim = args.Has("astra-sim");
    try
    {
        if (args.Has("rank"))
        {
            options.rank = args.GetInt("rank");
        }
        if (args.Has("world-size"))
        {
            options.worldSize = args.GetInt("world-size");
        }
    }
    catch (const std::exception& e)
    {
        std::cerr << program << ": error: " << e.what() << " (see --help)" << std::endl;
        return 2;
    }
    if ((options.rank && *options.rank < 0) || (options.worldSize && *options.worldSize <= 0))
    {
        std::cerr << program << ": error: --rank must be >= 0 and --world-size > 0" << std::endl;
        return 2;
    }
    const std::string logPath = args.Get("log-filename");
    auto writeLog = [&](const std::string& text) {
        if (logPath.empty())
        {
            return;
        }
        std::ofstream log(logPath);
        log << text;
        if (!log)
        {
            std::cerr << program << ": warning: cannot write the log " << logPath << std::endl;
        }
    };
    return ns3::RunTool(program, [&]() {
        ns3::ConversionReport report;
        try
        {
            report = ns3::TraceConverter(options).Convert(args.Get("input"), args.Get("output"));
        }
        catch (const std::exception& e)
        {
            writeLog(program + ": error: " + e.what() + "\n");
            throw;
        }
        std::ostringstream text;
        text << report;
        writeLog(text.str());
        if (!args.Has("quiet"))
        {
            std::cerr << program << ": " << report.input << " -> " << report.output << ": "
                      << report.outputNodes << " nodes, " << report.GetCollectiveCount()
                      << " collectives, " << report.sends << " sends, " << report.recvs
                      << " recvs, " << report.warningCount << " warnings" << std::endl;
        }
        return 0;
    });
}
