/*
 * Grouped point-to-point all-to-all, gather and scatter (GroupedP2pCollective, "grouped-p2p"):
 * NCCL's step order, the window of steps in flight, messages in chunks, bytes delivered, the
 * time against closed forms, bad attributes. Golden values are worked by hand in the comments.
 */
#define BOOST_TEST_MODULE grouped_p2p
#include "chakra-test-data.h"
#include "simulation-util.h"

#include "ns3/chakra-module.h"

#include <boost/test/unit_test.hpp>
#include <cmath>
#include <map>
#include <stdexcept>

using namespace ns3;
using chakra_test::FlowRow;
using chakra_test::TempDir;
using chakra_test::Us;

namespace
{

/** A request for one rank. */
CollectiveRequest
Request(ChakraProtoMsg::CollectiveCommType type, uint32_t n, uint32_t me, uint64_t bytes)
{
    CollectiveRequest request;
    request.type = type;
    request.size = n;
    request.me = me;
    request.bytes = bytes;
    request.root = 0;
    request.chunks = 3; // ignored by grouped-p2p
    return request;
}

/** Sets the attribute defaults of GroupedP2pCollective for one scope, restores them after. */
class WindowAndChunk
{
  public:
    WindowAndChunk(uint32_t window, uint64_t chunk)
    {
        Config::SetDefault("ns3::GroupedP2pCollective::Window", UintegerValue(window));
        Config::SetDefault("ns3::GroupedP2pCollective::ChunkBytes", UintegerValue(chunk));
    }

    ~WindowAndChunk()
    {
        Config::SetDefault("ns3::GroupedP2pCollective::Window", UintegerValue(256));
        Config::SetDefault("ns3::GroupedP2pCollective::ChunkBytes", UintegerValue(131072));
    }
};

/** Runs one all-to-all of \p bytes per rank on \p config with grouped-p2p. */
ChakraReport
RunAllToAll(uint32_t n, uint64_t bytes, chakra_test::ClusterConfig config)
{
    TempDir dir;
    CollectiveBenchSpec spec;
    spec.type = ChakraProtoMsg::ALL_TO_ALL;
    spec.ranks = n;
    spec.bytes = bytes;
    WorkloadGenerator::WriteCollectiveBench(dir.File("c"), spec);
    config.appAttributes.emplace_back("AllToAllAlgorithm", "grouped-p2p");
    ChakraReport report = chakra_test::RunCluster(dir.File("c"), config);
    BOOST_REQUIRE(report.AllFinished());
    for (const auto& rank : report.GetRanks())
    {
        BOOST_TEST(rank.warnings.empty());
        BOOST_TEST(rank.error.empty());
    }
    BOOST_REQUIRE(report.GetCollectives().size() == 1u);
    BOOST_TEST(report.GetCollectives()[0].algorithm == "grouped-p2p");
    return report;
}

/** n hosts of one GPU on one switch, 100 Gb/s NICs, flow transport. */
chakra_test::ClusterConfig
FlatSwitch(uint32_t n)
{
    chakra_test::ClusterConfig config;
    config.hosts = n;
    config.gpusPerHost = 1;
    config.transport = "flow";
    config.nicBandwidth = "100Gbps";
    config.nicLatency = "1us";
    return config;
}

} // namespace

BOOST_AUTO_TEST_CASE(step_order_for_five_ranks)
{
    // NCCL's order: in step i a rank sends to me + i and receives from me - i (mod 5).
    // By hand, steps 1 .. 4:
    const std::vector<std::vector<uint32_t>> sendTo = {
        {1, 2, 3, 4},
        {2, 3, 4, 0},
        {3, 4, 0, 1},
        {4, 0, 1, 2},
        {0, 1, 2, 3},
    };
    const std::vector<std::vector<uint32_t>> recvFrom = {
        {4, 3, 2, 1},
        {0, 4, 3, 2},
        {1, 0, 4, 3},
        {2, 1, 0, 4},
        {3, 2, 1, 0},
    };
    // 503 bytes in 5 blocks, block j = floor(503 (j + 1) / 5) - floor(503 j / 5):
    // 100, 201 - 100, 301 - 201, 402 - 301, 503 - 402 = 100, 101, 100, 101, 101.
    const std::vector<uint64_t> block = {100, 101, 100, 101, 101};
    Ptr<CollectiveAlgorithm> algorithm = CreateCollectiveAlgorithm("grouped-p2p");
    BOOST_REQUIRE(algorithm);
    for (uint32_t me = 0; me < 5; ++me)
    {
        auto schedule = algorithm->Build(Request(ChakraProtoMsg::ALL_TO_ALL, 5, me, 503));
        BOOST_REQUIRE(schedule->Size() == 8u); // 4 steps, one chunk, a send and a receive
        for (uint32_t step = 1; step <= 4; ++step)
        {
            BOOST_TEST_CONTEXT("me " << me << " step " << step)
            {
                const MessageOp send = schedule->Op(2 * (step - 1));
                const MessageOp recv = schedule->Op(2 * (step - 1) + 1);
                BOOST_TEST(send.send);
                BOOST_TEST(send.peer == sendTo[me][step - 1]);
                BOOST_TEST(send.bytes == block[send.peer]);
                BOOST_TEST(!recv.send);
                BOOST_TEST(recv.peer == recvFrom[me][step - 1]);
                BOOST_TEST(recv.bytes == block[me]);
                // The rank it sends to in step i receives from it in step i.
                BOOST_TEST(recvFrom[send.peer][step - 1] == me);
            }
        }
    }
}

BOOST_AUTO_TEST_CASE(window_dependencies_by_hand)
{
    // 8 ranks, window 2, one chunk per message: ops 2(i-1) (send) and 2(i-1)+1 (receive) of
    // step i = 1 .. 7. Steps 1 and 2 start at once; the send of step i >= 3 waits for the send
    // and the receive of step i - 2.
    WindowAndChunk settings(2, 1 << 20);
    auto schedule = CreateCollectiveAlgorithm("grouped-p2p")
                        ->Build(Request(ChakraProtoMsg::ALL_TO_ALL, 8, 3, 8000));
    BOOST_REQUIRE(schedule->Size() == 14u);
    for (uint32_t op = 0; op < 14; ++op)
    {
        const uint32_t step = op / 2 + 1;
        BOOST_TEST_CONTEXT("op " << op)
        {
            if (op % 2 == 1 || step <= 2)
            {
                BOOST_TEST(schedule->DepCount(op) == 0u);
            }
            else
            {
                BOOST_REQUIRE(schedule->DepCount(op) == 2u);
                BOOST_TEST(schedule->Dep(op, 0) == op - 4);
                BOOST_TEST(schedule->Dep(op, 1) == op - 3);
            }
            // Steps 1 .. 5 release the send of step + 2; steps 6 and 7 release nothing.
            if (step <= 5)
            {
                BOOST_REQUIRE(schedule->DependentCount(op) == 1u);
                BOOST_TEST(schedule->Dependent(op, 0) == (op / 2 + 2) * 2);
            }
            else
            {
                BOOST_TEST(schedule->DependentCount(op) == 0u);
            }
        }
    }
    std::vector<uint32_t> sends;
    BOOST_TEST(schedule->InitialSends(sends));
    BOOST_TEST((sends == std::vector<uint32_t>{0, 2}));
}

BOOST_AUTO_TEST_CASE(window_bounds_the_flows_in_a_simulation)
{
    // 8 ranks on one switch, 8 MiB each (1 MiB to each peer, in one message): with a window
    // of W steps each rank has at most W of its sends on the network at a time, so the flow
    // model never holds more than 8 W flows. Without a window (W >= 7) all 56 pairs do.
    for (uint32_t window : {1u, 2u, 7u})
    {
        WindowAndChunk settings(window, 8 << 20);
        ChakraReport report = RunAllToAll(8, 8 << 20, FlatSwitch(8));
        BOOST_TEST_CONTEXT("window " << window)
        {
            const uint64_t flows = FlowRow(report, "most flows at once");
            BOOST_TEST_MESSAGE("window " << window << ": " << flows << " flows at once");
            BOOST_TEST(flows <= 8u * window);
            if (window == 7)
            {
                BOOST_TEST(flows == 56u);
            }
            else
            {
                BOOST_TEST(flows >= 8u); // every rank sends at once
            }
        }
    }
}

BOOST_AUTO_TEST_CASE(chunks_by_hand)
{
    // 8 ranks, 2,400,005 bytes, block j = floor(2,400,005 (j + 1) / 8) - floor(2,400,005 j / 8):
    // the boundaries are 0, 300,000, 600,001, 900,001, 1,200,002, 1,500,003, 1,800,003,
    // 2,100,004, 2,400,005, so blocks 0, 2 and 5 have 300,000 bytes, the others 300,001. Chunks of
    // 65,536: 300,001 = 4 x 65,536 + 37,857 and 300,000 = 4 x 65,536 + 37,856: five chunks, tags 0
    // .. 4.
    WindowAndChunk settings(256, 65536);
    auto schedule = CreateCollectiveAlgorithm("grouped-p2p")
                        ->Build(Request(ChakraProtoMsg::ALL_TO_ALL, 8, 0, 2400005));
    BOOST_REQUIRE(schedule->Size() == 7u * 5 * 2);
    // Step 3 of rank 0: chunks to rank 3 (block 3) and from rank 5 (block 0).
    const std::vector<uint64_t> to3 = {65536, 65536, 65536, 65536, 37857};
    const std::vector<uint64_t> from5 = {65536, 65536, 65536, 65536, 37856};
    for (uint32_t chunk = 0; chunk < 5; ++chunk)
    {
        const MessageOp send = schedule->Op((2 * 5 + chunk) * 2);
        const MessageOp recv = schedule->Op((2 * 5 + chunk) * 2 + 1);
        BOOST_TEST(send.send);
        BOOST_TEST(send.peer == 3u);
        BOOST_TEST(send.tag == chunk);
        BOOST_TEST(send.bytes == to3[chunk]);
        BOOST_TEST(!recv.send);
        BOOST_TEST(recv.peer == 5u);
        BOOST_TEST(recv.tag == chunk);
        BOOST_TEST(recv.bytes == from5[chunk]);
        BOOST_TEST(schedule->NextRecv(5, chunk, CollectiveSchedule::kNone) ==
                   (2 * 5 + chunk) * 2 + 1);
    }

    // 524,291 = 8 x 65,536 + 3: the boundaries floor(524,291 j / 8) put the three extra bytes in
    // blocks 2, 5 and 7 (65,537), the others have 65,536; two chunk slots
    // for every message; a block of exactly 65,536 bytes has an empty second chunk.
    auto exact = CreateCollectiveAlgorithm("grouped-p2p")
                     ->Build(Request(ChakraProtoMsg::ALL_TO_ALL, 8, 7, 524291));
    BOOST_REQUIRE(exact->Size() == 7u * 2 * 2);
    // Rank 7, step 1: to rank 0 (block 0: 65,536 + 0), from rank 6 (block 7: 65,536 + 1).
    BOOST_TEST(exact->Op(0).peer == 0u);
    BOOST_TEST(exact->Op(0).bytes == 65536u);
    BOOST_TEST(exact->Op(2).bytes == 0u);
    BOOST_TEST(exact->Op(1).peer == 6u);
    BOOST_TEST(exact->Op(1).bytes == 65536u);
    BOOST_TEST(exact->Op(3).bytes == 1u);

    // Scatter and gather: the root's messages are chunked the same way; other ranks have one
    // step with the root. Scatter of 2,400,005 from root 0: rank 4 receives block 4 (300,001)
    // in five chunks; gather of 100,000 bytes per rank: two chunks, 65,536 and 34,464.
    auto scatter = CreateCollectiveAlgorithm("grouped-p2p")
                       ->Build(Request(ChakraProtoMsg::SCATTER, 8, 4, 2400005));
    BOOST_REQUIRE(scatter->Size() == 5u);
    BOOST_TEST(!scatter->Op(4).send);
    BOOST_TEST(scatter->Op(4).peer == 0u);
    BOOST_TEST(scatter->Op(4).bytes == 37857u);
    auto gatherRoot = CreateCollectiveAlgorithm("grouped-p2p")
                          ->Build(Request(ChakraProtoMsg::GATHER, 8, 0, 100000));
    BOOST_REQUIRE(gatherRoot->Size() == 7u * 2);
    BOOST_TEST(gatherRoot->Op(0).peer == 7u); // step 1: from me - 1
    BOOST_TEST(gatherRoot->Op(0).bytes == 65536u);
    BOOST_TEST(gatherRoot->Op(1).bytes == 34464u);
    auto gatherOther = CreateCollectiveAlgorithm("grouped-p2p")
                           ->Build(Request(ChakraProtoMsg::GATHER, 8, 2, 100000));
    BOOST_REQUIRE(gatherOther->Size() == 2u);
    BOOST_TEST(gatherOther->Op(1).send);
    BOOST_TEST(gatherOther->Op(1).peer == 0u);
}

BOOST_AUTO_TEST_CASE(every_peer_gets_bytes_over_n)
{
    // 8 ranks, 2,400,005 bytes per rank, chunks of 65,536, window 3: summed over its chunks,
    // what rank s sends to rank d, and what d receives from s, is block d: 300,000 bytes for
    // d = 0, 2, 5 and 300,001 for the others (see chunks_by_hand).
    WindowAndChunk settings(3, 65536);
    std::map<std::pair<uint32_t, uint32_t>, uint64_t> sent;
    std::map<std::pair<uint32_t, uint32_t>, uint64_t> received;
    for (uint32_t me = 0; me < 8; ++me)
    {
        auto schedule = CreateCollectiveAlgorithm("grouped-p2p")
                            ->Build(Request(ChakraProtoMsg::ALL_TO_ALL, 8, me, 2400005));
        for (const CollectiveOp& op : ListOps(*schedule))
        {
            (op.send ? sent[{me, op.peer}] : received[{op.peer, me}]) += op.bytes;
        }
    }
    BOOST_TEST(sent.size() == 56u);
    BOOST_TEST(received.size() == 56u);
    for (const auto& [pair, bytes] : sent)
    {
        BOOST_TEST_CONTEXT(pair.first << " -> " << pair.second)
        {
            BOOST_TEST(pair.first != pair.second);
            const bool small = pair.second == 0 || pair.second == 2 || pair.second == 5;
            BOOST_TEST(bytes == (small ? 300000u : 300001u));
            BOOST_TEST(received[pair] == bytes);
        }
    }
    // And in a simulation (flow, two hosts of four GPUs): every message matches its receive
    // (a size mismatch is a warning) and the call completes on every rank.
    chakra_test::ClusterConfig config;
    config.hosts = 2;
    config.gpusPerHost = 4;
    config.transport = "flow";
    RunAllToAll(8, 2400005, config);
}

BOOST_AUTO_TEST_CASE(large_alltoall_on_one_switch_matches_the_closed_form)
{
    // 8 ranks on one 100 Gb/s switch, 64 MiB per rank (8 MiB to each peer). Payload rate:
    // 100 Gb/s x 8,948 / 9,002 (MTU 9,000 on the wire); a = two 1 us links + one frame's
    // store-and-forward. The NIC is the bottleneck: (n - 1) x (S / n) / B, plus a once with
    // every step in flight (window 256), plus a per step with one step at a time (window 1:
    // the send of step i waits for the receive of step i - 1). Within 1% (simulated: 0.4% and
    // 0.7% above).
    const uint32_t n = 8;
    const double bytes = 64 << 20;
    const double bandwidth = 100e9 / 8 * 8948.0 / 9002.0;
    const double latency = 2 * 1e-6 + 9002 * 8 / 100e9;
    const double transfer = (n - 1) * (bytes / n) / bandwidth;
    for (uint32_t window : {256u, 1u})
    {
        WindowAndChunk settings(window, 131072);
        const double simulated = Us(RunAllToAll(n, 64 << 20, FlatSwitch(n)).GetIterationTime());
        const double closed = (transfer + (window == 1 ? n - 1 : 1) * latency) * 1e6;
        BOOST_TEST_MESSAGE("window " << window << ": simulated " << simulated << " us, closed form "
                                     << closed << " us");
        BOOST_TEST(std::abs(simulated / closed - 1) < 0.01);
    }
}

BOOST_AUTO_TEST_CASE(bad_attributes_are_refused_naming_them)
{
    BOOST_TEST(!Config::SetDefaultFailSafe("ns3::GroupedP2pCollective::Window", UintegerValue(0)));
    BOOST_TEST(
        !Config::SetDefaultFailSafe("ns3::GroupedP2pCollective::ChunkBytes", UintegerValue(0)));
    for (const char* name : {"Window", "ChunkBytes"})
    {
        const std::string path = std::string("ns3::GroupedP2pCollective::") + name;
        BOOST_TEST_CONTEXT(path)
        {
            try
            {
                SetDefaultFromText(path, "0");
                BOOST_FAIL("a zero " << name << " was accepted");
            }
            catch (const std::invalid_argument& e)
            {
                BOOST_TEST(std::string(e.what()).find(name) != std::string::npos);
            }
            Ptr<CollectiveAlgorithm> algorithm = CreateCollectiveAlgorithm("grouped-p2p");
            BOOST_TEST(!algorithm->SetAttributeFailSafe(name, UintegerValue(0)));
        }
    }
    // The defaults are untouched: NCCL's 256 steps and 128 KiB.
    Ptr<CollectiveAlgorithm> algorithm = CreateCollectiveAlgorithm("grouped-p2p");
    UintegerValue window;
    UintegerValue chunk;
    algorithm->GetAttribute("Window", window);
    algorithm->GetAttribute("ChunkBytes", chunk);
    BOOST_TEST(window.Get() == 256u);
    BOOST_TEST(chunk.Get() == 131072u);
    // Other collective types are not grouped-p2p's: the default for the type runs.
    CollectiveRequest request = Request(ChakraProtoMsg::ALL_REDUCE, 8, 0, 1000);
    BOOST_TEST(!algorithm->Supports(request));
    CollectiveAlgorithmKind::Kind kind = CollectiveAlgorithmKind::AUTO;
    const std::vector<std::string> names = CollectiveAlgorithmNames();
    for (std::size_t i = 0; i < names.size(); ++i)
    {
        if (names[i] == "grouped-p2p")
        {
            kind = static_cast<CollectiveAlgorithmKind::Kind>(i + 1);
        }
    }
    BOOST_REQUIRE(kind != CollectiveAlgorithmKind::AUTO);
    BOOST_TEST(ChooseCollectiveAlgorithm(kind, request)->GetName() != "grouped-p2p");
    request.type = ChakraProtoMsg::ALL_TO_ALL;
    BOOST_TEST(ChooseCollectiveAlgorithm(kind, request)->GetName() == "grouped-p2p");
}

BOOST_AUTO_TEST_CASE(schedule_contract_with_small_windows_and_chunks)
{
    // What the engine relies on (as collectives-test checks for every algorithm with its
    // defaults, where 256 steps never bind on 13 ranks), with windows that bind and several
    // chunks: deps are earlier ops, Dependent() lists exactly the ops naming the op in Dep(),
    // in increasing order; NextRecv() finds every receive of a (peer, tag) in order; what one
    // rank sends another receives, message by message.
    using namespace ChakraProtoMsg;
    uint32_t calls = 0;
    for (uint32_t window : {1u, 2u, 3u})
    {
        for (uint64_t chunk : {uint64_t(40000), uint64_t(1) << 20})
        {
            WindowAndChunk settings(window, chunk);
            Ptr<CollectiveAlgorithm> algorithm = CreateCollectiveAlgorithm("grouped-p2p");
            for (auto type : {ALL_TO_ALL, GATHER, SCATTER})
            {
                for (uint32_t n = 2; n <= 9; ++n)
                {
                    std::map<std::tuple<uint32_t, uint32_t, int64_t>, std::vector<uint64_t>> sent;
                    std::map<std::tuple<uint32_t, uint32_t, int64_t>, std::vector<uint64_t>>
                        received;
                    bool ok = true;
                    for (uint32_t me = 0; me < n; ++me)
                    {
                        CollectiveRequest request = Request(type, n, me, 1000003);
                        request.root = n / 2;
                        auto schedule = algorithm->Build(request);
                        const uint32_t size = schedule->Size();
                        std::vector<std::vector<uint32_t>> dependents(size);
                        std::map<std::pair<uint32_t, int64_t>, std::vector<uint32_t>> recvs;
                        for (uint32_t i = 0; i < size; ++i)
                        {
                            for (uint32_t j = 0; j < schedule->DepCount(i); ++j)
                            {
                                const uint32_t dep = schedule->Dep(i, j);
                                ok = ok && dep < i;
                                dependents.at(dep).push_back(i);
                            }
                            const MessageOp op = schedule->Op(i);
                            if (op.send)
                            {
                                sent[{me, op.peer, op.tag}].push_back(op.bytes);
                            }
                            else
                            {
                                received[{op.peer, me, op.tag}].push_back(op.bytes);
                                recvs[{op.peer, op.tag}].push_back(i);
                            }
                        }
                        for (uint32_t i = 0; i < size; ++i)
                        {
                            std::vector<uint32_t> listed;
                            for (uint32_t j = 0; j < schedule->DependentCount(i); ++j)
                            {
                                listed.push_back(schedule->Dependent(i, j));
                            }
                            ok = ok && listed == dependents[i];
                        }
                        for (const auto& [key, ops] : recvs)
                        {
                            std::vector<uint32_t> found;
                            for (uint32_t op = schedule->NextRecv(key.first,
                                                                  key.second,
                                                                  CollectiveSchedule::kNone);
                                 op != CollectiveSchedule::kNone && found.size() <= size;
                                 op = schedule->NextRecv(key.first, key.second, op))
                            {
                                found.push_back(op);
                            }
                            ok = ok && found == ops;
                        }
                        ok = ok && schedule->NextRecv(me, 0, CollectiveSchedule::kNone) ==
                                       CollectiveSchedule::kNone;
                    }
                    BOOST_TEST_CONTEXT(CommTypeName(type)
                                       << " n=" << n << " window " << window << " chunk " << chunk)
                    {
                        BOOST_TEST(ok);
                        BOOST_TEST((sent == received));
                    }
                    ++calls;
                }
            }
        }
    }
    BOOST_TEST(calls == 3u * 2 * 3 * 8);
}
