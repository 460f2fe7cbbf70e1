/*
 * Collectives are matched in program order: a call's number on its communicator is its position
 * in the rank's trace, whatever the order in which the rank's streams and threads get to run
 * them; ranks that disagree on a call stop the run with an error naming both.
 */
#define BOOST_TEST_MODULE call_order
#include "chakra-test-data.h"
#include "simulation-util.h"

#include "ns3/chakra-module.h"
#include "ns3/core-module.h"

#include <boost/test/unit_test.hpp>
#include <map>
#include <sys/wait.h>

using namespace ns3;
using chakra_test::AllReduce;
using chakra_test::Attr;
using chakra_test::Cpu;
using chakra_test::Gpu;
using chakra_test::P2p;
using chakra_test::TempDir;
using chakra_test::TraceNode;
using chakra_test::Us;
using chakra_test::WriteJsonTrace;

namespace
{

constexpr uint64_t kBig = 64u << 20;
constexpr uint64_t kSmall = 4;
constexpr uint64_t kCpuMicros = 10;

/**
 * The reproducer, one rank: a CPU op (node 0); a kernel on stream 7 (node 1); a 64 MiB
 * all-reduce on stream 24 after both (node 2); then a host-thread 4-byte all-reduce that
 * depends only on the CPU op (node \p smallId). With \p swapped the two calls are written in the
 * other order (a rank whose program differs).
 */
std::string
Reproducer(uint64_t kernelMicros, bool swapped = false, uint64_t smallId = 3)
{
    const std::string cpu = TraceNode(0, "cpu_op", "COMP_NODE", Cpu(1), {}, kCpuMicros);
    const std::string kernel = TraceNode(1, "kernel", "COMP_NODE", Gpu(7), {}, kernelMicros);
    const std::string big = TraceNode(swapped ? smallId + 1 : 2,
                                      "allreduce_64MiB",
                                      "COMM_COLL_NODE",
                                      AllReduce(kBig, "tp") + ", " + Gpu(24),
                                      {0, 1});
    const std::string small = TraceNode(swapped ? 2 : smallId,
                                        "allreduce_4B",
                                        "COMM_COLL_NODE",
                                        AllReduce(kSmall, "tp") + ", " + Cpu(1),
                                        {0});
    return cpu + "," + kernel + "," + (swapped ? small + "," + big : big + "," + small);
}

/** \return the records of a rank by call number */
std::map<uint64_t, CommRecord>
CallsOf(const ChakraReport& report, uint32_t rank)
{
    std::map<uint64_t, CommRecord> calls;
    for (const auto& record : report.GetCommRecords())
    {
        if (record.rank == rank)
        {
            calls[record.seq] = record;
        }
    }
    return calls;
}

/** Everything the ranks reported, errors and warnings, as one text. */
std::string
Problems(const ChakraReport& report)
{
    std::string text;
    for (const auto& rank : report.GetRanks())
    {
        text += rank.error + "\n";
        for (const auto& warning : rank.warnings)
        {
            text += warning + "\n";
        }
    }
    return text;
}

} // namespace

BOOST_AUTO_TEST_CASE(reproducer_pairs_calls_in_program_order)
{
    TempDir dir;
    const std::string prefix = dir.File("repro");
    WriteJsonTrace(prefix + ".0.et", Reproducer(1000));
    WriteJsonTrace(prefix + ".1.et", Reproducer(1));
    for (const std::string order : {"posted", "serial"})
    {
        chakra_test::ClusterConfig config;
        config.appAttributes = {{"CallOrder", order}};
        ChakraReport report = chakra_test::RunCluster(prefix, config);
        BOOST_TEST_INFO("CallOrder " << order << ": " << Problems(report));
        BOOST_REQUIRE(report.AllFinished());
        BOOST_TEST(Problems(report).find_first_not_of('\n') == std::string::npos);
        for (uint32_t rank = 0; rank < 2; ++rank)
        {
            auto calls = CallsOf(report, rank);
            BOOST_REQUIRE(calls.size() == 2u);
            // #0 is the 64 MiB call and #1 the 4-byte one on both ranks (program order), although
            // rank 0's host thread could start the small one ~990 us before its big one.
            BOOST_TEST(calls[0].bytes == kBig);
            BOOST_TEST(calls[1].bytes == kSmall);
            BOOST_TEST(calls[0].nodeId == 2u);
            BOOST_TEST(calls[1].nodeId == 3u);
        }
        auto rank0 = CallsOf(report, 0);
        // Rank 0's big call can start only after its 1000 us kernel, and its small call, later
        // in program order, not before the big one has started (posted) or completed (serial).
        BOOST_TEST(Us(rank0[0].start) >= 1000.0 - 1e-9);
        if (order == "posted")
        {
            BOOST_TEST(Us(rank0[1].start) >= Us(rank0[0].start) - 1e-9);
        }
        else
        {
            BOOST_TEST(Us(rank0[1].start) >= Us(rank0[0].end) - 1e-9);
        }
    }
}

BOOST_AUTO_TEST_CASE(ranks_that_disagree_on_a_call_stop_the_run_naming_both)
{
    TempDir dir;
    const std::string prefix = dir.File("mismatch");
    // Rank 1 issues the two calls in the other order: call #0 is 64 MiB (node 2) on rank 0 and
    // 4 bytes (node 2) on rank 1; rank 1's 64 MiB call is node 8.
    WriteJsonTrace(prefix + ".0.et", Reproducer(1000));
    WriteJsonTrace(prefix + ".1.et", Reproducer(1, true, 7));
    ChakraReport report = chakra_test::RunCluster(prefix, chakra_test::ClusterConfig());
    BOOST_TEST(!report.AllFinished());
    std::string errors;
    for (const auto& rank : report.GetRanks())
    {
        errors += rank.error;
    }
    BOOST_TEST_INFO(errors);
    BOOST_TEST(errors.find("disagree on collective call #0 of communicator 'tp'") !=
               std::string::npos);
    BOOST_TEST(errors.find("ALL_REDUCE of 67108864 bytes (node 2)") != std::string::npos);
    BOOST_TEST(errors.find("ALL_REDUCE of 4 bytes (node 2)") != std::string::npos);
    BOOST_TEST((errors.find("ranks 0 and 1") != std::string::npos ||
                errors.find("ranks 1 and 0") != std::string::npos));
    // The run stopped at the mismatch: nothing ran the 64 MiB calls to the end.
    BOOST_TEST(report.GetIterationTime() < MicroSeconds(1000));
}

BOOST_AUTO_TEST_CASE(chakra_cluster_exits_non_zero_on_a_mismatch)
{
    TempDir dir;
    const std::string prefix = dir.File("tool");
    WriteJsonTrace(prefix + ".0.et", Reproducer(1000));
    WriteJsonTrace(prefix + ".1.et", Reproducer(1, true, 7));
    const std::string output = dir.File("out.txt");
    const std::string command = chakra_test::ToolPath("chakra-cluster") + " --trace=" + prefix +
                                " --hosts=1 --gpusPerHost=2 > " + output + " 2>&1";
    const int status = std::system(command.c_str());
    BOOST_TEST(WIFEXITED(status));
    BOOST_TEST(WEXITSTATUS(status) == 1);
    const std::string printed = chakra_test::ReadFileBytes(output);
    BOOST_TEST_INFO(printed);
    BOOST_TEST(printed.find("disagree on collective call #0") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(point_to_point_size_mismatch_is_an_error_naming_both_nodes)
{
    TempDir dir;
    const std::string prefix = dir.File("p2p");
    WriteJsonTrace(prefix + ".0.et",
                   TraceNode(4, "send", "COMM_SEND_NODE", P2p("comm_dst", 1, 4096, 3)));
    WriteJsonTrace(prefix + ".1.et",
                   TraceNode(9, "recv", "COMM_RECV_NODE", P2p("comm_src", 0, 1024, 3)));
    ChakraReport report = chakra_test::RunCluster(prefix, chakra_test::ClusterConfig());
    BOOST_TEST(!report.AllFinished());
    const std::string error = report.GetRanks()[1].error;
    BOOST_TEST_INFO(error);
    BOOST_TEST(error.find("rank 1 node 9 posted a receive of 1024 bytes from rank 0 node 4") !=
               std::string::npos);
    BOOST_TEST(error.find("which sent 4096 bytes") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(tensor_parallel_step_with_a_trailing_host_call_pairs_every_call)
{
    TempDir dir;
    const std::string prefix = dir.File("tp");
    TensorParallelSpec spec;
    spec.tp = 4;
    spec.layers = 6;
    spec.activationBytes = 1u << 20;
    spec.forwardMicros = 100;
    spec.backwardMicros = 200;
    spec.hostAllReduceBytes = 4;
    // The host call becomes ready 150, 300, 450 and 600 us into the step: before the first GPU
    // all-reduce on rank 0 and after several on rank 3 (start order differs on every rank).
    spec.hostLeadMicros = 150;
    WorkloadGenerator::WriteTensorParallelStep(prefix, spec);
    chakra_test::ClusterConfig config;
    config.gpusPerHost = 4;
    ChakraReport report = chakra_test::RunCluster(prefix, config);
    BOOST_TEST_INFO(Problems(report));
    BOOST_REQUIRE(report.AllFinished());
    // Each layer has 4 tensor-parallel all-reduces (2 forward, 2 backward): the host call is
    // call #24 of communicator tp0 on every rank, and every call has the same size everywhere.
    const uint64_t hostCall = 4 * spec.layers;
    std::map<uint64_t, uint64_t> bytesOfCall;
    for (uint32_t rank = 0; rank < 4; ++rank)
    {
        auto calls = CallsOf(report, rank);
        BOOST_REQUIRE(calls.size() == hostCall + 1);
        BOOST_TEST(calls[hostCall].bytes == spec.hostAllReduceBytes);
        for (const auto& [seq, record] : calls)
        {
            BOOST_TEST(record.pg == "tp0");
            if (seq != hostCall)
            {
                BOOST_TEST(record.bytes == spec.activationBytes);
            }
        }
    }
    for (const auto& rank : report.GetRanks())
    {
        BOOST_TEST(rank.warnings.empty());
    }
}

BOOST_AUTO_TEST_CASE(unknown_transport_model_is_a_clear_error)
{
    TempDir dir;
    const std::string prefix = dir.File("one");
    WriteJsonTrace(prefix + ".0.et", TraceNode(0, "work", "COMP_NODE", Gpu(0), {}, 5));
    // The cluster is built for a transport model: an unknown one is refused before anything runs.
    chakra_test::ClusterConfig config;
    config.gpusPerHost = 1;
    config.transport = "carrier-pigeon";
    try
    {
        chakra_test::RunCluster(prefix, config);
        BOOST_FAIL("an unknown transport model was accepted");
    }
    catch (const std::invalid_argument& e)
    {
        BOOST_TEST(std::string(e.what()).find("Transport: 'carrier-pigeon' is not valid (one "
                                              "of: tcp, rdma, flow, auto)") != std::string::npos,
                   e.what());
    }
    // The applications' own Transport attribute refuses it too, when the helper is told.
    ChakraHelper chakra(prefix);
    try
    {
        chakra.SetAttribute("Transport", StringValue("carrier-pigeon"));
        BOOST_FAIL("an unknown transport model was accepted");
    }
    catch (const std::invalid_argument& e)
    {
        BOOST_TEST(std::string(e.what()).find("'carrier-pigeon' is not valid (one of: tcp, "
                                              "rdma, flow)") != std::string::npos,
                   e.what());
    }
}
