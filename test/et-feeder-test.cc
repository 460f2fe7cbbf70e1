/*
 * EtFeeder on generated traces: property tests on random DAGs with random issue/finish
 * interleavings and window sizes, and the stuck cases (dangling ids, cycles, duplicates).
 */
#define BOOST_TEST_MODULE et_feeder
#include "chakra-test-data.h"

#include "ns3/compact-id-set.h"
#include "ns3/et-feeder.h"
#include "ns3/et-node-store.h"
#include "ns3/et-writer.h"
#include "ns3/trace-error.h"

#include <algorithm>
#include <boost/test/unit_test.hpp>
#include <map>
#include <random>
#include <set>

using namespace ns3;
using chakra_test::TempDir;

namespace
{

/** A generated DAG: the nodes in file order with their parents. */
struct Dag
{
    struct Node
    {
        uint64_t id;
        std::vector<uint64_t> dataDeps;
        std::vector<uint64_t> ctrlDeps;
    };

    std::vector<Node> nodes; //!< in file order
};

/**
 * Random DAG of n nodes: ids with random gaps, 0-4 data parents among the previous `span`
 * nodes, sometimes a control parent; optionally the file order shuffled locally (so parents can
 * come after their children in the file).
 */
Dag
RandomDag(std::size_t n, std::mt19937_64& rng, std::size_t span, bool shuffle)
{
    Dag dag;
    std::vector<uint64_t> ids;
    uint64_t id = rng() % 100;
    for (std::size_t i = 0; i < n; ++i)
    {
        ids.push_back(id);
        id += 1 + (rng() % 8 == 0 ? rng() % 5 : 0);
    }
    for (std::size_t i = 0; i < n; ++i)
    {
        Dag::Node node{ids[i], {}, {}};
        std::size_t lo = i > span ? i - span : 0;
        if (i > 0)
        {
            std::size_t k = rng() % 5;
            for (std::size_t j = 0; j < k; ++j)
            {
                node.dataDeps.push_back(ids[lo + rng() % (i - lo)]);
            }
            if (rng() % 3 == 0)
            {
                node.ctrlDeps.push_back(ids[lo + rng() % (i - lo)]);
            }
        }
        dag.nodes.push_back(node);
    }
    if (shuffle)
    {
        for (std::size_t i = 0; i + 1 < n; i += 1 + rng() % 3)
        {
            std::swap(dag.nodes[i], dag.nodes[std::min(n - 1, i + 1 + rng() % 20)]);
        }
    }
    return dag;
}

void
WriteDag(const Dag& dag, const std::string& path)
{
    ChakraProtoMsg::GlobalMetadata metadata;
    metadata.set_version("0.0.4");
    EtWriter writer(path, metadata);
    ChakraProtoMsg::Node proto;
    for (const auto& node : dag.nodes)
    {
        proto.Clear();
        proto.set_id(node.id);
        proto.set_name("n" + std::to_string(node.id));
        proto.set_type(ChakraProtoMsg::COMP_NODE);
        for (uint64_t d : node.dataDeps)
        {
            proto.add_data_deps(d);
        }
        for (uint64_t d : node.ctrlDeps)
        {
            proto.add_ctrl_deps(d);
        }
        writer.WriteNode(proto);
    }
    writer.Commit();
}

/** What a run of the caller's loop observed. */
struct RunResult
{
    std::vector<uint64_t> issueOrder; //!< ids in the order they were issued (and kept)
    std::size_t violations{0};        //!< nodes issued before a parent finished
    std::size_t duplicates{0};        //!< nodes issued twice
    std::size_t maxLoaded{0};         //!< peak of GetLoadedCount()
    bool done{false};                 //!< IsDone() at the end
};

/**
 * Runs the caller's loop with random interleavings: up to maxInFlight nodes running, finished
 * in random order, some taken nodes pushed back.
 */
RunResult
Run(const Dag& dag,
    const std::string& path,
    EtFeederOptions options,
    std::mt19937_64& rng,
    std::size_t maxInFlight)
{
    std::map<uint64_t, const Dag::Node*> byId;
    for (const auto& node : dag.nodes)
    {
        byId[node.id] = &node;
    }
    RunResult result;
    EtFeeder feeder(path, options);
    std::set<uint64_t> finished;
    std::set<uint64_t> issued;
    std::vector<uint64_t> inFlight;
    for (;;)
    {
        bool canIssue = inFlight.size() < maxInFlight && feeder.HasNodesToIssue();
        if (canIssue && (inFlight.empty() || rng() % 2 == 0))
        {
            auto node = feeder.GetNextIssuableNode();
            BOOST_REQUIRE(node);
            if (rng() % 16 == 0)
            {
                feeder.PushBackIssuableNode(node->GetId());
                continue;
            }
            const Dag::Node& expected = *byId.at(node->GetId());
            std::vector<uint64_t> parents;
            if (options.honourDataDeps)
            {
                parents.insert(parents.end(), expected.dataDeps.begin(), expected.dataDeps.end());
            }
            if (options.honourCtrlDeps)
            {
                parents.insert(parents.end(), expected.ctrlDeps.begin(), expected.ctrlDeps.end());
            }
            for (uint64_t parent : parents)
            {
                result.violations += finished.count(parent) == 0;
            }
            result.duplicates += !issued.insert(node->GetId()).second;
            result.issueOrder.push_back(node->GetId());
            inFlight.push_back(node->GetId());
        }
        else if (!inFlight.empty())
        {
            std::size_t pick = rng() % inFlight.size();
            uint64_t id = inFlight[pick];
            inFlight.erase(inFlight.begin() + static_cast<std::ptrdiff_t>(pick));
            BOOST_REQUIRE(feeder.LookupNode(id));
            feeder.FreeChildrenNodes(id);
            feeder.RemoveNode(id);
            finished.insert(id);
        }
        else
        {
            break;
        }
        result.maxLoaded = std::max(result.maxLoaded, feeder.GetLoadedCount());
    }
    result.done = feeder.IsDone();
    BOOST_TEST(finished.size() == dag.nodes.size());
    return result;
}

std::string
FeedError(const std::string& path, EtFeederOptions options = EtFeederOptions())
{
    try
    {
        EtFeeder feeder(path, options);
        while (feeder.HasNodesToIssue())
        {
            auto node = feeder.GetNextIssuableNode();
            feeder.FreeChildrenNodes(node->GetId());
            feeder.RemoveNode(node->GetId());
        }
    }
    catch (const TraceError& e)
    {
        return e.what();
    }
    return "";
}

/** Writes a trace from (id, data deps) pairs. */
void
WriteSimple(const std::string& path,
            const std::vector<std::pair<uint64_t, std::vector<uint64_t>>>& nodes)
{
    Dag dag;
    for (const auto& [id, deps] : nodes)
    {
        dag.nodes.push_back({id, deps, {}});
    }
    WriteDag(dag, path);
}

/** What a scripted run observed: every call's outcome, in order. */
struct Script
{
    std::vector<uint64_t> order;  //!< issued ids (pushed-back ones included when re-issued)
    std::vector<std::string> log; //!< issues, push-backs, finishes, loaded counts, warnings
    std::string error;            //!< the TraceError text, if any
};

/**
 * Drives a feeder deterministically: takes ready nodes while fewer than maxInFlight run
 * (the third one taken is pushed back once), then finishes the oldest (or, if lifo, the
 * newest) running node and removes it.
 */
Script
Drive(bool fromStore,
      const std::string& path,
      EtFeederOptions options,
      std::size_t maxInFlight,
      bool lifo)
{
    Script script;
    options.warn = [&script](const std::string& text) { script.log.push_back("warn " + text); };
    try
    {
        std::unique_ptr<EtFeeder> feeder =
            fromStore ? std::make_unique<EtFeeder>(
                            std::make_shared<const EtNodeStore>(path, EtNodeStore::TrimFn()),
                            options)
                      : std::make_unique<EtFeeder>(path, options);
        std::vector<uint64_t> running;
        std::size_t taken = 0;
        for (;;)
        {
            while (running.size() < maxInFlight && feeder->HasNodesToIssue())
            {
                uint64_t id = feeder->GetNextIssuableNode()->GetId();
                if (++taken == 3)
                {
                    feeder->PushBackIssuableNode(id);
                    script.log.push_back("back " + std::to_string(id));
                    continue;
                }
                script.order.push_back(id);
                running.push_back(id);
                script.log.push_back("issue " + std::to_string(id) + " loaded " +
                                     std::to_string(feeder->GetLoadedCount()) + " read " +
                                     std::to_string(feeder->GetNodesRead()));
            }
            if (running.empty())
            {
                break;
            }
            uint64_t id = lifo ? running.back() : running.front();
            running.erase(lifo ? running.end() - 1 : running.begin());
            BOOST_TEST_REQUIRE(feeder->LookupNode(id)->GetId() == id);
            feeder->FreeChildrenNodes(id);
            feeder->RemoveNode(id);
            BOOST_TEST(!feeder->LookupNode(id));
            script.log.push_back("finish " + std::to_string(id) + " loaded " +
                                 std::to_string(feeder->GetLoadedCount()));
        }
        script.log.push_back("done " + std::to_string(feeder->IsDone()) + " finished " +
                             std::to_string(feeder->GetNodesFinished()));
    }
    catch (const TraceError& e)
    {
        script.error = e.what();
    }
    return script;
}

/** Drives the file mode and the store mode alike; requires the same observations. */
Script
DriveBoth(const std::string& path,
          EtFeederOptions options,
          std::size_t maxInFlight,
          bool lifo = false)
{
    Script file = Drive(false, path, options, maxInFlight, lifo);
    Script store = Drive(true, path, options, maxInFlight, lifo);
    BOOST_TEST(file.order == store.order);
    BOOST_TEST(file.log == store.log, "logs differ");
    BOOST_TEST(file.error == store.error);
    return store;
}

} // namespace

BOOST_AUTO_TEST_SUITE(properties)

BOOST_AUTO_TEST_CASE(random_dags_random_interleavings)
{
    TempDir dir;
    std::mt19937_64 rng(20261122);
    std::size_t cases = 0;
    const std::vector<std::size_t> sizes = chakra_test::QuickMode()
                                               ? std::vector<std::size_t>{1, 2, 5, 64, 1000}
                                               : std::vector<std::size_t>{1, 2, 5, 64, 1000, 20000};
    for (std::size_t n : sizes)
    {
        for (bool shuffle : {false, true})
        {
            Dag dag = RandomDag(n, rng, 50, shuffle);
            WriteDag(dag, dir.File("dag.et"));
            for (std::size_t window : {std::size_t(1), std::size_t(3), std::size_t(64), n + 10})
            {
                for (std::size_t inFlight : {1, 4, 32})
                {
                    EtFeederOptions options;
                    options.windowSize = window;
                    BOOST_TEST_CONTEXT("n=" << n << " shuffle=" << shuffle << " window=" << window
                                            << " inFlight=" << inFlight)
                    {
                        RunResult r = Run(dag, dir.File("dag.et"), options, rng, inFlight);
                        BOOST_TEST(r.issueOrder.size() == n);
                        BOOST_TEST(r.violations == 0u);
                        BOOST_TEST(r.duplicates == 0u);
                        BOOST_TEST(r.done);
                        std::set<uint64_t> expected;
                        for (const auto& node : dag.nodes)
                        {
                            expected.insert(node.id);
                        }
                        BOOST_TEST((std::set<uint64_t>(r.issueOrder.begin(), r.issueOrder.end()) ==
                                    expected));
                    }
                    ++cases;
                }
            }
        }
    }
    BOOST_TEST(cases == sizes.size() * 2 * 4 * 3);
}

BOOST_AUTO_TEST_CASE(one_million_nodes_small_window_bounded_memory)
{
    TempDir dir;
    std::mt19937_64 rng(7);
    // (Quick mode: 100,000 nodes, still 24 windows' worth.)
    const std::size_t n = chakra_test::QuickMode() ? 100000 : 1000000;
    Dag dag = RandomDag(n, rng, 1000, false);
    WriteDag(dag, dir.File("big.et.gz"));
    EtFeederOptions options;
    options.windowSize = 4096;
    RunResult r = Run(dag, dir.File("big.et.gz"), options, rng, 16);
    BOOST_TEST(r.issueOrder.size() == n);
    BOOST_TEST(r.violations == 0u);
    BOOST_TEST(r.duplicates == 0u);
    BOOST_TEST(r.done);
    // Parents always precede children in this file: the window is never exceeded.
    BOOST_TEST(r.maxLoaded <= options.windowSize);
}

/** Issue order of the one-node-at-a-time loop (finish each node before the next). */
std::vector<uint64_t>
SerialOrder(const std::string& path, std::size_t window)
{
    EtFeederOptions options;
    options.windowSize = window;
    EtFeeder feeder(path, options);
    std::vector<uint64_t> order;
    while (feeder.HasNodesToIssue())
    {
        auto node = feeder.GetNextIssuableNode();
        order.push_back(node->GetId());
        feeder.FreeChildrenNodes(node->GetId());
        feeder.RemoveNode(node->GetId());
    }
    return order;
}

BOOST_AUTO_TEST_CASE(issue_order_does_not_depend_on_the_window_for_ascending_ids)
{
    TempDir dir;
    std::mt19937_64 rng(99);
    Dag dag = RandomDag(5000, rng, 200, false);
    WriteDag(dag, dir.File("dag.et"));
    std::vector<uint64_t> unbounded = SerialOrder(dir.File("dag.et"), 100000);
    BOOST_TEST(unbounded.size() == 5000u);
    // The lowest ready id each time: check against the definition on the DAG itself.
    std::set<uint64_t> finished;
    for (uint64_t id : unbounded)
    {
        for (const auto& node : dag.nodes)
        {
            if (finished.count(node.id) != 0 || node.id >= id)
            {
                continue;
            }
            bool ready = true;
            for (uint64_t p : node.dataDeps)
            {
                ready = ready && finished.count(p) != 0;
            }
            for (uint64_t p : node.ctrlDeps)
            {
                ready = ready && finished.count(p) != 0;
            }
            BOOST_TEST_REQUIRE(!ready, "node " << node.id << " was ready before " << id);
        }
        finished.insert(id);
        if (finished.size() > 300)
        {
            break; // the check is quadratic; the prefix is enough
        }
    }
    for (std::size_t window : {std::size_t(1), std::size_t(7), std::size_t(500)})
    {
        BOOST_TEST(SerialOrder(dir.File("dag.et"), window) == unbounded);
    }
}

BOOST_AUTO_TEST_CASE(many_in_flight_order_matches_when_the_trace_fits_the_window)
{
    TempDir dir;
    std::mt19937_64 rng(11);
    Dag dag = RandomDag(3000, rng, 100, false);
    WriteDag(dag, dir.File("dag.et"));
    std::vector<std::vector<uint64_t>> orders;
    for (std::size_t window : {std::size_t(3000), std::size_t(1000000)})
    {
        std::mt19937_64 callerRng(5); // the same caller behaviour for both
        EtFeederOptions options;
        options.windowSize = window;
        orders.push_back(Run(dag, dir.File("dag.et"), options, callerRng, 8).issueOrder);
    }
    BOOST_TEST(orders[0] == orders[1]);
}

BOOST_AUTO_TEST_CASE(lowest_ready_id_first)
{
    TempDir dir;
    // 3 and 2 both wait for 1 (3 is read first); 4 waits for 2 and 3.
    WriteSimple(dir.File("t.et"), {{1, {}}, {3, {1}}, {2, {1}}, {4, {2, 3}}});
    EtFeeder feeder(dir.File("t.et"));
    BOOST_REQUIRE(feeder.HasNodesToIssue());
    auto first = feeder.GetNextIssuableNode();
    BOOST_TEST(first->GetId() == 1u);
    BOOST_TEST(!feeder.HasNodesToIssue()); // reads 3, 2, 4: all wait for 1
    feeder.FreeChildrenNodes(1);
    std::vector<uint64_t> order;
    while (feeder.HasNodesToIssue())
    {
        auto node = feeder.GetNextIssuableNode();
        order.push_back(node->GetId());
        feeder.FreeChildrenNodes(node->GetId());
        feeder.RemoveNode(node->GetId());
    }
    BOOST_TEST(order == std::vector<uint64_t>({2, 3, 4}));
    BOOST_TEST(feeder.IsDone());
}

BOOST_AUTO_TEST_CASE(ctrl_and_data_deps_can_each_be_switched_off)
{
    TempDir dir;
    Dag dag;
    dag.nodes = {{1, {}, {}}, {2, {}, {1}}, {3, {1}, {}}};
    WriteDag(dag, dir.File("t.et"));
    for (bool data : {true, false})
    {
        for (bool ctrl : {true, false})
        {
            EtFeederOptions options;
            options.honourDataDeps = data;
            options.honourCtrlDeps = ctrl;
            EtFeeder feeder(dir.File("t.et"), options);
            std::set<uint64_t> ready;
            while (feeder.HasNodesToIssue())
            {
                ready.insert(feeder.GetNextIssuableNode()->GetId());
            }
            // Node 2 waits for 1 only through ctrl_deps, node 3 only through data_deps.
            BOOST_TEST(ready.count(2) == !ctrl);
            BOOST_TEST(ready.count(3) == !data);
            BOOST_TEST(ready.count(1) == 1u);
        }
    }
}

BOOST_AUTO_TEST_CASE(trim_changes_each_node_once_before_on_read_and_before_it_is_held)
{
    // What the replay uses to drop unsimulated fields (DropUnsimulatedFields): the trim runs
    // once per node, in file order, and both onRead and the held node see its result.
    TempDir dir;
    WriteSimple(dir.File("t.et"), {{1, {}}, {2, {1}}, {3, {1}}});
    std::vector<uint64_t> trimmed;
    std::vector<uint64_t> readDurations;
    EtFeederOptions options;
    options.trim = [&](ChakraProtoMsg::Node& node) {
        trimmed.push_back(node.id());
        node.set_duration_micros(10 * node.id());
    };
    options.onRead = [&](const EtNode& node) { readDurations.push_back(node.GetDurationMicros()); };
    EtFeeder feeder(dir.File("t.et"), options);
    std::vector<uint64_t> heldDurations;
    while (feeder.HasNodesToIssue())
    {
        auto node = feeder.GetNextIssuableNode();
        heldDurations.push_back(node->GetDurationMicros());
        feeder.FreeChildrenNodes(node->GetId());
        feeder.RemoveNode(node->GetId());
    }
    BOOST_TEST(feeder.IsDone());
    BOOST_TEST(trimmed == std::vector<uint64_t>({1, 2, 3}));
    BOOST_TEST(readDurations == std::vector<uint64_t>({10, 20, 30}));
    BOOST_TEST(heldDurations == std::vector<uint64_t>({10, 20, 30}));
}

BOOST_AUTO_TEST_CASE(lookup_and_misuse)
{
    TempDir dir;
    WriteSimple(dir.File("t.et"), {{1, {}}, {2, {1}}});
    EtFeeder feeder(dir.File("t.et"));
    BOOST_CHECK_THROW(feeder.PushBackIssuableNode(1), std::logic_error);
    BOOST_REQUIRE(feeder.HasNodesToIssue());
    BOOST_TEST(!feeder.LookupNode(2)); // not read yet: nodes are read on demand
    auto node = feeder.GetNextIssuableNode();
    BOOST_CHECK_THROW(feeder.RemoveNode(1), std::logic_error); // not finished
    BOOST_TEST(!feeder.HasNodesToIssue());                     // 2 waits for 1 in flight
    BOOST_TEST(feeder.GetInFlightCount() == 1u);
    BOOST_REQUIRE(feeder.LookupNode(2));
    BOOST_TEST(feeder.LookupNode(2)->GetDataDeps().size() == 1);
    BOOST_TEST(!feeder.LookupNode(77));
    BOOST_CHECK_THROW(feeder.FreeChildrenNodes(2), std::logic_error); // not issued
    feeder.FreeChildrenNodes(1);
    BOOST_CHECK_THROW(feeder.FreeChildrenNodes(1), std::logic_error); // twice
    BOOST_TEST(feeder.HasNodesToIssue());
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(stuck_and_bad_input)

BOOST_AUTO_TEST_CASE(dangling_dependency_is_reported_not_hung)
{
    TempDir dir;
    WriteSimple(dir.File("t.et"), {{1, {}}, {2, {1, 99}}, {3, {2}}});
    std::string error = FeedError(dir.File("t.et"));
    BOOST_TEST_INFO(error);
    BOOST_TEST(error.find(dir.File("t.et") + ": ") == 0u);
    BOOST_TEST(error.find("2 nodes can never run") != std::string::npos);
    BOOST_TEST(error.find("node 2 (n2) waits for id 99 which never appears") != std::string::npos);

    EtFeeder feeder(dir.File("t.et"));
    auto stuck = feeder.GetStuckNodes();
    BOOST_REQUIRE(stuck.size() == 2u);
    BOOST_TEST(stuck[0].id == 2u);
    BOOST_TEST(stuck[0].missing == std::vector<uint64_t>({99}));
    BOOST_TEST(stuck[1].id == 3u);
    BOOST_TEST(stuck[1].waitingFor == std::vector<uint64_t>({2}));
}

BOOST_AUTO_TEST_CASE(dangling_dependency_as_satisfied_warns_and_completes)
{
    TempDir dir;
    // 5 -> a smaller missing id (decided on the spot), 6 -> a larger one (decided at the end).
    WriteSimple(dir.File("t.et"), {{3, {}}, {5, {4}}, {6, {1000}}, {7, {5, 6}}});
    for (std::size_t window : {std::size_t(1), std::size_t(100)})
    {
        std::vector<std::string> warnings;
        EtFeederOptions options;
        options.windowSize = window;
        options.danglingAsSatisfied = true;
        options.warn = [&](const std::string& w) { warnings.push_back(w); };
        BOOST_TEST(FeedError(dir.File("t.et"), options) == "");
        BOOST_REQUIRE(warnings.size() == 2u);
        BOOST_TEST(warnings[0].find("node 5 depends on id 4") != std::string::npos);
        BOOST_TEST(warnings[1].find("node 6 depends on id 1000") != std::string::npos);
    }
}

BOOST_AUTO_TEST_CASE(cycle_is_reported_with_its_ids)
{
    TempDir dir;
    WriteSimple(dir.File("t.et"), {{1, {}}, {2, {1, 4}}, {3, {2}}, {4, {3}}, {5, {4}}});
    std::string error = FeedError(dir.File("t.et"));
    BOOST_TEST_INFO(error);
    BOOST_TEST(error.find("dependency cycle:") != std::string::npos);
    // The cycle 2 -> 4 -> 3 -> 2 (each waits for the next), in some rotation.
    BOOST_TEST(error.find("never appear") == std::string::npos);
    EtFeeder feeder(dir.File("t.et"));
    auto cycle = feeder.FindCycle();
    BOOST_REQUIRE(cycle.size() == 3u);
    std::set<uint64_t> members(cycle.begin(), cycle.end());
    BOOST_TEST((members == std::set<uint64_t>{2, 3, 4}));
    // Each waits for the next.
    std::map<uint64_t, uint64_t> waitsFor = {{2, 4}, {4, 3}, {3, 2}};
    for (std::size_t i = 0; i < cycle.size(); ++i)
    {
        BOOST_TEST(waitsFor[cycle[i]] == cycle[(i + 1) % cycle.size()]);
    }
}

BOOST_AUTO_TEST_CASE(long_chain_cycle_search_does_not_recurse)
{
    TempDir dir;
    // 200,000 nodes in one chain closed into a cycle: a recursive search would overflow.
    std::vector<std::pair<uint64_t, std::vector<uint64_t>>> nodes;
    const uint64_t n = 200000;
    for (uint64_t id = 0; id < n; ++id)
    {
        nodes.push_back({id, {id == 0 ? n - 1 : id - 1}});
    }
    WriteSimple(dir.File("t.et"), nodes);
    EtFeeder feeder(dir.File("t.et"));
    BOOST_TEST(feeder.FindCycle().size() == n);
}

BOOST_AUTO_TEST_CASE(self_dependency_and_duplicate_ids)
{
    TempDir dir;
    // A node waiting for itself could never run: an error naming the file, node and list.
    WriteSimple(dir.File("self.et"), {{1, {}}, {2, {2, 1}}});
    std::string selfError = FeedError(dir.File("self.et"));
    BOOST_TEST(selfError == dir.File("self.et") +
                                ": node 2 (n2): lists itself in data_deps: a node cannot wait "
                                "for itself");
    // In ctrl_deps (what the reference converter writes): the same error while they are
    // honoured, with the way out; nothing when they are not.
    Dag dag;
    dag.nodes = {{1, {}, {}}, {2, {1}, {2}}};
    WriteDag(dag, dir.File("self-ctrl.et"));
    std::string ctrlError = FeedError(dir.File("self-ctrl.et"));
    BOOST_TEST_INFO(ctrlError);
    BOOST_TEST(ctrlError.find("node 2 (n2): lists itself in ctrl_deps") != std::string::npos);
    BOOST_TEST(ctrlError.find("switch ctrl_deps off") != std::string::npos);
    EtFeederOptions dataOnly;
    dataOnly.honourCtrlDeps = false;
    BOOST_TEST(FeedError(dir.File("self-ctrl.et"), dataOnly) == "");
    WriteSimple(dir.File("dup.et"), {{1, {}}, {2, {1}}, {1, {}}});
    std::string error = FeedError(dir.File("dup.et"));
    BOOST_TEST_INFO(error);
    BOOST_TEST(error.find("node 1 (n1, message 3): duplicate node id") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(self_dependency_next_to_a_running_parent)
{
    // Issue 23 item 12: node 2 lists parent 1 and itself, and is read while node 1 runs. The
    // error must come before node 1 records node 2 as its child: finishing node 1 afterwards
    // (what the application does for the nodes it had in flight) released a node that never
    // entered the window, a SIGSEGV in ReleaseOne.
    TempDir dir;
    Dag data;
    data.nodes = {{1, {}, {}}, {2, {1, 2}, {}}};
    Dag ctrl;
    ctrl.nodes = {{1, {}, {}}, {2, {}, {1, 2}}};
    for (const auto& [dag, list] :
         {std::make_pair(data, "data_deps"), std::make_pair(ctrl, "ctrl_deps")})
    {
        WriteDag(dag, dir.File("t.et"));
        EtFeeder feeder(dir.File("t.et"));
        BOOST_REQUIRE(feeder.HasNodesToIssue());
        auto first = feeder.GetNextIssuableNode();
        BOOST_REQUIRE(first->GetId() == 1u);
        std::string error;
        try
        {
            feeder.HasNodesToIssue(); // reads node 2 while node 1 is in flight
        }
        catch (const TraceError& e)
        {
            error = e.what();
        }
        BOOST_TEST(error == dir.File("t.et") + ": node 2 (n2): lists itself in " + list +
                                ": a node cannot wait for itself" +
                                (std::string(list) == "ctrl_deps"
                                     ? " (in output of the reference converter ctrl_deps are "
                                       "call-tree links, not dependencies: switch ctrl_deps off)"
                                     : ""));
        // Node 1 finishes after the error: nothing to release, nothing becomes ready.
        feeder.FreeChildrenNodes(1);
        feeder.RemoveNode(1);
        BOOST_TEST(feeder.GetNextIssuableNode() == nullptr);
        BOOST_TEST(feeder.GetLoadedCount() == 0u);
    }
}

BOOST_AUTO_TEST_CASE(duplicate_ids_in_the_window_or_long_gone)
{
    // Issue 23 item 15: a duplicate id is refused with the file and the id whether the first
    // node is still loaded (in flight here) or finished and forgotten 100,000 nodes before,
    // through a window of 16: every id read stays in a CompactIdSet.
    TempDir dir;
    WriteSimple(dir.File("window.et"), {{1, {}}, {2, {1}}, {1, {}}});
    EtFeeder feeder(dir.File("window.et"));
    BOOST_REQUIRE(feeder.HasNodesToIssue());
    BOOST_REQUIRE(feeder.GetNextIssuableNode()->GetId() == 1u); // node 1 in flight
    std::string error;
    try
    {
        feeder.HasNodesToIssue();
    }
    catch (const TraceError& e)
    {
        error = e.what();
    }
    BOOST_TEST(error == dir.File("window.et") + ": node 1 (n1, message 3): duplicate node id");

    std::vector<std::pair<uint64_t, std::vector<uint64_t>>> nodes;
    for (uint64_t id = 0; id < 100000; ++id)
    {
        nodes.push_back({id, id == 0 ? std::vector<uint64_t>{} : std::vector<uint64_t>{id - 1}});
    }
    nodes.push_back({5, {}});
    WriteSimple(dir.File("gone.et"), nodes);
    EtFeederOptions small;
    small.windowSize = 16;
    BOOST_TEST(FeedError(dir.File("gone.et"), small) ==
               dir.File("gone.et") + ": node 5 (n5, message 100001): duplicate node id");
}

BOOST_AUTO_TEST_CASE(ids_need_not_start_at_zero_nor_be_dense)
{
    TempDir dir;
    // Ids near 2^63 and 2^64 - 1, gaps of 2^40, a child listed before its parent: every node
    // runs once, after its parent, lowest ready id first.
    const uint64_t top = ~0ull;
    const uint64_t half = 1ull << 63;
    WriteSimple(dir.File("sparse.et"),
                {{half, {}},
                 {half + (1ull << 40), {half}},
                 {top, {half + (1ull << 40), 7}},
                 {7, {}},
                 {top - 1, {}}});
    std::vector<uint64_t> order;
    EtFeeder feeder(dir.File("sparse.et"));
    while (feeder.HasNodesToIssue())
    {
        auto node = feeder.GetNextIssuableNode();
        order.push_back(node->GetId());
        feeder.FreeChildrenNodes(node->GetId());
        feeder.RemoveNode(node->GetId());
    }
    BOOST_TEST(feeder.IsDone());
    // By hand, from the rule "read only when nothing is ready, issue the lowest ready id":
    // half; half + 2^40; top waits for 7, so 7 is read and runs; that releases top, which runs
    // before top - 1 is even read.
    std::vector<uint64_t> expected = {half, half + (1ull << 40), 7, top, top - 1};
    BOOST_TEST(order == expected, boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(repeated_dependencies_collapse_as_they_are_read)
{
    TempDir dir;
    // 3 parents, each listed 100,000 times (as a mutated trace did): the node waits for 3.
    std::vector<uint64_t> deps;
    for (int i = 0; i < 100000; ++i)
    {
        deps.push_back(static_cast<uint64_t>(1 + i % 3));
    }
    WriteSimple(dir.File("t.et"), {{1, {}}, {2, {}}, {3, {}}, {4, deps}});
    EtFeeder feeder(dir.File("t.et"));
    std::vector<uint64_t> order;
    while (feeder.HasNodesToIssue())
    {
        auto node = feeder.GetNextIssuableNode();
        if (node->GetId() == 4)
        {
            BOOST_TEST(node->GetDataDeps().size() == 3u);
        }
        order.push_back(node->GetId());
        feeder.FreeChildrenNodes(node->GetId());
        feeder.RemoveNode(node->GetId());
    }
    BOOST_TEST(order == std::vector<uint64_t>({1, 2, 3, 4}), boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(stuck_report_leaves_out_dangling_ids_already_settled)
{
    TempDir dir;
    const std::string path = dir.File("settled.et");
    // 0 and 1 wait for each other (really stuck); 2 waits for 0 and for 99, a forward reference
    // that never appears: treated as satisfied at the end of the file, so 2 waits for 0 only.
    WriteSimple(path, {{0, {1}}, {1, {0}}, {2, {0, 99}}});
    EtFeederOptions options;
    options.danglingAsSatisfied = true;
    EtFeeder feeder(path, options);
    BOOST_CHECK_THROW(feeder.HasNodesToIssue(), TraceError); // nothing can run
    auto stuck = feeder.GetStuckNodes();
    BOOST_REQUIRE(stuck.size() == 3u);
    BOOST_TEST(stuck[2].id == 2u);
    BOOST_TEST(stuck[2].waitingFor == std::vector<uint64_t>({0}), boost::test_tools::per_element());
    BOOST_TEST(stuck[2].missing.empty());
    const std::string error = FeedError(path, options);
    BOOST_TEST_INFO(error);
    BOOST_TEST(error.find("dependency cycle") != std::string::npos);
    BOOST_TEST(error.find("99") == std::string::npos);
}

BOOST_AUTO_TEST_CASE(truncated_file_is_an_error_not_a_hang)
{
    TempDir dir;
    std::vector<std::pair<uint64_t, std::vector<uint64_t>>> nodes;
    for (uint64_t id = 0; id < 1000; ++id)
    {
        nodes.push_back({id, {}});
    }
    WriteSimple(dir.File("t.et"), nodes);
    std::string bytes = chakra_test::ReadFileBytes(dir.File("t.et"));
    chakra_test::WriteFileBytes(dir.File("cut.et"), bytes.substr(0, bytes.size() - 3));
    BOOST_TEST(FeedError(dir.File("cut.et")).find("truncated Node message") != std::string::npos);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(store_mode_matches_file_mode)

BOOST_AUTO_TEST_CASE(forward_references_and_ids_out_of_order)
{
    TempDir dir;
    // 5 waits for 7 (read after it); 6 for 3 and 5.
    WriteSimple(dir.File("t.et"), {{5, {7}}, {7, {}}, {3, {}}, {6, {3, 5}}});
    // One at a time: 5 and 7 are read, 7 runs, then 5; 3 is read next, then 6.
    BOOST_TEST(DriveBoth(dir.File("t.et"), {}, 1).order == (std::vector<uint64_t>{7, 5, 3, 6}));
    // Two at a time: 3 is read and runs while 7 does; 6 waits for 5.
    BOOST_TEST(DriveBoth(dir.File("t.et"), {}, 2).order == (std::vector<uint64_t>{7, 3, 5, 6}));
}

BOOST_AUTO_TEST_CASE(window_rule)
{
    TempDir dir;
    WriteSimple(dir.File("t.et"), {{1, {}}, {2, {1}}, {3, {}}});
    EtFeederOptions options;
    options.windowSize = 1; // 3 is read only once 1 is removed and 2 read: after 2
    BOOST_TEST(DriveBoth(dir.File("t.et"), options, 2).order == (std::vector<uint64_t>{1, 2, 3}));
    options.windowSize = 4; // 2 waits, so 3 is read and runs beside 1
    BOOST_TEST(DriveBoth(dir.File("t.et"), options, 2).order == (std::vector<uint64_t>{1, 3, 2}));
}

BOOST_AUTO_TEST_CASE(dangling_dependencies)
{
    TempDir dir;
    // Ids not ascending: 9 is settled at the end of the file, for 1 and 3 at once.
    WriteSimple(dir.File("late.et"), {{2, {}}, {1, {9}}, {3, {9, 1}}});
    EtFeederOptions options;
    options.danglingAsSatisfied = true;
    Script late = DriveBoth(dir.File("late.et"), options, 1);
    BOOST_TEST(late.order == (std::vector<uint64_t>{2, 1, 3}));
    BOOST_TEST(std::count(late.log.begin(),
                          late.log.end(),
                          "warn " + dir.File("late.et") +
                              ": nodes 1, 3 depend on id 9, which is not in the file: treated "
                              "as satisfied") == 1);
    // Ascending ids: 0 is settled as soon as 1 is read.
    WriteSimple(dir.File("early.et"), {{1, {0}}, {2, {1}}});
    Script early = DriveBoth(dir.File("early.et"), options, 1);
    BOOST_TEST(early.order == (std::vector<uint64_t>{1, 2}));
    BOOST_TEST(early.log.front() == "warn " + dir.File("early.et") +
                                        ": node 1 depends on id 0, which is not in the file: "
                                        "treated as satisfied");
    // A later id presumed missing, then read: the same error in both modes.
    WriteSimple(dir.File("both.et"), {{2, {1}}, {3, {}}, {1, {}}});
    BOOST_TEST(DriveBoth(dir.File("both.et"), options, 1).error.find("treated as a dangling") !=
               std::string::npos);
}

BOOST_AUTO_TEST_CASE(stuck_trace_error_text)
{
    TempDir dir;
    // 1 runs; 2 waits for 3 and for 8 (never in the file); 3 waits for 2.
    WriteSimple(dir.File("t.et"), {{1, {}}, {2, {3, 8}}, {3, {2}}});
    Script script = DriveBoth(dir.File("t.et"), {}, 2);
    BOOST_TEST(script.order == (std::vector<uint64_t>{1}));
    BOOST_TEST(script.error.find("2 nodes can never run (end of file, nothing ready, nothing in "
                                 "flight); node 2 (n2) waits for id 8 which never appears in "
                                 "the file; dependency cycle: 2 (n2) -> 3 (n3) -> 2 (option") !=
               std::string::npos);
    // A node listing itself, and a duplicate id.
    WriteSimple(dir.File("self.et"), {{1, {}}, {2, {1, 2}}});
    BOOST_TEST(DriveBoth(dir.File("self.et"), {}, 1).error.find("lists itself in data_deps") !=
               std::string::npos);
    WriteSimple(dir.File("dup.et"), {{1, {}}, {2, {1}}, {1, {}}});
    BOOST_TEST(DriveBoth(dir.File("dup.et"), {}, 1).error.find("duplicate node id") !=
               std::string::npos);
}

BOOST_AUTO_TEST_CASE(random_dags_windows_and_dependency_switches)
{
    TempDir dir;
    std::mt19937_64 rng(2026);
    for (int round = 0; round < 12; ++round)
    {
        Dag dag = RandomDag(400, rng, 30, round % 2 == 1);
        WriteDag(dag, dir.File("dag.et"));
        EtFeederOptions options;
        options.windowSize = std::vector<std::size_t>{1, 5, 40, 16384}[round % 4];
        options.honourCtrlDeps = round % 3 != 2;
        Script script = DriveBoth(dir.File("dag.et"), options, 1 + round % 5, round % 3 == 0);
        BOOST_TEST(script.order.size() == dag.nodes.size());
    }
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_CASE(compact_id_set_dense_and_sparse)
{
    CompactIdSet set;
    std::set<uint64_t> reference;
    std::mt19937_64 rng(3);
    for (int i = 0; i < 200000; ++i)
    {
        uint64_t id = i % 2 == 0 ? static_cast<uint64_t>(i) : rng();
        BOOST_TEST(set.Insert(id) == reference.insert(id).second);
    }
    for (int i = 0; i < 1000; ++i)
    {
        uint64_t probe = rng() % 400000;
        BOOST_TEST(set.Contains(probe) == (reference.count(probe) == 1));
    }
    BOOST_TEST(set.Size() == reference.size());
    // A dense run of a million ids costs about a bit each.
    CompactIdSet dense;
    for (uint64_t id = 0; id < 1000000; ++id)
    {
        dense.Insert(id);
    }
    BOOST_TEST(dense.MemoryBytes() < 200000u);
}
