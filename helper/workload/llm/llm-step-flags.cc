#include "llm-step-flags.h"

#include "ns3/pipeline-layers.h"
#include "ns3/workload-generator.h"

#include <cstdio>
#include <stdexcept>
#include <sys/stat.h>
#include <utility>

namespace ns3
{

namespace
{

/** \return the whole number of flag \p name, between \p low and \p high */
uint32_t
Whole(const ToolArgs& args, const std::string& name, uint32_t low, uint32_t high)
{
    const long long value = args.GetInt(name);
    if (value < low || value > high)
    {
        throw std::invalid_argument("--" + name + " must be between " + std::to_string(low) +
                                    " and " + std::to_string(high) + ", got " + args.Get(name));
    }
    return static_cast<uint32_t>(value);
}

/** \return flag \p name if given, else \p otherwise */
uint32_t
WholeOr(const ToolArgs& args, const std::string& name, uint32_t otherwise)
{
    return args.Has(name) ? Whole(args, name, 1, 1000000) : otherwise;
}

/** \return true if \p path names an existing file */
bool
IsFile(const std::string& path)
{
    struct stat info;
    return stat(path.c_str(), &info) == 0 && S_ISREG(info.st_mode);
}

/** \return the model of --model: a preset's name or a model file */
TransformerModel
ModelOf(const ToolArgs& args)
{
    const std::string model = args.Get("model");
    const bool looksLikeFile =
        model.find('/') != std::string::npos || model.find(".json") != std::string::npos ||
        model.find(".yaml") != std::string::npos || model.find(".yml") != std::string::npos;
    if (IsFile(model) || looksLikeFile)
    {
        return ReadModelFile(model);
    }
    return ModelPreset(model);
}

/** \return --recompute as the enum */
Recompute
RecomputeOf(const ToolArgs& args)
{
    const std::string value = args.Get("recompute");
    if (value == "none")
    {
        return Recompute::None;
    }
    if (value == "selective")
    {
        return Recompute::Selective;
    }
    if (value == "full")
    {
        return Recompute::Full;
    }
    throw std::invalid_argument("--recompute: '" + value +
                                "' is not valid (none, selective, full)");
}

/** The --tp-comm-overlap values by name: what the flag reads and the summary line prints. */
constexpr std::pair<const char*, TpCommOverlap> kTpCommOverlapNames[] = {
    {"none", TpCommOverlap::None},
    {"async", TpCommOverlap::Async},
    {"userbuffers", TpCommOverlap::Userbuffers},
};

/** \return the --tp-comm-overlap value */
TpCommOverlap
TpCommOverlapOf(const ToolArgs& args)
{
    const std::string value = args.Get("tp-comm-overlap");
    for (const auto& [name, mode] : kTpCommOverlapNames)
    {
        if (value == name)
        {
            return mode;
        }
    }
    std::string names;
    for (const auto& [name, mode] : kTpCommOverlapNames)
    {
        names += (names.empty() ? "" : ", ") + std::string(name);
    }
    throw std::invalid_argument("--tp-comm-overlap: '" + value + "' is not valid (" + names + ")");
}

/** \return the bytes of the dtype flag \p name gives: bf16 2, fp32 4 */
uint32_t
DtypeBytesOf(const ToolArgs& args, const std::string& name)
{
    const std::string value = args.Get(name);
    if (value == "bf16")
    {
        return 2;
    }
    if (value == "fp32")
    {
        return 4;
    }
    throw std::invalid_argument("--" + name + ": '" + value + "' is not valid (bf16, fp32)");
}

/** \return --precision as the enum */
Precision
PrecisionOf(const ToolArgs& args)
{
    const std::string value = args.Get("precision");
    if (value == "bf16")
    {
        return Precision::Bf16;
    }
    if (value == "fp8")
    {
        return Precision::Fp8;
    }
    throw std::invalid_argument("--precision: '" + value + "' is not valid (bf16, fp8)");
}

/** \return " (layers per stage: 2, 4, 4, 2)" for an uneven split, "" for an even one */
std::string
UnevenStages(const LlmStepSpec& spec, const ParallelLayout& layout)
{
    if (layout.firstStageLayers == 0 && layout.lastStageLayers == 0 &&
        !layout.embeddingInPipelineSplit && !layout.lossInPipelineSplit)
    {
        return "";
    }
    std::string text;
    for (uint32_t stage = 0; stage < layout.pp; ++stage)
    {
        text += (stage == 0 ? "" : ", ") +
                std::to_string(StageLayers(layout, spec.model.layers, stage));
    }
    return " (layers per stage: " + text + ")";
}

/** \return ", tp overlap none" etc. when tp > 1 ("" otherwise: nothing to overlap) */
std::string
TpOverlapText(const ParallelLayout& layout)
{
    if (layout.tp == 1)
    {
        return "";
    }
    for (const auto& [name, mode] : kTpCommOverlapNames)
    {
        if (mode == layout.tpCommOverlap)
        {
            return std::string(", tp overlap ") + name;
        }
    }
    return "";
}

} // namespace

void
DeclareLlmFlags(ToolArgs& args)
{
    std::string presets;
    for (const std::string& name : ModelPresetNames())
    {
        presets += (presets.empty() ? "" : ", ") + name;
    }
    args.AddOption("model",
                   "llm: a preset (" + presets +
                       ") or a model file (JSON/YAML, or a Hugging Face config.json)",
                   "llama3-8b");
    args.AddOption("seq", "llm: tokens per sequence", "4096");
    args.AddOption("gbs",
                   "llm: global batch, sequences per step (default: 8 micro-batches per "
                   "data-parallel rank)");
    args.AddOption("mbs", "llm: micro-batch, sequences", "1");
    args.AddOption("pp",
                   "llm: pipeline-parallel stages (--tp, --dp, --ep: their groups; "
                   "default 1, dp derived from --ranks)");
    args.AddOption("vp", "llm: virtual stages per pipeline stage (interleaved 1F1B)", "1");
    args.AddOption("cp", "llm: context-parallel group size", "1");
    args.AddOption("etp",
                   "llm: expert tensor-parallel size (MoE): splits each routed expert over etp "
                   "ranks; must divide --tp. Default --tp, Megatron-LM's default for "
                   "--expert-tensor-parallel-size (megatron/training/arguments.py). MoE recipes "
                   "such as DeepSeek-V3's use 1 (whole experts)");
    // Uneven pipeline stages: Megatron-Core's --decoder-first/last-pipeline-num-layers.
    args.AddOption("first-stage-layers",
                   "llm: transformer layers of the first pipeline stage (default: an even "
                   "split; the other stages share the rest evenly)");
    args.AddOption("last-stage-layers",
                   "llm: transformer layers of the last pipeline stage (default: an even split)");
    args.AddFlag("account-for-embedding-in-pipeline-split",
                 "llm: the embedding takes a layer's place on the first stage when the layers "
                 "are split over the stages (Megatron-Core's flag)");
    args.AddFlag("account-for-loss-in-pipeline-split",
                 "llm: the output layer and loss take a layer's place on the last stage");
    args.AddFlag("sequence-parallel",
                 "llm: Megatron's sequence parallelism (reduce-scatter / all-gather around "
                 "each block instead of all-reduce)");
    args.AddOption("zero", "llm: ZeRO stage 0-3 (1: Megatron's distributed optimizer)", "0");
    args.AddFlag("fsdp", "llm: PyTorch FSDP full shard (ZeRO-3's traffic)");
    args.AddOption("fsdp-param-dtype",
                   "llm: the weights FSDP / ZeRO-3 gather: bf16, or fp32 (FSDP MixedPrecision "
                   "param_dtype fp32, Composer's DEFAULT mode: twice the all-gather bytes, and "
                   "each pass casts the gathered weights to 16 bits)",
                   "bf16");
    args.AddOption("grad-reduce-dtype",
                   "llm: the gradients' element in the data-parallel reductions: bf16, or fp32 "
                   "(Megatron's --accumulate-allreduce-grads-in-fp32, FSDP reduce_dtype fp32)",
                   "bf16");
    args.AddOption("recompute", "llm: activation recompute: none, selective or full", "none");
    args.AddOption("tp-comm-overlap",
                   "llm: how tensor-parallel collectives overlap the GEMMs: none (all on the "
                   "critical path: Megatron-LM of 2021), async (Megatron-Core's default: a "
                   "column-parallel GEMM's backward overlaps its input's re-gather and its "
                   "gradient's reduction), userbuffers (async plus Transformer Engine's ring "
                   "exchanges inside the GEMMs: Megatron's --tp-comm-overlap, NeMo's recipes; "
                   "needs --sequence-parallel)",
                   "async");
    std::string gpus;
    for (const std::string& name : GpuComputeNames())
    {
        gpus += (gpus.empty() ? "" : ", ") + name;
    }
    args.AddOption("gpu", "llm: the GPU that times the ops (" + gpus + ")", "H100");
    args.AddOption("precision", "llm: GEMM precision: bf16 or fp8", "bf16");
    char scale[32];
    std::snprintf(scale, sizeof scale, "%g", kInSituEfficiencyScale);
    args.AddOption("gemm-efficiency-scale",
                   std::string("llm: multiplies the GPU's GEMM and attention efficiency; the "
                               "default is calibrated on one published step (doc/validation.md); "
                               "1 is a matmul microbenchmark's ceiling"),
                   scale);
    args.AddOption("profile",
                   "llm: measured op times (CSV op,shape,micros) replacing the GPU model's");
    args.AddFlag("allow-oversubscribed-memory",
                 "llm: write a layout whose estimated memory per GPU (weights, gradients, "
                 "optimizer state, activations) exceeds the GPU's, with a warning");
    args.AddFlag("trace-per-role",
                 "llm: write one trace per pipeline stage (its first rank's, "
                 "<prefix>.role.<rank>.et) and <prefix>.roles.json, by which every rank of "
                 "the stage reads it with its rank ids rotated (an MoE layout whose expert grid "
                 "does not nest with tp x cp x dp is refused)");
}

std::vector<std::string>
LlmFlagNames()
{
    return {"ranks",
            "tp",
            "dp",
            "ep",
            "bucket-bytes",
            "model",
            "seq",
            "gbs",
            "mbs",
            "pp",
            "vp",
            "cp",
            "first-stage-layers",
            "last-stage-layers",
            "account-for-embedding-in-pipeline-split",
            "account-for-loss-in-pipeline-split",
            "sequence-parallel",
            "zero",
            "fsdp",
            "fsdp-param-dtype",
            "grad-reduce-dtype",
            "recompute",
            "tp-comm-overlap",
            "gpu",
            "precision",
            "gemm-efficiency-scale",
            "profile",
            "allow-oversubscribed-memory",
            "etp",
            "trace-per-role"};
}

LlmStepSpec
LlmStepSpecFromFlags(const ToolArgs& args)
{
    LlmStepSpec spec;
    spec.model = ModelOf(args);
    ParallelLayout& layout = spec.layout;
    layout.tp = WholeOr(args, "tp", 1);
    layout.pp = WholeOr(args, "pp", 1);
    layout.vp = Whole(args, "vp", 1, 1024);
    layout.cp = Whole(args, "cp", 1, 1000000);
    layout.ep = WholeOr(args, "ep", 1);
    layout.etp = WholeOr(args, "etp", 0); // 0: tp (ResolveLayout)
    layout.dp = WholeOr(args, "dp", 0);
    // 0 stands for "not given" (an even split), so a given count is at least 1, as Megatron's.
    layout.firstStageLayers = WholeOr(args, "first-stage-layers", 0);
    layout.lastStageLayers = WholeOr(args, "last-stage-layers", 0);
    layout.embeddingInPipelineSplit = args.Has("account-for-embedding-in-pipeline-split");
    layout.lossInPipelineSplit = args.Has("account-for-loss-in-pipeline-split");
    const uint64_t modelParallel = uint64_t{layout.tp} * layout.pp * layout.cp;
    const uint64_t gpus = args.Has("ranks") ? Whole(args, "ranks", 1, 1000000)
                                            : modelParallel * (layout.dp > 0 ? layout.dp : 1);
    if (gpus > 1000000)
    {
        throw std::invalid_argument("--tp x --pp x --cp x --dp = " + std::to_string(gpus) +
                                    " GPUs is above 1000000");
    }
    layout.gpus = static_cast<uint32_t>(gpus);
    layout.sequenceParallel = args.Has("sequence-parallel");
    layout.zero = Whole(args, "zero", 0, 3);
    layout.fsdp = args.Has("fsdp");
    layout.gatherBytes = DtypeBytesOf(args, "fsdp-param-dtype");
    layout.gradReduceBytes = DtypeBytesOf(args, "grad-reduce-dtype");
    layout.seq = Whole(args, "seq", 1, 1u << 24);
    layout.microBatch = Whole(args, "mbs", 1, 1u << 20);
    if (args.Has("gbs"))
    {
        layout.globalBatch = Whole(args, "gbs", 1, 1u << 30);
    }
    else
    {
        // 8 micro-batches per data-parallel rank (or the rank count ResolveLayout refuses).
        const uint64_t dp = layout.dp > 0 ? layout.dp : std::max<uint64_t>(1, gpus / modelParallel);
        layout.globalBatch = 8 * dp * layout.microBatch;
    }
    layout.recompute = RecomputeOf(args);
    layout.tpCommOverlap = TpCommOverlapOf(args);
    spec.gpu = args.Get("gpu");
    spec.precision = PrecisionOf(args);
    spec.efficiencyScale = args.GetDouble("gemm-efficiency-scale");
    spec.profile = args.Get("profile");
    spec.allowOversubscribedMemory = args.Has("allow-oversubscribed-memory");
    if (args.Has("bucket-bytes"))
    {
        uint64_t bytes = 0;
        if (!WorkloadGenerator::ParseBytes(args.Get("bucket-bytes"), bytes) || bytes == 0)
        {
            throw std::invalid_argument("--bucket-bytes: '" + args.Get("bucket-bytes") +
                                        "' is not a positive size (e.g. 64MiB)");
        }
        spec.bucketBytes = bytes;
    }
    return spec;
}

std::string
DescribeLlmStep(const LlmStepSpec& spec, const LlmStepPlan& plan)
{
    const ParallelLayout& l = plan.layout;
    char flops[64];
    std::snprintf(flops, sizeof flops, "%.3g", plan.modelFlops);
    char capacity[32];
    std::snprintf(capacity, sizeof capacity, "%.0f", plan.gpuMemoryBytes / (1024.0 * 1024 * 1024));
    return spec.model.name + " on " + std::to_string(plan.ranks) + " GPUs (" + spec.gpu + "): tp " +
           std::to_string(l.tp) + (l.sequenceParallel ? " (sp)" : "") + ", pp " +
           std::to_string(l.pp) + (l.vp > 1 ? " x vp " + std::to_string(l.vp) : "") +
           UnevenStages(spec, l) + ", cp " + std::to_string(l.cp) + ", ep " + std::to_string(l.ep) +
           (l.etp != 0 && l.etp != l.tp ? ", etp " + std::to_string(l.etp) : "") + ", dp " +
           std::to_string(l.dp) + TpOverlapText(l) +
           (l.gatherBytes == 4 ? ", fp32 weight gathers" : "") +
           (l.gradReduceBytes == 4 ? ", fp32 gradient reductions" : "") + "; " +
           std::to_string(plan.microBatches) + " micro-batches of " + std::to_string(l.microBatch) +
           " x " + std::to_string(l.seq) + " tokens; " + flops +
           " model FLOPs per step; memory per GPU: " + DescribeGpuMemory(plan.memory) +
           (plan.memoryOversubscribed ? ", WARNING: more than the " : " of the ") + spec.gpu +
           "'s " + capacity + " GiB";
}

} // namespace ns3
