/*
 * The configuration a new user types, at the command line of chakra-cluster and chakra_replay
 * (issue 23 items 1, 2, 10, 11, 13, 14, 15; issue 30 items 1, 4, 9): each case is the
 * command of the issue. Before, these ran the wrong thing with exit 0 (a misspelt algorithm, a
 * bandwidth without unit, "500 ns"), aborted (exit 134, "terminate called ..."), divided by
 * zero (SIGFPE) or never ended; now each either runs what was asked or exits 1 (2 for a
 * misspelt flag) with one line naming the flag or file key.
 */
#define BOOST_TEST_MODULE config_tool
#include "chakra-test-data.h"
#include "simulation-util.h"

#include "ns3/topology-builder.h"

#include <boost/test/unit_test.hpp>
#include <string>
#include <sys/stat.h>
#include <vector>

using chakra_test::RunCommand;
using chakra_test::TempDir;
using chakra_test::ToolPath;
using chakra_test::WriteFileBytes;

namespace
{

/** A 4-rank all-reduce of 1 MiB, written once per test program. */
struct Job
{
    Job()
    {
        prefix = dir.File("ar");
        const auto result = RunCommand(ToolPath("chakra_generator") +
                                       " --workload collective --ranks 4 --size 1MiB "
                                       "--output-prefix " +
                                       prefix);
        BOOST_REQUIRE_MESSAGE(result.exitCode == 0, result.output);
    }

    TempDir dir;
    std::string prefix;
};

const Job&
TheJob()
{
    static const Job job;
    return job;
}

/** chakra-cluster on the job with \p flags, bounded in time (a hang is a failure). */
chakra_test::CommandResult
Cluster(const std::string& flags)
{
    return RunCommand("timeout 60 " + ToolPath("chakra-cluster") + " --trace " + TheJob().prefix +
                      " --quiet " + flags);
}

bool
Contains(const std::string& text, const std::string& part)
{
    return text.find(part) != std::string::npos;
}

/** Checks a refused command: exit \p code, one error line that contains \p expected. */
void
ExpectRefused(const chakra_test::CommandResult& result,
              const std::string& tool,
              const std::string& expected,
              int code = 1)
{
    BOOST_TEST(result.exitCode == code, result.output);
    BOOST_TEST(Contains(result.output, tool + ": error: "), result.output);
    BOOST_TEST(Contains(result.output, expected), result.output);
    BOOST_TEST(!Contains(result.output, "terminate called"), result.output);
    BOOST_TEST(!Contains(result.output, "== chakra simulation report"), result.output);
    BOOST_TEST(!Contains("\n" + result.output, "\ncluster: "), result.output);
}

} // namespace

// Item 1: a misspelt algorithm name ran the default with exit 0 ("rings" looked 6x faster).
BOOST_AUTO_TEST_CASE(misspelt_algorithms_are_refused)
{
    for (const std::string name : {"rings", "halving_doubling", "Ring", "xyz"})
    {
        BOOST_TEST_INFO(name);
        ExpectRefused(Cluster("--algorithm=" + name),
                      "chakra-cluster",
                      "--algorithm: '" + name + "' is not valid");
    }
    ExpectRefused(Cluster("--ns3::ChakraApplication::AllReduceAlgorithm=foo"),
                  "chakra-cluster",
                  "'foo' is not valid",
                  2);
    TempDir out;
    ExpectRefused(RunCommand(ToolPath("chakra_replay") + " --quiet --et " + TheJob().prefix +
                             " --output " + out.File("r") + " --algorithm rings"),
                  "chakra_replay",
                  "did you mean 'ring'?");
    ExpectRefused(RunCommand(ToolPath("chakra_replay") + " --quiet --et " + TheJob().prefix +
                             " --output " + out.File("r") +
                             " --ns3::ChakraApplication::AllReduceAlgorithm=foo"),
                  "chakra_replay",
                  "'foo' is not valid",
                  2);
    // A valid name runs, and the report names it.
    const auto ring = Cluster("--algorithm ring");
    BOOST_TEST(ring.exitCode == 0, ring.output);
    BOOST_TEST(Contains(ring.output, " ring "), ring.output);
    // The transport list names auto.
    ExpectRefused(Cluster("--transport=rdam"), "chakra-cluster", "one of: tcp, rdma, flow, auto");
}

// Item 2: a bandwidth without unit was 100 bit/s (a run that never ended); "100G" aborted.
BOOST_AUTO_TEST_CASE(bandwidths_take_their_units)
{
    ExpectRefused(Cluster("--nicBandwidth=100"),
                  "chakra-cluster",
                  "--nic-bandwidth: '100' has no unit");
    for (const auto& [text, shown] :
         std::vector<std::pair<std::string, std::string>>{{"100G", "NIC 100 Gbps"},
                                                          {"100Gbps", "NIC 100 Gbps"},
                                                          {"400Gb/s", "NIC 400 Gbps"},
                                                          {"25GB/s", "NIC 200 Gbps"}})
    {
        const auto result = Cluster("--nicBandwidth=" + text + " --hosts 2 --gpus-per-host 2");
        BOOST_TEST_INFO(text);
        BOOST_TEST(result.exitCode == 0, result.output);
        BOOST_TEST(Contains(result.output, shown), result.output);
    }
    // The same through the attribute: ns-3 names this value type "DataRateValue", not
    // "ns3::DataRateValue", and the check missed it ("100" ran as 100 bit/s, "100G" was refused).
    ExpectRefused(Cluster("--ns3::GpuClusterHelper::NicBandwidth=100"),
                  "chakra-cluster",
                  "'100' has no unit",
                  2);
    const auto attribute =
        Cluster("--ns3::GpuClusterHelper::NicBandwidth=100G --hosts 2 --gpus-per-host 2");
    BOOST_TEST(attribute.exitCode == 0, attribute.output);
    BOOST_TEST(Contains(attribute.output, "NIC 100 Gbps"), attribute.output);
    TempDir out;
    const auto replay =
        RunCommand(ToolPath("chakra_replay") + " --quiet --et " + TheJob().prefix + " --output " +
                   out.File("r") + " --nic-bandwidth 100G --hosts 2");
    BOOST_TEST(replay.exitCode == 0, replay.output);
    const std::string report = chakra_test::ReadFileBytes(out.File("r/report.txt"));
    BOOST_TEST(Contains(report, "NIC 100 Gbps"), report);
}

// Items 13, 14, 15; issue 30 item 1: values handed to ns-3 unchecked (exit 134), hangs, SIGFPE,
// "500 ns" read as 500 s.
BOOST_AUTO_TEST_CASE(bad_values_are_refused_with_the_flag)
{
    const std::vector<std::pair<std::string, std::string>> cases = {
        {"--mtu=0", "--mtu: "},
        {"--mtu=575", "--mtu: "},
        {"--mtu=65536", "--mtu: "},
        {"--mtu=1e3", "--mtu: "},
        {"--hostsPerLeaf=0", "--hosts-per-leaf: "},
        {"--leavesPerPod=0", "--leaves-per-pod: "},
        {"--oversubscription=0", "--oversubscription: "},
        {"--oversubscription=-1", "--oversubscription: "},
        {"--coreOversubscription=0", "--core-oversubscription: "},
        {"--computeScale=-1", "--compute-scale: "},
        {"--nicBandwidth=abc", "--nic-bandwidth: "},
        {"--nicBandwidth=-1Gbps", "--nic-bandwidth: "},
        {"--nicBandwidth=NaNbps", "--nic-bandwidth: "},
        {"--nicBandwidth=1e18bps", "--nic-bandwidth: "},
        {"--nicLatency=-1ns", "--nic-latency: "},
        {"--nicLatency=abc", "--nic-latency: "},
        {"--nicLatency=1000y", "--nic-latency: "},
        {"--nvLinkBandwidth=0bps", "--nvlink-bandwidth: "},
        {"--nvLinkBandwidth=1bps", "--nvlink-bandwidth: "},
        {"--nvLinkBandwidth=18446744073709551616bps", "--nvlink-bandwidth: "},
        {"--torusBandwidth=1bps", "--torus-bandwidth: "},
        {"--spines=-1", "--spines: "},
        {"--nvLinkLatency=1000000s", "--nvlink-latency: "},
        {"--transport=tcp --hosts=2 --gpusPerHost=2 --nicBandwidth=0bps", "--nic-bandwidth: "},
        {"--transport=tcp --hosts=2 --gpusPerHost=2 --nicBandwidth=0.4bps", "--nic-bandwidth: "},
        {"--transport=tcp --hosts=2 --gpusPerHost=2 --nicBandwidth=99999999999999999999999bps",
         "--nic-bandwidth: "},
        {"--hosts=2147483649 --gpusPerHost=2", "--hosts: "},
        {"--topology=torus", "needs its dimensions: torusDims (--torus-dims)"},
    };
    for (const auto& [flags, expected] : cases)
    {
        BOOST_TEST_INFO(flags);
        ExpectRefused(Cluster(flags), "chakra-cluster", expected);
    }
    // A whole number is read against the attribute's own range: the message gives the
    // family's bounds (1 to kMaxSpines spines), not those of a 64-bit number.
    for (const char* spines : {"--spines=-1", "--spines=0", "--spines=5000"})
    {
        BOOST_TEST_INFO(spines);
        ExpectRefused(Cluster(std::string("--topology=leaf-spine ") + spines),
                      "chakra-cluster",
                      "is not a whole number from 1 to " +
                          std::to_string(ns3::TopologyLimits::kMaxSpines));
    }
    // "500 ns" with a space is 500 ns, not 500 s.
    const auto spaced = Cluster("'--nicLatency=500 ns' --hosts 2 --gpus-per-host 2");
    BOOST_TEST(spaced.exitCode == 0, spaced.output);
    BOOST_TEST(Contains(spaced.output, "NIC 400 Gbps / 500 ns"), spaced.output);
}

// Item 10: rail-only is a topology of its own name, misspelt flags say what was meant, and the
// help is not printed instead.
BOOST_AUTO_TEST_CASE(messages_say_what_to_do)
{
    const auto railOnly = Cluster("--topology rail-only --hosts 2 --gpus-per-host 2");
    BOOST_TEST(railOnly.exitCode == 0, railOnly.output);
    BOOST_TEST(Contains(railOnly.output, "rail-only (2 rails of 2 hosts"), railOnly.output);
    ExpectRefused(Cluster("--topology=rails"), "chakra-cluster", "one of: single-switch");
    const auto misspelt = Cluster("--nicBandwith=100G");
    ExpectRefused(misspelt, "chakra-cluster", "did you mean '--nic-bandwidth'?", 2);
    BOOST_TEST(std::count(misspelt.output.begin(), misspelt.output.end(), '\n') <= 2);
    // Without --output, rows left out of the printed report are not "in ranks.csv".
    const auto rows = Cluster("--rows 1");
    BOOST_TEST(rows.exitCode == 0, rows.output);
    BOOST_TEST(!Contains(rows.output, "more in ranks.csv"), rows.output);
    BOOST_TEST(Contains(rows.output, "written with --output DIR"), rows.output);
}

// Item 11: one convention: "--name value" and "--name=value", kebab-case with the old camelCase
// kept; --out and --output; --timeline alone or with a file.
BOOST_AUTO_TEST_CASE(one_flag_convention)
{
    TempDir out;
    const auto spaced = Cluster("--nic-bandwidth 100Gbps --gpus-per-host 2 --hosts 2 --output " +
                                out.File("a") + " --timeline");
    BOOST_TEST(spaced.exitCode == 0, spaced.output);
    BOOST_TEST(chakra_test::FileExists(out.File("a/ranks.csv")));
    BOOST_TEST(chakra_test::FileExists(out.File("a/timeline.json")));
    const auto camel =
        Cluster("--nicBandwidth=100Gbps --gpusPerHost=2 --hosts=2 --out=" + out.File("b") +
                " --timeline=" + out.File("b.json"));
    BOOST_TEST(camel.exitCode == 0, camel.output);
    BOOST_TEST(chakra_test::FileExists(out.File("b/ranks.csv")));
    BOOST_TEST(chakra_test::FileExists(out.File("b.json")));
    const auto replay =
        RunCommand(ToolPath("chakra_replay") + " --quiet --et=" + TheJob().prefix +
                   " --out=" + out.File("c") + " --gpusPerHost=2 --timeline=" + out.File("c.json"));
    BOOST_TEST(replay.exitCode == 0, replay.output);
    BOOST_TEST(chakra_test::FileExists(out.File("c/ranks.csv")));
    BOOST_TEST(chakra_test::FileExists(out.File("c.json")));
}

// Smaller item: --topology-dot draws the cluster without a trace or a run.
BOOST_AUTO_TEST_CASE(topology_picture_without_a_run)
{
    TempDir out;
    const auto result = RunCommand(ToolPath("chakra-cluster") +
                                   " --topology rail-optimized --hosts 8 --gpus-per-host 8 "
                                   "--topology-dot " +
                                   out.File("rail.dot"));
    BOOST_TEST(result.exitCode == 0, result.output);
    BOOST_TEST(Contains(chakra_test::ReadFileBytes(out.File("rail.dot")), "graph"));
    BOOST_TEST(!Contains(result.output, "== chakra simulation report"), result.output);
}

// Items 13, 15 and issue 30 items 4, 9: topology files: a value with a space, values out of
// bounds (named with the file and key), a FIFO (blocked for ever).
BOOST_AUTO_TEST_CASE(topology_files)
{
    TempDir dir;
    const std::string good = dir.File("good.yaml");
    WriteFileBytes(good,
                   "kind: single-switch\nhosts: 2\ngpusPerHost: 2\nnicLatency: 500 ns\n"
                   "nvLinkBandwidth: 400 Gbps\n");
    const auto ran = Cluster("--topology-file " + good);
    BOOST_TEST(ran.exitCode == 0, ran.output);
    BOOST_TEST(Contains(ran.output, "NVLink 400 Gbps / 250 ns"), ran.output);
    BOOST_TEST(Contains(ran.output, "NIC 400 Gbps / 500 ns"), ran.output);
    const std::string mtu = dir.File("mtu.yaml");
    WriteFileBytes(mtu, "kind: single-switch\nhosts: 2\ngpusPerHost: 2\nmtu: 65536\n");
    ExpectRefused(Cluster("--topology-file " + mtu), "chakra-cluster", mtu + ": line 4: 'mtu'");
    const std::string astra = dir.File("network.yml");
    WriteFileBytes(astra,
                   "topology: [ Ring ]\nnpus_count: [ 4 ]\nbandwidth: [ 50 ]\n"
                   "latency: [ 1e19 ]\n");
    ExpectRefused(Cluster("--topology-file " + astra),
                  "chakra-cluster",
                  astra + ": line 4: 'latency'");
    const std::string kind = dir.File("kind.yaml");
    WriteFileBytes(kind, "kind: x\n");
    ExpectRefused(Cluster("--topology-file " + kind),
                  "chakra-cluster",
                  kind + ": line 1: 'kind': unknown topology 'x'");
    const std::string fifo = dir.File("fifo.yaml");
    BOOST_REQUIRE(mkfifo(fifo.c_str(), 0600) == 0);
    ExpectRefused(RunCommand("timeout 20 " + ToolPath("chakra-cluster") + " --trace " +
                             TheJob().prefix + " --topology-file " + fifo),
                  "chakra-cluster",
                  fifo + ": not a regular file");
}

// Item 4 (the simulator's part, chakra-cluster): a collective without comm_size runs as 0
// Issue 24 item 1: a topology family's parameters are its attributes: --ns3::ClosTopology::X
// works in both tools, the short flag is the same attribute, and a parameter of another family
// is refused (it was ignored). Clos of 4 hosts x 1 GPU, a leaf per host: one leaf per pod makes
// 4 pods of 2 spines and 2 cores (14 switches), four leaves per pod one pod without cores.
BOOST_AUTO_TEST_CASE(topology_parameters_are_family_attributes)
{
    const std::string clos = " --topology=clos --hosts=4 --gpus-per-host=1 ";
    for (const std::string flag : {"--ns3::ClosTopology::LeavesPerPod=1", "--leaves-per-pod=1"})
    {
        const auto result = Cluster(clos + flag);
        BOOST_TEST_INFO(flag);
        BOOST_TEST(result.exitCode == 0, result.output);
        BOOST_TEST(Contains(result.output,
                            "clos (4 leaves in 4 pod(s) of 1, 2 spines per pod, 2 "
                            "cores"),
                   result.output);
        BOOST_TEST(Contains(result.output, "14 switches"), result.output);
    }
    ExpectRefused(Cluster("--topology=leaf-spine --leaves-per-pod=2"),
                  "chakra-cluster",
                  "--leaves-per-pod: the leaf-spine topology has no such parameter (it takes "
                  "--hosts-per-leaf, --spines, --oversubscription)");
    // Refused with the attribute's own bounds (its checker's range).
    ExpectRefused(Cluster(clos + "--ns3::ClosTopology::LeavesPerPod=0"),
                  "chakra-cluster",
                  std::string("--ns3::ClosTopology::LeavesPerPod: ") +
                      "0 is not a whole number from 1 to " +
                      std::to_string(ns3::TopologyLimits::kMaxLeavesPerPod),
                  2);
    // chakra_replay: the attribute reaches the cluster it simulates (one pod is two hops
    // shorter than four pods), and a bad value is refused.
    TempDir out;
    auto iteration = [&](const std::string& leaves) {
        const std::string dir = out.File("r" + leaves);
        const auto result =
            RunCommand(ToolPath("chakra_replay") + " --quiet --et " + TheJob().prefix +
                       " --output " + dir + clos + "--ns3::ClosTopology::LeavesPerPod=" + leaves);
        BOOST_TEST(result.exitCode == 0, result.output);
        const std::string report = chakra_test::ReadFileBytes(dir + "/report.txt");
        const auto at = report.find("iteration time ");
        BOOST_REQUIRE(at != std::string::npos);
        return std::stod(report.substr(at + 15));
    };
    BOOST_TEST(iteration("4") < iteration("1"));
    ExpectRefused(RunCommand(ToolPath("chakra_replay") + " --quiet --et " + TheJob().prefix +
                             " --output " + out.File("bad") + clos +
                             "--ns3::ClosTopology::LeavesPerPod=0"),
                  "chakra_replay",
                  "0 is not a whole number from 1 to " +
                      std::to_string(ns3::TopologyLimits::kMaxLeavesPerPod),
                  2);
}

// bytes with a warning in the report, and --strict makes it an error.
BOOST_AUTO_TEST_CASE(strict_refuses_a_collective_without_its_size)
{
    using chakra_test::Attr;
    TempDir dir;
    const std::string prefix = dir.File("nosize");
    for (uint32_t rank = 0; rank < 2; ++rank)
    {
        chakra_test::WriteJsonTrace(prefix + "." + std::to_string(rank) + ".et",
                                    chakra_test::TraceNode(7,
                                                           "allreduce",
                                                           "COMM_COLL_NODE",
                                                           Attr("comm_type", "int64_val", "0") +
                                                               ", " + chakra_test::Gpu(7)));
    }
    const auto lenient = RunCommand(ToolPath("chakra-cluster") + " --quiet --trace " + prefix);
    BOOST_TEST(lenient.exitCode == 0, lenient.output);
    BOOST_TEST(Contains(lenient.output, "comm_size"), lenient.output);
    const auto strict =
        RunCommand(ToolPath("chakra-cluster") + " --quiet --strict --trace " + prefix);
    BOOST_TEST(strict.exitCode == 1, strict.output);
    BOOST_TEST(Contains(strict.output, "comm_size"), strict.output);
    BOOST_TEST(Contains(strict.output, "node 7"), strict.output);
    // --comm-records takes 'all' or 'collectives', and names itself otherwise.
    const auto records = RunCommand(ToolPath("chakra-cluster") +
                                    " --quiet --comm-records collectives --trace " + prefix);
    BOOST_TEST(records.exitCode == 0, records.output);
    const auto bad =
        RunCommand(ToolPath("chakra-cluster") + " --quiet --comm-records some --trace " + prefix);
    BOOST_TEST(bad.exitCode != 0, bad.output);
    BOOST_TEST(
        Contains(bad.output, "--comm-records: 'some' is not valid (one of: all, collectives)"),
        bad.output);
}

BOOST_AUTO_TEST_CASE(gpu_names_the_nvlink_and_the_nccl_rows)
{
    // --gpu is a cluster flag of chakra-cluster (and chakra_replay, chakra_nccl_tests): the
    // NVLink bandwidth from the data sheet and the NCCL model's GPU generation. Seen through
    // NVLS, which NCCL has on Hopper and not on Ampere: on one host of 4 A100 an NVLS-only
    // NCCL_ALGO is refused in the run, naming the node and the GPUs; on H100 it runs.
    const std::string nvls = "--hosts 1 --gpus-per-host 4 --transport flow --algorithm nccl "
                             "--ns3::NcclCollective::NcclAlgo=NVLS ";
    const auto a100 = Cluster(nvls + "--gpu A100");
    BOOST_TEST(a100.exitCode != 0, a100.output);
    BOOST_TEST(Contains(a100.output, "the nccl algorithm cannot run this call"), a100.output);
    BOOST_TEST(Contains(a100.output, "Ampere GPUs have no NVLink SHARP"), a100.output);
    BOOST_TEST(Contains(a100.output, "ALL_REDUCE"), a100.output);
    const auto h100 = Cluster(nvls + "--gpu H100");
    BOOST_TEST(h100.exitCode == 0, h100.output);
    BOOST_TEST(Contains(h100.output, " nccl "), h100.output);
    // The user's own GpuGeneration wins over the preset.
    const auto own = Cluster(nvls + "--gpu H100 --ns3::NcclCollective::GpuGeneration=Ampere");
    BOOST_TEST(own.exitCode != 0, own.output);
    BOOST_TEST(Contains(own.output, "Ampere GPUs have no NVLink SHARP"), own.output);
    // Bad names and a second NVLink bandwidth are refused before the run.
    ExpectRefused(Cluster("--gpu Z80"), "chakra-cluster", "--gpu: ");
    ExpectRefused(Cluster("--gpu H100 --nvlink-bandwidth 100Gbps"),
                  "chakra-cluster",
                  "--gpu and --nvlink-bandwidth both set the NVLink bandwidth");
}

// Issue 28: several jobs on one cluster from the command line.
BOOST_AUTO_TEST_CASE(several_jobs_share_one_cluster)
{
    const std::string p = TheJob().prefix; // 4 ranks: two hosts of 2 GPUs each
    TempDir out;
    auto run = [](const std::string& flags) {
        return RunCommand("timeout 60 " + ToolPath("chakra-cluster") +
                          " --quiet --gpus-per-host 2 --transport flow " + flags);
    };
    auto result = run("--job " + p + ":name=a --job " + p + ":name=b,hosts=0+1 --interference" +
                      " --output " + out.Path() + " --topology-dot " + out.File("t.dot"));
    BOOST_TEST_REQUIRE(result.exitCode == 0, result.output);
    // b's explicit hosts come first; a takes the next two.
    BOOST_TEST(Contains(result.output, "== job a: " + p + ", 4 ranks on host(s) 2-3"),
               result.output);
    BOOST_TEST(Contains(result.output, "== job b: " + p + ", 4 ranks on host(s) 0-1"),
               result.output);
    BOOST_TEST(Contains(result.output, "slowdown"), result.output);
    std::size_t lines = 0;
    for (auto at = result.output.find("iteration time"); at != std::string::npos;
         at = result.output.find("iteration time", at + 1))
    {
        ++lines;
    }
    BOOST_TEST(lines == 2u, result.output);
    const std::string jobs = chakra_test::ReadFileBytes(out.File("jobs.csv"));
    BOOST_TEST(Contains(jobs, "job,traces,ranks,hosts,start_us,finished,iteration_us"), jobs);
    BOOST_TEST(Contains(chakra_test::ReadFileBytes(out.File("job-a/ranks.csv")), "\n3,1,"));
    // The picture colours each job's GPUs and names the job under them.
    const std::string dot = chakra_test::ReadFileBytes(out.File("t.dot"));
    BOOST_TEST(Contains(dot, "n0 [label=\"gpu0\\nb\""), dot);
    BOOST_TEST(Contains(dot, "n7 [label=\"gpu7\\na\""), dot);

    // A topology file's GPUs per host size the cluster (4-rank jobs on hosts of 4: two hosts).
    WriteFileBytes(out.File("t.yaml"), "kind: leaf-spine\ngpusPerHost: 4\nhostsPerLeaf: 1\n");
    result = RunCommand("timeout 60 " + ToolPath("chakra-cluster") +
                        " --quiet --transport flow --topology-file " + out.File("t.yaml") +
                        " --job " + p + " --job " + p);
    BOOST_TEST_REQUIRE(result.exitCode == 0, result.output);
    BOOST_TEST(Contains(result.output, "cluster: 2 host(s) x 4 GPU(s)"), result.output);

    // The same two jobs from a jobs file.
    WriteFileBytes(out.File("jobs.yaml"),
                   "- {trace: " + p + ", name: a}\n- {trace: " + p + ", name: b, hosts: [0, 1]}\n");
    result = run("--jobs-file " + out.File("jobs.yaml"));
    BOOST_TEST_REQUIRE(result.exitCode == 0, result.output);
    BOOST_TEST(Contains(result.output, "== job b: " + p + ", 4 ranks on host(s) 0-1"),
               result.output);
    ExpectRefused(run("--jobs-file " + out.File("none.yaml")),
                  "chakra-cluster",
                  out.File("none.yaml") + ": cannot read the jobs file");

    ExpectRefused(run("--hosts 4 --job " + p + " --job " + p + ":hosts=9"),
                  "chakra-cluster",
                  "job 2: host 9 does not exist");
    ExpectRefused(run("--job " + p + ":speed=2"), "chakra-cluster", "speed: unknown key");
    ExpectRefused(run("--trace " + p + " --job " + p), "chakra-cluster", "--trace and --job");
    ExpectRefused(run("--trace " + p + " --placement spread"),
                  "chakra-cluster",
                  "--placement is for several jobs (--job)");
    ExpectRefused(run("--job " + p + " --placement packed"),
                  "chakra-cluster",
                  "--placement: placement 'packed' is not one of: contiguous, spread, random");
}
