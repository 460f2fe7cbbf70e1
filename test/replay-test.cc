/*
 * ReplayPipeline's trace discovery and chakra_replay's usage errors, on hand-made files (the
 * real-trace runs are in replay-real-data-test.cc).
 */
#define BOOST_TEST_MODULE replay
#include "chakra-test-data.h"

#include "ns3/collective-cost-fit.h"
#include "ns3/et-writer.h"
#include "ns3/gpu-catalog.h"
#include "ns3/replay-pipeline.h"
#include "ns3/trace-error.h"

#include <boost/test/unit_test.hpp>
#include <cctype>
#include <cmath>
#include <fstream>
#include <iterator>
#include <sstream>

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
    // One host trace and one device trace are rank 0, with or without a number in their names.
    TempDir single;
    chakra_test::WriteFileBytes(single.File("linear_et.json"), kHost);
    chakra_test::WriteFileBytes(single.File("linear_kineto.json"), kDevice);
    auto one = DiscoverRankTraces(single.Path());
    BOOST_REQUIRE(one.size() == 1u);
    BOOST_TEST(one[0].host == single.File("linear_et.json"));
    BOOST_TEST(one[0].device == single.File("linear_kineto.json"));
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

BOOST_AUTO_TEST_CASE(a_pattern_without_rank_says_what_is_wrong)
{
    TempDir dir;
    chakra_test::WriteFileBytes(dir.File("x.json.gz"), kHost);
    BOOST_CHECK_EXCEPTION(DiscoverRankTraces(dir.Path(), "x.json.gz"),
                          std::invalid_argument,
                          [](const std::invalid_argument& e) {
                              const std::string what = e.what();
                              return what.find("--host-pattern 'x.json.gz' has no {rank}") == 0;
                          });
    auto tool = RunCommand(
        Replay("--traces " + dir.Path() + " --host-pattern x.json.gz --output " + dir.File("out")));
    BOOST_TEST(tool.exitCode == 1);
    BOOST_TEST(tool.output.find("has no {rank}") != std::string::npos, tool.output);
    BOOST_TEST(tool.output.find("stoul") == std::string::npos, tool.output);
    auto device = RunCommand(Replay("--traces " + dir.Path() +
                                    " --host-pattern 'x{rank}.json' --device-pattern 'w*.json' "
                                    "--output " +
                                    dir.File("out")));
    BOOST_TEST(device.exitCode == 1);
    BOOST_TEST(device.output.find("--device-pattern 'w*.json' has no {rank}") != std::string::npos,
               device.output);
    // A run of digits too long to be a rank is no rank.
    chakra_test::WriteFileBytes(dir.File("99999999999999999999.json"), kHost);
    BOOST_CHECK_EXCEPTION(DiscoverRankTraces(dir.Path(), "{rank}.json"),
                          TraceError,
                          [](const TraceError& e) {
                              return std::string(e.what()).find("too large") != std::string::npos;
                          });
}

namespace
{

/** Writes a 2-rank job: the reference converter's process_group:init and one all-reduce. */
std::string
WriteReferenceStyleJob(const TempDir& dir)
{
    const std::string prefix = dir.File("ref");
    for (int rank = 0; rank < 2; ++rank)
    {
        ChakraProtoMsg::GlobalMetadata metadata;
        metadata.set_version("0.0.4");
        EtWriter writer(prefix + "." + std::to_string(rank) + ".et", metadata);
        ChakraProtoMsg::Node init;
        init.set_id(1);
        init.set_name("## process_group:init ##");
        init.set_type(ChakraProtoMsg::METADATA_NODE);
        // str() of the host trace's inputs.values: a Python list holding PyTorch's JSON text.
        init.mutable_inputs()->set_values(
            R"(['[{"pg_name": "0", "backend_id": 82149104, "backend_config": "cuda:nccl", )"
            R"("ranks": [], "group_size": 2, "group_count": 1}]'])");
        writer.WriteNode(init);
        ChakraProtoMsg::Node coll;
        coll.set_id(2);
        coll.set_name("ncclKernel_AllReduce");
        coll.set_type(ChakraProtoMsg::COMM_COLL_NODE);
        auto attr = [&coll](const std::string& name) {
            auto* a = coll.add_attr();
            a->set_name(name);
            return a;
        };
        attr("comm_type")->set_int64_val(ChakraProtoMsg::ALL_REDUCE);
        attr("comm_size")->set_int64_val(1 << 20);
        attr("pg_name")->set_string_val("0");
        attr("is_cpu_op")->set_bool_val(false);
        writer.WriteNode(coll);
        writer.Commit();
    }
    return prefix;
}

} // namespace

BOOST_AUTO_TEST_CASE(reference_converter_process_groups_are_simulated)
{
    TempDir dir;
    const std::string prefix = WriteReferenceStyleJob(dir);
    auto run = RunCommand(Replay("--et " + prefix + " --output " + dir.File("out") + " --quiet"));
    BOOST_TEST_INFO(run.output);
    BOOST_TEST(run.exitCode == 0);
    BOOST_TEST(run.output.find("ranks 2, finished 2/2") != std::string::npos);
    BOOST_TEST(run.output.find("not a JSON list") == std::string::npos);
    auto check = RunCommand(chakra_test::ToolPath("chakra_check_ranks") + " " + prefix);
    BOOST_TEST_INFO(check.output);
    BOOST_TEST(check.exitCode == 0);
}

BOOST_AUTO_TEST_CASE(gpu_names_give_their_nvlink)
{
    struct Case
    {
        const char* name;
        const char* model;
        double gbPerSecond;
        const char* rate;
    };

    // NVIDIA's totals over both directions, halved: V100 300 GB/s, A100 600, H100 900, ...
    for (const Case& c : {Case{"Tesla V100-SXM2-32GB", "V100", 150, "1200Gbps"},
                          Case{"NVIDIA A100-SXM4-80GB", "A100", 300, "2400Gbps"},
                          Case{"NVIDIA H100 80GB HBM3", "H100", 450, "3600Gbps"},
                          Case{"NVIDIA H200", "H200", 450, "3600Gbps"},
                          Case{"NVIDIA A800-SXM4-80GB", "A800", 200, "1600Gbps"},
                          Case{"NVIDIA H800", "H800", 200, "1600Gbps"},
                          Case{"Tesla P100-SXM2-16GB", "P100", 80, "640Gbps"},
                          Case{"NVIDIA B200", "B200", 900, "7200Gbps"},
                          Case{"NVIDIA GB200", "GB200", 900, "7200Gbps"}})
    {
        std::string why;
        auto spec = LookUpGpuLinks(c.name, why);
        BOOST_REQUIRE_MESSAGE(spec.has_value(), c.name);
        BOOST_TEST(spec->model == c.model);
        BOOST_TEST(spec->gbPerSecond == c.gbPerSecond);
        BOOST_TEST(spec->DataRate() == c.rate);
        BOOST_TEST(!spec->source.empty());
    }
    std::string why;
    BOOST_TEST(!LookUpGpuLinks("NVIDIA A100-PCIE-40GB", why).has_value());
    BOOST_TEST(why.find("PCIe") != std::string::npos);
    BOOST_TEST(!LookUpGpuLinks("NVIDIA H100 NVL", why).has_value());
    BOOST_TEST(!LookUpGpuLinks("NVIDIA GeForce RTX 4090", why).has_value());
    BOOST_TEST(why.find("not a GPU this catalog knows") != std::string::npos);
    BOOST_TEST(!LookUpGpuLinks("", why).has_value());
}

BOOST_AUTO_TEST_CASE(call_timing_separates_skew_from_transfer)
{
    // Arrivals 10, 40, 25; ends 52, 50, 51: the last rank arrives at 40. Members that
    // complete together (all-reduce): the call completes at the first end, 50: skew 30,
    // transfer 10, the last member 2 later (local), span 42.
    CallTiming t = TimeCall({{10, 52}, {40, 50}, {25, 51}});
    BOOST_TEST(t.skewUs == 30.0);
    BOOST_TEST(t.transferUs == 10.0);
    BOOST_TEST(t.localUs == 2.0);
    BOOST_TEST(t.spanUs == 42.0);
    // Members that end apart by design (broadcast): completion is the last end, 52.
    CallTiming apart = TimeCall({{10, 52}, {40, 50}, {25, 51}}, false);
    BOOST_TEST(apart.transferUs == 12.0);
    BOOST_TEST(apart.localUs == 0.0);
    // An end before the last arrival (clocks aligned imperfectly) is no negative transfer.
    CallTiming early = TimeCall({{10, 35}, {40, 60}});
    BOOST_TEST(early.transferUs == 0.0);
    BOOST_TEST(early.localUs == 20.0);
    BOOST_TEST(TimeCall({}).spanUs == 0.0);
    BOOST_TEST(CompletesTogether("ALL_TO_ALL"));
    BOOST_TEST(!CompletesTogether("BROADCAST"));
}

BOOST_AUTO_TEST_CASE(collective_cost_fit_is_least_squares_without_negative_terms)
{
    // On the line 10 + 0.5 x: recovered exactly.
    CollectiveCostFit line = FitCollectiveCost({{0, 10}, {10, 15}, {20, 20}});
    BOOST_TEST(line.fixedUs == 10.0, boost::test_tools::tolerance(1e-9));
    BOOST_TEST(line.usPerByte == 0.5, boost::test_tools::tolerance(1e-9));
    BOOST_TEST(line.calls == 3u);
    BOOST_TEST(line.CostUs(40) == 30.0, boost::test_tools::tolerance(1e-9));
    // Scattered points: the residuals of the fit sum to zero. (0, 1), (1, 3), (2, 2):
    // mean x 1, mean y 2, Sxy = (-1)(-1) + 0 + (1)(0) = 1, Sxx = 2: b = 0.5, a = 1.5.
    CollectiveCostFit scattered = FitCollectiveCost({{0, 1}, {1, 3}, {2, 2}});
    BOOST_TEST(scattered.fixedUs == 1.5, boost::test_tools::tolerance(1e-9));
    BOOST_TEST(scattered.usPerByte == 0.5, boost::test_tools::tolerance(1e-9));
    // Falling with size: a constant, the mean (30 and 10: 20).
    CollectiveCostFit falling = FitCollectiveCost({{0, 30}, {10, 10}});
    BOOST_TEST(falling.fixedUs == 20.0, boost::test_tools::tolerance(1e-9));
    BOOST_TEST(falling.usPerByte == 0.0);
    // (10, 1), (20, 12): slope 1.1, intercept -10 < 0: through the origin,
    // b = (10 + 240) / (100 + 400) = 0.5.
    CollectiveCostFit origin = FitCollectiveCost({{10, 1}, {20, 12}});
    BOOST_TEST(origin.fixedUs == 0.0);
    BOOST_TEST(origin.usPerByte == 0.5, boost::test_tools::tolerance(1e-9));
    // One size: the mean; nothing: nothing.
    CollectiveCostFit one = FitCollectiveCost({{64, 7}, {64, 9}});
    BOOST_TEST(one.fixedUs == 8.0, boost::test_tools::tolerance(1e-9));
    BOOST_TEST(one.usPerByte == 0.0);
    CollectiveCostFit none = FitCollectiveCost(std::vector<std::pair<uint64_t, double>>{});
    BOOST_TEST(none.calls == 0u);
    BOOST_TEST(none.CostUs(1 << 20) == 0.0);
    BOOST_TEST(none.Describe().find("none") == 0u);
}

namespace
{

/** One rank's .et with collectives at the given (start, duration), world group. */
std::string
WriteTimedRank(const TempDir& dir,
               int rank,
               const std::vector<std::pair<uint64_t, uint64_t>>& calls)
{
    ChakraProtoMsg::GlobalMetadata metadata;
    metadata.set_version("0.0.4");
    const std::string path = dir.File("timed." + std::to_string(rank) + ".et");
    EtWriter writer(path, metadata);
    uint64_t id = 1;
    for (const auto& [start, duration] : calls)
    {
        ChakraProtoMsg::Node coll;
        coll.set_id(id++);
        coll.set_name("ncclKernel_AllReduce");
        coll.set_type(ChakraProtoMsg::COMM_COLL_NODE);
        coll.set_start_time_micros(start);
        coll.set_duration_micros(duration);
        auto* type = coll.add_attr();
        type->set_name("comm_type");
        type->set_int64_val(ChakraProtoMsg::ALL_REDUCE);
        writer.WriteNode(coll);
    }
    writer.Commit();
    return path;
}

} // namespace

BOOST_AUTO_TEST_CASE(measured_clocks_are_shared_or_aligned_by_collective_ends)
{
    TempDir dir;
    // Shared clock: both ranks' calls end together (100+20 = 110+10; 300+50 = 340+10).
    {
        MeasuredRun run;
        run.SetIteration(0, {"ProfilerStep#1", 50, 400});
        run.SetIteration(1, {"ProfilerStep#1", 90, 360});
        run.AddRankTrace(0, WriteTimedRank(dir, 0, {{100, 20}, {300, 50}}));
        run.AddRankTrace(1, WriteTimedRank(dir, 1, {{110, 10}, {340, 10}}));
        run.Align();
        BOOST_TEST(run.GetClockNote().find("shared clock") == 0u, run.GetClockNote());
        BOOST_TEST(run.GetStartOffsetsUs(2) == (std::vector<double>{0, 40}),
                   boost::test_tools::per_element());
        BOOST_TEST(run.GetSpanUs() == 400.0); // 50 .. max(450, 450)
        const auto* first = run.FindCall("", 0);
        BOOST_REQUIRE(first != nullptr);
        BOOST_TEST(first->sides.size() == 2u);
        BOOST_TEST(first->kind == "ALL_REDUCE");
    }
    // Rank 1's clock runs 5000 us ahead: its ends are 5000 later; aligned, rank 1 started its
    // iteration 40 us after rank 0, as above.
    {
        MeasuredRun run;
        run.SetIteration(0, {"ProfilerStep#1", 50, 400});
        run.SetIteration(1, {"ProfilerStep#1", 5090, 360});
        run.AddRankTrace(0, WriteTimedRank(dir, 0, {{100, 20}, {300, 50}}));
        run.AddRankTrace(1, WriteTimedRank(dir, 1, {{5110, 10}, {5340, 10}}));
        run.Align();
        BOOST_TEST(run.GetClockNote().find("separate clocks") == 0u, run.GetClockNote());
        BOOST_TEST(run.GetStartOffsetsUs(2) == (std::vector<double>{0, 40}),
                   boost::test_tools::per_element());
        BOOST_TEST(run.GetIteration(1)->startUs == 90.0);
        const auto* second = run.FindCall("", 1);
        BOOST_REQUIRE(second != nullptr);
        BOOST_TEST(second->sides.at(1).startUs == 340.0);
    }
}

namespace
{

/** A measured call: start and duration (us), bytes. */
struct TimedCall
{
    uint64_t start;
    uint64_t duration;
    uint64_t bytes;
};

/** One rank's .et: all-reduces on the world group, each depending on the one before. */
void
WriteTimedCalls(const std::string& path, const std::vector<TimedCall>& calls)
{
    ChakraProtoMsg::GlobalMetadata metadata;
    metadata.set_version("0.0.4");
    EtWriter writer(path, metadata);
    uint64_t id = 1;
    for (const auto& call : calls)
    {
        ChakraProtoMsg::Node coll;
        coll.set_id(id);
        coll.set_name("ncclKernel_AllReduce");
        coll.set_type(ChakraProtoMsg::COMM_COLL_NODE);
        coll.set_start_time_micros(call.start);
        coll.set_duration_micros(call.duration);
        if (id > 1)
        {
            coll.add_data_deps(id - 1);
        }
        auto* type = coll.add_attr();
        type->set_name("comm_type");
        type->set_int64_val(ChakraProtoMsg::ALL_REDUCE);
        auto* size = coll.add_attr();
        size->set_name("comm_size");
        size->set_int64_val(static_cast<int64_t>(call.bytes));
        writer.WriteNode(coll);
        ++id;
    }
    writer.Commit();
}

/** The fields of the validation.csv lines that start with \p what. */
std::vector<std::vector<double>>
CollectiveRows(const std::string& csv)
{
    std::vector<std::vector<double>> rows;
    std::istringstream lines(csv);
    for (std::string line; std::getline(lines, line);)
    {
        if (line.rfind("collective,", 0) != 0)
        {
            continue;
        }
        std::vector<double> fields;
        std::istringstream cells(line);
        for (std::string cell; std::getline(cells, cell, ',');)
        {
            fields.push_back(cell.empty() || !std::isdigit(static_cast<unsigned char>(cell.back()))
                                 ? 0.0
                                 : std::stod(cell));
        }
        rows.push_back(fields);
    }
    return rows;
}

// Two ranks, three all-reduces measured as (start, duration): calls 0 and 2 end together on
// both ranks; in call 1 rank 0 ends 30 us after rank 1 (310 against 280).
const std::vector<TimedCall> kRank0Calls = {{100, 50, 1024}, {200, 110, 2048}, {400, 200, 65536}};
const std::vector<TimedCall> kRank1Calls = {{100, 50, 1024}, {200, 80, 2048}, {400, 200, 65536}};

} // namespace

BOOST_AUTO_TEST_CASE(rank_local_delays_are_a_members_end_after_the_first)
{
    TempDir dir;
    WriteTimedCalls(dir.File("t.0.et"), kRank0Calls);
    WriteTimedCalls(dir.File("t.1.et"), kRank1Calls);
    MeasuredRun run;
    run.AddRankTrace(0, dir.File("t.0.et"));
    run.AddRankTrace(1, dir.File("t.1.et"));
    run.Align();
    // Rank 0's node 2 (call 1): 310 - 280.
    const auto delays = run.GetCallDelaysUs(0);
    BOOST_REQUIRE(delays.size() == 1u);
    BOOST_TEST(delays.at(2) == 30.0);
    BOOST_TEST(run.GetCallDelaysUs(1).empty());
}

BOOST_AUTO_TEST_CASE(replay_calibrates_the_collective_cost_and_replays_local_delays)
{
    TempDir dir;
    WriteTimedCalls(dir.File("t.0.et"), kRank0Calls);
    WriteTimedCalls(dir.File("t.1.et"), kRank1Calls);
    // Measured (hand): transfers 50, 80 (last arrival 200, first end 280), 200; local 0, 30, 0.
    const double measuredTransfer[3] = {50, 80, 200};
    const double measuredLocal[3] = {0, 30, 0};

    TempDir plain;
    auto models = RunCommand(Replay("--et " + dir.File("t") + " --output " + plain.Path() +
                                    " --quiet --no-calibration"));
    BOOST_TEST_INFO(models.output);
    BOOST_REQUIRE(models.exitCode == 0);
    BOOST_TEST(models.output.find("collective software cost") == std::string::npos);
    auto rows = CollectiveRows(chakra_test::ReadFileBytes(plain.File("validation.csv")));
    BOOST_REQUIRE(rows.size() == 3u);
    for (std::size_t k = 0; k < 3; ++k)
    {
        BOOST_TEST(rows[k][11] == measuredTransfer[k]);
        BOOST_TEST(rows[k][15] == measuredLocal[k]);
        BOOST_TEST(rows[k][10] < 10.0); // NVLink alone: a few microseconds
        BOOST_TEST(rows[k][14] < 0.5);  // no delay replayed
    }

    TempDir calibrated;
    auto replay =
        RunCommand(Replay("--et " + dir.File("t") + " --output " + calibrated.Path() + " --quiet"));
    BOOST_TEST_INFO(replay.output);
    BOOST_REQUIRE(replay.exitCode == 0);
    BOOST_TEST(replay.output.find("collective software cost: ") != std::string::npos);
    BOOST_TEST(replay.output.find("least squares over 3 measured calls") != std::string::npos);
    BOOST_TEST(replay.output.find("rank 0 30.0 us in 1 call;") != std::string::npos);
    rows = CollectiveRows(chakra_test::ReadFileBytes(calibrated.File("validation.csv")));
    BOOST_REQUIRE(rows.size() == 3u);
    // Least squares with an intercept: the fitted costs add up to the measured transfers less
    // the simulated ones, so the calibrated transfers add up to the measured 330 us.
    const double total = rows[0][10] + rows[1][10] + rows[2][10];
    BOOST_TEST(std::abs(total - 330.0) < 3.3, "calibrated transfers " << total);
    // Rank 0 ends call 1 30 us after rank 1, so it arrives at call 2 30 us after it.
    BOOST_TEST(std::abs(rows[1][14] - 30.0) < 0.5, "local " << rows[1][14]);
    BOOST_TEST(std::abs(rows[2][8] - 30.0) < 0.5, "skew " << rows[2][8]);
}

BOOST_AUTO_TEST_CASE(ranks_that_disagree_stop_the_replay_before_simulating)
{
    // Two host-only ranks: one all-reduce each, 16 bytes on rank 0 and 20 on rank 1.
    auto trace = [](int count) {
        return R"x({"schema": "1.0.1", "pid": 1, "time": "t", "start_ts": 0, "finish_ts": 1, "nodes": [
 {"id": 1, "name": "[pytorch|profiler|execution_trace|process]", "parent": 1, "tid": 0},
 {"id": 2, "name": "[pytorch|profiler|execution_trace|thread]", "parent": 1, "tid": 1},
 {"id": 3, "name": "nccl:all_reduce", "parent": 2, "tid": 1,
  "inputs": [[7, 8, 0, )x" +
               std::to_string(count) + R"x(, 4, "cuda:0"]], "input_types": ["Tensor(float)"]}]})x";
    };
    TempDir dir;
    chakra_test::WriteFileBytes(dir.File("et_0.json"), trace(4));
    chakra_test::WriteFileBytes(dir.File("et_1.json"), trace(5));
    auto run = RunCommand(Replay("--traces " + dir.Path() + " --output " + dir.File("out")));
    BOOST_TEST_INFO(run.output);
    BOOST_TEST(run.exitCode == 1);
    const std::size_t error = run.output.find("chakra_replay: error: ");
    BOOST_REQUIRE(error != std::string::npos);
    const std::string line = run.output.substr(error, run.output.find('\n', error) - error);
    BOOST_TEST(line.find("the ranks disagree on their communication (1 mismatches") !=
                   std::string::npos,
               line);
    BOOST_TEST(line.find("nothing simulated; first: process group \"\": call #0") !=
                   std::string::npos,
               line);
    BOOST_TEST(line.find("rank 1 has ALL_REDUCE of 20 bytes") != std::string::npos, line);
    BOOST_TEST(chakra_test::FileExists(dir.File("out/consistency.txt")));
    BOOST_TEST(!chakra_test::FileExists(dir.File("out/report.txt")));
}

BOOST_AUTO_TEST_CASE(progress_lines_come_while_simulating_unless_quiet)
{
    // ClusterScenario's wall-clock progress, reused: with a tiny interval every check prints
    // (at most one per wall-clock millisecond), so a run of any length prints at least one
    // line; --quiet and --progress 0 print none. The report is the same either way.
    TempDir dir;
    const std::string prefix = WriteReferenceStyleJob(dir);
    const std::string line = "chakra_replay:   simulated ";
    auto chatty = RunCommand(
        Replay("--et " + prefix + " --output " + dir.File("a") + " --progress 0.000001"));
    BOOST_TEST_INFO(chatty.output);
    BOOST_TEST(chatty.exitCode == 0);
    const auto at = chatty.output.find(line);
    BOOST_TEST(at != std::string::npos);
    BOOST_TEST(chatty.output.find(" nodes done (", at) != std::string::npos); // done/total
    BOOST_TEST(chatty.output.find(" M events/s, wall ", at) != std::string::npos);
    for (const std::string& silent : {std::string(" --quiet"), std::string(" --progress 0")})
    {
        auto run = RunCommand(Replay("--et " + prefix + " --output " + dir.File("b") + silent));
        BOOST_TEST_INFO(silent << ": " << run.output);
        BOOST_TEST(run.exitCode == 0);
        BOOST_TEST(run.output.find(line) == std::string::npos);
    }
    auto report = [&dir](const std::string& out) {
        std::ifstream in(dir.File(out) + "/report.txt");
        return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    };
    BOOST_TEST(!report("a").empty());
    BOOST_TEST(report("a") == report("b"));
}

namespace
{

/** The cells of \p csv's row whose first cell is \p first (empty if none). */
std::vector<std::string>
CsvRow(const std::string& csv, const std::string& first)
{
    std::istringstream lines(csv);
    for (std::string line; std::getline(lines, line);)
    {
        std::vector<std::string> cells;
        std::istringstream in(line);
        for (std::string cell; std::getline(in, cell, ',');)
        {
            cells.push_back(cell);
        }
        if (!line.empty() && line.back() == ',')
        {
            cells.emplace_back(); // getline yields no empty last cell
        }
        if (!cells.empty() && cells[0] == first)
        {
            return cells;
        }
    }
    return {};
}

/** The number after "iteration time " in the first report of \p output. */
double
FirstIterationUs(const std::string& output)
{
    const std::string key = "iteration time ";
    const auto at = output.find(key);
    return at == std::string::npos ? -1.0 : std::stod(output.substr(at + key.size()));
}

} // namespace

BOOST_AUTO_TEST_CASE(the_replayed_job_runs_again_beside_other_jobs)
{
    // The calibrated job (fitted software cost, rank 0's measured 30 us delay) beside an
    // all-reduce job on another host of the one-switch default cluster: nothing shared, so it
    // takes what its own report says, calibration included (the models alone take a few us
    // against its hundreds), and its slowdown is 1.
    TempDir dir;
    WriteTimedCalls(dir.File("t.0.et"), kRank0Calls);
    WriteTimedCalls(dir.File("t.1.et"), kRank1Calls);
    auto generated = RunCommand(chakra_test::ToolPath("chakra_generator") +
                                " --workload collective --collective all_reduce --ranks 2 "
                                "--size 1MiB --output-prefix " +
                                dir.File("ar"));
    BOOST_REQUIRE(generated.exitCode == 0);
    TempDir out;
    auto run = RunCommand(Replay("--et " + dir.File("t") + " --output " + out.Path() +
                                 " --quiet --job " + dir.File("ar") + ":name=neighbour"));
    BOOST_TEST_INFO(run.output);
    BOOST_REQUIRE(run.exitCode == 0);
    const double own = FirstIterationUs(run.output);
    BOOST_TEST(own > 300.0);
    const std::string jobs = chakra_test::ReadFileBytes(out.File("jobs/jobs.csv"));
    const auto replay = CsvRow(jobs, "replay");
    const auto neighbour = CsvRow(jobs, "neighbour");
    BOOST_REQUIRE(replay.size() == 9u);
    BOOST_REQUIRE(neighbour.size() == 9u);
    BOOST_TEST(replay[3] == "0");
    BOOST_TEST(neighbour[3] == "1");
    BOOST_TEST(std::stod(replay[6]) == own);
    BOOST_TEST(std::stod(replay[7]) == own);
    BOOST_TEST(replay[8] == "1.000000");
    BOOST_TEST(neighbour[7].empty()); // no --interference: the others are not run alone
    BOOST_TEST(chakra_test::FileExists(out.File("jobs/report.txt")));
    BOOST_TEST(chakra_test::FileExists(out.File("jobs/job-neighbour/ranks.csv")));
}

BOOST_AUTO_TEST_CASE(a_replayed_job_sharing_an_uplink_slows_down_by_the_share)
{
    // Two 2-rank all-reduces of 64 MiB, one GPU per host, leaves of 2 hosts at 2:1 (a leaf's
    // uplink carries one NIC's rate), spread: the replayed job on hosts 0 and 2, the other on
    // 1 and 3. Each job's ring sends S/2 twice each way through the leaf uplinks: alone at the
    // NIC's rate, S / B = 5.37 ms at 100 Gb/s; together each gets half of each uplink, so a
    // slowdown of 2 (by hand) for both, which --interference runs alone.
    TempDir dir;
    for (const std::string name : {"a", "b"})
    {
        auto generated = RunCommand(chakra_test::ToolPath("chakra_generator") +
                                    " --workload collective --collective all_reduce --ranks 2 "
                                    "--size 64MiB --output-prefix " +
                                    dir.File(name));
        BOOST_REQUIRE(generated.exitCode == 0);
    }
    TempDir out;
    auto run = RunCommand(Replay(
        "--et " + dir.File("a") + " --output " + out.Path() + " --quiet --job " + dir.File("b") +
        ":name=b --gpus-per-host 1 --topology leaf-spine --hosts-per-leaf 2 --spines 1 "
        "--oversubscription 2 --nic-bandwidth 100Gbps --transport flow --placement spread "
        "--interference"));
    BOOST_TEST_INFO(run.output);
    BOOST_REQUIRE(run.exitCode == 0);
    const std::string jobs = chakra_test::ReadFileBytes(out.File("jobs/jobs.csv"));
    const double nicUs = (64 << 20) * 8.0 / 100e9 * 1e6;
    for (const std::string name : {"replay", "b"})
    {
        const auto row = CsvRow(jobs, name);
        BOOST_REQUIRE(row.size() == 9u);
        BOOST_TEST_CONTEXT(name)
        {
            BOOST_TEST(row[3] == (name == "replay" ? "0+2" : "1+3"));
            BOOST_TEST(std::stod(row[7]) == nicUs, boost::test_tools::tolerance(0.05));
            BOOST_TEST(std::stod(row[8]) == 2.0, boost::test_tools::tolerance(0.05));
        }
    }
}

BOOST_AUTO_TEST_CASE(bad_neighbour_jobs_are_refused_before_anything_is_written)
{
    TempDir dir;
    WriteTimedCalls(dir.File("t.0.et"), kRank0Calls);
    WriteTimedCalls(dir.File("t.1.et"), kRank1Calls);

    struct Case
    {
        std::string flags;
        std::string error;
    };

    const std::vector<Case> cases = {
        {"--job " + dir.File("missing"), "missing"},
        {"--job " + dir.File("t") + ":name=replay", "job replay: another job has this name"},
        {"--placement spread", "--placement is for several jobs (--job)"},
        {"--job " + dir.File("t") + ":colour=red", "colour"},
    };
    for (const Case& c : cases)
    {
        TempDir out;
        auto run = RunCommand(
            Replay("--et " + dir.File("t") + " --output " + out.File("o") + " --quiet " + c.flags));
        BOOST_TEST_CONTEXT(c.flags << ": " << run.output)
        {
            BOOST_TEST(run.exitCode == 1);
            BOOST_TEST(run.output.find("chakra_replay: error: ") != std::string::npos);
            BOOST_TEST(run.output.find(c.error) != std::string::npos);
            BOOST_TEST(!chakra_test::FileExists(out.File("o/report.txt")));
            BOOST_TEST(!chakra_test::FileExists(out.File("o/jobs")));
        }
    }
}
