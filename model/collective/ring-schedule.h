/*
 * RingSchedule: one rank's part of one or more ring passes (reduce-scatter, all-gather,
 * all-reduce), computed op by op from a few numbers instead of held as a list. A ring over n
 * ranks gives each rank 4(n-1) ops per all-reduce: held, that is O(n^2) memory over a job and
 * most of the time of a 1,024-rank flow-level run spent in cache misses.
 */
#ifndef CHAKRA_RING_SCHEDULE_H
#define CHAKRA_RING_SCHEDULE_H

#include "collective-schedule.h"
#include "small-array.h"

#include <cstdint>
#include <vector>

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
 * \ingroup chakra-collective
 * \brief A chain of ring passes, each over its own members, as one rank's schedule.
 *
 * A pass cuts its buffer into members.size() segments; at step k the rank at ring position p
 * sends segment (p - k) to the next position and receives segment (p - k - 1) from the previous
 * one; a send after the first waits for the previous receive (the data it forwards). Chunks are
 * independent pipelines. The first send of every chunk of a pass waits for the last receive of
 * every chunk of the previous pass that has ops (a pass over fewer than two members has none).
 *
 * Op order (the same as a list built pass by pass): for each pass, for each chunk, for each
 * step, the send then the receive. A pass uses tags tagBase + chunk * 2n + step, n its member
 * count; passes must use disjoint tag ranges.
 */
class RingSchedule : public CollectiveSchedule
{
  public:
    /**
     * Appends a pass.
     * \param mode what the pass does
     * \param members communicator indices in ring order
     * \param position this rank's position in \p members
     * \param bytes the whole buffer (for ALL_GATHER: all members' contributions together)
     * \param chunks pipeline chunks (>= 1)
     * \param tagBase first tag of the pass
     * \param stepOffset number the steps from here (an all-gather after a reduce-scatter of the
     *        same buffer continues at n-1, where each rank owns segment p+1)
     */
    void AddPass(RingMode mode,
                 const std::vector<uint32_t>& members,
                 uint32_t position,
                 uint64_t bytes,
                 uint32_t chunks,
                 int64_t tagBase,
                 uint32_t stepOffset = 0);

    /**
     * Appends a pass given by its size and this rank's neighbours instead of the member list
     * (O(1) where AddPass takes O(n)): what AddPass does with left = members[position - 1],
     * right = members[position + 1] (mod n), but the neighbours may be any ranks (a ring whose
     * messages go through a relay: NcclCollective).
     * \param n the ring's members (nothing is appended below 2)
     * \param left the communicator index this rank receives from
     * \param right the communicator index this rank sends to
     */
    void AddPassWithPeers(RingMode mode,
                          uint32_t n,
                          uint32_t position,
                          uint32_t left,
                          uint32_t right,
                          uint64_t bytes,
                          uint32_t chunks,
                          int64_t tagBase,
                          uint32_t stepOffset = 0);

    uint32_t Size() const override;
    MessageOp Op(uint32_t op) const override;
    uint32_t DepCount(uint32_t op) const override;
    uint32_t Dep(uint32_t op, uint32_t j) const override;
    uint32_t DependentCount(uint32_t op) const override;
    uint32_t Dependent(uint32_t op, uint32_t j) const override;
    uint32_t NextRecv(uint32_t peer, int64_t tag, uint32_t after) const override;
    bool InitialSends(std::vector<uint32_t>& sends) const override;

  private:
    /** One pass; only passes with ops are kept. */
    struct Pass
    {
        uint32_t n{0};        //!< members
        uint32_t position{0}; //!< this rank's position
        uint32_t right{0};    //!< communicator index of the next member
        uint32_t left{0};     //!< communicator index of the previous member
        uint64_t bytes{0};    //!< whole buffer
        uint32_t chunks{1};
        uint32_t steps{0}; //!< steps per chunk
        uint32_t stepOffset{0};
        int64_t tagBase{0};
        uint32_t firstOp{0}; //!< index of the pass's first op in the schedule
    };

    /** Where an op is: its pass, chunk, step (from 0 within the pass) and direction. */
    struct Place
    {
        uint32_t pass;
        uint32_t chunk;
        uint32_t step;
        bool recv;
    };

    Place Locate(uint32_t op) const;
    /** \return the index of an op of pass \p pass */
    uint32_t IndexOf(uint32_t pass, uint32_t chunk, uint32_t step, bool recv) const;

    uint32_t m_size{0};
    // The collective asks about one op several times in a row (its message, its dependents):
    // the last op placed is kept, saving a division and a pass search each time. (A second
    // slot cost more than it saved: callgrind on the 1,024-rank ring.)
    mutable uint32_t m_placedOp{UINT32_MAX};
    mutable Place m_placed{0, 0, 0, false};
    // Inside the object, after the members above: a rank reads them at every message it
    // receives, and at thousands of ranks a separate block was one more cache miss each time
    // (a hierarchical all-reduce has three passes); this order keeps the members above, the
    // passes' count and the start of the first pass in the object's first cache line.
    SmallArray<Pass, 3> m_passes;
};

} // namespace ns3

#endif // CHAKRA_RING_SCHEDULE_H
