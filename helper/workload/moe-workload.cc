/*
 * WorkloadGenerator::WriteMoeStep: mixture-of-experts layers with expert parallelism (all-to-all
 * dispatch and combine), optionally x data parallelism. See MoeSpec for the shape of the trace.
 */
#include "gradient-bucketer.h"
#include "rank-trace-builder.h"
#include "workload-generator.h"
#include "workload-spec-check.h"

namespace ns3
{

namespace
{

/** The process groups: expert-parallel groups, the whole job, each expert's replicas. */
std::vector<ProcessGroupSpec>
MoeGroups(uint32_t ranks, uint32_t ep, uint32_t dp)
{
    std::vector<ProcessGroupSpec> groups;
    for (uint32_t d = 0; d < dp; ++d)
    {
        groups.push_back({"ep" + std::to_string(d), workload::RankRange(d * ep, ep, 1), ep});
    }
    groups.push_back({"dp0", workload::RankRange(0, ranks, 1), ranks});
    for (uint32_t e = 0; e < ep; ++e)
    {
        groups.push_back({"edp" + std::to_string(e), workload::RankRange(e, dp, ep), dp});
    }
    return groups;
}

/** Writes one rank's step: the layers forward, then backward with the gradient all-reduces. */
class MoeRankWriter
{
  public:
    /** The sizes WriteMoeStep checked, shared by every rank. */
    struct Shape
    {
        uint32_t ep{1};              //!< expert-parallel group size
        uint32_t dp{1};              //!< replicas of each expert
        uint64_t allToAllBytes{0};   //!< one dispatch or combine
        uint64_t expertGradients{0}; //!< a layer's local experts' gradient bytes
    };

    MoeRankWriter(RankTraceBuilder& trace, const MoeSpec& spec, const Shape& shape, uint32_t rank)
        : m_trace(trace),
          m_spec(spec),
          m_shape(shape),
          m_rank(rank),
          m_epGroup("ep" + std::to_string(rank / shape.ep))
    {
    }

    void Write()
    {
        for (uint32_t layer = 0; layer < m_spec.layers; ++layer)
        {
            const std::string l = std::to_string(layer);
            m_previous = {m_trace.Compute("dense_forward_" + l, m_spec.forwardMicros, m_previous)};
            AllToAll("alltoall_dispatch_forward_" + l);
            Experts("expert_forward_" + l, m_spec.expertForwardMicros);
            AllToAll("alltoall_combine_forward_" + l);
        }
        WriteBackward();
    }

  private:
    /** The layers backward, each layer's gradients bucketed as they exist; the optimizer. */
    void WriteBackward()
    {
        GradientBucketer denseBuckets(m_trace,
                                      "dp0",
                                      "dp_allreduce_bucket_",
                                      m_spec.bucketBytes,
                                      m_spec.firstBucketBytes,
                                      RankTraceBuilder::GradientStream);
        GradientBucketer expertBuckets(m_trace,
                                       "edp" + std::to_string(m_rank % m_shape.ep),
                                       "edp_allreduce_bucket_",
                                       m_spec.bucketBytes,
                                       m_spec.firstBucketBytes,
                                       RankTraceBuilder::ExpertGradientStream);
        for (uint32_t i = 0; i < m_spec.layers; ++i)
        {
            const std::string l = std::to_string(m_spec.layers - 1 - i);
            AllToAll("alltoall_combine_backward_" + l);
            const uint64_t expert = Experts("expert_backward_" + l, m_spec.expertBackwardMicros);
            if (m_shape.dp > 1)
            {
                expertBuckets.Add(m_shape.expertGradients, expert);
            }
            AllToAll("alltoall_dispatch_backward_" + l);
            m_previous = {
                m_trace.Compute("dense_backward_" + l, m_spec.backwardMicros, m_previous)};
            if (m_spec.ranks > 1)
            {
                denseBuckets.Add(m_spec.parameterBytesPerLayer, m_previous.back());
            }
        }
        denseBuckets.Flush();
        expertBuckets.Flush();
        for (const auto& last : {denseBuckets.GetLast(), expertBuckets.GetLast()})
        {
            if (last)
            {
                m_previous.push_back(*last);
            }
        }
        m_trace.Compute("optimizer_step", m_spec.optimizerMicros, m_previous);
    }

    /** An all-to-all over the expert-parallel group (none in a group of one). */
    void AllToAll(const std::string& name)
    {
        if (m_shape.ep > 1)
        {
            m_previous = {m_trace.Collective(name,
                                             ChakraProtoMsg::ALL_TO_ALL,
                                             m_shape.allToAllBytes,
                                             m_previous,
                                             m_epGroup)};
        }
    }

    /** The local experts run one after the other. \return the last one's node */
    uint64_t Experts(const std::string& name, uint64_t micros)
    {
        for (uint32_t e = 0; e < m_spec.expertsPerRank; ++e)
        {
            m_previous = {
                m_trace.Compute(name + "_expert" + std::to_string(e), micros, m_previous)};
        }
        return m_previous.back();
    }

    RankTraceBuilder& m_trace;
    const MoeSpec& m_spec;
    const Shape& m_shape;
    uint32_t m_rank;
    std::string m_epGroup;            //!< the rank's expert-parallel group
    std::vector<uint64_t> m_previous; //!< what the next node depends on
};

} // namespace

uint64_t
WorkloadGenerator::MoeAllToAllBytes(const MoeSpec& spec)
{
    const std::string family = "moe";
    const std::string what = "all-to-all bytes = tokens x top-k x hidden x element bytes";
    uint64_t bytes = workload::CheckedProduct(spec.tokens, spec.topK, family, what);
    bytes = workload::CheckedProduct(bytes, spec.hidden, family, what);
    return workload::CheckedProduct(bytes, spec.elementBytes, family, what);
}

std::vector<std::string>
WorkloadGenerator::WriteMoeStep(const std::string& prefix, const MoeSpec& spec)
{
    const std::string family = "moe";
    workload::JobRanks(spec.ranks, 1, family, "ranks");
    MoeRankWriter::Shape shape;
    shape.ep = spec.ep == 0 ? spec.ranks : spec.ep;
    const uint32_t ep = shape.ep;
    workload::Require(spec.ranks % ep == 0,
                      family,
                      "ranks (" + std::to_string(spec.ranks) +
                          ") must be a multiple of the expert-parallel size ep (" +
                          std::to_string(ep) + ")");
    shape.dp = spec.ranks / ep;
    workload::Require(spec.layers >= 1, family, "layers must be at least 1");
    workload::Require(spec.expertsPerRank >= 1, family, "experts-per-rank must be at least 1");
    workload::Require(spec.topK >= 1, family, "top-k must be at least 1");
    workload::Require(spec.topK <= static_cast<uint64_t>(ep) * spec.expertsPerRank,
                      family,
                      "top-k (" + std::to_string(spec.topK) + ") is more than the " +
                          std::to_string(static_cast<uint64_t>(ep) * spec.expertsPerRank) +
                          " experts of an expert-parallel group");
    shape.allToAllBytes = MoeAllToAllBytes(spec);
    shape.expertGradients =
        workload::CheckedProduct(spec.expertsPerRank,
                                 spec.expertParameterBytes,
                                 family,
                                 "expert gradient bytes = experts-per-rank x expert bytes");

    const std::vector<ProcessGroupSpec> groups = MoeGroups(spec.ranks, ep, shape.dp);
    std::vector<std::string> files;
    for (uint32_t rank = 0; rank < spec.ranks; ++rank)
    {
        files.push_back(RankTraceBuilder::Path(prefix, rank));
        RankTraceBuilder trace(files.back(), spec.ranks);
        trace.ProcessGroups(groups);
        MoeRankWriter(trace, spec, shape, rank).Write();
        trace.Commit();
    }
    return files;
}

} // namespace ns3
