/*
 * WorkloadGenerator: synthetic per-rank Chakra traces, so that demos, tests and labs need no
 * recorded data.
 */
#ifndef CHAKRA_WORKLOAD_GENERATOR_H
#define CHAKRA_WORKLOAD_GENERATOR_H

#include "et_def.pb.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup chakra-workload
 * \brief One collective (or a compute + collective loop) on every rank.
 */
struct CollectiveBenchSpec
{
    ChakraProtoMsg::CollectiveCommType type{ChakraProtoMsg::ALL_REDUCE};
    uint64_t bytes{1u << 20};  //!< comm_size (per-rank input, see CollectiveRequest)
    uint32_t ranks{8};         //!< number of ranks
    uint32_t iterations{1};    //!< collectives per rank, one after the other
    uint64_t computeMicros{0}; //!< a compute node before each collective (0: none)
    uint32_t root{0};          //!< root rank (broadcast, reduce, gather, scatter)
};

/**
 * \ingroup chakra-workload
 * \brief One data-parallel training step: forward and backward compute per layer, gradients
 * all-reduced in buckets during the backward pass (as PyTorch DDP does), then the optimizer.
 *
 * Ranks: every rank a replica; process group "0" = every rank. With one rank, no all-reduce
 * is written (a collective over a group of one).
 */
struct DataParallelSpec
{
    uint32_t ranks{16};
    uint32_t layers{24};
    uint64_t parameterBytesPerLayer{32u << 20}; //!< gradient bytes of one layer
    uint64_t forwardMicros{400};                //!< per layer
    uint64_t backwardMicros{800};               //!< per layer
    uint64_t bucketBytes{25u << 20};            //!< DDP bucket (0: one all-reduce per layer)
    uint64_t firstBucketBytes{0};               //!< DDP's first bucket (0: bucketBytes)
    uint64_t optimizerMicros{300};
};

/**
 * \ingroup chakra-workload
 * \brief One Megatron-style tensor-parallel training step, optionally with data-parallel
 * replicas.
 *
 * Ranks: tp x dp; rank = d * tp + t (tensor-parallel ranks are neighbours, so that they share
 * a host). Process groups "tp<d>" = {d*tp, ..., d*tp + tp - 1} for d < dp and "dp<t>" =
 * {t, tp + t, ..., (dp - 1) * tp + t} for t < tp. Per layer and rank: forward attention,
 * all-reduce, MLP, all-reduce; backward (last layer first) MLP, all-reduce, attention,
 * all-reduce; the all-reduces carry activationBytes on "tp<d>" and sit on the critical path.
 * Each layer's gradient shard is all-reduced over "dp<t>" in buckets during backward; then the
 * optimizer. Collectives over a group of one (tp = 1 or dp = 1) are not written.
 */
struct TensorParallelSpec
{
    uint32_t tp{4};                             //!< tensor-parallel group size
    uint32_t dp{1};                             //!< data-parallel replicas
    uint32_t layers{24};                        //!< transformer layers
    uint64_t activationBytes{16u << 20};        //!< comm_size of each tensor-parallel all-reduce
    uint64_t forwardMicros{400};                //!< per layer: half attention, half MLP
    uint64_t backwardMicros{800};               //!< per layer: half MLP, half attention
    uint64_t parameterBytesPerLayer{32u << 20}; //!< gradient bytes of one layer's shard on a rank
    uint64_t bucketBytes{25u << 20};            //!< DDP bucket (0: one all-reduce per layer)
    uint64_t firstBucketBytes{0};               //!< DDP's first bucket (0: bucketBytes)
    uint64_t optimizerMicros{300};
    /**
     * A last all-reduce of this many bytes on the tensor-parallel group, issued from the host
     * thread with no kernel (as real traces show a loss or gradient-norm reduction), after every
     * GPU call in program order but depending only on a CPU op at the step's start; 0: none.
     */
    uint64_t hostAllReduceBytes{0};
    /**
     * That CPU op lasts hostLeadMicros x (t + 1) on tensor-parallel rank t, so the host call is
     * ready at a different point of the GPU work on every rank (it runs ahead of the GPU by a
     * different amount, as on real ranks).
     */
    uint64_t hostLeadMicros{0};
};

/**
 * \ingroup chakra-workload
 * \brief One pipeline-parallel training step with the 1F1B schedule, optionally with
 * data-parallel replicas of each stage.
 *
 * Ranks: stages x dp; rank = s * dp + d. Process groups "pp<d>" = {d, dp + d, ...} (one
 * pipeline) and "dp<s>" = {s*dp, ..., s*dp + dp - 1} (the replicas of stage s). Stage s runs
 * layers / stages layers. Its schedule: w = min(stages - s - 1, microbatches) warm-up forwards,
 * then microbatches - w pairs (forward, backward), then w cool-down backwards. A forward of
 * micro-batch i on stage s > 0 waits for the activation from stage s - 1 (COMM_RECV, tag 2i);
 * on stage s < stages - 1 it sends its activation to stage s + 1 (COMM_SEND, tag 2i). A backward
 * sends the input gradient back (tag 2i + 1) the same way. After the last backward the stage's
 * gradients are all-reduced over "dp<s>" in buckets (dp > 1), then the optimizer.
 */
struct PipelineParallelSpec
{
    uint32_t stages{4};                         //!< pipeline stages
    uint32_t dp{1};                             //!< data-parallel replicas
    uint32_t microbatches{8};                   //!< micro-batches per step
    uint32_t layers{24};                        //!< layers of the whole model
    uint64_t activationBytes{16u << 20};        //!< one micro-batch's activation (and gradient)
    uint64_t forwardMicros{400};                //!< per layer and micro-batch
    uint64_t backwardMicros{800};               //!< per layer and micro-batch
    uint64_t parameterBytesPerLayer{32u << 20}; //!< gradient bytes of one layer
    uint64_t bucketBytes{25u << 20};            //!< DDP bucket (0: one all-reduce per layer)
    uint64_t firstBucketBytes{0};               //!< DDP's first bucket (0: bucketBytes)
    uint64_t optimizerMicros{300};
};

/**
 * \ingroup chakra-workload
 * \brief One training step of a mixture-of-experts model (every layer an MoE layer) with
 * expert parallelism.
 *
 * Ranks: ep x dp (ep = 0: every rank in one expert-parallel group). Process groups "ep<d>" =
 * {d*ep, ..., d*ep + ep - 1}, "dp0" = every rank (the dense part is replicated everywhere) and
 * "edp<e>" = {e, ep + e, ...} (the replicas of expert-parallel rank e's experts). Per layer:
 * dense forward (attention + gate), all-to-all dispatch, expertsPerRank expert computes,
 * all-to-all combine; backward mirrors it: all-to-all (combine's gradient), expert backwards,
 * all-to-all (dispatch's gradient), dense backward. Every all-to-all has comm_size
 * tokens x topK x hidden x elementBytes (a rank's whole input, bytes / ep to each peer).
 * Dense gradients are all-reduced over "dp0" in buckets, expert gradients over "edp<e>" (when
 * dp > 1) in buckets of their own. Collectives over a group of one are not written.
 */
struct MoeSpec
{
    uint32_t ranks{8};                          //!< ranks
    uint32_t ep{0};                             //!< expert-parallel group size (0: ranks)
    uint32_t layers{24};                        //!< MoE layers
    uint32_t expertsPerRank{1};                 //!< local experts
    uint64_t tokens{4096};                      //!< tokens per rank and step
    uint64_t hidden{4096};                      //!< hidden size (elements)
    uint32_t topK{1};                           //!< experts per token
    uint64_t elementBytes{2};                   //!< bytes per element (2: bf16)
    uint64_t forwardMicros{400};                //!< dense forward per layer
    uint64_t backwardMicros{800};               //!< dense backward per layer
    uint64_t expertForwardMicros{200};          //!< per local expert and layer
    uint64_t expertBackwardMicros{400};         //!< per local expert and layer
    uint64_t parameterBytesPerLayer{32u << 20}; //!< dense gradient bytes of one layer
    uint64_t expertParameterBytes{32u << 20};   //!< gradient bytes of one expert
    uint64_t bucketBytes{25u << 20};            //!< DDP bucket (0: one all-reduce per layer)
    uint64_t firstBucketBytes{0};               //!< DDP's first bucket (0: bucketBytes)
    uint64_t optimizerMicros{300};
};

/**
 * \ingroup chakra-workload
 * \brief Writes synthetic workloads as <prefix>.<rank>.et files.
 *
 * Nodes are written by RankTraceBuilder (see there for the attributes and the streams); each
 * rank's file is written atomically. Communication overlaps compute exactly where the
 * dependencies allow it. Each workload family lives in its own source file:
 * workload-generator.cc (collective benchmark, data parallel, parsing),
 * tensor-parallel-workload.cc, pipeline-parallel-workload.cc, moe-workload.cc.
 */
class WorkloadGenerator
{
  public:
    /** Writes a collective microbenchmark. \return the files written */
    static std::vector<std::string> WriteCollectiveBench(const std::string& prefix,
                                                         const CollectiveBenchSpec& spec);

    /**
     * Writes a point-to-point microbenchmark as nccl-tests' sendrecv runs it: every rank r
     * sends spec.bytes to rank (r + 1) mod n and receives as many from rank (r - 1) mod n, both
     * posted at once (spec.type and spec.root are not used; spec.iterations rounds one after
     * the other).
     * eturn the files written
     * 	hrows std::invalid_argument for fewer than two ranks
     */
    static std::vector<std::string> WriteSendRecvBench(const std::string& prefix,
                                                       const CollectiveBenchSpec& spec);

    /**
     * Writes a data-parallel training step.
     * \return the files written
     * \throws std::invalid_argument for a spec that makes no sense (nothing written)
     */
    static std::vector<std::string> WriteDataParallelStep(const std::string& prefix,
                                                          const DataParallelSpec& spec);

    /**
     * Writes a tensor-parallel (x data-parallel) training step.
     * \return the files written
     * \throws std::invalid_argument for a spec that makes no sense (nothing written)
     */
    static std::vector<std::string> WriteTensorParallelStep(const std::string& prefix,
                                                            const TensorParallelSpec& spec);

    /**
     * Writes a pipeline-parallel (x data-parallel) training step, 1F1B schedule.
     * \return the files written
     * \throws std::invalid_argument for a spec that makes no sense (nothing written)
     */
    static std::vector<std::string> WritePipelineParallelStep(const std::string& prefix,
                                                              const PipelineParallelSpec& spec);

    /**
     * Writes a mixture-of-experts training step.
     * \return the files written
     * \throws std::invalid_argument for a spec that makes no sense (nothing written)
     */
    static std::vector<std::string> WriteMoeStep(const std::string& prefix, const MoeSpec& spec);

    /**
     * \param spec an MoE step
     * \return the comm_size of its all-to-alls: tokens x topK x hidden x elementBytes
     * \throws std::invalid_argument if that overflows
     */
    static uint64_t MoeAllToAllBytes(const MoeSpec& spec);

    /**
     * \param name "all_reduce", "all-reduce", "allreduce", "ALL_REDUCE", ... (any case, - or _)
     * \param[out] type the collective
     * \return false for an unknown name
     */
    static bool ParseCollective(const std::string& name, ChakraProtoMsg::CollectiveCommType& type);

    /**
     * \param text "1048576", "64KiB", "1MiB", "4GiB", "1MB", "10GB" (KiB = 1024, KB = 1000)
     * \param[out] bytes the size
     * \return false if the text is not a size
     */
    static bool ParseBytes(const std::string& text, uint64_t& bytes);
};

} // namespace ns3

#endif // CHAKRA_WORKLOAD_GENERATOR_H
