/*
 * chakra_scale's library part: the .et files of a recorded data-parallel (or DP x TP) job
 * written again as the same job with more data-parallel replicas.
 */
#ifndef CHAKRA_TRACE_SCALER_H
#define CHAKRA_TRACE_SCALER_H

#include "ns3/process-group-spec.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup chakra-workload
 * \brief What an all-to-all over a widened (data-parallel) group sends in the scaled job.
 */
enum class AllToAllScaling
{
    /**
     * Same bytes per rank: comm_size (this rank's input) is kept, so each of the now more
     * peers gets less. This is a DLRM embedding all-to-all when the table count is fixed and
     * the global batch grows with the ranks: each rank then owns T/M tables and sends their
     * pooled vectors for the whole global batch (M x b samples), T x b x d in all whatever M
     * is (model-parallel embeddings, data-parallel MLPs: Mudigere et al., "Software-Hardware
     * Co-design for Fast and Scalable Training of Deep Learning Recommendation Models",
     * ISCA'22, section 3).
     */
    PerRank,
    /**
     * Same bytes per peer: comm_size grows with the group (x its new size over its recorded
     * size, M/N for the whole job), so every pair keeps its bytes: embeddings that grow with
     * the ranks (T/N tables per rank at any M).
     */
    PerPeer,
};

/** \ingroup chakra-workload \return the names of AllToAllScaling: "per-rank", "per-peer" */
const std::vector<std::string>& AllToAllScalingNames();

/**
 * \ingroup chakra-workload
 * \param text a name of AllToAllScalingNames()
 * \return the scaling
 * \throws std::invalid_argument naming --alltoall-scaling, the valid names and a near one
 */
AllToAllScaling ParseAllToAllScaling(const std::string& text);

/** \ingroup chakra-workload \brief What chakra_scale is asked to do. */
struct TraceScaleSpec
{
    std::string input;                                  //!< recorded prefix: <input>.<r>.et
    std::string output;                                 //!< scaled prefix: <output>.<r>.et
    uint32_t ranks{0};                                  //!< M, the scaled job's rank count
    bool dpOnly{false};                                 //!< every group is data-parallel
    AllToAllScaling allToAll{AllToAllScaling::PerRank}; //!< all-to-all over widened groups
};

/** \ingroup chakra-workload \brief What ScaleTraceSet wrote. */
struct TraceScaleResult
{
    uint32_t recordedRanks{0};              //!< N
    uint32_t replicaSize{1};                //!< R, ranks of one recorded replica
    std::vector<std::string> replicaGroups; //!< recorded groups kept per copy (TP/PP)
    std::vector<ProcessGroupSpec> groups;   //!< the scaled job's groups (process_group:init)
    std::vector<std::string> files;         //!< the files written, by rank
};

/**
 * \ingroup chakra-workload
 * \brief Writes the recorded job <input>.<r>.et (r < N) as an M-rank job <output>.<r>.et.
 *
 * Output rank r' is recorded rank r' mod N, copy r' / N (in rotation): every node as recorded
 * (compute durations as measured, ids and dependencies unchanged), and the metadata's rank and
 * world_size set to r' and M. Process groups are classified and renamed as
 * ScaledProcessGroups says; each process_group:init node lists the scaled job's groups (a job
 * without one keeps none: its "" world is every rank). On a communication node: pg_name is the
 * copy's name; point-to-point peers (comm_src, comm_dst) and the root_rank of a group kept
 * per copy are moved into the copy (+ copy x N); comm_size is kept: it is this rank's input
 * buffer, which the model's code sizes (a gradient bucket, a tensor), not the group, and NCCL
 * takes it as a per-rank count (all-reduce and broadcast: count; all-gather: sendcount;
 * reduce-scatter: an input of nranks x recvcount;
 * https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/api/colls.html),
 * except for an all-to-all over a widened group with AllToAllScaling::PerPeer.
 *
 * Every file is checked (groups, peers) before any is written, and the set appears only when
 * complete (TraceSetOutput): an error leaves nothing at the output prefix.
 * \param spec the request
 * \return what was written
 * \throws std::invalid_argument naming the flag (--ranks, --input) for a request that makes
 *         no sense; TraceError naming the file for a missing or damaged trace
 */
TraceScaleResult ScaleTraceSet(const TraceScaleSpec& spec);

} // namespace ns3

#endif // CHAKRA_TRACE_SCALER_H
