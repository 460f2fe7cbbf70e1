/*
 * et-io-bench: writes then reads a synthetic .et of N nodes (default 5,000,000) and prints
 * MB/s, nodes/s and peak RSS for each phase (each phase runs in its own process).
 *
 *   build/bench/et-io-bench [nodes] [path]      (a path ending in .gz is gzip'd)
 */
#include "bench-args.h"
#include "bench-util.h"

#include "ns3/et-reader.h"
#include "ns3/et-writer.h"

#include <cstdio>
#include <string>
#include <sys/stat.h>

using namespace ns3;

namespace
{

/** A typical converted node: a GPU kernel with a few dependencies and attributes. */
void
FillNode(ChakraProtoMsg::Node& node, uint64_t id)
{
    node.Clear();
    node.set_id(id);
    node.set_name("ampere_sgemm_128x64_nn");
    node.set_type(ChakraProtoMsg::COMP_NODE);
    for (uint64_t d = 1; d <= 3 && d <= id; ++d)
    {
        node.add_data_deps(id - d * 7 % (id + 1));
    }
    node.add_ctrl_deps(id > 0 ? id - 1 : 0);
    node.set_duration_micros(id % 500);
    auto* cpu = node.add_attr();
    cpu->set_name("is_cpu_op");
    cpu->set_bool_val(false);
    auto* stream = node.add_attr();
    stream->set_name("stream");
    stream->set_int64_val(7);
}

} // namespace

int
main(int argc, char** argv)
{
    const std::string program = "et-io-bench";
    ToolArgs args(program,
                  "Writes then reads a synthetic .et and prints MB/s, nodes/s and peak RSS of "
                  "each phase (each in its own process).");
    args.AddPositional("nodes", "nodes to write and read (default 5000000)", false);
    args.AddPositional("path",
                       "the file (default /tmp/chakra-et-io-bench.et; a path ending in .gz is "
                       "gzip'd)",
                       false);
    uint64_t nodes = 5000000;
    std::string path = "/tmp/chakra-et-io-bench.et";
    auto readValues = [&]() {
        if (args.Has("nodes"))
        {
            nodes = ParseWholeNumber(args.Get("nodes"), "<nodes>", 1, 1000000000);
        }
        if (args.Has("path"))
        {
            path = args.Get("path");
        }
    };
    int exitCode = 0;
    if (!chakra_bench::ParseFlags(program, args, argc, argv, readValues, exitCode))
    {
        return exitCode;
    }
    std::printf("et-io-bench: %llu nodes, %s\n",
                static_cast<unsigned long long>(nodes),
                path.c_str());

    int status = chakra_bench::RunInChild([&]() {
        ChakraProtoMsg::GlobalMetadata metadata;
        metadata.set_version("0.0.4");
        double start = chakra_bench::Now();
        EtWriter writer(path, metadata);
        ChakraProtoMsg::Node node;
        uint64_t bytes = 0;
        for (uint64_t id = 0; id < nodes; ++id)
        {
            FillNode(node, id);
            bytes += node.ByteSizeLong() + 2;
            writer.WriteNode(node);
        }
        writer.Commit();
        double seconds = chakra_bench::Now() - start;
        std::printf("write: %.2f s, %.1f MB/s (uncompressed), %.2f M nodes/s, peak RSS %.1f MiB\n",
                    seconds,
                    static_cast<double>(bytes) / 1e6 / seconds,
                    static_cast<double>(nodes) / 1e6 / seconds,
                    chakra_bench::PeakRssMiB());
        return 0;
    });
    if (status != 0)
    {
        return status;
    }
    struct stat info;
    stat(path.c_str(), &info);
    std::printf("file: %.1f MB on disk\n", static_cast<double>(info.st_size) / 1e6);

    status = chakra_bench::RunInChild([&]() {
        double start = chakra_bench::Now();
        EtReader reader(path);
        ChakraProtoMsg::Node node;
        uint64_t count = 0;
        uint64_t checksum = 0;
        while (reader.ReadNode(node))
        {
            ++count;
            checksum += node.id() + static_cast<uint64_t>(node.data_deps_size());
        }
        double seconds = chakra_bench::Now() - start;
        double megabytes = static_cast<double>(reader.GetOffset()) / 1e6;
        std::printf("read:  %.2f s, %.1f MB/s (uncompressed), %.2f M nodes/s, peak RSS %.1f MiB "
                    "(%llu nodes, checksum %llu)\n",
                    seconds,
                    megabytes / seconds,
                    static_cast<double>(count) / 1e6 / seconds,
                    chakra_bench::PeakRssMiB(),
                    static_cast<unsigned long long>(count),
                    static_cast<unsigned long long>(checksum));
        return count == nodes ? 0 : 1;
    });
    std::remove(path.c_str());
    return status;
}
