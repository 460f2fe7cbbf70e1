#include "ack-priority-queue.h"

#include "ns3/log.h"
#include "ns3/queue-size.h"
#include "ns3/uinteger.h"

#include <iterator>

namespace ns3
{

// The component the class's own g_log (NS_LOG_TEMPLATE_DEFINE in the constructor) looks up.
NS_LOG_COMPONENT_DEFINE("ChakraAckPriorityQueue");

NS_OBJECT_ENSURE_REGISTERED(AckPriorityQueue);

TypeId
AckPriorityQueue::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::AckPriorityQueue<Packet>") // ns-3 helpers name queues Type<Item>
            .SetParent<Queue<Packet>>()
            .SetGroupName("Chakra")
            .AddConstructor<AckPriorityQueue>()
            .AddAttribute("MaxSize",
                          "The max queue size",
                          QueueSizeValue(QueueSize("100p")),
                          MakeQueueSizeAccessor(&QueueBase::SetMaxSize, &QueueBase::GetMaxSize),
                          MakeQueueSizeChecker())
            .AddAttribute("SmallPacketSize",
                          "Packets of at most this many bytes (with link headers) go first: a "
                          "pure TCP ACK is 54 bytes on a point-to-point link.",
                          UintegerValue(128),
                          MakeUintegerAccessor(&AckPriorityQueue::m_smallPacketSize),
                          MakeUintegerChecker<uint32_t>());
    return tid;
}

AckPriorityQueue::AckPriorityQueue()
    : NS_LOG_TEMPLATE_DEFINE("ChakraAckPriorityQueue")
{
    NS_LOG_FUNCTION(this);
}

AckPriorityQueue::~AckPriorityQueue() = default;

bool
AckPriorityQueue::Enqueue(Ptr<Packet> item)
{
    NS_LOG_FUNCTION(this << item);
    if (item->GetSize() > m_smallPacketSize)
    {
        return DoEnqueue(GetContainer().end(), item);
    }
    // Behind the small packets already queued, ahead of every large one.
    auto position = GetContainer().begin();
    std::advance(position, m_small);
    if (!DoEnqueue(position, item))
    {
        return false;
    }
    ++m_small;
    return true;
}

Ptr<Packet>
AckPriorityQueue::Dequeue()
{
    NS_LOG_FUNCTION(this);
    Ptr<Packet> item = DoDequeue(GetContainer().begin());
    if (item && m_small > 0)
    {
        --m_small;
    }
    return item;
}

Ptr<Packet>
AckPriorityQueue::Remove()
{
    NS_LOG_FUNCTION(this);
    Ptr<Packet> item = DoRemove(GetContainer().begin());
    if (item && m_small > 0)
    {
        --m_small;
    }
    return item;
}

Ptr<const Packet>
AckPriorityQueue::Peek() const
{
    return DoPeek(GetContainer().begin());
}

} // namespace ns3
