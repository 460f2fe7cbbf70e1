#include "rdma-nic.h"

#include "rdma-transport.h"

#include "ns3/enum.h"
#include "ns3/log.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/trace-source-accessor.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <sstream>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("ChakraRdmaNic");
NS_OBJECT_ENSURE_REGISTERED(RdmaNic);

namespace
{
/** DSCP of RoCE data (the lossless class) and of ACK/NAK/CNP (common RoCE settings). */
constexpr uint8_t kDataDscp = 26;
constexpr uint8_t kControlDscp = 48;
} // namespace

TypeId
RdmaNic::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::RdmaNic")
            .SetParent<Object>()
            .SetGroupName("Chakra")
            .AddConstructor<RdmaNic>()
            .AddAttribute(
                "CongestionControl",
                "Congestion control of every queue pair: " + RdmaRateControl::ListModels() +
                    ". none sends at line rate (PFC alone keeps the fabric "
                    "lossless, as Meta's RoCE training fabrics run); each other "
                    "model's parameters are its TypeId's attributes "
                    "(ns3::DcqcnRateControl, ns3::DctcpRateControl, ns3::TimelyRateControl, "
                    "ns3::HpccRateControl, ns3::SwiftRateControl). dcqcn and dctcp need "
                    "ECN marking in the switches (ns3::RdmaSwitch::EcnEnabled); hpcc makes "
                    "them stamp in-band telemetry.",
                EnumValue(0),
                MakeEnumAccessor(&RdmaNic::m_congestionControl),
                RdmaRateControl::MakeModelChecker())
            .AddAttribute("Reordering",
                          "What a queue pair does with a packet that arrives before its turn: "
                          "go-back-n (drop it and NAK the missing one, RoCE's rule) or "
                          "selective (keep it and take it in order once the gap fills; a "
                          "timeout resends only the hole): for switches that spray packets "
                          "(ns3::RdmaSwitch::Routing spray, adaptive), as Ultra Ethernet and "
                          "Spectrum-X NICs do.",
                          EnumValue(GO_BACK_N),
                          MakeEnumAccessor(&RdmaNic::m_reordering),
                          MakeEnumChecker(GO_BACK_N, "go-back-n", SELECTIVE, "selective"))
            .AddAttribute("AckInterval",
                          "The receiver acknowledges every this many packets (and the last "
                          "packet of every message): RoCE NICs coalesce ACKs.",
                          UintegerValue(8),
                          MakeUintegerAccessor(&RdmaNic::m_ackInterval),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("CnpInterval",
                          "At most one CNP per queue pair per this interval (DCQCN's N: 50 us).",
                          TimeValue(MicroSeconds(50)),
                          MakeTimeAccessor(&RdmaNic::m_cnpInterval),
                          MakeTimeChecker())
            .AddAttribute("RetransmitTimeout",
                          "Go back N when nothing was acknowledged for this long while data "
                          "is unacknowledged (NAKs recover most losses sooner). About the IB "
                          "local ACK timeout 4.096 us x 2^10.",
                          TimeValue(MilliSeconds(4)),
                          MakeTimeAccessor(&RdmaNic::m_retransmitTimeout),
                          MakeTimeChecker(NanoSeconds(1)))
            .AddAttribute("PayloadSize",
                          "Message bytes per packet; 0: the port's MTU - 44 (IPv4, UDP, BTH, "
                          "ICRC). RoCE NICs cap it at the IB MTU (4096 at most).",
                          UintegerValue(0),
                          MakeUintegerAccessor(&RdmaNic::m_payloadSize),
                          MakeUintegerChecker<uint32_t>())
            .AddTraceSource("CnpReceived",
                            "A CNP arrived for the queue pair to this peer.",
                            MakeTraceSourceAccessor(&RdmaNic::m_cnpReceivedTrace),
                            "ns3::RdmaNic::CnpCallback")
            .AddTraceSource("CnpSent",
                            "A CNP left for this peer.",
                            MakeTraceSourceAccessor(&RdmaNic::m_cnpSentTrace),
                            "ns3::RdmaNic::CnpCallback")
            .AddTraceSource("GoBack",
                            "A queue pair went back to resend (peer, first PSN resent).",
                            MakeTraceSourceAccessor(&RdmaNic::m_goBackTrace),
                            "ns3::RdmaNic::GoBackCallback");
    return tid;
}

RdmaNic::RdmaNic() = default;

RdmaNic::~RdmaNic() = default;

void
RdmaNic::DoDispose()
{
    NS_LOG_FUNCTION(this);
    for (Port& port : m_ports)
    {
        port.device = nullptr;
        port.active.clear();
    }
    m_ports.clear();
    // Cancel, not Remove: disposal may come after the event list is gone.
    m_timer.Cancel();
    m_watched.clear();
    m_queuePairs.clear();
    m_transit = nullptr;
    m_deliver = nullptr;
    m_error = nullptr;
    m_topology.reset();
    Object::DoDispose();
}

void
RdmaNic::Setup(std::shared_ptr<const ClusterTopology> topology, uint32_t rank)
{
    NS_LOG_FUNCTION(this << rank);
    m_topology = std::move(topology);
    m_rank = rank;
}

uint32_t
RdmaNic::AddPort(Ptr<RdmaNetDevice> device)
{
    NS_LOG_FUNCTION(this << device);
    const auto index = static_cast<uint32_t>(m_ports.size());
    Port port;
    port.device = device;
    port.wakeAt = Time::Max();
    m_ports.push_back(port);
    device->AddDataSource([this, index]() { return Dequeue(index); });
    return index;
}

void
RdmaNic::SetTransitSwitch(Ptr<RdmaSwitch> transit)
{
    NS_LOG_FUNCTION(this << transit);
    m_transit = transit;
}

void
RdmaNic::SetDeliverCallback(DeliverCallback deliver)
{
    NS_LOG_FUNCTION(this);
    m_deliver = std::move(deliver);
    if (m_deliver && !m_early.empty())
    {
        std::vector<MessageHeader> early;
        early.swap(m_early);
        for (const auto& header : early)
        {
            m_deliver(header);
        }
    }
}

void
RdmaNic::SetErrorCallback(ErrorCallback error)
{
    NS_LOG_FUNCTION(this);
    m_error = std::move(error);
}

uint32_t
RdmaNic::GetRank() const
{
    return m_rank;
}

RdmaQueuePair&
RdmaNic::GetQueuePair(uint32_t peer)
{
    auto it = m_queuePairs.find(peer);
    if (it != m_queuePairs.end())
    {
        return *it->second;
    }
    RdmaQueuePair::Config config;
    config.localRank = m_rank;
    config.peerRank = peer;
    config.sourcePort = RdmaTransport::SourcePort(0);
    config.ackInterval = m_ackInterval;
    config.selective = m_reordering == SELECTIVE;
    config.cnpInterval = m_cnpInterval;
    config.dataDscp = kDataDscp;
    config.controlDscp = kControlDscp;
    uint32_t port = m_topology->SelectNextHop(m_rank, peer, RdmaTransport::FlowHash(m_rank, peer));
    if (port >= m_ports.size())
    {
        if (m_error)
        {
            m_error("no route from rank " + std::to_string(m_rank) + " to rank " +
                    std::to_string(peer));
        }
        port = 0;
    }
    config.port = port;
    // Packets fit the smallest MTU on the path (in direct-connect topologies a path may go from
    // NVLink-sized links to NIC-sized ones).
    uint32_t mtu = m_ports.at(port).device->GetMtu();
    std::vector<uint32_t> path;
    if (m_topology->GetPath(m_rank, peer, RdmaTransport::FlowHash(m_rank, peer), path))
    {
        for (uint32_t directed : path)
        {
            mtu = std::min(mtu, m_topology->GetLinks()[directed / 2].mtu);
        }
    }
    Ptr<RdmaRateControl> rateControl =
        RdmaRateControl::Create(RdmaRateControl::GetModelName(m_congestionControl));
    uint32_t mtuPayload = RdmaTransport::PayloadPerPacket(mtu);
    if (rateControl->GetFeedbackNeeds() & RdmaRateControl::FEEDBACK_TELEMETRY)
    {
        // The telemetry area rides in every data packet: frames must still fit the MTU.
        mtuPayload -= std::min(mtuPayload, RdmaFeedbackHeader::kDataBytes);
    }
    config.payloadPerPacket = m_payloadSize > 0 ? std::min(m_payloadSize, mtuPayload) : mtuPayload;
    config.payloadPerPacket = std::max<uint32_t>(config.payloadPerPacket, MessageHeader::kSize);
    auto queuePair = std::make_unique<RdmaQueuePair>(config,
                                                     rateControl,
                                                     m_ports[port].device->GetDataRate(),
                                                     Simulator::Now());
    RdmaQueuePair& ref = *queuePair;
    m_queuePairs.emplace(peer, std::move(queuePair));
    return ref;
}

const RdmaQueuePair*
RdmaNic::FindQueuePair(uint32_t peer) const
{
    auto it = m_queuePairs.find(peer);
    return it == m_queuePairs.end() ? nullptr : it->second.get();
}

void
RdmaNic::Send(uint32_t dstRank, const MessageHeader& header, RdmaQueuePair::Done done)
{
    NS_LOG_FUNCTION(this << dstRank);
    NS_LOG_INFO("rank " << m_rank << " posts " << header.payload << " bytes to rank " << dstRank
                        << " (" << header.key.ToString() << ")");
    RdmaQueuePair& queuePair = GetQueuePair(dstRank);
    queuePair.Post(header, std::move(done));
    Activate(queuePair);
}

void
RdmaNic::Activate(RdmaQueuePair& queuePair)
{
    NS_LOG_FUNCTION(this);
    Port& port = m_ports[queuePair.GetConfig().port];
    if (!queuePair.IsScheduled())
    {
        queuePair.SetScheduled(true);
        port.active.push_back(&queuePair);
    }
    port.device->Wake();
}

Ptr<Packet>
RdmaNic::Dequeue(uint32_t index)
{
    NS_LOG_FUNCTION(this << index);
    Port& port = m_ports[index];
    const Time now = Simulator::Now();
    Time earliest = Time::Max();
    std::size_t looked = 0;
    while (looked < port.active.size())
    {
        if (port.next >= port.active.size())
        {
            port.next = 0;
        }
        RdmaQueuePair* queuePair = port.active[port.next];
        if (!queuePair->HasDataToSend())
        {
            // Done for now: off the list until it has something again.
            queuePair->SetScheduled(false);
            port.active.erase(port.active.begin() + static_cast<std::ptrdiff_t>(port.next));
            continue;
        }
        if (queuePair->GetNextSendTime() <= now)
        {
            Ptr<Packet> packet = queuePair->NextPacket(now);
            ++port.next;
            ArmTimer(*queuePair);
            return packet;
        }
        earliest = std::min(earliest, queuePair->GetNextSendTime());
        ++port.next;
        ++looked;
    }
    if (earliest != Time::Max())
    {
        ScheduleWake(index, earliest);
    }
    return nullptr;
}

void
RdmaNic::ScheduleWake(uint32_t index, Time at)
{
    NS_LOG_FUNCTION(this << index << at);
    Port& port = m_ports[index];
    if (at >= port.wakeAt)
    {
        return; // an earlier wake-up is pending; it looks again
    }
    port.wakeAt = at;
    Simulator::Schedule(at - Simulator::Now(), &RdmaNic::WakePort, this, index);
}

void
RdmaNic::WakePort(uint32_t index)
{
    NS_LOG_FUNCTION(this << index);
    Port& port = m_ports[index];
    if (Simulator::Now() < port.wakeAt)
    {
        return; // superseded by an earlier wake-up, which already looked
    }
    port.wakeAt = Time::Max();
    port.device->Wake();
}

void
RdmaNic::ArmTimer(RdmaQueuePair& queuePair)
{
    NS_LOG_FUNCTION(this);
    const uint32_t peer = queuePair.GetConfig().peerRank;
    if (!queuePair.HasOutstanding())
    {
        // Nothing in flight: stop watching it, and take the NIC's timer out of the event list
        // once no queue pair needs it (a pending timer would run the clock up to 4 ms past the
        // run's last real event).
        if (queuePair.IsTimerPending())
        {
            queuePair.SetTimerPending(false);
            m_watched.erase(peer);
            if (m_watched.empty() && m_timer.IsRunning())
            {
                Simulator::Remove(m_timer);
            }
        }
        return;
    }
    if (queuePair.IsTimerPending())
    {
        return;
    }
    queuePair.SetTimerPending(true);
    m_watched.insert(peer);
    if (!m_timer.IsRunning())
    {
        // A queue pair that starts being watched now times out no earlier than any watched
        // before it (their last progress is no later than now), so a running timer is early
        // enough.
        const Time at = queuePair.GetTimeoutAt(m_retransmitTimeout);
        const Time now = Simulator::Now();
        m_timer = Simulator::Schedule(at > now ? at - now : Time(0), &RdmaNic::TimerFired, this);
    }
}

void
RdmaNic::TimerFired()
{
    NS_LOG_FUNCTION(this);
    const Time now = Simulator::Now();
    Time next = Time::Max();
    std::vector<RdmaQueuePair*> timedOut;
    for (auto it = m_watched.begin(); it != m_watched.end();)
    {
        RdmaQueuePair& queuePair = GetQueuePair(*it);
        if (!queuePair.HasOutstanding())
        {
            queuePair.SetTimerPending(false);
            it = m_watched.erase(it);
            continue;
        }
        if (queuePair.CheckTimeout(now, m_retransmitTimeout))
        {
            NS_LOG_INFO("rank " << m_rank << ": retransmission timeout towards rank " << *it);
            timedOut.push_back(&queuePair);
        }
        next = std::min(next, queuePair.GetTimeoutAt(m_retransmitTimeout));
        ++it;
    }
    if (next != Time::Max())
    {
        m_timer =
            Simulator::Schedule(next > now ? next - now : Time(0), &RdmaNic::TimerFired, this);
    }
    // After re-arming: resending may start watching other queue pairs, which then find the
    // timer running.
    for (RdmaQueuePair* queuePair : timedOut)
    {
        Activate(*queuePair);
    }
}

void
RdmaNic::SendControl(const RdmaQueuePair& queuePair, Ptr<Packet> packet)
{
    NS_LOG_FUNCTION(this << packet);
    m_ports[queuePair.GetConfig().port].device->SendControl(packet);
}

void
RdmaNic::Receive(uint32_t port, Ptr<Packet> packet, uint8_t priority)
{
    NS_LOG_FUNCTION(this << port << packet << static_cast<uint32_t>(priority));
    RoceV2Header header;
    packet->PeekHeader(header);
    if (RoceV2Header::RankOfAddress(header.GetDestination()) != m_rank)
    {
        if (m_transit)
        {
            m_transit->Receive(port, packet, priority);
        }
        else
        {
            ++m_misrouted;
            m_ports[port].device->NotifyDrop(packet);
        }
        return;
    }
    packet->RemoveHeader(header);
    RdmaFeedbackHeader feedback;
    if (header.HasFeedback())
    {
        packet->RemoveHeader(feedback);
    }
    const RdmaFeedbackHeader* carried = header.HasFeedback() ? &feedback : nullptr;
    const uint32_t peer = RoceV2Header::RankOfAddress(header.GetSource());
    RdmaQueuePair& queuePair = GetQueuePair(peer);
    const Time now = Simulator::Now();
    if (header.IsData())
    {
        RdmaQueuePair::RxActions actions;
        queuePair.OnData(header, carried, packet, now, actions);
        if (actions.sendCnp)
        {
            SendControl(queuePair, queuePair.MakeCnp());
            m_cnpSentTrace(peer);
        }
        if (actions.sendNak)
        {
            SendControl(queuePair, queuePair.MakeAck(actions.ackPsn, true));
        }
        if (actions.sendAck)
        {
            SendControl(queuePair,
                        queuePair.MakeAck(actions.ackPsn,
                                          false,
                                          actions.withFeedback ? &actions.ackFeedback : nullptr));
        }
        if (!actions.error.empty() && m_error)
        {
            m_error(actions.error);
        }
        for (const MessageHeader& message : actions.delivered)
        {
            NS_LOG_INFO("rank " << m_rank << " received " << message.payload << " bytes from rank "
                                << peer << " (" << message.key.ToString() << ")");
            if (m_deliver)
            {
                m_deliver(message);
            }
            else
            {
                m_early.push_back(message);
            }
        }
        return;
    }
    if (header.GetOpcode() == RoceV2Header::ACKNOWLEDGE)
    {
        std::vector<RdmaQueuePair::Done> completed;
        if (queuePair.OnAck(header, carried, now, completed))
        {
            m_goBackTrace(peer, header.GetPsn());
            Activate(queuePair);
        }
        else if (queuePair.GetWindow() > 0 && queuePair.HasDataToSend())
        {
            Activate(queuePair); // the ACK opened its window
        }
        ArmTimer(queuePair);
        for (auto& done : completed)
        {
            done();
        }
        return;
    }
    if (header.GetOpcode() == RoceV2Header::CNP)
    {
        queuePair.OnCnp(now);
        m_cnpReceivedTrace(peer);
    }
}

RdmaNic::Stats
RdmaNic::GetStats() const
{
    Stats stats;
    stats.queuePairs = m_queuePairs.size();
    stats.misrouted = m_misrouted;
    for (const auto& [peer, queuePair] : m_queuePairs)
    {
        const RdmaQueuePair::Stats& s = queuePair->GetStats();
        stats.dataPackets += s.dataPackets;
        stats.resentPackets += s.resentPackets;
        stats.naksSent += s.naksSent;
        stats.naksReceived += s.naksReceived;
        stats.cnpsSent += s.cnpsSent;
        stats.cnpsReceived += s.cnpsReceived;
        stats.timeouts += s.timeouts;
        stats.outOfOrder += s.outOfOrder;
        stats.duplicates += s.duplicates;
    }
    return stats;
}

void
RdmaNic::DescribePending(std::vector<std::string>& lines) const
{
    std::vector<uint32_t> peers;
    for (const auto& [peer, queuePair] : m_queuePairs)
    {
        if (queuePair->GetPendingMessages() > 0)
        {
            peers.push_back(peer);
        }
    }
    std::sort(peers.begin(), peers.end());
    for (uint32_t peer : peers)
    {
        const RdmaQueuePair& queuePair = *m_queuePairs.at(peer);
        std::ostringstream line;
        line << queuePair.GetPendingMessages() << " message(s) to rank " << peer
             << " not yet acknowledged (queue pair rate "
             << queuePair.GetRateControl()->GetRate(Simulator::Now()).GetBitRate() / 1e9
             << " Gbps, " << queuePair.GetStats().timeouts << " timeout(s))";
        lines.push_back(line.str());
    }
}

} // namespace ns3
