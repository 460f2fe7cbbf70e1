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

namespace
{

const std::string kProgram = "chakra_converter";

/** The flags, in the reference converter's form (its underscore spellings as aliases). */
void
AddConverterFlags(ns3::ToolArgs& args)
{
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
}

/**
 * Reads the conversion options from the flags; a bad value is said on stderr.
 * \return 0, or the exit status of a usage error (2)
 */
int
ReadOptions(const ns3::ToolArgs& args, ns3::ConversionOptions& options)
{
    if (args.Get("input_type") != "PyTorch")
    {
        std::cerr << kProgram << ": error: unsupported input type '" << args.Get("input_type")
                  << "': only PyTorch traces are converted (see --help)" << std::endl;
        return 2;
    }
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
        std::cerr << kProgram << ": error: " << e.what() << " (see --help)" << std::endl;
        return 2;
    }
    if ((options.rank && *options.rank < 0) || (options.worldSize && *options.worldSize <= 0))
    {
        std::cerr << kProgram << ": error: --rank must be >= 0 and --world-size > 0" << std::endl;
        return 2;
    }
    return 0;
}

/** Writes \p text to the --log-filename file, if one is given (a warning if it cannot). */
void
WriteLog(const std::string& logPath, const std::string& text)
{
    if (logPath.empty())
    {
        return;
    }
    std::ofstream log(logPath);
    log << text;
    if (!log)
    {
        std::cerr << kProgram << ": warning: cannot write the log " << logPath << std::endl;
    }
}

/** Converts the trace, writes the log and says what it did. \return the exit status */
int
Convert(const ns3::ToolArgs& args, const ns3::ConversionOptions& options)
{
    const std::string logPath = args.Get("log-filename");
    ns3::ConversionReport report;
    try
    {
        report = ns3::TraceConverter(options).Convert(args.Get("input"), args.Get("output"));
    }
    catch (const std::exception& e)
    {
        WriteLog(logPath, kProgram + ": error: " + e.what() + "\n");
        throw;
    }
    std::ostringstream text;
    text << report;
    WriteLog(logPath, text.str());
    if (!args.Has("quiet"))
    {
        std::cerr << kProgram << ": " << report.input << " -> " << report.output << ": "
                  << report.outputNodes << " nodes, " << report.GetCollectiveCount()
                  << " collectives, " << report.sends << " sends, " << report.recvs << " recvs, "
                  << report.warningCount << " warnings" << std::endl;
    }
    return 0;
}

} // namespace

int
main(int argc, char** argv)
{
    ns3::ToolArgs args(kProgram,
                       "Converts a PyTorch execution trace (host only, or linked with its Kineto "
                       "trace by\nchakra_trace_link) into a Chakra .et trace. Outputs ending in "
                       ".gz are gzip'd; the output\nappears only when complete.");
    AddConverterFlags(args);
    bool done = false;
    int code = args.Parse(argc, argv, done);
    if (done)
    {
        return code;
    }
    ns3::ConversionOptions options;
    code = ReadOptions(args, options);
    if (code != 0)
    {
        return code;
    }
    return ns3::RunTool(kProgram, [&]() { return Convert(args, options); });
}
