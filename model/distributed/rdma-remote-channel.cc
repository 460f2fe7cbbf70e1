#include "rdma-remote-channel.h"

#include "ns3/header.h"
#include "ns3/log.h"
#include "ns3/rdma-net-device.h"
#include "ns3/simulator.h"

#ifdef NS3_MPI
#include "ns3/mpi-interface.h"
#include "ns3/mpi-receiver.h"
#endif

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("ChakraRdmaRemoteChannel");

NS_OBJECT_ENSURE_REGISTERED(RdmaRemoteChannel);

#ifdef NS3_MPI
namespace
{

/**
 * The priority class of a frame crossing processes: RdmaChannel passes it beside the packet,
 * MPI carries only the packet's bytes.
 */
class RdmaWireClassHeader : public Header
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::RdmaWireClassHeader")
                                .SetParent<Header>()
                                .SetGroupName("Chakra")
                                .AddConstructor<RdmaWireClassHeader>();
        return tid;
    }

    TypeId GetInstanceTypeId() const override
    {
        return GetTypeId();
    }

    uint32_t GetSerializedSize() const override
    {
        return 1;
    }

    void Serialize(Buffer::Iterator start) const override
    {
        start.WriteU8(m_priority);
    }

    uint32_t Deserialize(Buffer::Iterator start) override
    {
        m_priority = start.ReadU8();
        return 1;
    }

    void Print(std::ostream& os) const override
    {
        os << "class=" << static_cast<uint32_t>(m_priority);
    }

    uint8_t m_priority{0};
};

/** What the device's MpiReceiver calls: the frame, its class taken off the front. */
void
ReceiveFromProcess(Ptr<RdmaNetDevice> device, Ptr<Packet> packet)
{
    RdmaWireClassHeader wire;
    packet->RemoveHeader(wire);
    device->Receive(packet, wire.m_priority);
}

} // namespace
#endif

TypeId
RdmaRemoteChannel::GetTypeId()
{
    static TypeId tid = TypeId("ns3::RdmaRemoteChannel")
                            .SetParent<RdmaChannel>()
                            .SetGroupName("Chakra")
                            .AddConstructor<RdmaRemoteChannel>();
    return tid;
}

RdmaRemoteChannel::RdmaRemoteChannel() = default;

void
RdmaRemoteChannel::Attach(Ptr<RdmaNetDevice> device)
{
    NS_LOG_FUNCTION(this << device);
    RdmaChannel::Attach(device);
#ifdef NS3_MPI
    // Both ends get one, as ns-3's PointToPointHelper does: whichever end is local receives.
    Ptr<MpiReceiver> receiver = CreateObject<MpiReceiver>();
    receiver->SetReceiveCallback(MakeBoundCallback(&ReceiveFromProcess, device));
    device->AggregateObject(receiver);
#endif
}

void
RdmaRemoteChannel::Transmit(Ptr<RdmaNetDevice> sender,
                            Ptr<Packet> packet,
                            uint8_t priority,
                            Time txTime)
{
    NS_LOG_FUNCTION(this << sender << packet << priority << txTime);
#ifdef NS3_MPI
    Ptr<RdmaNetDevice> receiver = GetPeer(sender);
    if (MpiInterface::IsEnabled() &&
        receiver->GetNode()->GetSystemId() != MpiInterface::GetSystemId())
    {
        // A copy: the sender's packet may still be referenced on its side (traces).
        Ptr<Packet> frame = packet->Copy();
        RdmaWireClassHeader wire;
        wire.m_priority = priority;
        frame->AddHeader(wire);
        MpiInterface::SendPacket(frame,
                                 Simulator::Now() + txTime + GetDelay(),
                                 receiver->GetNode()->GetId(),
                                 receiver->GetIfIndex());
        return;
    }
#endif
    RdmaChannel::Transmit(sender, packet, priority, txTime);
}

Ptr<RdmaChannel>
CreateRdmaChannel(Ptr<Node> a, Ptr<Node> b)
{
    if (a->GetSystemId() != b->GetSystemId())
    {
        return CreateObject<RdmaRemoteChannel>();
    }
    return CreateObject<RdmaChannel>();
}

} // namespace ns3
