/*
 * AckPriorityQueue: a device queue that lets small packets (TCP ACKs) overtake data.
 */
#ifndef CHAKRA_ACK_PRIORITY_QUEUE_H
#define CHAKRA_ACK_PRIORITY_QUEUE_H

#include "ns3/log.h"
#include "ns3/packet.h"
#include "ns3/queue.h"

namespace ns3
{

/**
 * \ingroup chakra-transport
 * \brief A DropTail queue in which packets of at most SmallPacketSize bytes go ahead of the
 * larger ones (FIFO within each class).
 *
 * With one FIFO, the ACKs of the flow coming the other way wait behind this flow's queued
 * data (megabytes at line rate), which inflates that flow's round trip until its window, not
 * the link, limits it. Datacenter fabrics keep control traffic out of data queues (RDMA ACKs,
 * priority classes); this queue does the same for the simulated TCP.
 */
class AckPriorityQueue : public Queue<Packet>
{
  public:
    /** \return the TypeId */
    static TypeId GetTypeId();
    AckPriorityQueue();
    ~AckPriorityQueue() override;

    bool Enqueue(Ptr<Packet> item) override;
    Ptr<Packet> Dequeue() override;
    Ptr<Packet> Remove() override;
    Ptr<const Packet> Peek() const override;

  private:
    using Queue<Packet>::GetContainer;
    using Queue<Packet>::DoEnqueue;
    using Queue<Packet>::DoDequeue;
    using Queue<Packet>::DoRemove;
    using Queue<Packet>::DoPeek;

    uint32_t m_smallPacketSize; //!< packets up to this size have priority
    uint32_t m_small{0};        //!< small packets at the head of the container

    // Queue<Packet> declares a log component of its own: a subclass redeclares it (as ns-3's
    // DropTailQueue does), so that this class logs under its own name.
    NS_LOG_TEMPLATE_DECLARE; //!< the log component
};

} // namespace ns3

#endif // CHAKRA_ACK_PRIORITY_QUEUE_H
