#include "purging-scheduler.h"

#include "ns3/log.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("ChakraPurgingScheduler");

NS_OBJECT_ENSURE_REGISTERED(PurgingScheduler);

namespace
{

/** Smallest list that is ever purged (smaller lists cost little whatever they hold). */
constexpr std::size_t kMinPurgeSize = 1u << 15;

/** The scheduler made last and still alive (GetCurrent). */
const PurgingScheduler* g_current = nullptr;

/** What a purged event becomes: cancelled, so the simulator skips it. */
class CancelledEvent : public EventImpl
{
  protected:
    void Notify() override
    {
    }
};

} // namespace

TypeId
PurgingScheduler::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::PurgingScheduler").SetParent<Scheduler>().SetGroupName("Chakra");
    return tid;
}

PurgingScheduler::PurgingScheduler()
    : m_purgeAt(kMinPurgeSize),
      m_cancelled(new CancelledEvent())
{
    NS_LOG_FUNCTION(this);
    m_cancelled->Cancel();
    g_current = this;
}

PurgingScheduler::~PurgingScheduler()
{
    NS_LOG_FUNCTION(this);
    if (g_current == this)
    {
        g_current = nullptr;
    }
    m_cancelled->Unref();
}

Scheduler::Event
PurgingScheduler::Placeholder() const
{
    // The key of the event handed out last: the placeholder runs "now" and neither moves the
    // clock nor makes an event of the current time look expired.
    Event event;
    event.impl = m_cancelled;
    event.key = m_current;
    return event;
}

Scheduler::Event
PurgingScheduler::TakePlaceholder()
{
    --m_placeholders;
    m_cancelled->Ref(); // the simulator releases every event it processes
    return Placeholder();
}

void
PurgingScheduler::Purge()
{
    NS_LOG_FUNCTION(this);
    const uint64_t dropped = DropCancelled();
    // The simulator counts the events it was given and processes one per scheduled event:
    // each purged event is still handed out, as a placeholder.
    m_placeholders += dropped;
    m_purged += dropped;
    m_purgeAt = std::max(kMinPurgeSize, 2 * GetHeldCount());
    m_peakPendingAtPurge = std::max(m_peakPendingAtPurge, GetHeldCount());
}

uint64_t
PurgingScheduler::GetPurgedCount() const
{
    return m_purged;
}

std::size_t
PurgingScheduler::GetPeakHeldCount() const
{
    return m_peakHeld;
}

std::size_t
PurgingScheduler::GetPeakPendingAtPurge() const
{
    return m_peakPendingAtPurge;
}

const PurgingScheduler*
PurgingScheduler::GetCurrent()
{
    return g_current;
}

} // namespace ns3
