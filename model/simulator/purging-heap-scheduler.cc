#include "purging-heap-scheduler.h"

#include "ns3/assert.h"
#include "ns3/log.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("ChakraPurgingHeapScheduler");

NS_OBJECT_ENSURE_REGISTERED(PurgingHeapScheduler);

namespace
{

/** Orders the heap so that its front is the earliest event (std::make_heap after a purge or a
 *  removal; insertion and pops are written out below). */
struct Later
{
    bool operator()(const Scheduler::Event& a, const Scheduler::Event& b) const
    {
        return b.key < a.key;
    }
};

/**
 * \return whether \p a runs before \p b (timestamp, then scheduling order), computed without a
 * branch: the pops choose between two children by it, and which of two events is earlier is a
 * coin toss to the branch predictor.
 */
inline bool
Earlier(const Scheduler::Event& a, const Scheduler::Event& b)
{
    return (a.key.m_ts < b.key.m_ts) | ((a.key.m_ts == b.key.m_ts) & (a.key.m_uid < b.key.m_uid));
}

} // namespace

TypeId
PurgingHeapScheduler::GetTypeId()
{
    static TypeId tid = TypeId("ns3::PurgingHeapScheduler")
                            .SetParent<PurgingScheduler>()
                            .SetGroupName("Chakra")
                            .AddConstructor<PurgingHeapScheduler>();
    return tid;
}

PurgingHeapScheduler::PurgingHeapScheduler()
{
    NS_LOG_FUNCTION(this);
}

PurgingHeapScheduler::~PurgingHeapScheduler()
{
    NS_LOG_FUNCTION(this);
    // The simulator empties the list before it lets its scheduler go; what is left here (a
    // scheduler dropped with events) is released like the simulator would.
    for (const Event& event : m_heap)
    {
        event.impl->Unref();
    }
}

void
PurgingHeapScheduler::Insert(const Event& ev)
{
    BeforeInsert(m_heap.size());
    // A new event is usually later than most: it rises a level or two at most.
    m_heap.push_back(ev);
    AfterInsert(m_heap.size());
    Rise(m_heap.size() - 1, ev);
}

void
PurgingHeapScheduler::Rise(std::size_t hole, const Event& event)
{
    while (hole > 0)
    {
        const std::size_t parent = (hole - 1) / 2;
        if (!Earlier(event, m_heap[parent]))
        {
            break;
        }
        m_heap[hole] = m_heap[parent];
        hole = parent;
    }
    m_heap[hole] = event;
}

bool
PurgingHeapScheduler::IsEmpty() const
{
    return m_heap.empty() && !HasPlaceholder();
}

Scheduler::Event
PurgingHeapScheduler::PeekNext() const
{
    NS_ASSERT(!IsEmpty());
    return HasPlaceholder() ? Placeholder() : m_heap.front();
}

Scheduler::Event
PurgingHeapScheduler::RemoveNext()
{
    NS_ASSERT(!IsEmpty());
    if (HasPlaceholder())
    {
        return TakePlaceholder();
    }
    const Event next = m_heap.front();
    const Event last = m_heap.back();
    m_heap.pop_back();
    const std::size_t size = m_heap.size();
    if (size > 0)
    {
        // The hole left by the front goes down to a leaf along the earlier child of each pair
        // (chosen without a branch), then the last event rises from there: fewer comparisons
        // than sifting it down, and no mispredicted branch per level.
        std::size_t hole = 0;
        std::size_t child = 2;
        for (; child < size; child = 2 * hole + 2)
        {
            child -= static_cast<std::size_t>(Earlier(m_heap[child - 1], m_heap[child]));
            m_heap[hole] = m_heap[child];
            hole = child;
        }
        if (child == size)
        {
            m_heap[hole] = m_heap[child - 1]; // a left child without a right one
            hole = child - 1;
        }
        Rise(hole, last);
    }
    NoteTaken(next.key);
    return next;
}

void
PurgingHeapScheduler::Remove(const Event& ev)
{
    NS_LOG_FUNCTION(this);
    // Simulator::Remove is rare (ns-3 models cancel): a linear search is enough.
    auto it = std::find_if(m_heap.begin(), m_heap.end(), [&ev](const Event& held) {
        return held.key.m_uid == ev.key.m_uid;
    });
    NS_ASSERT(it != m_heap.end());
    if (it == m_heap.end())
    {
        return;
    }
    *it = m_heap.back();
    m_heap.pop_back();
    std::make_heap(m_heap.begin(), m_heap.end(), Later{});
}

uint64_t
PurgingHeapScheduler::DropCancelled()
{
    auto live = std::partition(m_heap.begin(), m_heap.end(), [](const Event& event) {
        return !event.impl->IsCancelled();
    });
    const auto dropped = static_cast<uint64_t>(m_heap.end() - live);
    for (auto it = live; it != m_heap.end(); ++it)
    {
        // The list's reference; an EventId that still names the event keeps its own.
        it->impl->Unref();
    }
    m_heap.erase(live, m_heap.end());
    std::make_heap(m_heap.begin(), m_heap.end(), Later{});
    return dropped;
}

std::size_t
PurgingHeapScheduler::GetHeldCount() const
{
    return m_heap.size();
}

} // namespace ns3
