/*
 * chakra_replay end to end on the shared real traces. Skipped (exit 77) when ../shared/data is
 * absent.
 */
#define BOOST_TEST_MODULE replay_real_data
#include "chakra-test-data.h"

#include "ns3/replay-pipeline.h"
#include "ns3/trace-error.h"

#include <boost/test/unit_test.hpp>

#include <fstream>

using namespace ns3;
using chakra_test::RunCommand;
using chakra_test::TempDir;

using RequireSharedData = chakra_test::RequireSharedData;
BOOST_TEST_GLOBAL_FIXTURE(RequireSharedData);

namespace
{


std::string
Replay(const std::string& arguments)
{
    return chakra_test::ToolPath("chakra_replay") + " " + arguments;
}

} // namespace
BOOST_AUTO_TEST_CASE(dlrm_eight_ranks_end_to_end_with_validation)
{
    TempDir out;
    auto result = RunCommand(Replay("--traces " +
                                    chakra_test::SharedData("host-device/param-dlrm-8rank") +
                                    " --output " + out.Path() +
                                    " --hosts 1 --gpus-per-host 8 --timeline --quiet"));
    BOOST_TEST_INFO(result.output);
    BOOST_REQUIRE(result.exitCode == 0);
    for (const char* file : {"report.txt", "ranks.csv", "collectives.csv", "comm-ops.csv",
                             "validation.csv", "timeline.json", "et/trace.7.et"})
    {
        BOOST_TEST(chakra_test::FileExists(out.File(file)), file);
    }
    // The iteration measured by Kineto (ProfilerStep#10) is beside the simulated one, and
    // every one of the 8 collective calls (5 all-to-all, 3 all-reduce) has its kernel time.
    BOOST_TEST(result.output.find("measured") != std::string::npos);
    BOOST_TEST(result.output.find("(ProfilerStep#10)") != std::string::npos);
    std::string validation = chakra_test::ReadFileBytes(out.File("validation.csv"));
    std::size_t alltoall = 0;
    std::size_t allreduce = 0;
    std::istringstream lines(validation);
    for (std::string line; std::getline(lines, line);)
    {
        alltoall += line.rfind("collective,ALL_TO_ALL", 0) == 0;
        allreduce += line.rfind("collective,ALL_REDUCE", 0) == 0;
        if (line.rfind("collective", 0) == 0)
        {
            // measured_us is the 7th field and positive
            std::vector<std::string> fields;
            std::istringstream cells(line);
            for (std::string cell; std::getline(cells, cell, ',');)
            {
                fields.push_back(cell);
            }
            BOOST_REQUIRE(fields.size() >= 7u);
            BOOST_TEST(std::stod(fields[6]) > 0.0);
        }
    }
    BOOST_TEST(alltoall == 5u);
    BOOST_TEST(allreduce == 3u);
}

BOOST_AUTO_TEST_CASE(gloo_pair_and_resnet_host_trace_run)
{
    TempDir out;
    auto gloo = RunCommand(Replay("--traces " + chakra_test::SharedData("host-device/torch113-gloo") +
                                  " --output " + out.File("gloo") + " --quiet"));
    BOOST_TEST_INFO(gloo.output);
    BOOST_TEST(gloo.exitCode == 0);
    BOOST_TEST(gloo.output.find("ranks 2, finished 2/2") != std::string::npos);
    auto resnet = RunCommand(Replay("--traces " + chakra_test::SharedData("host-only/param-resnet") +
                                    " --output " + out.File("resnet") + " --quiet"));
    BOOST_TEST_INFO(resnet.output);
    BOOST_TEST(resnet.exitCode == 0);
    BOOST_TEST(resnet.output.find("collectives 21") != std::string::npos);
}
