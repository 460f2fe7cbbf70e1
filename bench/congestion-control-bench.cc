/*
 * congestion-control-bench: the RDMA NIC's congestion controls side by side on incasts: N
 * senders to one receiver through one switch (100 Gbps, 1 us cables), every sender starting
 * at once. Per model and N: when the last message arrives against the line-rate ideal, how
 * busy the receiver's link was, the switch queue (mean while all senders run, and peak), PFC
 * pauses, ECN marks, and how evenly the receiver's link was shared until the first sender
 * finished (Jain's index).
 */
#include "bench-args.h"
#include "bench-util.h"

#include "ns3/chakra-module.h"
#include "ns3/core-module.h"
#include "ns3/network-module.h"

#include <cstdio>
#include <iostream>
#include <map>
#include <numeric>

using namespace ns3;

namespace
{

constexpr double kLineGbps = 100;
constexpr uint32_t kMtu = 9000;

/** One incast's figures. */
struct Row
{
    double lastUs{0};
    double idealUs{0};
    double busy{0};
    double meanQueueKB{0};
    double maxQueueKB{0};
    uint64_t pauses{0};
    uint64_t marks{0};
    double jain{0};
};

/** Sets the model and what it asks of the switches (documented in doc/benchmarks.md). */
void
Configure(const std::string& model)
{
    Config::SetDefault("ns3::RdmaNic::CongestionControl", StringValue(model));
    if (model == "dctcp")
    {
        // DCTCP's step marking at K (its paper): here K = 100 KB.
        Config::SetDefault("ns3::RdmaSwitch::EcnKmin", UintegerValue(100000));
        Config::SetDefault("ns3::RdmaSwitch::EcnKmax", UintegerValue(100000));
        Config::SetDefault("ns3::RdmaSwitch::EcnPmax", DoubleValue(1.0));
    }
    // HPCC's T: this star's base round trip (2 x 9,038 B at 100 Gbps + 4 us of cable) is
    // 5.5 us.
    Config::SetDefault("ns3::HpccRateControl::BaseRtt", TimeValue(MicroSeconds(6)));
}

/** Counts the data bytes a port sends, by source rank, until a time. */
struct ShareCounter
{
    std::map<uint32_t, double> bytes;
    Time until{Time::Max()};

    void Count(Ptr<const Packet> packet)
    {
        if (Simulator::Now() >= until)
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
};

Row
RunIncast(uint32_t senders, uint64_t bytes)
{
    auto topology = std::make_shared<ClusterTopology>();
    for (uint32_t g = 0; g <= senders; ++g)
    {
        topology->AddGpu(g);
    }
    const uint32_t hub = topology->AddSwitch(ClusterTopology::SWITCH, 0, "switch");
    for (uint32_t g = 0; g <= senders; ++g)
    {
        topology->AddLink(g,
                          hub,
                          DataRate("100Gbps"),
                          MicroSeconds(1),
                          kMtu,
                          ClusterTopology::SCALE_OUT);
    }
    NodeContainer nodes;
    nodes.Create(static_cast<uint32_t>(topology->GetNodes().size()));
    Ptr<RdmaFabric> fabric = CreateObject<RdmaFabric>();
    fabric->Install(topology, nodes);
    const uint32_t receiver = senders;
    Ptr<RdmaSwitch> sw = fabric->GetSwitch(hub);
    Ptr<RdmaNetDevice> toReceiver = fabric->GetDevices()[2 * receiver + 1];
    ShareCounter counter;
    toReceiver->TraceConnectWithoutContext("MacTx", MakeCallback(&ShareCounter::Count, &counter));
    Time& firstDone = counter.until;
    Time lastDone;
    fabric->GetNic(receiver)->SetDeliverCallback([&](const MessageHeader&) {
        firstDone = std::min(firstDone, Simulator::Now());
        lastDone = Simulator::Now();
    });
    for (uint32_t s = 0; s < senders; ++s)
    {
        MessageHeader header;
        header.src = s;
        header.key.kind = MessageKey::P2P;
        header.payload = bytes;
        Simulator::ScheduleNow([fabric, s, receiver, header]() {
            fabric->GetNic(s)->Send(receiver, header, nullptr);
        });
    }
    std::vector<double> queue;
    std::function<void()> sample = [&]() {
        if (Simulator::Now() < firstDone)
        {
            queue.push_back(static_cast<double>(sw->GetBufferedBytes()));
            Simulator::Schedule(MicroSeconds(1), sample);
        }
    };
    Simulator::ScheduleNow(sample);
    Simulator::Run();

    Row row;
    row.lastUs = lastDone.GetSeconds() * 1e6;
    // The ideal: every byte of every message through the receiver's link at line rate
    // (payload, 62-byte message header, 44 bytes of RoCEv2 and 38 of Ethernet per packet).
    const double stream = static_cast<double>(bytes) + MessageHeader::kSize;
    const double packets = std::ceil(stream / (kMtu - 44));
    row.idealUs = senders * (stream + packets * (44 + 38)) * 8 / (kLineGbps * 1e3);
    row.busy = toReceiver->GetStats().busyTime.GetSeconds() / lastDone.GetSeconds();
    row.meanQueueKB = queue.empty() ? 0
                                    : std::accumulate(queue.begin(), queue.end(), 0.0) /
                                          static_cast<double>(queue.size()) / 1e3;
    row.maxQueueKB = queue.empty() ? 0 : *std::max_element(queue.begin(), queue.end()) / 1e3;
    for (const auto& device : fabric->GetDevices())
    {
        row.pauses += device->GetStats().pausesSent;
        row.marks += device->GetStats().ecnMarks;
    }
    double sum = 0;
    double squares = 0;
    for (uint32_t s = 0; s < senders; ++s)
    {
        sum += counter.bytes[s];
        squares += counter.bytes[s] * counter.bytes[s];
    }
    row.jain = squares > 0 ? sum * sum / (senders * squares) : 0;
    Simulator::Destroy();
    return row;
}

} // namespace

int
main(int argc, char** argv)
{
    const std::string program = "congestion-control-bench";
    ToolArgs args(program,
                  "RDMA congestion controls on incasts: N senders to one receiver through one "
                  "switch (100 Gbps, 1 us cables), each model in its own process.");
    const std::vector<std::string> known{"none", "dcqcn", "dctcp", "timely", "hpcc", "swift"};
    args.AddOption("models",
                   "congestion controls (comma separated)",
                   "none,dcqcn,dctcp,timely,hpcc,swift");
    args.AddOption("senders", "incast sizes (comma separated)", "2,16");
    args.AddOption("bytes", "message per sender (e.g. 16MiB)", "16MiB");
    args.EnableNs3Attributes();
    std::vector<std::string> models;
    std::vector<uint32_t> senders;
    uint64_t bytes = 0;
    auto readValues = [&]() {
        models = chakra_bench::ParseNameList(args.Get("models"), "--models", known);
        senders = chakra_bench::ParseCountList(args.Get("senders"), "--senders", 1, 1024);
        bytes = ParseByteSize(args.Get("bytes"), "--bytes", 1, uint64_t(1) << 36);
    };
    int exitCode = 0;
    if (!chakra_bench::ParseFlags(program, args, argc, argv, readValues, exitCode))
    {
        return exitCode;
    }
    std::printf("%-7s %7s %12s %12s %7s %14s %13s %7s %9s %6s\n",
                "model",
                "senders",
                "last_us",
                "ideal_us",
                "busy%",
                "mean_queue_KB",
                "max_queue_KB",
                "pauses",
                "ecn_marks",
                "jain");
    std::fflush(stdout);
    int status = 0;
    for (const std::string& model : models)
    {
        for (uint32_t n : senders)
        {
            status |= chakra_bench::RunInChild([&]() {
                Configure(model);
                const Row row = RunIncast(n, bytes);
                std::printf("%-7s %7u %12.1f %12.1f %7.1f %14.1f %13.1f %7lu %9lu %6.3f\n",
                            model.c_str(),
                            n,
                            row.lastUs,
                            row.idealUs,
                            row.busy * 100,
                            row.meanQueueKB,
                            row.maxQueueKB,
                            static_cast<unsigned long>(row.pauses),
                            static_cast<unsigned long>(row.marks),
                            row.jain);
                std::fflush(stdout);
                return 0;
            });
        }
    }
    return status;
}
