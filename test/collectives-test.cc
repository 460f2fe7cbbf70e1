/*
 * Collectives: every type on every algorithm and communicator size completes with matching
 * messages; simulated times within 5% of the closed forms of FORMATS.md section 5; 64-bit sizes;
 * hierarchical beats a flat ring when the scale-out network is the bottleneck.
 */
#define BOOST_TEST_MODULE collectives
#include "chakra-test-data.h"
#include "simulation-util.h"

#include "ns3/chakra-module.h"

#include <algorithm>
#include <boost/test/unit_test.hpp>
#include <cmath>
#include <map>
#include <numeric>
#include <random>
#include <set>

using namespace ns3;
using chakra_test::TempDir;
using chakra_test::Us;

namespace
{

/** Runs one collective of `bytes` on n ranks with an algorithm; returns the report. */
ChakraReport
RunOne(ChakraProtoMsg::CollectiveCommType type,
       uint32_t n,
       uint64_t bytes,
       const std::string& algorithm,
       chakra_test::ClusterConfig config,
       uint32_t root = 0)
{
    TempDir dir;
    CollectiveBenchSpec spec;
    spec.type = type;
    spec.ranks = n;
    spec.bytes = bytes;
    spec.root = root;
    WorkloadGenerator::WriteCollectiveBench(dir.File("c"), spec);
    for (const char* attribute : {"AllReduceAlgorithm",
                                  "AllGatherAlgorithm",
                                  "ReduceScatterAlgorithm",
                                  "AllToAllAlgorithm",
                                  "BroadcastAlgorithm",
                                  "ReduceAlgorithm",
                                  "GatherAlgorithm",
                                  "ScatterAlgorithm"})
    {
        config.appAttributes.emplace_back(attribute, algorithm);
    }
    return chakra_test::RunCluster(dir.File("c"), config);
}

/** One GPU per host on one switch: every message crosses NIC -> switch -> NIC. */
chakra_test::ClusterConfig
FlatSwitch(uint32_t n)
{
    chakra_test::ClusterConfig config;
    config.hosts = n;
    config.gpusPerHost = 1;
    config.nicBandwidth = "100Gbps";
    config.nicLatency = "1us";
    return config;
}

/**
 * The closed forms' parameters for FlatSwitch: effective payload bandwidth (bytes/s) and
 * per-step latency (s): two link delays plus one packet's store-and-forward at the switch.
 */
struct LinkModel
{
    double bandwidth = 100e9 / 8 * 8948.0 / 9002.0; // MTU 9000: 8948 payload per 9002 on the wire
    double latency = 2 * 1e-6 + 9002 * 8 / 100e9;
};

double
SimulatedUs(const ChakraReport& report)
{
    BOOST_REQUIRE(report.AllFinished());
    return Us(report.GetIterationTime());
}

void
ExpectClose(double simulatedUs, double closedFormUs, const std::string& what)
{
    BOOST_TEST_INFO(what << ": simulated " << simulatedUs << " us, closed form " << closedFormUs
                         << " us");
    BOOST_TEST(std::abs(simulatedUs / closedFormUs - 1) < 0.05);
}

/** Rank 1 of a 3-rank all-reduce of 301 bytes in one chunk (the by-hand cases). */
CollectiveRequest
RankOneOfThreeRing()
{
    CollectiveRequest request;
    request.type = ChakraProtoMsg::ALL_REDUCE;
    request.size = 3;
    request.me = 1;
    request.bytes = 301;
    request.chunks = 1;
    return request;
}

} // namespace

BOOST_AUTO_TEST_CASE(every_type_algorithm_and_size_completes_with_matching_messages)
{
    using namespace ChakraProtoMsg;
    std::size_t runs = 0;
    std::size_t skipped = 0;
    // Every algorithm of the table, and the default choice.
    std::vector<std::string> algorithms = CollectiveAlgorithmNames();
    algorithms.emplace_back("auto");
    // Quick mode (sanitizer run): 1, 2, 3 and 8 ranks still cover one rank, odd, even and
    // power-of-two counts; 5 adds time, not cases.
    const std::vector<uint32_t> counts = chakra_test::QuickMode()
                                             ? std::vector<uint32_t>{1, 2, 3, 8}
                                             : std::vector<uint32_t>{1, 2, 3, 5, 8};
    for (uint32_t n : counts)
    {
        for (auto type : {ALL_REDUCE,
                          ALL_GATHER,
                          REDUCE_SCATTER,
                          ALL_TO_ALL,
                          BROADCAST,
                          REDUCE,
                          GATHER,
                          SCATTER,
                          BARRIER})
        {
            for (const std::string& algorithm : algorithms)
            {
                chakra_test::ClusterConfig config;
                // Two hosts when n is even, so that hierarchical applies.
                config.hosts = n % 2 == 0 ? 2 : 1;
                config.gpusPerHost = n / config.hosts;
                // Quick mode (sanitizer run): an algorithm that does not implement the call
                // hands it to the type's default, which "auto" already runs.
                if (chakra_test::QuickMode() && algorithm != "auto")
                {
                    CollectiveRequest request;
                    request.type = type;
                    request.bytes = 96 << 10;
                    request.size = n;
                    request.root = n - 1;
                    auto hosts = std::make_shared<std::vector<uint32_t>>();
                    for (uint32_t i = 0; i < n; ++i)
                    {
                        hosts->push_back(i / config.gpusPerHost);
                    }
                    request.hostOf = hosts;
                    if (!CreateCollectiveAlgorithm(algorithm)->Supports(request))
                    {
                        ++skipped;
                        continue;
                    }
                }
                BOOST_TEST_CONTEXT(CommTypeName(type) << " n=" << n << " " << algorithm)
                {
                    ChakraReport report = RunOne(type, n, 96 << 10, algorithm, config, n - 1);
                    BOOST_TEST(report.AllFinished());
                    for (const auto& rank : report.GetRanks())
                    {
                        // A size mismatch would mean the two sides built different schedules.
                        BOOST_TEST(rank.warnings.empty());
                        BOOST_TEST(rank.error.empty());
                    }
                    BOOST_TEST(report.GetCollectives().size() == 1u);
                    ++runs;
                }
            }
        }
    }
    BOOST_TEST(runs + skipped == counts.size() * 9 * algorithms.size());
    BOOST_TEST(runs > skipped);
}

BOOST_AUTO_TEST_CASE(ring_allreduce_matches_its_closed_form)
{
    LinkModel link;
    // Quick mode (sanitizer run): without the 16 MiB runs, the longest.
    const std::vector<uint64_t> sizes =
        chakra_test::QuickMode()
            ? std::vector<uint64_t>{uint64_t(64) << 10, uint64_t(1) << 20}
            : std::vector<uint64_t>{uint64_t(64) << 10, uint64_t(1) << 20, uint64_t(16) << 20};
    for (uint32_t n : {2, 3, 8})
    {
        for (uint64_t bytes : sizes)
        {
            double simulated =
                SimulatedUs(RunOne(ChakraProtoMsg::ALL_REDUCE, n, bytes, "ring", FlatSwitch(n)));
            // 2(n-1) a + 2(n-1)/n S/B
            double closed = (2.0 * (n - 1) * link.latency +
                             2.0 * (n - 1) / n * static_cast<double>(bytes) / link.bandwidth) *
                            1e6;
            ExpectClose(simulated,
                        closed,
                        "ring all-reduce n=" + std::to_string(n) + " " + std::to_string(bytes) +
                            " B");
        }
    }
}

BOOST_AUTO_TEST_CASE(ring_allgather_and_reducescatter_match_their_closed_form)
{
    LinkModel link;
    for (uint32_t n : {3, 8})
    {
        uint64_t bytes = 4 << 20;
        // (n-1) a + (n-1)/n S/B with S the full buffer: all-gather's is n x comm_size.
        double gather =
            SimulatedUs(RunOne(ChakraProtoMsg::ALL_GATHER, n, bytes / n, "ring", FlatSwitch(n)));
        double scatter =
            SimulatedUs(RunOne(ChakraProtoMsg::REDUCE_SCATTER, n, bytes, "ring", FlatSwitch(n)));
        double full = static_cast<double>(bytes / n * n);
        ExpectClose(gather,
                    ((n - 1) * link.latency + (n - 1.0) / n * full / link.bandwidth) * 1e6,
                    "ring all-gather n=" + std::to_string(n));
        ExpectClose(scatter,
                    ((n - 1) * link.latency + (n - 1.0) / n * bytes / link.bandwidth) * 1e6,
                    "ring reduce-scatter n=" + std::to_string(n));
    }
}

BOOST_AUTO_TEST_CASE(halving_doubling_allreduce_matches_its_closed_form)
{
    LinkModel link;
    for (uint32_t n : {2, 8})
    {
        uint64_t bytes = 8 << 20;
        double simulated = SimulatedUs(
            RunOne(ChakraProtoMsg::ALL_REDUCE, n, bytes, "halving-doubling", FlatSwitch(n)));
        // 2 log2(n) a + 2(n-1)/n S/B
        double closed = (2 * std::log2(n) * link.latency +
                         2.0 * (n - 1) / n * static_cast<double>(bytes) / link.bandwidth) *
                        1e6;
        ExpectClose(simulated, closed, "halving-doubling n=" + std::to_string(n));
    }
}

BOOST_AUTO_TEST_CASE(direct_alltoall_matches_its_closed_form)
{
    LinkModel link;
    for (uint32_t n : {3, 8})
    {
        uint64_t bytes = 8 << 20;
        double simulated =
            SimulatedUs(RunOne(ChakraProtoMsg::ALL_TO_ALL, n, bytes, "direct", FlatSwitch(n)));
        // a + (n-1)/n S/B on a non-blocking switch
        double closed =
            (link.latency + (n - 1.0) / n * static_cast<double>(bytes) / link.bandwidth) * 1e6;
        ExpectClose(simulated, closed, "direct all-to-all n=" + std::to_string(n));
    }
}

BOOST_AUTO_TEST_CASE(direct_allreduce_and_ring_broadcast_match_their_closed_forms)
{
    LinkModel link;
    for (uint32_t n : {3, 8})
    {
        const double bytes = 1 << 20;
        double direct =
            SimulatedUs(RunOne(ChakraProtoMsg::ALL_REDUCE, n, 1 << 20, "direct", FlatSwitch(n)));
        // 2a + 2(n-1)/n S/B: direct reduce-scatter, then direct all-gather
        ExpectClose(direct,
                    (2 * link.latency + 2.0 * (n - 1) / n * bytes / link.bandwidth) * 1e6,
                    "direct all-reduce n=" + std::to_string(n));
        double chain =
            SimulatedUs(RunOne(ChakraProtoMsg::BROADCAST, n, 1 << 20, "ring", FlatSwitch(n)));
        // One chunk (the ring's default): the chain stores and forwards the whole buffer at
        // every rank, (n-1)(a + S/B).
        ExpectClose(chain,
                    (n - 1) * (link.latency + bytes / link.bandwidth) * 1e6,
                    "ring broadcast n=" + std::to_string(n));
    }
}

BOOST_AUTO_TEST_CASE(tree_allreduce_matches_its_closed_form)
{
    // max(2h (a + M/B), 2 h_c (a + k M/B)) + L (C - 1) M/B with M = S/(2C), C = S / 1 MiB
    // chunks (at most 64): h the heap's height, h_c the levels of its complete part, k the most
    // children of a node, L the most tree neighbours of one rank in both trees
    // (doc/collectives.md, "Tree all-reduce").
    struct Case
    {
        uint32_t n, h, k, hc, l;
        uint64_t bytes;
    };

    LinkModel link;
    for (const Case c : {Case{2, 1, 1, 1, 2, 1 << 20},
                         Case{3, 1, 2, 1, 3, 1 << 20},
                         Case{8, 3, 2, 2, 4, 64 << 10},
                         Case{8, 3, 2, 2, 4, 1 << 20},
                         Case{8, 3, 2, 2, 4, 16 << 20}})
    {
        // Quick mode (sanitizer run): without the 16 MiB run, the longest (16 chunks).
        if (chakra_test::QuickMode() && c.bytes > (1u << 20))
        {
            continue;
        }
        double simulated =
            SimulatedUs(RunOne(ChakraProtoMsg::ALL_REDUCE, c.n, c.bytes, "tree", FlatSwitch(c.n)));
        const double chunks = static_cast<double>(std::max<uint64_t>(1, c.bytes >> 20));
        const double half = static_cast<double>(c.bytes) / (2 * chunks);
        const double message = half / link.bandwidth;
        double closed = (std::max(2.0 * c.h * (link.latency + message),
                                  2.0 * c.hc * (link.latency + c.k * message)) +
                         c.l * (chunks - 1) * message) *
                        1e6;
        ExpectClose(simulated,
                    closed,
                    "tree all-reduce n=" + std::to_string(c.n) + " " + std::to_string(c.bytes) +
                        " B");
    }
}

BOOST_AUTO_TEST_CASE(hierarchical_allreduce_matches_its_closed_form)
{
    // 2 hosts x 4 GPUs: 2(g-1)(a_in + S/(g B_in)) + 2(H-1)(a_out + S/(g H B_out)), where the
    // NVLink path has 65000-byte packets at 3.6 Tbps and 250 ns links.
    chakra_test::ClusterConfig config = FlatSwitch(2);
    config.gpusPerHost = 4;
    LinkModel out;
    const double inBandwidth = 3600e9 / 8 * 64948.0 / 65002.0;
    const double inLatency = 2 * 250e-9 + 65002 * 8 / 3600e9;
    for (uint64_t bytes : {uint64_t(1) << 20, uint64_t(16) << 20})
    {
        double simulated =
            SimulatedUs(RunOne(ChakraProtoMsg::ALL_REDUCE, 8, bytes, "hierarchical", config));
        const double s = static_cast<double>(bytes);
        double closed = (2.0 * 3 * (inLatency + s / 4 / inBandwidth) +
                         2.0 * 1 * (out.latency + s / 8 / out.bandwidth)) *
                        1e6;
        ExpectClose(simulated, closed, "hierarchical 2x4 " + std::to_string(bytes) + " B");
    }
}

BOOST_AUTO_TEST_CASE(four_gib_allreduce_works)
{
    // 64-bit sizes end to end: comm_size, schedule parts, framing, the report.
    chakra_test::ClusterConfig config;
    config.hosts = 1;
    config.gpusPerHost = 2;
    // Quick mode (sanitizer run): the flow transport. The same sizes cross the same code above
    // the transport; tcp's 66,000 segments per direction took half of this program's run
    // under the sanitizers, and the plain run keeps them.
    if (chakra_test::QuickMode())
    {
        config.transport = "flow";
    }
    const uint64_t bytes = uint64_t(4) << 30;
    ChakraReport report = RunOne(ChakraProtoMsg::ALL_REDUCE, 2, bytes, "ring", config);
    BOOST_REQUIRE(report.AllFinished());
    auto collectives = report.GetCollectives();
    BOOST_REQUIRE(collectives.size() == 1u);
    BOOST_TEST(collectives[0].bytes == bytes);
    // Each rank sends half the buffer twice (reduce-scatter + all-gather): S bytes over the
    // 3.6 Tbps NVLink; the time must reflect that volume (not a 32-bit truncation of it).
    // (ns-3 rounds each packet's transmission time to the nanosecond: 144.45 ns -> 144 ns for a
    // 65 KB NVLink packet, so the simulated link is 0.3% faster than nominal.)
    double volumeUs = static_cast<double>(bytes) * 8 / 3.6e12 * 1e6;
    BOOST_TEST(std::abs(Us(report.GetIterationTime()) / volumeUs - 1) < 0.02);
}

BOOST_AUTO_TEST_CASE(hierarchical_beats_a_flat_ring_when_the_network_is_the_bottleneck)
{
    // 2 hosts x 4 GPUs, 1 MiB all-reduce; NVLink 3.6 Tbps inside a host, 100 Gbps NICs.
    chakra_test::ClusterConfig config;
    config.hosts = 2;
    config.gpusPerHost = 4;
    config.nicBandwidth = "100Gbps";
    double ring = SimulatedUs(RunOne(ChakraProtoMsg::ALL_REDUCE, 8, 1 << 20, "ring", config));
    double hierarchical =
        SimulatedUs(RunOne(ChakraProtoMsg::ALL_REDUCE, 8, 1 << 20, "hierarchical", config));
    BOOST_TEST_INFO("ring " << ring << " us, hierarchical " << hierarchical << " us");
    BOOST_TEST(hierarchical < 0.75 * ring);
    // The default for ranks spanning hosts is hierarchical.
    auto chosen = RunOne(ChakraProtoMsg::ALL_REDUCE, 8, 1 << 20, "auto", config).GetCollectives();
    BOOST_TEST(chosen.at(0).algorithm == "hierarchical");
}

namespace
{

/**
 * Calls check(label, algorithm, request) for every algorithm, collective type and communicator
 * size 1..13 that the algorithm supports: 1000003 bytes (not a multiple of anything), 3 chunks,
 * root n/2, two members per host when n is even (else one host). request.me is left to check.
 */
template <typename Check>
void
ForEachSmallCall(Check check)
{
    using namespace ChakraProtoMsg;
    for (const std::string& name : CollectiveAlgorithmNames())
    {
        auto algorithm = CreateCollectiveAlgorithm(name);
        for (auto type : {ALL_REDUCE,
                          ALL_GATHER,
                          REDUCE_SCATTER,
                          ALL_TO_ALL,
                          BROADCAST,
                          REDUCE,
                          GATHER,
                          SCATTER,
                          BARRIER})
        {
            for (uint32_t n = 1; n <= 13; ++n)
            {
                CollectiveRequest request;
                request.type = type;
                request.size = n;
                request.bytes = 1000003;
                request.chunks = 3;
                request.root = n / 2;
                auto hostOf = std::make_shared<std::vector<uint32_t>>();
                for (uint32_t i = 0; i < n; ++i)
                {
                    hostOf->push_back(n % 2 == 0 ? i / 2 : 0);
                }
                request.hostOf = hostOf;
                if (algorithm->Supports(request))
                {
                    check(name + " " + CommTypeName(type) + " n=" + std::to_string(n),
                          *algorithm,
                          request);
                }
            }
        }
    }
}

} // namespace

BOOST_AUTO_TEST_CASE(schedules_are_symmetric)
{
    // For every pair of members, what one sends the other receives (same tags, same sizes),
    // checked on the schedules alone, for every algorithm, type and size up to 13.
    ForEachSmallCall([](const std::string& label,
                        const CollectiveAlgorithm& algorithm,
                        CollectiveRequest request) {
        std::map<std::tuple<uint32_t, uint32_t, int64_t>, std::vector<uint64_t>> sent;
        std::map<std::tuple<uint32_t, uint32_t, int64_t>, std::vector<uint64_t>> received;
        for (uint32_t me = 0; me < request.size; ++me)
        {
            request.me = me;
            for (const auto& op : ListOps(*algorithm.Build(request)))
            {
                if (op.send)
                {
                    sent[{me, op.peer, op.tag}].push_back(op.bytes);
                }
                else
                {
                    received[{op.peer, me, op.tag}].push_back(op.bytes);
                }
            }
        }
        BOOST_TEST_CONTEXT(label)
        {
            BOOST_TEST((sent == received));
        }
    });
}

BOOST_AUTO_TEST_CASE(schedules_read_by_index_are_consistent)
{
    // What the engine relies on, for every algorithm, type and size up to 13: deps are earlier
    // ops; Dependent() lists exactly the ops whose Dep() names the op, in increasing order;
    // NextRecv() finds every receive by its peer and tag, in schedule order, and nothing else.
    ForEachSmallCall([](const std::string& label,
                        const CollectiveAlgorithm& algorithm,
                        CollectiveRequest request) {
        const uint32_t n = request.size;
        for (uint32_t me = 0; me < n; ++me)
        {
            request.me = me;
            auto schedule = algorithm.Build(request);
            const uint32_t size = schedule->Size();
            std::vector<std::vector<uint32_t>> dependents(size);
            std::map<std::pair<uint32_t, int64_t>, std::vector<uint32_t>> recvs;
            bool depsEarlier = true;
            for (uint32_t i = 0; i < size; ++i)
            {
                for (uint32_t j = 0; j < schedule->DepCount(i); ++j)
                {
                    const uint32_t dep = schedule->Dep(i, j);
                    depsEarlier = depsEarlier && dep < i;
                    dependents.at(dep).push_back(i);
                }
                const MessageOp op = schedule->Op(i);
                if (!op.send)
                {
                    recvs[{op.peer, op.tag}].push_back(i);
                }
            }
            bool dependentsMatch = true;
            for (uint32_t i = 0; i < size; ++i)
            {
                std::vector<uint32_t> listed;
                for (uint32_t j = 0; j < schedule->DependentCount(i); ++j)
                {
                    listed.push_back(schedule->Dependent(i, j));
                }
                dependentsMatch = dependentsMatch && listed == dependents[i];
            }
            bool recvsFound = true;
            for (const auto& [key, ops] : recvs)
            {
                std::vector<uint32_t> found;
                for (uint32_t op =
                         schedule->NextRecv(key.first, key.second, CollectiveSchedule::kNone);
                     op != CollectiveSchedule::kNone && found.size() <= size;
                     op = schedule->NextRecv(key.first, key.second, op))
                {
                    found.push_back(op);
                }
                recvsFound = recvsFound && found == ops;
            }
            // A peer that is not a member finds nothing.
            const uint32_t stranger = schedule->NextRecv(n + 5, 0, CollectiveSchedule::kNone);
            const bool strangerIgnored = stranger == CollectiveSchedule::kNone;
            BOOST_TEST_CONTEXT(label << " me=" << me)
            {
                BOOST_TEST(depsEarlier);
                BOOST_TEST(dependentsMatch);
                BOOST_TEST(recvsFound);
                BOOST_TEST(strangerIgnored);
            }
        }
    });
}

// Issue 24 item 1: each algorithm is an ns-3 Object chosen by TypeId, its short name (what
// the <Type>Algorithm attributes take, doc/chakra.md) from one table.
BOOST_AUTO_TEST_CASE(algorithms_are_ns3_objects_with_type_ids)
{
    const std::map<std::string, std::string> documented = {
        {"ring", "ns3::RingCollective"},
        {"direct", "ns3::DirectCollective"},
        {"halving-doubling", "ns3::HalvingDoublingCollective"},
        {"tree", "ns3::TreeCollective"},
        {"hierarchical", "ns3::HierarchicalCollective"},
        {"nccl", "ns3::NcclCollective"},
        {"grouped-p2p", "ns3::GroupedP2pCollective"},
    };
    const std::vector<std::string> names = CollectiveAlgorithmNames();
    BOOST_TEST(std::set<std::string>(names.begin(), names.end()).size() == documented.size());
    for (const auto& [name, type] : documented)
    {
        BOOST_TEST_CONTEXT(name)
        {
            TypeId tid;
            BOOST_TEST_REQUIRE(TypeId::LookupByNameFailSafe(type, &tid));
            BOOST_TEST(tid.IsChildOf(CollectiveAlgorithm::GetTypeId()));
            Ptr<CollectiveAlgorithm> made = CreateCollectiveAlgorithm(name);
            BOOST_TEST_REQUIRE(made != nullptr);
            BOOST_TEST(made->GetInstanceTypeId() == tid);
            BOOST_TEST(made->GetName() == name);
            // Made by ns-3's factory from the TypeId alone, it names itself the same way.
            ObjectFactory factory;
            factory.SetTypeId(tid);
            BOOST_TEST(factory.Create<CollectiveAlgorithm>()->GetName() == name);
        }
    }
    BOOST_TEST(!CreateCollectiveAlgorithm("auto"));
    BOOST_TEST(!CreateCollectiveAlgorithm("rings"));
}

BOOST_AUTO_TEST_CASE(ring_all_reduce_schedule_by_hand)
{
    // Rank 1 of 3, 301 bytes in one chunk: segments of 100, 100 and 101 bytes (the first parts
    // are the smaller ones). Step k sends segment (1 - k) mod 3 to rank 2 and receives segment
    // (1 - k - 1) mod 3 from rank 0 with tag k; each send after the first forwards the
    // previous receive.
    CollectiveRequest request = RankOneOfThreeRing();
    auto ops = ListOps(*CreateCollectiveAlgorithm("ring")->Build(request));

    struct Expected
    {
        bool send;
        uint32_t peer;
        uint64_t bytes;
        int64_t tag;
        std::vector<uint32_t> deps;
    };

    const std::vector<Expected> expected{
        {true, 2, 100, 0, {}},
        {false, 0, 100, 0, {}}, // segment 1 out, segment 0 in
        {true, 2, 100, 1, {1}},
        {false, 0, 101, 1, {}}, // segment 0 out, segment 2 in
        {true, 2, 101, 2, {3}},
        {false, 0, 100, 2, {}}, // segment 2 out, segment 1 in
        {true, 2, 100, 3, {5}},
        {false, 0, 100, 3, {}}, // segment 1 out, segment 0 in
    };
    BOOST_TEST_REQUIRE(ops.size() == expected.size());
    for (std::size_t i = 0; i < ops.size(); ++i)
    {
        BOOST_TEST_CONTEXT("op " << i)
        {
            BOOST_TEST(ops[i].send == expected[i].send);
            BOOST_TEST(ops[i].peer == expected[i].peer);
            BOOST_TEST(ops[i].bytes == expected[i].bytes);
            BOOST_TEST(ops[i].tag == expected[i].tag);
            BOOST_TEST(ops[i].deps == expected[i].deps);
        }
    }
}

BOOST_AUTO_TEST_CASE(a_delayed_schedule_keeps_the_ops_and_adds_a_delay_to_each_send)
{
    // The 3-rank ring of the case above, each send delayed by 1000 ns per byte-hundred of its
    // segment: the ops and dependencies are the inner schedule's, the delay is asked per send.
    CollectiveRequest request = RankOneOfThreeRing();
    auto inner = CreateCollectiveAlgorithm("ring")->Build(request);
    const auto innerOps = ListOps(*inner);
    std::vector<uint32_t> asked;
    DelayedSchedule delayed(std::move(inner),
                            [&asked](uint32_t op, const MessageOp& message) -> int64_t {
                                asked.push_back(op);
                                return message.send ? int64_t(message.bytes / 100) * 1000 : -5;
                            });
    const auto ops = ListOps(delayed);
    BOOST_TEST_REQUIRE(ops.size() == innerOps.size());
    for (std::size_t i = 0; i < ops.size(); ++i)
    {
        BOOST_TEST(ops[i].send == innerOps[i].send);
        BOOST_TEST(ops[i].peer == innerOps[i].peer);
        BOOST_TEST(ops[i].bytes == innerOps[i].bytes);
        BOOST_TEST(ops[i].deps == innerOps[i].deps);
    }
    BOOST_TEST(delayed.SendDelayNs(0, delayed.Op(0), 0) == 1000); // 100 bytes
    BOOST_TEST(delayed.SendDelayNs(4, delayed.Op(4), 0) == 1000); // 101 bytes
    BOOST_TEST(delayed.SendDelayNs(1, delayed.Op(1), 0) == 0);    // a negative delay: none
    BOOST_TEST(asked == (std::vector<uint32_t>{0, 4, 1}));
    std::vector<uint32_t> sends;
    BOOST_TEST(delayed.InitialSends(sends));
    BOOST_TEST(sends == (std::vector<uint32_t>{0}));
    // A schedule without a wrapper has no delay.
    const auto ring = CreateCollectiveAlgorithm("ring")->Build(request);
    BOOST_TEST(ring->SendDelayNs(0, ring->Op(0), 0) == 0);
}

BOOST_AUTO_TEST_CASE(initial_sends_are_the_ops_that_wait_for_nothing)
{
    // Collective::Start issues InitialSends and arms the receives without dependencies. By
    // hand: rank 1 of a 3-rank ring all-reduce in one chunk starts with op 0 (the send of
    // step 0), and every receive waits for nothing (ring_all_reduce_schedule_by_hand).
    CollectiveRequest request = RankOneOfThreeRing();
    {
        auto schedule = CreateCollectiveAlgorithm("ring")->Build(request);
        std::vector<uint32_t> sends;
        BOOST_TEST(schedule->InitialSends(sends));
        BOOST_TEST((sends == std::vector<uint32_t>{0}));
    }
    // Every ring and hierarchical schedule (the ones that override it) against the ops listed
    // with their dependencies: the sends with none, in order, and whether a receive has none.
    for (const char* algorithm : {"ring", "hierarchical"})
    {
        for (uint32_t size : {2u, 3u, 4u, 8u})
        {
            for (uint32_t chunks : {1u, 3u})
            {
                for (auto type : {ChakraProtoMsg::ALL_REDUCE,
                                  ChakraProtoMsg::ALL_GATHER,
                                  ChakraProtoMsg::REDUCE_SCATTER})
                {
                    BOOST_TEST_CONTEXT(algorithm << " " << size << " ranks, " << chunks
                                                 << " chunk(s), type " << type)
                    {
                        CollectiveRequest r;
                        r.type = type;
                        r.size = size;
                        r.me = size - 1;
                        r.bytes = 1000 * size;
                        r.chunks = chunks;
                        std::vector<uint32_t> hosts(size);
                        for (uint32_t i = 0; i < size; ++i)
                        {
                            hosts[i] = i / 2;
                        }
                        r.hostOf = std::make_shared<std::vector<uint32_t>>(hosts);
                        auto algo = CreateCollectiveAlgorithm(algorithm);
                        if (!algo->Supports(r))
                        {
                            continue;
                        }
                        auto schedule = algo->Build(r);
                        std::vector<uint32_t> expected;
                        bool freeRecv = false;
                        const auto ops = ListOps(*schedule);
                        for (uint32_t i = 0; i < ops.size(); ++i)
                        {
                            if (ops[i].deps.empty() && ops[i].send)
                            {
                                expected.push_back(i);
                            }
                            freeRecv = freeRecv || (ops[i].deps.empty() && !ops[i].send);
                        }
                        std::vector<uint32_t> sends;
                        BOOST_TEST(schedule->InitialSends(sends) == freeRecv);
                        BOOST_TEST(sends == expected);
                        BOOST_TEST(!sends.empty());
                    }
                }
            }
        }
    }
}

BOOST_AUTO_TEST_CASE(hierarchical_phases_wait_for_each_other)
{
    // 2 hosts x 2 GPUs, member 2 (host 1, local position 0), 1000 bytes, 2 chunks: a 1-step
    // reduce-scatter with member 3, a 2-step all-reduce of its share with member 0, a 1-step
    // all-gather with member 3. Each phase's first send of each chunk waits for the last
    // receive of both chunks of the phase before.
    CollectiveRequest request;
    request.type = ChakraProtoMsg::ALL_REDUCE;
    request.size = 4;
    request.me = 2;
    request.bytes = 1000;
    request.chunks = 2;
    request.hostOf = std::make_shared<std::vector<uint32_t>>(std::vector<uint32_t>{0, 0, 1, 1});
    auto ops = ListOps(*CreateCollectiveAlgorithm("hierarchical")->Build(request));
    // Phase sizes: 2 chunks x 1 step x 2 ops, 2 x 2 x 2, 2 x 1 x 2.
    BOOST_TEST_REQUIRE(ops.size() == 4u + 8u + 4u);
    auto peers = [&](std::size_t from, std::size_t to) {
        std::set<uint32_t> seen;
        for (std::size_t i = from; i < to; ++i)
        {
            seen.insert(ops[i].peer);
        }
        return seen;
    };
    BOOST_TEST((peers(0, 4) == std::set<uint32_t>{3}));
    BOOST_TEST((peers(4, 12) == std::set<uint32_t>{0}));
    BOOST_TEST((peers(12, 16) == std::set<uint32_t>{3}));
    // Reduce-scatter receives of chunk 0 and 1 are ops 1 and 3; the across phase's first sends
    // (ops 4 and 8) wait for both; its last receives are ops 7 and 11, which the all-gather's
    // first sends (ops 12 and 14) wait for.
    BOOST_TEST((ops[4].deps == std::vector<uint32_t>{1, 3}));
    BOOST_TEST((ops[8].deps == std::vector<uint32_t>{1, 3}));
    BOOST_TEST((ops[6].deps == std::vector<uint32_t>{5}));
    BOOST_TEST((ops[12].deps == std::vector<uint32_t>{7, 11}));
    BOOST_TEST((ops[14].deps == std::vector<uint32_t>{7, 11}));
    // The share after the reduce-scatter is segment (0 + 1) mod 2 = 1 of 1000: 500 bytes, in
    // chunks of 250, cut in two ring segments of 125.
    BOOST_TEST(ops[4].bytes == 125u);
}

BOOST_AUTO_TEST_CASE(a_small_array_keeps_its_elements_past_its_inline_room)
{
    // A ring schedule's passes: three inside the object, more on the heap; every element
    // reads back as pushed, before and after the move.
    SmallArray<uint64_t, 3> values;
    BOOST_TEST(values.empty());
    for (uint64_t i = 0; i < 10; ++i)
    {
        values.push_back(i * i + 7);
        BOOST_TEST(values.size() == i + 1);
        for (uint64_t j = 0; j <= i; ++j)
        {
            BOOST_TEST(values[j] == j * j + 7);
        }
    }
    BOOST_TEST(values.front() == 7u);
}

BOOST_AUTO_TEST_CASE(a_small_array_reads_back_what_it_was_given)
{
    // Random pushes, pops, refills and clears, across the inline room (4) and back, against a
    // std::vector: same size and elements after every step.
    SmallArray<uint32_t, 4> array;
    std::vector<uint32_t> expected;
    std::mt19937 rng(7);
    for (int step = 0; step < 2000; ++step)
    {
        const uint32_t what = rng() % 10;
        if (what < 6)
        {
            array.push_back(static_cast<uint32_t>(step));
            expected.push_back(static_cast<uint32_t>(step));
        }
        else if (what < 8 && !expected.empty())
        {
            array.pop_back();
            expected.pop_back();
        }
        else if (what == 8)
        {
            const uint32_t count = rng() % 12;
            array.assign(count, static_cast<uint32_t>(step));
            expected.assign(count, static_cast<uint32_t>(step));
        }
        else
        {
            array.clear();
            expected.clear();
        }
        BOOST_TEST_REQUIRE(array.size() == expected.size());
        BOOST_TEST_REQUIRE(std::equal(array.begin(), array.end(), expected.begin()));
        if (!expected.empty())
        {
            BOOST_TEST_REQUIRE(array.back() == expected.back());
        }
    }
}

BOOST_AUTO_TEST_CASE(op_states_are_kept_for_the_ops_in_progress_only)
{
    // Every op goes WAITING -> ISSUED -> COMPLETE. Checked against a byte per op after every
    // change: a ring-like order (each op issued a few ahead of the oldest one completing) and
    // a random order (a direct all-to-all's ops, any op at any time).
    for (const bool ringLike : {true, false})
    {
        const uint32_t size = 4000;
        OpStateWindow window(size);
        std::vector<OpStateWindow::State> expected(size, OpStateWindow::WAITING);
        std::mt19937 rng(ringLike ? 1 : 2);
        std::vector<uint32_t> order(size);
        std::iota(order.begin(), order.end(), 0u);
        if (!ringLike)
        {
            std::shuffle(order.begin(), order.end(), rng);
        }
        std::vector<uint32_t> issued; // in the order issued
        std::size_t next = 0;
        uint32_t changes = 0;
        while (next < size || !issued.empty())
        {
            // Up to 3 ops in flight; the oldest (ring) or any (random) completes.
            const bool issue = next < size && (issued.size() < 3 || issued.empty());
            uint32_t op;
            OpStateWindow::State state;
            if (issue)
            {
                op = order[next++];
                state = OpStateWindow::ISSUED;
                issued.push_back(op);
            }
            else
            {
                const std::size_t pick = ringLike ? 0 : rng() % issued.size();
                op = issued[pick];
                issued.erase(issued.begin() + static_cast<std::ptrdiff_t>(pick));
                state = OpStateWindow::COMPLETE;
            }
            window.Set(op, state);
            expected[op] = state;
            if (++changes % 97 == 0 || next == size)
            {
                for (uint32_t i = 0; i < size; ++i)
                {
                    BOOST_REQUIRE(window.Get(i) == expected[i]);
                }
            }
        }
        for (uint32_t i = 0; i < size; ++i)
        {
            BOOST_REQUIRE(window.Get(i) == OpStateWindow::COMPLETE);
        }
        if (ringLike)
        {
            BOOST_TEST(window.GetPeakSpan() <= 4u); // not the 4,000 ops
        }
        else
        {
            BOOST_TEST(window.GetPeakSpan() > 1000u); // random order: most of the schedule
        }
    }
}
