/*
 * The event lists (PurgingRadixScheduler, that of every cluster run, and PurgingHeapScheduler):
 * events come out in the order ns-3 defines (timestamp, then scheduling order), checked
 * against a sort of the same keys; cancelled events are purged from memory and still handed
 * out once each, as placeholders; Remove takes out exactly one event; peeking moves nothing;
 * and a whole simulation under each runs events in order.
 */
#define BOOST_TEST_MODULE scheduler
#include "ns3/chakra-module.h"
#include "ns3/core-module.h"

#include <algorithm>
#include <boost/mpl/list.hpp>
#include <boost/test/unit_test.hpp>
#include <random>
#include <utility>
#include <vector>

using namespace ns3;

namespace
{

using Key = std::pair<uint64_t, uint32_t>; //!< (timestamp, uid)

/** The lists under test. */
using EventLists = boost::mpl::list<PurgingRadixScheduler, PurgingHeapScheduler>;

/** A scheduler event at \p ts with \p uid, owning a fresh do-nothing EventImpl. */
Scheduler::Event
NewEvent(uint64_t ts, uint32_t uid)
{
    Scheduler::Event event;
    event.impl = MakeEvent([]() {});
    event.key.m_ts = ts;
    event.key.m_uid = uid;
    event.key.m_context = 0;
    return event;
}

/** What the next event was: its key and whether it was cancelled. */
struct Taken
{
    Scheduler::EventKey key;
    bool cancelled;
};

/** Takes the next event out and releases it, as the simulator does. */
Taken
TakeNext(Scheduler& scheduler)
{
    Scheduler::Event event = scheduler.RemoveNext();
    Taken taken{event.key, event.impl->IsCancelled()};
    event.impl->Unref();
    return taken;
}

/** Takes every event left out, in order, appending their keys to \p taken. */
void
TakeRest(Scheduler& scheduler, std::vector<Key>& taken)
{
    while (!scheduler.IsEmpty())
    {
        const Taken event = TakeNext(scheduler);
        taken.emplace_back(event.key.m_ts, event.key.m_uid);
    }
}

} // namespace

BOOST_AUTO_TEST_CASE_TEMPLATE(events_come_out_by_time_then_scheduling_order, List, EventLists)
{
    // Many ties (timestamps from a small range) and inserts between removals, never earlier
    // than the last event taken out (as the simulator schedules).
    List scheduler;
    std::mt19937 rng(11);
    std::vector<Key> inserted;
    std::vector<Key> taken;
    uint32_t uid = 0;
    uint64_t now = 0;
    for (int round = 0; round < 200; ++round)
    {
        const int inserts = static_cast<int>(rng() % 40);
        for (int i = 0; i < inserts; ++i)
        {
            const uint64_t ts = now + rng() % 25;
            scheduler.Insert(NewEvent(ts, uid));
            inserted.emplace_back(ts, uid);
            ++uid;
        }
        const int removals = static_cast<int>(rng() % 40);
        for (int i = 0; i < removals && !scheduler.IsEmpty(); ++i)
        {
            BOOST_REQUIRE(scheduler.PeekNext().key.m_uid ==
                          scheduler.PeekNext().key.m_uid); // peeking does not take
            const Taken event = TakeNext(scheduler);
            taken.emplace_back(event.key.m_ts, event.key.m_uid);
            now = event.key.m_ts;
        }
    }
    TakeRest(scheduler, taken);
    BOOST_REQUIRE_EQUAL(taken.size(), inserted.size());
    BOOST_TEST(std::is_sorted(taken.begin(), taken.end()));
    std::sort(inserted.begin(), inserted.end());
    BOOST_TEST(taken == inserted);
}

BOOST_AUTO_TEST_CASE_TEMPLATE(cancelled_events_are_purged_and_handed_out_once_each,
                              List,
                              EventLists)
{
    // 40,000 events, three in four cancelled: the list is purged when it reaches its first
    // threshold (32,768), keeps the live ones, and hands every event out exactly once
    // (a purged one as a cancelled placeholder at the current time).
    List scheduler;
    std::mt19937 rng(5);
    const uint32_t total = 40000;
    std::vector<Key> live;
    uint32_t cancelled = 0;
    for (uint32_t uid = 0; uid < total; ++uid)
    {
        Scheduler::Event event = NewEvent(1000 + rng() % 5000, uid);
        if (uid % 4 != 0)
        {
            event.impl->Cancel();
            ++cancelled;
        }
        else
        {
            live.emplace_back(event.key.m_ts, uid);
        }
        scheduler.Insert(event);
    }
    BOOST_TEST(scheduler.GetPurgedCount() > 0u);
    BOOST_TEST(scheduler.GetPurgedCount() + scheduler.GetHeldCount() == total);
    BOOST_TEST(scheduler.GetHeldCount() < total / 2); // most cancelled ones are gone
    // At the purge (before the 32,769th insert) one in four of the 32,768 held was pending:
    // 8,192, the report's lower bound; the list's largest size, 32,768, the upper one.
    BOOST_TEST(scheduler.GetPeakPendingAtPurge() == 8192u);
    BOOST_TEST(scheduler.GetPeakHeldCount() == 32768u);
    std::vector<Key> liveTaken;
    uint32_t cancelledTaken = 0;
    while (!scheduler.IsEmpty())
    {
        const Taken event = TakeNext(scheduler);
        if (event.cancelled)
        {
            ++cancelledTaken;
        }
        else
        {
            liveTaken.emplace_back(event.key.m_ts, event.key.m_uid);
        }
    }
    BOOST_TEST(cancelledTaken == cancelled);
    std::sort(live.begin(), live.end());
    BOOST_TEST(liveTaken == live);
}

BOOST_AUTO_TEST_CASE_TEMPLATE(peak_counts_the_most_events_held_at_once, List, EventLists)
{
    // 5 in, 3 out, 2 in: at most 5 at once; then 4 more: 8 (the report's "event list's largest
    // size"). No purge below 32,768 events: no pending count at a purge.
    auto scheduler = CreateObject<List>();
    BOOST_TEST(PurgingScheduler::GetCurrent() == PeekPointer(scheduler));
    uint32_t uid = 0;
    for (int i = 0; i < 5; ++i)
    {
        scheduler->Insert(NewEvent(10 + i, uid++));
    }
    for (int i = 0; i < 3; ++i)
    {
        TakeNext(*scheduler);
    }
    for (int i = 0; i < 2; ++i)
    {
        scheduler->Insert(NewEvent(20 + i, uid++));
    }
    BOOST_TEST(scheduler->GetPeakHeldCount() == 5u);
    for (int i = 0; i < 4; ++i)
    {
        scheduler->Insert(NewEvent(30 + i, uid++));
    }
    BOOST_TEST(scheduler->GetPeakHeldCount() == 8u);
    while (!scheduler->IsEmpty())
    {
        TakeNext(*scheduler);
    }
    BOOST_TEST(scheduler->GetPeakHeldCount() == 8u);
    BOOST_TEST(scheduler->GetPeakPendingAtPurge() == 0u);
    scheduler = nullptr;
    BOOST_TEST(PurgingScheduler::GetCurrent() == nullptr);
}

BOOST_AUTO_TEST_CASE_TEMPLATE(remove_takes_out_one_event, List, EventLists)
{
    List scheduler;
    std::vector<Scheduler::Event> events;
    for (uint32_t uid = 0; uid < 50; ++uid)
    {
        events.push_back(NewEvent((uid * 37) % 11, uid));
        scheduler.Insert(events.back());
    }
    for (uint32_t uid : {7u, 0u, 49u, 23u})
    {
        scheduler.Remove(events[uid]);
        events[uid].impl->Unref(); // the caller of Remove owns the reference
    }
    std::vector<Key> expected;
    for (uint32_t uid = 0; uid < 50; ++uid)
    {
        if (uid != 7 && uid != 0 && uid != 49 && uid != 23)
        {
            expected.emplace_back((uid * 37) % 11, uid);
        }
    }
    std::sort(expected.begin(), expected.end());
    std::vector<Key> taken;
    TakeRest(scheduler, taken);
    BOOST_TEST(taken == expected);
}

BOOST_AUTO_TEST_CASE_TEMPLATE(timestamps_far_apart_and_crowded_ties, List, EventLists)
{
    // Timestamps over the whole 64-bit range (every radix bucket), and runs of up to 3,000
    // events at one timestamp, inserted out of uid order across timestamps (the uids of one
    // timestamp still increase, as the simulator gives them): the order is the sort's.
    List scheduler;
    std::mt19937_64 rng(17);
    std::vector<Key> inserted;
    uint32_t uid = 0;
    uint64_t now = 0;
    std::vector<Key> taken;
    for (int round = 0; round < 30; ++round)
    {
        std::vector<uint64_t> times;
        for (int i = 0; i < 8; ++i)
        {
            // Up to 2^58 ahead: 30 rounds stay below 2^63.
            const int shift = static_cast<int>(rng() % 58);
            times.push_back(now + (rng() >> (6 + shift)));
        }
        for (int i = 0; i < 3000; ++i)
        {
            const uint64_t ts = times[rng() % times.size()];
            scheduler.Insert(NewEvent(ts, uid));
            inserted.emplace_back(ts, uid);
            ++uid;
        }
        for (int i = 0; i < 2000; ++i)
        {
            const Taken event = TakeNext(scheduler);
            taken.emplace_back(event.key.m_ts, event.key.m_uid);
            now = event.key.m_ts;
        }
    }
    TakeRest(scheduler, taken);
    std::sort(inserted.begin(), inserted.end());
    BOOST_TEST(taken == inserted);
}

BOOST_AUTO_TEST_CASE_TEMPLATE(peeking_does_not_pass_an_earlier_insert, List, EventLists)
{
    // A distributed simulator peeks at the next event, then may insert one earlier (another
    // process's message): that one comes out first.
    List scheduler;
    scheduler.Insert(NewEvent(100, 0));
    TakeNext(scheduler); // the clock is at 100
    scheduler.Insert(NewEvent(5000, 1));
    scheduler.Insert(NewEvent(4000, 2));
    BOOST_TEST(scheduler.PeekNext().key.m_ts == 4000u);
    scheduler.Insert(NewEvent(300, 3));
    BOOST_TEST(scheduler.PeekNext().key.m_ts == 300u);
    BOOST_TEST(TakeNext(scheduler).key.m_uid == 3u);
    BOOST_TEST(TakeNext(scheduler).key.m_uid == 2u);
    BOOST_TEST(TakeNext(scheduler).key.m_uid == 1u);
    BOOST_TEST(scheduler.IsEmpty());
}

BOOST_AUTO_TEST_CASE_TEMPLATE(a_simulation_runs_its_events_in_time_order, List, EventLists)
{
    // Through ns-3's simulator: events scheduled from events, with ties and cancellations.
    Simulator::SetScheduler(ObjectFactory(List::GetTypeId().GetName()));
    std::mt19937 rng(3);
    std::vector<std::pair<int64_t, int>> runs; // (time in ns, id) as run
    int next = 0;
    std::vector<int64_t> due; // per id, its due time
    std::vector<EventId> ids;
    std::function<void(int)> fire = [&](int id) {
        runs.emplace_back(Simulator::Now().GetNanoSeconds(), id);
        for (int i = 0; i < 2 && next < 3000; ++i)
        {
            const int64_t delay = static_cast<int64_t>(rng() % 20);
            const int child = next++;
            due.push_back(Simulator::Now().GetNanoSeconds() + delay);
            ids.push_back(
                Simulator::Schedule(NanoSeconds(delay), [&fire, child]() { fire(child); }));
            if (rng() % 5 == 0 && child > 0)
            {
                Simulator::Cancel(ids[rng() % ids.size()]);
            }
        }
    };
    due.push_back(0);
    ids.push_back(Simulator::ScheduleNow([&fire]() { fire(0); }));
    next = 1;
    Simulator::Run();
    BOOST_REQUIRE(runs.size() > 100u);
    for (std::size_t i = 0; i < runs.size(); ++i)
    {
        BOOST_TEST(runs[i].first == due[runs[i].second]); // at its own time
        if (i > 0)
        {
            BOOST_TEST(runs[i - 1].first <= runs[i].first);
            if (runs[i - 1].first == runs[i].first)
            {
                BOOST_TEST(runs[i - 1].second < runs[i].second); // ties in scheduling order
            }
        }
    }
    Simulator::Destroy();
}
