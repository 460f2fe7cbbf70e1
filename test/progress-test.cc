/*
 * Progress lines of long runs: ClusterScenario's wall-clock hook, chakra-cluster's --progress
 * and --quiet.
 */
#define BOOST_TEST_MODULE progress
#include "chakra-test-data.h"

#include "ns3/chakra-module.h"
#include "ns3/core-module.h"

#include <boost/test/unit_test.hpp>
#include <cstdlib>
#include <string>
#include <sys/wait.h>
#include <vector>

using namespace ns3;

namespace
{

/** Nodes of the traces WriteRing writes: a process-group node and the all-reduce per rank. */
constexpr uint64_t kNodes = 8;

/** A 4-rank, 4 MiB all-reduce trace set. */
std::string
WriteRing(const chakra_test::TempDir& dir)
{
    const std::string prefix = dir.File("ring");
    CollectiveBenchSpec spec;
    spec.ranks = 4;
    spec.bytes = 4 << 20;
    WorkloadGenerator::WriteCollectiveBench(prefix, spec);
    return prefix;
}

ChakraReport
Run(const std::string& prefix,
    double progressSeconds,
    std::vector<ClusterScenario::WallProgress>* lines)
{
    ClusterScenario scenario;
    scenario.GetCluster()->SetAttribute("Hosts", UintegerValue(4));
    scenario.GetCluster()->SetAttribute("GpusPerHost", UintegerValue(1));
    scenario.GetCluster()->SetAttribute("Transport", StringValue("rdma"));
    if (lines)
    {
        scenario.SetWallClockProgress(
            progressSeconds,
            [lines](const ClusterScenario::WallProgress& line) { lines->push_back(line); });
    }
    return scenario.Run(prefix);
}

} // namespace

BOOST_AUTO_TEST_CASE(wall_clock_progress_reports_a_growing_run_and_changes_nothing)
{
    chakra_test::TempDir dir;
    const std::string prefix = WriteRing(dir);
    const ChakraReport quiet = Run(prefix, 0, nullptr);
    // A nanosecond interval: every check prints, so a short run prints many lines.
    std::vector<ClusterScenario::WallProgress> lines;
    const ChakraReport watched = Run(prefix, 1e-9, &lines);
    BOOST_TEST(quiet.AllFinished());
    BOOST_TEST(watched.AllFinished());
    // The check reads the model, never changes it: the same simulated result to the tick.
    BOOST_TEST(watched.GetIterationTime() == quiet.GetIterationTime());
    BOOST_REQUIRE(lines.size() >= 2u);
    for (std::size_t i = 1; i < lines.size(); ++i)
    {
        BOOST_TEST(lines[i].simulated >= lines[i - 1].simulated);
        BOOST_TEST(lines[i].events > lines[i - 1].events);
        BOOST_TEST(lines[i].nodesDone >= lines[i - 1].nodesDone);
        BOOST_TEST(lines[i].wallSeconds >= lines[i - 1].wallSeconds);
    }
    // Lines come while the ranks run (the simulation itself may go on a little longer: timers).
    BOOST_TEST(lines.front().simulated < watched.GetIterationTime());
    BOOST_TEST(lines.front().nodesDone < kNodes);
    BOOST_TEST(lines.back().nodesDone <= kNodes);
    // Done of the whole (issue 23: "64 nodes done" said nothing of how far the run was), and
    // the time left at the speed so far: wall x (total - done) / done, once a node is done.
    for (const auto& line : lines)
    {
        BOOST_TEST(line.nodesTotal == kNodes);
        if (line.nodesDone == 0)
        {
            BOOST_TEST(line.secondsLeft < 0.0);
        }
        else
        {
            BOOST_TEST(line.secondsLeft == line.wallSeconds *
                                               static_cast<double>(kNodes - line.nodesDone) /
                                               static_cast<double>(line.nodesDone));
        }
    }
    ClusterScenario::WallProgress example;
    example.simulated = MicroSeconds(1234);
    example.nodesDone = 1024;
    example.nodesTotal = 4096;
    example.events = 5000000;
    example.eventsPerSecond = 2.51e6;
    example.wallSeconds = 2.0;
    example.secondsLeft = 6.0;
    BOOST_TEST(ClusterScenario::FormatProgress(example) ==
               "simulated 1.234 ms, 1024/4096 nodes done (25%), 5000000 events, 2.51 M events/s, "
               "wall 2.0 s, about 6.0 s left");
    const std::string text = ClusterScenario::FormatProgress(lines.back());
    BOOST_TEST(text.find("simulated ") == 0u);
    BOOST_TEST(text.find("/8 nodes done (") != std::string::npos);
    BOOST_TEST(text.find(" M events/s") != std::string::npos);
    // An interval longer than the run: no line.
    lines.clear();
    Run(prefix, 3600, &lines);
    BOOST_TEST(lines.empty());
}

BOOST_AUTO_TEST_CASE(chakra_cluster_prints_progress_on_stderr_unless_quiet)
{
    chakra_test::TempDir dir;
    const std::string prefix = WriteRing(dir);
    const std::string base = chakra_test::ToolPath("chakra-cluster") + " --trace=" + prefix +
                             " --hosts=4 --gpusPerHost=1 --transport=rdma";
    const std::string err = dir.File("err.txt");
    auto run = [&](const std::string& flags, int exitCode = 0) {
        const int status = std::system((base + flags + " > /dev/null 2> " + err).c_str());
        BOOST_TEST(WIFEXITED(status));
        BOOST_TEST(WEXITSTATUS(status) == exitCode);
        return chakra_test::ReadFileBytes(err);
    };
    const std::string printed = run(" --progress=0.000000001");
    BOOST_TEST_INFO(printed);
    BOOST_TEST(printed.find("chakra-cluster: simulated ") != std::string::npos);
    BOOST_TEST(printed.find("/8 nodes done (") != std::string::npos);
    const std::string silenced = run(" --quiet");
    BOOST_TEST_INFO(silenced);
    BOOST_TEST(silenced.find("simulated ") == std::string::npos);
    // Asking for progress lines and for none is refused, not settled silently either way.
    const std::string contradicted = run(" --progress=0.000000001 --quiet", 1);
    BOOST_TEST_INFO(contradicted);
    BOOST_TEST(contradicted.find("--quiet and --progress 0.000000001 contradict") !=
               std::string::npos);
    BOOST_TEST(contradicted.find("simulated ") == std::string::npos);
    BOOST_TEST(run(" --progress=0 --quiet").find("simulated ") == std::string::npos);
    const std::string off = run(" --progress=0");
    BOOST_TEST(off.find("simulated ") == std::string::npos);
}

BOOST_AUTO_TEST_CASE(simulated_and_wall_clock_progress_together_still_end)
{
    // Both kinds of progress at once: each used to reschedule itself while anything else was
    // scheduled, so the two kept each other alive and Run never returned.
    chakra_test::TempDir dir;
    const std::string prefix = WriteRing(dir);
    const ChakraReport quiet = Run(prefix, 0, nullptr);
    ClusterScenario scenario;
    scenario.GetCluster()->SetAttribute("Hosts", UintegerValue(4));
    scenario.GetCluster()->SetAttribute("GpusPerHost", UintegerValue(1));
    scenario.GetCluster()->SetAttribute("Transport", StringValue("rdma"));
    std::vector<Time> simulated;
    scenario.SetProgress(MicroSeconds(10), [&simulated](Time now) { simulated.push_back(now); });
    uint32_t wallLines = 0;
    scenario.SetWallClockProgress(1e-9, [&wallLines](const ClusterScenario::WallProgress&) {
        ++wallLines;
    });
    const ChakraReport report = scenario.Run(prefix);
    BOOST_TEST(report.AllFinished());
    BOOST_TEST(report.GetIterationTime() == quiet.GetIterationTime());
    BOOST_TEST(wallLines > 0u);
    // One simulated-time line per 10 us of the run, each at or after its multiple of 10 us.
    const double runUs = quiet.GetIterationTime().GetMicroSeconds();
    BOOST_TEST(simulated.size() >= static_cast<std::size_t>(runUs / 10) - 1);
    for (std::size_t i = 0; i < simulated.size(); ++i)
    {
        BOOST_TEST(simulated[i] >= MicroSeconds(10) * static_cast<int64_t>(i + 1));
    }
}
