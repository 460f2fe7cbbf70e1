/*
 * chakra_generator: synthetic per-rank Chakra traces (<prefix>.<rank>.et).
 */
#include "tool-args.h"

#include "ns3/workload-generator.h"

#include <iostream>
#include <stdexcept>

using namespace ns3;

namespace
{

uint64_t
Bytes(const ToolArgs& args, const std::string& name)
{
    uint64_t bytes = 0;
    if (!WorkloadGenerator::ParseBytes(args.Get(name), bytes))
    {
        throw std::invalid_argument("--" + name + ": '" + args.Get(name) +
                                    "' is not a size (e.g. 1048576, 64KiB, 1MiB, 4GiB, 1MB)");
    }
    return bytes;
}

uint32_t
Positive(const ToolArgs& args, const std::string& name)
{
    long long value = args.GetInt(name);
    if (value < 1 || value > 1000000)
    {
        throw std::invalid_argument("--" + name + " must be between 1 and 1000000");
    }
    return static_cast<uint32_t>(value);
}

uint64_t
Micros(const ToolArgs& args, const std::string& name)
{
    long long value = args.GetInt(name);
    if (value < 0)
    {
        throw std::invalid_argument("--" + name + " must not be negative");
    }
    return static_cast<uint64_t>(value);
}

} // namespace

int
main(int argc, char** argv)
{
    const std::string program = "chakra_generator";
    ToolArgs args(program,
                  "Writes synthetic per-rank Chakra traces <prefix>.<rank>.et.\n"
                  "  --workload collective: one collective per rank (or a compute + collective "
                  "loop with --iterations and --compute-us)\n"
                  "  --workload data-parallel: a training step; per layer forward and backward "
                  "compute, gradients all-reduced in buckets during backward, optimizer step");
    args.AddOption("workload", "collective or data-parallel", "collective");
    args.AddOption("output-prefix", "trace prefix: files <prefix>.<rank>.et", "", true,
                   {"output_prefix", "prefix"});
    args.AddOption("ranks", "number of ranks", "8");
    args.AddOption("collective", "collective: all_reduce, all_gather, reduce_scatter, all_to_all, "
                                 "broadcast, reduce, gather, scatter, barrier", "all_reduce");
    args.AddOption("size", "collective: comm_size per rank (64KiB, 1MiB, 4GiB, ...)", "1MiB");
    args.AddOption("iterations", "collective: collectives per rank", "1");
    args.AddOption("compute-us", "collective: compute before each collective, microseconds", "0");
    args.AddOption("root", "collective: root rank of rooted collectives", "0");
    args.AddOption("layers", "data-parallel: layers", "24");
    args.AddOption("layer-bytes", "data-parallel: gradient bytes per layer", "32MiB");
    args.AddOption("forward-us", "data-parallel: forward compute per layer, microseconds", "400");
    args.AddOption("backward-us", "data-parallel: backward compute per layer, microseconds", "800");
    args.AddOption("bucket-bytes", "data-parallel: gradient bucket (0: one per layer)", "25MiB");
    args.AddOption("optimizer-us", "data-parallel: optimizer step, microseconds", "300");
    bool done = false;
    int code = args.Parse(argc, argv, done);
    if (done)
    {
        return code;
    }
    return RunTool(program, [&]() {
        const std::string workload = args.Get("workload");
        const std::string prefix = args.Get("output-prefix");
        std::vector<std::string> files;
        if (workload == "collective")
        {
            CollectiveBenchSpec spec;
            if (!WorkloadGenerator::ParseCollective(args.Get("collective"), spec.type))
            {
                throw std::invalid_argument("--collective: unknown collective '" +
                                            args.Get("collective") + "'");
            }
            spec.bytes = Bytes(args, "size");
            spec.ranks = Positive(args, "ranks");
            spec.iterations = Positive(args, "iterations");
            spec.computeMicros = Micros(args, "compute-us");
            spec.root = static_cast<uint32_t>(Micros(args, "root"));
            if (spec.root >= spec.ranks)
            {
                throw std::invalid_argument("--root must be below --ranks");
            }
            files = WorkloadGenerator::WriteCollectiveBench(prefix, spec);
        }
        else if (workload == "data-parallel")
        {
            DataParallelSpec spec;
            spec.ranks = Positive(args, "ranks");
            spec.layers = Positive(args, "layers");
            spec.parameterBytesPerLayer = Bytes(args, "layer-bytes");
            spec.forwardMicros = Micros(args, "forward-us");
            spec.backwardMicros = Micros(args, "backward-us");
            spec.bucketBytes = Bytes(args, "bucket-bytes");
            spec.optimizerMicros = Micros(args, "optimizer-us");
            files = WorkloadGenerator::WriteDataParallelStep(prefix, spec);
        }
        else
        {
            throw std::invalid_argument("--workload: unknown workload '" + workload +
                                        "' (collective, data-parallel)");
        }
        std::cerr << program << ": wrote " << files.size() << " traces " << prefix << ".0.et .. "
                  << prefix << "." << files.size() - 1 << ".et" << std::endl;
        return 0;
    });
}
