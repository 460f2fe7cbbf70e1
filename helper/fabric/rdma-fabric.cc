#include "rdma-fabric.h"

#include "ns3/boolean.h"
#include "ns3/enum.h"
#include "ns3/mpi-context.h"
#include "ns3/rdma-channel.h"
#include "ns3/rdma-feedback-header.h"
#include "ns3/rdma-rate-control.h"
#include "ns3/rdma-remote-channel.h"
#include "ns3/rdma-stats-gather.h"
#include "ns3/rdma-transport.h"
#include "ns3/rocev2-header.h"
#include "ns3/text-format.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cstdio>
#include <stdexcept>
#include <tuple>

namespace ns3
{

namespace
{

/** 128-bit sums of port times (__extension__: GCC's types, kept pedantic-clean). */
__extension__ typedef __int128 Int128;
__extension__ typedef unsigned __int128 Uint128;

/**
 * \return \p nanoseconds in microseconds with three decimals, as FormatMicros writes a Time,
 *         for sums beyond a Time's 64 bits
 */
std::string
FormatMicrosSum(Int128 nanoseconds)
{
    const bool negative = nanoseconds < 0;
    auto magnitude = static_cast<Uint128>(negative ? -nanoseconds : nanoseconds);
    const auto fraction = static_cast<unsigned>(magnitude % 1000);
    magnitude /= 1000;
    std::string digits;
    do
    {
        digits.insert(digits.begin(), static_cast<char>('0' + static_cast<int>(magnitude % 10)));
        magnitude /= 10;
    } while (magnitude > 0);
    char decimals[8];
    std::snprintf(decimals, sizeof(decimals), ".%03u", fraction);
    return (negative ? "-" : "") + digits + decimals;
}

/** A port's counters, as columns of the "fabric" and "fabric-jobs" tables (SumCells). */
const std::vector<std::string> kCounterColumns =
    {"tx_MB", "busy_us", "pfc_pause_sent", "pfc_pause_received", "paused_us", "ecn_marks", "drops"};

/** \return \p first, then the counters' columns, then \p last */
std::vector<std::string>
CounterColumns(std::vector<std::string> first, const std::vector<std::string>& last)
{
    first.insert(first.end(), kCounterColumns.begin(), kCounterColumns.end());
    first.insert(first.end(), last.begin(), last.end());
    return first;
}

/** A port's row of the "fabric" table, from its node \p self towards \p peer. */
std::vector<std::string>
PortCells(const ClusterTopology& topology,
          const ClusterTopology::Link& link,
          uint32_t self,
          uint32_t peer,
          const RdmaNetDevice::Stats& s)
{
    const auto& nodes = topology.GetNodes();
    auto label = [&nodes](uint32_t node) {
        return nodes[node].label.empty() ? "node" + std::to_string(node) : nodes[node].label;
    };
    return {label(self),
            label(peer),
            link.kind == ClusterTopology::SCALE_UP ? "scale-up" : "scale-out",
            FormatMegabytes(s.txBytes),
            FormatMicros(s.busyTime),
            std::to_string(s.pausesSent),
            std::to_string(s.pausesReceived),
            FormatMicros(s.pausedTime),
            std::to_string(s.ecnMarks),
            std::to_string(s.drops),
            FormatFixed(static_cast<double>(s.maxQueueBytes) / 1024, 1),
            FormatFixed(static_cast<double>(s.maxIngressBytes) / 1024, 1)};
}

/**
 * The counters of the ports \p which summed (queues: the largest, with \p withQueues), after
 * the cells \p first: the "fabric" table's total row, the "fabric-jobs" table's rows.
 */
std::vector<std::string>
SumCells(const std::vector<RdmaNetDevice::Stats>& portStats,
         const std::vector<std::size_t>& which,
         const std::vector<std::string>& first,
         bool withQueues)
{
    RdmaNetDevice::Stats total;
    // Every port can be busy or paused for the whole run: the sums of their times pass a
    // Time's 64 bits long before any one port's time does (a run of 150 years on 2 ports).
    Int128 totalBusy = 0;
    Int128 totalPaused = 0;
    for (std::size_t i : which)
    {
        const RdmaNetDevice::Stats& s = portStats[i];
        total.txBytes += s.txBytes;
        totalBusy += s.busyTime.GetNanoSeconds();
        total.pausesSent += s.pausesSent;
        total.pausesReceived += s.pausesReceived;
        totalPaused += s.pausedTime.GetNanoSeconds();
        total.ecnMarks += s.ecnMarks;
        total.drops += s.drops;
        total.maxQueueBytes = std::max(total.maxQueueBytes, s.maxQueueBytes);
        total.maxIngressBytes = std::max(total.maxIngressBytes, s.maxIngressBytes);
    }
    std::vector<std::string> cells = first;
    cells.insert(cells.end(),
                 {FormatMegabytes(total.txBytes),
                  FormatMicrosSum(totalBusy),
                  std::to_string(total.pausesSent),
                  std::to_string(total.pausesReceived),
                  FormatMicrosSum(totalPaused),
                  std::to_string(total.ecnMarks),
                  std::to_string(total.drops)});
    if (withQueues)
    {
        cells.push_back(FormatFixed(static_cast<double>(total.maxQueueBytes) / 1024, 1));
        cells.push_back(FormatFixed(static_cast<double>(total.maxIngressBytes) / 1024, 1));
    }
    return cells;
}

/** The "fabric" table's first row: every port's counters summed (queues: the largest). */
std::vector<std::string>
PortTotalCells(const std::vector<RdmaNetDevice::Stats>& portStats, std::size_t ports)
{
    std::vector<std::size_t> all(ports);
    for (std::size_t i = 0; i < ports; ++i)
    {
        all[i] = i;
    }
    return SumCells(portStats, all, {"total", std::to_string(ports) + " ports", ""}, true);
}

/**
 * The "fabric" table: the total, then each port (device 2k and 2k+1 are link k's two ends),
 * troubles first (drops, pauses, marks), then the busiest: the printed report shows the first
 * rows only.
 */
ReportTable
PortTable(const ClusterTopology& topology,
          const std::vector<RdmaNetDevice::Stats>& portStats,
          std::size_t ports)
{
    struct Row
    {
        RdmaNetDevice::Stats stats;
        std::vector<std::string> cells;
    };

    const auto& links = topology.GetLinks();
    std::vector<Row> rows;
    for (std::size_t i = 0; i < ports; ++i)
    {
        const ClusterTopology::Link& link = links[i / 2];
        const uint32_t self = i % 2 == 0 ? link.a : link.b;
        const uint32_t peer = i % 2 == 0 ? link.b : link.a;
        rows.push_back({portStats[i], PortCells(topology, link, self, peer, portStats[i])});
    }
    std::stable_sort(rows.begin(), rows.end(), [](const Row& x, const Row& y) {
        return std::make_tuple(x.stats.drops,
                               x.stats.pausedTime,
                               x.stats.pausesSent,
                               x.stats.ecnMarks,
                               x.stats.txBytes) > std::make_tuple(y.stats.drops,
                                                                  y.stats.pausedTime,
                                                                  y.stats.pausesSent,
                                                                  y.stats.ecnMarks,
                                                                  y.stats.txBytes);
    });
    ReportTable fabric;
    fabric.name = "fabric";
    fabric.columns = CounterColumns({"port", "to", "link"}, {"max_queue_KB", "max_ingress_KB"});
    fabric.rows.push_back(PortTotalCells(portStats, ports));
    for (auto& row : rows)
    {
        fabric.rows.push_back(std::move(row.cells));
    }
    return fabric;
}

/** The "rdma" table: one row per rank's NIC. */
ReportTable
NicTable(const std::vector<RdmaNic::Stats>& nicStats, std::size_t nics)
{
    ReportTable rdma;
    rdma.name = "rdma";
    rdma.columns = {"rank",
                    "queue_pairs",
                    "data_packets",
                    "resent",
                    "naks_sent",
                    "timeouts",
                    "cnps_sent",
                    "cnps_received"};
    for (uint32_t rank = 0; rank < nics; ++rank)
    {
        const RdmaNic::Stats& s = nicStats[rank];
        rdma.rows.push_back({std::to_string(rank),
                             std::to_string(s.queuePairs),
                             std::to_string(s.dataPackets),
                             std::to_string(s.resentPackets),
                             std::to_string(s.naksSent),
                             std::to_string(s.timeouts),
                             std::to_string(s.cnpsSent),
                             std::to_string(s.cnpsReceived)});
    }
    return rdma;
}

} // namespace

NS_OBJECT_ENSURE_REGISTERED(RdmaFabric);

TypeId
RdmaFabric::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::RdmaFabric")
            .SetParent<ClusterFabric>()
            .SetGroupName("Chakra")
            .AddConstructor<RdmaFabric>()
            .AddAttribute("ScaleUpEcn",
                          "Let NVLink (scale-up) ports mark ECN too (off: DCQCN reacts to "
                          "the scale-out fabric only; NVLink congestion is held by PFC).",
                          BooleanValue(false),
                          MakeBooleanAccessor(&RdmaFabric::m_scaleUpEcn),
                          MakeBooleanChecker());
    return tid;
}

RdmaFabric::RdmaFabric() = default;

void
RdmaFabric::DoDispose()
{
    m_devices.clear();
    m_switches.clear();
    m_nics.clear();
    m_topology.reset();
    ClusterFabric::DoDispose();
}

void
RdmaFabric::Install(std::shared_ptr<const ClusterTopology> topology, const NodeContainer& nodes)
{
    const auto& links = topology->GetLinks();
    // A link without bandwidth never finishes a frame: every time derived from it (serializing,
    // pausing, the headroom) would be infinite. Refused before anything is built.
    for (const ClusterTopology::Link& link : links)
    {
        if (link.rate.GetBitRate() == 0)
        {
            auto label = [&topology](uint32_t node) {
                const std::string& text = topology->GetNodes()[node].label;
                return text.empty() ? "node" + std::to_string(node) : text;
            };
            throw std::invalid_argument("RdmaFabric: the link " + label(link.a) + " - " +
                                        label(link.b) +
                                        " has a data rate of 0 bit/s (no frame would ever leave)");
        }
    }
    // HPCC's telemetry stamps a link's rate in whole Gbps (RdmaFeedbackHeader): a rate it
    // cannot stamp would make every utilisation wrong, so it is refused here.
    {
        Ptr<RdmaNic> probe = CreateObject<RdmaNic>();
        EnumValue model;
        probe->GetAttribute("CongestionControl", model);
        const std::string name = RdmaRateControl::GetModelName(static_cast<uint32_t>(model.Get()));
        if (RdmaRateControl::Create(name)->GetFeedbackNeeds() & RdmaRateControl::FEEDBACK_TELEMETRY)
        {
            // Its sender compares each ACK's stamps with the previous ACK's, hop by hop: that
            // presumes one path per flow. Per-packet routing mixes the switches' counters
            // (the utilisation would be noise), so the pair is refused.
            const RdmaSwitch::RoutingMode routing = RdmaSwitch::GetDefaultRouting();
            if (RdmaSwitch::RoutesEachPacket(routing))
            {
                throw std::invalid_argument(
                    "RdmaFabric: ns3::RdmaNic::CongestionControl=" + name +
                    " reads in-band telemetry along one path per flow, but "
                    "ns3::RdmaSwitch::Routing=" +
                    std::string(routing == RdmaSwitch::SPRAY ? "spray" : "adaptive") +
                    " routes each packet on its own (use ecmp or flowlet with it)");
            }
            for (const ClusterTopology::Link& link : links)
            {
                if (!RdmaFeedbackHeader::IsStampableRate(link.rate))
                {
                    throw std::invalid_argument(
                        "RdmaFabric: ns3::RdmaNic::CongestionControl=" + name +
                        " stamps link rates in whole Gbps (1 to 4095), but a link of node " +
                        std::to_string(link.a) + " - node " + std::to_string(link.b) + " runs at " +
                        std::to_string(link.rate.GetBitRate()) + " bit/s");
                }
            }
        }
    }
    m_topology = topology;
    const uint32_t ranks = topology->GetRankCount();
    // Devices in link order: each node's devices then follow its topology port order.
    std::vector<std::vector<std::pair<Ptr<RdmaNetDevice>, bool>>> portsOf(nodes.GetN());
    for (const ClusterTopology::Link& link : links)
    {
        // A link between nodes of two MPI processes: a remote channel (distributed runs).
        Ptr<RdmaChannel> channel = CreateRdmaChannel(nodes.Get(link.a), nodes.Get(link.b));
        channel->SetAttribute("Delay", TimeValue(link.delay));
        const bool ecn = link.kind == ClusterTopology::SCALE_OUT || m_scaleUpEcn;
        for (uint32_t end : {link.a, link.b})
        {
            Ptr<RdmaNetDevice> device = CreateObject<RdmaNetDevice>();
            device->SetAttribute("DataRate", DataRateValue(link.rate));
            device->SetAttribute("Mtu", UintegerValue(link.mtu));
            nodes.Get(end)->AddDevice(device);
            device->Attach(channel);
            m_devices.push_back(device);
            portsOf[end].emplace_back(device, ecn);
        }
    }
    m_switches.assign(nodes.GetN(), nullptr);
    m_nics.assign(ranks, nullptr);
    int64_t stream = 0;
    for (uint32_t v = 0; v < nodes.GetN(); ++v)
    {
        Ptr<Node> node = nodes.Get(v);
        const bool gpu = v < ranks;
        Ptr<RdmaSwitch> sw;
        if (!gpu || topology->IsGpuTransit())
        {
            sw = CreateObject<RdmaSwitch>();
            sw->SetTopology(topology, v);
            sw->AssignStreams(stream++);
            node->AggregateObject(sw);
            m_switches[v] = sw;
        }
        Ptr<RdmaNic> nic;
        if (gpu)
        {
            nic = CreateObject<RdmaNic>();
            nic->Setup(topology, v);
            node->AggregateObject(nic);
            m_nics[v] = nic;
            if (sw)
            {
                nic->SetTransitSwitch(sw);
            }
        }
        for (const auto& [device, ecn] : portsOf[v])
        {
            const uint32_t index = sw ? sw->AddPort(device, ecn) : 0;
            if (nic)
            {
                const uint32_t port = nic->AddPort(device);
                device->SetReceiveHandler(
                    [nic, port](Ptr<RdmaNetDevice>, Ptr<Packet> packet, uint8_t priority) {
                        nic->Receive(port, packet, priority);
                    });
            }
            else
            {
                device->SetReceiveHandler(
                    [sw, index](Ptr<RdmaNetDevice>, Ptr<Packet> packet, uint8_t priority) {
                        sw->Receive(index, packet, priority);
                    });
            }
        }
        if (sw)
        {
            // Now, not in the run's first event: a buffer too small for the headroom is an
            // error of the build (see RdmaSwitch::SizeBuffer).
            sw->SizeBuffer();
        }
    }
}

Ptr<CommTransport>
RdmaFabric::CreateTransport(uint32_t /* rank */)
{
    return CreateObject<RdmaTransport>();
}

std::vector<Ipv4Address>
RdmaFabric::GetRankAddresses() const
{
    std::vector<Ipv4Address> addresses;
    const uint32_t ranks = m_topology ? m_topology->GetRankCount() : 0;
    for (uint32_t rank = 0; rank < ranks; ++rank)
    {
        addresses.push_back(RoceV2Header::AddressOfRank(rank));
    }
    return addresses;
}

const std::vector<Ptr<RdmaNetDevice>>&
RdmaFabric::GetDevices() const
{
    return m_devices;
}

Ptr<RdmaSwitch>
RdmaFabric::GetSwitch(uint32_t node) const
{
    return node < m_switches.size() ? m_switches[node] : nullptr;
}

Ptr<RdmaNic>
RdmaFabric::GetNic(uint32_t rank) const
{
    return rank < m_nics.size() ? m_nics[rank] : nullptr;
}

std::vector<ReportTable>
RdmaFabric::GetReportTables() const
{
    std::vector<ReportTable> tables;
    if (!m_topology)
    {
        return tables;
    }
    // In a distributed run, each port's counters from the process that ran it.
    const std::vector<RdmaNetDevice::Stats> portStats = GatherPortStats(m_devices);
    const std::vector<RdmaNic::Stats> nicStats = GatherNicStats(m_nics);
    tables.push_back(PortTable(*m_topology, portStats, m_devices.size()));
    tables.push_back(NicTable(nicStats, m_nics.size()));
    return tables;
}

std::vector<uint32_t>
RdmaFabric::JobOfGpu(const std::vector<JobGpus>& jobs) const
{
    std::vector<uint32_t> jobOf(m_topology->GetRankCount(), static_cast<uint32_t>(jobs.size()));
    for (std::size_t j = 0; j < jobs.size(); ++j)
    {
        for (uint32_t gpu : jobs[j].second)
        {
            jobOf.at(gpu) = static_cast<uint32_t>(j);
        }
    }
    return jobOf;
}

void
RdmaFabric::SetJobs(const std::vector<JobGpus>& jobs)
{
    if (!m_topology)
    {
        return;
    }
    auto jobOf = std::make_shared<const std::vector<uint32_t>>(JobOfGpu(jobs));
    for (const Ptr<RdmaSwitch>& sw : m_switches)
    {
        if (sw)
        {
            sw->SetRankJobs(jobOf, static_cast<uint32_t>(jobs.size()));
        }
    }
}

std::vector<ReportTable>
RdmaFabric::GetJobTables(const std::vector<JobGpus>& jobs) const
{
    if (!m_topology)
    {
        return {};
    }
    const std::vector<RdmaNetDevice::Stats> portStats = GatherPortStats(m_devices);
    const auto& links = m_topology->GetLinks();
    const auto& nodes = m_topology->GetNodes();
    // Each GPU's job (GPU nodes are numbered as ranks); the links of GPUs no job runs on are
    // "no job", the links between switches "shared".
    const std::vector<uint32_t> jobOf = JobOfGpu(jobs);
    std::vector<std::vector<std::size_t>> ports(jobs.size() + 2);
    for (std::size_t i = 0; i < m_devices.size(); ++i)
    {
        const ClusterTopology::Link& link = links[i / 2];
        if (link.kind != ClusterTopology::SCALE_OUT)
        {
            continue;
        }
        const bool aGpu = nodes[link.a].kind == ClusterTopology::GPU;
        const bool bGpu = nodes[link.b].kind == ClusterTopology::GPU;
        ports[aGpu ? jobOf[link.a] : bGpu ? jobOf[link.b] : jobs.size() + 1].push_back(i);
    }
    // What each job's packets put on the links between switches (counted by the switch that
    // sends them), every process's switches summed; the last entry: GPUs of no job.
    std::vector<uint64_t> switchBytes(jobs.size() + 1, 0);
    for (uint32_t node = 0; node < m_switches.size(); ++node)
    {
        if (!m_switches[node] || nodes[node].kind != ClusterTopology::SWITCH)
        {
            continue;
        }
        const auto& switchPorts = m_topology->GetPorts(node);
        for (uint32_t p = 0; p < switchPorts.size(); ++p)
        {
            const std::vector<uint64_t>& byJob = m_switches[node]->GetJobBytes(p);
            if (nodes[switchPorts[p].peer].kind != ClusterTopology::SWITCH || byJob.empty())
            {
                continue;
            }
            for (std::size_t j = 0; j < switchBytes.size(); ++j)
            {
                switchBytes[j] += byJob[j];
            }
        }
    }
    uint64_t switchTotal = 0;
    for (uint64_t& bytes : switchBytes)
    {
        bytes = MpiContext::Sum(bytes);
        switchTotal += bytes;
    }
    ReportTable table;
    table.name = "fabric-jobs";
    table.columns = CounterColumns({"job", "ports"}, {"switch_links_MB"});
    for (std::size_t j = 0; j < jobs.size() + 2; ++j)
    {
        const std::string name = j < jobs.size()    ? jobs[j].first
                                 : j == jobs.size() ? "(no job)"
                                                    : "(shared)";
        if (j < jobs.size() || !ports[j].empty())
        {
            table.rows.push_back(
                SumCells(portStats, ports[j], {name, std::to_string(ports[j].size())}, false));
            table.rows.back().push_back(
                FormatMegabytes(j <= jobs.size() ? switchBytes[j] : switchTotal));
        }
    }
    return {table};
}

} // namespace ns3
