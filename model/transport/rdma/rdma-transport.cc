#include "rdma-transport.h"

#include "rdma-nic.h"

#include "ns3/log.h"

#include <limits>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("ChakraRdmaTransport");
NS_OBJECT_ENSURE_REGISTERED(RdmaTransport);

TypeId
RdmaTransport::GetTypeId()
{
    static TypeId tid = TypeId("ns3::RdmaTransport")
                            .SetParent<CommTransport>()
                            .SetGroupName("Chakra")
                            .AddConstructor<RdmaTransport>();
    return tid;
}

RdmaTransport::RdmaTransport() = default;

RdmaTransport::~RdmaTransport() = default;

uint32_t
RdmaTransport::PayloadPerPacket(uint32_t mtu)
{
    return mtu - RoceV2Header::kDataOverhead;
}

uint64_t
RdmaTransport::WireBytes(uint64_t payload, uint32_t mtu)
{
    const uint64_t stream = MessageHeader::kSize + payload;
    const uint64_t perPacket = PayloadPerPacket(mtu);
    const uint64_t packets = (stream + perPacket - 1) / perPacket;
    return stream + packets * kPacketOverhead;
}

uint16_t
RdmaTransport::SourcePort(uint32_t queuePair)
{
    return static_cast<uint16_t>(49152 + (queuePair & 0x3fff));
}

uint64_t
RdmaTransport::FlowHash(uint32_t srcRank, uint32_t dstRank, uint32_t queuePair)
{
    return RoceV2Header::FlowHash(srcRank, dstRank, SourcePort(queuePair));
}

std::string
RdmaTransport::GetModelName() const
{
    return "rdma";
}

void
RdmaTransport::DoDispose()
{
    NS_LOG_FUNCTION(this);
    if (m_nic)
    {
        m_nic->SetDeliverCallback(nullptr);
        m_nic->SetErrorCallback(nullptr);
    }
    m_nic = nullptr;
    CommTransport::DoDispose();
}

Ptr<RdmaNic>
RdmaTransport::Nic()
{
    NS_LOG_FUNCTION(this);
    if (!m_nic && !m_missingReported)
    {
        m_nic = GetNode() ? GetNode()->GetObject<RdmaNic>() : nullptr;
        if (!m_nic)
        {
            m_missingReported = true;
            Fatal("rank " + std::to_string(GetRank()) +
                  ": the rdma transport needs an RDMA NIC on its node (build the cluster with "
                  "transport rdma, i.e. RdmaFabric)");
        }
        else
        {
            m_nic->SetDeliverCallback([this](const MessageHeader& header) { Deliver(header); });
            m_nic->SetErrorCallback([this](const std::string& error) {
                AddError("rank " + std::to_string(GetRank()) + ": " + error);
            });
        }
    }
    return m_nic;
}

void
RdmaTransport::Start()
{
    NS_LOG_FUNCTION(this);
    Nic();
}

void
RdmaTransport::DoSend(uint32_t dst, const MessageHeader& header, Done done)
{
    NS_LOG_FUNCTION(this << dst);
    // The NICs know ranks by their place in the fabric (several jobs share it).
    const uint32_t to = FabricRank(dst);
    if (to == std::numeric_limits<uint32_t>::max())
    {
        Fatal("rank " + std::to_string(GetRank()) + " sends to rank " + std::to_string(dst) +
              ", which is not a rank of its job");
        return;
    }
    if (Ptr<RdmaNic> nic = Nic())
    {
        nic->Send(to, header, std::move(done));
    }
}

void
RdmaTransport::DescribeModelPending(std::vector<std::string>& lines) const
{
    if (m_nic)
    {
        m_nic->DescribePending(lines);
    }
}

} // namespace ns3
