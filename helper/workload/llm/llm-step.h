/*
 * One training step of a decoder-only transformer, written as per-rank Chakra traces:
 * chakra_generator --workload llm.
 */
#ifndef CHAKRA_LLM_STEP_H
#define CHAKRA_LLM_STEP_H

#include "ns3/gpu-compute-model.h"
#include "ns3/gpu-memory-estimate.h"
#include "ns3/parallel-layout.h"
#include "ns3/transformer-model.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup chakra-workload
 * \brief What to write: the model, how it is split over GPUs, and the GPU that times its ops.
 */
struct LlmStepSpec
{
    TransformerModel model;               //!< the model
    ParallelLayout layout;                //!< as given (ResolveLayout checks it)
    std::string gpu{"H100"};              //!< GPU model (GpuComputeNames)
    Precision precision{Precision::Bf16}; //!< GEMM precision
    /** Multiplies the GEMM and attention efficiency (kInSituEfficiencyScale: calibrated) */
    double efficiencyScale{kInSituEfficiencyScale};
    bool causal{true};   //!< causal attention (decoder training)
    std::string profile; //!< measured op times (ComputeProfile CSV), "" none
    /**
     * Gradient bucket, bytes; 0: Megatron-Core's default, max(40M, 1M x data-parallel size)
     * parameters (DistributedDataParallelConfig.bucket_size), at the gradient reduction's
     * element size each (ParallelLayout::gradReduceBytes).
     */
    uint64_t bucketBytes{0};
    /**
     * Writes a layout whose estimated memory exceeds the GPU's (PlanLlmStep refuses it
     * otherwise); the plan says so (LlmStepPlan::memoryOversubscribed).
     */
    bool allowOversubscribedMemory{false};
};

/**
 * \ingroup chakra-workload
 * \brief What a step is, worked out before any file is written.
 */
struct LlmStepPlan
{
    ParallelLayout layout;            //!< resolved (dp derived)
    uint32_t ranks{0};                //!< GPUs
    uint32_t microBatches{0};         //!< per pipeline, per step
    double modelFlops{0};             //!< model FLOPs of the step (MFU convention)
    uint64_t tokens{0};               //!< tokens of the step
    uint64_t bucketBytes{0};          //!< gradient bucket
    GpuMemoryEstimate memory;         //!< the GPU that needs the most (PeakGpuMemory)
    double gpuMemoryBytes{0};         //!< what the GPU holds
    bool memoryOversubscribed{false}; //!< memory exceeds gpuMemoryBytes (allowed by the spec)
};

/**
 * Checks \p spec (model, layout, GPU, profile, memory) and works out the step.
 * \throws std::invalid_argument naming the flag or file at fault, or that the layout does not
 *         fit the GPU's memory (unless allowOversubscribedMemory)
 */
LlmStepPlan PlanLlmStep(const LlmStepSpec& spec);

/**
 * Writes one training step as <prefix>.<rank>.et for every GPU (doc/workloads.md, "LLM
 * training steps"): per rank, its pipeline schedule of micro-batch passes through its layers,
 * with the tensor-, context-, expert- and pipeline-parallel communication of each pass, and
 * the data-parallel (or ZeRO / FSDP) gradient and parameter collectives around them.
 * \param prefix trace prefix
 * \param spec the step
 * \return the files written
 * \throws std::invalid_argument (bad spec, before any file), TraceError (writing)
 */
std::vector<std::string> WriteLlmStep(const std::string& prefix, const LlmStepSpec& spec);

/**
 * \return "" if the step can be written per role (WriteLlmStepRoles), else why not: an MoE
 *         step's expert grid (etp x ep) must nest with the dense one (tp x cp x dp), so that
 *         one rotation of a stage's ranks maps the groups of both (TP 2 with ETP 1 and EP 3
 *         does not)
 * \param spec the step
 * \throws std::invalid_argument if the layout is not valid (ResolveLayout)
 */
std::string LlmStepRolesUnavailable(const LlmStepSpec& spec);

/**
 * \return the ranks whose traces WriteLlmStepRoles writes: the first rank of each pipeline
 *         stage (tensor, context and data-parallel index 0), ascending
 * \param layout a resolved layout
 */
std::vector<uint32_t> LlmStepRoleRanks(const ParallelLayout& layout);

/**
 * Writes one training step per role (doc/workloads.md, "Traces per role"): the trace of the
 * first rank of every pipeline stage (LlmStepRoleRanks) as <prefix>.role.<rank>.et, and the
 * manifest <prefix>.roles.json (RankRoles) by which rank r reads its stage's trace with its rank
 * ids rotated digit by digit: the rank's index in its stage cut wherever a coordinate of
 * Megatron's dense grid (tp, cp, dp) or expert grid (etp, ep, edp) starts (a dense step: the
 * tensor-parallel index, stride 1 period tp; the context-parallel one, tp, cp; the
 * data-parallel one, tp x cp, dp). The group names' numbers move as Megatron's numbering does
 * (each digit's group strides), so a report names every group as the per-rank traces do.
 * \param prefix trace prefix (where the files are written)
 * \param spec the step (LlmStepRolesUnavailable must be "")
 * \param namePrefix the prefix the manifest names the role files with, relative to its
 *        directory; "" for the last component of \p prefix
 * \return the files written (role traces, then the manifest)
 * \throws std::invalid_argument (bad spec, or no roles), TraceError (writing)
 */
std::vector<std::string> WriteLlmStepRoles(const std::string& prefix,
                                           const LlmStepSpec& spec,
                                           const std::string& namePrefix = "");

} // namespace ns3

#endif // CHAKRA_LLM_STEP_H
