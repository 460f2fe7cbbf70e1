/*
 * chakra_et_info: what is in a .et trace (node types, collectives, bytes, dependencies).
 */
#include "ns3/et-summary.h"
#include "ns3/tool-args.h"
#include "ns3/trace-limits.h"

#include <iostream>

int
main(int argc, char** argv)
{
    const std::string program = "chakra_et_info";
    ns3::ToolArgs args(program,
                       "Prints node counts by type and collective, bytes communicated "
                       "and dependency counts of .et traces.");
    args.AddPositional("trace", "a .et file (plain or gzip'd)");
    args.AllowMorePositionals("more", "more .et files");
    bool done = false;
    int code = args.Parse(argc, argv, done);
    if (done)
    {
        return code;
    }
    // The simulator's bounds (a node at most an hour, a call at most 1 TiB): a trace the
    // simulator would refuse is not summarised as if it were fine.
    auto check = [](const ns3::EtNode& node) {
        ns3::NodeDuration(node, "duration_micros", node.GetDurationMicros());
        const auto type = node.GetType();
        if (type == ChakraProtoMsg::COMM_COLL_NODE || type == ChakraProtoMsg::COMM_SEND_NODE ||
            type == ChakraProtoMsg::COMM_RECV_NODE)
        {
            ns3::NodeCommBytes(node);
        }
    };
    return ns3::RunTool(program, [&]() {
        std::cout << ns3::SummarizeEt(args.Get("trace"), check);
        for (const auto& path : args.GetMorePositionals())
        {
            std::cout << ns3::SummarizeEt(path, check);
        }
        return 0;
    });
}
