/*
 * Ring algorithms: all-reduce, reduce-scatter, all-gather (NCCL's default inside a host) and
 * pipelined chains for broadcast and reduce.
 */
#ifndef CHAKRA_RING_COLLECTIVE_H
#define CHAKRA_RING_COLLECTIVE_H

#include "collective-algorithm.h"

namespace ns3
{

/** What a ring pass does. */
enum class RingMode
{
    REDUCE_SCATTER, //!< n-1 steps; each rank ends with one reduced segment
    ALL_GATHER,     //!< n-1 steps; each rank starts with one segment, ends with all
    ALL_REDUCE,     //!< reduce-scatter then all-gather: 2(n-1) steps
};

/**
 * Appends one rank's part of a ring pass to a schedule. The buffer of \p bytes is cut into
 * members.size() segments; at step k the rank at ring position p sends segment (p - k) to the
 * next position and receives segment (p - k - 1) from the previous one; a send after the first
 * waits for the previous receive (the data it forwards). Chunks are independent pipelines.
 * \param builder the schedule
 * \param mode what the pass does
 * \param members communicator indices in ring order
 * \param position this rank's position in \p members
 * \param bytes the whole buffer (for ALL_GATHER: all members' contributions together)
 * \param chunks pipeline chunks
 * \param tagBase first tag (the pass uses tagBase .. tagBase + chunks * 2 * members - 1)
 * \param startDeps ops that must complete before this rank's first send
 * \param stepOffset number the steps from here (an all-gather after a reduce-scatter of the
 *        same buffer continues at n-1, where each rank owns segment p+1)
 * \return the ops that complete the pass for this rank (the last receive of each chunk)
 */
std::vector<uint32_t> AppendRingPass(ScheduleBuilder& builder,
                                     RingMode mode,
                                     const std::vector<uint32_t>& members,
                                     uint32_t position,
                                     uint64_t bytes,
                                     uint32_t chunks,
                                     int64_t tagBase,
                                     const std::vector<uint32_t>& startDeps,
                                     uint32_t stepOffset = 0);

/**
 * \ingroup chakra
 * \brief Ring all-reduce, reduce-scatter, all-gather; chain broadcast and reduce; barrier.
 *
 * Closed form on a non-blocking switch (per-step latency a, bandwidth B, n ranks, S bytes):
 * all-reduce 2(n-1)a + 2(n-1)/n S/B; reduce-scatter (S = input) and all-gather (S = output)
 * (n-1)a + (n-1)/n S/B; chain broadcast/reduce with C chunks (n-1+C-1)(a + S/(C B)).
 */
class RingCollective : public CollectiveAlgorithm
{
  public:
    std::string GetName() const override;
    bool Supports(const CollectiveRequest& request) const override;

  protected:
    CollectiveSchedule DoBuild(const CollectiveRequest& request) const override;
};

} // namespace ns3

#endif // CHAKRA_RING_COLLECTIVE_H
