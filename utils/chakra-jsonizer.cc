/*
 * chakra_jsonizer: a Chakra .et trace as one JSON document, and back (--reverse).
 *
 * Same flags as the reference Chakra jsonizer; .et -> JSON -> .et gives back the same bytes.
 */
#include "ns3/et-json.h"
#include "ns3/tool-args.h"

#include <iostream>

int
main(int argc, char** argv)
{
    const std::string program = "chakra_jsonizer";
    ns3::ToolArgs args(program,
                       "Writes a Chakra .et trace (plain or gzip'd) as one JSON document; with "
                       "--reverse, writes the .et\ndescribed by such a JSON document. Outputs "
                       "ending in .gz are gzip'd. Outputs appear only when complete.");
    args.AddOption("input-filename",
                   "input file (.et, or JSON with --reverse)",
                   "",
                   true,
                   {"input"});
    args.AddOption("output-filename",
                   "output file (JSON, or .et with --reverse)",
                   "",
                   true,
                   {"output"});
    args.AddFlag("reverse", "convert JSON to .et instead of .et to JSON");
    args.AddFlag("quiet", "print nothing on success");
    bool done = false;
    int code = args.Parse(argc, argv, done);
    if (done)
    {
        return code;
    }
    return ns3::RunTool(program, [&]() {
        const std::string input = args.Get("input-filename");
        const std::string output = args.Get("output-filename");
        uint64_t nodes = args.Has("reverse") ? ns3::ConvertJsonToEt(input, output)
                                             : ns3::ConvertEtToJson(input, output);
        if (!args.Has("quiet"))
        {
            std::cerr << program << ": " << input << " -> " << output << ": " << nodes << " nodes"
                      << std::endl;
        }
        return 0;
    });
}
