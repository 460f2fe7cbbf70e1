#include "layer-op-planner.h"

#include <algorithm>
#include <cctype>
#include <cmath>

namespace ns3
{

namespace
{

/** Bytes of one 16-bit activation or weight element. */
constexpr uint64_t kElementBytes = 2;

/** \return "m x n x k" as a profile's shape */
std::string
Shape(uint64_t m, uint64_t n, uint64_t k)
{
    return std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k);
}

/**
 * \return the profile's name of op \p name: without its layer tag "_l<number>", wherever it
 *         stands ("mlp_l3_up" -> "mlp_up", "qkv_l3" -> "qkv"), as every layer's op of a shape
 *         is the same kernel
 */
std::string
OpKey(const std::string& name)
{
    for (std::size_t at = name.find("_l"); at != std::string::npos; at = name.find("_l", at + 1))
    {
        std::size_t end = at + 2;
        while (end < name.size() && std::isdigit(static_cast<unsigned char>(name[end])))
        {
            ++end;
        }
        if (end > at + 2 && (end == name.size() || name[end] == '_'))
        {
            return name.substr(0, at) + name.substr(end);
        }
    }
    return name;
}

} // namespace

LayerOpPlanner::LayerOpPlanner(const TransformerModel& model,
                               const ParallelLayout& layout,
                               const ComputeTimeModel& gpu,
                               bool causal,
                               const ComputeProfile* profile)
    : m_model(model),
      m_layout(layout),
      m_gpu(gpu),
      m_causal(causal),
      m_profile(profile),
      m_tokens(static_cast<uint64_t>(layout.microBatch) * layout.seq / layout.cp)
{
    const bool latent = model.kvLoraRank > 0;
    m_qkDim = latent ? model.qkNopeHeadDim + model.qkRopeHeadDim : model.headDim;
    m_vDim = latent ? model.vHeadDim : model.headDim;
}

uint64_t
LayerOpPlanner::StageActivationBytes() const
{
    // Megatron sends the (s / cp [/ tp with SP], b, h) tensor between stages.
    const uint64_t shard = m_layout.sequenceParallel ? m_layout.tp : 1;
    return m_tokens / shard * m_model.hidden * kElementBytes;
}

double
LayerOpPlanner::Measured(const std::string& op, const std::string& shape, double modelled) const
{
    if (m_profile != nullptr)
    {
        if (auto micros = m_profile->Micros(op, shape))
        {
            return *micros;
        }
    }
    return modelled;
}

double
LayerOpPlanner::GemmMicros(uint64_t m, uint64_t n, uint64_t k) const
{
    return Measured("gemm", Shape(m, n, k), m_gpu.GemmMicros(m, n, k));
}

LayerOp
LayerOpPlanner::Gemm(const std::string& name, uint64_t m, uint64_t n, uint64_t k) const
{
    LayerOp op;
    op.name = name;
    op.micros = Measured(OpKey(name), Shape(m, n, k), GemmMicros(m, n, k));
    return op;
}

LayerOp
LayerOpPlanner::GemmBackward(const std::string& name, uint64_t m, uint64_t n, uint64_t k) const
{
    LayerOp op;
    op.name = name + "_backward";
    // dX[m,k] = dY[m,n] W^T[n,k] and dW[k,n] = X^T[k,m] dY[m,n]: the two GEMMs a real
    // trace records (as aten::mm) for the op's backward.
    const double gradients = GemmMicros(m, k, n) + GemmMicros(k, n, m);
    op.micros = Measured(OpKey(name) + "_backward", Shape(m, n, k), gradients);
    return op;
}

LayerOp
LayerOpPlanner::MemoryBound(const std::string& name, uint64_t bytes) const
{
    LayerOp op;
    op.name = name;
    op.micros = m_gpu.MemoryBoundMicros(bytes);
    return op;
}

LayerOp
LayerOpPlanner::TensorCollective(const std::string& name,
                                 ChakraProtoMsg::CollectiveCommType type,
                                 uint64_t bytes)
{
    LayerOp op;
    op.kind = LayerOpKind::TensorCollective;
    op.name = name;
    op.collective = type;
    op.bytes = bytes;
    return op;
}

void
LayerOpPlanner::EnterBlock(const std::string& name, std::vector<LayerOp>& ops) const
{
    if (m_layout.tp > 1 && m_layout.sequenceParallel)
    {
        // Each rank contributes its 1/tp shard of the sequence.
        ops.push_back(TensorCollective("tp_allgather_" + name,
                                       ChakraProtoMsg::ALL_GATHER,
                                       m_tokens / m_layout.tp * m_model.hidden * kElementBytes));
    }
}

void
LayerOpPlanner::LeaveBlock(const std::string& name, std::vector<LayerOp>& ops) const
{
    if (m_layout.tp > 1)
    {
        // The whole b x s x h partial output is the input of either collective.
        ops.push_back(TensorCollective(
            (m_layout.sequenceParallel ? "tp_reducescatter_" : "tp_allreduce_") + name,
            m_layout.sequenceParallel ? ChakraProtoMsg::REDUCE_SCATTER : ChakraProtoMsg::ALL_REDUCE,
            m_tokens * m_model.hidden * kElementBytes));
    }
}

bool
LayerOpPlanner::AsyncTensorComm() const
{
    return m_layout.tp > 1 && m_layout.tpCommOverlap != TpCommOverlap::None;
}

bool
LayerOpPlanner::RingExchanges() const
{
    // ResolveLayout refuses userbuffers without sequence parallelism.
    return m_layout.tp > 1 && m_layout.tpCommOverlap == TpCommOverlap::Userbuffers;
}

double
LayerOpPlanner::ChunkMicros(double whole, uint64_t m, uint64_t n, uint64_t k) const
{
    // A chunk is a smaller GEMM: the model's efficiency for its size, applied to the whole's
    // time (measured or modelled), so a profile's figure carries over.
    const uint64_t tp = m_layout.tp;
    const double modelled = m_gpu.GemmMicros(m, n, k);
    const double chunks = static_cast<double>(tp) * m_gpu.GemmMicros(m / tp, n, k);
    return modelled > 0 ? whole * chunks / modelled / static_cast<double>(tp)
                        : whole / static_cast<double>(tp);
}

namespace
{

/** An exchange step of a ring over the tensor-parallel group. */
LayerOp
RingStep(const std::string& name, uint64_t bytes, uint32_t offset)
{
    LayerOp op;
    op.kind = LayerOpKind::TensorRingExchange;
    op.name = name;
    op.bytes = bytes;
    op.offset = offset;
    op.blocking = false;
    return op;
}

/** A compute op (a GEMM's chunk or one of its gradients), waiting for \p joined too if given. */
LayerOp
ComputeOp(const std::string& name, double micros, const std::string& joined = "")
{
    LayerOp op;
    op.name = name;
    op.micros = micros;
    if (!joined.empty())
    {
        op.joins.push_back(joined);
    }
    return op;
}

} // namespace

void
LayerOpPlanner::GatheredGemm(const std::string& block,
                             const std::string& name,
                             uint64_t n,
                             uint64_t k,
                             std::vector<LayerOp>& ops) const
{
    const LayerOp whole = Gemm(name, m_tokens, n, k);
    if (!RingExchanges())
    {
        EnterBlock(block, ops);
        ops.push_back(whole);
        return;
    }
    RingGatheredGemm(block, name, whole.micros, n, k, ops);
}

void
LayerOpPlanner::RingGatheredGemm(const std::string& block,
                                 const std::string& name,
                                 double micros,
                                 uint64_t n,
                                 uint64_t k,
                                 std::vector<LayerOp>& ops) const
{
    // Transformer Engine's all-gather by ring exchange: each rank multiplies the shard it has
    // while passing it on to its neighbour; after tp - 1 steps every shard has been through.
    const uint32_t tp = m_layout.tp;
    const uint64_t shard = m_tokens / tp * m_model.hidden * kElementBytes;
    const std::string step = "tp_ring_allgather_" + block + "_step";
    for (uint32_t i = 1; i < tp; ++i)
    {
        LayerOp exchange = RingStep(step + std::to_string(i), shard, 1);
        if (i > 1)
        {
            exchange.joins.push_back(step + std::to_string(i - 1)); // it forwards that chunk
        }
        ops.push_back(exchange);
    }
    const double chunk = ChunkMicros(micros, m_tokens, n, k);
    for (uint32_t i = 0; i < tp; ++i)
    {
        ops.push_back(ComputeOp(name + "_chunk" + std::to_string(i),
                                chunk,
                                i == 0 ? "" : step + std::to_string(i)));
    }
}

double
LayerOpPlanner::InputGradientShare(uint64_t n, uint64_t k) const
{
    // Of a (m_tokens, n, k) GEMM's backward: dX = dY W^T is (m_tokens, k, n), dW = X^T dY is
    // (k, n, m_tokens).
    const double dgrad = m_gpu.GemmMicros(m_tokens, k, n);
    const double wgrad = m_gpu.GemmMicros(k, n, m_tokens);
    return dgrad + wgrad > 0 ? dgrad / (dgrad + wgrad) : 0.5;
}

void
LayerOpPlanner::ScatteredGemm(const std::string& block,
                              const std::string& name,
                              uint64_t n,
                              uint64_t k,
                              std::vector<LayerOp>& ops) const
{
    const LayerOp whole = Gemm(name, m_tokens, n, k);
    if (!RingExchanges())
    {
        ops.push_back(whole);
        LeaveBlock(block, ops);
        return;
    }
    // Transformer Engine's reduce-scatter by ring exchange: the GEMM runs in tp row chunks,
    // each chunk's partial sum sent to the rank that owns those rows (the rank i + 1 places
    // on at step i) while the next chunk computes; the rank's own chunk comes last, then one
    // kernel adds the tp partial sums.
    const uint32_t tp = m_layout.tp;
    const uint64_t shard = m_tokens / tp * n * kElementBytes;
    const std::string step = "tp_ring_reducescatter_" + block + "_step";
    const double chunk = ChunkMicros(whole.micros, m_tokens, n, k);
    LayerOp reduce = MemoryBound("tp_ring_reduce_" + block, (tp + 1) * shard);
    for (uint32_t i = 0; i < tp; ++i)
    {
        ops.push_back(ComputeOp(name + "_chunk" + std::to_string(i), chunk));
        if (i + 1 < tp)
        {
            ops.push_back(RingStep(step + std::to_string(i + 1), shard, i + 1));
            reduce.joins.push_back(step + std::to_string(i + 1));
        }
    }
    ops.push_back(reduce);
}

void
LayerOpPlanner::RowParallelBackward(const std::string& block,
                                    const std::string& name,
                                    uint64_t n,
                                    uint64_t k,
                                    std::vector<LayerOp>& ops) const
{
    const LayerOp whole = GemmBackward(name, m_tokens, n, k);
    if (!RingExchanges())
    {
        EnterBlock(block, ops);
        ops.push_back(whole);
        return;
    }
    // The output gradient is all-gathered by ring exchange into the input-gradient GEMM
    // (dX = dY W^T, chunk by chunk); the weight gradient (dW = X^T dY) needs all of dY.
    const double share = InputGradientShare(n, k);
    RingGatheredGemm(block, whole.name + "_dgrad", whole.micros * share, k, n, ops);
    ops.push_back(ComputeOp(whole.name + "_wgrad", whole.micros * (1 - share)));
}

std::string
LayerOpPlanner::ColumnParallelBackward(const std::string& block,
                                       const std::string& name,
                                       uint64_t n,
                                       uint64_t k,
                                       std::vector<LayerOp>& ops) const
{
    const LayerOp whole = GemmBackward(name, m_tokens, n, k);
    const bool gathers = m_layout.tp > 1 && m_layout.sequenceParallel;
    // Sequence parallelism keeps only the input's shard: the weight gradient needs it
    // gathered again (Megatron-Core's LinearWithGradAccumulationAndAsyncCommunication,
    // Transformer Engine's LayerNormLinear).
    LayerOp regather = TensorCollective("tp_regather_" + block,
                                        ChakraProtoMsg::ALL_GATHER,
                                        m_tokens / m_layout.tp * m_model.hidden * kElementBytes);
    std::vector<LayerOp> reduction;
    LeaveBlock(block, reduction);
    if (!AsyncTensorComm())
    {
        if (gathers)
        {
            ops.push_back(regather);
        }
        ops.push_back(whole);
        ops.insert(ops.end(), reduction.begin(), reduction.end());
        return "";
    }
    // The re-gather runs during the input-gradient GEMM, and that gradient's reduction during
    // the weight-gradient GEMM, both issued asynchronously.
    const double share = InputGradientShare(n, k);
    if (gathers)
    {
        regather.blocking = false;
        ops.push_back(regather);
    }
    ops.push_back(ComputeOp(whole.name + "_dgrad", whole.micros * share));
    LayerOp reduce = reduction.front();
    reduce.blocking = false;
    ops.push_back(reduce);
    ops.push_back(
        ComputeOp(whole.name + "_wgrad", whole.micros * (1 - share), gathers ? regather.name : ""));
    return reduce.name;
}

std::vector<LayerOp>
LayerOpPlanner::Projections(const std::string& suffix, bool backward) const
{
    const uint64_t t = m_tokens;
    const uint64_t h = m_model.hidden;
    const uint64_t tp = m_layout.tp;
    const uint64_t heads = m_model.heads;
    auto gemm = [&](const std::string& name, uint64_t n, uint64_t k) {
        return backward ? GemmBackward(name + suffix, t, n, k) : Gemm(name + suffix, t, n, k);
    };
    std::vector<LayerOp> ops;
    if (m_model.kvLoraRank > 0)
    {
        // Multi-head latent attention (DeepSeek-V2/V3): queries and keys/values pass through
        // low-rank projections; the down-projections are not split over tp.
        const uint64_t rope = m_model.qkRopeHeadDim;
        if (m_model.qLoraRank > 0)
        {
            ops.push_back(gemm("q_down", m_model.qLoraRank, h));
            ops.push_back(gemm("q_up", heads * m_qkDim / tp, m_model.qLoraRank));
        }
        else
        {
            ops.push_back(gemm("q_proj", heads * m_qkDim / tp, h));
        }
        ops.push_back(gemm("kv_down", m_model.kvLoraRank + rope, h));
        ops.push_back(
            gemm("kv_up", heads * (m_model.qkNopeHeadDim + m_vDim) / tp, m_model.kvLoraRank));
    }
    else
    {
        const uint64_t kv = m_model.kvHeads;
        ops.push_back(gemm("qkv", (heads + 2 * kv) * m_model.headDim / tp, h));
    }
    return ops;
}

void
LayerOpPlanner::AttentionCore(const std::string& suffix,
                              bool backward,
                              std::vector<LayerOp>& ops) const
{
    const uint32_t cp = m_layout.cp;
    const uint64_t b = m_layout.microBatch;
    const uint64_t s = m_tokens / b; // this rank's part of the sequence
    const uint32_t heads = m_model.heads / m_layout.tp;
    // The K/V heads this rank holds: with MLA, K and V after their up-projection.
    const uint64_t kvHeads = m_model.kvLoraRank > 0 ? heads : m_model.kvHeads / m_layout.tp;
    const uint64_t kvBytes = m_tokens * kvHeads * (m_qkDim + m_vDim) * kElementBytes;
    // With the load-balanced causal split every ring step does the work of a causal s x s
    // block (the diagonal step, and on average the others); without masking, a full block.
    const double micros =
        m_gpu.AttentionMicros(b, s, s, heads, m_qkDim, m_vDim, m_causal, backward);
    const std::string name = std::string(backward ? "attention_core_backward" : "attention_core");
    for (uint32_t step = 0; step < cp; ++step)
    {
        if (step > 0)
        {
            LayerOp exchange;
            exchange.kind = LayerOpKind::ContextKvExchange;
            exchange.name = "cp_kv" + std::string(backward ? "_grad" : "") + suffix + "_step" +
                            std::to_string(step);
            // Backward passes the K/V chunk and the gradients accumulated for it.
            exchange.bytes = backward ? 2 * kvBytes : kvBytes;
            ops.push_back(exchange);
        }
        LayerOp core;
        core.name = name + suffix + (cp > 1 ? "_step" + std::to_string(step) : "");
        core.micros = Measured(name,
                               std::to_string(b) + "x" + std::to_string(s) + "x" +
                                   std::to_string(heads) + "x" + std::to_string(m_qkDim),
                               micros);
        ops.push_back(core);
    }
}

void
LayerOpPlanner::AttentionForward(const std::string& suffix, std::vector<LayerOp>& ops) const
{
    const uint64_t shard = m_layout.sequenceParallel ? m_layout.tp : 1;
    const std::string block = "attention" + suffix;
    const bool latent = m_model.kvLoraRank > 0;
    if (latent)
    {
        // MLA's projections take the gathered input as a whole, before its norm's shard.
        EnterBlock(block, ops);
    }
    // The norm runs on the sequence shard; the gather opens the column-parallel GEMM.
    ops.push_back(MemoryBound("attention_norm" + suffix,
                              2 * m_tokens / shard * m_model.hidden * kElementBytes));
    if (latent)
    {
        for (LayerOp& op : Projections(suffix, false))
        {
            ops.push_back(op);
        }
    }
    else
    {
        GatheredGemm(block,
                     "qkv" + suffix,
                     (m_model.heads + 2 * m_model.kvHeads) * m_model.headDim / m_layout.tp,
                     m_model.hidden,
                     ops);
    }
    AttentionCore(suffix, false, ops);
    ScatteredGemm(block,
                  "attention_out" + suffix,
                  m_model.hidden,
                  m_model.heads * m_vDim / m_layout.tp,
                  ops);
}

void
LayerOpPlanner::AttentionBackward(const std::string& suffix, std::vector<LayerOp>& ops) const
{
    const uint64_t shard = m_layout.sequenceParallel ? m_layout.tp : 1;
    const std::string block = "attention_grad" + suffix;
    RowParallelBackward(block,
                        "attention_out" + suffix,
                        m_model.hidden,
                        m_model.heads * m_vDim / m_layout.tp,
                        ops);
    if (m_layout.recompute == Recompute::Selective)
    {
        // Selective recompute keeps the core's inputs and runs the core forward again.
        std::vector<LayerOp> again;
        AttentionCore(suffix, false, again);
        for (LayerOp& op : again)
        {
            op.name = "recompute_" + op.name;
            ops.push_back(op);
        }
    }
    AttentionCore(suffix, true, ops);
    LayerOp norm = MemoryBound("attention_norm_backward" + suffix,
                               4 * m_tokens / shard * m_model.hidden * kElementBytes);
    if (m_model.kvLoraRank > 0)
    {
        std::vector<LayerOp> projections = Projections(suffix, true);
        std::reverse(projections.begin(), projections.end());
        ops.insert(ops.end(), projections.begin(), projections.end());
        ops.push_back(norm);
        LeaveBlock(block, ops);
        return;
    }
    const std::string reduction = ColumnParallelBackward(block,
                                                         "qkv" + suffix,
                                                         (m_model.heads + 2 * m_model.kvHeads) *
                                                             m_model.headDim / m_layout.tp,
                                                         m_model.hidden,
                                                         ops);
    if (!reduction.empty())
    {
        norm.joins.push_back(reduction); // the norm's backward runs on the reduced shard
    }
    ops.push_back(norm);
}

uint64_t
LayerOpPlanner::UpWidth(uint64_t width) const
{
    // A gated MLP (SwiGLU) has two up-projections (up and gate) fused in one GEMM.
    return width * (m_model.gatedMlp ? 2 : 1);
}

LayerOp
LayerOpPlanner::MlpActivation(const std::string& name,
                              uint64_t tokens,
                              uint64_t width,
                              bool backward) const
{
    // The activation reads the up-projection's output and writes one width-wide tensor; its
    // backward moves twice that.
    const uint64_t bytes = tokens * (UpWidth(width) + width) * kElementBytes;
    return backward ? MemoryBound(name + "_activation_backward", 2 * bytes)
                    : MemoryBound(name + "_activation", bytes);
}

void
LayerOpPlanner::DenseMlp(const std::string& name,
                         uint64_t tokens,
                         uint64_t width,
                         bool backward,
                         std::vector<LayerOp>& ops) const
{
    const uint64_t up = UpWidth(width);
    if (!backward)
    {
        ops.push_back(Gemm(name + "_up", tokens, up, m_model.hidden));
        ops.push_back(MlpActivation(name, tokens, width, false));
        ops.push_back(Gemm(name + "_down", tokens, m_model.hidden, width));
        return;
    }
    ops.push_back(GemmBackward(name + "_down", tokens, m_model.hidden, width));
    ops.push_back(MlpActivation(name, tokens, width, true));
    ops.push_back(GemmBackward(name + "_up", tokens, up, m_model.hidden));
}

void
LayerOpPlanner::DenseMlpBlock(const std::string& suffix,
                              bool backward,
                              std::vector<LayerOp>& ops) const
{
    const uint64_t shard = m_layout.sequenceParallel ? m_layout.tp : 1;
    const uint64_t normBytes = 2 * m_tokens / shard * m_model.hidden * kElementBytes;
    const uint64_t width = m_model.ffn / m_layout.tp;
    const uint64_t up = UpWidth(width);
    const std::string name = "mlp" + suffix;
    if (!backward)
    {
        ops.push_back(MemoryBound("mlp_norm" + suffix, normBytes));
        GatheredGemm(name, name + "_up", up, m_model.hidden, ops);
        ops.push_back(MlpActivation(name, m_tokens, width, false));
        ScatteredGemm(name, name + "_down", m_model.hidden, width, ops);
        return;
    }
    const std::string block = "mlp_grad" + suffix;
    RowParallelBackward(block, name + "_down", m_model.hidden, width, ops);
    ops.push_back(MlpActivation(name, m_tokens, width, true));
    const std::string reduction =
        ColumnParallelBackward(block, name + "_up", up, m_model.hidden, ops);
    LayerOp norm = MemoryBound("mlp_norm_backward" + suffix, 2 * normBytes);
    if (!reduction.empty())
    {
        norm.joins.push_back(reduction);
    }
    ops.push_back(norm);
}

void
LayerOpPlanner::RoutedExperts(const std::string& suffix,
                              bool backward,
                              std::vector<LayerOp>& ops) const
{
    const uint64_t h = m_model.hidden;
    const uint64_t etp = m_layout.ExpertTensorParallel();
    // With tp > 1 (and so sequence parallelism) each rank routes its own sequence shard
    // (b x s / (cp x tp) tokens), whatever etp: Megatron-Core's MoEAlltoAllTokenDispatcher
    // (megatron/core/transformer/moe/token_dispatcher.py) starts from the shard.
    const uint64_t routed = m_layout.RoutesOwnShard() ? m_tokens / m_layout.tp : m_tokens;
    const uint64_t copies = routed * m_model.topK; // each token goes to top-k experts
    const uint64_t local = m_model.experts / m_layout.ep;
    // etp > 1: the etp ranks of a group all-gather what they received, so each runs its
    // 1/etp of the local experts on etp x the copies.
    const bool expertTp = m_layout.RoutesOwnShard() && etp > 1;
    const uint64_t processed = expertTp ? etp * copies : copies;
    // Even routing: every local expert gets the same share of the copies this rank processes.
    const uint64_t perExpert = std::max<uint64_t>(1, processed / local);
    const uint64_t width = m_model.moeFfn / etp;
    const uint64_t up = width * (m_model.gatedMlp ? 2 : 1);

    auto allToAll = [&](const std::string& name) {
        if (m_layout.ep > 1)
        {
            LayerOp op;
            op.kind = LayerOpKind::ExpertAllToAll;
            op.name = name + suffix;
            op.collective = ChakraProtoMsg::ALL_TO_ALL;
            op.bytes = copies * h * kElementBytes;
            ops.push_back(op);
        }
    };
    // comm_size as the tp collectives: an all-gather's contribution, a reduce-scatter's input.
    auto expertCollective = [&](const std::string& name, bool gather) {
        if (expertTp)
        {
            LayerOp op = TensorCollective(name + suffix,
                                          gather ? ChakraProtoMsg::ALL_GATHER
                                                 : ChakraProtoMsg::REDUCE_SCATTER,
                                          (gather ? copies : processed) * h * kElementBytes);
            op.kind = LayerOpKind::ExpertTensorCollective;
            ops.push_back(op);
        }
    };
    LayerOp experts;
    experts.name = std::string(backward ? "experts_backward" : "experts") + suffix;
    const double passes = backward ? 2.0 : 1.0;
    double micros =
        backward ? m_gpu.GemmMicros(perExpert, h, up) + m_gpu.GemmMicros(h, up, perExpert) +
                       m_gpu.GemmMicros(perExpert, width, h) + m_gpu.GemmMicros(width, h, perExpert)
                 : m_gpu.GemmMicros(perExpert, up, h) + m_gpu.GemmMicros(perExpert, h, width);
    micros += passes * m_gpu.MemoryBoundMicros(perExpert * (up + width) * kElementBytes);
    experts.micros = Measured(backward ? "experts_backward" : "experts",
                              Shape(perExpert, up, h) + "x" + std::to_string(local),
                              local * micros);
    if (!backward)
    {
        ops.push_back(Gemm("router" + suffix, routed, m_model.experts, h));
        allToAll("ep_dispatch");
        expertCollective("etp_allgather_dispatch", true);
        ops.push_back(experts);
        expertCollective("etp_reducescatter_combine", false);
        allToAll("ep_combine");
        return;
    }
    // Backward runs the same path in reverse: an all-gather's gradient is a reduce-scatter.
    allToAll("ep_combine_grad");
    expertCollective("etp_allgather_combine_grad", true);
    ops.push_back(experts);
    expertCollective("etp_reducescatter_dispatch_grad", false);
    allToAll("ep_dispatch_grad");
    ops.push_back(GemmBackward("router" + suffix, routed, m_model.experts, h));
}

void
LayerOpPlanner::MlpBlock(uint32_t layer, bool backward, std::vector<LayerOp>& ops) const
{
    const std::string suffix = "_l" + std::to_string(layer);
    if (!IsMoeLayer(m_model, layer))
    {
        DenseMlpBlock(suffix, backward, ops);
        return;
    }
    // MoE: the tp collectives open and close the block as a whole (on the critical path).
    const uint64_t shard = m_layout.sequenceParallel ? m_layout.tp : 1;
    const uint64_t normBytes = 2 * m_tokens / shard * m_model.hidden * kElementBytes;
    // An MoE block that routes its own shard and has no shared experts needs no tp
    // collective: nothing in it is split over tp.
    const bool tensorBlock = m_model.sharedExperts > 0 || !m_layout.RoutesOwnShard();
    if (tensorBlock)
    {
        EnterBlock(std::string(backward ? "mlp_grad" : "mlp") + suffix, ops);
    }
    if (!backward)
    {
        ops.push_back(MemoryBound("mlp_norm" + suffix, normBytes));
    }
    if (m_model.sharedExperts > 0)
    {
        DenseMlp("shared_experts" + suffix,
                 m_tokens,
                 uint64_t{m_model.sharedExperts} * m_model.moeFfn / m_layout.tp,
                 backward,
                 ops);
    }
    RoutedExperts(suffix, backward, ops);
    if (backward)
    {
        ops.push_back(MemoryBound("mlp_norm_backward" + suffix, 2 * normBytes));
    }
    if (tensorBlock)
    {
        LeaveBlock(std::string(backward ? "mlp_grad" : "mlp") + suffix, ops);
    }
}

std::vector<LayerOp>
LayerOpPlanner::Forward(uint32_t layer) const
{
    std::vector<LayerOp> ops;
    AttentionForward("_l" + std::to_string(layer), ops);
    MlpBlock(layer, false, ops);
    return ops;
}

std::vector<LayerOp>
LayerOpPlanner::Backward(uint32_t layer) const
{
    std::vector<LayerOp> ops;
    if (m_layout.recompute == Recompute::Full)
    {
        // The layer's forward again, communication included, from its saved input.
        for (LayerOp op : Forward(layer))
        {
            op.name = "recompute_" + op.name;
            for (std::string& joined : op.joins)
            {
                joined = "recompute_" + joined;
            }
            ops.push_back(op);
        }
    }
    MlpBlock(layer, true, ops);
    AttentionBackward("_l" + std::to_string(layer), ops);
    return ops;
}

std::vector<LayerOp>
LayerOpPlanner::EmbeddingForward() const
{
    // A vocabulary-parallel lookup: each tp rank holds vocab / tp rows; the partial results
    // are summed (reduce-scattered onto the sequence shards with SP).
    std::vector<LayerOp> ops;
    ops.push_back(MemoryBound("embedding", 2 * m_tokens * m_model.hidden * kElementBytes));
    LeaveBlock("embedding", ops);
    return ops;
}

std::vector<LayerOp>
LayerOpPlanner::EmbeddingBackward() const
{
    std::vector<LayerOp> ops;
    EnterBlock("embedding_grad", ops);
    ops.push_back(MemoryBound("embedding_backward", 2 * m_tokens * m_model.hidden * kElementBytes));
    return ops;
}

std::vector<LayerOp>
LayerOpPlanner::OutputForward() const
{
    const uint64_t vocab = m_model.vocab / m_layout.tp;
    const uint64_t shard = m_layout.sequenceParallel ? m_layout.tp : 1;
    std::vector<LayerOp> ops;
    ops.push_back(MemoryBound("final_norm", 2 * m_tokens / shard * m_model.hidden * kElementBytes));
    EnterBlock("output", ops);
    ops.push_back(Gemm("lm_head", m_tokens, vocab, m_model.hidden));
    // Vocabulary-parallel cross entropy: the logits are read in fp32 (softmax) and the tp
    // ranks agree on each token's max, sum and target logit (3 floats per token).
    ops.push_back(MemoryBound("cross_entropy", 2 * m_tokens * vocab * 4));
    if (m_layout.tp > 1)
    {
        ops.push_back(
            TensorCollective("tp_allreduce_loss", ChakraProtoMsg::ALL_REDUCE, m_tokens * 3 * 4));
    }
    return ops;
}

std::vector<LayerOp>
LayerOpPlanner::OutputBackward() const
{
    const uint64_t vocab = m_model.vocab / m_layout.tp;
    const uint64_t shard = m_layout.sequenceParallel ? m_layout.tp : 1;
    std::vector<LayerOp> ops;
    ops.push_back(MemoryBound("cross_entropy_backward", 2 * m_tokens * vocab * 4));
    ops.push_back(GemmBackward("lm_head", m_tokens, vocab, m_model.hidden));
    LeaveBlock("output_grad", ops);
    ops.push_back(
        MemoryBound("final_norm_backward", 4 * m_tokens / shard * m_model.hidden * kElementBytes));
    return ops;
}

} // namespace ns3
