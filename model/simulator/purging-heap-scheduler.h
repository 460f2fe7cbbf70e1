/*
 * PurgingHeapScheduler: a binary-heap event list that forgets cancelled events instead of
 * holding them until their time comes.
 */
#ifndef CHAKRA_PURGING_HEAP_SCHEDULER_H
#define CHAKRA_PURGING_HEAP_SCHEDULER_H

#include "purging-scheduler.h"

#include <vector>

namespace ns3
{

/**
 * \ingroup chakra-network
 * \brief A binary-heap event list that drops cancelled events from memory (PurgingScheduler).
 *
 * O(log n) per insertion and removal, for any keys. Cluster runs use PurgingRadixScheduler,
 * which hands out the same events in the same order in less time; this one stays for
 * comparison (--SchedulerType=ns3::PurgingHeapScheduler) and for lists whose events are not
 * scheduled by a simulator.
 */
class PurgingHeapScheduler final : public PurgingScheduler
{
  public:
    /** \return the TypeId */
    static TypeId GetTypeId();
    PurgingHeapScheduler();
    ~PurgingHeapScheduler() override;

    void Insert(const Event& ev) override;
    bool IsEmpty() const override;
    Event PeekNext() const override;
    Event RemoveNext() override;
    void Remove(const Event& ev) override;
    std::size_t GetHeldCount() const override;

  private:
    uint64_t DropCancelled() override;
    /** Puts \p event in the heap at \p hole or above it (the slot at \p hole is free). */
    void Rise(std::size_t hole, const Event& event);

    std::vector<Event> m_heap; //!< min-heap on EventKey
};

} // namespace ns3

#endif // CHAKRA_PURGING_HEAP_SCHEDULER_H
