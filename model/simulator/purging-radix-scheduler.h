/*
 * PurgingRadixScheduler: the event list of cluster runs, a radix queue on the timestamp that
 * forgets cancelled events instead of holding them until their time comes.
 */
#ifndef CHAKRA_PURGING_RADIX_SCHEDULER_H
#define CHAKRA_PURGING_RADIX_SCHEDULER_H

#include "purging-scheduler.h"

#include <array>
#include <vector>

namespace ns3
{

/**
 * \ingroup chakra-network
 * \brief A radix-queue event list that drops cancelled events from memory (PurgingScheduler).
 *
 * A simulator never schedules an event before the current time, and gives its events
 * increasing uids. This list uses both: the events are kept in 65 buckets by the highest bit in
 * which their timestamp differs from the origin (the timestamp of the last event handed out;
 * bucket 0 holds those at the origin itself). Inserting appends to a bucket, O(1). When bucket
 * 0 is used up, the lowest non-empty bucket becomes the new origin's, its events spread over
 * the buckets below it, each event moving down at most 64 times in its life. Bucket 0 then
 * holds the events of one timestamp, put in uid order once, and events scheduled at the
 * current time join its end (their uids are the newest). So events come out by timestamp,
 * then uid, as from a heap, with no comparisons per level and memory read in order: at the
 * 10^4-10^5 pending events of a few-thousand-GPU run, where a binary heap's pops miss the
 * cache at every level.
 *
 * It requires what the simulator guarantees: no event earlier than the last one handed out,
 * and uids increasing in insertion order among events of one timestamp. Use
 * PurgingHeapScheduler for events that do not keep to that.
 */
class PurgingRadixScheduler final : public PurgingScheduler
{
  public:
    /** \return the TypeId */
    static TypeId GetTypeId();
    PurgingRadixScheduler();
    ~PurgingRadixScheduler() override;

    void Insert(const Event& ev) override;
    bool IsEmpty() const override;
    Event PeekNext() const override;
    Event RemoveNext() override;
    void Remove(const Event& ev) override;
    std::size_t GetHeldCount() const override;

  private:
    uint64_t DropCancelled() override;

    /** Timestamp bits plus the origin's bucket. */
    static constexpr std::size_t kBuckets = 65;

    /** \return the bucket of an event at \p ts: 0 at the origin, else 1 + the highest bit in
     *  which \p ts differs from it */
    std::size_t BucketOf(uint64_t ts) const
    {
        return ts == m_origin ? 0 : 64 - static_cast<std::size_t>(__builtin_clzll(ts ^ m_origin));
    }

    /** Appends \p event to its bucket. */
    void Hold(const Event& event);
    /** Bucket 0 used up and events held: moves the origin to the earliest of them, spreads
     *  their bucket below, and puts bucket 0 in uid order. */
    void Refill();
    /** Forgets the part of bucket 0 already handed out once it is all handed out. */
    void TrimFront();

    std::array<std::vector<Event>, kBuckets> m_buckets; //!< by timestamp bit, see above
    std::size_t m_front{0}; //!< the first event of bucket 0 not yet handed out
    uint64_t m_origin{0};   //!< the timestamp of bucket 0
    uint64_t m_occupied{0}; //!< bit b - 1 set when bucket b (1..64) holds events
    std::size_t m_held{0};  //!< events held, in all buckets
};

} // namespace ns3

#endif // CHAKRA_PURGING_RADIX_SCHEDULER_H
