#include "llm-step.h"

#include "layer-op-planner.h"

#include "ns3/gradient-bucketer.h"
#include "ns3/pipeline-layers.h"
#include "ns3/pipeline-schedule.h"
#include "ns3/rank-roles.h"
#include "ns3/rank-trace-builder.h"
#include "ns3/workload-spec-check.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>

namespace ns3
{

namespace
{

/** Bytes of a 16-bit weight or gradient. */
constexpr uint64_t kWeightBytes = 2;
/** Context- and tensor-parallel ring exchanges use tags from here up (pipeline tags stay below). */
constexpr int32_t kExchangeTagBase = 1 << 30;
/**
 * Bytes an Adam step moves per parameter of the rank's shard: it reads and writes the fp32
 * master weight and both moments (3 x 4 x 2) and reads the 16-bit gradient and writes the
 * 16-bit weight (2 + 2).
 */
constexpr uint64_t kAdamBytesPerParameter = 28;
/**
 * Bytes of memory traffic per parameter when autocast casts an fp32 weight for a 16-bit GEMM
 * (read 4, write 2), and again when its gradient comes back through the cast (read 2, write 4).
 */
constexpr uint64_t kCastBytesPerParameter = 6;
/** Keys of the embedding's and the output layer's weight all-gathers (layers use their index). */
constexpr uint32_t kEmbeddingKey = 0xfffffffe;
constexpr uint32_t kOutputKey = 0xffffffff;

/** Everything every rank's writer shares. */
struct LlmJob
{
    LlmStepPlan plan;                                      //!< the step
    TransformerModel model;                                //!< the model
    std::unique_ptr<ComputeTimeModel> gpu;                 //!< the GPU's time model
    std::unique_ptr<ComputeProfile> profile;               //!< measured times, or null
    std::unique_ptr<LayerOpPlanner> planner;               //!< the per-layer ops
    std::unique_ptr<MegatronRankOrder> order;              //!< ranks and groups
    std::vector<std::vector<uint32_t>> tensorGroups;       //!< the order's groups, once
    std::vector<std::vector<uint32_t>> contextGroups;      //!< the order's groups, once
    std::vector<std::vector<uint32_t>> dataContextGroups;  //!< the order's groups, once
    std::vector<std::vector<uint32_t>> pipelineGroups;     //!< the order's groups, once
    std::vector<std::vector<uint32_t>> expertGroups;       //!< the order's groups, once
    std::vector<std::vector<uint32_t>> expertDataGroups;   //!< the order's groups, once
    std::vector<std::vector<uint32_t>> expertTensorGroups; //!< the order's groups, once
};

/**
 * Writes one rank's step: its pipeline schedule of passes, each a chain of ops on the compute
 * stream with the blocking collectives between them (and the non-blocking ones beside it, joined
 * by the ops that need them), and the gradient and parameter collectives on the gradient
 * streams.
 */
class LlmRankWriter
{
  public:
    /**
     * \param job the job
     * \param rank this rank
     * \param trace its trace
     */
    LlmRankWriter(const LlmJob& job, uint32_t rank, RankTraceBuilder& trace);
    /** Writes the whole step. */
    void Write();

  private:
    /** Declares the process groups this rank is in. */
    void DeclareGroups();
    /** One forward or backward pass of one micro-batch through one chunk of layers. */
    void Pass(const PipelineStep& step);
    /** Runs the layers [first, first + count) forward, or backward (last first). */
    void Layers(uint32_t first, uint32_t count, const PipelineStep& step, bool lastBackward);
    /** Appends \p ops after the chain's last node. */
    void Append(const std::vector<LayerOp>& ops);
    /** \return a compute node of \p micros (rounded to whole microseconds) after \p deps */
    uint64_t TimedNode(const std::string& name, double micros, const std::vector<uint64_t>& deps);
    /** Appends a compute node after the chain's last node. */
    void Compute(const std::string& name, double micros);
    /**
     * The pipeline receive that opens a pass (\p send false) or the send that closes it, if a
     * neighbouring virtual stage feeds it or takes its output.
     */
    void PipelineMessage(const PipelineStep& step, bool send);
    /** \return true if the layers' weights are all-gathered before this pass */
    bool GathersWeights(const PipelineStep& step) const;
    /**
     * Issues the all-gather of \p layer's weight shards, waiting for nothing but what the
     * chain waits for now (so that it runs while the layer before computes).
     */
    void GatherLayer(uint32_t layer);
    /** Issues the all-gather of \p bytes of weights under \p key, named \p name. */
    void GatherWeights(uint32_t key, const std::string& name, uint64_t bytes);
    /** Makes the chain wait for the all-gather of \p key (a layer), if one was issued. */
    void WaitForLayer(uint32_t key);
    /** Runs \p ops of the embedding or output layer (\p key), its weights gathered first. */
    void EdgeLayer(uint32_t key, const PipelineStep& step, const std::vector<LayerOp>& ops);
    /** Queues \p bytes of gradients (dense or expert) ready after the chain's last node. */
    void ReduceGradients(uint64_t denseBytes, uint64_t expertBytes);
    /** Gradient reduction, the tied embedding's all-reduce, the optimizer step. */
    void Finish();
    /** \return the tag of a pipeline message to (chunk) of a micro-batch */
    int32_t PipelineTag(uint32_t microBatch, uint32_t chunk, bool forward) const;
    /** \return the rank at pipeline stage \p stage with this rank's other coordinates */
    uint32_t AtStage(uint32_t stage) const;
    /**
     * \return the rank \p offset places along this rank's context-parallel ring (\p context)
     *         or tensor-parallel ring
     */
    uint32_t AlongRing(bool context, int32_t offset) const;
    /** \return this rank's 16-bit weight bytes of layer \p layer: (dense, routed experts) */
    std::pair<uint64_t, uint64_t> WeightBytes(uint32_t layer) const;
    /** \return this rank's 16-bit bytes of the embedding (and of an untied output layer) */
    uint64_t EmbeddingBytes() const;
    /** \return 16-bit gradient bytes \p bytes as the reductions carry them (--grad-reduce-dtype) */
    uint64_t ReducedBytes(uint64_t bytes) const;
    /**
     * A compute node for autocast's casts of the gathered fp32 weights of layer \p key (or the
     * output layer); nothing for 16-bit ones (then nothing is worked out: every pass asks)
     */
    void CastWeights(uint32_t key, const PipelineStep& step);
    /** \return the name of this rank's group of a kind */
    std::string Group(const std::string& kind) const;

    const LlmJob& m_job;                         //!< the job
    const ParallelLayout& m_layout;              //!< its layout
    uint32_t m_rank;                             //!< this rank
    RankCoordinates m_at;                        //!< its coordinates
    RankTraceBuilder& m_trace;                   //!< its trace
    std::vector<uint64_t> m_chain;               //!< what the next compute waits for
    int32_t m_exchangeTag{kExchangeTagBase};     //!< next cp or tp exchange's tag
    std::map<uint32_t, uint64_t> m_gathered;     //!< layer -> its weight all-gather
    std::unique_ptr<GradientBucketer> m_dense;   //!< dense gradient buckets
    std::unique_ptr<GradientBucketer> m_experts; //!< expert gradient buckets
    uint64_t m_denseBytes{0};                    //!< dense weight bytes on this rank
    uint64_t m_expertBytes{0};                   //!< expert weight bytes on this rank
    bool m_sharded;                              //!< ZeRO >= 1 or FSDP: sharded optimizer
};

LlmRankWriter::LlmRankWriter(const LlmJob& job, uint32_t rank, RankTraceBuilder& trace)
    : m_job(job),
      m_layout(job.plan.layout),
      m_rank(rank),
      m_at(job.order->Coordinates(rank)),
      m_trace(trace),
      m_sharded(job.plan.layout.zero >= 1 || job.plan.layout.fsdp)
{
    // A sharded optimizer keeps 1/n of the reduced gradients: a reduce-scatter; DDP an
    // all-reduce.
    const auto type = m_sharded ? ChakraProtoMsg::REDUCE_SCATTER : ChakraProtoMsg::ALL_REDUCE;
    const std::string what = m_sharded ? "reducescatter" : "allreduce";
    m_dense = std::make_unique<GradientBucketer>(m_trace,
                                                 Group("dpcp"),
                                                 "dp_" + what + "_bucket_",
                                                 job.plan.bucketBytes,
                                                 0,
                                                 RankTraceBuilder::GradientStream,
                                                 type);
    m_experts = std::make_unique<GradientBucketer>(m_trace,
                                                   Group("edp"),
                                                   "edp_" + what + "_bucket_",
                                                   job.plan.bucketBytes,
                                                   0,
                                                   RankTraceBuilder::ExpertGradientStream,
                                                   type);
}

std::string
LlmRankWriter::Group(const std::string& kind) const
{
    const MegatronRankOrder& order = *m_job.order;
    const uint32_t index = kind == "tp"     ? order.TensorGroupOf(m_rank)
                           : kind == "cp"   ? order.ContextGroupOf(m_rank)
                           : kind == "dpcp" ? order.DataContextGroupOf(m_rank)
                           : kind == "ep"   ? order.ExpertGroupOf(m_rank)
                           : kind == "edp"  ? order.ExpertDataGroupOf(m_rank)
                           : kind == "etp"  ? order.ExpertTensorGroupOf(m_rank)
                                            : order.PipelineGroupOf(m_rank); // "pp", "emb"
    return kind + std::to_string(index);
}

void
LlmRankWriter::DeclareGroups()
{
    const MegatronRankOrder& order = *m_job.order;
    std::vector<ProcessGroupSpec> groups;
    auto add = [&](const std::string& kind,
                   uint32_t index,
                   const std::vector<std::vector<uint32_t>>& all) {
        const auto& ranks = all.at(index);
        if (ranks.size() > 1)
        {
            groups.push_back({Group(kind), ranks, static_cast<uint32_t>(ranks.size())});
        }
    };
    add("tp", order.TensorGroupOf(m_rank), m_job.tensorGroups);
    add("cp", order.ContextGroupOf(m_rank), m_job.contextGroups);
    add("dpcp", order.DataContextGroupOf(m_rank), m_job.dataContextGroups);
    add("ep", order.ExpertGroupOf(m_rank), m_job.expertGroups);
    add("edp", order.ExpertDataGroupOf(m_rank), m_job.expertDataGroups);
    if (m_layout.RoutesOwnShard())
    {
        // Only then do the experts have tensor-parallel collectives of their own (etp > 1;
        // a group of one rank is not declared).
        add("etp", order.ExpertTensorGroupOf(m_rank), m_job.expertTensorGroups);
    }
    add("pp", order.PipelineGroupOf(m_rank), m_job.pipelineGroups);
    const auto& pipeline = m_job.pipelineGroups.at(order.PipelineGroupOf(m_rank));
    if (m_job.model.tiedEmbeddings && m_layout.pp > 1 &&
        (m_rank == pipeline.front() || m_rank == pipeline.back()))
    {
        groups.push_back({Group("emb"), {pipeline.front(), pipeline.back()}, 2});
    }
    if (!groups.empty())
    {
        m_trace.ProcessGroups(groups);
    }
}

int32_t
LlmRankWriter::PipelineTag(uint32_t microBatch, uint32_t chunk, bool forward) const
{
    return static_cast<int32_t>((uint64_t{microBatch} * m_layout.vp + chunk) * 2 +
                                (forward ? 0 : 1));
}

uint32_t
LlmRankWriter::AtStage(uint32_t stage) const
{
    RankCoordinates there = m_at;
    there.pp = stage;
    return m_job.order->Rank(there);
}

uint32_t
LlmRankWriter::AlongRing(bool context, int32_t offset) const
{
    RankCoordinates there = m_at;
    uint32_t& at = context ? there.cp : there.tp;
    const int32_t size = static_cast<int32_t>(context ? m_layout.cp : m_layout.tp);
    at = static_cast<uint32_t>(((static_cast<int32_t>(at) + offset) % size + size) % size);
    return m_job.order->Rank(there);
}

std::pair<uint64_t, uint64_t>
LlmRankWriter::WeightBytes(uint32_t layer) const
{
    const GpuLayerParameters share = LayerParametersOnGpu(m_job.model, m_layout, layer);
    return {share.dense * kWeightBytes, share.experts * kWeightBytes};
}

uint64_t
LlmRankWriter::EmbeddingBytes() const
{
    return EmbeddingParametersOnGpu(m_job.model, m_layout) * kWeightBytes;
}

uint64_t
LlmRankWriter::ReducedBytes(uint64_t bytes) const
{
    return bytes / kWeightBytes * m_layout.gradReduceBytes;
}

uint64_t
LlmRankWriter::TimedNode(const std::string& name, double micros, const std::vector<uint64_t>& deps)
{
    // duration_micros is whole microseconds: rounding to the nearest keeps the sum unbiased.
    const auto duration = static_cast<uint64_t>(std::llround(std::max(0.0, micros)));
    return m_trace.Compute(name, duration, deps);
}

void
LlmRankWriter::Compute(const std::string& name, double micros)
{
    m_chain = {TimedNode(name, micros, m_chain)};
}

void
LlmRankWriter::Append(const std::vector<LayerOp>& ops)
{
    // The non-blocking ops of this list (collectives and exchanges beside the GEMMs): what a
    // joining op waits for, and whether one did.
    struct Pending
    {
        const std::string* name;
        uint64_t result;
        bool joined;
    };

    std::vector<Pending> pending;
    for (const LayerOp& op : ops)
    {
        std::vector<uint64_t> deps = m_chain;
        for (const std::string& name : op.joins)
        {
            auto it = std::find_if(pending.begin(), pending.end(), [&](const Pending& p) {
                return *p.name == name;
            });
            if (it == pending.end())
            {
                throw std::logic_error("llm: op " + op.name + " joins " + name +
                                       ", which is not an earlier non-blocking op of its pass");
            }
            deps.push_back(it->result);
            it->joined = true;
        }
        uint64_t result = 0;
        bool exchange = false;
        switch (op.kind)
        {
        case LayerOpKind::Compute:
            result = TimedNode(op.name, op.micros, deps);
            break;
        case LayerOpKind::TensorCollective:
        case LayerOpKind::ExpertAllToAll:
        case LayerOpKind::ExpertTensorCollective: {
            const std::string kind = op.kind == LayerOpKind::TensorCollective ? "tp"
                                     : op.kind == LayerOpKind::ExpertAllToAll ? "ep"
                                                                              : "etp";
            result = m_trace.Collective(op.name, op.collective, op.bytes, deps, Group(kind));
            break;
        }
        case LayerOpKind::ContextKvExchange:
        case LayerOpKind::TensorRingExchange: {
            // Every rank of a ring runs the same exchanges in the same order, so the k-th
            // exchange's tag matches on both sides. The send holds nothing up; what needs the
            // chunk waits for the receive.
            const bool context = op.kind == LayerOpKind::ContextKvExchange;
            const int32_t ahead = context ? 1 : static_cast<int32_t>(op.offset);
            if (m_exchangeTag == std::numeric_limits<int32_t>::max())
            {
                throw std::invalid_argument("llm: the step has more ring exchanges than tags "
                                            "(2^30); fewer micro-batches or layers per stage");
            }
            const int32_t tag = m_exchangeTag++;
            const std::string group = Group(context ? "cp" : "tp");
            m_trace.Send(op.name, AlongRing(context, ahead), tag, op.bytes, deps, group);
            result = m_trace.Recv(op.name, AlongRing(context, -ahead), tag, op.bytes, deps, group);
            exchange = true;
            break;
        }
        }
        if (!op.blocking)
        {
            pending.push_back({&op.name, result, false});
        }
        else if (exchange)
        {
            // The next op waits for the chunk received as well as for what came before.
            deps.push_back(result);
            m_chain = std::move(deps);
        }
        else
        {
            m_chain = {result};
        }
    }
    // Whatever no op joined, the next pass waits for: nothing of a layer is left dangling.
    for (const Pending& p : pending)
    {
        if (!p.joined)
        {
            m_chain.push_back(p.result);
        }
    }
}

void
LlmRankWriter::PipelineMessage(const PipelineStep& step, bool send)
{
    // A forward pass receives the previous virtual stage's activation and sends its own to the
    // next one; a backward pass moves the gradients the other way.
    const bool towardsNext = step.forward == send;
    const auto peer = towardsNext
                          ? NextVirtualStage(m_layout.pp, m_layout.vp, m_at.pp, step.chunk)
                          : PreviousVirtualStage(m_layout.pp, m_layout.vp, m_at.pp, step.chunk);
    if (!peer)
    {
        return;
    }
    const std::string name = std::string(send ? "send_" : "recv_") +
                             (step.forward ? "activation" : "gradient") + "_mb" +
                             std::to_string(step.microBatch) + "_c" + std::to_string(step.chunk);
    // The tag names the receiving chunk, so that both sides compute the same one.
    const int32_t tag =
        PipelineTag(step.microBatch, send ? peer->second : step.chunk, step.forward);
    const uint64_t bytes = m_job.planner->StageActivationBytes();
    if (send)
    {
        m_trace.Send(name, AtStage(peer->first), tag, bytes, m_chain, Group("pp"));
    }
    else
    {
        m_chain.push_back(
            m_trace.Recv(name, AtStage(peer->first), tag, bytes, m_chain, Group("pp")));
    }
}

bool
LlmRankWriter::GathersWeights(const PipelineStep& step) const
{
    if (m_layout.dp * m_layout.cp == 1)
    {
        return false;
    }
    // ZeRO-3 / FSDP gather a layer's weights for every pass through it (they are freed after
    // use); a sharded optimizer (ZeRO 1/2, Megatron's distributed optimizer) gathers the
    // updated weights once, before the step's first forward through the layer.
    if (m_layout.zero >= 3 || m_layout.fsdp)
    {
        return true;
    }
    return m_sharded && step.forward && step.microBatch == 0;
}

void
LlmRankWriter::GatherLayer(uint32_t layer)
{
    GatherWeights(layer, "weight_allgather_l" + std::to_string(layer), WeightBytes(layer).first);
}

void
LlmRankWriter::GatherWeights(uint32_t key, const std::string& name, uint64_t bytes)
{
    const uint64_t shards = uint64_t{m_layout.dp} * m_layout.cp;
    // Each rank contributes its shard of the weights, 16-bit or (--fsdp-param-dtype) fp32.
    const uint64_t gathered = bytes / kWeightBytes * m_layout.gatherBytes;
    m_gathered[key] = m_trace.Collective(name,
                                         ChakraProtoMsg::ALL_GATHER,
                                         std::max<uint64_t>(1, gathered / shards),
                                         m_chain,
                                         Group("dpcp"),
                                         RankTraceBuilder::GradientStream);
}

void
LlmRankWriter::EdgeLayer(uint32_t key, const PipelineStep& step, const std::vector<LayerOp>& ops)
{
    if (GathersWeights(step))
    {
        GatherWeights(key,
                      key == kEmbeddingKey ? "weight_allgather_embedding"
                                           : "weight_allgather_output",
                      EmbeddingBytes());
        WaitForLayer(key);
        // The output layer is a GEMM (autocast casts its weights); the embedding a lookup.
        if (key == kOutputKey)
        {
            CastWeights(kOutputKey, step);
        }
    }
    Append(ops);
}

void
LlmRankWriter::CastWeights(uint32_t key, const PipelineStep& step)
{
    if (m_layout.gatherBytes <= kWeightBytes)
    {
        return;
    }
    const std::string name =
        key == kOutputKey ? "weight_cast_output" : "weight_cast_l" + std::to_string(key);
    // fp32 weights gathered: autocast casts them for the forward's GEMMs, and the gradients
    // come back through the cast in the backward (which a full recompute precedes by another
    // forward cast).
    const uint64_t casts = step.forward ? 1 : (m_layout.recompute == Recompute::Full ? 2 : 1);
    const uint64_t bytes = key == kOutputKey ? EmbeddingBytes() : WeightBytes(key).first;
    const uint64_t parameters = bytes / kWeightBytes;
    Compute(name, m_job.gpu->MemoryBoundMicros(parameters * casts * kCastBytesPerParameter));
}

void
LlmRankWriter::WaitForLayer(uint32_t layer)
{
    auto it = m_gathered.find(layer);
    if (it != m_gathered.end())
    {
        m_chain.push_back(it->second);
        m_gathered.erase(it);
    }
}

void
LlmRankWriter::ReduceGradients(uint64_t denseBytes, uint64_t expertBytes)
{
    m_denseBytes += denseBytes;
    m_expertBytes += expertBytes;
    const uint64_t ready = m_chain.front();
    // The reductions carry --grad-reduce-dtype elements (the counts above are 16-bit bytes).
    if (m_layout.dp * m_layout.cp > 1 && denseBytes > 0)
    {
        m_dense->Add(ReducedBytes(denseBytes), ready);
    }
    const auto& expertData = m_job.expertDataGroups.at(m_job.order->ExpertDataGroupOf(m_rank));
    if (expertData.size() > 1 && expertBytes > 0)
    {
        m_experts->Add(ReducedBytes(expertBytes), ready);
    }
}

void
LlmRankWriter::Layers(uint32_t first, uint32_t count, const PipelineStep& step, bool lastBackward)
{
    const bool gather = GathersWeights(step);
    for (uint32_t i = 0; i < count; ++i)
    {
        const uint32_t layer = step.forward ? first + i : first + count - 1 - i;
        if (gather)
        {
            // One layer ahead: the next layer's weights arrive while this one computes.
            if (i == 0)
            {
                GatherLayer(layer);
            }
            if (i + 1 < count)
            {
                GatherLayer(step.forward ? layer + 1 : layer - 1);
            }
            WaitForLayer(layer);
            CastWeights(layer, step);
        }
        Append(step.forward ? m_job.planner->Forward(layer) : m_job.planner->Backward(layer));
        if (lastBackward)
        {
            const auto [dense, experts] = WeightBytes(layer);
            ReduceGradients(dense, experts);
        }
    }
}

void
LlmRankWriter::Pass(const PipelineStep& step)
{
    const uint32_t virtualStage = step.chunk * m_layout.pp + m_at.pp;
    const uint32_t lastVirtual = m_layout.pp * m_layout.vp - 1;
    const LayerRange layers = ChunkLayers(m_layout, m_job.model.layers, m_at.pp, step.chunk);
    // The last micro-batch's backward leaves the accumulated gradients ready to reduce.
    const bool lastBackward = !step.forward && step.microBatch + 1 == m_job.plan.microBatches;
    const LayerOpPlanner& planner = *m_job.planner;
    // The output layer's weights: its own (untied), or the embedding's copy on the last stage
    // when the first stage is another GPU (Megatron's embedding group).
    const bool outputWeights = !m_job.model.tiedEmbeddings || m_layout.pp > 1;
    PipelineMessage(step, false);
    if (step.forward && virtualStage == 0)
    {
        EdgeLayer(kEmbeddingKey, step, planner.EmbeddingForward());
    }
    if (!step.forward && virtualStage == lastVirtual)
    {
        EdgeLayer(kOutputKey, step, planner.OutputBackward());
        if (lastBackward && outputWeights)
        {
            ReduceGradients(EmbeddingBytes(), 0);
        }
    }
    Layers(layers.first, layers.count, step, lastBackward);
    if (step.forward && virtualStage == lastVirtual)
    {
        EdgeLayer(kOutputKey, step, planner.OutputForward());
    }
    if (!step.forward && virtualStage == 0)
    {
        EdgeLayer(kEmbeddingKey, step, planner.EmbeddingBackward());
        if (lastBackward)
        {
            ReduceGradients(EmbeddingBytes(), 0);
        }
    }
    PipelineMessage(step, true);
}

void
LlmRankWriter::Finish()
{
    m_dense->Flush();
    m_experts->Flush();
    for (const auto& last : {m_dense->GetLast(), m_experts->GetLast()})
    {
        if (last)
        {
            m_chain.push_back(*last);
        }
    }
    const auto& pipeline = m_job.pipelineGroups.at(m_job.order->PipelineGroupOf(m_rank));
    if (m_job.model.tiedEmbeddings && m_layout.pp > 1 &&
        (m_rank == pipeline.front() || m_rank == pipeline.back()))
    {
        // The first and last stages each hold the tied embedding; their gradients are summed.
        m_chain = {m_trace.Collective("embedding_allreduce",
                                      ChakraProtoMsg::ALL_REDUCE,
                                      ReducedBytes(EmbeddingBytes()),
                                      m_chain,
                                      Group("emb"),
                                      RankTraceBuilder::GradientStream)};
    }
    // Adam over this rank's shard of the weights.
    const auto& expertData = m_job.expertDataGroups.at(m_job.order->ExpertDataGroupOf(m_rank));
    const uint64_t denseShards = m_sharded ? uint64_t{m_layout.dp} * m_layout.cp : 1;
    const uint64_t expertShards = m_sharded ? expertData.size() : 1;
    const uint64_t parameters =
        (m_denseBytes / denseShards + m_expertBytes / expertShards) / kWeightBytes;
    Compute("optimizer_step", m_job.gpu->MemoryBoundMicros(parameters * kAdamBytesPerParameter));
}

void
LlmRankWriter::Write()
{
    DeclareGroups();
    for (const PipelineStep& step :
         PipelineOrder(m_layout.pp, m_at.pp, m_layout.vp, m_job.plan.microBatches))
    {
        Pass(step);
    }
    Finish();
}

/** \return the job's shared parts, checked */
std::unique_ptr<LlmJob>
MakeJob(const LlmStepSpec& spec)
{
    auto job = std::make_unique<LlmJob>();
    job->plan = PlanLlmStep(spec);
    job->model = spec.model;
    const ParallelLayout& layout = job->plan.layout;
    job->gpu = std::make_unique<ComputeTimeModel>(LookUpGpuCompute(spec.gpu),
                                                  spec.precision,
                                                  spec.efficiencyScale);
    if (!spec.profile.empty())
    {
        job->profile = std::make_unique<ComputeProfile>(ComputeProfile::Read(spec.profile));
    }
    job->planner = std::make_unique<LayerOpPlanner>(spec.model,
                                                    layout,
                                                    *job->gpu,
                                                    spec.causal,
                                                    job->profile.get());
    job->order = std::make_unique<MegatronRankOrder>(layout);
    job->tensorGroups = job->order->TensorGroups();
    job->contextGroups = job->order->ContextGroups();
    job->dataContextGroups = job->order->DataContextGroups();
    job->pipelineGroups = job->order->PipelineGroups();
    job->expertGroups = job->order->ExpertGroups();
    job->expertDataGroups = job->order->ExpertDataGroups();
    job->expertTensorGroups = job->order->ExpertTensorGroups();
    return job;
}

/** A process group kind a rank declares, and how the rank order numbers its groups. */
struct RoleGroupKind
{
    std::string name;                                          //!< "tp", "cp", ...
    uint32_t (MegatronRankOrder::*groupOf)(uint32_t) const;    //!< a rank's group index
    const std::vector<std::vector<uint32_t>> LlmJob::*members; //!< every group's ranks
};

/**
 * \return the kinds of group the step's ranks declare (LlmRankWriter::DeclareGroups): a dense
 *         step's, and an MoE step's expert-parallel and expert tensor-parallel groups
 */
std::vector<RoleGroupKind>
RoleGroupKinds(const ParallelLayout& layout)
{
    std::vector<RoleGroupKind> kinds = {
        {"tp", &MegatronRankOrder::TensorGroupOf, &LlmJob::tensorGroups},
        {"cp", &MegatronRankOrder::ContextGroupOf, &LlmJob::contextGroups},
        {"dpcp", &MegatronRankOrder::DataContextGroupOf, &LlmJob::dataContextGroups},
        {"edp", &MegatronRankOrder::ExpertDataGroupOf, &LlmJob::expertDataGroups},
        {"pp", &MegatronRankOrder::PipelineGroupOf, &LlmJob::pipelineGroups},
        {"emb", &MegatronRankOrder::PipelineGroupOf, &LlmJob::pipelineGroups}};
    if (layout.ep > 1)
    {
        kinds.push_back({"ep", &MegatronRankOrder::ExpertGroupOf, &LlmJob::expertGroups});
    }
    if (layout.RoutesOwnShard() && layout.ExpertTensorParallel() > 1)
    {
        kinds.push_back(
            {"etp", &MegatronRankOrder::ExpertTensorGroupOf, &LlmJob::expertTensorGroups});
    }
    return kinds;
}

/**
 * The digits a stage's ranks rotate, as the places where they start: the index of a rank in
 * its stage, i = tp + TP x (cp + CP x dp) in the dense grid and etp + ETP x (ep + EP x edp) in
 * the expert grid, cut wherever a coordinate of either grid starts (1, TP, TP x CP, ETP,
 * ETP x EP, the stage's size). When each cut divides the next, every digit lies inside one
 * coordinate of both grids, so rotating it maps each group of either grid onto a group of its
 * kind; when they do not nest (TP 2 with ETP 1 and EP 3), no rotation keeps both grids.
 * \return the cuts, ascending, from 1 to the stage's size; empty if they do not nest
 * \param why set to the reason when they do not nest
 */
std::vector<uint32_t>
RoleCuts(const ParallelLayout& layout, std::string& why)
{
    const uint32_t stage = layout.tp * layout.cp * layout.dp;
    const uint32_t etp = layout.ExpertTensorParallel();
    std::vector<uint32_t> cuts = {1, layout.tp, layout.tp * layout.cp, etp, etp * layout.ep, stage};
    std::sort(cuts.begin(), cuts.end());
    cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
    for (std::size_t i = 1; i < cuts.size(); ++i)
    {
        if (cuts[i] % cuts[i - 1] != 0)
        {
            why = "the expert grid (etp " + std::to_string(etp) + " x ep " +
                  std::to_string(layout.ep) + ") and the dense one (tp " +
                  std::to_string(layout.tp) + " x cp " + std::to_string(layout.cp) + " x dp " +
                  std::to_string(layout.dp) +
                  ") do not nest, so no rotation of a stage's ranks keeps both (" +
                  std::to_string(cuts[i - 1]) + " does not divide " + std::to_string(cuts[i]) + ")";
            return {};
        }
    }
    return cuts;
}

/**
 * \return the digit of stride \p stride and period \p period with the group strides Megatron's
 *         numbering gives it: how far rank 0's group index of each kind moves when the digit
 *         goes from 0 to 1 (CheckRoleSymmetry then checks that every rank follows it)
 */
RankDigit
RoleDigit(const LlmJob& job, uint32_t stride, uint32_t period)
{
    auto strides = std::make_shared<std::map<std::string, uint32_t>>();
    for (const RoleGroupKind& kind : RoleGroupKinds(job.plan.layout))
    {
        const uint32_t from = (job.order.get()->*kind.groupOf)(0);
        const uint32_t to = (job.order.get()->*kind.groupOf)(stride);
        if (to > from)
        {
            (*strides)[kind.name] = to - from;
        }
    }
    return RankDigit{stride, period, strides};
}

/**
 * Checks that every rank runs its role's program with ids shifted: the shift maps the role to
 * the rank, and each of the role's groups to the rank's group of the same kind, name (by the
 * digits' group strides) and member list alike. What makes a role's trace the trace of every
 * rank that reads it (the node-by-node equality is rank-roles-test's).
 */
void
CheckRoleSymmetry(const LlmJob& job, const RankRoles& roles)
{
    const MegatronRankOrder& order = *job.order;
    const std::vector<RoleGroupKind> kinds = RoleGroupKinds(job.plan.layout); // once, not per rank
    for (uint32_t rank = 0; rank < roles.ranks; ++rank)
    {
        const uint32_t role = roles.RoleOf(rank);
        if (roles.roles.count(role) == 0)
        {
            throw std::logic_error("llm: rank " + std::to_string(rank) + "'s role " +
                                   std::to_string(role) + " has no trace");
        }
        if (role == rank)
        {
            continue;
        }
        const RankShift shift = roles.ShiftOf(rank);
        for (const RoleGroupKind& group : kinds)
        {
            const std::string& kind = group.name;
            const uint32_t from = (order.*group.groupOf)(role);
            const uint32_t to = (order.*group.groupOf)(rank);
            std::vector<uint32_t> mapped;
            for (uint32_t member : (job.*group.members).at(from))
            {
                mapped.push_back(shift.Map(member));
            }
            std::sort(mapped.begin(), mapped.end());
            if (shift.Map(role) != rank ||
                shift.Name(kind + std::to_string(from)) != kind + std::to_string(to) ||
                mapped != (job.*group.members).at(to))
            {
                throw std::logic_error("llm: rank " + std::to_string(rank) + " does not run rank " +
                                       std::to_string(role) + "'s program shifted: its " + kind +
                                       " group differs");
            }
        }
    }
}

} // namespace

LlmStepPlan
PlanLlmStep(const LlmStepSpec& spec)
{
    const std::string family = "llm";
    CheckModel(spec.model, "--model");
    // The GPU, its precision, the efficiency scale and the profile are checked here too, so
    // that every mistake is found before the first file.
    const GpuComputeSpec gpu = LookUpGpuCompute(spec.gpu);
    ComputeTimeModel(gpu, spec.precision, spec.efficiencyScale);
    if (!spec.profile.empty())
    {
        ComputeProfile::Read(spec.profile);
    }
    LlmStepPlan plan;
    plan.layout = ResolveLayout(
        spec.layout,
        {spec.model.layers, spec.model.heads, spec.model.kvHeads, spec.model.experts});
    const ParallelLayout& layout = plan.layout;
    workload::Require(!((layout.zero >= 3 || layout.fsdp) && spec.model.experts > 0),
                      family,
                      "--zero 3 / --fsdp with a mixture-of-experts model is not modelled");
    plan.ranks = layout.gpus;
    plan.microBatches = layout.MicroBatches();
    // Pipeline tags count (micro-batch, chunk, direction) below the context-parallel tags.
    workload::Require(uint64_t{plan.microBatches} * layout.vp * 2 < uint64_t{kExchangeTagBase},
                      family,
                      "too many micro-batches (" + std::to_string(plan.microBatches) + ")");
    plan.tokens =
        workload::CheckedProduct(layout.globalBatch, layout.seq, family, "tokens per step");
    plan.modelFlops = TrainingFlopsPerToken(spec.model, layout.seq, spec.causal) *
                      static_cast<double>(plan.tokens);
    const uint64_t dataParallel = uint64_t{layout.dp} * layout.cp;
    plan.bucketBytes = spec.bucketBytes > 0 ? spec.bucketBytes
                                            : std::max<uint64_t>(40000000, 1000000 * dataParallel) *
                                                  layout.gradReduceBytes;
    plan.memory = PeakGpuMemory(spec.model, layout);
    plan.gpuMemoryBytes = gpu.memoryGiB * 1024 * 1024 * 1024;
    plan.memoryOversubscribed = plan.memory.Total() > plan.gpuMemoryBytes;
    char capacity[32];
    std::snprintf(capacity, sizeof capacity, "%.0f", gpu.memoryGiB);
    workload::Require(!plan.memoryOversubscribed || spec.allowOversubscribedMemory,
                      family,
                      "the layout does not fit the " + gpu.model + "'s " + capacity +
                          " GiB: it needs " + DescribeGpuMemory(plan.memory) +
                          "; a larger --tp, --pp or --ep, --zero 1-3, --recompute full or a "
                          "smaller --mbs would fit it (or --allow-oversubscribed-memory writes "
                          "it anyway)");
    return plan;
}

std::vector<std::string>
WriteLlmStep(const std::string& prefix, const LlmStepSpec& spec)
{
    const std::unique_ptr<LlmJob> job = MakeJob(spec);
    const GpuComputeSpec& gpu = job->gpu->Gpu();
    const double peakTflops = spec.precision == Precision::Fp8 ? gpu.fp8Tflops : gpu.bf16Tflops;
    const TrainingStepFacts facts{job->plan.modelFlops, job->plan.tokens, peakTflops * 1e12};
    std::vector<std::string> files;
    for (uint32_t rank = 0; rank < job->plan.ranks; ++rank)
    {
        files.push_back(RankTraceBuilder::Path(prefix, rank));
        RankTraceBuilder trace(files.back(), job->plan.ranks, facts);
        LlmRankWriter(*job, rank, trace).Write();
        trace.Commit();
    }
    return files;
}

} // namespace ns3

namespace ns3
{

std::string
LlmStepRolesUnavailable(const LlmStepSpec& spec)
{
    std::string why;
    RoleCuts(ResolveLayout(
                 spec.layout,
                 {spec.model.layers, spec.model.heads, spec.model.kvHeads, spec.model.experts}),
             why);
    return why;
}

std::vector<uint32_t>
LlmStepRoleRanks(const ParallelLayout& layout)
{
    std::vector<uint32_t> ranks;
    const uint32_t stage = layout.tp * layout.cp * layout.dp; // ranks of one stage
    for (uint32_t rank = 0; rank < layout.gpus; rank += stage)
    {
        ranks.push_back(rank);
    }
    return ranks;
}

std::vector<std::string>
WriteLlmStepRoles(const std::string& prefix, const LlmStepSpec& spec, const std::string& namePrefix)
{
    const std::string why = LlmStepRolesUnavailable(spec);
    if (!why.empty())
    {
        throw std::invalid_argument("llm: no traces per role: " + why);
    }
    const std::unique_ptr<LlmJob> job = MakeJob(spec);
    const ParallelLayout& layout = job->plan.layout;
    const GpuComputeSpec& gpu = job->gpu->Gpu();
    const double peakTflops = spec.precision == Precision::Fp8 ? gpu.fp8Tflops : gpu.bf16Tflops;
    const TrainingStepFacts facts{job->plan.modelFlops, job->plan.tokens, peakTflops * 1e12};
    // Megatron's order: rank = tp + TP x (cp + CP x (dp + DP x pp)). The ranks of one pipeline
    // stage run one program (the layers, sizes and schedule do not depend on the tensor,
    // context, data or expert-parallel index; every expert-parallel rank holds as many experts
    // and routes as many tokens): a role per stage, its ranks rotating the digits of RoleCuts,
    // each group's number moving as Megatron numbers it (RoleDigit).
    RankRoles roles;
    roles.ranks = job->plan.ranks;
    std::string notNested;
    const std::vector<uint32_t> cuts = RoleCuts(layout, notNested);
    for (std::size_t i = 1; i < cuts.size(); ++i)
    {
        roles.digits.push_back(RoleDigit(*job, cuts[i - 1], cuts[i] / cuts[i - 1]));
    }
    std::string names = namePrefix;
    if (names.empty())
    {
        const auto slash = prefix.find_last_of('/');
        names = slash == std::string::npos ? prefix : prefix.substr(slash + 1);
    }
    for (uint32_t rank : LlmStepRoleRanks(layout))
    {
        roles.roles[rank] = names + ".role." + std::to_string(rank) + ".et";
    }
    CheckRoleSymmetry(*job, roles);
    std::vector<std::string> files;
    for (const auto& [rank, name] : roles.roles)
    {
        files.push_back(prefix + ".role." + std::to_string(rank) + ".et");
        RankTraceBuilder trace(files.back(), job->plan.ranks, facts);
        LlmRankWriter(*job, rank, trace).Write();
        trace.Commit();
    }
    files.push_back(RankRolesPath(prefix));
    WriteRankRoles(files.back(), roles);
    return files;
}

} // namespace ns3
