#include "rdma-channel.h"

#include "rdma-net-device.h"

#include "ns3/log.h"
#include "ns3/node.h"
#include "ns3/simulator.h"

#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("ChakraRdmaChannel");

NS_OBJECT_ENSURE_REGISTERED(RdmaChannel);

TypeId
RdmaChannel::GetTypeId()
{
    static TypeId tid = TypeId("ns3::RdmaChannel")
                            .SetParent<Channel>()
                            .SetGroupName("Chakra")
                            .AddConstructor<RdmaChannel>()
                            .AddAttribute("Delay",
                                          "Propagation delay of the cable.",
                                          TimeValue(NanoSeconds(500)),
                                          MakeTimeAccessor(&RdmaChannel::m_delay),
                                          MakeTimeChecker(Time(0)));
    return tid;
}

RdmaChannel::RdmaChannel() = default;

void
RdmaChannel::DoDispose()
{
    NS_LOG_FUNCTION(this);
    m_devices[0] = nullptr;
    m_devices[1] = nullptr;
    Channel::DoDispose();
}

void
RdmaChannel::Attach(Ptr<RdmaNetDevice> device)
{
    NS_LOG_FUNCTION(this << device);
    if (m_attached == 2)
    {
        throw std::logic_error("RdmaChannel: a third device attached to a point-to-point link");
    }
    m_devices[m_attached++] = device;
}

void
RdmaChannel::Transmit(Ptr<RdmaNetDevice> sender, Ptr<Packet> packet, uint8_t priority, Time txTime)
{
    Ptr<RdmaNetDevice> receiver = m_devices[m_devices[0] == sender ? 1 : 0];
    // In the receiving node's context, as ns-3's point-to-point channel does (logs, MPI).
    Simulator::ScheduleWithContext(receiver->GetNode()->GetId(),
                                   txTime + m_delay,
                                   &RdmaNetDevice::Receive,
                                   receiver,
                                   packet,
                                   priority);
}

Ptr<RdmaNetDevice>
RdmaChannel::GetPeer(Ptr<const RdmaNetDevice> device) const
{
    return m_devices[m_devices[0] == device ? 1 : 0];
}

Time
RdmaChannel::GetDelay() const
{
    return m_delay;
}

std::size_t
RdmaChannel::GetNDevices() const
{
    return m_attached;
}

Ptr<NetDevice>
RdmaChannel::GetDevice(std::size_t i) const
{
    return i < m_attached ? m_devices[i] : nullptr;
}

} // namespace ns3
