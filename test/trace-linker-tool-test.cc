/*
 * The chakra_trace_link command: flags and aliases, exit codes, the stderr summary and its
 * levels, one-line errors, no partial output.
 */
#define BOOST_TEST_MODULE trace_linker_tool
#include "chakra-test-data.h"

#include <boost/test/unit_test.hpp>
#include <nlohmann/json.hpp>

using chakra_test::RunCommand;
using chakra_test::TempDir;

namespace
{

std::string
Tool()
{
    return chakra_test::ToolPath("chakra_trace_link");
}

/** Number of lines of \p text. */
std::size_t
Lines(const std::string& text)
{
    std::size_t n = 0;
    for (std::size_t i = 0; i < text.size(); ++i)
    {
        n += text[i] == '\n' || (i + 1 == text.size());
    }
    return n;
}

const char* kHost = R"({"schema": "1.0.1", "pid": 7, "nodes": [
 {"name": "[pytorch|profiler|execution_trace|process]", "id": 1, "parent": 1, "tid": 0, "rf_id": 0},
 {"name": "[pytorch|profiler|execution_trace|thread]", "id": 2, "parent": 1, "tid": 1, "rf_id": 0},
 {"name": "aten::add", "id": 3, "parent": 2, "tid": 1, "rf_id": 1},
 {"name": "aten::view", "id": 4, "parent": 2, "tid": 1, "rf_id": 2}]})";

// aten::view never ran on the device side; kernel "early" has no launcher in the file.
const char* kDevice = R"({"schemaVersion": 1, "distributedInfo": {"rank": 0, "world_size": 1},
 "traceEvents": [
 {"ph": "X", "cat": "cpu_op", "name": "aten::add", "pid": 7, "tid": 7, "ts": 100, "dur": 20, "args": {"External id": 1}},
 {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 7, "tid": 7, "ts": 105, "dur": 5, "args": {"correlation": 9}},
 {"ph": "X", "cat": "kernel", "name": "add_kernel", "pid": 0, "tid": 7, "ts": 112, "dur": 4, "args": {"correlation": 9, "stream": 7, "device": 0}},
 {"ph": "X", "cat": "kernel", "name": "early", "pid": 0, "tid": 7, "ts": 90, "dur": 4, "args": {"correlation": 3, "stream": 7, "device": 0}}]})";

struct Pair
{
    TempDir dir;

    Pair()
    {
        chakra_test::WriteFileBytes(dir.File("h.json"), kHost);
        chakra_test::WriteFileBytes(dir.File("d.json"), kDevice);
    }

    std::string Args(const std::string& output, const std::string& extra = "") const
    {
        return " --chakra-host-trace " + dir.File("h.json") + " --chakra-device-trace " +
               dir.File("d.json") + " --rank 0 --output-file " + output + extra;
    }
};

} // namespace

BOOST_AUTO_TEST_CASE(help_lists_the_reference_flags)
{
    auto result = RunCommand(Tool() + " --help");
    BOOST_TEST(result.exitCode == 0);
    for (const char* flag :
         {"--chakra-host-trace", "--chakra-device-trace", "--rank", "--output-file", "--log-level"})
    {
        BOOST_TEST(result.output.find(flag) != std::string::npos, flag);
    }
}

BOOST_AUTO_TEST_CASE(usage_errors_exit_two)
{
    Pair pair;
    BOOST_TEST(RunCommand(Tool()).exitCode == 2);
    BOOST_TEST(RunCommand(Tool() + pair.Args(pair.dir.File("o.json"), " --bogus")).exitCode == 2);
    BOOST_TEST(RunCommand(Tool() + " --chakra-host-trace").exitCode == 2);
    auto level = RunCommand(Tool() + pair.Args(pair.dir.File("o.json"), " --log-level LOUD"));
    BOOST_TEST(level.exitCode == 2);
    BOOST_TEST(level.output.find("LOUD") != std::string::npos);
    auto rank = RunCommand(Tool() + " --chakra-host-trace a --chakra-device-trace b --rank x "
                                    "--output-file c");
    BOOST_TEST(rank.exitCode == 2);
    BOOST_TEST(!chakra_test::FileExists(pair.dir.File("o.json")));
}

BOOST_AUTO_TEST_CASE(links_and_summarises)
{
    Pair pair;
    const std::string out = pair.dir.File("out.json");
    auto result = RunCommand(Tool() + pair.Args(out));
    BOOST_TEST_INFO(result.output);
    BOOST_TEST(result.exitCode == 0);
    BOOST_TEST(result.output.find("host ops linked: 1 of 2") != std::string::npos);
    BOOST_TEST(result.output.find("GPU ops attached: 1 of 2") != std::string::npos);
    BOOST_TEST(result.output.find("unmatched host op 5 (input id 4) aten::view") !=
               std::string::npos);
    BOOST_TEST(result.output.find("1 GPU ops unmatched (no-launcher)") != std::string::npos);
    auto trace = nlohmann::json::parse(chakra_test::ReadFileBytes(out));
    BOOST_TEST(trace["trace_link"]["gpu_ops_attached"] == 1);
    BOOST_TEST(trace["nodes"][3]["name"] == "add_kernel");
    BOOST_TEST(trace["nodes"][3]["parent"] == 3);

    // Underscore spellings, as the reference tool's argparse accepts.
    const std::string out2 = pair.dir.File("out2.json");
    auto aliases = RunCommand(Tool() + " --chakra_host_trace " + pair.dir.File("h.json") +
                              " --chakra_device_trace=" + pair.dir.File("d.json") +
                              " --rank 0 --output_file " + out2 + " --log_level debug");
    BOOST_TEST(aliases.exitCode == 0);
    BOOST_TEST(chakra_test::ReadFileBytes(out2) == chakra_test::ReadFileBytes(out));
    BOOST_TEST(aliases.output.find("DEBUG:  unmatched kernel early") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(log_levels_control_the_summary)
{
    Pair pair;
    auto warning = RunCommand(Tool() + pair.Args(pair.dir.File("w.json"), " --log-level WARNING"));
    BOOST_TEST(warning.exitCode == 0);
    BOOST_TEST(warning.output.find("INFO") == std::string::npos);
    BOOST_TEST(warning.output.find("WARNING: 1 host ops unmatched") != std::string::npos);
    auto error = RunCommand(Tool() + pair.Args(pair.dir.File("e.json"), " --log-level ERROR"));
    BOOST_TEST(error.exitCode == 0);
    BOOST_TEST(error.output.empty());
    auto critical =
        RunCommand(Tool() + pair.Args(pair.dir.File("c.json"), " --log-level CRITICAL"));
    BOOST_TEST(critical.output.empty());
    BOOST_TEST(chakra_test::FileExists(pair.dir.File("c.json")));
}

BOOST_AUTO_TEST_CASE(bad_input_gives_one_line_and_no_output)
{
    Pair pair;
    const std::string out = pair.dir.File("out.json");
    // An older output must survive a failed run untouched.
    chakra_test::WriteFileBytes(out, "old");
    const std::vector<std::pair<std::string, std::string>> cases = {
        {"h.json", "{\"nodes\": [1, 2"},
        {"d.json", "[{\"ph\": \"X\", \"name\": \"a\", \"ts\": 1}]"}, // no dur
        {"h.json",
         std::string(kHost).replace(std::string(kHost).find("\"pid\": 7"), 8, "\"pid\": 8")},
        {"d.json", ""},
    };
    for (const auto& [file, bytes] : cases)
    {
        Pair bad;
        chakra_test::WriteFileBytes(bad.dir.File(file), bytes);
        auto result = RunCommand(Tool() + bad.Args(out));
        BOOST_TEST_INFO(file << ": " << result.output);
        BOOST_TEST(result.exitCode == 1);
        BOOST_TEST(Lines(result.output) == 1u);
        BOOST_TEST(result.output.find("chakra_trace_link: error: ") == 0u);
        BOOST_TEST(result.output.find(bad.dir.Path()) != std::string::npos);
        BOOST_TEST(chakra_test::ReadFileBytes(out) == "old");
    }
    auto missing = RunCommand(Tool() + " --chakra-host-trace " + pair.dir.File("nope.json") +
                              " --chakra-device-trace " + pair.dir.File("d.json") +
                              " --rank 0 --output-file " + pair.dir.File("x.json"));
    BOOST_TEST(missing.exitCode == 1);
    BOOST_TEST(missing.output.find("nope.json") != std::string::npos);
    BOOST_TEST(!chakra_test::FileExists(pair.dir.File("x.json")));
    auto unwritable = RunCommand(Tool() + pair.Args(pair.dir.File("no/such/dir/out.json")));
    BOOST_TEST(unwritable.exitCode == 1);
    BOOST_TEST(Lines(unwritable.output) == 1u);
}

BOOST_AUTO_TEST_CASE(a_linked_trace_is_refused_as_host_trace)
{
    // Linking the output again would attach every GPU op a second time.
    Pair pair;
    auto first = RunCommand(Tool() + pair.Args(pair.dir.File("linked.json"), " --log-level ERROR"));
    BOOST_REQUIRE(first.exitCode == 0);
    auto again = RunCommand(Tool() + " --chakra-host-trace " + pair.dir.File("linked.json") +
                            " --chakra-device-trace " + pair.dir.File("d.json") +
                            " --rank 0 --output-file " + pair.dir.File("twice.json"));
    BOOST_TEST(again.exitCode == 1);
    BOOST_TEST(Lines(again.output) == 1u);
    BOOST_TEST(again.output.find("chakra_trace_link: error: " + pair.dir.File("linked.json")) == 0u,
               again.output);
    BOOST_TEST(again.output.find("already a linked trace") != std::string::npos, again.output);
    BOOST_TEST(!chakra_test::FileExists(pair.dir.File("twice.json")));
}
