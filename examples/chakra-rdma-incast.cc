/*
 * chakra-rdma-incast: N senders to one receiver through one switch port, on the rdma model
 * with DCQCN on, and what the fabric did about it.
 *
 * The workload is a gather to rank 0 (WorkloadGenerator): every other rank sends its
 * --bytes to rank 0 at once (the direct algorithm), so the switch port towards rank 0 is
 * offered (N-1) x its rate. Its queue fills; the switch marks ECN on packets past its ECN
 * threshold (the receiver answers with CNPs, and DCQCN on each sender lowers its rate) and
 * sends PFC pause frames to a sender when the bytes that arrived from it and wait in the switch
 * pass the PFC threshold (here a static 256 KB per ingress port, so that a short run shows it;
 * --pfcThreshold=dynamic: the default share of the free buffer, which this run never reaches).
 * The program prints the gather's time beside the bound the receiving port sets ((N-1) x bytes
 * at its payload rate), and the fabric report's totals: ECN marks, PFC pauses, CNPs, drops.
 * --congestionControl=none runs the same with PFC alone: the senders stay at line rate and the
 * gather takes the bound (the switch still marks, but no NIC answers with CNPs: only DCQCN reads
 * them); with DCQCN they back off on CNPs and take longer; dctcp, timely, hpcc
 * and swift are the other models (doc/chakra.md). Every switch and
 * NIC attribute can be given on the command line too, e.g. --ns3::RdmaSwitch::EcnKmax=400000.
 *
 *   build/bin/chakra-rdma-incast [--senders=7] [--bytes=1048576] [--nicBandwidth=100Gbps]
 *                                [--congestionControl=dcqcn] [--pfcThreshold=static]
 */
#include "example-util.h"

#include "ns3/chakra-module.h"
#include "ns3/core-module.h"

#include <filesystem>
#include <iomanip>
#include <iostream>

using namespace ns3;

NS_LOG_COMPONENT_DEFINE("ChakraRdmaIncast");

namespace
{

/** \return the column \p column of the "total" row of the report's table \p table ("" if none) */
std::string
TotalOf(const ChakraReport& report, const std::string& table, const std::string& column)
{
    for (const ReportTable& t : report.GetTables())
    {
        if (t.name != table)
        {
            continue;
        }
        for (std::size_t i = 0; i < t.columns.size(); ++i)
        {
            if (t.columns[i] == column && !t.rows.empty() && t.rows.front().front() == "total")
            {
                return t.rows.front()[i];
            }
        }
    }
    return "";
}

/** \return the sum of column \p column over the rows of the report's table \p table */
uint64_t
SumOf(const ChakraReport& report, const std::string& table, const std::string& column)
{
    uint64_t sum = 0;
    for (const ReportTable& t : report.GetTables())
    {
        for (std::size_t i = 0; t.name == table && i < t.columns.size(); ++i)
        {
            for (const auto& row : t.rows)
            {
                sum += t.columns[i] == column ? std::stoull(row[i]) : 0;
            }
        }
    }
    return sum;
}

} // namespace

int
RunExample(int argc, char* argv[])
{
    uint32_t senders = 7;
    uint64_t bytes = 1u << 20;
    std::string nicBandwidth = "100Gbps";
    std::string congestionControl = "dcqcn";
    std::string pfcThreshold = "static";
    ExampleCommandLine cmd(__FILE__);
    cmd.AddValue("senders", "ranks that send to rank 0", senders);
    cmd.AddValue("bytes", "bytes each sender sends", bytes);
    cmd.AddValue("nicBandwidth", "every NIC's (and switch port's) bandwidth", nicBandwidth);
    cmd.AddValue("congestionControl",
                 "the NICs' congestion control: " + RdmaRateControl::ListModels() +
                     " (none: PFC alone)",
                 congestionControl);
    cmd.AddValue("pfcThreshold",
                 "the switch's PFC threshold: static (256 KB per ingress port) or dynamic",
                 pfcThreshold);
    cmd.Parse(argc, argv);
    if (senders == 0 || bytes == 0)
    {
        // Nothing would cross the port: the counters and the bound below would say nothing.
        throw std::invalid_argument("--senders and --bytes must be at least 1");
    }

    // Attributes of every RdmaNic and RdmaSwitch the fabric creates (a value they refuse is
    // an error naming the flag, not ns-3's abort).
    if (!Config::SetDefaultFailSafe("ns3::RdmaNic::CongestionControl",
                                    StringValue(congestionControl)))
    {
        throw std::invalid_argument("--congestionControl: '" + congestionControl +
                                    "' is not one of " + RdmaRateControl::ListModels());
    }
    if (!Config::SetDefaultFailSafe("ns3::RdmaSwitch::PfcThreshold", StringValue(pfcThreshold)))
    {
        throw std::invalid_argument("--pfcThreshold: '" + pfcThreshold +
                                    "' is not static or dynamic");
    }

    const TemporaryDirectory directory("chakra-incast");
    const std::string prefix = directory.GetPath() + "/gather";
    CollectiveBenchSpec spec;
    spec.type = ChakraProtoMsg::GATHER;
    spec.ranks = senders + 1;
    spec.bytes = bytes;
    spec.root = 0;
    WorkloadGenerator::WriteCollectiveBench(prefix, spec);

    // One GPU per host, every NIC on one switch: the only shared port is the one to rank 0.
    ClusterScenario scenario;
    Ptr<GpuClusterHelper> cluster = scenario.GetCluster();
    scenario.SetClusterAttribute("Transport", StringValue("rdma"));
    scenario.SetClusterAttribute("Hosts", UintegerValue(senders + 1));
    scenario.SetClusterAttribute("GpusPerHost", UintegerValue(1));
    scenario.SetClusterAttribute("NicBandwidth", StringValue(nicBandwidth));
    ChakraReport report;
    try
    {
        report = scenario.Run(prefix);
    }
    catch (const std::exception& e) // a configuration that cannot run: the message says why
    {
        std::cerr << "error: " << e.what() << std::endl;
        return 1;
    }
    if (!report.AllFinished())
    {
        report.PrintProblems(std::cerr);
        return 1;
    }

    const CollectiveSummary gather = report.GetCollectives().front();
    // The receiving port carries (N-1) x bytes; a packet of Mtu bytes carries Mtu - 44 (IPv4,
    // UDP, BTH, ICRC) and takes Mtu + 38 on the wire (Ethernet header, FCS, preamble, gap).
    const double mtu = cluster->GetMtu();
    const double payloadRate =
        cluster->GetNicBandwidth().GetBitRate() / 8.0 * (mtu - 44) / (mtu + 38);
    const double boundUs = senders * static_cast<double>(bytes) / payloadRate * 1e6;
    std::cout << "cluster: " << cluster->Describe() << "\n";
    std::cout << "incast: " << senders << " senders x " << bytes << " bytes to rank 0, "
              << "congestion control " << congestionControl << ", PFC threshold " << pfcThreshold
              << "\n";
    std::cout << std::fixed << std::setprecision(3)
              << "gather time: " << (gather.end - gather.start).GetNanoSeconds() / 1e3
              << " us (the receiving port's bound: " << boundUs << " us)\n";
    std::cout << "ecn marks: " << TotalOf(report, "fabric", "ecn_marks") << "\n";
    std::cout << "pfc pauses sent: " << TotalOf(report, "fabric", "pfc_pause_sent") << "\n";
    std::cout << "time paused: " << TotalOf(report, "fabric", "paused_us") << " us\n";
    std::cout << "cnps received: " << SumOf(report, "rdma", "cnps_received") << "\n";
    std::cout << "drops: " << TotalOf(report, "fabric", "drops") << "\n";
    return 0;
}

int
main(int argc, char* argv[])
{
    // A mistake (a refused value, an absurd size) is one line naming it and exit 1, not an abort.
    return RunTool("chakra-rdma-incast", [&] { return RunExample(argc, argv); });
}
