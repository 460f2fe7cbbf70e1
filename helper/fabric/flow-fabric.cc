#include "flow-fabric.h"

#include "ns3/boolean.h"
#include "ns3/enum.h"
#include "ns3/flow-transport.h"
#include "ns3/mpi-context.h"
#include "ns3/purging-scheduler.h"
#include "ns3/rdma-switch.h"
#include "ns3/rdma-transport.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/tcp-transport.h"
#include "ns3/text-format.h"
#include "ns3/uinteger.h"

#include <sstream>
#include <stdexcept>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(FlowFabric);

TypeId
FlowFabric::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::FlowFabric")
            .SetParent<ClusterFabric>()
            .SetGroupName("Chakra")
            .AddConstructor<FlowFabric>()
            .AddAttribute("PacketModel",
                          "The packet model whose per-packet headers the flows pay, so that a "
                          "flow's goodput is that model's: tcp (" +
                              std::to_string(TcpTransport::kHeaderBytes) +
                              " bytes of IPv4 + TCP + timestamps per MTU, " +
                              std::to_string(TcpTransport::kLinkFramingBytes) +
                              " bytes of PPP on the wire) or rdma (" +
                              std::to_string(RoceV2Header::kDataOverhead) +
                              " bytes of IPv4 + UDP + BTH + ICRC per MTU, " +
                              std::to_string(RdmaNetDevice::kFramingBytes) +
                              " bytes of Ethernet framing on the "
                              "wire; queue pairs share a NIC max-min fair from the start and a "
                              "send completes when the ACK of its last byte is back: SendBuffer "
                              "and FifoAtSource are tcp's).",
                          EnumValue(CommTransport::RDMA),
                          MakeEnumAccessor(&FlowFabric::m_packetModel),
                          MakeEnumChecker(CommTransport::TCP, "tcp", CommTransport::RDMA, "rdma"))
            .AddAttribute("SendBuffer",
                          "A send completes locally once at most this many bytes of it remain "
                          "unsent (the tcp model's socket buffer, TcpTransport::BufferSize); "
                          "0: once its last byte has left the source.",
                          UintegerValue(1u << 20),
                          MakeUintegerAccessor(&FlowFabric::m_sendBuffer),
                          MakeUintegerChecker<uint64_t>())
            .AddAttribute("FifoAtSource",
                          "What ranks write to different peers leaves a device in the order it "
                          "was written, at most SendBuffer bytes per peer at a time (a TCP "
                          "sender with a full initial window queues that much at once in the "
                          "device's FIFO), instead of all pairs sharing the device max-min fair "
                          "from the start (FlowNetwork, fifoAtSource).",
                          BooleanValue(true),
                          MakeBooleanAccessor(&FlowFabric::m_fifoAtSource),
                          MakeBooleanChecker())
            .AddAttribute("ReleaseIdleChannels",
                          "Free an ordered pair's channel while it is idle (nothing to send, "
                          "nothing in flight), keeping only its stream offset, and make it "
                          "again when the pair sends next: same results, memory by the "
                          "channels in use instead of every pair that ever exchanged a message "
                          "(FlowNetwork, releaseIdleChannels). False keeps every channel.",
                          BooleanValue(true),
                          MakeBooleanAccessor(&FlowFabric::m_releaseIdleChannels),
                          MakeBooleanChecker());
    return tid;
}

FlowFabric::FlowFabric() = default;

void
FlowFabric::DoDispose()
{
    if (m_network)
    {
        m_network->Dispose();
    }
    m_network = nullptr;
    ClusterFabric::DoDispose();
}

bool
FlowFabric::FramingOf(const std::string& packetModel, FlowNetwork::Framing& framing)
{
    if (packetModel == "tcp")
    {
        framing.headerBytes = TcpTransport::kHeaderBytes;
        framing.wireExtraBytes = TcpTransport::kLinkFramingBytes;
        return true;
    }
    if (packetModel == "rdma")
    {
        // RdmaTransport::kPacketOverhead, split as the packet is: headers inside the MTU,
        // Ethernet framing outside it.
        framing.headerBytes = RoceV2Header::kDataOverhead;     // IPv4 + UDP + BTH + ICRC: 44
        framing.wireExtraBytes = RdmaNetDevice::kFramingBytes; // Ethernet framing: 38
        return true;
    }
    return false;
}

void
FlowFabric::Install(std::shared_ptr<const ClusterTopology> topology,
                    const NodeContainer& /* nodes */)
{
    if (MpiContext::GetProcessCount() > 1)
    {
        // Max-min rates couple every flow on a shared link, wherever its ranks run: the network
        // is one object, with no messages between processes.
        throw std::invalid_argument("FlowFabric: the flow model runs in one process (this run "
                                    "has " +
                                    std::to_string(MpiContext::GetProcessCount()) +
                                    "); run it without mpirun, or use tcp for distributed runs");
    }
    FlowNetwork::Settings settings;
    const std::string packetModel = CommTransport::GetModelName(m_packetModel);
    if (!FramingOf(packetModel, settings.framing))
    {
        throw std::invalid_argument("FlowFabric: unknown PacketModel '" + packetModel +
                                    "' (known: tcp, rdma)");
    }
    m_ranks = topology->GetRankCount();
    m_network = CreateObject<FlowNetwork>();
    settings.sendBuffer = m_sendBuffer;
    settings.fifoAtSource = m_fifoAtSource;
    settings.releaseIdleChannels = m_releaseIdleChannels;
    if (m_packetModel == CommTransport::RDMA)
    {
        // A NIC serves its queue pairs round robin at their rates (no FIFO of windows), and a
        // send is done when the ACK of its last packet is back (RdmaQueuePair): an ACK is
        // IPv4 + UDP + BTH + AETH + ICRC in an Ethernet frame.
        settings.sendBuffer = 0;
        settings.fifoAtSource = false;
        settings.ackBytes = RoceV2Header::kIpv4Bytes + RoceV2Header::kUdpBytes +
                            RoceV2Header::kBthBytes + RoceV2Header::kAethBytes +
                            RoceV2Header::kIcrcBytes + RdmaNetDevice::kFramingBytes;
        // The packet model's switch routing, in the fluid limit: per-packet spraying and
        // adaptive routing spread a flow evenly over its equal-cost paths; ECMP and flowlets
        // keep it on one (a flowlet's path changes only after a gap).
        settings.spray = RdmaSwitch::RoutesEachPacket(RdmaSwitch::GetDefaultRouting());
    }
    m_network->Build(topology, settings);
}

Ptr<CommTransport>
FlowFabric::CreateTransport(uint32_t rank)
{
    if (!m_network)
    {
        throw std::logic_error("FlowFabric::CreateTransport before Install");
    }
    Ptr<FlowTransport> transport = CreateObject<FlowTransport>();
    transport->Attach(m_network, rank);
    return transport;
}

std::vector<Ipv4Address>
FlowFabric::GetRankAddresses() const
{
    // No IP stack: ranks are known by their index only.
    return std::vector<Ipv4Address>(m_ranks, Ipv4Address());
}

Ptr<FlowNetwork>
FlowFabric::GetNetwork() const
{
    return m_network;
}

std::vector<ReportTable>
FlowFabric::GetReportTables() const
{
    if (!m_network)
    {
        return {};
    }
    const FlowNetwork::Statistics s = m_network->GetStatistics();
    ReportTable table;
    table.name = "flow";
    table.columns = {"metric", "value"};
    auto row = [&table](const std::string& name, uint64_t value) {
        table.rows.push_back({name, std::to_string(value)});
    };
    table.rows.push_back({"packet model framing", CommTransport::GetModelName(m_packetModel)});
    row("messages", s.messages);
    row("stream bytes", s.streamBytes);
    row("ordered pairs (channels)", s.channels);
    row("most channels held at once", s.peakHeldChannels);
    row("flow starts", s.flowStarts);
    row("starts queued behind another at the source", s.queuedAtSource);
    row("most flows at once", s.peakFlows);
    if (const PurgingScheduler* scheduler = PurgingScheduler::GetCurrent())
    {
        // The whole simulation's, not the flow model's alone. ns-3 does not tell the list when
        // an event is cancelled, so the pending peak is bracketed: the list's largest size
        // (pending and cancelled events not yet purged: what its memory follows) above, the
        // most pending ones counted at a purge below (the list purges when it doubles).
        row("event list's largest size (pending + cancelled)", scheduler->GetPeakHeldCount());
        if (scheduler->GetPurgedCount() > 0 || scheduler->GetPeakPendingAtPurge() > 0)
        {
            row("most events pending at a purge", scheduler->GetPeakPendingAtPurge());
        }
    }
    // The whole simulation's events run so far (every model, the applications' too): the
    // count the scaling tables of doc/benchmarks.md quote.
    row("simulator events run", Simulator::GetEventCount());
    row("rate recomputations", s.allocation.reallocations);
    row("flows recomputed", s.allocation.flowsRecomputed);
    row("largest recomputation (flows)", s.allocation.largestComponent);
    row("recomputations extended through a link", s.allocation.extensions);
    return {table};
}

std::vector<ReportTable>
FlowFabric::GetJobTables(const std::vector<JobGpus>& jobs) const
{
    if (!m_network)
    {
        return {};
    }
    const std::vector<FlowNetwork::SourceTraffic>& traffic = m_network->GetSourceTraffic();
    uint64_t switchTotal = 0;
    for (const FlowNetwork::SourceTraffic& source : traffic)
    {
        switchTotal += source.switchBytes;
    }
    ReportTable table;
    table.name = "fabric-jobs";
    table.columns = {"job",
                     "gpus",
                     "messages",
                     "sent_MB",
                     "nvlink_MB",
                     "nic_switch_MB",
                     "switch_switch_MB",
                     "switch_share_pct"};
    for (const auto& [name, gpus] : jobs)
    {
        FlowNetwork::SourceTraffic sum;
        for (uint32_t gpu : gpus)
        {
            const FlowNetwork::SourceTraffic& source = traffic.at(gpu);
            sum.messages += source.messages;
            sum.bytes += source.bytes;
            sum.scaleUpBytes += source.scaleUpBytes;
            sum.edgeBytes += source.edgeBytes;
            sum.switchBytes += source.switchBytes;
        }
        const double share = switchTotal > 0 ? 100.0 * static_cast<double>(sum.switchBytes) /
                                                   static_cast<double>(switchTotal)
                                             : 0.0;
        table.rows.push_back({name,
                              std::to_string(gpus.size()),
                              std::to_string(sum.messages),
                              FormatMegabytes(sum.bytes),
                              FormatMegabytes(sum.scaleUpBytes),
                              FormatMegabytes(sum.edgeBytes),
                              FormatMegabytes(sum.switchBytes),
                              FormatFixed(share, 1)});
    }
    return {table};
}

} // namespace ns3
