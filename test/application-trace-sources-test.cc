/*
 * ChakraApplication's trace sources, each connected by the name its TypeId lists, with a
 * function of the callback type the TypeId names, on a two-rank hand-made trace whose times
 * are known: every source fires for every node (or call) with the values the trace implies.
 */
#define BOOST_TEST_MODULE application_trace_sources
#include "chakra-test-data.h"
#include "simulation-util.h"

#include "ns3/chakra-module.h"
#include "ns3/core-module.h"

#include <boost/test/unit_test.hpp>
#include <map>
#include <set>
#include <sstream>
#include <type_traits>

using namespace ns3;
using chakra_test::AllReduce;
using chakra_test::Gpu;
using chakra_test::P2p;
using chakra_test::TempDir;
using chakra_test::TraceNode;
using chakra_test::WriteJsonTrace;

// The typedefs the TypeId names declare the signatures the sources fire with.
static_assert(std::is_same_v<ChakraApplication::NodeIssuedCallback,
                             void (*)(uint32_t, std::shared_ptr<const EtNode>)>);
static_assert(std::is_same_v<ChakraApplication::NodeFinishedCallback,
                             void (*)(uint32_t, std::shared_ptr<const EtNode>, Time, Time)>);
static_assert(
    std::is_same_v<ChakraApplication::CollectiveFinishedCallback, void (*)(const CommRecord&)>);

namespace
{

constexpr uint64_t kCallBytes = 1 << 20;
constexpr uint64_t kMessageBytes = 4096;

/** What the sources said, per rank. */
struct Seen
{
    std::map<uint32_t, std::vector<uint64_t>> issued;                       //!< node ids
    std::map<uint32_t, std::map<uint64_t, std::pair<Time, Time>>> finished; //!< id -> times
    std::map<uint32_t, std::vector<CommRecord>> comm;                       //!< by rank
};

Seen g_seen;

void
OnNodeIssued(uint32_t rank, std::shared_ptr<const EtNode> node)
{
    g_seen.issued[rank].push_back(node->GetId());
}

void
OnNodeFinished(uint32_t rank, std::shared_ptr<const EtNode> node, Time start, Time end)
{
    g_seen.finished[rank][node->GetId()] = {start, end};
}

void
OnCollectiveFinished(const CommRecord& record)
{
    g_seen.comm[record.rank].push_back(record);
}

/** Connects every trace source of \p app by the name its TypeId lists; each name must have a
 *  handler here, so that a new source fails this test until it is covered. */
void
ConnectAll(const Ptr<ChakraApplication>& app, std::set<std::string>& connected)
{
    const TypeId tid = ChakraApplication::GetTypeId();
    for (std::size_t i = 0; i < tid.GetTraceSourceN(); ++i)
    {
        const TypeId::TraceSourceInformation info = tid.GetTraceSource(i);
        bool ok = false;
        if (info.name == "NodeIssued")
        {
            BOOST_TEST(info.callback == "ns3::ChakraApplication::NodeIssuedCallback");
            ok = app->TraceConnectWithoutContext(
                info.name,
                MakeCallback(static_cast<ChakraApplication::NodeIssuedCallback>(&OnNodeIssued)));
        }
        else if (info.name == "NodeFinished")
        {
            BOOST_TEST(info.callback == "ns3::ChakraApplication::NodeFinishedCallback");
            ok = app->TraceConnectWithoutContext(
                info.name,
                MakeCallback(
                    static_cast<ChakraApplication::NodeFinishedCallback>(&OnNodeFinished)));
        }
        else if (info.name == "CollectiveFinished")
        {
            BOOST_TEST(info.callback == "ns3::ChakraApplication::CollectiveFinishedCallback");
            ok = app->TraceConnectWithoutContext(
                info.name,
                MakeCallback(static_cast<ChakraApplication::CollectiveFinishedCallback>(
                    &OnCollectiveFinished)));
        }
        BOOST_TEST(ok, "trace source " << info.name << " connected");
        connected.insert(info.name);
    }
}

/**
 * Writes the two-rank job at \p prefix. Rank 0: compute A (10 us, stream 0), then a 1 MiB
 * all-reduce of both ranks, then a send of 4096 bytes with tag 5 to rank 1. Rank 1: compute B
 * (20 us), the all-reduce, the matching receive.
 */
void
WriteTwoRankJob(const std::string& prefix)
{
    WriteJsonTrace(
        prefix + ".0.et",
        TraceNode(0, "A", "COMP_NODE", Gpu(0), {}, 10) + "," +
            TraceNode(1, "ar", "COMM_COLL_NODE", AllReduce(kCallBytes, ""), {0}) + "," +
            TraceNode(2, "send", "COMM_SEND_NODE", P2p("comm_dst", 1, kMessageBytes, 5), {1}));
    WriteJsonTrace(
        prefix + ".1.et",
        TraceNode(0, "B", "COMP_NODE", Gpu(0), {}, 20) + "," +
            TraceNode(1, "ar", "COMM_COLL_NODE", AllReduce(kCallBytes, ""), {0}) + "," +
            TraceNode(2, "recv", "COMM_RECV_NODE", P2p("comm_src", 0, kMessageBytes, 5), {1}));
}

} // namespace

BOOST_AUTO_TEST_CASE(every_trace_source_fires_with_the_values_of_a_hand_made_trace)
{
    // WriteTwoRankJob: rank 0 reaches the call at 10 us and rank 1 at 20 us.
    TempDir dir;
    const std::string prefix = dir.File("t");
    WriteTwoRankJob(prefix);
    g_seen = Seen();
    std::set<std::string> connected;
    chakra_test::ClusterConfig config;
    config.beforeRun = [&connected](const std::vector<Ptr<ChakraApplication>>& apps) {
        for (const auto& app : apps)
        {
            ConnectAll(app, connected);
        }
    };
    ChakraReport report = chakra_test::RunCluster(prefix, config);
    BOOST_REQUIRE(report.AllFinished());
    BOOST_TEST(connected ==
               std::set<std::string>({"NodeIssued", "NodeFinished", "CollectiveFinished"}));

    for (uint32_t rank : {0u, 1u})
    {
        BOOST_TEST_CONTEXT("rank " << rank)
        {
            // Issued in dependency order, each once.
            BOOST_TEST(g_seen.issued[rank] == std::vector<uint64_t>({0, 1, 2}));
            auto& finished = g_seen.finished[rank];
            BOOST_TEST_REQUIRE(finished.size() == 3u);
            const Time computeEnd = MicroSeconds(rank == 0 ? 10 : 20);
            BOOST_TEST(finished[0].first == Time(0));
            BOOST_TEST(finished[0].second == computeEnd);
            BOOST_TEST(finished[1].first == computeEnd, "the call starts when compute ends");
            BOOST_TEST(finished[1].second > MicroSeconds(20), "it needs both ranks");
            BOOST_TEST(finished[2].first == finished[1].second);
            if (rank == 1)
            {
                BOOST_TEST(finished[2].second > finished[2].first, "the message has to arrive");
            }
            else
            {
                // An eager send may complete as the transport takes it.
                BOOST_TEST(finished[2].second >= finished[2].first);
            }

            auto& comm = g_seen.comm[rank];
            BOOST_TEST_REQUIRE(comm.size() == 2u);
            BOOST_TEST(comm[0].rank == rank);
            BOOST_TEST(comm[0].nodeId == 1u);
            BOOST_TEST(comm[0].kind == "ALL_REDUCE");
            BOOST_TEST(comm[0].bytes == kCallBytes);
            BOOST_TEST(comm[0].commSize == 2u);
            BOOST_TEST(comm[0].seq == 0u);
            BOOST_TEST(comm[0].start == finished[1].first);
            BOOST_TEST(comm[0].end == finished[1].second);
            BOOST_TEST(comm[1].nodeId == 2u);
            BOOST_TEST(comm[1].kind == (rank == 0 ? "SEND" : "RECV"));
            BOOST_TEST(comm[1].peer == (rank == 0 ? 1 : 0));
            BOOST_TEST(comm[1].bytes == kMessageBytes);
            BOOST_TEST(comm[1].start == finished[2].first);
            BOOST_TEST(comm[1].end == finished[2].second);
        }
    }
}

// CommRecords = collectives: the ranks keep no record of their sends and receives (the memory
// of a step with tensor ring exchanges), count them instead, and simulate the same step; the
// CollectiveFinished source still fires for every operation.
BOOST_AUTO_TEST_CASE(collectives_only_records_count_the_point_to_point_operations)
{
    TempDir dir;
    const std::string prefix = dir.File("t");
    WriteTwoRankJob(prefix);
    auto run = [&prefix](const std::string& records) {
        g_seen = Seen();
        chakra_test::ClusterConfig config;
        config.appAttributes = {{"CommRecords", records}};
        config.beforeRun = [](const std::vector<Ptr<ChakraApplication>>& apps) {
            for (const auto& app : apps)
            {
                app->TraceConnectWithoutContext(
                    "CollectiveFinished",
                    MakeCallback(static_cast<ChakraApplication::CollectiveFinishedCallback>(
                        &OnCollectiveFinished)));
            }
        };
        return chakra_test::RunCluster(prefix, config);
    };
    const ChakraReport all = run("all");
    const ChakraReport collectives = run("collectives");
    BOOST_TEST_REQUIRE(all.AllFinished());
    BOOST_TEST_REQUIRE(collectives.AllFinished());
    BOOST_TEST(collectives.GetIterationTime() == all.GetIterationTime());
    std::vector<std::string> kinds;
    for (const CommRecord& record : collectives.GetCommRecords())
    {
        kinds.push_back(record.kind);
    }
    BOOST_TEST(kinds == std::vector<std::string>({"ALL_REDUCE", "ALL_REDUCE"}),
               boost::test_tools::per_element());
    BOOST_TEST(std::distance(all.GetCommRecords().begin(), all.GetCommRecords().end()) == 4);
    for (uint32_t rank : {0u, 1u})
    {
        BOOST_TEST(collectives.GetRanks()[rank].unrecordedP2p == 1u);
        BOOST_TEST(all.GetRanks()[rank].unrecordedP2p == 0u);
        BOOST_TEST(g_seen.comm[rank].size() == 2u, "the source fires for the send or receive");
    }
    std::ostringstream printedAll;
    std::ostringstream printedCollectives;
    all.Print(printedAll);
    collectives.Print(printedCollectives);
    for (const std::string& printed : {printedAll.str(), printedCollectives.str()})
    {
        BOOST_TEST(printed.find("collectives 1, point-to-point operations 2") != std::string::npos,
                   printed);
    }
}
