/*
 * Distributed runs (issue 16): the partition of a cluster over MPI processes (which process
 * runs each node) for each policy, its errors, and the check that links between processes are
 * remote channels; the report's per-rank results survive their trip between processes. The
 * expected partitions are worked out by hand from the node order of the topology builders
 * (GPUs, then NVSwitches, then fabric switches) in each case's comments. These run in every
 * build: no MPI is needed to partition. The MPI runs themselves are test/mpi/run-mpi-tests.sh.
 */
#define BOOST_TEST_MODULE partition
#include "chakra-test-data.h"
#include "topology-case.h"

#include "ns3/chakra-module.h"
#include "ns3/core-module.h"
#include "ns3/network-module.h"

#include <algorithm>
#include <boost/test/unit_test.hpp>
#include <stdexcept>
#include <string>
#include <vector>

using namespace ns3;

namespace
{

/** 4 hosts x 2 GPUs: GPUs 0-7 (host = rank / 2), NVSwitches 8-11 (one per host), then the
 * fabric's switches. */
TopologyCase
FourHosts(const std::string& kind)
{
    TopologyCase spec;
    spec.kind = kind;
    spec.hosts = 4;
    spec.gpusPerHost = 2;
    return spec;
}

/** \return true if \p call throws std::invalid_argument whose text contains \p words */
template <typename F>
bool
FailsWith(F call, const std::string& words)
{
    try
    {
        call();
    }
    catch (const std::invalid_argument& e)
    {
        if (std::string(e.what()).find(words) != std::string::npos)
        {
            return true;
        }
        BOOST_TEST_MESSAGE("other message: " << e.what());
        return false;
    }
    return false;
}

using Processes = std::vector<uint32_t>;

} // namespace

BOOST_AUTO_TEST_CASE(one_process_runs_everything)
{
    auto topology = BuildTopology(FourHosts("single-switch"));
    const ClusterPartition p = PartitionCluster(*topology, 1, "hosts");
    BOOST_TEST(p.processes == 1u);
    BOOST_TEST(p.units == 4u);
    BOOST_TEST(p.processOf == Processes(13, 0), boost::test_tools::per_element());
    BOOST_TEST(p.crossingLinks == 0u);
    BOOST_TEST(p.lookahead == Time(0));
}

BOOST_AUTO_TEST_CASE(hosts_in_blocks_and_the_switch_with_most_of_its_gpus)
{
    // Units: host h = GPUs 2h, 2h+1 and NVSwitch 8+h. Blocks: hosts 0,1 on process 0, hosts 2,3
    // on process 1. The single switch (node 12) has 4 GPUs on each: the tie goes to process 0.
    // GPUs 4-7's NIC links (500 ns) cross.
    auto topology = BuildTopology(FourHosts("single-switch"));
    const ClusterPartition p = PartitionCluster(*topology, 2, "hosts");
    const Processes expected{0, 0, 0, 0, 1, 1, 1, 1, 0, 0, 1, 1, 0};
    BOOST_TEST(p.processOf == expected, boost::test_tools::per_element());
    BOOST_TEST(p.unitOf[9] == 1u);
    BOOST_TEST(p.unitOf[12] == ClusterPartition::kNoUnit);
    BOOST_TEST(p.crossingLinks == 4u);
    BOOST_TEST(p.lookahead == NanoSeconds(500));
    BOOST_TEST(DescribePartition(*topology, p) ==
               "2 process(es), GPUs/nodes per process 4/7 4/6, 4 link(s) between processes "
               "(lookahead 500 ns)");
}

BOOST_AUTO_TEST_CASE(round_robin_and_an_explicit_list)
{
    auto topology = BuildTopology(FourHosts("single-switch"));
    // Round robin: hosts 0, 2 on process 0; hosts 1, 3 on process 1.
    ClusterPartition p = PartitionCluster(*topology, 2, "round-robin");
    Processes expected{0, 0, 1, 1, 0, 0, 1, 1, 0, 1, 0, 1, 0};
    BOOST_TEST(p.processOf == expected, boost::test_tools::per_element());
    // A list, one process per host: 1, 0, 0, 1 (spaces allowed).
    p = PartitionCluster(*topology, 2, "1, 0,0,1");
    expected = {1, 1, 0, 0, 0, 0, 1, 1, 1, 0, 0, 1, 0};
    BOOST_TEST(p.processOf == expected, boost::test_tools::per_element());
    BOOST_TEST(p.crossingLinks == 4u); // the 4 GPUs of process 1 to the switch on process 0
}

BOOST_AUTO_TEST_CASE(leaves_follow_their_hosts_spines_are_spread)
{
    // Leaf-spine, 2 hosts per leaf, 2 spines: leaf0 (node 12) serves hosts 0, 1, leaf1 (13)
    // hosts 2, 3; spines 14, 15. On 2 processes: leaf0 with process 0, leaf1 with process 1,
    // spine0 on 0, spine1 on 1. Only leaf0-spine1 and leaf1-spine0 cross (fabric latency 700 ns:
    // the lookahead).
    TopologyCase spec = FourHosts("leaf-spine");
    spec.hostsPerLeaf = 2;
    spec.fabricLatency = NanoSeconds(700);
    auto topology = BuildTopology(spec);
    const ClusterPartition p = PartitionCluster(*topology, 2, "hosts");
    const Processes expected{0, 0, 0, 0, 1, 1, 1, 1, 0, 0, 1, 1, 0, 1, 0, 1};
    BOOST_TEST(p.processOf == expected, boost::test_tools::per_element());
    BOOST_TEST(p.crossingLinks == 2u);
    BOOST_TEST(p.lookahead == NanoSeconds(700));
}

BOOST_AUTO_TEST_CASE(an_nvlink_domain_of_several_hosts_is_one_unit)
{
    // ScaleUpDomain 4: hosts 0-1 and 2-3 share an NVSwitch each: 2 units (GPUs 0-3 + NVSwitch
    // 8, GPUs 4-7 + NVSwitch 9), so 3 processes are too many.
    TopologyCase spec = FourHosts("single-switch");
    spec.scaleUpDomain = 4;
    auto topology = BuildTopology(spec);
    const ClusterPartition p = PartitionCluster(*topology, 2, "hosts");
    BOOST_TEST(p.units == 2u);
    const Processes expected{0, 0, 0, 0, 1, 1, 1, 1, 0, 1, 0};
    BOOST_TEST(p.processOf == expected, boost::test_tools::per_element());
    BOOST_TEST(FailsWith([&] { PartitionCluster(*topology, 3, "hosts"); }, "at most 2 process"));
}

BOOST_AUTO_TEST_CASE(invalid_partitions_are_clear_errors)
{
    auto topology = BuildTopology(FourHosts("single-switch"));
    BOOST_TEST(FailsWith([&] { PartitionCluster(*topology, 5, "hosts"); },
                         "5 processes but the cluster has 4 host(s)"));
    BOOST_TEST(FailsWith([&] { PartitionCluster(*topology, 2, "blocks"); },
                         "expected hosts, round-robin or a comma-separated list"));
    BOOST_TEST(FailsWith([&] { PartitionCluster(*topology, 2, "0,1"); },
                         "lists 2 process(es) but the cluster has 4 host(s)"));
    BOOST_TEST(FailsWith([&] { PartitionCluster(*topology, 2, "0,1,2,1"); },
                         "host 2 is put on process 2 but the run has 2 process(es)"));
    BOOST_TEST(
        FailsWith([&] { PartitionCluster(*topology, 2, "0,0,0,0"); }, "gives process 1 no host"));
    BOOST_TEST(FailsWith([&] { PartitionCluster(*topology, 2, "0,,1,1"); },
                         "entry 1 is not a process number"));
    BOOST_TEST(FailsWith([&] { PartitionCluster(*topology, 0, "hosts"); }, "at least one"));

    // NIC links without delay cannot join processes (no lookahead); NVLink ones never do.
    TopologyCase spec = FourHosts("single-switch");
    spec.nicLatency = Time(0);
    auto instant = BuildTopology(spec);
    BOOST_TEST(FailsWith([&] { PartitionCluster(*instant, 2, "hosts"); },
                         "(gpu4 - switch) joins processes 1 and 0 without delay"));
    BOOST_TEST(PartitionCluster(*instant, 1, "hosts").crossingLinks == 0u);
}

BOOST_AUTO_TEST_CASE(links_between_processes_must_be_remote_channels)
{
    // Without MPI (or with a fabric that has no remote variant) the links of a 2-process
    // partition are ordinary channels: the check names the transport and a node. Nodes get
    // the partition's system ids as GpuClusterHelper gives them.
    auto topology = BuildTopology(FourHosts("single-switch"));
    const ClusterPartition p = PartitionCluster(*topology, 2, "hosts");
    NodeContainer nodes;
    for (uint32_t v = 0; v < p.processOf.size(); ++v)
    {
        nodes.Create(1, p.processOf[v]);
    }
    // No devices at all (a flow-level model).
    BOOST_TEST(FailsWith([&] { CheckRemoteLinks(*topology, nodes, p, "flow"); },
                         "the flow transport's fabric cannot run over several processes"));
    Ptr<IpFabric> fabric = CreateObject<IpFabric>();
    fabric->Install(topology, nodes);
    BOOST_TEST(FailsWith([&] { CheckRemoteLinks(*topology, nodes, p, "tcp"); },
                         "has 1 link(s) to nodes of other processes but 0 remote channel(s)"));
    // One process: nothing crosses, nothing to check.
    CheckRemoteLinks(*topology, nodes, PartitionCluster(*topology, 1, "hosts"), "tcp");
    Simulator::Destroy();
}

BOOST_AUTO_TEST_CASE(rdma_links_between_processes_are_remote_channels)
{
    // The partition of hosts_in_blocks_and_the_switch_with_most_of_its_gpus: GPUs 4-7's four
    // NIC links to the switch (process 0) cross; every other link stays in its process.
    auto topology = BuildTopology(FourHosts("single-switch"));
    const ClusterPartition p = PartitionCluster(*topology, 2, "hosts");
    NodeContainer nodes;
    for (uint32_t v = 0; v < p.processOf.size(); ++v)
    {
        nodes.Create(1, p.processOf[v]);
    }
    Ptr<RdmaFabric> fabric = CreateObject<RdmaFabric>();
    fabric->Install(topology, nodes);
    CheckRemoteLinks(*topology, nodes, p, "rdma"); // no error
    uint32_t remote = 0;
    const auto& devices = fabric->GetDevices();
    for (std::size_t i = 0; i < devices.size(); i += 2)
    {
        Ptr<RdmaChannel> channel = devices[i]->GetRdmaChannel();
        const bool crosses =
            devices[i]->GetNode()->GetSystemId() != devices[i + 1]->GetNode()->GetSystemId();
        const bool isRemote = channel->GetInstanceTypeId() == RdmaRemoteChannel::GetTypeId();
        BOOST_TEST(isRemote == crosses);
        remote += isRemote;
        if (isRemote)
        {
            // The fabric's devices come in link order, two per link.
            const ClusterTopology::Link& link = topology->GetLinks()[i / 2];
            const uint32_t gpu = std::min(link.a, link.b);
            BOOST_TEST((gpu >= 4 && gpu <= 7));
        }
    }
    BOOST_TEST(remote == 4u);
    // One process: the gathered counters are each device's own (nothing sent: all zero).
    const auto stats = GatherPortStats(devices);
    BOOST_TEST(stats.size() == devices.size());
    BOOST_TEST(stats[0].txFrames == 0u);
    Simulator::Destroy();
}

BOOST_AUTO_TEST_CASE(rank_results_survive_the_trip_between_processes)
{
    // What GatherReport sends: every field of a rank's totals and records, strings with commas
    // and quotes, a negative peer, non-integral microseconds; read back, the report writes the
    // same CSV bytes as the original.
    RankStats a;
    a.rank = 1;
    a.finished = true;
    a.finishTime = NanoSeconds(123456789);
    a.computeBusy = NanoSeconds(1001);
    a.commTime = NanoSeconds(7);
    a.exposedComm = NanoSeconds(3);
    a.exposedByCategory[static_cast<std::size_t>(CommCategory::Tensor)] = NanoSeconds(2);
    a.exposedByCategory[static_cast<std::size_t>(CommCategory::Pipeline)] = NanoSeconds(1);
    a.stepModelFlops = 1.5e15;
    a.stepTokens = 32768;
    a.gpuPeakFlops = 989e12;
    a.nodes = 42;
    a.warnings = {"w1, with comma", "w2 \"quoted\""};
    RankStats b;
    b.rank = 0;
    b.stuck = {"node 5 waits for 4"};
    b.error = "bad";
    CommRecord c;
    c.rank = 1;
    c.nodeId = 1ull << 40;
    c.name = "all_reduce, bucket 0";
    c.kind = "ALL_REDUCE";
    c.bytes = 5ull << 32;
    c.pg = "tp";
    c.commSize = 8;
    c.algorithm = "ring";
    c.seq = 3;
    c.peer = -1;
    c.start = NanoSeconds(10);
    c.end = NanoSeconds(1010);
    c.traceMicros = 0.123;
    CommRecord d = c;
    d.rank = 0;
    d.kind = "SEND";
    d.peer = 1;
    ChakraReport original; // ranks added in rank order, as ChakraHelper adds them
    original.AddRank(b, {d});
    original.AddRank(a, {c});

    ChakraReport copy;
    AddRankResults(copy, SerializeRankResults(original));
    BOOST_REQUIRE(copy.GetRanks().size() == 2u);
    BOOST_TEST(copy.GetRanks()[1].warnings == a.warnings, boost::test_tools::per_element());
    BOOST_TEST(copy.GetRanks()[0].stuck == b.stuck, boost::test_tools::per_element());
    BOOST_TEST(copy.GetCommRecords().size() == 2u);
    // The time split and the training step's facts too: the report's summary lines need them.
    BOOST_TEST(copy.GetRanks()[1].exposedByCategory == a.exposedByCategory,
               boost::test_tools::per_element());
    BOOST_TEST(copy.GetTrainingThroughput().tflopsPerGpu ==
               original.GetTrainingThroughput().tflopsPerGpu);
    BOOST_TEST(copy.GetTrainingThroughput().stated);
    chakra_test::TempDir dir;
    original.WriteCsv(dir.File("a"));
    copy.WriteCsv(dir.File("b"));
    for (const char* file : {"ranks.csv", "collectives.csv", "comm-ops.csv"})
    {
        BOOST_TEST(chakra_test::ReadFileBytes(dir.File(std::string("a/") + file)) ==
                   chakra_test::ReadFileBytes(dir.File(std::string("b/") + file)));
    }
    BOOST_TEST(
        chakra_test::ReadFileBytes(dir.File("b/comm-ops.csv"))
            .find("1,1099511627776,\"all_reduce, bucket 0\",ALL_REDUCE,tp,3,-1,21474836480,ring,"
                  "0.010,1.010,0.123") != std::string::npos);

    // Truncated bytes are an error, not a crash.
    std::string bytes = SerializeRankResults(original);
    bytes.resize(bytes.size() - 3);
    ChakraReport broken;
    BOOST_CHECK_THROW(AddRankResults(broken, bytes), std::runtime_error);
}

BOOST_AUTO_TEST_CASE(an_mpirun_launch_without_mpi_is_refused)
{
    // Debian's ns-3 has no MPI: a program that mpirun starts on 4 processes would run the
    // whole simulation 4 times. MpiSession says so instead (the environment is what Open MPI's
    // mpirun gives each process). With MPI, MpiSession would join the job: not tested here.
    if (MpiContext::IsAvailable())
    {
        return;
    }
    BOOST_TEST(MpiContext::GetProcessCount() == 1u);
    BOOST_TEST(MpiContext::GetProcessId() == 0u);
    int argc = 1;
    char name[] = "test";
    char* args[] = {name, nullptr};
    char** argv = args;
    {
        MpiSession alone(&argc, &argv); // not launched by mpirun: nothing happens
    }
    setenv("OMPI_COMM_WORLD_SIZE", "4", 1);
    BOOST_TEST(MpiContext::LaunchedProcessCount() == 4u);
    BOOST_CHECK_EXCEPTION(MpiSession(&argc, &argv),
                          std::runtime_error,
                          [](const std::runtime_error& e) {
                              return std::string(e.what()).find(
                                         "launched by mpirun on 4 processes, but this build's "
                                         "ns-3 has no MPI") == 0;
                          });
    setenv("OMPI_COMM_WORLD_SIZE", "1", 1);
    MpiSession one(&argc, &argv); // mpirun -np 1: harmless
    unsetenv("OMPI_COMM_WORLD_SIZE");
    BOOST_TEST(MpiContext::LaunchedProcessCount() == 1u);
}
