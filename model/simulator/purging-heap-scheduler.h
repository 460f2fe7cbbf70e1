/*
 * PurgingHeapScheduler: an ns-3 event list that forgets cancelled events instead of holding
 * them until their time comes.
 */
#ifndef CHAKRA_PURGING_HEAP_SCHEDULER_H
#define CHAKRA_PURGING_HEAP_SCHEDULER_H

#include "ns3/event-impl.h"
#include "ns3/scheduler.h"

#include <cstdint>
#include <vector>

namespace ns3
{

/**
 * \ingroup chakra-network
 * \brief A binary-heap event list that drops cancelled events from memory.
 *
 * ns-3's EventId::Cancel only flags an event: it stays in the event list until its time,
 * then is skipped. A model that re-arms a long timer on every packet therefore keeps one dead
 * event per packet for the timer's whole length. ns-3's TCP does this with its retransmission
 * timer (cancelled and scheduled again on every ACK): with the 200 ms minimum RTO of a lossless
 * fabric, a run keeps every ACK's timer of the last 200 ms of simulated time, so memory grows
 * with the bytes a run moves (a 64-rank ring all-reduce: 206 MB at 64 MiB, 1.0 GB at 1 GiB).
 *
 * This scheduler purges cancelled events (releasing them) whenever the list has doubled since
 * the last purge, which keeps its size within twice the live events, at an amortized O(1) per
 * insertion. The simulator still processes one (empty) event per cancelled event, as it does
 * with ns-3's schedulers, so event counts are unchanged; those events run at the current time,
 * not at the cancelled timer's, so a run also no longer ends a timer's length after its last
 * real event. Select it with Simulator::SetScheduler(ObjectFactory("ns3::PurgingHeapScheduler"))
 * or --SchedulerType=ns3::PurgingHeapScheduler (ClusterScenario does it for every run).
 */
class PurgingHeapScheduler : public Scheduler
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

    /** \return the events held (live and not yet purged cancelled ones) */
    std::size_t GetHeldCount() const;
    /** \return the cancelled events released so far */
    uint64_t GetPurgedCount() const;
    /** \return the most events held at once (live and not yet purged cancelled ones) */
    std::size_t GetPeakHeldCount() const;

    /**
     * \return the scheduler of the current simulation if it is a PurgingHeapScheduler (the
     *         last one made and not yet destroyed), nullptr otherwise; for the reports, which
     *         the simulator gives no way to its scheduler
     */
    static const PurgingHeapScheduler* GetCurrent();

  private:
    /** Releases every cancelled event in the heap and rebuilds it. */
    void Purge();
    /** \return a placeholder event at the current key, standing for a purged one */
    Event Placeholder() const;
    /** Puts \p event in the heap at \p hole or above it (the slot at \p hole is free). */
    void Rise(std::size_t hole, const Event& event);

    std::vector<Event> m_heap;   //!< min-heap on EventKey
    std::size_t m_purgeAt;       //!< purge when the heap reaches this size
    uint64_t m_placeholders{0};  //!< purged events the simulator has not yet processed
    uint64_t m_purged{0};        //!< total purged
    std::size_t m_peakHeld{0};   //!< largest m_heap.size() so far
    EventKey m_current{0, 0, 0}; //!< key of the last event handed out
    EventImpl* m_cancelled;      //!< the shared cancelled event handed out as a placeholder
};

} // namespace ns3

#endif // CHAKRA_PURGING_HEAP_SCHEDULER_H
