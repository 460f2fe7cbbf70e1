/*
 * The chakra_converter and chakra_check_ranks commands: flags, exit codes, one-line errors,
 * log file, no partial output.
 */
#define BOOST_TEST_MODULE converter_tool
#include "chakra-test-data.h"

#include <boost/test/unit_test.hpp>
#include <cstdio>

using chakra_test::FileExists;
using chakra_test::ReadFileBytes;
using chakra_test::RunCommand;
using chakra_test::TempDir;
using chakra_test::WriteFileBytes;

namespace
{

std::string
Converter()
{
    return chakra_test::ToolPath("chakra_converter");
}

std::string
CheckRanks()
{
    return chakra_test::ToolPath("chakra_check_ranks");
}

/** A host trace of one all_reduce of \p count floats (schema 1.0.1). */
std::string
AllReduceTrace(int count)
{
    return R"x({"schema": "1.0.1", "pid": 1, "time": "t", "start_ts": 0, "finish_ts": 1, "nodes": [
 {"id": 1, "name": "[pytorch|profiler|execution_trace|process]", "parent": 1, "tid": 0},
 {"id": 2, "name": "[pytorch|profiler|execution_trace|thread]", "parent": 1, "tid": 1},
 {"id": 3, "name": "aten::mm", "parent": 2, "tid": 1},
 {"id": 4, "name": "nccl:all_reduce", "parent": 2, "tid": 1,
  "inputs": [[7, 8, 0, )x" +
           std::to_string(count) + R"x(, 4, "cuda:0"]], "input_types": ["Tensor(float)"]}]})x";
}

std::size_t
Lines(const std::string& text)
{
    std::size_t n = 0;
    for (std::size_t i = 0; i < text.size(); ++i)
    {
        n += text[i] == '\n' || i + 1 == text.size();
    }
    return n;
}

} // namespace

BOOST_AUTO_TEST_CASE(help_and_usage_errors)
{
    auto help = RunCommand(Converter() + " --help");
    BOOST_TEST(help.exitCode == 0);
    for (const char* flag : {"--input", "--output", "--log-filename", "PyTorch"})
    {
        BOOST_TEST(help.output.find(flag) != std::string::npos, flag);
    }
    BOOST_TEST(RunCommand(Converter()).exitCode == 2);
    BOOST_TEST(RunCommand(Converter() + " PyTorch --input a.json").exitCode == 2);
    BOOST_TEST(RunCommand(Converter() + " PyTorch --input a --output b --bogus").exitCode == 2);
    BOOST_TEST(RunCommand(Converter() + " PyTorch --input a --output b --rank x").exitCode == 2);
    TempDir dir;
    WriteFileBytes(dir.File("in.json"), AllReduceTrace(4));
    auto type = RunCommand(Converter() + " TensorFlow --input " + dir.File("in.json") +
                           " --output " + dir.File("out.et"));
    BOOST_TEST(type.exitCode == 2);
    BOOST_TEST(type.output.find("PyTorch") != std::string::npos);
    BOOST_TEST(!FileExists(dir.File("out.et")));
}

BOOST_AUTO_TEST_CASE(converts_and_writes_the_log)
{
    TempDir dir;
    WriteFileBytes(dir.File("in.json"), AllReduceTrace(4));
    auto result =
        RunCommand(Converter() + " PyTorch --input " + dir.File("in.json") + " --output " +
                   dir.File("out.et") + " --log-filename " + dir.File("log.txt"));
    BOOST_TEST(result.exitCode == 0, result.output);
    BOOST_TEST(FileExists(dir.File("out.et")));
    std::string log = ReadFileBytes(dir.File("log.txt"));
    BOOST_TEST(log.find("ALL_REDUCE 1") != std::string::npos, log);
    // The reference tool's spellings of the flags work too; --quiet prints nothing.
    auto quiet = RunCommand(Converter() + " PyTorch --input_filename=" + dir.File("in.json") +
                            " --output_filename=" + dir.File("out2.et.gz") + " --quiet");
    BOOST_TEST(quiet.exitCode == 0);
    BOOST_TEST(quiet.output.empty());
    BOOST_TEST(chakra_test::ReadMaybeGzip(dir.File("out2.et.gz")) ==
               ReadFileBytes(dir.File("out.et")));
}

BOOST_AUTO_TEST_CASE(bad_input_one_line_nonzero_no_output)
{
    TempDir dir;
    const std::vector<std::pair<std::string, std::string>> cases = {
        {"truncated.json", AllReduceTrace(4).substr(0, 120)},
        {"unknown.json",
         R"({"schema": "1.0.1", "nodes": [{"id": 5, "name": "nccl:frob", "parent": 5}]})"},
        {"absurd.json", AllReduceTrace(-3)},
        {"empty.json", ""},
    };
    for (const auto& [name, text] : cases)
    {
        WriteFileBytes(dir.File(name), text);
        auto result = RunCommand(Converter() + " PyTorch --input " + dir.File(name) + " --output " +
                                 dir.File("out.et") + " --log-filename " + dir.File("log.txt"));
        BOOST_TEST(result.exitCode == 1, name);
        BOOST_TEST(Lines(result.output) == 1u, name << ": " << result.output);
        BOOST_TEST(result.output.find(dir.File(name)) != std::string::npos, result.output);
        BOOST_TEST(!FileExists(dir.File("out.et")), name);
        BOOST_TEST(ReadFileBytes(dir.File("log.txt")).find("error") != std::string::npos, name);
    }
    auto missing = RunCommand(Converter() + " PyTorch --input " + dir.File("nope.json") +
                              " --output " + dir.File("out.et"));
    BOOST_TEST(missing.exitCode == 1);
    BOOST_TEST(!FileExists(dir.File("out.et")));
}

BOOST_AUTO_TEST_CASE(check_ranks_exit_codes)
{
    TempDir dir;
    for (auto [rank, count] : {std::pair{0, 4}, {1, 4}, {2, 5}})
    {
        WriteFileBytes(dir.File("r.json"), AllReduceTrace(count));
        auto result = RunCommand(Converter() + " PyTorch --quiet --input " + dir.File("r.json") +
                                 " --output " + dir.File("job." + std::to_string(rank) + ".et"));
        BOOST_REQUIRE(result.exitCode == 0);
    }
    auto good = RunCommand(CheckRanks() + " " + dir.File("job.0.et") + " " + dir.File("job.1.et"));
    BOOST_TEST(good.exitCode == 0, good.output);
    BOOST_TEST(good.output.find("consistent") != std::string::npos);
    // By prefix: ranks 0, 1, 2; rank 2's all_reduce is 20 bytes, the others' 16.
    auto bad = RunCommand(CheckRanks() + " " + dir.File("job"));
    BOOST_TEST(bad.exitCode == 1, bad.output);
    BOOST_TEST(bad.output.find("call #0 (program order) differs in comm_size: rank 2 has "
                               "ALL_REDUCE of 20 bytes") != std::string::npos,
               bad.output);
    BOOST_TEST(bad.output.find("rank 0 has ALL_REDUCE of 16 bytes") != std::string::npos,
               bad.output);
    BOOST_TEST(RunCommand(CheckRanks()).exitCode == 2);
    BOOST_TEST(RunCommand(CheckRanks() + " " + dir.File("nothing")).exitCode == 1);
}

BOOST_AUTO_TEST_CASE(check_ranks_on_generated_jobs_strict_and_missing_ranks)
{
    TempDir dir;
    auto tool = [](const std::string& name) { return chakra_test::ToolPath(name); };
    // Issue 23 item 9: a generated pipeline-parallel job (send/recv carry the peer only) runs
    // in chakra-cluster; the checker accepts it too (it reported 24 mismatches).
    BOOST_REQUIRE(RunCommand(tool("chakra_generator") +
                             " --workload pipeline-parallel "
                             "--stages 4 --microbatches 3 --layers 4 "
                             "--output-prefix " +
                             dir.File("pp"))
                      .exitCode == 0);
    auto pp = RunCommand(CheckRanks() + " " + dir.File("pp"));
    BOOST_TEST(pp.exitCode == 0, pp.output);
    BOOST_TEST(pp.output.find("send/recv pairs matched: 18") != std::string::npos, pp.output);
    // Issue 30 item 6: the last rank's file missing; the traces say world_size 4.
    BOOST_REQUIRE(RunCommand(tool("chakra_generator") + " --ranks 4 --size 4KiB --output-prefix " +
                             dir.File("c"))
                      .exitCode == 0);
    std::remove(dir.File("c.3.et").c_str());
    auto missing = RunCommand(CheckRanks() + " " + dir.File("c"));
    BOOST_TEST(missing.exitCode == 1, missing.output);
    BOOST_TEST(missing.output.find("world_size is 4 but only ranks 0 .. 2 have a trace: "
                                   "missing ranks 3") != std::string::npos,
               missing.output);
    // Issue 23 item 4: an all-reduce without comm_size: a warning, an error with --strict.
    for (int rank = 0; rank < 2; ++rank)
    {
        WriteFileBytes(dir.File("s.json"),
                       R"({"format": "chakra-et-json", "format_version": 1, "metadata": )"
                       R"({"version": "0.0.4", "attr": [{"name": "world_size", "type": )"
                       R"("int64_val", "value": 2}]}, "nodes": [{"id": 7, "name": "ar", )"
                       R"("type": "COMM_COLL_NODE", "attr": [{"name": "comm_type", "type": )"
                       R"("int64_val", "value": 0}]}]})");
        BOOST_REQUIRE(RunCommand(tool("chakra_jsonizer") + " --quiet --reverse --input " +
                                 dir.File("s.json") + " --output " +
                                 dir.File("s." + std::to_string(rank) + ".et"))
                          .exitCode == 0);
    }
    auto lenient = RunCommand(CheckRanks() + " --quiet " + dir.File("s"));
    BOOST_TEST(lenient.exitCode == 0, lenient.output);
    BOOST_TEST(lenient.output.find("warning: " + dir.File("s.0.et") +
                                   ": 1 communication node without comm_size, which the "
                                   "simulator runs as 0 bytes: node 7") != std::string::npos,
               lenient.output);
    auto strict = RunCommand(CheckRanks() + " --strict " + dir.File("s"));
    BOOST_TEST(strict.exitCode == 1, strict.output);
    BOOST_TEST(strict.output.find("mismatch: " + dir.File("s.1.et") +
                                  ": 1 communication node without comm_size") != std::string::npos,
               strict.output);
}
