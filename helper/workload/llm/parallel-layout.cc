#include "parallel-layout.h"

#include "ns3/pipeline-layers.h"
#include "ns3/workload-spec-check.h"

#include <string>

namespace ns3
{

namespace
{

/** "llm: <message>" unless \p condition. */
void
Require(bool condition, const std::string& message)
{
    workload::Require(condition, "llm", message);
}

std::string
Text(uint64_t value)
{
    return std::to_string(value);
}

/** Checks the sizes themselves and derives dp. */
void
ResolveDataParallel(ParallelLayout& layout)
{
    Require(layout.gpus >= 1 && layout.gpus <= workload::MaxRanks,
            "--ranks must be between 1 and " + Text(workload::MaxRanks));
    for (const auto& [flag, value] : {std::pair<const char*, uint32_t>{"--tp", layout.tp},
                                      {"--pp", layout.pp},
                                      {"--vp", layout.vp},
                                      {"--cp", layout.cp},
                                      {"--ep", layout.ep}})
    {
        Require(value >= 1, std::string(flag) + " must be at least 1");
    }
    const uint64_t model = uint64_t{layout.tp} * layout.pp * layout.cp;
    Require(model <= layout.gpus && layout.gpus % model == 0,
            "--ranks " + Text(layout.gpus) + " is not a multiple of --tp " + Text(layout.tp) +
                " x --pp " + Text(layout.pp) + " x --cp " + Text(layout.cp) + " = " + Text(model));
    const uint64_t derived = layout.gpus / model;
    Require(layout.dp == 0 || layout.dp == derived,
            "--dp " + Text(layout.dp) + " does not match --ranks " + Text(layout.gpus) +
                " / (tp x pp x cp = " + Text(model) + ") = " + Text(derived));
    layout.dp = static_cast<uint32_t>(derived);
}

/** Checks the expert grid (etp x ep x edp over a stage's tp x cp x dp ranks); sets etp. */
void
CheckExperts(ParallelLayout& layout, const LayoutModelLimits& model)
{
    if (model.experts == 0)
    {
        Require(layout.ep == 1, "--ep " + Text(layout.ep) + " needs a mixture-of-experts model");
        Require(layout.etp == 0, "--etp " + Text(layout.etp) + " needs a mixture-of-experts model");
        return;
    }
    Require(model.experts % layout.ep == 0,
            "--ep " + Text(layout.ep) + " does not divide the " + Text(model.experts) + " experts");
    // Megatron's default: expert_tensor_parallel_size = tensor_model_parallel_size
    // (megatron/training/arguments.py, validate_args).
    layout.etp = layout.etp == 0 ? layout.tp : layout.etp;
    Require(layout.tp % layout.etp == 0,
            "--etp " + Text(layout.etp) + " does not divide --tp " + Text(layout.tp));
    // MoELayer.forward (megatron/core/transformer/moe/moe_layer.py) refuses MoE with tp > 1
    // in training without sequence parallelism; each tensor-parallel rank then dispatches its
    // own sequence shard, whatever etp.
    Require(layout.tp == 1 || layout.sequenceParallel,
            "a mixture-of-experts model with --tp " + Text(layout.tp) +
                " needs --sequence-parallel (each tensor-parallel rank dispatches its own "
                "sequence shard, as Megatron-Core does)");
    const uint64_t stageRanks = uint64_t{layout.tp} * layout.cp * layout.dp;
    const uint64_t expertGrid = uint64_t{layout.etp} * layout.ep;
    if (layout.etp == layout.tp)
    {
        // The same rule as tp x ep dividing tp x cp x dp, said in the flags the user gave.
        Require((stageRanks / layout.tp) % layout.ep == 0,
                "--ep " + Text(layout.ep) +
                    " does not divide dp x cp = " + Text(stageRanks / layout.tp) +
                    " (expert groups are formed from the data-parallel ranks)");
        return;
    }
    // initialize_model_parallel (megatron/core/parallel_state.py) lays the expert grid
    // etp x ep x edp over the ranks of a pipeline stage.
    Require(stageRanks % expertGrid == 0,
            "--etp " + Text(layout.etp) + " x --ep " + Text(layout.ep) + " = " + Text(expertGrid) +
                " does not divide tp x cp x dp = " + Text(stageRanks) +
                " (the expert grid is laid over a pipeline stage's ranks)");
}

/** Checks what the model's numbers must allow. */
void
CheckAgainstModel(ParallelLayout& layout, const LayoutModelLimits& model)
{
    Require(model.heads % layout.tp == 0,
            "--tp " + Text(layout.tp) + " does not divide the " + Text(model.heads) +
                " attention heads");
    Require(model.kvHeads % layout.tp == 0,
            "--tp " + Text(layout.tp) + " does not divide the " + Text(model.kvHeads) +
                " key/value heads (Megatron splits the K/V heads over tp)");
    CheckPipelineLayers(layout, model.layers);
    Require(layout.vp == 1 || layout.pp > 1, "--vp " + Text(layout.vp) + " needs --pp > 1");
    CheckExperts(layout, model);
}

/** Checks batch, sequence, ZeRO and recompute settings. */
void
CheckBatchAndSharding(const ParallelLayout& layout)
{
    Require(layout.seq >= 1, "--seq must be at least 1");
    Require(layout.microBatch >= 1, "--mbs must be at least 1");
    const uint64_t perStep = uint64_t{layout.microBatch} * layout.dp;
    Require(layout.globalBatch >= perStep && layout.globalBatch % perStep == 0,
            "--gbs " + Text(layout.globalBatch) + " is not a multiple of --mbs " +
                Text(layout.microBatch) + " x dp " + Text(layout.dp) + " = " + Text(perStep));
    const uint64_t microBatches = layout.globalBatch / perStep;
    Require(microBatches <= 1000000,
            "--gbs gives " + Text(microBatches) + " micro-batches, above 1000000");
    if (layout.vp > 1)
    {
        // Megatron's interleaved schedule runs micro-batches in groups of pp
        // (megatron/core/pipeline_parallel/schedules.py).
        Require(microBatches >= layout.pp && microBatches % layout.pp == 0,
                "interleaving (--vp " + Text(layout.vp) + ") needs the micro-batches (" +
                    Text(microBatches) + ") to be a multiple of --pp " + Text(layout.pp));
    }
    if (layout.cp > 1)
    {
        // The load-balanced causal split cuts each sequence into 2 x cp chunks.
        Require(layout.seq % (2 * layout.cp) == 0,
                "--seq " + Text(layout.seq) + " is not divisible by 2 x --cp " + Text(layout.cp));
    }
    const uint64_t shard = layout.sequenceParallel ? uint64_t{layout.tp} * layout.cp : layout.cp;
    Require(layout.seq % shard == 0,
            "--seq " + Text(layout.seq) + " is not divisible by the sequence shards (" +
                Text(shard) + ")");
    Require(layout.zero <= 3, "--zero must be 0, 1, 2 or 3");
    Require(!layout.fsdp || layout.zero == 0 || layout.zero == 3,
            "--fsdp is ZeRO-3's sharding: it does not combine with --zero " + Text(layout.zero));
    Require(layout.gatherBytes == 2 || layout.gatherBytes == 4,
            "--fsdp-param-dtype must be bf16 or fp32");
    Require(layout.gradReduceBytes == 2 || layout.gradReduceBytes == 4,
            "--grad-reduce-dtype must be bf16 or fp32");
    Require(layout.gatherBytes == 2 || layout.fsdp || layout.zero == 3,
            "--fsdp-param-dtype fp32 needs --fsdp or --zero 3 (the weights other layouts "
            "gather are the optimizer's 16-bit copies)");
    // Transformer Engine's userbuffers exchange sequence shards: Megatron's --tp-comm-overlap
    // refuses to run without sequence parallelism (megatron/training/arguments.py).
    Require(layout.tpCommOverlap != TpCommOverlap::Userbuffers || layout.tp == 1 ||
                layout.sequenceParallel,
            "--tp-comm-overlap userbuffers needs --sequence-parallel (the ring exchanges pass "
            "sequence shards)");
}

} // namespace

uint32_t
ParallelLayout::MicroBatches() const
{
    const uint64_t perStep = uint64_t{microBatch} * dp;
    return perStep == 0 ? 0 : static_cast<uint32_t>(globalBatch / perStep);
}

uint32_t
ParallelLayout::ExpertTensorParallel() const
{
    return etp == 0 ? tp : etp;
}

uint32_t
ParallelLayout::ExpertDataParallel() const
{
    const uint64_t grid = uint64_t{ExpertTensorParallel()} * ep;
    return static_cast<uint32_t>(uint64_t{tp} * cp * dp / grid);
}

bool
ParallelLayout::RoutesOwnShard() const
{
    // etp is set only for MoE models, and MoE with tp > 1 has sequence parallelism.
    return etp > 0 && tp > 1;
}

ParallelLayout
ResolveLayout(ParallelLayout layout, const LayoutModelLimits& model)
{
    ResolveDataParallel(layout);
    CheckAgainstModel(layout, model);
    CheckBatchAndSharding(layout);
    return layout;
}

MegatronRankOrder::MegatronRankOrder(const ParallelLayout& resolved)
    : m_layout(resolved)
{
}

RankCoordinates
MegatronRankOrder::Coordinates(uint32_t rank) const
{
    RankCoordinates at;
    at.tp = rank % m_layout.tp;
    rank /= m_layout.tp;
    at.cp = rank % m_layout.cp;
    rank /= m_layout.cp;
    at.dp = rank % m_layout.dp;
    at.pp = rank / m_layout.dp;
    return at;
}

uint32_t
MegatronRankOrder::Rank(const RankCoordinates& at) const
{
    return at.tp + m_layout.tp * (at.cp + m_layout.cp * (at.dp + m_layout.dp * at.pp));
}

uint32_t
MegatronRankOrder::TensorGroupOf(uint32_t rank) const
{
    const RankCoordinates at = Coordinates(rank);
    return at.cp + m_layout.cp * (at.dp + m_layout.dp * at.pp);
}

uint32_t
MegatronRankOrder::ContextGroupOf(uint32_t rank) const
{
    const RankCoordinates at = Coordinates(rank);
    return at.tp + m_layout.tp * (at.dp + m_layout.dp * at.pp);
}

uint32_t
MegatronRankOrder::DataGroupOf(uint32_t rank) const
{
    const RankCoordinates at = Coordinates(rank);
    return at.tp + m_layout.tp * (at.cp + m_layout.cp * at.pp);
}

uint32_t
MegatronRankOrder::DataContextGroupOf(uint32_t rank) const
{
    const RankCoordinates at = Coordinates(rank);
    return at.tp + m_layout.tp * at.pp;
}

uint32_t
MegatronRankOrder::PipelineGroupOf(uint32_t rank) const
{
    const RankCoordinates at = Coordinates(rank);
    return at.tp + m_layout.tp * (at.cp + m_layout.cp * at.dp);
}

MegatronRankOrder::ExpertCoordinates
MegatronRankOrder::ExpertAt(uint32_t rank) const
{
    // A stage's ranks are consecutive in both grids (pp is the slowest in both orders).
    const uint32_t stageRanks = m_layout.tp * m_layout.cp * m_layout.dp;
    const uint32_t etp = m_layout.ExpertTensorParallel();
    ExpertCoordinates at;
    at.stage = rank / stageRanks;
    uint32_t i = rank % stageRanks;
    at.etp = i % etp;
    i /= etp;
    at.ep = i % m_layout.ep;
    at.edp = i / m_layout.ep;
    return at;
}

uint32_t
MegatronRankOrder::ExpertGroupOf(uint32_t rank) const
{
    // Varies ep: numbered by (etp, edp, stage). With etp = tp this is the numbering of
    // (tp, edp, stage) the generator always wrote.
    const ExpertCoordinates at = ExpertAt(rank);
    const uint32_t etp = m_layout.ExpertTensorParallel();
    return at.etp + etp * (at.edp + m_layout.ExpertDataParallel() * at.stage);
}

uint32_t
MegatronRankOrder::ExpertDataGroupOf(uint32_t rank) const
{
    // Varies edp: numbered by (etp, ep, stage).
    const ExpertCoordinates at = ExpertAt(rank);
    const uint32_t etp = m_layout.ExpertTensorParallel();
    return at.etp + etp * (at.ep + m_layout.ep * at.stage);
}

uint32_t
MegatronRankOrder::ExpertTensorGroupOf(uint32_t rank) const
{
    // Varies etp, the fastest index: ETP consecutive ranks.
    return rank / m_layout.ExpertTensorParallel();
}

std::vector<std::vector<uint32_t>>
MegatronRankOrder::Collect(uint32_t (MegatronRankOrder::*groupOf)(uint32_t) const) const
{
    std::vector<std::vector<uint32_t>> groups;
    for (uint32_t rank = 0; rank < m_layout.gpus; ++rank)
    {
        const uint32_t index = (this->*groupOf)(rank);
        if (index >= groups.size())
        {
            groups.resize(index + 1);
        }
        groups[index].push_back(rank); // ranks ascend, so each group is sorted
    }
    return groups;
}

std::vector<std::vector<uint32_t>>
MegatronRankOrder::TensorGroups() const
{
    return Collect(&MegatronRankOrder::TensorGroupOf);
}

std::vector<std::vector<uint32_t>>
MegatronRankOrder::ContextGroups() const
{
    return Collect(&MegatronRankOrder::ContextGroupOf);
}

std::vector<std::vector<uint32_t>>
MegatronRankOrder::DataGroups() const
{
    return Collect(&MegatronRankOrder::DataGroupOf);
}

std::vector<std::vector<uint32_t>>
MegatronRankOrder::DataContextGroups() const
{
    return Collect(&MegatronRankOrder::DataContextGroupOf);
}

std::vector<std::vector<uint32_t>>
MegatronRankOrder::PipelineGroups() const
{
    return Collect(&MegatronRankOrder::PipelineGroupOf);
}

std::vector<std::vector<uint32_t>>
MegatronRankOrder::ExpertGroups() const
{
    return Collect(&MegatronRankOrder::ExpertGroupOf);
}

std::vector<std::vector<uint32_t>>
MegatronRankOrder::ExpertDataGroups() const
{
    return Collect(&MegatronRankOrder::ExpertDataGroupOf);
}

std::vector<std::vector<uint32_t>>
MegatronRankOrder::ExpertTensorGroups() const
{
    return Collect(&MegatronRankOrder::ExpertTensorGroupOf);
}

} // namespace ns3
