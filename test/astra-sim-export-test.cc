/*
 * The ASTRA-sim flavour of generated traces (issue 14): no METADATA node, communicators
 * numbered with their members in <prefix>.comm-groups.json, no CPU communication, unsupported
 * collectives refused with nothing replaced; and what our simulator makes of those files.
 */
#define BOOST_TEST_MODULE astra_sim_export
#include "chakra-test-data.h"

#include "ns3/chakra-module.h"
#include "ns3/core-module.h"

#include <boost/test/unit_test.hpp>
#include <cstdio>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

using namespace ns3;
using chakra_test::TempDir;

namespace
{

/** What one rank's file holds that the export changes. */
struct RankView
{
    uint32_t metadataNodes{0};
    std::set<std::string> pgNames; //!< of communication nodes
    uint32_t cpuCommunication{0};  //!< communication nodes with is_cpu_op true
    uint32_t communication{0};
    std::set<uint64_t> ids;
    bool depsResolve{true}; //!< every dependency names a node of the file
};

RankView
View(const std::string& path)
{
    RankView view;
    EtReader reader(path);
    ChakraProtoMsg::Node node;
    std::vector<uint64_t> deps;
    while (reader.ReadNode(node))
    {
        view.ids.insert(node.id());
        deps.insert(deps.end(), node.data_deps().begin(), node.data_deps().end());
        view.metadataNodes += node.type() == ChakraProtoMsg::METADATA_NODE;
        const bool comm = node.type() == ChakraProtoMsg::COMM_COLL_NODE ||
                          node.type() == ChakraProtoMsg::COMM_SEND_NODE ||
                          node.type() == ChakraProtoMsg::COMM_RECV_NODE;
        view.communication += comm;
        for (const auto& attribute : node.attr())
        {
            if (comm && attribute.name() == "pg_name")
            {
                view.pgNames.insert(attribute.string_val());
            }
            if (comm && attribute.name() == "is_cpu_op" && attribute.bool_val())
            {
                ++view.cpuCommunication;
            }
        }
    }
    for (uint64_t dep : deps)
    {
        view.depsResolve = view.depsResolve && view.ids.count(dep) > 0;
    }
    return view;
}

nlohmann::json
ReadJson(const std::string& path)
{
    std::ifstream in(path);
    return nlohmann::json::parse(in);
}

double
IterationMicros(const std::string& prefix, bool* finished = nullptr)
{
    ClusterScenario scenario;
    scenario.GetCluster()->SetAttribute("Hosts", UintegerValue(2));
    scenario.GetCluster()->SetAttribute("GpusPerHost", UintegerValue(2));
    ChakraReport report = scenario.Run(prefix);
    if (finished)
    {
        *finished = report.AllFinished();
    }
    else
    {
        BOOST_TEST(report.AllFinished());
    }
    return report.GetIterationTime().GetSeconds() * 1e6;
}

} // namespace

// tp = 2 x dp = 2: groups tp0 = {0, 1}, tp1 = {2, 3}, dp0 = {0, 2}, dp1 = {1, 3} (none spans
// every rank), numbered 1 .. 4 in declaration order; each rank's collectives name only the
// ids of groups it belongs to; the host-thread all-reduce is no longer a CPU op.
BOOST_AUTO_TEST_CASE(tensor_parallel_groups_numbered)
{
    TempDir dir;
    TensorParallelSpec spec;
    spec.tp = 2;
    spec.dp = 2;
    spec.layers = 2;
    spec.hostAllReduceBytes = 4096;
    const std::string prefix = dir.File("tp");
    WorkloadGenerator::WriteTensorParallelStep(prefix, spec);
    BOOST_TEST(View(RankTraceBuilder::Path(prefix, 0)).metadataNodes == 1u);
    BOOST_TEST(View(RankTraceBuilder::Path(prefix, 0)).cpuCommunication == 1u);

    const AstraSimExport exported = ExportForAstraSim(prefix, 4);
    BOOST_TEST(exported.commGroupFile == prefix + ".comm-groups.json");
    const nlohmann::json groups = ReadJson(exported.commGroupFile);
    BOOST_TEST(groups.size() == 4u);
    std::map<std::string, std::set<uint32_t>> members;
    for (const auto& [id, ranks] : groups.items())
    {
        members[id] = ranks.get<std::set<uint32_t>>();
    }
    const std::set<std::set<uint32_t>> expected = {{0, 1}, {2, 3}, {0, 2}, {1, 3}};
    std::set<std::set<uint32_t>> got;
    for (const auto& [id, ranks] : members)
    {
        got.insert(ranks);
    }
    BOOST_TEST((got == expected));
    BOOST_TEST(exported.groupIds.at("tp0") == "1"); // declared first
    for (uint32_t rank = 0; rank < 4; ++rank)
    {
        const RankView view = View(RankTraceBuilder::Path(prefix, rank));
        BOOST_TEST(view.metadataNodes == 0u);
        BOOST_TEST(view.cpuCommunication == 0u);
        BOOST_TEST(view.depsResolve);
        BOOST_TEST(view.pgNames.size() == 2u); // its tp group and its dp group
        for (const std::string& pg : view.pgNames)
        {
            BOOST_TEST(members.at(pg).count(rank) == 1u, "rank " << rank << " pg " << pg);
        }
    }
}

// Data parallel: the one group spans every rank and becomes ASTRA-sim's default communicator
// "0" (no entry in the file). Our simulator runs the exported files exactly as the originals.
BOOST_AUTO_TEST_CASE(data_parallel_runs_in_both)
{
    TempDir dir;
    DataParallelSpec spec;
    spec.ranks = 4;
    spec.layers = 2;
    spec.parameterBytesPerLayer = 1u << 20;
    const std::string original = dir.File("dp");
    const std::string astra = dir.File("dpa");
    WorkloadGenerator::WriteDataParallelStep(original, spec);
    WorkloadGenerator::WriteDataParallelStep(astra, spec);
    const AstraSimExport exported = ExportForAstraSim(astra, 4);
    BOOST_TEST(exported.groupIds.at("0") == "0");
    BOOST_TEST(ReadJson(exported.commGroupFile).empty());
    BOOST_TEST(View(RankTraceBuilder::Path(astra, 3)).pgNames == std::set<std::string>{"0"});
    BOOST_TEST(IterationMicros(astra) == IterationMicros(original));
}

// MoE with one expert-parallel group of every rank: "ep0" and "dp0" both span every rank; one
// becomes "0", the other a numbered group listing every rank (in the comm-groups file), so these
// files run as the originals do.
BOOST_AUTO_TEST_CASE(moe_with_world_groups_runs_in_both)
{
    TempDir dir;
    MoeSpec spec;
    spec.ranks = 4;
    spec.layers = 1;
    spec.tokens = 256;
    spec.hidden = 256;
    const std::string original = dir.File("moe");
    const std::string astra = dir.File("moea");
    WorkloadGenerator::WriteMoeStep(original, spec);
    WorkloadGenerator::WriteMoeStep(astra, spec);
    const AstraSimExport exported = ExportForAstraSim(astra, 4);
    // Declared: ep0 = dp0 = every rank, edp0 .. edp3 = {e} (dp = 1: never used).
    const nlohmann::json groups = ReadJson(exported.commGroupFile);
    BOOST_TEST(groups.size() == 5u);
    const std::string other = exported.groupIds.at("ep0") == "0" ? "dp0" : "ep0";
    BOOST_TEST(groups[exported.groupIds.at(other)].get<std::vector<uint32_t>>() ==
               (std::vector<uint32_t>{0, 1, 2, 3}));
    BOOST_TEST(IterationMicros(astra) == IterationMicros(original));
}

// Subgroups: without the METADATA node, our simulator takes the members of the numbered
// communicators from <prefix>.comm-groups.json beside the traces (the file the export writes
// for ASTRA-sim), so the exported tensor-parallel step runs as the original does. (Issue 23
// item 5: before, nothing read the file, every pg_name spanned every rank and the run ended
// unfinished.) Without the file the run ends unfinished, and the stuck report names the call
// and its communicator, and a warning names the file it lacks.
BOOST_AUTO_TEST_CASE(subgroups_run_in_ours_with_the_comm_groups_file)
{
    TempDir dir;
    TensorParallelSpec spec;
    spec.tp = 2;
    spec.dp = 2;
    spec.layers = 1;
    const std::string original = dir.File("tp");
    const std::string astra = dir.File("tpa");
    WorkloadGenerator::WriteTensorParallelStep(original, spec);
    WorkloadGenerator::WriteTensorParallelStep(astra, spec);
    const AstraSimExport exported = ExportForAstraSim(astra, 4);
    BOOST_TEST(IterationMicros(astra) == IterationMicros(original));

    std::remove(exported.commGroupFile.c_str());
    ClusterScenario scenario;
    scenario.GetCluster()->SetAttribute("Hosts", UintegerValue(2));
    scenario.GetCluster()->SetAttribute("GpusPerHost", UintegerValue(2));
    ChakraReport report = scenario.Run(astra);
    BOOST_TEST(!report.AllFinished());
    const RankStats& rank0 = report.GetRanks().at(0);
    BOOST_REQUIRE(!rank0.stuck.empty());
    BOOST_TEST_INFO(rank0.stuck.front());
    // tp0 = {0, 1} is communicator "1"; taken as every rank, it waits for ranks 2 and 3.
    BOOST_TEST(rank0.stuck.front().find("ALL_REDUCE of ") != std::string::npos);
    BOOST_TEST(rank0.stuck.front().find("call #0 of communicator '" + exported.groupIds.at("tp0") +
                                        "' (4 ranks: 0, 1, 2, 3)") != std::string::npos);
    BOOST_REQUIRE(!rank0.warnings.empty());
    BOOST_TEST_INFO(rank0.warnings.front());
    BOOST_TEST(rank0.warnings.front().find("neither a process_group:init node nor a comm-groups "
                                           "file (" +
                                           astra + ".comm-groups.json") != std::string::npos);
}

// A broadcast is not among ASTRA-sim's collectives: an error naming the file and node, and the
// traces are left as they were.
BOOST_AUTO_TEST_CASE(unsupported_collective_refused)
{
    TempDir dir;
    CollectiveBenchSpec spec;
    spec.type = ChakraProtoMsg::BROADCAST;
    spec.ranks = 2;
    const std::string prefix = dir.File("b");
    WorkloadGenerator::WriteCollectiveBench(prefix, spec);
    try
    {
        ExportForAstraSim(prefix, 2);
        BOOST_FAIL("no error");
    }
    catch (const TraceError& e)
    {
        const std::string message = e.what();
        BOOST_TEST(message.find("b.0.et") != std::string::npos, message);
        BOOST_TEST(message.find("node ") != std::string::npos, message);
        BOOST_TEST(message.find("ASTRA-sim runs all-reduce") != std::string::npos, message);
    }
    BOOST_TEST(View(RankTraceBuilder::Path(prefix, 0)).metadataNodes == 1u);
    std::ifstream leftover(RankTraceBuilder::Path(prefix, 0) + ".astra-sim");
    BOOST_TEST(!leftover.good());
}
