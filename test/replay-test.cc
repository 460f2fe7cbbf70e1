/*
 * ReplayPipeline's trace discovery and chakra_replay's usage errors, on hand-made files (the
 * real-trace runs are in replay-real-data-test.cc).
 */
#define BOOST_TEST_MODULE replay
#include "chakra-test-data.h"

#include "ns3/replay-pipeline.h"
#include "ns3/trace-error.h"

#include <boost/test/unit_test.hpp>

#include <fstream>

using namespace ns3;
using chakra_test::RunCommand;
using chakra_test::TempDir;

namespace
{

const std::string kHost = R"({"schema": "1.0.1", "pid": 1, "nodes": []})";
const std::string kDevice = R"({"schemaVersion": 1, "traceEvents": []})";

std::string
Replay(const std::string& arguments)
{
    return chakra_test::ToolPath("chakra_replay") + " " + arguments;
}

} // namespace

BOOST_AUTO_TEST_CASE(discovery_pairs_host_and_device_traces_by_rank)
{
    TempDir dir;
    chakra_test::WriteFileBytes(dir.File("et_1.json"), kHost);
    chakra_test::WriteFileBytes(dir.File("et_0.json"), kHost);
    chakra_test::WriteFileBytes(dir.File("worker0_step_12.json"), kDevice);
    chakra_test::WriteFileBytes(dir.File("worker1_step_12.json"), kDevice);
    chakra_test::WriteFileBytes(dir.File("notes.txt"), "not a trace");
    auto ranks = DiscoverRankTraces(dir.Path());
    BOOST_REQUIRE(ranks.size() == 2u);
    BOOST_TEST(ranks[1].host == dir.File("et_1.json"));
    BOOST_TEST(ranks[1].device == dir.File("worker1_step_12.json"));
    // Patterns override the first-number rule.
    auto patterned = DiscoverRankTraces(dir.Path(), "et_{rank}.json", "worker{rank}_*.json");
    BOOST_TEST(patterned[0].device == dir.File("worker0_step_12.json"));
}

BOOST_AUTO_TEST_CASE(discovery_errors_are_clear)
{
    TempDir dir;
    chakra_test::WriteFileBytes(dir.File("et_0.json"), kHost);
    chakra_test::WriteFileBytes(dir.File("et_2.json"), kHost);
    BOOST_CHECK_EXCEPTION(DiscoverRankTraces(dir.Path()), TraceError, [](const TraceError& e) {
        return std::string(e.what()).find("rank 1 is missing") != std::string::npos;
    });
    chakra_test::WriteFileBytes(dir.File("et_1.json"), kHost);
    chakra_test::WriteFileBytes(dir.File("w_0.json"), kDevice);
    BOOST_CHECK_EXCEPTION(DiscoverRankTraces(dir.Path()), TraceError, [](const TraceError& e) {
        return std::string(e.what()).find("no device trace for rank 1") != std::string::npos;
    });
    TempDir empty;
    BOOST_CHECK_THROW(DiscoverRankTraces(empty.Path()), TraceError);
    BOOST_CHECK_THROW(DiscoverRankTraces(empty.File("absent")), TraceError);
    auto usage = RunCommand(Replay("--output " + empty.File("o")));
    BOOST_TEST(usage.exitCode == 1);
    BOOST_TEST(usage.output.find("give exactly one of --traces") != std::string::npos);
}

