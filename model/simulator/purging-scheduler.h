/*
 * PurgingScheduler: what the project's event lists share. They forget cancelled events
 * instead of holding them until their time comes, and count what they hold.
 */
#ifndef CHAKRA_PURGING_SCHEDULER_H
#define CHAKRA_PURGING_SCHEDULER_H

#include "ns3/event-impl.h"
#include "ns3/scheduler.h"

#include <cstdint>

namespace ns3
{

/**
 * \ingroup chakra-network
 * \brief The purging policy of an event list, for the lists that order the events
 * (PurgingHeapScheduler, PurgingRadixScheduler).
 *
 * ns-3's EventId::Cancel only flags an event: it stays in the event list until its time,
 * then is skipped. A model that re-arms a long timer on every packet therefore keeps one dead
 * event per packet for the timer's whole length. ns-3's TCP does this with its retransmission
 * timer (cancelled and scheduled again on every ACK): with the 200 ms minimum RTO of a lossless
 * fabric, a run keeps every ACK's timer of the last 200 ms of simulated time, so memory grows
 * with the bytes a run moves (a 64-rank ring all-reduce: 206 MB at 64 MiB, 1.0 GB at 1 GiB).
 *
 * A list derived from this one purges cancelled events (releasing them) whenever it has
 * doubled since the last purge, which keeps its size within twice the live events, at an
 * amortized O(1) per insertion. The simulator still processes one (empty) event per cancelled
 * event, as it does with ns-3's schedulers, so event counts are unchanged; those events run at
 * the current time, not at the cancelled timer's, so a run also no longer ends a timer's
 * length after its last real event.
 */
class PurgingScheduler : public Scheduler
{
  public:
    /** \return the TypeId */
    static TypeId GetTypeId();
    ~PurgingScheduler() override;

    /** \return the events held (live and not yet purged cancelled ones) */
    virtual std::size_t GetHeldCount() const = 0;
    /** \return the cancelled events released so far */
    uint64_t GetPurgedCount() const;
    /**
     * \return the most events held at once: pending ones and cancelled ones not yet purged.
     * An upper bound of the most events pending at once (ns-3 does not tell a list when an
     * event is cancelled); with purging, at most twice it.
     */
    std::size_t GetPeakHeldCount() const;
    /**
     * \return the most events pending found at a purge (then the list holds no cancelled
     * event), 0 before the first purge: a lower bound of the most events pending at once
     */
    std::size_t GetPeakPendingAtPurge() const;

    /**
     * \return the scheduler of the current simulation if it is a PurgingScheduler (the last
     *         one made and not yet destroyed), nullptr otherwise; for the reports, which the
     *         simulator gives no way to its scheduler
     */
    static const PurgingScheduler* GetCurrent();

  protected:
    PurgingScheduler();

    /** To call before holding one more event: purges if the list, holding \p held events,
     *  has doubled since the last purge. */
    void BeforeInsert(std::size_t held)
    {
        if (held >= m_purgeAt)
        {
            Purge();
        }
    }

    /** To call after holding one more event, with the events now held: keeps the peak. */
    void AfterInsert(std::size_t held)
    {
        m_peakHeld = held > m_peakHeld ? held : m_peakHeld;
    }

    /** \return whether purged events are still to be handed out (before any held one) */
    bool HasPlaceholder() const
    {
        return m_placeholders > 0;
    }

    /** \return a placeholder event at the key handed out last, standing for a purged one */
    Event Placeholder() const;

    /** \return the next placeholder, counted as handed out */
    Event TakePlaceholder();

    /** Notes the key of the event handed out (the placeholders' key). */
    void NoteTaken(const EventKey& key)
    {
        m_current = key;
    }

    /**
     * Releases every cancelled event held (the list's reference to each) and forgets them.
     * \return how many were released
     */
    virtual uint64_t DropCancelled() = 0;

  private:
    /** Drops the cancelled events; each is still handed out once, as a placeholder. */
    void Purge();

    std::size_t m_purgeAt;               //!< purge when the list holds this many events
    uint64_t m_placeholders{0};          //!< purged events the simulator has not yet processed
    uint64_t m_purged{0};                //!< total purged
    std::size_t m_peakHeld{0};           //!< most events held at once
    std::size_t m_peakPendingAtPurge{0}; //!< most events held just after a purge
    EventKey m_current{0, 0, 0};         //!< key of the last event handed out
    EventImpl* m_cancelled;              //!< the shared cancelled event handed out as a placeholder
};

} // namespace ns3

#endif // CHAKRA_PURGING_SCHEDULER_H
