#include "flow-network.h"

#include "flow-transport.h"

#include "ns3/assert.h"
#include "ns3/log.h"
#include "ns3/rdma-transport.h"
#include "ns3/schedule-moved.h"
#include "ns3/simulator.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <sstream>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("ChakraFlowNetwork");
NS_OBJECT_ENSURE_REGISTERED(FlowNetwork);

namespace
{
constexpr uint32_t kNoChannel = std::numeric_limits<uint32_t>::max();

/** \return a duration in seconds as a Time, rounded up to the nanosecond */
Time
CeilSeconds(double seconds)
{
    // The small subtraction keeps a result that is a whole number of nanoseconds but for
    // rounding (1e-7 ns) from being pushed to the next one.
    const double ns = std::ceil(seconds * 1e9 - 1e-7);
    return NanoSeconds(static_cast<int64_t>(std::max(ns, 0.0)));
}
} // namespace

TypeId
FlowNetwork::GetTypeId()
{
    static TypeId tid = TypeId("ns3::FlowNetwork").SetParent<Object>().SetGroupName("Chakra");
    return tid;
}

FlowNetwork::FlowNetwork() = default;

FlowNetwork::~FlowNetwork() = default;

void
FlowNetwork::DoDispose()
{
    NS_LOG_FUNCTION(this);
    for (Channel& channel : m_channels)
    {
        channel.next.Cancel();
        channel.messages.clear();
    }
    m_channels.clear();
    m_freeChannels.clear();
    m_channelOf.clear();
    m_releasedOffset.clear();
    m_lastChannelOf.clear();
    m_endpoints.clear();
    Object::DoDispose();
}

uint64_t
FlowNetwork::PairHash(uint32_t srcRank, uint32_t dstRank)
{
    // The hash of the pair's one RDMA queue pair: a flow takes the path the rdma model's
    // packets take (tcp hashes addresses and ports in ClusterRouting: its paths may differ).
    return RdmaTransport::FlowHash(srcRank, dstRank);
}

void
FlowNetwork::Build(std::shared_ptr<const ClusterTopology> topology, const Settings& settings)
{
    NS_LOG_FUNCTION(this);
    m_topology = std::move(topology);
    m_settings = settings;
    if (m_settings.ackBytes > 0 && m_settings.sendBuffer > 0)
    {
        throw std::invalid_argument("FlowNetwork: completion on ACK needs sendBuffer 0 (a send "
                                    "completes when acknowledged, not when buffered)");
    }
    const auto& links = m_topology->GetLinks();
    m_linkDelay.reserve(2 * links.size());
    m_linkMtu.reserve(2 * links.size());
    m_linkClass.reserve(2 * links.size());
    const auto& nodes = m_topology->GetNodes();
    for (const ClusterTopology::Link& link : links)
    {
        const bool gpuEnd = nodes[link.a].kind == ClusterTopology::GPU ||
                            nodes[link.b].kind == ClusterTopology::GPU;
        const LinkClass linkClass = link.kind == ClusterTopology::SCALE_UP ? SCALE_UP_LINK
                                    : gpuEnd                               ? EDGE_LINK
                                                                           : SWITCH_LINK;
        // Directed link 2i is a -> b, 2i + 1 is b -> a: the same numbering as GetPath's.
        const double wireBytesPerSecond = static_cast<double>(link.rate.GetBitRate()) / 8;
        for (int direction = 0; direction < 2; ++direction)
        {
            m_rates.AddLink(wireBytesPerSecond);
            m_linkDelay.push_back(link.delay);
            m_linkMtu.push_back(link.mtu);
            m_linkClass.push_back(linkClass);
        }
    }
    m_endpoints.assign(m_topology->GetRankCount(), nullptr);
    m_sourceTraffic.assign(m_topology->GetRankCount(), SourceTraffic());
    if (m_settings.fifoAtSource)
    {
        m_egress.resize(2 * links.size());
    }
    m_window = m_settings.sendBuffer > 0 ? m_settings.sendBuffer : UINT64_MAX;
}

std::shared_ptr<const ClusterTopology>
FlowNetwork::GetTopology() const
{
    return m_topology;
}

void
FlowNetwork::Attach(uint32_t rank, FlowTransport* endpoint)
{
    NS_LOG_FUNCTION(this << rank);
    if (rank >= m_endpoints.size())
    {
        m_endpoints.resize(rank + 1, nullptr);
    }
    m_endpoints[rank] = endpoint;
}

void
FlowNetwork::Detach(uint32_t rank, const FlowTransport* endpoint)
{
    NS_LOG_FUNCTION(this << rank);
    if (rank < m_endpoints.size() && m_endpoints[rank] == endpoint)
    {
        m_endpoints[rank] = nullptr;
    }
}

FlowTransport*
FlowNetwork::GetEndpoint(uint32_t rank) const
{
    return rank < m_endpoints.size() ? m_endpoints[rank] : nullptr;
}

void
FlowNetwork::SprayLinks(uint32_t src,
                        uint32_t dst,
                        std::vector<uint32_t>& links,
                        std::vector<double>& weights) const
{
    links.clear();
    weights.clear();
    // Equal-cost next hops all lead one hop closer to the destination, so the paths advance
    // in layers: every node of a layer passes its share on to the next layer, split evenly.
    std::map<uint32_t, double> layer{{src, 1.0}};
    std::map<uint32_t, double> share; // directed link -> share of the flow
    std::vector<uint32_t> ports;
    const auto& topologyLinks = m_topology->GetLinks();
    // At most one layer per node (a route function that went round would stop here).
    for (std::size_t hops = 0; !layer.empty() && hops < m_topology->GetNodes().size(); ++hops)
    {
        std::map<uint32_t, double> next;
        for (const auto& [node, fraction] : layer)
        {
            if (node == dst)
            {
                continue;
            }
            m_topology->GetNextHops(node, dst, ports);
            const auto& nodePorts = m_topology->GetPorts(node);
            for (uint32_t port : ports)
            {
                const ClusterTopology::Port& p = nodePorts[port];
                const uint32_t directed = 2 * p.link + (topologyLinks[p.link].a == node ? 0 : 1);
                const double part = fraction / static_cast<double>(ports.size());
                share[directed] += part;
                next[p.peer] += part;
            }
        }
        layer.swap(next);
    }
    for (const auto& [link, part] : share)
    {
        links.push_back(link);
        weights.push_back(std::min(part, 1.0));
    }
}

uint32_t
FlowNetwork::GetChannel(uint32_t src, uint32_t dst)
{
    if (src < m_lastChannelOf.size() && m_lastChannelOf[src] < m_channels.size() &&
        m_channels[m_lastChannelOf[src]].dst == dst && m_channels[m_lastChannelOf[src]].src == src)
    {
        return m_lastChannelOf[src];
    }
    const uint64_t key = (static_cast<uint64_t>(src) << 32) | dst;
    auto found = m_channelOf.find(key);
    if (found != m_channelOf.end())
    {
        Remember(src, found->second);
        return found->second;
    }
    if (!m_topology || src >= m_topology->GetRankCount() || dst >= m_topology->GetRankCount() ||
        !m_topology->GetPath(src, dst, PairHash(src, dst), m_scratchPath) || m_scratchPath.empty())
    {
        return kNoChannel;
    }
    if (src < m_lastChannelOf.size() && m_lastChannelOf[src] != kNoChannel)
    {
        // The source moves on from its last channel: release it if idle (its slot can then
        // take the new one).
        const uint32_t previous = m_lastChannelOf[src];
        m_lastChannelOf[src] = kNoChannel;
        MaybeRelease(previous);
    }
    Channel channel;
    channel.src = src;
    channel.dst = dst;
    channel.path = m_scratchPath;
    if (m_settings.spray)
    {
        SprayLinks(src, dst, channel.sprayLinks, channel.sprayWeights);
    }
    // Its flows are added without checks (one per message): the path is checked once here.
    m_rates.CheckPath(channel.sprayLinks.empty() ? channel.path : channel.sprayLinks,
                      channel.sprayWeights);
    // Packets have the size of the first link's MTU (as the packet models' segments do).
    const double mtu = m_linkMtu[channel.path.front()];
    channel.segment = std::max(1.0, mtu - m_settings.framing.headerBytes);
    channel.packetOverhead = mtu + m_settings.framing.wireExtraBytes - channel.segment;
    channel.efficiency = channel.segment / (channel.segment + channel.packetOverhead);
    for (std::size_t i = 0; i < channel.path.size(); ++i)
    {
        switch (m_linkClass[channel.path[i]])
        {
        case SCALE_UP_LINK:
            ++channel.scaleUpHops;
            break;
        case EDGE_LINK:
            ++channel.edgeHops;
            break;
        case SWITCH_LINK:
            ++channel.switchHops;
            break;
        }
        channel.propagation += m_linkDelay[channel.path[i]];
        if (i > 0)
        {
            // Each switch forwards the last packet once it has all of it.
            channel.forwardSecondsPerByte += 1.0 / m_rates.GetCapacity(channel.path[i]);
        }
    }
    channel.fullPacketLatency = LastPacketLatency(channel, channel.segment);
    if (m_settings.ackBytes > 0)
    {
        // The ACK comes back over the same links the other way (directed link 2i is a -> b,
        // 2i + 1 is b -> a; ECMP paths of one pair have the same length and delays), sent and
        // forwarded whole at every hop. It does not queue: the packet models send ACKs ahead
        // of data.
        double ackSeconds = 0;
        for (uint32_t link : channel.path)
        {
            const uint32_t back = link ^ 1u;
            channel.ackLatency += m_linkDelay[back];
            ackSeconds += m_settings.ackBytes / m_rates.GetCapacity(back);
        }
        channel.ackLatency += CeilSeconds(ackSeconds);
    }
    auto released = m_releasedOffset.find(key);
    if (released != m_releasedOffset.end())
    {
        // The pair's stream goes on where it stopped (MaybeRelease kept only that).
        channel.queued = released->second;
        channel.sent = static_cast<double>(channel.queued);
        channel.granted = channel.queued;
        channel.entered = m_settings.fifoAtSource ? channel.queued : 0;
        m_releasedOffset.erase(released);
    }
    else
    {
        ++m_statistics.channels;
    }
    uint32_t index;
    if (m_freeChannels.empty())
    {
        index = static_cast<uint32_t>(m_channels.size());
        m_channels.push_back(std::move(channel));
    }
    else
    {
        index = m_freeChannels.back();
        m_freeChannels.pop_back();
        m_channels[index] = std::move(channel);
    }
    m_channelOf.emplace(key, index);
    Remember(src, index);
    ++m_statistics.heldChannels;
    m_statistics.peakHeldChannels =
        std::max(m_statistics.peakHeldChannels, m_statistics.heldChannels);
    return index;
}

void
FlowNetwork::MaybeRelease(uint32_t index)
{
    Channel& channel = m_channels[index];
    // A source's last channel is kept: a ring or a pipeline sends to one peer again and again.
    if (!m_settings.releaseIdleChannels || channel.path.empty() ||
        (channel.src < m_lastChannelOf.size() && m_lastChannelOf[channel.src] == index) ||
        channel.flow != MaxMinNetwork::kNoFlow || !channel.messages.empty() ||
        channel.inFlight > 0 || channel.entries > 0)
    {
        return;
    }
    // Idle: everything it was given has left and arrived. What the next message's timing
    // depends on is its stream offset (sent is a double: its rounding depends on the offset);
    // the rest is the path's (made again from the topology) or at its idle value (rate 0,
    // lastDelivery in the past). Keep it only in that state, where the offset says it all.
    const bool canonical = channel.granted == channel.queued &&
                           channel.entered == (m_settings.fifoAtSource ? channel.queued : 0) &&
                           channel.sent == static_cast<double>(channel.queued) &&
                           channel.head == 0 && channel.nextDone == 0 && channel.rate == 0;
    if (!canonical)
    {
        return;
    }
    NS_LOG_LOGIC("release " << channel.src << "->" << channel.dst << " at " << channel.queued);
    const uint64_t key = (static_cast<uint64_t>(channel.src) << 32) | channel.dst;
    m_channelOf.erase(key);
    m_releasedOffset[key] = channel.queued;
    channel.next.Cancel();
    channel = Channel(); // frees its path and message buffer
    m_freeChannels.push_back(index);
    --m_statistics.heldChannels;
}

void
FlowNetwork::Remember(uint32_t src, uint32_t channel)
{
    if (src >= m_lastChannelOf.size())
    {
        m_lastChannelOf.resize(src + 1, kNoChannel);
    }
    const uint32_t previous = m_lastChannelOf[src];
    m_lastChannelOf[src] = channel;
    if (previous != kNoChannel && previous != channel)
    {
        MaybeRelease(previous); // no longer the source's last: released if idle
    }
}

double
FlowNetwork::Slack(const Channel& channel)
{
    // Events fall on whole nanoseconds: a threshold within one nanosecond of progress counts
    // as reached (and a sub-byte float residue too).
    return channel.rate * 1e-9 + 1e-3;
}

Time
FlowNetwork::Latency(const Channel& channel, uint64_t bytes) const
{
    if (static_cast<double>(bytes) >= channel.segment)
    {
        return channel.fullPacketLatency; // the last packet is a full one
    }
    return LastPacketLatency(channel, static_cast<double>(bytes));
}

Time
FlowNetwork::LastPacketLatency(const Channel& channel, double lastPacketBytes)
{
    const double lastPacket = lastPacketBytes + channel.packetOverhead;
    return channel.propagation + CeilSeconds(lastPacket * channel.forwardSecondsPerByte);
}

void
FlowNetwork::Advance(Channel& channel)
{
    Advance(channel, Simulator::Now());
}

void
FlowNetwork::Advance(Channel& channel, const Time& now)
{
    if (channel.rate > 0 && now > channel.updated)
    {
        channel.sent += channel.rate * (now - channel.updated).GetSeconds();
        channel.sent = std::min(channel.sent, static_cast<double>(channel.queued));
    }
    channel.updated = now;
}

bool
FlowNetwork::Send(uint32_t src,
                  uint32_t dst,
                  uint64_t bytes,
                  Callback localDone,
                  Callback delivered)
{
    NS_LOG_FUNCTION(this << src << dst << bytes);
    Message message;
    message.bytes = bytes;
    message.localDone = std::move(localDone);
    message.delivered = std::move(delivered);
    return Enqueue(src, dst, std::move(message));
}

bool
FlowNetwork::SendMessage(uint32_t src,
                         uint32_t dst,
                         const MessageHeader& header,
                         Callback localDone)
{
    NS_LOG_FUNCTION(this << src << dst);
    Message message = ForEndpoint(header);
    message.localDone = std::move(localDone);
    return Enqueue(src, dst, std::move(message));
}

bool
FlowNetwork::SendMessageCounted(uint32_t src,
                                uint32_t dst,
                                const MessageHeader& header,
                                EndCallback localEnd)
{
    NS_LOG_FUNCTION(this << src << dst);
    Message message = ForEndpoint(header);
    message.localEnd = std::move(localEnd);
    return Enqueue(src, dst, std::move(message));
}

FlowNetwork::Message
FlowNetwork::ForEndpoint(const MessageHeader& header)
{
    Message message;
    message.bytes = header.payload + MessageHeader::kSize;
    message.header = header;
    message.toEndpoint = true;
    return message;
}

bool
FlowNetwork::Enqueue(uint32_t src, uint32_t dst, Message&& message)
{
    const uint32_t index = GetChannel(src, dst);
    if (index == kNoChannel)
    {
        return false;
    }
    const uint64_t bytes = message.bytes;
    ++m_statistics.messages;
    m_statistics.streamBytes += bytes;
    Channel& channel = m_channels[index];
    SourceTraffic& traffic = m_sourceTraffic[src];
    ++traffic.messages;
    traffic.bytes += bytes;
    traffic.scaleUpBytes += bytes * channel.scaleUpHops;
    traffic.edgeBytes += bytes * channel.edgeHops;
    traffic.switchBytes += bytes * channel.switchHops;
    Advance(channel);
    channel.queued += bytes;
    message.end = channel.queued;
    const bool earlierDone = channel.nextDone == channel.messages.size();
    const double doneAt =
        static_cast<double>(message.end) - static_cast<double>(m_settings.sendBuffer);
    if (m_settings.ackBytes == 0 && earlierDone && doneAt <= channel.sent + Slack(channel))
    {
        // It fits in the send buffer at once: local completion now (as an event).
        if (message.localDone)
        {
            ScheduleMoved(Time(0), std::move(message.localDone));
        }
        else if (message.localEnd)
        {
            ScheduleMoved(Time(0),
                          [end = std::move(message.localEnd)]() { end(Simulator::Now()); });
        }
        message.localDone = nullptr;
        message.localEnd = nullptr;
        channel.messages.push_back(std::move(message));
        channel.nextDone = channel.messages.size();
    }
    else
    {
        channel.messages.push_back(std::move(message));
    }
    NS_LOG_LOGIC("send " << src << "->" << dst << " " << bytes << " B, stream end "
                         << channel.queued);
    Enter(index);
    ScheduleNext(index);
    return true;
}

void
FlowNetwork::Enter(uint32_t index)
{
    Channel& channel = m_channels[index];
    if (!m_settings.fifoAtSource)
    {
        Grant(index, channel.queued);
        return;
    }
    // At most one window of the channel outstanding (entered, not yet sent).
    const auto sent = static_cast<uint64_t>(channel.sent + Slack(channel));
    const uint64_t limit = sent > UINT64_MAX - m_window ? UINT64_MAX : sent + m_window;
    const uint64_t end = std::min(channel.queued, limit);
    if (end <= channel.entered)
    {
        return;
    }
    channel.entered = end;
    const uint32_t link = channel.path.front();
    Egress& egress = m_egress[link];
    egress.entries.push_back({index, end});
    ++channel.entries;
    if (egress.entries.size() - egress.head > 1)
    {
        ++m_statistics.queuedAtSource;
        m_spareCheck.push_back(link); // it may start at once if the link has room
        MarkDirty();
    }
    ServeHead(link);
}

void
FlowNetwork::ServeHead(uint32_t link)
{
    Egress& egress = m_egress[link];
    // An entry is done when its channel has sent up to its end (entries of other channels
    // ahead of it may still be running: they were granted on spare capacity).
    while (egress.head < egress.entries.size())
    {
        const Entry& entry = egress.entries[egress.head];
        Channel& channel = m_channels[entry.channel];
        if (channel.sent + Slack(channel) < static_cast<double>(entry.end))
        {
            break;
        }
        ++egress.head;
        --channel.entries;
        // Its last entry may have been the only thing holding it (never the channel whose
        // event calls this: that one has messages or messages in flight).
        MaybeRelease(entry.channel);
    }
    if (egress.head == egress.entries.size())
    {
        egress.entries.clear();
        egress.head = 0;
        egress.granted = 0;
        return;
    }
    if (egress.head > 64 && egress.head * 2 > egress.entries.size())
    {
        egress.entries.erase(egress.entries.begin(),
                             egress.entries.begin() + static_cast<std::ptrdiff_t>(egress.head));
        egress.granted -= std::min(egress.granted, egress.head);
        egress.head = 0;
    }
    egress.granted = std::max(egress.granted, egress.head);
    if (egress.granted == egress.head)
    {
        GrantNext(link); // the head always goes
    }
}

void
FlowNetwork::GrantNext(uint32_t link)
{
    Egress& egress = m_egress[link];
    if (egress.granted >= egress.entries.size())
    {
        return;
    }
    const Entry entry = egress.entries[egress.granted++];
    Grant(entry.channel, entry.end);
}

void
FlowNetwork::Grant(uint32_t index, uint64_t end)
{
    Channel& channel = m_channels[index];
    channel.granted = std::max(channel.granted, end);
    if (channel.flow != MaxMinNetwork::kNoFlow ||
        channel.sent + Slack(channel) >= static_cast<double>(channel.granted))
    {
        ScheduleNext(index);
        return;
    }
    // It becomes a flow; its rate comes from the reallocation at this instant (which brings
    // its sent bytes up to now first). Not a flow, it had no rate: nothing to advance.
    NS_LOG_LOGIC("grant " << channel.src << "->" << channel.dst << " up to " << channel.granted);
    NS_ASSERT(channel.rate == 0);
    channel.flow = channel.sprayLinks.empty()
                       ? m_rates.AddCheckedFlow(channel.path)
                       : m_rates.AddCheckedFlow(channel.sprayLinks, channel.sprayWeights);
    channel.rate = 0;
    if (channel.flow >= m_channelOfFlow.size())
    {
        m_channelOfFlow.resize(channel.flow + 1, kNoChannel);
    }
    m_channelOfFlow[channel.flow] = index;
    ++m_statistics.flowStarts;
    m_statistics.peakFlows = std::max<uint64_t>(m_statistics.peakFlows, m_rates.GetFlowCount());
    MarkDirty();
}

void
FlowNetwork::ScheduleNext(uint32_t index)
{
    Channel& channel = m_channels[index];
    Disarm(channel);
    if (channel.rate <= 0 || channel.head == channel.messages.size())
    {
        return;
    }
    double target = std::min(static_cast<double>(channel.messages[channel.head].end),
                             static_cast<double>(channel.granted));
    if (channel.nextDone < channel.messages.size())
    {
        const double doneAt = static_cast<double>(channel.messages[channel.nextDone].end) -
                              static_cast<double>(m_settings.sendBuffer);
        target = std::min(target, doneAt);
    }
    const double remaining = target - channel.sent;
    const Time delay =
        remaining <= Slack(channel) ? Time(0) : CeilSeconds(remaining / channel.rate);
    channel.next = ScheduleMoved(delay, [this, index]() { Progress(index); });
    channel.armed = true;
}

void
FlowNetwork::Disarm(Channel& channel)
{
    // Only a pending event needs cancelling: EventId::Cancel on one that has run is a no-op,
    // but it costs the simulator's expiry check (a few hundred instructions), and the
    // channels ask for it several times per message.
    if (channel.armed)
    {
        channel.next.Cancel();
        channel.armed = false;
    }
}

void
FlowNetwork::Progress(uint32_t index)
{
    // Completions to hand out last. The list's storage is reused: a counted send gives one at
    // nearly every message.
    std::vector<Completion> completions;
    completions.swap(m_completionScratch);
    const Time now = Simulator::Now();
    Channel& channel = m_channels[index];
    channel.armed = false; // this is its event (a cancelled one does not run)
    // Drop the handle's reference while the event is running (its record is in the cache): at
    // the next Schedule it would be the last one, and freeing the record then missed the cache
    // at every message (4% of a 8,192-GPU step's profile).
    channel.next = EventId();
    Advance(channel, now);
    const double reached = channel.sent + Slack(channel);
    if (static_cast<double>(channel.granted) <= reached)
    {
        channel.sent = std::max(channel.sent, static_cast<double>(channel.granted));
    }
    while (channel.nextDone < channel.messages.size() &&
           static_cast<double>(channel.messages[channel.nextDone].end) -
                   static_cast<double>(m_settings.sendBuffer) <=
               reached)
    {
        if (m_settings.ackBytes == 0)
        {
            Message& message = channel.messages[channel.nextDone];
            completions.push_back({std::move(message.localDone), std::move(message.localEnd), now});
        }
        // else its ACK completes it, after its arrival (below: with sendBuffer 0 a message
        // reaches both thresholds at once)
        ++channel.nextDone;
    }
    while (channel.head < channel.messages.size() &&
           static_cast<double>(channel.messages[channel.head].end) <= reached)
    {
        Message& message = channel.messages[channel.head];
        // The last byte has left the source; it arrives after the path's latency, never
        // before an earlier message of the pair.
        Time arrival = std::max(now + Latency(channel, message.bytes), channel.lastDelivery);
        NS_LOG_LOGIC("sent " << channel.src << "->" << channel.dst << " stream end " << message.end
                             << ", arrives " << arrival.As(Time::US));
        channel.lastDelivery = arrival;
        ++channel.inFlight;
        if (m_settings.ackBytes > 0 && message.localDone)
        {
            ScheduleMoved(arrival + channel.ackLatency - now, std::move(message.localDone));
        }
        else if (m_settings.ackBytes > 0 && message.localEnd)
        {
            // Its ACK's return is known now: given now, no event of its own.
            completions.push_back(
                {nullptr, std::move(message.localEnd), arrival + channel.ackLatency});
        }
        if (message.toEndpoint)
        {
            ScheduleMoved(arrival - now, [this, index, header = message.header]() {
                ArriveAtEndpoint(index, header);
            });
        }
        else
        {
            ScheduleMoved(arrival - now, [this, index, delivered = std::move(message.delivered)]() {
                Arrive(index, delivered);
            });
        }
        ++channel.head;
    }
    if (channel.head == channel.messages.size())
    {
        channel.messages.clear();
        channel.head = 0;
        channel.nextDone = 0;
        channel.sent = static_cast<double>(channel.queued);
    }
    else if (channel.head > 64 && channel.head * 2 > channel.messages.size())
    {
        // Drop the sent messages from the front now and then (amortised O(1)).
        channel.messages.erase(channel.messages.begin(),
                               channel.messages.begin() +
                                   static_cast<std::ptrdiff_t>(channel.head));
        channel.nextDone -= channel.head;
        channel.head = 0;
    }
    if (m_settings.fifoAtSource && static_cast<double>(channel.granted) <= reached)
    {
        // Its granted bytes have left: the FIFO moves on (which may grant this channel's next
        // entry at once).
        ServeHead(channel.path.front());
        if (channel.entered == channel.granted && channel.queued > channel.granted)
        {
            // What it wrote beyond its window waited in its send buffer; ACKs of its earlier
            // bytes let it into the device as those leave: it follows them, behind no one.
            channel.entered = channel.queued;
            channel.granted = channel.queued;
        }
    }
    if (channel.flow != MaxMinNetwork::kNoFlow &&
        static_cast<double>(channel.granted) <= channel.sent + Slack(channel))
    {
        // Nothing more it may send: the flow ends and gives its bandwidth back.
        NS_LOG_LOGIC("pause " << channel.src << "->" << channel.dst << " at " << channel.sent);
        m_channelOfFlow[channel.flow] = kNoChannel;
        m_rates.RemoveFlow(channel.flow);
        channel.flow = MaxMinNetwork::kNoFlow;
        channel.rate = 0;
        Disarm(channel);
        MarkDirty();
        if (m_settings.fifoAtSource)
        {
            m_spareCheck.push_back(channel.path.front());
        }
    }
    else
    {
        ScheduleNext(index);
    }
    // Last, with the channel consistent: a completion may send again.
    for (Completion& completion : completions)
    {
        if (completion.done)
        {
            completion.done();
        }
        else if (completion.end)
        {
            completion.end(completion.at);
        }
    }
    completions.clear();
    m_completionScratch.swap(completions);
}

void
FlowNetwork::Arrive(uint32_t index, const Callback& delivered)
{
    --m_channels[index].inFlight;
    MaybeRelease(index);
    if (delivered)
    {
        delivered();
    }
}

void
FlowNetwork::ArriveAtEndpoint(uint32_t index, const MessageHeader& header)
{
    Channel& channel = m_channels[index];
    --channel.inFlight;
    const uint32_t dst = channel.dst;
    MaybeRelease(index);
    // The receiver is looked up now, not at the send: holding it would touch the receiving
    // rank's memory at every send (a cache miss at thousands of ranks).
    if (FlowTransport* receiver = GetEndpoint(dst))
    {
        receiver->Arrive(header);
    }
}

void
FlowNetwork::MarkDirty()
{
    if (!m_reallocationPending)
    {
        // After every event already due now: the starts and ends of this instant are
        // recomputed together.
        m_reallocationPending = true;
        Simulator::ScheduleNow(&FlowNetwork::Reallocate, this);
    }
}

void
FlowNetwork::Reallocate()
{
    m_reallocationPending = false;
    m_rates.Reallocate(m_changed);
    const Time now = Simulator::Now();
    for (uint32_t flow : m_changed)
    {
        const uint32_t index = m_channelOfFlow[flow];
        if (index == kNoChannel)
        {
            continue;
        }
        Channel& channel = m_channels[index];
        Advance(channel, now); // at the old rate up to now
        channel.rate = m_rates.GetRate(flow) * channel.efficiency;
        NS_LOG_LOGIC("rate " << channel.src << "->" << channel.dst << " " << channel.rate * 8 / 1e9
                             << " Gbps at sent " << channel.sent);
        ScheduleNext(index);
        if (m_settings.fifoAtSource)
        {
            m_spareCheck.push_back(channel.path.front());
        }
    }
    if (m_spareCheck.empty())
    {
        return;
    }
    // A link whose flows are all limited further on has room for its next entry: the device
    // would send that entry's packets as soon as it is idle.
    std::vector<uint32_t>& check = m_spareScratch;
    check.clear();
    check.swap(m_spareCheck);
    std::sort(check.begin(), check.end());
    check.erase(std::unique(check.begin(), check.end()), check.end());
    for (uint32_t link : check)
    {
        const Egress& egress = m_egress[link];
        NS_LOG_LOGIC("spare check link " << link << ": granted " << egress.granted << " of "
                                         << egress.entries.size() << " (head " << egress.head
                                         << "), load " << m_rates.GetLoad(link) << " of "
                                         << m_rates.GetCapacity(link));
        if (m_rates.GetLoad(link) >= m_rates.GetCapacity(link) * (1 - 1e-9))
        {
            continue;
        }
        // Entries of channels that already send only extend them (they are limited further
        // on); the first entry of a channel that does not send yet starts a new flow.
        while (egress.granted < egress.entries.size())
        {
            const uint32_t channel = egress.entries[egress.granted].channel;
            const bool sending = m_channels[channel].flow != MaxMinNetwork::kNoFlow;
            GrantNext(link);
            if (!sending)
            {
                break;
            }
        }
    }
}

std::pair<double, Time>
FlowNetwork::DescribePath(uint32_t src, uint32_t dst, uint64_t bytes)
{
    const uint32_t index = GetChannel(src, dst);
    if (index == kNoChannel)
    {
        return {0, Time(0)};
    }
    const Channel& channel = m_channels[index];
    double capacity = std::numeric_limits<double>::infinity();
    for (uint32_t link : channel.path)
    {
        capacity = std::min(capacity, m_rates.GetCapacity(link));
    }
    return {capacity * channel.efficiency, Latency(channel, bytes)};
}

void
FlowNetwork::DescribePending(uint32_t src, std::vector<std::string>& lines) const
{
    // By destination (the slots of released channels are reused in no particular order).
    std::vector<const Channel*> pending;
    for (const Channel& channel : m_channels)
    {
        if (channel.path.empty() || channel.src != src ||
            (channel.head == channel.messages.size() && channel.inFlight == 0))
        {
            continue;
        }
        pending.push_back(&channel);
    }
    std::sort(pending.begin(), pending.end(), [](const Channel* a, const Channel* b) {
        return a->dst < b->dst;
    });
    for (const Channel* held : pending)
    {
        const Channel& channel = *held;
        // Sent bytes as of now (the channel is brought up to date only at its events).
        const double sent = std::min(
            static_cast<double>(channel.queued),
            channel.sent + channel.rate * (Simulator::Now() - channel.updated).GetSeconds());
        std::ostringstream line;
        line << "flow to rank " << channel.dst << ": " << channel.messages.size() - channel.head
             << " message(s) not fully sent"
             << (channel.flow == MaxMinNetwork::kNoFlow && channel.head < channel.messages.size()
                     ? ", waiting behind other pairs at the source"
                     : "")
             << " (" << static_cast<uint64_t>(static_cast<double>(channel.queued) - sent + 0.5)
             << " bytes left at " << channel.rate * 8 / 1e9 << " Gbps), " << channel.inFlight
             << " in flight";
        lines.push_back(line.str());
    }
}

FlowNetwork::Statistics
FlowNetwork::GetStatistics() const
{
    Statistics statistics = m_statistics;
    statistics.allocation = m_rates.GetCounters();
    return statistics;
}

const std::vector<FlowNetwork::SourceTraffic>&
FlowNetwork::GetSourceTraffic() const
{
    return m_sourceTraffic;
}

} // namespace ns3
