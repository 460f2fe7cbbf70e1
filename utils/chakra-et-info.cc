/*
 * chakra_et_info: what is in a .et trace (node types, collectives, bytes, dependencies).
 */
#include "tool-args.h"

#include "ns3/et-summary.h"

#include <iostream>

int
main(int argc, char** argv)
{
    const std::string program = "chakra_et_info";
    ns3::ToolArgs args(program, "Prints node counts by type and collective, bytes communicated "
                                "and dependency counts of .et traces.");
    args.AddPositional("trace", "a .et file (plain or gzip'd)");
    args.AllowMorePositionals("more", "more .et files");
    bool done = false;
    int code = args.Parse(argc, argv, done);
    if (done)
    {
        return code;
    }
    return ns3::RunTool(program, [&]() {
        std::cout << ns3::SummarizeEt(args.Get("trace"));
        for (const auto& path : args.GetMorePositionals())
        {
            std::cout << ns3::SummarizeEt(path);
        }
        return 0;
    });
}
