/*
 * EtFeeder on the shared real traces. Skipped (exit 77) when ../shared/data is absent.
 */
#define BOOST_TEST_MODULE et_feeder_real_data
#include "chakra-test-data.h"

#include "ns3/et-feeder.h"
#include "ns3/et-summary.h"
#include "ns3/trace-error.h"

#include <boost/test/unit_test.hpp>
#include <set>

using namespace ns3;

using RequireSharedData = chakra_test::RequireSharedData;
BOOST_TEST_GLOBAL_FIXTURE(RequireSharedData);

namespace
{

/**
 * Feeds a trace and returns the issue order: serially (each node finished before the next is
 * asked for) or in batches (every ready node issued, then the batch finished).
 */
std::vector<uint64_t>
Feed(const std::string& path,
     EtFeederOptions options,
     std::size_t* warnings = nullptr,
     bool serial = false)
{
    std::size_t count = 0;
    options.warn = [&](const std::string&) { ++count; };
    EtFeeder feeder(path, options);
    std::vector<uint64_t> order;
    std::vector<uint64_t> inFlight;
    while (feeder.HasNodesToIssue() || !inFlight.empty())
    {
        // Issue everything ready, then finish in issue order: several nodes in flight.
        while (feeder.HasNodesToIssue())
        {
            auto node = feeder.GetNextIssuableNode();
            order.push_back(node->GetId());
            inFlight.push_back(node->GetId());
            if (serial)
            {
                break;
            }
        }
        for (uint64_t id : inFlight)
        {
            feeder.FreeChildrenNodes(id);
            feeder.RemoveNode(id);
        }
        inFlight.clear();
    }
    BOOST_TEST(feeder.IsDone());
    if (warnings != nullptr)
    {
        *warnings = count;
    }
    return order;
}

const std::string kFeederTrace = "et/chakra-feeder-test/chakra.0.et.gz";

} // namespace

BOOST_AUTO_TEST_CASE(every_shared_trace_feeds_to_completion)
{
    for (const auto& file : chakra_test::SharedEtFiles())
    {
        BOOST_TEST_CONTEXT(file)
        {
            EtFeederOptions options;
            options.windowSize = 64;
            // The reference converter's ctrl_deps in this trace are call-tree links with
            // cycles and deleted targets (see feeder_trace_ctrl_deps_are_not_dependencies).
            options.honourCtrlDeps = file.find("chakra-feeder-test") == std::string::npos;
            std::vector<uint64_t> order = Feed(file, options);
            BOOST_TEST(order.size() == SummarizeEt(file).nodes);
            BOOST_TEST(std::set<uint64_t>(order.begin(), order.end()).size() == order.size());
        }
    }
}

BOOST_AUTO_TEST_CASE(feeder_trace_small_window_gives_the_unbounded_order)
{
    EtFeederOptions options;
    options.honourCtrlDeps = false;
    options.windowSize = 1u << 30;
    std::vector<uint64_t> unbounded =
        Feed(chakra_test::SharedData(kFeederTrace), options, nullptr, true);
    BOOST_TEST(unbounded.size() == 3664u);
    for (std::size_t window : {1, 10, 100, 1000})
    {
        options.windowSize = window;
        BOOST_TEST_CONTEXT("window " << window)
        {
            BOOST_TEST(Feed(chakra_test::SharedData(kFeederTrace), options, nullptr, true) ==
                       unbounded);
        }
    }
    // With many nodes in flight the order is the same once the window holds the trace.
    options.windowSize = 3664;
    std::vector<uint64_t> batched = Feed(chakra_test::SharedData(kFeederTrace), options);
    options.windowSize = 1u << 30;
    BOOST_TEST(Feed(chakra_test::SharedData(kFeederTrace), options) == batched);
}

BOOST_AUTO_TEST_CASE(feeder_trace_ctrl_deps_are_not_dependencies)
{
    // In this reference-converter output, ctrl_deps name deleted nodes (1,277 references to ids
    // not in the file), the node itself (3322 is the first of 383 such nodes, all through
    // ctrl_deps, none through data_deps) and GPU children (3317 <-> 3318): honoured, they
    // cannot be met, and the error names the first node that waits for itself and the way out.
    std::string error;
    try
    {
        Feed(chakra_test::SharedData(kFeederTrace), EtFeederOptions());
    }
    catch (const TraceError& e)
    {
        error = e.what();
    }
    BOOST_TEST_INFO(error);
    BOOST_TEST(error.find("node 3322 (aten::threshold_backward(1)): lists itself in ctrl_deps") !=
               std::string::npos);
    BOOST_TEST(error.find("switch ctrl_deps off") != std::string::npos);
    // Dangling ids as satisfied is not enough.
    EtFeederOptions lenient;
    lenient.danglingAsSatisfied = true;
    BOOST_CHECK_THROW(Feed(chakra_test::SharedData(kFeederTrace), lenient), TraceError);
    // With control dependencies off (as the reference feeder does) the trace completes.
    EtFeederOptions dataOnly;
    dataOnly.honourCtrlDeps = false;
    BOOST_TEST(Feed(chakra_test::SharedData(kFeederTrace), dataOnly).size() == 3664u);
}
