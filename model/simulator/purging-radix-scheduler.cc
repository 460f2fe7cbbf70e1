#include "purging-radix-scheduler.h"

#include "ns3/assert.h"
#include "ns3/log.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("ChakraPurgingRadixScheduler");

NS_OBJECT_ENSURE_REGISTERED(PurgingRadixScheduler);

namespace
{

/** Orders events of one timestamp: scheduling order. */
bool
ByUid(const Scheduler::Event& a, const Scheduler::Event& b)
{
    return a.key.m_uid < b.key.m_uid;
}

/** Handed-out events kept at the front of bucket 0 before they are erased (a long run of
 *  events scheduled at the current time would otherwise keep them all). */
constexpr std::size_t kMaxHandedOut = 4096;

} // namespace

TypeId
PurgingRadixScheduler::GetTypeId()
{
    static TypeId tid = TypeId("ns3::PurgingRadixScheduler")
                            .SetParent<PurgingScheduler>()
                            .SetGroupName("Chakra")
                            .AddConstructor<PurgingRadixScheduler>();
    return tid;
}

PurgingRadixScheduler::PurgingRadixScheduler()
{
    NS_LOG_FUNCTION(this);
}

PurgingRadixScheduler::~PurgingRadixScheduler()
{
    NS_LOG_FUNCTION(this);
    // The simulator empties the list before it lets its scheduler go; what is left here (a
    // scheduler dropped with events) is released like the simulator would.
    for (std::size_t b = 0; b < kBuckets; ++b)
    {
        for (std::size_t i = b == 0 ? m_front : 0; i < m_buckets[b].size(); ++i)
        {
            m_buckets[b][i].impl->Unref();
        }
    }
}

void
PurgingRadixScheduler::Hold(const Event& event)
{
    const std::size_t bucket = BucketOf(event.key.m_ts);
    NS_ASSERT_MSG(bucket != 0 || m_buckets[0].size() == m_front ||
                      m_buckets[0].back().key.m_uid < event.key.m_uid,
                  "events of one timestamp must come in uid order");
    m_buckets[bucket].push_back(event);
    if (bucket != 0)
    {
        m_occupied |= uint64_t{1} << (bucket - 1);
    }
}

void
PurgingRadixScheduler::Insert(const Event& ev)
{
    NS_ASSERT_MSG(ev.key.m_ts >= m_origin, "an event before the last one handed out");
    BeforeInsert(m_held);
    Hold(ev);
    ++m_held;
    AfterInsert(m_held);
}

bool
PurgingRadixScheduler::IsEmpty() const
{
    return m_held == 0 && !HasPlaceholder();
}

Scheduler::Event
PurgingRadixScheduler::PeekNext() const
{
    NS_ASSERT(!IsEmpty());
    if (HasPlaceholder())
    {
        return Placeholder();
    }
    if (m_front < m_buckets[0].size())
    {
        return m_buckets[0][m_front];
    }
    // Without moving anything: a distributed simulator peeks, then may insert an event earlier
    // than the one peeked (a message from another process), which the origin must not pass.
    const auto& lowest = m_buckets[1 + static_cast<std::size_t>(__builtin_ctzll(m_occupied))];
    return *std::min_element(lowest.begin(), lowest.end(), [](const Event& a, const Event& b) {
        return a.key < b.key;
    });
}

void
PurgingRadixScheduler::Refill()
{
    NS_ASSERT(m_occupied != 0);
    const std::size_t from = 1 + static_cast<std::size_t>(__builtin_ctzll(m_occupied));
    std::vector<Event> spread;
    spread.swap(m_buckets[from]);
    m_occupied &= ~(uint64_t{1} << (from - 1));
    uint64_t earliest = spread.front().key.m_ts;
    for (const Event& event : spread)
    {
        earliest = std::min(earliest, event.key.m_ts);
    }
    // Every event of the buckets above differs from the old origin in a higher bit, so it is
    // later than all of these: the origin moves to the earliest event held.
    m_origin = earliest;
    for (const Event& event : spread)
    {
        Hold(event);
    }
    // A bucket gathers events inserted (in uid order) and events spread from above (older), so
    // the events of one timestamp are put in scheduling order here, once.
    std::vector<Event>& now = m_buckets[0];
    if (!std::is_sorted(now.begin(), now.end(), ByUid))
    {
        std::sort(now.begin(), now.end(), ByUid);
    }
    // Keep the emptied vector's memory for the bucket's next events.
    spread.clear();
    m_buckets[from].swap(spread);
}

Scheduler::Event
PurgingRadixScheduler::RemoveNext()
{
    NS_ASSERT(!IsEmpty());
    if (HasPlaceholder())
    {
        return TakePlaceholder();
    }
    if (m_front == m_buckets[0].size())
    {
        m_buckets[0].clear();
        m_front = 0;
        Refill();
    }
    const Event next = m_buckets[0][m_front++];
    --m_held;
    TrimFront();
    NoteTaken(next.key);
    return next;
}

void
PurgingRadixScheduler::TrimFront()
{
    std::vector<Event>& now = m_buckets[0];
    if (m_front == now.size())
    {
        now.clear();
        m_front = 0;
    }
    else if (m_front >= kMaxHandedOut && 2 * m_front >= now.size())
    {
        now.erase(now.begin(), now.begin() + static_cast<std::ptrdiff_t>(m_front));
        m_front = 0;
    }
}

void
PurgingRadixScheduler::Remove(const Event& ev)
{
    NS_LOG_FUNCTION(this);
    // Simulator::Remove is rare (ns-3 models cancel): a linear search is enough.
    for (std::size_t b = 0; b < kBuckets; ++b)
    {
        std::vector<Event>& bucket = m_buckets[b];
        auto begin = bucket.begin() + static_cast<std::ptrdiff_t>(b == 0 ? m_front : 0);
        auto it = std::find_if(begin, bucket.end(), [&ev](const Event& held) {
            return held.key.m_uid == ev.key.m_uid;
        });
        if (it == bucket.end())
        {
            continue;
        }
        bucket.erase(it); // keeps bucket 0 in uid order
        --m_held;
        if (b == 0)
        {
            TrimFront();
        }
        else if (bucket.empty())
        {
            m_occupied &= ~(uint64_t{1} << (b - 1));
        }
        return;
    }
    NS_ASSERT_MSG(false, "Remove of an event not held");
}

uint64_t
PurgingRadixScheduler::DropCancelled()
{
    uint64_t dropped = 0;
    for (std::size_t b = 0; b < kBuckets; ++b)
    {
        std::vector<Event>& bucket = m_buckets[b];
        // Compacts in place, in order (bucket 0 stays in uid order).
        std::size_t kept = b == 0 ? m_front : 0;
        for (std::size_t i = kept; i < bucket.size(); ++i)
        {
            if (bucket[i].impl->IsCancelled())
            {
                // The list's reference; an EventId that still names the event keeps its own.
                bucket[i].impl->Unref();
                ++dropped;
            }
            else
            {
                bucket[kept++] = bucket[i];
            }
        }
        bucket.resize(kept);
        if (b != 0 && bucket.empty())
        {
            m_occupied &= ~(uint64_t{1} << (b - 1));
        }
    }
    m_held -= dropped;
    TrimFront();
    return dropped;
}

std::size_t
PurgingRadixScheduler::GetHeldCount() const
{
    return m_held;
}

} // namespace ns3
