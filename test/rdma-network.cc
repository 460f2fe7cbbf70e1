#include "rdma-network.h"

#include "ns3/config.h"
#include "ns3/rocev2-header.h"
#include "ns3/simulator.h"

namespace rdmatest
{

using namespace ns3;

Fresh::~Fresh()
{
    Simulator::Destroy();
    Config::Reset();
}

Network
Install(std::shared_ptr<ClusterTopology> topology)
{
    Network network;
    network.topology = topology;
    network.nodes.Create(static_cast<uint32_t>(topology->GetNodes().size()));
    network.fabric = CreateObject<RdmaFabric>();
    network.fabric->Install(topology, network.nodes);
    return network;
}

std::shared_ptr<ClusterTopology>
Star(uint32_t gpus, const std::string& rate, Time delay)
{
    auto topology = std::make_shared<ClusterTopology>();
    for (uint32_t g = 0; g < gpus; ++g)
    {
        topology->AddGpu(g);
    }
    const uint32_t sw = topology->AddSwitch(ClusterTopology::SWITCH, 0, "switch");
    for (uint32_t g = 0; g < gpus; ++g)
    {
        topology->AddLink(g, sw, DataRate(rate), delay, 9000, ClusterTopology::SCALE_OUT);
    }
    return topology;
}

void
BytesBySource::Count(Ptr<const Packet> packet)
{
    const Time now = Simulator::Now();
    if (now < from || now > to)
    {
        return;
    }
    RoceV2Header header;
    packet->PeekHeader(header);
    if (header.IsData())
    {
        bytes[RoceV2Header::RankOfAddress(header.GetSource())] += packet->GetSize();
    }
}

MessageHeader
Message(uint32_t src, uint64_t payload, int64_t tag)
{
    MessageHeader header;
    header.src = src;
    header.key.kind = MessageKey::P2P;
    header.key.tag = tag;
    header.payload = payload;
    return header;
}

} // namespace rdmatest
