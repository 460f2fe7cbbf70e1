#include "rdma-switch.h"

#include "pfc-header.h"
#include "rdma-channel.h"
#include "rdma-feedback-header.h"
#include "rocev2-header.h"

#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/enum.h"
#include "ns3/log.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <limits>
#include <stdexcept>

namespace ns3
{

/** 128-bit products of picoseconds and bit rates (__extension__: GCC's type, kept pedantic-clean).
 */
__extension__ typedef unsigned __int128 Uint128;

NS_LOG_COMPONENT_DEFINE("ChakraRdmaSwitch");
NS_OBJECT_ENSURE_REGISTERED(RdmaSwitch);

TypeId
RdmaSwitch::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::RdmaSwitch")
            .SetParent<Object>()
            .SetGroupName("Chakra")
            .AddConstructor<RdmaSwitch>()
            .AddAttribute("BufferSize",
                          "Shared packet buffer of the switch, bytes (headroom included).",
                          UintegerValue(32u << 20),
                          MakeUintegerAccessor(&RdmaSwitch::m_bufferSize),
                          MakeUintegerChecker<uint64_t>(1))
            .AddAttribute("PfcEnabled",
                          "Send PFC PAUSE upstream instead of dropping (lossless data class).",
                          BooleanValue(true),
                          MakeBooleanAccessor(&RdmaSwitch::m_pfcEnabled),
                          MakeBooleanChecker())
            .AddAttribute("PfcThreshold",
                          "XOFF threshold of an ingress port: dynamic (PfcAlpha x free shared "
                          "buffer) or static (PfcStaticThreshold). With PFC off, the same "
                          "threshold decides drops.",
                          EnumValue(DYNAMIC),
                          MakeEnumAccessor(&RdmaSwitch::m_thresholdMode),
                          MakeEnumChecker(DYNAMIC, "dynamic", STATIC, "static"))
            .AddAttribute("PfcStaticThreshold",
                          "Static XOFF threshold per ingress port, bytes.",
                          UintegerValue(256u << 10),
                          MakeUintegerAccessor(&RdmaSwitch::m_staticThreshold),
                          MakeUintegerChecker<uint64_t>())
            .AddAttribute("PfcAlpha",
                          "Dynamic threshold: an ingress port may hold alpha x the free shared "
                          "buffer.",
                          DoubleValue(0.125),
                          MakeDoubleAccessor(&RdmaSwitch::m_alpha),
                          MakeDoubleChecker<double>(0))
            .AddAttribute("Headroom",
                          "Headroom reserved per port, bytes; 0: computed from the port's "
                          "link (2 x delay x rate + 3 largest frames + a PFC frame).",
                          UintegerValue(0),
                          MakeUintegerAccessor(&RdmaSwitch::m_headroomAttribute),
                          MakeUintegerChecker<uint64_t>())
            .AddAttribute("ResumeOffset",
                          "RESUME once an ingress port holds this much below its threshold, "
                          "bytes; 0: two largest frames of the port.",
                          UintegerValue(0),
                          MakeUintegerAccessor(&RdmaSwitch::m_resumeOffsetAttribute),
                          MakeUintegerChecker<uint64_t>())
            .AddAttribute("PauseQuanta",
                          "Pause time of a PAUSE frame, in 512-bit-time quanta (refreshed "
                          "every half pause while the port stays over its threshold).",
                          UintegerValue(PfcHeader::kMaxQuanta),
                          MakeUintegerAccessor(&RdmaSwitch::m_pauseQuanta),
                          MakeUintegerChecker<uint16_t>(2))
            .AddAttribute("Routing",
                          "How a packet picks among equal-cost ports: ecmp (per flow, by "
                          "hash), spray (per packet, in turn), flowlet (a flow changes port "
                          "after a gap of FlowletTimeout, at random), adaptive (per packet, the "
                          "port with the fewest bytes queued). spray and adaptive reorder "
                          "packets: use ns3::RdmaNic::Reordering=selective with them.",
                          EnumValue(ECMP),
                          MakeEnumAccessor(&RdmaSwitch::m_routing),
                          MakeEnumChecker(ECMP,
                                          "ecmp",
                                          SPRAY,
                                          "spray",
                                          FLOWLET,
                                          "flowlet",
                                          ADAPTIVE,
                                          "adaptive"))
            .AddAttribute("FlowletTimeout",
                          "flowlet: a gap longer than this between two packets of a flow "
                          "starts a new flowlet, which may take another port (LetFlow's "
                          "flowlet timeout; here above the fabric's round trip, so that a "
                          "flowlet's packets cannot overtake the previous one's).",
                          TimeValue(MicroSeconds(50)),
                          MakeTimeAccessor(&RdmaSwitch::m_flowletTimeout),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("EcnEnabled",
                          "Mark ECN-capable data packets CE on egress (RED on the queue).",
                          BooleanValue(true),
                          MakeBooleanAccessor(&RdmaSwitch::m_ecnEnabled),
                          MakeBooleanChecker())
            .AddAttribute("EcnKmin",
                          "RED: no marking up to this egress queue, bytes (DCQCN's 40 Gbps "
                          "deployment: 5 KB); 0: EcnKminPerGbps x the port's rate.",
                          UintegerValue(5000),
                          MakeUintegerAccessor(&RdmaSwitch::m_kMin),
                          MakeUintegerChecker<uint64_t>())
            .AddAttribute("EcnKmax",
                          "RED: marking probability EcnPmax at this queue, 1 above, bytes "
                          "(DCQCN's 40 Gbps deployment: 200 KB); 0: EcnKmaxPerGbps x the port's "
                          "rate.",
                          UintegerValue(200000),
                          MakeUintegerAccessor(&RdmaSwitch::m_kMax),
                          MakeUintegerChecker<uint64_t>())
            .AddAttribute("EcnKminPerGbps",
                          "Kmin of a port per Gbps of its rate when EcnKmin is 0, bytes "
                          "(ASTRA-sim's ns-3 configuration: 400 KB at 100 Gbps).",
                          UintegerValue(4000),
                          MakeUintegerAccessor(&RdmaSwitch::m_kMinPerGbps),
                          MakeUintegerChecker<uint64_t>())
            .AddAttribute("EcnKmaxPerGbps",
                          "Kmax of a port per Gbps of its rate when EcnKmax is 0, bytes "
                          "(ASTRA-sim's ns-3 configuration: 1600 KB at 100 Gbps).",
                          UintegerValue(16000),
                          MakeUintegerAccessor(&RdmaSwitch::m_kMaxPerGbps),
                          MakeUintegerChecker<uint64_t>())
            .AddAttribute("EcnPmax",
                          "RED: marking probability at EcnKmax (DCQCN's 40 Gbps deployment: 1%; "
                          "ASTRA-sim's ns-3 configuration: 20%).",
                          DoubleValue(0.01),
                          MakeDoubleAccessor(&RdmaSwitch::m_pMax),
                          MakeDoubleChecker<double>(0, 1));
    return tid;
}

RdmaSwitch::RoutingMode
RdmaSwitch::GetDefaultRouting()
{
    TypeId::AttributeInformation info;
    [[maybe_unused]] const bool found = GetTypeId().LookupAttributeByName("Routing", &info);
    NS_ASSERT(found);
    return static_cast<RoutingMode>(DynamicCast<const EnumValue>(info.initialValue)->Get());
}

bool
RdmaSwitch::RoutesEachPacket(RoutingMode mode)
{
    return mode == SPRAY || mode == ADAPTIVE;
}

RdmaSwitch::RdmaSwitch()
    : m_random(CreateObject<UniformRandomVariable>())
{
    NS_LOG_FUNCTION(this);
}

RdmaSwitch::~RdmaSwitch() = default;

void
RdmaSwitch::DoDispose()
{
    NS_LOG_FUNCTION(this);
    for (Port& port : m_ports)
    {
        port.refresh.Cancel();
        port.queue.clear();
        port.device = nullptr;
    }
    m_ports.clear();
    m_topology.reset();
    Object::DoDispose();
}

void
RdmaSwitch::DoInitialize()
{
    NS_LOG_FUNCTION(this);
    SizeBuffer();
    Object::DoInitialize();
}

void
RdmaSwitch::SetTopology(std::shared_ptr<const ClusterTopology> topology, uint32_t node)
{
    NS_LOG_FUNCTION(this << node);
    m_topology = std::move(topology);
    m_node = node;
    m_routes.assign(m_topology->GetRankCount(), kNotComputed);
}

uint32_t
RdmaSwitch::AddPort(Ptr<RdmaNetDevice> device, bool ecn)
{
    NS_LOG_FUNCTION(this << device << ecn);
    const auto index = static_cast<uint32_t>(m_ports.size());
    Port port;
    port.device = device;
    port.ecn = ecn;
    m_ports.push_back(port);
    device->AddDataSource([this, index]() { return Dequeue(index); });
    m_sized = false;
    return index;
}

void
RdmaSwitch::SetEcnEnabled(bool enabled)
{
    NS_LOG_FUNCTION(this << enabled);
    m_ecnEnabled = enabled;
}

void
RdmaSwitch::SizeBuffer()
{
    NS_LOG_FUNCTION(this);
    if (m_sized)
    {
        return;
    }
    m_dynamic = m_thresholdMode == DYNAMIC;
    // In 128 bits: a long cable's nanoseconds times a high rate pass 64 bits (1,000,000 s at
    // 3.6 Tbps: 7e27), and a sum of headrooms that wrapped could pass for a small one.
    constexpr Uint128 kMaxBytes = std::numeric_limits<uint64_t>::max();
    Uint128 reserved = 0;
    for (Port& port : m_ports)
    {
        const uint64_t frame = port.device->GetMtu() + RdmaNetDevice::kFramingBytes;
        const uint64_t bitRate = port.device->GetDataRate().GetBitRate();
        const Time delay =
            port.device->GetRdmaChannel() ? port.device->GetRdmaChannel()->GetDelay() : Time(0);
        // Bytes on the cable in a round trip, in integers (ns x bit/s / 8e9, rounded up; from
        // nanoseconds, the time resolution, whose conversion to picoseconds could overflow).
        const Uint128 roundTrip =
            (2 * static_cast<Uint128>(std::max<int64_t>(delay.GetNanoSeconds(), 0)) * bitRate +
             8000000000ull - 1) /
            8000000000ull;
        // What can still arrive after this port decides to pause: the PFC frame waits for the
        // frame being sent upstream (1), crosses the cable, the upstream port finishes its
        // frame (2) and what is on the cable arrives; one more frame for the packet that
        // crossed the threshold.
        const auto computed = static_cast<uint64_t>(
            std::min(roundTrip + 3 * frame + PfcHeader::kSize + RdmaNetDevice::kFramingBytes,
                     kMaxBytes));
        port.headroom =
            m_pfcEnabled ? (m_headroomAttribute > 0 ? m_headroomAttribute : computed) : 0;
        port.resumeOffset = m_resumeOffsetAttribute > 0 ? m_resumeOffsetAttribute : 2 * frame;
        // ECN thresholds in proportion to the port's rate unless set: a queue of a given size
        // drains 4 times faster at 400 Gbps than at 100 Gbps, so the same bytes mean less
        // congestion. Kmax stays above Kmin (the RED slope divides by their difference).
        const uint64_t gbps = (bitRate + 999999999) / 1000000000;
        port.kMin = m_kMin > 0 ? m_kMin : m_kMinPerGbps * gbps;
        port.kMax = std::max(m_kMax > 0 ? m_kMax : m_kMaxPerGbps * gbps, port.kMin + 1);
        reserved += port.headroom;
    }
    if (reserved >= m_bufferSize)
    {
        std::string where = "RdmaSwitch of node " + std::to_string(m_node);
        if (m_topology && m_node < m_topology->GetNodes().size() &&
            !m_topology->GetNodes()[m_node].label.empty())
        {
            where += " (" + m_topology->GetNodes()[m_node].label + ")";
        }
        const std::string bytes = reserved > kMaxBytes
                                      ? std::string("over 2^64")
                                      : std::to_string(static_cast<uint64_t>(reserved));
        throw std::invalid_argument(
            where + ": BufferSize (" + std::to_string(m_bufferSize) +
            " bytes) does not cover the PFC headroom of its " + std::to_string(m_ports.size()) +
            " ports (" + bytes +
            " bytes: what a pause's round trip lets in, see ns3::RdmaSwitch::Headroom); raise "
            "ns3::RdmaSwitch::BufferSize or shorten the links' latency");
    }
    m_sharedSize = m_bufferSize - static_cast<uint64_t>(reserved);
    m_sized = true;
}

void
RdmaSwitch::SetRankJobs(std::shared_ptr<const std::vector<uint32_t>> jobOfRank, uint32_t jobs)
{
    NS_LOG_FUNCTION(this << jobs);
    m_jobOfRank = std::move(jobOfRank);
    for (Port& port : m_ports)
    {
        port.jobBytes.assign(jobs + 1, 0);
    }
}

const std::vector<uint64_t>&
RdmaSwitch::GetJobBytes(uint32_t port) const
{
    return m_ports.at(port).jobBytes;
}

uint64_t
RdmaSwitch::GetXoffThreshold() const
{
    if (!m_dynamic)
    {
        return m_staticThreshold;
    }
    return static_cast<uint64_t>(m_alpha * static_cast<double>(m_sharedSize - m_sharedUsed));
}

uint32_t
RdmaSwitch::Route(const RoceV2Header& header, uint32_t& dstRank, uint32_t& srcRank)
{
    NS_LOG_FUNCTION(this);
    dstRank = RoceV2Header::RankOfAddress(header.GetDestination());
    srcRank = RoceV2Header::RankOfAddress(header.GetSource());
    if (dstRank >= m_routes.size())
    {
        return kUnreachable;
    }
    uint32_t& cached = m_routes[dstRank];
    if (cached == kNotComputed)
    {
        m_topology->GetNextHops(m_node, dstRank, m_scratch);
        cached = m_scratch.empty() ? kUnreachable : (m_scratch.size() == 1 ? m_scratch[0] : kEcmp);
    }
    if (cached != kEcmp)
    {
        return cached;
    }
    if (m_routing != ECMP)
    {
        return RouteAmong(header, dstRank, srcRank);
    }
    const uint64_t hash = RoceV2Header::FlowHash(srcRank, dstRank, header.GetSourcePort());
    const uint32_t port = m_topology->SelectNextHop(m_node, dstRank, hash);
    return port < m_ports.size() ? port : kUnreachable;
}

uint32_t
RdmaSwitch::RouteAmong(const RoceV2Header& header, uint32_t dstRank, uint32_t srcRank)
{
    NS_LOG_FUNCTION(this << dstRank << srcRank);
    m_topology->GetNextHops(m_node, dstRank, m_scratch);
    const auto ways = static_cast<uint32_t>(m_scratch.size());
    if (m_turn.size() < m_routes.size())
    {
        m_turn.assign(m_routes.size(), 0);
    }
    uint32_t port = m_scratch[0];
    if (m_routing == SPRAY)
    {
        port = m_scratch[m_turn[dstRank]++ % ways];
    }
    else if (m_routing == ADAPTIVE)
    {
        // The shortest egress queue; among equal ones, the next in turn (so that idle ports
        // share the load instead of the first taking everything).
        const uint32_t start = m_turn[dstRank]++;
        uint64_t best = UINT64_MAX;
        for (uint32_t k = 0; k < ways; ++k)
        {
            const uint32_t candidate = m_scratch[(start + k) % ways];
            if (candidate < m_ports.size() && m_ports[candidate].queueBytes < best)
            {
                best = m_ports[candidate].queueBytes;
                port = candidate;
            }
        }
    }
    else
    {
        const uint64_t hash = RoceV2Header::FlowHash(srcRank, dstRank, header.GetSourcePort());
        const Time now = Simulator::Now();
        auto [it, fresh] = m_flowlets.try_emplace(hash);
        Flowlet& flowlet = it->second;
        const bool known = !fresh && std::find(m_scratch.begin(), m_scratch.end(), flowlet.port) !=
                                         m_scratch.end();
        if (!known || now - flowlet.last > m_flowletTimeout)
        {
            flowlet.port = m_scratch[m_random->GetInteger(0, ways - 1)];
        }
        flowlet.last = now;
        port = flowlet.port;
    }
    return port < m_ports.size() ? port : kUnreachable;
}

void
RdmaSwitch::Receive(uint32_t inPort, Ptr<Packet> packet, uint8_t priority)
{
    NS_LOG_FUNCTION(this << inPort << packet << static_cast<uint32_t>(priority));
    SizeBuffer();
    RoceV2Header header;
    packet->PeekHeader(header);
    uint32_t dstRank = 0;
    uint32_t srcRank = 0;
    const uint32_t out = Route(header, dstRank, srcRank);
    if (out == kUnreachable || out >= m_ports.size())
    {
        NS_LOG_WARN("switch node " << m_node << ": no route to rank " << dstRank);
        m_ports[inPort].device->NotifyDrop(packet);
        return;
    }
    if (priority != RdmaNetDevice::kDataPriority)
    {
        m_ports[out].device->SendControl(packet);
        return;
    }
    Port& in = m_ports[inPort];
    const uint32_t bytes = packet->GetSize();
    const uint64_t threshold = GetXoffThreshold();
    Entry entry{packet, inPort, bytes, false, false, header.HasFeedback() && header.IsData()};
    if (in.sharedBytes + bytes <= threshold && m_sharedUsed + bytes <= m_sharedSize)
    {
        in.sharedBytes += bytes;
        m_sharedUsed += bytes;
    }
    else if (m_pfcEnabled && in.headroomBytes + bytes <= in.headroom)
    {
        in.headroomBytes += bytes;
        entry.inHeadroom = true;
    }
    else
    {
        // PFC off: beyond the threshold or a full buffer. PFC on: the headroom overflowed
        // (a headroom set below what the link needs).
        in.device->NotifyDrop(packet);
        return;
    }
    in.device->NotifyIngressBytes(in.sharedBytes + in.headroomBytes);
    if (m_pfcEnabled && !in.xoff && (entry.inHeadroom || in.sharedBytes >= threshold))
    {
        Pause(inPort);
    }
    if (m_ecnEnabled)
    {
        entry.ect = header.GetEcn() == RoceV2Header::ECT0 || header.GetEcn() == RoceV2Header::ECT1;
    }
    Port& outPort = m_ports[out];
    if (m_jobOfRank)
    {
        const uint32_t none = static_cast<uint32_t>(outPort.jobBytes.size() - 1);
        outPort.jobBytes[srcRank < m_jobOfRank->size() ? (*m_jobOfRank)[srcRank] : none] += bytes;
    }
    outPort.queue.push_back(entry);
    outPort.queueBytes += bytes;
    outPort.device->NotifyQueueBytes(outPort.queueBytes);
    outPort.device->Wake();
}

Ptr<Packet>
RdmaSwitch::Dequeue(uint32_t index)
{
    NS_LOG_FUNCTION(this << index);
    Port& port = m_ports[index];
    if (port.queue.empty())
    {
        return nullptr;
    }
    Entry entry = port.queue.front();
    port.queue.pop_front();
    port.queueBytes -= entry.bytes;
    Release(entry);
    // Marking on departure, on what is still queued behind the packet: the freshest view of
    // the queue, and none on a port that only forwards at line rate.
    const bool mark = m_ecnEnabled && port.ecn && entry.ect && port.queueBytes > port.kMin &&
                      m_random->GetValue() < MarkProbability(port, port.queueBytes);
    if (mark || entry.telemetry)
    {
        RoceV2Header header;
        entry.packet->RemoveHeader(header);
        if (mark)
        {
            header.SetEcn(RoceV2Header::CE);
        }
        if (entry.telemetry)
        {
            // In-band telemetry (HPCC): this port's rate, the time, the bytes it has sent and
            // the queue behind the packet, as the packet leaves.
            RdmaFeedbackHeader feedback;
            entry.packet->RemoveHeader(feedback);
            RdmaFeedbackHeader::Hop hop;
            hop.Set(Simulator::Now(),
                    port.device->GetTxBytes(),
                    port.queueBytes,
                    port.device->GetDataRate());
            feedback.PushHop(hop);
            entry.packet->AddHeader(feedback);
        }
        entry.packet->AddHeader(header);
        if (mark)
        {
            port.device->NotifyEcnMark(entry.packet);
        }
    }
    return entry.packet;
}

double
RdmaSwitch::MarkProbability(const Port& port, uint64_t bytes) const
{
    NS_LOG_FUNCTION(this << bytes);
    if (bytes <= port.kMin)
    {
        return 0;
    }
    if (bytes > port.kMax)
    {
        return 1;
    }
    return m_pMax * static_cast<double>(bytes - port.kMin) /
           static_cast<double>(port.kMax - port.kMin);
}

void
RdmaSwitch::Release(const Entry& entry)
{
    NS_LOG_FUNCTION(this);
    Port& in = m_ports[entry.inPort];
    if (entry.inHeadroom)
    {
        in.headroomBytes -= entry.bytes;
    }
    else
    {
        in.sharedBytes -= entry.bytes;
        m_sharedUsed -= entry.bytes;
    }
    if (m_xoffCount > 0)
    {
        CheckResume();
    }
}

void
RdmaSwitch::Pause(uint32_t index)
{
    NS_LOG_FUNCTION(this << index);
    Port& port = m_ports[index];
    port.xoff = true;
    ++m_xoffCount;
    port.device->SendPfc(m_pauseQuanta);
    // Refresh before the pause runs out, for as long as the port stays over its threshold.
    const double pauseSeconds =
        m_pauseQuanta * 512.0 / static_cast<double>(port.device->GetDataRate().GetBitRate());
    port.refresh =
        Simulator::Schedule(Seconds(pauseSeconds / 2), &RdmaSwitch::RefreshPause, this, index);
}

void
RdmaSwitch::RefreshPause(uint32_t index)
{
    NS_LOG_FUNCTION(this << index);
    Port& port = m_ports[index];
    if (!port.xoff)
    {
        return;
    }
    port.device->SendPfc(m_pauseQuanta);
    const double pauseSeconds =
        m_pauseQuanta * 512.0 / static_cast<double>(port.device->GetDataRate().GetBitRate());
    port.refresh =
        Simulator::Schedule(Seconds(pauseSeconds / 2), &RdmaSwitch::RefreshPause, this, index);
}

void
RdmaSwitch::CheckResume()
{
    NS_LOG_FUNCTION(this);
    // A dynamic threshold rises as the buffer drains, so every paused port is checked, not
    // only the one the departing packet came in by (few ports are paused at once).
    const uint64_t threshold = GetXoffThreshold();
    for (uint32_t index = 0; index < m_ports.size() && m_xoffCount > 0; ++index)
    {
        Port& port = m_ports[index];
        // RESUME at the threshold less the offset, floored at an empty port: an offset larger
        // than the threshold (a small static threshold on 65 KB NVLink frames, or a dynamic
        // one shrunk by a full buffer) must not keep the port paused for ever.
        const uint64_t resumeAt = threshold > port.resumeOffset ? threshold - port.resumeOffset : 0;
        if (port.xoff && port.headroomBytes == 0 && port.sharedBytes <= resumeAt)
        {
            port.xoff = false;
            --m_xoffCount;
            port.refresh.Cancel();
            port.device->SendPfc(0);
        }
    }
}

uint32_t
RdmaSwitch::GetNPorts() const
{
    return static_cast<uint32_t>(m_ports.size());
}

Ptr<RdmaNetDevice>
RdmaSwitch::GetPort(uint32_t port) const
{
    return m_ports.at(port).device;
}

uint64_t
RdmaSwitch::GetHeadroom(uint32_t port) const
{
    const_cast<RdmaSwitch*>(this)->SizeBuffer();
    return m_ports.at(port).headroom;
}

uint64_t
RdmaSwitch::GetEcnKmin(uint32_t port) const
{
    const_cast<RdmaSwitch*>(this)->SizeBuffer();
    return m_ports.at(port).kMin;
}

uint64_t
RdmaSwitch::GetEcnKmax(uint32_t port) const
{
    const_cast<RdmaSwitch*>(this)->SizeBuffer();
    return m_ports.at(port).kMax;
}

uint64_t
RdmaSwitch::GetBufferedBytes() const
{
    uint64_t bytes = 0;
    for (const Port& port : m_ports)
    {
        bytes += port.queueBytes;
    }
    return bytes;
}

int64_t
RdmaSwitch::AssignStreams(int64_t stream)
{
    NS_LOG_FUNCTION(this << stream);
    m_random->SetStream(stream);
    return 1;
}

} // namespace ns3
