/*
 * chakra_generator: synthetic per-rank Chakra traces (<prefix>.<rank>.et).
 */
#include "ns3/astra-sim-export.h"
#include "ns3/llm-step-flags.h"
#include "ns3/tool-args.h"
#include "ns3/trace-set-output.h"
#include "ns3/workload-generator.h"

#include <algorithm>
#include <functional>
#include <iostream>
#include <map>
#include <stdexcept>

using namespace ns3;

namespace
{

/** The workloads and the flags each one reads (besides --workload and --output-prefix). */
const std::vector<std::pair<std::string, std::vector<std::string>>>&
WorkloadFlags()
{
    static const std::vector<std::string> training = {"layers",
                                                      "layer-bytes",
                                                      "forward-us",
                                                      "backward-us",
                                                      "bucket-bytes",
                                                      "first-bucket-bytes",
                                                      "optimizer-us"};
    auto with = [](std::vector<std::string> flags) {
        flags.insert(flags.end(), training.begin(), training.end());
        return flags;
    };
    static const std::vector<std::pair<std::string, std::vector<std::string>>> table = {
        {"collective", {"ranks", "collective", "size", "iterations", "compute-us", "root"}},
        {"data-parallel", with({"ranks"})},
        {"tensor-parallel",
         with({"ranks", "tp", "dp", "activation-bytes", "host-allreduce-bytes", "host-lead-us"})},
        {"pipeline-parallel", with({"ranks", "stages", "dp", "microbatches", "activation-bytes"})},
        {"moe",
         with({"ranks",
               "ep",
               "experts-per-rank",
               "tokens",
               "hidden",
               "top-k",
               "element-bytes",
               "expert-forward-us",
               "expert-backward-us",
               "expert-bytes"})},
        {"llm", LlmFlagNames()},
    };
    return table;
}

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

/** \return an integer flag between \p low and \p high */
uint64_t
Count(const ToolArgs& args, const std::string& name, uint64_t low, uint64_t high)
{
    long long value = args.GetInt(name);
    if (value < 0 || static_cast<uint64_t>(value) < low || static_cast<uint64_t>(value) > high)
    {
        throw std::invalid_argument("--" + name + " must be between " + std::to_string(low) +
                                    " and " + std::to_string(high) + ", got " + args.Get(name));
    }
    return static_cast<uint64_t>(value);
}

uint32_t
Positive(const ToolArgs& args, const std::string& name)
{
    return static_cast<uint32_t>(Count(args, name, 1, 1000000));
}

/**
 * Sizes a real job stays well within; past them a typing slip (--ranks=1000000 writes a
 * million files) is far likelier than intent, so going past takes --allow-large.
 */
const std::map<std::string, uint32_t>&
SoftBounds()
{
    static const std::map<std::string, uint32_t> bounds = {
        {"ranks", 16384},           // twice the largest cluster doc/benchmarks.md simulates
        {"iterations", 10000},      // collectives per rank of a microbenchmark
        {"layers", 1024},           // the largest published models have ~100-200
        {"tp", 1024},               // NVLink domains reach 72-576 GPUs
        {"microbatches", 4096},     // 1F1B steps use a few to a few hundred
        {"experts-per-rank", 1024}, // the largest MoE models have 256 experts per layer
    };
    return bounds;
}

/** Throws unless \p value is within the soft bound of \p name or --allow-large is given. */
void
CheckSoftBound(const ToolArgs& args,
               const std::string& name,
               uint64_t value,
               const std::string& what)
{
    const uint32_t bound = SoftBounds().at(name);
    if (value > bound && !args.Has("allow-large"))
    {
        throw std::invalid_argument(what + " is above " + std::to_string(bound) +
                                    ", the most chakra_generator writes without --allow-large; "
                                    "add --allow-large if that many is really meant");
    }
}

/** Positive(), within its soft bound (see SoftBounds). */
uint32_t
Bounded(const ToolArgs& args, const std::string& name)
{
    const uint32_t value = Positive(args, name);
    CheckSoftBound(args, name, value, "--" + name + " " + std::to_string(value));
    return value;
}

/**
 * Checks the files a job writes against the soft bound (one per rank, or \p roleFiles with
 * --trace-per-role) and its ranks against the hard one.
 */
void
CheckRanks(const ToolArgs& args, uint64_t ranks, const std::string& how, uint64_t roleFiles = 0)
{
    const std::string what =
        roleFiles > 0 ? how + " (one trace file per role: " + std::to_string(roleFiles) + " files)"
                      : how + " (one trace file per rank: " + std::to_string(ranks) + " files)";
    CheckSoftBound(args, "ranks", roleFiles > 0 ? roleFiles : ranks, what);
    if (ranks > 1000000)
    {
        throw std::invalid_argument(what + " is above 1000000, the most a generated job has");
    }
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

/**
 * Splits the ranks of a model-parallel x data-parallel job: --ranks (if given) must be a
 * multiple of the model-parallel size, and agree with --dp (if given).
 * \return the data-parallel size
 */
uint32_t
Replicas(const ToolArgs& args, const std::string& modelFlag, uint32_t model)
{
    uint32_t dp = args.Has("dp") ? Positive(args, "dp") : 1;
    if (!args.Has("ranks"))
    {
        return dp;
    }
    uint32_t ranks = Positive(args, "ranks");
    if (ranks % model != 0)
    {
        throw std::invalid_argument("--ranks " + std::to_string(ranks) +
                                    " is not a multiple of --" + modelFlag + " " +
                                    std::to_string(model));
    }
    if (args.Has("dp") && dp != ranks / model)
    {
        throw std::invalid_argument("--dp " + std::to_string(dp) + " does not match --ranks " +
                                    std::to_string(ranks) + " / --" + modelFlag + " " +
                                    std::to_string(model) + " = " + std::to_string(ranks / model));
    }
    return ranks / model;
}

/** The flags shared by the training workloads. */
/** Sets the flags every training workload shares on its spec. */
template <typename Spec>
void
FillTraining(const ToolArgs& args, Spec& spec)
{
    spec.layers = Bounded(args, "layers");
    spec.parameterBytesPerLayer = Bytes(args, "layer-bytes");
    spec.forwardMicros = Micros(args, "forward-us");
    spec.backwardMicros = Micros(args, "backward-us");
    spec.bucketBytes = Bytes(args, "bucket-bytes");
    spec.firstBucketBytes = Bytes(args, "first-bucket-bytes");
    spec.optimizerMicros = Micros(args, "optimizer-us");
}

/** What a workload writes: its generator, bound to its checked spec, and the job's ranks. */
struct Plan
{
    std::function<std::vector<std::string>(const std::string& prefix)> write;
    uint64_t ranks{0};
    /** The files' suffixes when they are not one per rank (.<rank>.et): traces per role */
    std::vector<std::string> suffixes;
};

/** Declares every flag of the tool. */
void
DeclareFlags(ToolArgs& args)
{
    args.AddOption("workload",
                   "collective, data-parallel, tensor-parallel, pipeline-parallel, moe or llm",
                   "collective");
    args.AddOption("output-prefix",
                   "trace prefix: files <prefix>.<rank>.et",
                   "",
                   true,
                   {"prefix", "output"});
    args.AddOption("ranks",
                   "number of ranks (default 8; tensor-parallel: tp x dp, pipeline-parallel: "
                   "stages x dp)");
    args.AddOption("collective",
                   "collective: all_reduce, all_gather, reduce_scatter, all_to_all, "
                   "broadcast, reduce, gather, scatter, barrier",
                   "all_reduce");
    args.AddOption("size", "collective: comm_size per rank (64KiB, 1MiB, 4GiB, ...)", "1MiB");
    args.AddOption("iterations", "collective: collectives per rank", "1");
    args.AddOption("compute-us", "collective: compute before each collective, microseconds", "0");
    args.AddOption("root", "collective: root rank of rooted collectives", "0");
    args.AddOption("layers", "training: layers (pipeline-parallel: of the whole model)", "24");
    args.AddOption("layer-bytes",
                   "training: gradient bytes of one layer on one rank (moe: its dense part)",
                   "32MiB");
    args.AddOption("forward-us",
                   "training: forward compute per layer, microseconds (pipeline-parallel: per "
                   "micro-batch; moe: dense part)",
                   "400");
    args.AddOption("backward-us", "training: backward compute per layer, as --forward-us", "800");
    args.AddOption("bucket-bytes",
                   "training: gradient bucket (0: one all-reduce per layer)",
                   "25MiB");
    args.AddOption("first-bucket-bytes",
                   "training: first gradient bucket (PyTorch DDP: 1MiB; 0: --bucket-bytes)",
                   "0");
    args.AddOption("optimizer-us", "training: optimizer step, microseconds", "300");
    args.AddOption("tp", "tensor-parallel: tensor-parallel group size", "4");
    args.AddOption("dp",
                   "tensor-parallel, pipeline-parallel: data-parallel replicas (default 1, or "
                   "from --ranks)");
    args.AddOption("activation-bytes",
                   "tensor-parallel: comm_size of each all-reduce; pipeline-parallel: one "
                   "micro-batch's activation sent between stages (and its gradient back)",
                   "16MiB");
    args.AddOption("host-allreduce-bytes",
                   "tensor-parallel: a last all-reduce of this size issued from the host thread "
                   "(no kernel), ready early (0: none)",
                   "0");
    args.AddOption("host-lead-us",
                   "tensor-parallel: host work before that call, times (t + 1) on tp rank t",
                   "0");
    args.AddOption("stages", "pipeline-parallel: pipeline stages", "4");
    args.AddOption("microbatches", "pipeline-parallel: micro-batches per step", "8");
    args.AddOption("ep", "moe: expert-parallel group size (default: --ranks)");
    args.AddOption("experts-per-rank", "moe: experts on each rank", "1");
    args.AddOption("tokens", "moe: tokens per rank", "4096");
    args.AddOption("hidden", "moe: hidden size (elements)", "4096");
    args.AddOption("top-k", "moe: experts per token", "1");
    args.AddOption("element-bytes", "moe: bytes per element", "2");
    args.AddOption("expert-forward-us", "moe: forward compute of one expert per layer", "200");
    args.AddOption("expert-backward-us", "moe: backward compute of one expert per layer", "400");
    args.AddOption("expert-bytes", "moe: gradient bytes of one expert", "32MiB");
    DeclareLlmFlags(args);
    std::string bounds;
    for (const auto& [name, bound] : SoftBounds())
    {
        bounds += (bounds.empty() ? "" : ", ") + name + " " + std::to_string(bound);
    }
    args.AddFlag("allow-large",
                 "go past the bounds that catch typing slips (" + bounds +
                     "; ranks counts the whole job), up to 1000000 each");
    args.AddFlag("astra-sim",
                 "write the traces ASTRA-sim's workload layer runs: no process_group:init "
                 "METADATA node, communicators numbered (pg_name 0 = every rank, others listed "
                 "in <prefix>.comm-groups.json for --comm-group-configuration), no CPU "
                 "communication; all-reduce, all-gather, reduce-scatter, all-to-all only");
}

/**
 * \throws std::invalid_argument for an unknown workload or a flag of another workload (a flag
 *         that does not apply is an error, not ignored)
 */
void
CheckWorkloadFlags(const ToolArgs& args, const std::string& workload)
{
    const auto& table = WorkloadFlags();
    auto entry = std::find_if(table.begin(), table.end(), [&](const auto& e) {
        return e.first == workload;
    });
    if (entry == table.end())
    {
        throw std::invalid_argument("--workload: unknown workload '" + workload +
                                    "' (collective, data-parallel, tensor-parallel, "
                                    "pipeline-parallel, moe, llm)");
    }
    for (const auto& other : table)
    {
        for (const auto& flag : other.second)
        {
            if (args.Has(flag) &&
                std::find(entry->second.begin(), entry->second.end(), flag) == entry->second.end())
            {
                throw std::invalid_argument("--" + flag + " does not apply to --workload " +
                                            workload);
            }
        }
    }
}

/** --workload collective: one collective per rank (or a loop). */
Plan
PlanCollective(const ToolArgs& args, uint32_t ranks)
{
    Plan plan;
    plan.ranks = ranks;
    CheckRanks(args, ranks, "--ranks " + std::to_string(ranks));
    CollectiveBenchSpec spec;
    if (!WorkloadGenerator::ParseCollective(args.Get("collective"), spec.type))
    {
        throw std::invalid_argument("--collective: unknown collective '" + args.Get("collective") +
                                    "'");
    }
    if (args.Has("astra-sim") && !AstraSimRunsCollective(spec.type))
    {
        throw std::invalid_argument(
            "--collective " + args.Get("collective") +
            " with --astra-sim: ASTRA-sim's workload layer runs all_reduce, all_gather, "
            "reduce_scatter and all_to_all only");
    }
    spec.bytes = Bytes(args, "size");
    spec.ranks = ranks;
    spec.iterations = Bounded(args, "iterations");
    spec.computeMicros = Micros(args, "compute-us");
    spec.root = static_cast<uint32_t>(Micros(args, "root"));
    if (spec.root >= spec.ranks)
    {
        throw std::invalid_argument("--root must be below --ranks");
    }
    plan.write = [spec](const std::string& to) {
        return WorkloadGenerator::WriteCollectiveBench(to, spec);
    };
    return plan;
}

/** --workload data-parallel. */
Plan
PlanDataParallel(const ToolArgs& args, uint32_t ranks)
{
    Plan plan;
    plan.ranks = ranks;
    CheckRanks(args, ranks, "--ranks " + std::to_string(ranks));
    DataParallelSpec spec;
    FillTraining(args, spec);
    spec.ranks = ranks;
    plan.write = [spec](const std::string& to) {
        return WorkloadGenerator::WriteDataParallelStep(to, spec);
    };
    return plan;
}

/**
 * \return the ranks of a model-parallel x data-parallel job (--tp or --stages x --dp), checked
 *         against the bounds
 */
uint64_t
ModelTimesData(const ToolArgs& args, const std::string& flag, uint32_t model, uint32_t dp)
{
    const uint64_t ranks = uint64_t(model) * dp;
    CheckRanks(args,
               ranks,
               "--" + flag + " " + std::to_string(model) + " x --dp " + std::to_string(dp) + " = " +
                   std::to_string(ranks) + " ranks");
    return ranks;
}

/** --workload tensor-parallel: tp x dp ranks. */
Plan
PlanTensorParallel(const ToolArgs& args)
{
    Plan plan;
    TensorParallelSpec spec;
    FillTraining(args, spec);
    spec.tp = Bounded(args, "tp");
    spec.dp = Replicas(args, "tp", spec.tp);
    plan.ranks = ModelTimesData(args, "tp", spec.tp, spec.dp);
    spec.activationBytes = Bytes(args, "activation-bytes");
    spec.hostAllReduceBytes = Bytes(args, "host-allreduce-bytes");
    spec.hostLeadMicros = Micros(args, "host-lead-us");
    plan.write = [spec](const std::string& to) {
        return WorkloadGenerator::WriteTensorParallelStep(to, spec);
    };
    return plan;
}

/** --workload pipeline-parallel: stages x dp ranks. */
Plan
PlanPipelineParallel(const ToolArgs& args)
{
    Plan plan;
    PipelineParallelSpec spec;
    FillTraining(args, spec);
    spec.stages = Positive(args, "stages");
    spec.dp = Replicas(args, "stages", spec.stages);
    plan.ranks = ModelTimesData(args, "stages", spec.stages, spec.dp);
    spec.microbatches = Bounded(args, "microbatches");
    if (spec.layers % spec.stages != 0)
    {
        throw std::invalid_argument("--layers " + std::to_string(spec.layers) +
                                    " is not a multiple of --stages " +
                                    std::to_string(spec.stages));
    }
    spec.activationBytes = Bytes(args, "activation-bytes");
    plan.write = [spec](const std::string& to) {
        return WorkloadGenerator::WritePipelineParallelStep(to, spec);
    };
    return plan;
}

/** --workload moe. */
Plan
PlanMoe(const ToolArgs& args, uint32_t ranks)
{
    Plan plan;
    plan.ranks = ranks;
    CheckRanks(args, ranks, "--ranks " + std::to_string(ranks));
    MoeSpec spec;
    FillTraining(args, spec);
    spec.ranks = ranks;
    spec.ep = args.Has("ep") ? Positive(args, "ep") : 0;
    if (spec.ep > 0 && spec.ranks % spec.ep != 0)
    {
        throw std::invalid_argument("--ranks " + std::to_string(spec.ranks) +
                                    " is not a multiple of --ep " + std::to_string(spec.ep));
    }
    spec.expertsPerRank = Bounded(args, "experts-per-rank");
    spec.tokens = Count(args, "tokens", 1, uint64_t(1) << 40);
    spec.hidden = Count(args, "hidden", 1, uint64_t(1) << 30);
    spec.topK = Positive(args, "top-k");
    spec.elementBytes = Count(args, "element-bytes", 1, 64);
    spec.expertForwardMicros = Micros(args, "expert-forward-us");
    spec.expertBackwardMicros = Micros(args, "expert-backward-us");
    spec.expertParameterBytes = Bytes(args, "expert-bytes");
    plan.write = [spec](const std::string& to) {
        return WorkloadGenerator::WriteMoeStep(to, spec);
    };
    return plan;
}

/** --workload llm: one training step of a transformer from its description. */
Plan
PlanLlm(const ToolArgs& args, const std::string& program)
{
    const LlmStepSpec spec = LlmStepSpecFromFlags(args);
    const LlmStepPlan checked = PlanLlmStep(spec); // every rule, before any file
    Plan plan;
    plan.ranks = checked.ranks;
    // Per role, the files are one per pipeline stage: the soft bound (a typing slip writing a
    // million files) is on them; the ranks keep the hard bound.
    const bool perRole = args.Has("trace-per-role");
    CheckRanks(args,
               plan.ranks,
               "--ranks " + std::to_string(plan.ranks),
               perRole ? LlmStepRoleRanks(checked.layout).size() : 0);
    std::cerr << program << ": " << DescribeLlmStep(spec, checked) << std::endl;
    if (!perRole)
    {
        plan.write = [spec](const std::string& to) { return WriteLlmStep(to, spec); };
        return plan;
    }
    if (args.Has("astra-sim"))
    {
        throw std::invalid_argument("--trace-per-role does not combine with --astra-sim "
                                    "(ASTRA-sim reads a trace per rank)");
    }
    const std::string why = LlmStepRolesUnavailable(spec);
    if (!why.empty())
    {
        throw std::invalid_argument("--trace-per-role: " + why +
                                    "; leave the flag out to write a trace per rank");
    }
    for (uint32_t rank : LlmStepRoleRanks(checked.layout))
    {
        plan.suffixes.push_back(".role." + std::to_string(rank) + ".et");
    }
    plan.suffixes.push_back(".roles.json");
    const std::string prefix = args.Get("output-prefix");
    const auto slash = prefix.find_last_of('/');
    const std::string names = slash == std::string::npos ? prefix : prefix.substr(slash + 1);
    plan.write = [spec, names](const std::string& to) {
        return WriteLlmStepRoles(to, spec, names);
    };
    return plan;
}

/**
 * Writes the plan's traces at \p prefix (and, with --astra-sim, rewrites them for ASTRA-sim).
 * The whole set is made in a staging directory and moved into place at the end: an error
 * leaves no partial set, and an earlier set at the prefix untouched; a missing output
 * directory is created.
 */
void
WriteTraceSet(const ToolArgs& args,
              const std::string& program,
              const std::string& prefix,
              const Plan& plan)
{
    TraceSetOutput output(prefix);
    for (uint64_t rank = 0; plan.suffixes.empty() && rank < plan.ranks; ++rank)
    {
        output.Expect("." + std::to_string(rank) + ".et"); // a signal removes them too
    }
    for (const std::string& suffix : plan.suffixes)
    {
        output.Expect(suffix);
    }
    if (args.Has("astra-sim"))
    {
        output.Expect(".comm-groups.json");
    }
    const std::vector<std::string> files = plan.write(output.GetStagingPrefix());
    std::string groupsNote;
    if (args.Has("astra-sim"))
    {
        const AstraSimExport exported =
            ExportForAstraSim(output.GetStagingPrefix(), static_cast<uint32_t>(files.size()));
        groupsNote = std::to_string(exported.groupIds.size()) +
                     " process group(s) numbered, communicators in " + prefix + ".comm-groups.json";
    }
    output.Commit();
    if (!plan.suffixes.empty())
    {
        std::cerr << program << ": wrote " << files.size() - 1 << " role traces " << prefix
                  << ".role.<rank>.et for " << plan.ranks << " ranks, manifest " << prefix
                  << ".roles.json" << std::endl;
        return;
    }
    std::cerr << program << ": wrote " << files.size() << " traces " << prefix << ".0.et .. "
              << prefix << "." << files.size() - 1 << ".et" << std::endl;
    if (!groupsNote.empty())
    {
        std::cerr << program << ": ASTRA-sim flavour: " << groupsNote << std::endl;
    }
}

} // namespace

int
main(int argc, char** argv)
{
    const std::string program = "chakra_generator";
    ToolArgs args(
        program,
        "Writes synthetic per-rank Chakra traces <prefix>.<rank>.et (see doc/workloads.md).\n"
        "  --workload collective: one collective per rank (or a compute + collective loop with "
        "--iterations and --compute-us)\n"
        "  --workload data-parallel: per layer forward and backward compute, gradients "
        "all-reduced in buckets during backward, optimizer step\n"
        "  --workload tensor-parallel: Megatron layers (attention, all-reduce, MLP, all-reduce; "
        "backward mirrored) over tp groups, x dp replicas whose gradients are all-reduced\n"
        "  --workload pipeline-parallel: stages exchanging activations and gradients with "
        "send/recv, 1F1B schedule over micro-batches, x dp replicas\n"
        "  --workload moe: mixture-of-experts layers (dense, all-to-all dispatch, experts, "
        "all-to-all combine; backward mirrored) over ep groups, x dp replicas\n"
        "  --workload llm: one training step of a transformer (--model) with tensor, sequence, "
        "pipeline, context, expert and data parallelism (ZeRO, FSDP), ops timed on --gpu\n"
        "Flags are checked against the workload: one that does not apply is an error.");
    DeclareFlags(args);
    bool done = false;
    int code = args.Parse(argc, argv, done);
    if (done)
    {
        return code;
    }
    return RunTool(program, [&]() {
        const std::string workload = args.Get("workload");
        CheckWorkloadFlags(args, workload);
        const uint32_t ranks = args.Has("ranks") ? Positive(args, "ranks") : 8;
        // Every flag is checked before anything is written.
        const Plan plan = workload == "collective"          ? PlanCollective(args, ranks)
                          : workload == "data-parallel"     ? PlanDataParallel(args, ranks)
                          : workload == "tensor-parallel"   ? PlanTensorParallel(args)
                          : workload == "pipeline-parallel" ? PlanPipelineParallel(args)
                          : workload == "llm"               ? PlanLlm(args, program)
                                                            : PlanMoe(args, ranks);
        WriteTraceSet(args, program, args.Get("output-prefix"), plan);
        return 0;
    });
}
