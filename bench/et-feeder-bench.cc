/*
 * et-feeder-bench: a synthetic layered DAG of N nodes (default 10,000,000; each node has 1-4
 * parents among the previous ~1,000 ids) written to a .et, then fed through the full
 * issue / finish / remove loop with the default window. Prints nodes/s and peak RSS.
 *
 *   build/bench/et-feeder-bench [nodes] [path] [window]
 */
#include "bench-args.h"
#include "bench-util.h"

#include "ns3/et-feeder.h"
#include "ns3/et-writer.h"

#include <cstdio>
#include <random>
#include <string>

using namespace ns3;

int
main(int argc, char** argv)
{
    const std::string program = "et-feeder-bench";
    ToolArgs args(program,
                  "Writes a synthetic layered DAG to a .et and feeds it through the issue / "
                  "finish / remove loop, serially and 64 nodes in flight; prints nodes/s and "
                  "peak RSS.");
    args.AddPositional("nodes", "nodes of the DAG (default 10000000)", false);
    args.AddPositional("path", "the .et file (default /tmp/chakra-feeder-bench.et)", false);
    args.AddPositional("window", "the feeder's window in nodes (default: the feeder's)", false);
    uint64_t nodes = 10000000;
    std::string path = "/tmp/chakra-feeder-bench.et";
    EtFeederOptions options;
    auto readValues = [&]() {
        if (args.Has("nodes"))
        {
            nodes = ParseWholeNumber(args.Get("nodes"), "<nodes>", 1, 1000000000);
        }
        if (args.Has("path"))
        {
            path = args.Get("path");
        }
        if (args.Has("window"))
        {
            options.windowSize = ParseWholeNumber(args.Get("window"), "<window>", 1, 1000000000);
        }
    };
    int exitCode = 0;
    if (!chakra_bench::ParseFlags(program, args, argc, argv, readValues, exitCode))
    {
        return exitCode;
    }
    std::printf("et-feeder-bench: %llu nodes, %s\n",
                static_cast<unsigned long long>(nodes),
                path.c_str());

    int status = chakra_bench::RunInChild([&]() {
        std::mt19937_64 rng(1);
        ChakraProtoMsg::GlobalMetadata metadata;
        metadata.set_version("0.0.4");
        EtWriter writer(path, metadata);
        ChakraProtoMsg::Node node;
        for (uint64_t id = 0; id < nodes; ++id)
        {
            node.Clear();
            node.set_id(id);
            node.set_name("op");
            node.set_type(ChakraProtoMsg::COMP_NODE);
            node.set_duration_micros(1);
            uint64_t parents = id == 0 ? 0 : 1 + rng() % 4;
            for (uint64_t p = 0; p < parents; ++p)
            {
                uint64_t back = 1 + rng() % std::min<uint64_t>(id, 1000);
                node.add_data_deps(id - back);
            }
            writer.WriteNode(node);
        }
        writer.Commit();
        return 0;
    });
    if (status != 0)
    {
        return status;
    }

    // Two caller patterns: serial (each node finished before the next is asked for, the
    // reference feeder's loop) and batched (up to 64 nodes in flight, like a simulator).
    for (std::size_t batchLimit : {std::size_t(1), std::size_t(64)})
    {
        status = chakra_bench::RunInChild([&]() {
            double start = chakra_bench::Now();
            EtFeeder feeder(path, options);
            uint64_t issued = 0;
            std::vector<uint64_t> batch;
            while (feeder.HasNodesToIssue())
            {
                batch.clear();
                while (batch.size() < batchLimit && feeder.HasNodesToIssue())
                {
                    batch.push_back(feeder.GetNextIssuableNode()->GetId());
                }
                for (uint64_t id : batch)
                {
                    feeder.FreeChildrenNodes(id);
                    feeder.RemoveNode(id);
                }
                issued += batch.size();
            }
            double seconds = chakra_bench::Now() - start;
            std::printf("feed (%s): %llu nodes in %.2f s = %.2f M nodes/s (read + issue + "
                        "finish + remove), peak RSS %.1f MiB, window %zu, done %s\n",
                        batchLimit == 1 ? "serial" : "64 in flight",
                        static_cast<unsigned long long>(issued),
                        seconds,
                        static_cast<double>(issued) / 1e6 / seconds,
                        chakra_bench::PeakRssMiB(),
                        options.windowSize,
                        feeder.IsDone() ? "yes" : "NO");
            return feeder.IsDone() ? 0 : 1;
        });
        if (status != 0)
        {
            break;
        }
    }
    std::remove(path.c_str());
    return status;
}
