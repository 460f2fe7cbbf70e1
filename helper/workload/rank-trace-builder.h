/*
 * RankTraceBuilder: writes one rank's synthetic Chakra trace node by node, with the attributes
 * the simulator reads. Shared by every workload of the WorkloadGenerator.
 */
#ifndef CHAKRA_RANK_TRACE_BUILDER_H
#define CHAKRA_RANK_TRACE_BUILDER_H

#include "et_def.pb.h"

#include "ns3/communicator.h"
#include "ns3/et-writer.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup chakra-workload
 * \brief What one training step does, as a whole job: recorded in every rank's metadata
 * (model_flops_per_step, tokens_per_step) so that a report can give throughput and MFU.
 */
struct TrainingStepFacts
{
    double modelFlops{0};   //!< model FLOPs of the step (the MFU convention, no recompute)
    uint64_t tokens{0};     //!< tokens trained in the step (global batch x sequence)
    double gpuPeakFlops{0}; //!< peak FLOP/s of one GPU at the step's precision (for MFU)
};

/**
 * \ingroup chakra-workload
 * \brief Builds one rank's trace with ascending node ids.
 *
 * Every node carries the attributes the simulator reads, with the oneof types the reference
 * writers use: is_cpu_op (bool_val), stream (int64_val), comm_type, comm_size, root_rank
 * (int64_val), pg_name (string_val), comm_src, comm_dst, comm_tag (int32_val). Dependencies are
 * data dependencies. The file appears under its name only on Commit().
 *
 * Stream conventions of the generated workloads: GPU compute on stream 0 (ComputeStream), the
 * collectives on the critical path (tensor-parallel all-reduce, MoE all-to-all, and the
 * data-parallel workload's gradient buckets) on stream 1 (CommStream), data-parallel gradient
 * buckets of the hybrid workloads on stream 2 (GradientStream) and expert gradients on stream 3
 * (ExpertGradientStream), so that a big gradient bucket never holds up a critical collective.
 * Point-to-point sends and receives carry no stream: they are posted as isend / irecv are, and
 * occupy no stream while they wait.
 */
class RankTraceBuilder
{
  public:
    static constexpr int64_t ComputeStream = 0;        //!< GPU compute
    static constexpr int64_t CommStream = 1;           //!< collectives on the critical path
    static constexpr int64_t GradientStream = 2;       //!< gradient buckets (hybrid workloads)
    static constexpr int64_t ExpertGradientStream = 3; //!< expert gradient buckets (MoE)
    static constexpr int64_t HostThread = 1;           //!< host thread of CPU ops

    /**
     * Creates the trace file (written under a temporary name until Commit).
     * \param path the .et file
     * \param worldSize the job's rank count, recorded in the metadata (world_size) so that a
     *        trace set with files of another job beside it is an error, not a bigger job
     *        (FindRankTraces); 0: not recorded
     * \throws TraceError if it cannot be created
     */
    explicit RankTraceBuilder(const std::string& path, uint32_t worldSize = 0);
    /**
     * Creates the trace file of one rank of a training step.
     * \param path the .et file
     * \param worldSize the job's rank count (see above)
     * \param facts the step's model FLOPs and tokens, recorded in the metadata
     * \throws TraceError if it cannot be created
     */
    RankTraceBuilder(const std::string& path, uint32_t worldSize, const TrainingStepFacts& facts);

    /**
     * A GPU compute node.
     * \param name node name
     * \param micros duration_micros
     * \param deps data dependencies
     * \param stream GPU stream
     * \return its id
     */
    uint64_t Compute(const std::string& name,
                     uint64_t micros,
                     const std::vector<uint64_t>& deps,
                     int64_t stream = ComputeStream);

    /**
     * A CPU op (host compute) on a host thread.
     * \param name node name
     * \param micros duration_micros
     * \param deps data dependencies
     * \param tid host thread
     * \return its id
     */
    uint64_t CpuOp(const std::string& name,
                   uint64_t micros,
                   const std::vector<uint64_t>& deps,
                   int64_t tid = HostThread);

    /**
     * A collective issued by a host thread with no GPU kernel (is_cpu_op, tid), as traces
     * show small calls (loss or gradient-norm reductions) and gloo calls.
     * \param name node name
     * \param type the collective
     * \param bytes comm_size
     * \param deps data dependencies
     * \param pg process group name
     * \param tid host thread it occupies
     * \return its id
     */
    uint64_t HostCollective(const std::string& name,
                            ChakraProtoMsg::CollectiveCommType type,
                            uint64_t bytes,
                            const std::vector<uint64_t>& deps,
                            const std::string& pg,
                            int64_t tid = HostThread);

    /**
     * A collective (COMM_COLL_NODE) on a GPU stream.
     * \param name node name
     * \param type the collective
     * \param bytes comm_size (per-rank input, see CollectiveRequest)
     * \param deps data dependencies
     * \param pg process group name
     * \param stream GPU stream it occupies
     * \param root root_rank (global rank) of rooted collectives; -1: none
     * \return its id
     * \throws std::invalid_argument if bytes does not fit comm_size (int64)
     */
    uint64_t Collective(const std::string& name,
                        ChakraProtoMsg::CollectiveCommType type,
                        uint64_t bytes,
                        const std::vector<uint64_t>& deps,
                        const std::string& pg,
                        int64_t stream = CommStream,
                        int64_t root = -1);

    /**
     * A COMM_SEND_NODE to a global rank (no stream: posted like an isend).
     * \param name node name
     * \param dst comm_dst, a global rank
     * \param tag comm_tag; the receiver names the same tag
     * \param bytes comm_size
     * \param deps data dependencies
     * \param pg process group name, informative (the report shows it); "" for none
     * \return its id
     */
    uint64_t Send(const std::string& name,
                  uint32_t dst,
                  int32_t tag,
                  uint64_t bytes,
                  const std::vector<uint64_t>& deps,
                  const std::string& pg = "");

    /**
     * A COMM_RECV_NODE from a global rank (no stream: posted like an irecv).
     * \param name node name
     * \param src comm_src, a global rank
     * \param tag comm_tag
     * \param bytes comm_size
     * \param deps data dependencies
     * \param pg process group name, informative; "" for none
     * \return its id
     */
    uint64_t Recv(const std::string& name,
                  uint32_t src,
                  int32_t tag,
                  uint64_t bytes,
                  const std::vector<uint64_t>& deps,
                  const std::string& pg = "");

    /**
     * A METADATA node "process_group:init" whose inputs.values is the JSON list of
     * {"pg_name", "ranks", "group_size"} the simulator reads.
     * \param groups the groups (name and ranks; size is taken from the ranks)
     * \return its id
     */
    uint64_t ProcessGroups(const std::vector<ProcessGroupSpec>& groups);

    /** Finishes the file and moves it into place. \throws TraceError on failure */
    void Commit();

    /**
     * \param prefix trace prefix
     * \param rank a rank
     * \return "<prefix>.<rank>.et"
     */
    static std::string Path(const std::string& prefix, uint32_t rank);

  private:
    /** \return a node with the next id, a name, a type and data dependencies */
    ChakraProtoMsg::Node Base(const std::string& name,
                              ChakraProtoMsg::NodeType type,
                              const std::vector<uint64_t>& deps) const;
    /** A point-to-point node (send or receive). \return its id */
    uint64_t PointToPoint(const std::string& name,
                          bool send,
                          uint32_t peer,
                          int32_t tag,
                          uint64_t bytes,
                          const std::vector<uint64_t>& deps,
                          const std::string& pg);
    /** Writes a node. \return its id */
    uint64_t Write(const ChakraProtoMsg::Node& node);

    EtWriter m_writer;    //!< the output
    uint64_t m_nextId{0}; //!< id of the next node
};

} // namespace ns3

#endif // CHAKRA_RANK_TRACE_BUILDER_H
