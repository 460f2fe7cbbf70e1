/*
 * Several jobs on one cluster (issue 28): placement by hand-checked cases, isolation of the
 * jobs' messages, exact results beside each other on disjoint paths, the hand-derived share of
 * an oversubscribed uplink, and the errors of bad job specifications.
 */
#define BOOST_TEST_MODULE multi_job
#include "chakra-test-data.h"
#include "simulation-util.h"

#include "ns3/chakra-module.h"
#include "ns3/core-module.h"

#include <boost/test/unit_test.hpp>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>

using namespace ns3;
using chakra_test::AllReduce;
using chakra_test::ClusterConfig;
using chakra_test::ConfigureScenario;
using chakra_test::Gpu;
using chakra_test::P2p;
using chakra_test::TempDir;
using chakra_test::TraceNode;
using chakra_test::WriteJsonTrace;

namespace
{

/** A 2-rank job: rank 0 sends \p bytes to rank 1. \return its prefix */
std::string
WriteSendJob(const TempDir& dir, const std::string& name, uint64_t bytes)
{
    const std::string prefix = dir.File(name);
    WriteJsonTrace(prefix + ".0.et",
                   TraceNode(0, "send", "COMM_SEND_NODE", P2p("comm_dst", 1, bytes, 7)));
    WriteJsonTrace(prefix + ".1.et",
                   TraceNode(0, "recv", "COMM_RECV_NODE", P2p("comm_src", 0, bytes, 7)));
    return prefix;
}

/** A job of \p ranks ranks, each all-reducing \p bytes over the world. \return its prefix */
std::string
WriteAllReduceJob(const TempDir& dir, const std::string& name, uint32_t ranks, uint64_t bytes)
{
    const std::string prefix = dir.File(name);
    for (uint32_t r = 0; r < ranks; ++r)
    {
        WriteJsonTrace(prefix + "." + std::to_string(r) + ".et",
                       TraceNode(0, "ar", "COMM_COLL_NODE", AllReduce(bytes, "")));
    }
    return prefix;
}

/** A job of \p ranks ranks that only computes for \p micros us. \return its prefix */
std::string
WriteComputeJob(const TempDir& dir, const std::string& name, uint32_t ranks, uint64_t micros)
{
    const std::string prefix = dir.File(name);
    for (uint32_t r = 0; r < ranks; ++r)
    {
        WriteJsonTrace(prefix + "." + std::to_string(r) + ".et",
                       TraceNode(0, "gemm", "COMP_NODE", Gpu(0), {}, micros));
    }
    return prefix;
}

/** A job on explicit hosts. */
ClusterJob
Job(const std::string& prefix, std::vector<uint32_t> hosts = {}, Time start = Time(0))
{
    ClusterJob job;
    job.tracePrefix = prefix;
    job.hosts = std::move(hosts);
    job.start = start;
    return job;
}

/** Runs \p jobs together on the cluster \p config describes. */
MultiJobReport
RunJobs(const std::vector<ClusterJob>& jobs,
        const ClusterConfig& config,
        JobPlacementPolicy policy = JobPlacementPolicy::CONTIGUOUS)
{
    ClusterScenario scenario;
    ConfigureScenario(scenario, config);
    scenario.SetPlacement(policy, 7);
    for (const ClusterJob& job : jobs)
    {
        scenario.AddJob(job);
    }
    return scenario.RunJobs();
}

/** 4 hosts of one GPU, two per leaf, one spine: \p oversubscription thins the uplinks. */
ClusterConfig
TwoLeaves(const std::string& transport, double oversubscription)
{
    ClusterConfig config;
    config.hosts = 4;
    config.gpusPerHost = 1;
    config.transport = transport;
    config.topology = "leaf-spine";
    config.hostsPerLeaf = 2;
    config.spines = 1;
    config.oversubscription = oversubscription;
    config.nicBandwidth = "100Gbps";
    return config;
}

/** Hosts of 2 GPUs, in groups (leaves) of two hosts. */
ClusterHosts
HandMadeHosts(uint32_t hosts)
{
    ClusterHosts made;
    for (uint32_t h = 0; h < hosts; ++h)
    {
        made.gpus.push_back({2 * h, 2 * h + 1});
        made.group.push_back(h / 2);
    }
    return made;
}

std::string
ErrorOf(const std::function<void()>& f)
{
    try
    {
        f();
    }
    catch (const std::exception& e)
    {
        return e.what();
    }
    return "";
}

} // namespace

BOOST_AUTO_TEST_CASE(contiguous_spread_random_and_explicit_placements)
{
    const ClusterHosts hosts = HandMadeHosts(8); // groups 0 0 1 1 2 2 3 3
    // Contiguous: whole hosts, lowest first; 3 ranks take hosts 0 and 1 (GPU 3 idle).
    auto placed = PlaceJobs({{"a", 3, {}}, {"b", 4, {}}}, hosts, JobPlacementPolicy::CONTIGUOUS, 1);
    BOOST_TEST(placed[0] == (std::vector<uint32_t>{0, 1, 2}), boost::test_tools::per_element());
    BOOST_TEST(placed[1] == (std::vector<uint32_t>{4, 5, 6, 7}), boost::test_tools::per_element());
    // Spread: one host per group in turn, each job from the group after the last one the job
    // before it took: a takes hosts 0, 2, 4 (groups 0, 1, 2); b then 6 and 1 (groups 3, 0);
    // c 3 and 5 (groups 1, 2).
    placed =
        PlaceJobs({{"a", 6, {}}, {"b", 4, {}}, {"c", 3, {}}}, hosts, JobPlacementPolicy::SPREAD, 1);
    BOOST_TEST(placed[0] == (std::vector<uint32_t>{0, 1, 4, 5, 8, 9}),
               boost::test_tools::per_element());
    BOOST_TEST(placed[1] == (std::vector<uint32_t>{12, 13, 2, 3}),
               boost::test_tools::per_element());
    BOOST_TEST(placed[2] == (std::vector<uint32_t>{6, 7, 10}), boost::test_tools::per_element());
    // Explicit hosts come first, in the order given; the policy fills around them.
    placed = PlaceJobs({{"a", 4, {}}, {"b", 4, {1, 0}}}, hosts, JobPlacementPolicy::CONTIGUOUS, 1);
    BOOST_TEST(placed[1] == (std::vector<uint32_t>{2, 3, 0, 1}), boost::test_tools::per_element());
    BOOST_TEST(placed[0] == (std::vector<uint32_t>{4, 5, 6, 7}), boost::test_tools::per_element());
    // Random: the same seed gives the same hosts; whole distinct hosts; another seed differs.
    const auto first = PlaceJobs({{"a", 8, {}}}, hosts, JobPlacementPolicy::RANDOM, 42);
    BOOST_TEST(first == PlaceJobs({{"a", 8, {}}}, hosts, JobPlacementPolicy::RANDOM, 42));
    std::set<uint32_t> hostsUsed;
    for (std::size_t k = 0; k < first[0].size(); k += 2)
    {
        BOOST_TEST(first[0][k] % 2 == 0);
        BOOST_TEST(first[0][k + 1] == first[0][k] + 1);
        hostsUsed.insert(first[0][k] / 2);
    }
    BOOST_TEST(hostsUsed.size() == 4u);
    bool differs = false;
    for (uint32_t seed = 1; seed < 20 && !differs; ++seed)
    {
        differs = PlaceJobs({{"a", 8, {}}}, hosts, JobPlacementPolicy::RANDOM, seed) != first;
    }
    BOOST_TEST(differs);
}

BOOST_AUTO_TEST_CASE(hosts_are_grouped_by_their_leaf)
{
    // 6 hosts of 2 GPUs, 2 per leaf: groups 0 0 1 1 2 2; one switch: all 0.
    TopologySpec spec;
    spec.hosts = 6;
    spec.gpusPerHost = 2;
    ObjectFactory factory("ns3::LeafSpineTopology");
    factory.Set("HostsPerLeaf", UintegerValue(2));
    auto graph = factory.Create<ClusterTopologyBuilder>()->Build(spec);
    ClusterHosts hosts = ClusterHosts::Of(*graph);
    BOOST_TEST(hosts.group == (std::vector<uint32_t>{0, 0, 1, 1, 2, 2}),
               boost::test_tools::per_element());
    BOOST_TEST(hosts.gpus[4] == (std::vector<uint32_t>{8, 9}), boost::test_tools::per_element());
    graph =
        ObjectFactory("ns3::SingleSwitchTopology").Create<ClusterTopologyBuilder>()->Build(spec);
    hosts = ClusterHosts::Of(*graph);
    BOOST_TEST(hosts.group == (std::vector<uint32_t>(6, 0)), boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(host_lists_read_and_print)
{
    BOOST_TEST(ParseHostList("0-3+8") == (std::vector<uint32_t>{0, 1, 2, 3, 8}),
               boost::test_tools::per_element());
    BOOST_TEST(FormatHostList({0, 1, 2, 3, 8, 5, 6}) == "0-3+8+5-6");
    BOOST_TEST(ErrorOf([] { ParseHostList("3-1"); }).find("runs backwards") != std::string::npos);
    BOOST_TEST(ErrorOf([] { ParseHostList("1+1"); }).find("host 1 is named twice") !=
               std::string::npos);
    BOOST_TEST(ErrorOf([] { ParseHostList("a"); }).find("e.g. 0-3+8") != std::string::npos);
    BOOST_TEST(ErrorOf([] { ParseHostList(""); }).find("e.g. 0-3+8") != std::string::npos);
    // An absurd range is refused at once, not listed host by host.
    BOOST_TEST(ErrorOf([] { ParseHostList("0-999999999"); }).find("is past any cluster") !=
               std::string::npos);
}

BOOST_AUTO_TEST_CASE(a_job_pairs_only_with_its_own_ranks)
{
    // Two 2-rank jobs interleaved on the hosts (a on 0 and 2, b on 1 and 3), sending different
    // sizes. Job b's rank 1 is the fabric's GPU 3: had a message gone to the fabric's rank 1
    // (job a's), both receives would see a size they did not post, an error.
    TempDir dir;
    const std::string a = WriteSendJob(dir, "a", 1000000);
    const std::string b = WriteSendJob(dir, "b", 3000000);
    for (const std::string transport : {"flow", "rdma", "tcp"})
    {
        BOOST_TEST_CONTEXT(transport)
        {
            const MultiJobReport report =
                RunJobs({Job(a, {0, 2}), Job(b, {1, 3})}, TwoLeaves(transport, 1));
            BOOST_TEST_REQUIRE(report.AllFinished(), report.DescribeFailure());
            BOOST_TEST(report.GetJobs()[0].gpus == (std::vector<uint32_t>{0, 2}),
                       boost::test_tools::per_element());
            BOOST_TEST(report.GetJobs()[1].gpus == (std::vector<uint32_t>{1, 3}),
                       boost::test_tools::per_element());
            for (std::size_t j = 0; j < 2; ++j)
            {
                const auto& records = report.GetJobs()[j].report.GetCommRecords();
                BOOST_TEST(records.size() == 2u);
                for (const CommRecord& record : records)
                {
                    BOOST_TEST(record.bytes == (j == 0 ? 1000000u : 3000000u));
                }
            }
            // b moves three times the bytes over the same kind of path: it takes longer.
            BOOST_TEST(report.GetJobs()[1].report.GetIterationTime() >
                       report.GetJobs()[0].report.GetIterationTime());
        }
    }
}

BOOST_AUTO_TEST_CASE(jobs_on_disjoint_leaves_finish_exactly_as_alone)
{
    // Each job all-reduces within its own leaf: no link is shared, so each finishes exactly
    // as it does alone on the same hosts, and the two agree with each other.
    TempDir dir;
    const std::string job = WriteAllReduceJob(dir, "ar", 2, 8 << 20);
    for (const std::string transport : {"flow", "rdma"})
    {
        BOOST_TEST_CONTEXT(transport)
        {
            const ClusterConfig config = TwoLeaves(transport, 1);
            const MultiJobReport both = RunJobs({Job(job), Job(job)}, config);
            BOOST_TEST_REQUIRE(both.AllFinished(), both.DescribeFailure());
            BOOST_TEST(both.GetJobs()[0].hosts == (std::vector<uint32_t>{0, 1}),
                       boost::test_tools::per_element());
            BOOST_TEST(both.GetJobs()[1].hosts == (std::vector<uint32_t>{2, 3}),
                       boost::test_tools::per_element());
            for (std::size_t j = 0; j < 2; ++j)
            {
                const MultiJobReport alone = RunJobs({Job(job, both.GetJobs()[j].hosts)}, config);
                BOOST_TEST_REQUIRE(alone.AllFinished());
                BOOST_TEST(both.GetJobs()[j].report.GetIterationTime() ==
                           alone.GetJobs()[0].report.GetIterationTime());
            }
            BOOST_TEST(both.GetJobs()[0].report.GetIterationTime() ==
                       both.GetJobs()[1].report.GetIterationTime());
            BOOST_TEST(both.GetJobs()[0].report.GetIterationTime().IsStrictlyPositive());
            if (transport == std::string("flow"))
            {
                // Each job under its own leaf: none of its bytes crosses a switch-to-switch link.
                const ReportTable& split = both.GetFabricTables().at(0);
                BOOST_TEST_REQUIRE(split.name == "fabric-jobs");
                BOOST_TEST_REQUIRE(split.rows.size() == 2u);
                for (const auto& row : split.rows)
                {
                    BOOST_TEST(std::stod(row[3]) > 0.0);
                    BOOST_TEST(std::stod(row[6]) == 0.0);
                }
            }
        }
    }
}

BOOST_AUTO_TEST_CASE(two_jobs_on_one_uplink_each_get_half)
{
    // Hosts 0 and 1 under leaf 0, 2 and 3 under leaf 1, one spine; at 2:1 the leaf's uplink
    // carries one NIC's rate. Job a sends host 0 -> 2 and job b host 1 -> 3: alone, a transfer
    // runs at the NIC's rate; together both cross leaf 0's one uplink, each at half its rate,
    // so a bandwidth-bound transfer takes twice as long (slowdown 2, by hand). 64 MB at
    // 100 Gb/s is 5.4 ms, against a few us of latency.
    TempDir dir;
    const uint64_t bytes = 64 << 20;
    const std::string a = WriteSendJob(dir, "a", bytes);
    const std::string b = WriteSendJob(dir, "b", bytes);
    for (const std::string transport : {"flow", "rdma"})
    {
        BOOST_TEST_CONTEXT(transport)
        {
            const ClusterConfig config = TwoLeaves(transport, 2);
            const MultiJobReport both = RunJobs({Job(a, {0, 2}), Job(b, {1, 3})}, config);
            BOOST_TEST_REQUIRE(both.AllFinished(), both.DescribeFailure());
            const double alone = RunJobs({Job(a, {0, 2})}, config)
                                     .GetJobs()[0]
                                     .report.GetIterationTime()
                                     .GetSeconds();
            if (transport == std::string("rdma"))
            {
                // The fabric split by job: each job's edge ports carry its 64 MiB twice (its
                // sender's NIC, its receiver's leaf port) plus framing and ACKs; the switch
                // links, shared, carry both jobs' twice (leaf -> spine -> leaf).
                const ReportTable& split = both.GetFabricTables().at(0);
                BOOST_TEST_REQUIRE(split.name == "fabric-jobs");
                BOOST_TEST_REQUIRE(split.rows.size() == 3u);
                const double megabytes = bytes / 1e6;
                // The switches count each job's data on the switch links: its 64 MiB (plus
                // packet headers) twice, leaf -> spine and spine -> leaf; the shared row has
                // both jobs'.
                BOOST_TEST_REQUIRE(split.columns.back() == "switch_links_MB");
                for (std::size_t row = 0; row < 2; ++row)
                {
                    BOOST_TEST(split.rows[row][0] == (row == 0 ? "1" : "2"));
                    BOOST_TEST(std::stod(split.rows[row][2]) > 2 * megabytes);
                    BOOST_TEST(std::stod(split.rows[row][2]) < 2.1 * megabytes);
                    BOOST_TEST(std::stod(split.rows[row].back()) > 2 * megabytes);
                    BOOST_TEST(std::stod(split.rows[row].back()) < 2.1 * megabytes);
                }
                BOOST_TEST(split.rows[2][0] == "(shared)");
                BOOST_TEST(std::stod(split.rows[2][2]) > 4 * megabytes);
                BOOST_TEST(std::stod(split.rows[2][2]) < 4.2 * megabytes);
                BOOST_TEST(std::stod(split.rows[2].back()) ==
                               std::stod(split.rows[0].back()) + std::stod(split.rows[1].back()),
                           boost::test_tools::tolerance(1e-5)); // each printed to 0.001 MB
            }
            else
            {
                // Flow: every byte belongs to its job, the spine's included. Each job sends its
                // 64 MiB (plus a message header) once, over its sender's NIC link and its
                // receiver's (2 NIC-switch links) and leaf -> spine -> leaf (2 switch links),
                // no NVLink (one GPU per host); each has half the switch links' bytes.
                const ReportTable& split = both.GetFabricTables().at(0);
                BOOST_TEST_REQUIRE(split.name == "fabric-jobs");
                BOOST_TEST_REQUIRE(split.rows.size() == 2u);
                for (const auto& row : split.rows)
                {
                    BOOST_TEST_CONTEXT(row[0])
                    {
                        BOOST_TEST(row[1] == "2");
                        const double sent = std::stod(row[3]);
                        BOOST_TEST(sent >= bytes / 1e6);
                        BOOST_TEST(sent < bytes / 1e6 + 0.001);
                        BOOST_TEST(std::stod(row[4]) == 0.0);
                        BOOST_TEST(std::stod(row[5]) == 2 * sent,
                                   boost::test_tools::tolerance(1e-4));
                        BOOST_TEST(std::stod(row[6]) == 2 * sent,
                                   boost::test_tools::tolerance(1e-4));
                        BOOST_TEST(row[7] == "50.0");
                    }
                }
            }
            const double nicSeconds = bytes * 8.0 / 100e9;
            BOOST_TEST(alone == nicSeconds, boost::test_tools::tolerance(0.05));
            for (std::size_t j = 0; j < 2; ++j)
            {
                const double shared = both.GetJobs()[j].report.GetIterationTime().GetSeconds();
                BOOST_TEST_MESSAGE(transport << " job " << j << ": alone " << alone * 1e6
                                             << " us, shared " << shared * 1e6 << " us, slowdown "
                                             << shared / alone);
                BOOST_TEST(shared / alone == 2.0, boost::test_tools::tolerance(0.05));
            }
        }
    }
}

BOOST_AUTO_TEST_CASE(three_jobs_of_mixed_kinds_with_a_late_start)
{
    // An all-reduce job, a point-to-point job and a compute-only job that starts 1 ms late:
    // every job finishes, and the late one's iteration is its compute alone (times count from
    // a job's own start).
    TempDir dir;
    const std::string ar = WriteAllReduceJob(dir, "ar", 4, 4 << 20);
    const std::string p2p = WriteSendJob(dir, "p2p", 2 << 20);
    const std::string compute = WriteComputeJob(dir, "compute", 2, 250);
    for (const std::string transport : {"flow", "rdma"})
    {
        BOOST_TEST_CONTEXT(transport)
        {
            ClusterConfig config;
            config.hosts = 4;
            config.gpusPerHost = 2;
            config.transport = transport;
            config.topology = "leaf-spine";
            config.hostsPerLeaf = 2;
            config.spines = 1;
            config.timeline = dir.File(transport + "-timeline.json");
            const MultiJobReport report =
                RunJobs({Job(ar), Job(p2p), Job(compute, {}, MilliSeconds(1))},
                        config,
                        JobPlacementPolicy::SPREAD);
            BOOST_TEST_REQUIRE(report.AllFinished(), report.DescribeFailure());
            // One timeline: each rank under its GPU (spread: job 1 on hosts 0 and 2, job 2 on
            // host 1, job 3 on host 3), named by job, on the simulation's clock: the late
            // job's 250 us of compute start at 1 ms.
            const auto timeline =
                nlohmann::json::parse(chakra_test::ReadFileBytes(config.timeline));
            std::map<int, std::string> names;
            std::map<int, std::vector<std::pair<double, double>>> computes;
            for (const auto& event : timeline.at("traceEvents"))
            {
                if (event.value("name", "") == "process_name")
                {
                    names[event.at("pid").get<int>()] = event.at("args").at("name");
                }
                else if (event.value("ph", "") == "X" && event.value("cat", "") == "compute")
                {
                    computes[event.at("pid").get<int>()].emplace_back(event.at("ts"),
                                                                      event.at("dur"));
                }
            }
            const std::map<int, std::string> expected = {{0, "job 1 rank 0"},
                                                         {1, "job 1 rank 1"},
                                                         {2, "job 2 rank 0"},
                                                         {3, "job 2 rank 1"},
                                                         {4, "job 1 rank 2"},
                                                         {5, "job 1 rank 3"},
                                                         {6, "job 3 rank 0"},
                                                         {7, "job 3 rank 1"}};
            BOOST_TEST((names == expected));
            for (int gpu : {6, 7})
            {
                BOOST_TEST_REQUIRE(computes[gpu].size() == 1u);
                BOOST_TEST(computes[gpu][0].first == 1000.0);
                BOOST_TEST(computes[gpu][0].second == 250.0);
            }
            BOOST_TEST(report.GetJobs().size() == 3u);
            // Spread: the 4-rank job takes a host from each leaf (hosts 0 and 2).
            BOOST_TEST(report.GetJobs()[0].hosts == (std::vector<uint32_t>{0, 2}),
                       boost::test_tools::per_element());
            BOOST_TEST(report.GetJobs()[2].report.GetIterationTime() == MicroSeconds(250));
            BOOST_TEST(report.GetJobs()[2].start == MilliSeconds(1));
            BOOST_TEST(report.GetJobs()[0].report.GetCollectives().size() == 1u);
            std::ostringstream printed;
            report.Print(printed);
            BOOST_TEST(printed.str().find("== job 3: " + compute + ", 2 ranks on host(s) 3") !=
                       std::string::npos);
            // A long host list is cut in print (jobs.csv has it whole).
            MultiJobReport::Job many;
            many.name = "wide";
            for (uint32_t h = 0; h < 64; h += 2)
            {
                many.hosts.push_back(h);
            }
            MultiJobReport wide;
            wide.AddJob(many);
            std::ostringstream cut;
            wide.Print(cut);
            BOOST_TEST(cut.str().find("0+2+4+6+8+10+12+14+16+18+20+22+24+26+28+... (32 hosts)") !=
                           std::string::npos,
                       cut.str());
        }
    }
}

BOOST_AUTO_TEST_CASE(bad_jobs_are_refused_before_the_run)
{
    TempDir dir;
    const std::string a = WriteSendJob(dir, "a", 1000);
    const ClusterConfig config = TwoLeaves("flow", 1);
    // Two jobs naming one host.
    std::string error = ErrorOf([&] { RunJobs({Job(a, {0, 1}), Job(a, {1, 2})}, config); });
    BOOST_TEST(error == "job 2: host 1 is also job 1's (a host runs one job)");
    // A host the cluster does not have.
    error = ErrorOf([&] { RunJobs({Job(a, {0, 4})}, config); });
    BOOST_TEST(error == "job 1: host 4 does not exist (the cluster has 4 hosts, 0 to 3)");
    // More ranks than the free hosts hold.
    error = ErrorOf([&] { RunJobs({Job(a), Job(a), Job(a)}, config); });
    BOOST_TEST(error.find("job 3 has 2 ranks but the 0 host(s) the jobs before it left free "
                          "hold 0 GPUs") == 0,
               error);
    // Explicit hosts too few for the ranks.
    error = ErrorOf([&] { RunJobs({Job(a, {3})}, config); });
    BOOST_TEST(error == "job 1 has 2 ranks but its hosts 3 hold 1 GPUs");
    // A missing trace.
    error = ErrorOf([&] { RunJobs({Job(dir.File("none"))}, config); });
    BOOST_TEST(error.find("no traces " + dir.File("none")) != std::string::npos, error);
    // Two jobs of one name; no jobs.
    ClusterScenario scenario;
    ClusterJob named = Job(a);
    named.name = "x";
    scenario.AddJob(named);
    BOOST_TEST(ErrorOf([&] { scenario.AddJob(named); }) == "job x: another job has this name");
    BOOST_TEST(ErrorOf([] { ClusterScenario().RunJobs(); }) ==
               "ClusterScenario::RunJobs: no jobs (AddJob)");
}

BOOST_AUTO_TEST_CASE(job_specs_read_from_the_command_line)
{
    ClusterJob job = ParseJobSpec("traces/moe:name=moe,start=2ms,hosts=4-5,algorithm=ring,"
                                  "compute-scale=0.5");
    BOOST_TEST(job.tracePrefix == "traces/moe");
    BOOST_TEST(job.name == "moe");
    BOOST_TEST(job.start == MilliSeconds(2));
    BOOST_TEST(job.hosts == (std::vector<uint32_t>{4, 5}), boost::test_tools::per_element());
    // algorithm sets every collective type's attribute; compute-scale the compute model.
    std::set<std::string> names;
    for (const auto& [name, value] : job.appAttributes)
    {
        names.insert(name);
    }
    BOOST_TEST(names.count("AllReduceAlgorithm") == 1u);
    BOOST_TEST(names.count("AllToAllAlgorithm") == 1u);
    BOOST_TEST(names.count("ComputeModel") == 1u);
    BOOST_TEST(ParseJobSpec("plain/prefix").appAttributes.empty());
    BOOST_TEST(ParseJobSpec("c:/odd:path:name=j").tracePrefix == "c:/odd:path");

    BOOST_TEST(ErrorOf([] { ParseJobSpec("t:strat=1ms"); }).find("unknown key (did you mean") !=
               std::string::npos);
    BOOST_TEST(ErrorOf([] { ParseJobSpec("t:algorithm=rign"); }).find("--job t:algorithm=rign") ==
               0);
    BOOST_TEST(ErrorOf([] { ParseJobSpec("t:start=-1ms"); }).find("start") != std::string::npos);
    BOOST_TEST(ErrorOf([] { ParseJobSpec("t:name=a,name=b"); }).find("given twice") !=
               std::string::npos);
    BOOST_TEST(ErrorOf([] { ParseJobSpec(":name=a"); }).find("trace prefix first") !=
               std::string::npos);
    BOOST_TEST(ErrorOf([] { ParseJobSpec("t:hosts=1,start"); }).find("'start' is not key=value") !=
               std::string::npos);
}

BOOST_AUTO_TEST_CASE(jobs_files_in_yaml_and_json)
{
    TempDir dir;
    chakra_test::WriteFileBytes(dir.File("jobs.yaml"),
                                "jobs:\n"
                                "  - trace: traces/dp\n"
                                "    name: dense\n"
                                "    hosts: [0, 1, \"4-5\"]\n"
                                "  - trace: traces/moe\n"
                                "    start: 1ms\n"
                                "    algorithm: ring\n");
    std::vector<ClusterJob> jobs = ReadJobsFile(dir.File("jobs.yaml"));
    BOOST_TEST_REQUIRE(jobs.size() == 2u);
    BOOST_TEST(jobs[0].tracePrefix == "traces/dp");
    BOOST_TEST(jobs[0].name == "dense");
    BOOST_TEST(jobs[0].hosts == (std::vector<uint32_t>{0, 1, 4, 5}),
               boost::test_tools::per_element());
    BOOST_TEST(jobs[1].start == MilliSeconds(1));
    BOOST_TEST(jobs[1].appAttributes.size() > 0u);
    // JSON, a bare list.
    chakra_test::WriteFileBytes(dir.File("jobs.json"),
                                R"([{"trace": "a", "hosts": "2+3"}, {"trace": "b"}])");
    jobs = ReadJobsFile(dir.File("jobs.json"));
    BOOST_TEST_REQUIRE(jobs.size() == 2u);
    BOOST_TEST(jobs[0].hosts == (std::vector<uint32_t>{2, 3}), boost::test_tools::per_element());
    BOOST_TEST(jobs[1].tracePrefix == "b");

    auto error = [&dir](const std::string& text) {
        chakra_test::WriteFileBytes(dir.File("bad.yaml"), text);
        return ErrorOf([&dir] { ReadJobsFile(dir.File("bad.yaml")); });
    };
    const std::string bad = dir.File("bad.yaml");
    BOOST_TEST(error("jobs:\n  - name: x\n") == bad + ": line 2: job 1: no 'trace' (the job's "
                                                      "trace prefix)");
    BOOST_TEST(error("- trace: a\n- trace: b\n  speed: 2\n")
                   .find(bad + ": line 3: job 2: speed: unknown key") == 0);
    BOOST_TEST(error("jobs: 3\n").find("a jobs file is a list of jobs") != std::string::npos);
    BOOST_TEST(error("jobs: [{trace: a}]\nplacement: spread\n").find("the only key at the top") !=
               std::string::npos);
    BOOST_TEST(error("- trace: a\n  hosts: [0, 0]\n").find("host 0 is named twice") !=
               std::string::npos);
    BOOST_TEST(error("- [unclosed\n").find(bad + ": line") == 0);
    BOOST_TEST(ErrorOf([&dir] { ReadJobsFile(dir.File("none.yaml")); }) ==
               dir.File("none.yaml") + ": cannot read the jobs file");
}
