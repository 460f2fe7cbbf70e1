/*
 * The converter's speed on the shared resnet host trace (issue 23: 0.54-0.77 s, goal 0.5 s),
 * measured against a yardstick run in the same process on the same machine: nlohmann/json's
 * parse of the same text into a DOM, which reads and builds every value once. Reading the
 * trace and converting it to a .et must cost well under that (it cost more before the
 * converter had its own JSON reader). CPU time, best of three, so that other processes on a
 * shared machine count little. Skipped without the shared traces (exit 77); the check itself is
 * skipped in sanitizer and unoptimized builds, whose slowdowns differ between the two sides.
 */
#define BOOST_TEST_MODULE converter_speed_real_data
#include "chakra-test-data.h"

#include "ns3/pytorch-trace.h"
#include "ns3/trace-converter.h"
#include "ns3/trace-file.h"

#include <boost/test/unit_test.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <ctime>
#include <functional>

using namespace ns3;

using RequireSharedData = chakra_test::RequireSharedData;
BOOST_TEST_GLOBAL_FIXTURE(RequireSharedData);

namespace
{

/** \return the least CPU time of \p rounds runs of \p work, seconds */
double
BestCpuSeconds(const std::function<void()>& work, int rounds)
{
    double best = 1e30;
    for (int round = 0; round < rounds; ++round)
    {
        timespec start{};
        timespec end{};
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &start);
        work();
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &end);
        best = std::min(best, static_cast<double>(end.tv_sec - start.tv_sec) +
                                  static_cast<double>(end.tv_nsec - start.tv_nsec) / 1e9);
    }
    return best;
}

#if defined(__SANITIZE_ADDRESS__) || !defined(__OPTIMIZE__)
constexpr bool kTimingMeaningful = false;
#else
constexpr bool kTimingMeaningful = true;
#endif

/** Runs per measurement: the best of three where the time is checked, else one. */
constexpr int kRounds = kTimingMeaningful ? 3 : 1;

} // namespace

BOOST_AUTO_TEST_CASE(reading_and_converting_resnet_costs_well_under_a_dom_parse)
{
    const std::string path =
        chakra_test::SharedData("host-only/param-resnet/resnet_et_1.1.0.json.gz");
    const std::string text = ReadWholeFile(path);
    chakra_test::TempDir dir;
    const std::string output = dir.File("resnet.et");
    std::size_t nodes = 0;
    const double convert = BestCpuSeconds(
        [&]() {
            const PyTorchTrace trace = PyTorchTrace::Parse(text, path);
            nodes = TraceConverter().Convert(trace, output).inputNodes;
        },
        kRounds);
    std::size_t domNodes = 0;
    const double dom = BestCpuSeconds(
        [&]() { domNodes = nlohmann::json::parse(text)["nodes"].size(); },
        kRounds);
    BOOST_TEST(nodes == 14392u); // PROVENANCE.md
    BOOST_TEST(domNodes == nodes);
    BOOST_TEST_MESSAGE("resnet host trace, CPU: parse and convert " << convert
                                                                    << " s; nlohmann DOM parse "
                                                                    << dom << " s");
    if (!kTimingMeaningful)
    {
        BOOST_TEST_MESSAGE("sanitizer or unoptimized build: the timing is not checked");
        return;
    }
    // Measured (doc/benchmarks.md): 1.09 x the DOM parse before, 0.5 x after.
    BOOST_TEST(convert < 0.75 * dom, "parse and convert " << convert << " s, DOM parse " << dom
                                                          << " s");
}
