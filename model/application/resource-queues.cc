#include "resource-queues.h"

#include "ns3/log.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("ResourceQueues");

std::string
ResourceQueues::ResourceOf(const EtNode& node)
{
    switch (node.GetType())
    {
    case ChakraProtoMsg::COMP_NODE:
    case ChakraProtoMsg::MEM_LOAD_NODE:
    case ChakraProtoMsg::MEM_STORE_NODE:
        if (node.IsCpuOp())
        {
            return "cpu thread " + std::to_string(node.GetTid().value_or(0));
        }
        return "stream " + std::to_string(node.GetStream().value_or(0));
    case ChakraProtoMsg::COMM_COLL_NODE:
    case ChakraProtoMsg::COMM_SEND_NODE:
    case ChakraProtoMsg::COMM_RECV_NODE:
        if (node.IsCpuOp() && node.GetTid())
        {
            return "cpu thread " + std::to_string(*node.GetTid());
        }
        if (!node.IsCpuOp() && node.GetStream())
        {
            return "stream " + std::to_string(*node.GetStream());
        }
        return "";
    default:
        return "";
    }
}

bool
ResourceQueues::Acquire(std::shared_ptr<const EtNode> node)
{
    NS_LOG_FUNCTION(this << node->GetId());
    const std::string resource = ResourceOf(*node);
    if (resource.empty())
    {
        return true;
    }
    if (m_busy[resource])
    {
        NS_LOG_LOGIC("node " << node->GetId() << " waits behind " << resource);
        m_waiting[resource].push_back(std::move(node));
        return false;
    }
    m_busy[resource] = true;
    return true;
}

std::shared_ptr<const EtNode>
ResourceQueues::Release(const EtNode& node)
{
    NS_LOG_FUNCTION(this << node.GetId());
    const std::string resource = ResourceOf(node);
    if (resource.empty())
    {
        return nullptr;
    }
    auto& queue = m_waiting[resource];
    if (queue.empty())
    {
        m_busy[resource] = false;
        return nullptr;
    }
    auto next = std::move(queue.front());
    queue.pop_front();
    return next;
}

std::vector<std::string>
ResourceQueues::DescribeWaiting() const
{
    std::vector<std::string> lines;
    for (const auto& [resource, queue] : m_waiting)
    {
        for (const auto& node : queue)
        {
            lines.push_back(node->Describe() + " queued behind " + resource);
        }
    }
    return lines;
}

} // namespace ns3
