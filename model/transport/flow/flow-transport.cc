#include "flow-transport.h"

#include "ns3/log.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("ChakraFlowTransport");
NS_OBJECT_ENSURE_REGISTERED(FlowTransport);

TypeId
FlowTransport::GetTypeId()
{
    static TypeId tid = TypeId("ns3::FlowTransport")
                            .SetParent<CommTransport>()
                            .SetGroupName("Chakra")
                            .AddConstructor<FlowTransport>();
    return tid;
}

FlowTransport::FlowTransport() = default;

FlowTransport::~FlowTransport() = default;

std::string
FlowTransport::GetModelName() const
{
    return "flow";
}

void
FlowTransport::Attach(Ptr<FlowNetwork> network, uint32_t rank)
{
    NS_LOG_FUNCTION(this << network << rank);
    if (m_network)
    {
        m_network->Detach(m_attachedRank, this);
    }
    m_network = network;
    m_attachedRank = rank;
    m_network->Attach(rank, this);
}

void
FlowTransport::DoDispose()
{
    NS_LOG_FUNCTION(this);
    if (m_network)
    {
        m_network->Detach(m_attachedRank, this);
    }
    m_network = nullptr;
    CommTransport::DoDispose();
}

bool
FlowTransport::CheckReachable(uint32_t dst, uint32_t& to)
{
    if (!m_network)
    {
        Fatal("rank " + std::to_string(GetRank()) +
              ": the flow transport has no network (build the cluster with Transport=flow, "
              "which wires it through FlowFabric)");
        return false;
    }
    // The network knows ranks by their place in the fabric (several jobs share it).
    to = FabricRank(dst);
    if (!m_network->GetEndpoint(to))
    {
        Fatal("rank " + std::to_string(GetRank()) + " sends to rank " + std::to_string(dst) +
              ", which has no flow transport (no such rank in the cluster)");
        return false;
    }
    return true;
}

void
FlowTransport::NoRoute(uint32_t dst)
{
    Fatal("rank " + std::to_string(GetRank()) + " cannot reach rank " + std::to_string(dst) +
          ": no route in topology '" + m_network->GetTopology()->GetName() + "'");
}

void
FlowTransport::DoSend(uint32_t dst, const MessageHeader& header, Done done)
{
    NS_LOG_FUNCTION(this << dst);
    uint32_t to = 0;
    if (CheckReachable(dst, to) &&
        !m_network->SendMessage(m_attachedRank, to, header, std::move(done)))
    {
        NoRoute(dst);
    }
}

void
FlowTransport::DoSendCounted(uint32_t dst, const MessageHeader& header, DoneAt done)
{
    NS_LOG_FUNCTION(this << dst);
    uint32_t to = 0;
    if (CheckReachable(dst, to) &&
        !m_network->SendMessageCounted(m_attachedRank, to, header, std::move(done)))
    {
        NoRoute(dst);
    }
}

void
FlowTransport::Arrive(const MessageHeader& header)
{
    NS_LOG_FUNCTION(this);
    if (m_network)
    {
        Deliver(header);
    }
}

void
FlowTransport::DescribeModelPending(std::vector<std::string>& lines) const
{
    if (m_network)
    {
        m_network->DescribePending(m_attachedRank, lines);
    }
}

} // namespace ns3
