/*
 * PAT (Parallel Aggregated Trees) in the NCCL model (issue 27): NCCL's all-gather and
 * reduce-scatter for one GPU a node (NCCL 2.23 on), as one rank's ops per channel. See
 * doc/collectives.md, "PAT".
 */
#ifndef CHAKRA_PAT_SCHEDULE_H
#define CHAKRA_PAT_SCHEDULE_H

#include "collective-schedule.h"

#include <cstdint>
#include <memory>
#include <vector>

namespace ns3
{

/**
 * The shape of one channel's PAT pass, as NCCL's PatAGAlgorithm / PatRSAlgorithm constructors
 * size it (src/include/collectives.h): a pass moves one slice of every rank's share; the
 * offsets s = 1 .. n-1 (the data of rank me + s, or for reduce-scatter the partial sum bound
 * for it) travel binomial routes, one hop per set bit of s, the lowest bit last (all-gather);
 * a message carries up to postFreq offsets of one dimension (hop distance 2^d).
 */
struct PatShape
{
    uint32_t ranks{2};     //!< n
    uint32_t pow2{2};      //!< the smallest power of two >= n
    uint32_t aggFactor{1}; //!< offsets per dimension group (aggDelta x aggFactor = pow2)
    uint32_t aggDelta{2};  //!< the stride between a group's offsets
    uint32_t postFreq{1};  //!< offsets per message

    /**
     * NCCL's sizing: aggFactor doubles (aggDelta halves) while two of the channel's slices
     * aggregated that far still fit in a step (chunk / (channelBytes x aggFactor) >= 2) and
     * aggFactor < n / 2; postFreq is that aggFactor; then aggFactor doubles once per halving
     * of NCCL_STEPS (8: three times at most) while it stays under n / 2, the steps in flight.
     * \param ranks n (>= 2)
     * \param chunkBytes NCCL's chunk (a step's payload, > 0)
     * \param channelBytes one rank's share on this channel (> 0)
     * \throws std::invalid_argument for fewer than 2 ranks or a zero chunk or share
     */
    static PatShape Make(uint32_t ranks, uint64_t chunkBytes, uint64_t channelBytes);
};

/** One message of a PAT pass: its dimension (hop distance 2^dim) and the offsets it carries. */
struct PatMessage
{
    uint32_t dim{0};
    std::vector<uint32_t> offsets; //!< each s < n, all with lowest set bit dim
};

/**
 * \return a pass's messages in the all-gather's order (a rank sends them in this order;
 *         reduce-scatter in the reverse): first the offsets that are multiples of aggDelta,
 *         the far dimensions first, then the others by s mod aggDelta ascending, each group cut
 *         every postFreq offsets; every s in 1 .. n-1 exactly once, and every message after
 *         the one that brings its data (s - 2^dim) to the sender
 */
std::vector<PatMessage> PatMessages(const PatShape& shape);

/** Which PAT: all-gather (data spreads) or reduce-scatter (partial sums gather). */
enum class PatKind
{
    ALL_GATHER,
    REDUCE_SCATTER,
};

/**
 * What every rank of a PAT call shares for one shape: the pass's messages in the order a rank
 * runs them and the dependencies between them (O(n), rank-independent). MakePatPlan builds it;
 * BuildPat's schedules read it by formula.
 */
struct PatPlan;

/**
 * \param kind all-gather or reduce-scatter
 * \param shape the pass's shape (PatShape::Make)
 * \return the plan every rank of the shape reads (share it: O(n) each)
 */
std::shared_ptr<const PatPlan> MakePatPlan(PatKind kind, const PatShape& shape);

/**
 * One rank's ops of one channel of a PAT all-gather or reduce-scatter, by formula: O(1) state
 * per rank beside the shared plan (and the members, when they are not the identity). The same
 * ops, dependencies and tags as BuildPatList, in the same order (pat-test checks both for
 * every n up to 64).
 *
 * \param plan the shape's plan (MakePatPlan)
 * \param members members[p]: the communicator index of position p (n entries); null: p itself
 * \param me this rank's position
 * \param channelBytes this rank's share on the channel (> 0)
 * \param chunkBytes a pass, at most (> 0)
 * \param window buffer slots per dimension (> 0)
 * \param tagBase the first tag (as BuildPatList)
 * \return the rank's ops
 * \throws std::invalid_argument for a null plan, a members list of the wrong size, a position
 *         out of range, a zero share, chunk or window, or more than 2^32 ops
 */
std::unique_ptr<CollectiveSchedule> BuildPat(std::shared_ptr<const PatPlan> plan,
                                             std::shared_ptr<const std::vector<uint32_t>> members,
                                             uint32_t me,
                                             uint64_t channelBytes,
                                             uint64_t chunkBytes,
                                             uint32_t window,
                                             int64_t tagBase);

/**
 * One rank's ops of one channel of a PAT all-gather or reduce-scatter, as a list: the
 * reference BuildPat's formulas are checked against (and what the NCCL model ran before they
 * existed).
 *
 * All-gather: the message carrying offsets S in dimension d goes to position me - 2^d (mod n)
 * and the same message of position me + 2^d is received; it is sent once the receives that
 * brought each s - 2^d (s - 2^d > 0) have completed. Reduce-scatter runs the routes backwards:
 * to me + 2^d, from me - 2^d, once the receives of s + 2^e (every e < d, s + 2^e < n) have
 * completed. The channel's share is cut in passes of at most chunkBytes (NCCL's loop over
 * chunks); a message carries one slice per offset. NCCL's kernel runs the steps in order: each
 * send also waits for what the rank's previous send waited for. Each dimension has \p window
 * buffer slots: a send waits for the send \p window earlier in its dimension.
 *
 * \param kind all-gather or reduce-scatter
 * \param shape the pass's shape (PatShape::Make)
 * \param members members[p]: the communicator index of position p (n entries)
 * \param me this rank's position
 * \param channelBytes this rank's share on the channel (> 0)
 * \param chunkBytes a pass, at most (> 0)
 * \param window buffer slots per dimension (> 0)
 * \param tagBase the first tag; the schedule uses tagBase .. tagBase + PatTags(...) - 1
 * \return the rank's ops, as a list (O(passes x n))
 * \throws std::invalid_argument for a members list of the wrong size, a position out of range,
 *         a zero share, chunk or window
 */
std::unique_ptr<CollectiveSchedule> BuildPatList(PatKind kind,
                                                 const PatShape& shape,
                                                 const std::vector<uint32_t>& members,
                                                 uint32_t me,
                                                 uint64_t channelBytes,
                                                 uint64_t chunkBytes,
                                                 uint32_t window,
                                                 int64_t tagBase);

/** \return the tags BuildPat and BuildPatList use for \p plan's shape: passes x messages a
 *  pass (read from the plan: no O(n) recount per rank and channel) */
int64_t PatTags(const PatPlan& plan, uint64_t channelBytes, uint64_t chunkBytes);

/**
 * NCCL's PAT chunk (src/enqueue.cc): the Simple step (512 KiB) halved while it is above 64 KiB
 * and chunk x channels x (32 for all-gather, 16 for reduce-scatter) exceeds the call's bytes.
 * \param kind the function
 * \param stepBytes Simple's step (NCCL's buffer / NCCL_STEPS)
 * \param channels the call's channels
 * \param bytes the call's bytes as NCCL counts them (n x a rank's share)
 * \return the chunk
 */
uint64_t PatChunkBytes(PatKind kind, uint64_t stepBytes, uint32_t channels, uint64_t bytes);

} // namespace ns3

#endif // CHAKRA_PAT_SCHEDULE_H
