/*
 * ScheduleMoved: schedules a callable by moving it into its event, not copying it.
 */
#ifndef CHAKRA_SCHEDULE_MOVED_H
#define CHAKRA_SCHEDULE_MOVED_H

#include "ns3/event-impl.h"
#include "ns3/nstime.h"
#include "ns3/ptr.h"
#include "ns3/simulator.h"

#include <cstddef>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

namespace ns3
{

/**
 * \ingroup chakra-transport
 * \brief Simulator::Schedule for a callable that should be moved, not copied, into its event.
 *
 * ns-3 3.37's MakeEvent takes a functor by value and copies it into the event (twice for a
 * lambda, and for bound arguments): a std::function, or a lambda holding one, is cloned each
 * time, with a heap allocation and the reference counts of what it captured. The transports
 * and collectives schedule a few such callbacks per simulated message, so at thousands of
 * ranks the clones were a large share of the run time (the flow model's scaling bench). This
 * event owns the callable, moved in once; ordering and cancellation are Simulator::Schedule's.
 *
 * The events of one callable type reuse each other's memory (a free list per type, kept for
 * the process): two events a simulated message at millions of messages, where the allocator's
 * blocks were a cache miss at each event's construction at thousands of ranks.
 *
 * \param delay when, from now
 * \param callable what to call (invoked once, then destroyed with the event)
 * \return the event's id
 */
template <typename Callable>
EventId
ScheduleMoved(const Time& delay, Callable&& callable)
{
    using Stored = std::decay_t<Callable>;

    class MovedEvent : public EventImpl
    {
      public:
        explicit MovedEvent(Stored&& stored)
            : m_callable(std::move(stored))
        {
        }

        static void* operator new(std::size_t size)
        {
            std::vector<void*>& blocks = FreeList();
            if (size != sizeof(MovedEvent) || blocks.empty())
            {
                return ::operator new(size);
            }
            void* block = blocks.back();
            blocks.pop_back();
            return block;
        }

        static void operator delete(void* block, std::size_t size)
        {
            if (size != sizeof(MovedEvent))
            {
                ::operator delete(block);
                return;
            }
            FreeList().push_back(block);
        }

      private:
        /** Blocks of freed events of this type, most recent last (still in the cache). */
        static std::vector<void*>& FreeList()
        {
            // Never destroyed: events may still be freed while the process exits.
            static auto* blocks = new std::vector<void*>();
            return *blocks;
        }

        void Notify() override
        {
            m_callable();
        }

        Stored m_callable;
    };

    Stored stored(std::forward<Callable>(callable));
    // The Ptr adopts the new event's one reference; Simulator::Schedule takes its own.
    Ptr<EventImpl> event(new MovedEvent(std::move(stored)), false);
    return Simulator::Schedule(delay, event);
}

} // namespace ns3

#endif // CHAKRA_SCHEDULE_MOVED_H
