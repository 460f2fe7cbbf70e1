/*
 * Every shared real .et trace set runs to completion in the simulator, on as many ranks as it
 * has files. Skipped (exit 77) when ../shared/data is absent.
 */
#define BOOST_TEST_MODULE simulation_real_data
#include "chakra-test-data.h"
#include "simulation-util.h"

#include <boost/test/unit_test.hpp>
#include <map>
#include <regex>
#include <set>

using namespace ns3;

using RequireSharedData = chakra_test::RequireSharedData;
BOOST_TEST_GLOBAL_FIXTURE(RequireSharedData);

namespace
{

/** Trace sets: prefix -> number of rank files. */
std::map<std::string, uint32_t>
TraceSets()
{
    std::map<std::string, uint32_t> sets;
    std::regex rankFile("(.*)\\.([0-9]+)\\.et(\\.gz)?");
    for (const auto& file : chakra_test::SharedEtFiles())
    {
        std::smatch match;
        if (std::regex_match(file, match, rankFile))
        {
            ++sets[match[1].str()];
        }
    }
    return sets;
}

chakra_test::ClusterConfig
ClusterFor(uint32_t ranks)
{
    chakra_test::ClusterConfig config;
    config.gpusPerHost = ranks >= 8 ? 8 : ranks;
    config.hosts = ranks / config.gpusPerHost;
    return config;
}

} // namespace

BOOST_AUTO_TEST_CASE(every_shared_trace_set_runs_to_completion)
{
    auto sets = TraceSets();
    // 12 microbenchmark folders, the custom ring, the feeder-test trace.
    BOOST_TEST(sets.size() == 14u);
    for (const auto& [prefix, ranks] : sets)
    {
        BOOST_TEST_CONTEXT(prefix << " on " << ranks << " ranks")
        {
            chakra_test::ClusterConfig config = ClusterFor(ranks);
            const bool feederTrace = prefix.find("chakra-feeder-test") != std::string::npos;
            // The feeder-test trace is reference-converter output, whose ctrl_deps are call-tree
            // links with cycles: the default (CtrlDeps auto) recognises it and ignores them.
            ChakraReport report = chakra_test::RunCluster(prefix, config);
            BOOST_TEST(report.AllFinished());
            BOOST_TEST(report.GetRanks().size() == ranks);
            for (const auto& rank : report.GetRanks())
            {
                BOOST_TEST(rank.error.empty(), rank.error);
            }
            if (feederTrace)
            {
                // 14 of its 21 COMM_COLL nodes have no comm_type: replayed with a warning.
                const auto& warnings = report.GetRanks()[0].warnings;
                bool warned = false;
                bool recognised = false;
                for (const auto& w : warnings)
                {
                    warned = warned || w.find("COMM_COLL without comm_type") != std::string::npos;
                    recognised =
                        recognised ||
                        w.find("written by the reference Chakra converter") != std::string::npos;
                }
                BOOST_TEST(warned);
                BOOST_TEST(recognised);
                std::size_t simulated = report.GetCollectives().size();
                BOOST_TEST(simulated == 7u); // 5 ALL_REDUCE + 2 BROADCAST on a communicator of 1
                BOOST_TEST(report.GetRanks()[0].nodes == 3664u);
            }
        }
    }
}

BOOST_AUTO_TEST_CASE(reference_converter_ctrl_deps_honoured_on_request_end_in_a_cycle)
{
    const std::string prefix = chakra_test::SharedData("et/chakra-feeder-test/chakra");
    chakra_test::ClusterConfig config = ClusterFor(1);
    config.appAttributes = {{"CtrlDeps", "honour"}};
    ChakraReport report = chakra_test::RunCluster(prefix, config);
    BOOST_TEST(!report.AllFinished());
    const std::string error = report.GetRanks()[0].error;
    BOOST_TEST_INFO(error);
    // It stops at the first impossible ctrl dependency (node 3322 names itself; there are
    // cycles too) and says what ctrl_deps mean in such a trace.
    BOOST_TEST(error.find("ctrl_deps") != std::string::npos);
    BOOST_TEST(error.find("call-tree links") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(custom_ring_allreduce_moves_the_ring_volume)
{
    const std::string prefix =
        chakra_test::SharedData("et/astra-custom-ring-allreduce-8npus/custom_allreduce");
    ChakraReport report = chakra_test::RunCluster(prefix, ClusterFor(8));
    BOOST_REQUIRE(report.AllFinished());
    // 2(n-1) sends and receives of S/n per rank.
    std::map<std::string, uint64_t> bytes;
    for (const auto& record : report.GetCommRecords())
    {
        bytes[record.kind] += record.bytes;
    }
    BOOST_TEST(bytes["SEND"] == 8u * 14 * (1u << 17));
    BOOST_TEST(bytes["RECV"] == 8u * 14 * (1u << 17));
}
