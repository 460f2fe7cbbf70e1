/*
 * chakra_scale: the .et files of a recorded data-parallel (or DP x TP) job written again as
 * the same job on more ranks, with more data-parallel replicas.
 */
#include "ns3/tool-args.h"
#include "ns3/trace-scaler.h"
#include "ns3/workload-spec-check.h"

#include <iostream>
#include <stdexcept>

using namespace ns3;

namespace
{

/** \return --ranks, checked where it enters */
uint32_t
ScaledRanks(const ToolArgs& args)
{
    const long long ranks = args.GetInt("ranks");
    if (ranks < 1 || static_cast<uint64_t>(ranks) > workload::MaxRanks)
    {
        throw std::invalid_argument("--ranks must be between 1 and " +
                                    std::to_string(workload::MaxRanks) + ", got " +
                                    args.Get("ranks"));
    }
    return static_cast<uint32_t>(ranks);
}

/** Prints what was written. */
void
Describe(const std::string& program, const TraceScaleSpec& spec, const TraceScaleResult& result)
{
    std::cerr << program << ": " << result.recordedRanks << " recorded ranks (replicas of "
              << result.replicaSize << ") -> " << spec.ranks
              << " ranks; rank r is recorded rank r mod " << result.recordedRanks << std::endl;
    std::cerr << program << ": groups kept per replica: "
              << (result.replicaGroups.empty() ? std::string("none") : "");
    for (std::size_t i = 0; i < result.replicaGroups.size(); ++i)
    {
        std::cerr << (i > 0 ? ", " : "") << "'" << result.replicaGroups[i] << "'";
    }
    std::cerr << "; the others (and the unnamed world) widened to the new data-parallel groups"
              << std::endl;
    std::cerr << program << ": wrote " << result.files.size() << " traces " << spec.output
              << ".0.et .. " << spec.output << "." << result.files.size() - 1 << ".et" << std::endl;
}

} // namespace

int
main(int argc, char** argv)
{
    const std::string program = "chakra_scale";
    ToolArgs args(program,
                  "Writes the recorded job <input>.<r>.et (N ranks) as an M-rank job "
                  "<output>.<r>.et: rank r is\nrecorded rank r mod N (its compute as measured); "
                  "data-parallel groups are widened, tensor- and\npipeline-parallel groups "
                  "(inside one replica) kept, one copy per replica (see doc/workloads.md).");
    args.AddOption("input", "prefix of the recorded job's traces (<input>.0.et ...)", "", true);
    args.AddOption("output", "prefix of the scaled job's traces (<output>.0.et ...)", "", true);
    args.AddOption("ranks",
                   "M: ranks of the scaled job (>= N, a multiple of the replica size)",
                   "",
                   true);
    args.AddFlag("dp-only", "treat every process group as data-parallel (widen them all)");
    args.AddOption("alltoall-scaling",
                   "all-to-all over a widened group: per-rank (comm_size kept: each peer gets "
                   "less; a DLRM embedding all-to-all with a fixed table count) or per-peer "
                   "(comm_size x the group's growth: each pair keeps its bytes)",
                   "per-rank");
    bool done = false;
    int code = args.Parse(argc, argv, done);
    if (done)
    {
        return code;
    }
    return RunTool(program, [&]() {
        TraceScaleSpec spec;
        spec.input = args.Get("input");
        spec.output = args.Get("output");
        spec.ranks = ScaledRanks(args);
        spec.dpOnly = args.Has("dp-only");
        spec.allToAll = ParseAllToAllScaling(args.Get("alltoall-scaling"));
        const TraceScaleResult result = ScaleTraceSet(spec);
        Describe(program, spec, result);
        return 0;
    });
}
