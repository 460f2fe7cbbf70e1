#include "resource-queues.h"

#include "ns3/log.h"

#include <map>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("ResourceQueues");

ResourceQueues::Resource
ResourceQueues::KeyOf(const EtNode& node)
{
    Resource resource;
    switch (node.GetType())
    {
    case ChakraProtoMsg::COMP_NODE:
    case ChakraProtoMsg::MEM_LOAD_NODE:
    case ChakraProtoMsg::MEM_STORE_NODE:
        resource.none = false;
        resource.cpu = node.IsCpuOp();
        resource.number = (resource.cpu ? node.GetTid() : node.GetStream()).value_or(0);
        return resource;
    case ChakraProtoMsg::COMM_COLL_NODE:
    case ChakraProtoMsg::COMM_SEND_NODE:
    case ChakraProtoMsg::COMM_RECV_NODE: {
        resource.cpu = node.IsCpuOp();
        const std::optional<int64_t> number = resource.cpu ? node.GetTid() : node.GetStream();
        resource.none = !number;
        resource.number = number.value_or(0);
        return resource;
    }
    default:
        return resource;
    }
}

std::string
ResourceQueues::NameOf(const Resource& resource)
{
    if (resource.none)
    {
        return "";
    }
    return (resource.cpu ? "cpu thread " : "stream ") + std::to_string(resource.number);
}

std::string
ResourceQueues::ResourceOf(const EtNode& node)
{
    return NameOf(KeyOf(node));
}

bool
ResourceQueues::Acquire(std::shared_ptr<const EtNode> node)
{
    NS_LOG_FUNCTION(this << node->GetId());
    const Resource resource = KeyOf(*node);
    if (resource.none)
    {
        return true;
    }
    Queue& queue = QueueOf(resource);
    if (queue.busy)
    {
        NS_LOG_LOGIC("node " << node->GetId() << " waits behind " << NameOf(resource));
        queue.waiting.push_back(std::move(node));
        return false;
    }
    queue.busy = true;
    return true;
}

std::shared_ptr<const EtNode>
ResourceQueues::Release(const EtNode& node)
{
    NS_LOG_FUNCTION(this << node.GetId());
    const Resource resource = KeyOf(node);
    if (resource.none)
    {
        return nullptr;
    }
    Queue& queue = QueueOf(resource);
    if (queue.waiting.empty())
    {
        queue.busy = false;
        return nullptr;
    }
    auto next = std::move(queue.waiting.front());
    queue.waiting.pop_front();
    return next;
}

ResourceQueues::Queue&
ResourceQueues::QueueOf(const Resource& resource)
{
    for (Queue& queue : m_queues)
    {
        if (!(queue.resource < resource) && !(resource < queue.resource))
        {
            return queue;
        }
    }
    m_queues.push_back(Queue{resource, false, {}});
    return m_queues.back();
}

std::vector<std::string>
ResourceQueues::DescribeWaiting() const
{
    // In the order of the resources' names, as when the queues were kept by name.
    std::map<std::string, const std::deque<std::shared_ptr<const EtNode>>*> byName;
    for (const Queue& queue : m_queues)
    {
        byName[NameOf(queue.resource)] = &queue.waiting;
    }
    std::vector<std::string> lines;
    for (const auto& [resource, queue] : byName)
    {
        for (const auto& node : *queue)
        {
            lines.push_back(node->Describe() + " queued behind " + resource);
        }
    }
    return lines;
}

} // namespace ns3
