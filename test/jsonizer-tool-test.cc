/*
 * The chakra_jsonizer command: flags, exit codes, one-line errors, no partial output.
 */
#define BOOST_TEST_MODULE jsonizer_tool
#include "chakra-test-data.h"

#include <boost/test/unit_test.hpp>

using chakra_test::RunCommand;
using chakra_test::TempDir;

namespace
{

std::string
Jsonizer()
{
    return chakra_test::ToolPath("chakra_jsonizer");
}

/** Number of lines of \p text (a trailing newline does not start a line). */
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

} // namespace

BOOST_AUTO_TEST_CASE(help_exits_zero)
{
    auto result = RunCommand(Jsonizer() + " --help");
    BOOST_TEST(result.exitCode == 0);
    // Kebab-case, as every tool's flags (the reference tool's --input_filename still works:
    // round_trip_through_the_tool uses it).
    BOOST_TEST(result.output.find("--input-filename") != std::string::npos);
    BOOST_TEST(result.output.find("--reverse") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(usage_errors_exit_two)
{
    BOOST_TEST(RunCommand(Jsonizer()).exitCode == 2);
    BOOST_TEST(
        RunCommand(Jsonizer() + " --input_filename a --output_filename b --bogus").exitCode == 2);
    BOOST_TEST(RunCommand(Jsonizer() + " --input_filename").exitCode == 2);
}

BOOST_AUTO_TEST_CASE(round_trip_through_the_tool)
{
    TempDir dir;
    chakra_test::WriteFileBytes(
        dir.File("in.json"),
        R"({"metadata": {"version": "0.0.4"}, "nodes": [{"id": 0, "name": "a", "type": "COMP_NODE", "duration_micros": 3}]})");
    auto reverse = RunCommand(Jsonizer() + " --reverse --input_filename " + dir.File("in.json") +
                              " --output_filename " + dir.File("t.et"));
    BOOST_TEST(reverse.exitCode == 0);
    auto forward = RunCommand(Jsonizer() + " --input_filename=" + dir.File("t.et") +
                              " --output_filename=" + dir.File("t.json"));
    BOOST_TEST(forward.exitCode == 0);
    auto back = RunCommand(Jsonizer() + " --quiet --reverse --input_filename " +
                           dir.File("t.json") + " --output_filename " + dir.File("back.et.gz"));
    BOOST_TEST(back.exitCode == 0);
    BOOST_TEST(back.output.empty());
    BOOST_TEST(chakra_test::ReadMaybeGzip(dir.File("back.et.gz")) ==
               chakra_test::ReadFileBytes(dir.File("t.et")));
}

BOOST_AUTO_TEST_CASE(bad_inputs_give_one_line_and_no_output)
{
    TempDir dir;
    const std::vector<std::pair<std::string, std::string>> cases = {
        {"empty.et", ""},
        {"truncated.et", std::string("\x07\x0a\x05\x30\x2e\x30", 6)},
        {"badvarint.et", std::string("\x02\x0a\x00", 3) + std::string(12, '\xff')},
        {"garbage.et", "this is not a trace at all"},
    };
    for (const auto& [name, bytes] : cases)
    {
        chakra_test::WriteFileBytes(dir.File(name), bytes);
        auto result = RunCommand(Jsonizer() + " --input_filename " + dir.File(name) +
                                 " --output_filename " + dir.File(name + ".json"));
        BOOST_TEST_INFO(name << ": " << result.output);
        BOOST_TEST(result.exitCode == 1);
        BOOST_TEST(Lines(result.output) == 1u);
        BOOST_TEST(result.output.find("chakra_jsonizer: error: " + dir.File(name)) == 0u);
        BOOST_TEST(!chakra_test::FileExists(dir.File(name + ".json")));
    }
    auto missing = RunCommand(Jsonizer() + " --input_filename " + dir.File("nope.et") +
                              " --output_filename " + dir.File("x.json"));
    BOOST_TEST(missing.exitCode == 1);
    BOOST_TEST(missing.output.find("cannot open") != std::string::npos);
}
