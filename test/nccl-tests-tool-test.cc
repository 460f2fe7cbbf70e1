/*
 * chakra_nccl_tests (issue 27, first slice): nccl-tests' conventions (bandwidths, sizes, counts,
 * number formats) against hand calculations, NCCL_ALGO / NCCL_PROTO as NCCL reads them, and
 * the tool itself: a ring all-reduce whose printed time matches the closed form of the
 * accuracy table, sizes that do not depend on the sweep around them, and bad input refused
 * with nothing printed as results.
 */
#define BOOST_TEST_MODULE nccl_tests_tool
#include "../bench/collective-closed-forms.h"
#include "chakra-test-data.h"

#include "ns3/nccl-tests.h"

#include <boost/test/unit_test.hpp>
#include <cmath>
#include <sstream>
#include <string>
#include <vector>

using namespace ns3;
using chakra_test::RunCommand;
using chakra_test::ToolPath;

namespace
{

bool
Contains(const std::string& text, const std::string& part)
{
    return text.find(part) != std::string::npos;
}

/** One printed result row. */
struct Row
{
    uint64_t size{0};
    uint64_t count{0};
    std::string type;
    std::string redop;
    int root{0};
    double timeUs{0};
    double algBw{0};
    double busBw{0};
    std::string wrong;
    double inPlaceTimeUs{0};
};

/** \return the result rows of the tool's output (the lines not starting with '#') */
std::vector<Row>
ParseRows(const std::string& output)
{
    std::vector<Row> rows;
    std::istringstream lines(output);
    std::string line;
    while (std::getline(lines, line))
    {
        if (line.empty() || line[0] == '#')
        {
            continue;
        }
        std::istringstream fields(line);
        Row row;
        std::string inWrong;
        double inAlg = 0;
        double inBus = 0;
        if (fields >> row.size >> row.count >> row.type >> row.redop >> row.root >> row.timeUs >>
            row.algBw >> row.busBw >> row.wrong >> row.inPlaceTimeUs >> inAlg >> inBus >> inWrong)
        {
            rows.push_back(row);
        }
    }
    return rows;
}

chakra_test::CommandResult
Tool(const std::string& arguments, const std::string& environment = "")
{
    return RunCommand("env -u NCCL_ALGO -u NCCL_PROTO " + environment + " timeout 120 " +
                      ToolPath("chakra_nccl_tests") + " " + arguments);
}

/** 4 GPUs, one per host, on one switch: the flat section of the accuracy table. */
const std::string kFlat4 = "--hosts 4 --gpus-per-host 1 --topology single-switch "
                           "--nic-bandwidth 100Gbps --nic-latency 1us --mtu 9000";

/** Checks a refused command: non-zero exit, the error, and no result printed. */
void
ExpectRefused(const chakra_test::CommandResult& result, const std::string& expected)
{
    BOOST_TEST(result.exitCode != 0, result.output);
    BOOST_TEST(Contains(result.output, "chakra_nccl_tests: error: "), result.output);
    BOOST_TEST(Contains(result.output, expected), result.output);
    BOOST_TEST(!Contains(result.output, "Avg bus bandwidth"), result.output);
    BOOST_TEST(!Contains(result.output, "out-of-place"), result.output);
    BOOST_TEST(ParseRows(result.output).empty(), result.output);
    BOOST_TEST(!Contains(result.output, "terminate called"), result.output);
}

} // namespace

BOOST_AUTO_TEST_CASE(bandwidths_follow_nccl_tests_factors)
{
    // 1 ms on 8 ranks. all_reduce, broadcast, reduce, sendrecv: 2^20 floats = 4194304 bytes;
    // all_gather, reduce_scatter, alltoall: 2^17 floats per rank, x 8 ranks = 4194304 bytes.
    const double algBw = 4194304 / 1e9 / 1e-3; // 4.194304 GB/s

    struct Case
    {
        const char* name;
        uint64_t count;
        double busBw;
    };

    const std::vector<Case> cases = {
        {"all_reduce", 1 << 20, 7.340032}, // 2 x 7/8
        {"all_gather", 1 << 17, 3.670016}, // 7/8
        {"reduce_scatter", 1 << 17, 3.670016},
        {"alltoall", 1 << 17, 3.670016},
        {"broadcast", 1 << 20, 4.194304}, // 1
        {"reduce", 1 << 20, 4.194304},
        {"sendrecv", 1 << 20, 4.194304},
    };
    for (const Case& c : cases)
    {
        const NcclTestsBandwidth bw =
            NcclTestsBandwidths(FindNcclTestsCollective(c.name), c.count, 4, 1e-3, 8);
        BOOST_TEST(bw.algBw == algBw, c.name << " algbw " << bw.algBw);
        BOOST_TEST(std::abs(bw.busBw - c.busBw) < 1e-9, c.name << " busbw " << bw.busBw);
    }
    // all_reduce on 2 ranks: busbw = algbw x 2 x 1/2.
    const NcclTestsBandwidth two =
        NcclTestsBandwidths(FindNcclTestsCollective("all_reduce"), 250, 4, 1e-6, 2);
    BOOST_TEST(two.algBw == 1.0);
    BOOST_TEST(two.busBw == 1.0);
    BOOST_TEST(NcclTestsBandwidths(FindNcclTestsCollective("all_reduce"), 8, 4, 0, 8).algBw == 0);
    BOOST_TEST(FindNcclTestsCollective("all_reduce_perf").name == "all_reduce");
    BOOST_CHECK_THROW(FindNcclTestsCollective("allreduce"), std::invalid_argument);
}

BOOST_AUTO_TEST_CASE(size_sweeps)
{
    using V = std::vector<uint64_t>;
    BOOST_TEST(NcclTestsSizes(8, 128, 2, 0) == (V{8, 16, 32, 64, 128}),
               boost::test_tools::per_element());
    BOOST_TEST(NcclTestsSizes(8, 128, 4, 0) == (V{8, 32, 128}), boost::test_tools::per_element());
    BOOST_TEST(NcclTestsSizes(8, 100, 4, 0) == (V{8, 32}), boost::test_tools::per_element());
    // -f below 2: -i bytes at a time (the factor is not used).
    BOOST_TEST(NcclTestsSizes(8, 40, 1, 16) == (V{8, 24, 40}), boost::test_tools::per_element());
    BOOST_TEST(NcclTestsSizes(8, 45, 0, 16) == (V{8, 24, 40}), boost::test_tools::per_element());
    // nccl-tests' defaults: -b 32M -e 32M -f 1 -i 1M.
    BOOST_TEST(NcclTestsSizes(32u << 20, 32u << 20, 1, 1u << 20) == (V{32u << 20}),
               boost::test_tools::per_element());
    BOOST_TEST(NcclTestsSizes(100, 100, 1, 0) == (V{100}), boost::test_tools::per_element());
    BOOST_CHECK_THROW(NcclTestsSizes(128, 8, 2, 0), std::invalid_argument);
    BOOST_CHECK_THROW(NcclTestsSizes(0, 8, 2, 0), std::invalid_argument);  // 0 x 2 = 0
    BOOST_CHECK_THROW(NcclTestsSizes(8, 16, 1, 0), std::invalid_argument); // + 0 bytes
    BOOST_CHECK_THROW(NcclTestsSizes(1, 100, 1, 1, 10), std::invalid_argument);
    // nccl-tests' size syntax: K, M, G are 1024-based, decimals allowed.
    BOOST_TEST(ParseNcclTestsSize("8", "-b") == 8u);
    BOOST_TEST(ParseNcclTestsSize("64K", "-b") == 65536u);
    BOOST_TEST(ParseNcclTestsSize("1m", "-b") == 1048576u);
    BOOST_TEST(ParseNcclTestsSize("8G", "-b") == 8589934592u);
    BOOST_TEST(ParseNcclTestsSize("1.5K", "-b") == 1536u);
    BOOST_TEST(ParseNcclTestsSize("64KiB", "-b") == 65536u);
    for (const char* bad : {"", "-8", "1Q", "K", "1KX", "2T"})
    {
        BOOST_CHECK_THROW(ParseNcclTestsSize(bad, "-b"), std::invalid_argument);
    }
}

BOOST_AUTO_TEST_CASE(sizes_and_counts_round_as_nccl_tests)
{
    const auto& allReduce = FindNcclTestsCollective("all_reduce");
    const auto& allGather = FindNcclTestsCollective("all_gather");
    const auto& reduceScatter = FindNcclTestsCollective("reduce_scatter");
    const auto& alltoall = FindNcclTestsCollective("alltoall");
    // 1001 B of float: 250 elements, 1000 B.
    NcclTestsRowShape s = NcclTestsShape(allReduce, 1001, 4, 8);
    BOOST_TEST(s.count == 250u);
    BOOST_TEST(s.sizeBytes == 1000u);
    BOOST_TEST(s.commSize == 1000u);
    // all_gather, 1000 B of float on 8 ranks: 250 / 8 = 31 per rank, down to a multiple of
    // 16 B (4 floats): 28; size 28 x 8 x 4 = 896; comm_size one rank's 112 B.
    s = NcclTestsShape(allGather, 1000, 4, 8);
    BOOST_TEST(s.count == 28u);
    BOOST_TEST(s.sizeBytes == 896u);
    BOOST_TEST(s.commSize == 112u);
    // reduce_scatter: the same row, comm_size the whole input.
    s = NcclTestsShape(reduceScatter, 1000, 4, 8);
    BOOST_TEST(s.count == 28u);
    BOOST_TEST(s.sizeBytes == 896u);
    BOOST_TEST(s.commSize == 896u);
    // int8: 125 per rank, down to 112 (16 B).
    s = NcclTestsShape(allGather, 1000, 1, 8);
    BOOST_TEST(s.count == 112u);
    BOOST_TEST(s.sizeBytes == 896u);
    // double alltoall of 1 MiB on 8 ranks: 16384 per rank (a multiple of 2), nothing lost.
    s = NcclTestsShape(alltoall, 1 << 20, 8, 8);
    BOOST_TEST(s.count == 16384u);
    BOOST_TEST(s.sizeBytes == uint64_t(1) << 20);
    BOOST_TEST(s.commSize == uint64_t(1) << 20);
    // 8 B of all_gather on 8 ranks: nothing per rank.
    s = NcclTestsShape(allGather, 8, 4, 8);
    BOOST_TEST(s.count == 0u);
    BOOST_TEST(s.sizeBytes == 0u);
    BOOST_TEST(NcclTestsTypeSize("bfloat16") == 2u);
    BOOST_TEST(NcclTestsTypeSize("double") == 8u);
    BOOST_TEST(NcclTestsTypeSize("uint8") == 1u);
    BOOST_CHECK_THROW(NcclTestsTypeSize("float32"), std::invalid_argument);
    BOOST_CHECK_THROW(NcclTestsTypeSize("all"), std::invalid_argument);
    BOOST_CHECK_NO_THROW(CheckNcclTestsOp("avg"));
    BOOST_CHECK_THROW(CheckNcclTestsOp("xor"), std::invalid_argument);
}

BOOST_AUTO_TEST_CASE(numbers_as_nccl_tests_writes_them)
{
    BOOST_TEST(FormatNcclTestsNumber(7.506, 7) == "   7.51");
    BOOST_TEST(FormatNcclTestsNumber(12345.678, 7) == "12345.7");
    BOOST_TEST(FormatNcclTestsNumber(1234567.8, 7) == "1234568");
    BOOST_TEST(FormatNcclTestsNumber(123456789.0, 7) == "1.2e+08");
    BOOST_TEST(FormatNcclTestsNumber(441.3125, 6) == "441.31");
    BOOST_TEST(FormatNcclTestsNumber(1234.5, 6) == "1234.5");
    BOOST_TEST(FormatNcclTestsNumber(1234567.0, 6) == " 1e+06");
}

BOOST_AUTO_TEST_CASE(nccl_algo_and_proto)
{
    const auto& allReduce = FindNcclTestsCollective("all_reduce");
    const auto& allGather = FindNcclTestsCollective("all_gather");
    BOOST_TEST(NcclAlgoAlgorithm("", allReduce) == "");
    BOOST_TEST(NcclAlgoAlgorithm("Ring", allReduce) == "ring");
    BOOST_TEST(NcclAlgoAlgorithm("TREE", allReduce) == "tree");
    BOOST_TEST(NcclAlgoAlgorithm("ring, Ring", allReduce) == "ring");
    BOOST_TEST(NcclAlgoAlgorithm("allreduce:tree;allgather:ring", allReduce) == "tree");
    BOOST_TEST(NcclAlgoAlgorithm("allreduce:tree;allgather:ring", allGather) == "ring");
    BOOST_TEST(NcclAlgoAlgorithm("allreduce:tree", FindNcclTestsCollective("broadcast")) == "");
    // All-to-all and send/receive are point-to-point in NCCL: NCCL_ALGO does not govern them.
    BOOST_TEST(NcclAlgoAlgorithm("Ring", FindNcclTestsCollective("alltoall")) == "");
    BOOST_TEST(NcclAlgoAlgorithm("Tree", FindNcclTestsCollective("sendrecv")) == "");
    // NVLS and CollNet are the NCCL model's (--algorithm nccl), not textbook algorithms.
    for (const char* ncclOnly : {"NVLS", "nvlstree", "CollNetDirect", "collnetchain", "PAT"})
    {
        BOOST_CHECK_EXCEPTION(
            NcclAlgoAlgorithm(ncclOnly, allReduce),
            std::invalid_argument,
            [](const std::invalid_argument& e) { return Contains(e.what(), "--algorithm nccl"); });
    }
    try
    {
        NcclAlgoAlgorithm("Ring,Bogus", allReduce);
        BOOST_ERROR("Bogus accepted");
    }
    catch (const std::invalid_argument& e)
    {
        BOOST_TEST(Contains(e.what(), "NCCL_ALGO"), e.what());
        BOOST_TEST(Contains(e.what(), "'Bogus'"), e.what());
    }
    // Several algorithms, or an exclusion, leave NCCL's tuning model a choice; a simulated
    // run uses one algorithm. Every function's entry is checked.
    BOOST_CHECK_THROW(NcclAlgoAlgorithm("Ring,Tree", allReduce), std::invalid_argument);
    BOOST_CHECK_THROW(NcclAlgoAlgorithm("^NVLS", allReduce), std::invalid_argument);
    BOOST_CHECK_THROW(NcclAlgoAlgorithm("allreduce:ring;allgather:nvls", allReduce),
                      std::invalid_argument);
    // NCCL's functions are the prefixes: "alltoall:" is not one.
    BOOST_CHECK_THROW(NcclAlgoAlgorithm("alltoall:ring", allReduce), std::invalid_argument);
    // NCCL_PROTO restricts the printed NCCL choice (the tuning model): valid values pass.
    BOOST_CHECK_NO_THROW(CheckNcclProto(""));
    for (const char* proto : {"LL", "ll128", "Simple", "^LL", "LL,Simple;allreduce:LL128"})
    {
        BOOST_CHECK_NO_THROW(CheckNcclProto(proto));
    }
    try
    {
        CheckNcclProto("LL129");
        BOOST_ERROR("LL129 accepted");
    }
    catch (const std::invalid_argument& e)
    {
        BOOST_TEST(Contains(e.what(), "NCCL_PROTO=LL129"), e.what());
        BOOST_TEST(Contains(e.what(), "unknown protocol 'LL129'"), e.what());
    }
}

BOOST_AUTO_TEST_CASE(ring_all_reduce_matches_the_closed_form)
{
    // The accuracy table's flat case: 4 GPUs on one switch, NIC 100 Gbps, 1 us, MTU 9000,
    // rdma; ring all-reduce of 1 MiB and 4 MiB. Closed form 2(n-1)a + 2(n-1)/n S/B plus the
    // last ACK's way back, within the table's 5%.
    const auto result =
        Tool("all_reduce -b 1M -e 4M -f 4 --transport rdma --algorithm ring " + kFlat4);
    BOOST_REQUIRE_MESSAGE(result.exitCode == 0, result.output);
    const std::vector<Row> rows = ParseRows(result.output);
    BOOST_REQUIRE_EQUAL(rows.size(), 2u);
    const chakra_bench::PathModel nic = chakra_bench::TwoHopPath(100e9, 1e-6, 9000, "rdma");
    for (std::size_t i = 0; i < rows.size(); ++i)
    {
        const Row& row = rows[i];
        const uint64_t size = uint64_t(1) << (20 + 2 * i);
        BOOST_TEST(row.size == size);
        BOOST_TEST(row.count == size / 4);
        BOOST_TEST(row.type == "float");
        BOOST_TEST(row.redop == "sum");
        BOOST_TEST(row.root == -1);
        BOOST_TEST(row.wrong == "N/A");
        BOOST_TEST(row.inPlaceTimeUs == row.timeUs);
        const double closed =
            (chakra_bench::FlatClosedForm(ChakraProtoMsg::ALL_REDUCE, "ring", 4, size, nic) +
             nic.completion) *
            1e6;
        BOOST_TEST(std::abs(row.timeUs / closed - 1) < 0.05,
                   "size " << size << ": " << row.timeUs << " us, closed form " << closed);
        // algbw = S / t, busbw = algbw x 2 x 3/4 (to the printed 2 decimals).
        const double algBw = size / 1e9 / (row.timeUs * 1e-6);
        BOOST_TEST(std::abs(row.algBw - algBw) < 0.01, row.algBw << " vs " << algBw);
        BOOST_TEST(std::abs(row.busBw - 1.5 * row.algBw) < 0.02, row.busBw);
    }
    BOOST_TEST(Contains(result.output, "# Simulated algorithm: ring (2 of 2 rows)"), result.output);
    BOOST_TEST(Contains(result.output, "# Avg bus bandwidth    : "), result.output);
    // Each size is its own simulation: 4 MiB alone prints what it printed in the sweep.
    const auto alone = Tool("all_reduce -b 4M -e 4M --transport rdma --algorithm ring " + kFlat4);
    BOOST_REQUIRE_MESSAGE(alone.exitCode == 0, alone.output);
    const std::vector<Row> aloneRows = ParseRows(alone.output);
    BOOST_REQUIRE_EQUAL(aloneRows.size(), 1u);
    BOOST_TEST(aloneRows[0].timeUs == rows[1].timeUs);
}

BOOST_AUTO_TEST_CASE(columns_per_collective_and_transports)
{
    // reduce_scatter of 1000 B of float on 4 ranks: 62 per rank, down to 60; size 960.
    auto result = Tool("reduce_scatter -b 1000 -e 1000 -o max --transport flow " + kFlat4);
    BOOST_REQUIRE_MESSAGE(result.exitCode == 0, result.output);
    auto rows = ParseRows(result.output);
    BOOST_REQUIRE_EQUAL(rows.size(), 1u);
    BOOST_TEST(rows[0].size == 960u);
    BOOST_TEST(rows[0].count == 60u);
    BOOST_TEST(rows[0].redop == "max");
    BOOST_TEST(rows[0].timeUs > 0);
    BOOST_TEST(Contains(result.output, "# transport: flow"), result.output);
    // broadcast, every root in turn (-r -1); redop "none"; hardware-only flags: no effect.
    result = Tool("broadcast -b 64K -e 64K -r -1 -n 50 -w 5 -c 0 -g 8 -t 1 -d half " + kFlat4);
    BOOST_REQUIRE_MESSAGE(result.exitCode == 0, result.output);
    rows = ParseRows(result.output);
    BOOST_REQUIRE_EQUAL(rows.size(), 4u);
    for (int r = 0; r < 4; ++r)
    {
        BOOST_TEST(rows[r].root == r);
        BOOST_TEST(rows[r].redop == "none");
        BOOST_TEST(rows[r].count == 32768u);
        BOOST_TEST(rows[r].type == "half");
        // busbw = algbw for broadcast.
        BOOST_TEST(rows[r].busBw == rows[r].algBw);
    }
    BOOST_TEST(Contains(result.output, "# No effect in a simulation: -n 50 -w 5 -c 0 -g 8 -t 1"),
               result.output);
    // sendrecv: r to r+1; busbw = algbw; no algorithm.
    result = Tool("sendrecv -b 1M -e 1M --transport rdma " + kFlat4);
    BOOST_REQUIRE_MESSAGE(result.exitCode == 0, result.output);
    rows = ParseRows(result.output);
    BOOST_REQUIRE_EQUAL(rows.size(), 1u);
    BOOST_TEST(rows[0].busBw == rows[0].algBw);
    BOOST_TEST(rows[0].redop == "sum");
    BOOST_TEST(Contains(result.output, "# algorithm: none"), result.output);
}

BOOST_AUTO_TEST_CASE(nccl_algo_from_the_environment)
{
    auto result = Tool("all_reduce -b 1M -e 1M " + kFlat4, "NCCL_ALGO=Tree");
    BOOST_REQUIRE_MESSAGE(result.exitCode == 0, result.output);
    BOOST_TEST(Contains(result.output, "# algorithm: tree (NCCL_ALGO=Tree)"), result.output);
    BOOST_TEST(Contains(result.output, "# Simulated algorithm: tree"), result.output);
    result = Tool("all_reduce -b 1M -e 1M " + kFlat4, "NCCL_ALGO=ring");
    BOOST_TEST(Contains(result.output, "# Simulated algorithm: ring"), result.output);
    ExpectRefused(Tool("all_reduce -b 1M -e 1M " + kFlat4, "NCCL_ALGO=NVLS"),
                  "NCCL_ALGO=NVLS: NVLS runs in the NCCL model only: add --algorithm nccl");
    ExpectRefused(Tool("all_reduce -b 1M -e 1M " + kFlat4, "NCCL_ALGO=PAT"),
                  "NCCL_ALGO=PAT: PAT runs in the NCCL model only: add --algorithm nccl");
    ExpectRefused(Tool("all_reduce -b 1M -e 1M " + kFlat4, "NCCL_ALGO=Rign"),
                  "NCCL_ALGO=Rign: unknown algorithm 'Rign'");
    // NCCL's choice after the table (model/collective/nccl-tuning.h), for kFlat4: 4 nodes x 1
    // GPU, NIC 100 Gbps = 12.5 GB/s per node, 16 channels, > 2 nodes (llMax 20.4), one rank per
    // node (every network hop takes Tree's latency: LL 5.0, LL128 8.5, Simple 14); 1 MiB, 6 ring
    // steps, all on the network:
    //   Ring/LL128  L = 14 + 6 x 8.5 = 65, B = min(0.92 x 12.5, 587.2) x 4/6 = 7.6667:
    //               65 + 1048576 / 7666.7 = 201.77 us, NCCL's pick (Ring/LL 6.6 + 30 +
    //               1048576 / 4166.7 = 288.3; Tree/LL128 48 + 1048576 / (5.39 x 0.6 x 1000)
    //               = 372.2; Tree/Simple 64.4 + 1048576 / (5.75 x 0.5 x 1000) = 429.1).
    //   NCCL_PROTO=Simple: Ring/Simple L = (8.4 + 6 x 14) x 1.4 (plateau) = 129.36,
    //               B = 12.5 x 4/6 = 8.3333: 129.36 + 125.83 = 255.19 us.
    result = Tool("all_reduce -b 1M -e 1M " + kFlat4);
    BOOST_TEST(Contains(result.output, "#    1048576       Ring     LL128     201.77"),
               result.output);
    result = Tool("all_reduce -b 1M -e 1M " + kFlat4, "NCCL_PROTO=Simple");
    BOOST_REQUIRE_MESSAGE(result.exitCode == 0, result.output);
    BOOST_TEST(Contains(result.output, "#    1048576       Ring    Simple     255.19"),
               result.output);
    BOOST_TEST(Contains(result.output, "NCCL_PROTO=Simple"), result.output);
    ExpectRefused(Tool("all_reduce -b 1M -e 1M " + kFlat4, "NCCL_PROTO=LL64"),
                  "unknown protocol 'LL64'");
    ExpectRefused(Tool("all_reduce -b 1M -e 1M --algorithm ring " + kFlat4, "NCCL_ALGO=Tree"),
                  "disagree");
}

BOOST_AUTO_TEST_CASE(bad_input_is_refused)
{
    ExpectRefused(Tool("all_reduce -b 1M -e 8 " + kFlat4), "-b/--minbytes 1048576 is above");
    ExpectRefused(Tool("all_reduce -b 8 -e 128 -f 1 " + kFlat4), "-f/--stepfactor 1");
    ExpectRefused(Tool("broadcast -r 4 " + kFlat4), "-r/--root 4 is not a rank of the 4 GPUs");
    ExpectRefused(Tool("all_reduce -r x " + kFlat4), "-r/--root");
    ExpectRefused(Tool("allreduce " + kFlat4), "unknown collective 'allreduce'");
    ExpectRefused(Tool("all_reduce -d float7 " + kFlat4), "'float7'");
    ExpectRefused(Tool("all_reduce -o xor " + kFlat4), "'xor'");
    ExpectRefused(Tool("all_reduce -b 1Q " + kFlat4), "-b/--minbytes: '1Q'");
    ExpectRefused(Tool("all_reduce -G 1 " + kFlat4), "-G (--cudagraph)");
    ExpectRefused(Tool("all_reduce -q 1 " + kFlat4), "-q: unknown flag");
    ExpectRefused(Tool("all_reduce --minbytse 8 " + kFlat4), "--minbytse");
    ExpectRefused(Tool("all_reduce -n lots " + kFlat4), "-n/--iters");
    ExpectRefused(Tool("all_reduce --hosts 1 --gpus-per-host 1"), "needs 2 or more");
    ExpectRefused(Tool("all_reduce --gpu H100 --nvlink-bandwidth 100Gbps"), "--gpu");
    ExpectRefused(Tool("all_reduce --transport carrier-pigeon"), "--transport");
    ExpectRefused(Tool(kFlat4), "collective");
}

BOOST_AUTO_TEST_CASE(nccl_model_runs_with_its_variables)
{
    // --algorithm=nccl: the NCCL model runs; NCCL_ALGO / NCCL_PROTO go to it (no conflict with
    // --algorithm), checked with NCCL's parser; the default stays as it was.
    const std::string cluster = "--hosts 2 --gpus-per-host 4 --transport flow --topology "
                                "rail-optimized";
    auto result = Tool("all_reduce -b 1M -e 1M --algorithm nccl " + cluster, "NCCL_PROTO=LL");
    BOOST_REQUIRE_MESSAGE(result.exitCode == 0, result.output);
    BOOST_TEST(Contains(result.output, "# Simulated algorithm: nccl (1 of 1 rows)"), result.output);
    BOOST_TEST(Contains(result.output, "# nccl: NCCL's channels"), result.output);
    BOOST_TEST(Contains(result.output, "        LL  "), result.output);
    // At 64 MiB, where bandwidth rules (at 1 MiB Simple's higher per-step latency does): LL
    // puts twice the bytes on the wire, so it is slower than Simple.
    result = Tool("all_reduce -b 64M -e 64M --algorithm nccl " + cluster, "NCCL_PROTO=LL");
    BOOST_REQUIRE_MESSAGE(result.exitCode == 0, result.output);
    const std::vector<Row> ll = ParseRows(result.output);
    result = Tool("all_reduce -b 64M -e 64M --algorithm nccl " + cluster, "NCCL_PROTO=Simple");
    BOOST_REQUIRE_MESSAGE(result.exitCode == 0, result.output);
    const std::vector<Row> simple = ParseRows(result.output);
    BOOST_REQUIRE_EQUAL(ll.size(), 1u);
    BOOST_REQUIRE_EQUAL(simple.size(), 1u);
    BOOST_TEST(ll[0].timeUs > simple[0].timeUs);
    result = Tool("all_reduce -b 1M -e 1M --algorithm nccl " + cluster, "NCCL_ALGO=Tree");
    BOOST_REQUIRE_MESSAGE(result.exitCode == 0, result.output);
    BOOST_TEST(Contains(result.output, "NCCL_ALGO=Tree read by the NCCL model"), result.output);
    BOOST_TEST(Contains(result.output, "# Simulated algorithm: nccl"), result.output);
    ExpectRefused(Tool("all_reduce -b 1M -e 1M --algorithm nccl " + cluster, "NCCL_ALGO=Rign"),
                  "NCCL_ALGO=Rign: unknown algorithm 'Rign'");
    ExpectRefused(Tool("all_reduce -b 1M -e 1M --algorithm nccl " + cluster, "NCCL_PROTO=LL64"),
                  "unknown protocol 'LL64'");
    // NVLS where the machine has none is refused in the run, naming the trace node and the
    // reason, not run as something else: two hosts (NCCL needs CollNet across hosts), A100
    // GPUs, a cluster with --nvls off.
    const auto refusedInRun = [](const chakra_test::CommandResult& r, const std::string& why) {
        BOOST_TEST(r.exitCode != 0, r.output);
        BOOST_TEST(Contains(r.output, "chakra_nccl_tests: error: size 1048576: rank "), r.output);
        BOOST_TEST(Contains(r.output, "the nccl algorithm cannot run this call"), r.output);
        BOOST_TEST(Contains(r.output, why), r.output);
        BOOST_TEST(ParseRows(r.output).empty(), r.output);
    };
    refusedInRun(Tool("all_reduce -b 1M -e 1M --algorithm nccl " + cluster, "NCCL_ALGO=NVLS"),
                 "the communicator spans 2 hosts");
    // Across hosts whose network switches reduce, NVLS runs (NVLS with SHARP).
    result =
        Tool("all_reduce -b 1M -e 1M --algorithm nccl --sharp on " + cluster, "NCCL_ALGO=NVLS");
    BOOST_REQUIRE_MESSAGE(result.exitCode == 0, result.output);
    BOOST_TEST(Contains(result.output, "      NVLS    Simple"), result.output);
    const std::string oneHost = "--hosts 1 --gpus-per-host 8 --transport flow";
    refusedInRun(
        Tool("all_reduce -b 1M -e 1M --algorithm nccl --gpu A100 " + oneHost, "NCCL_ALGO=NVLS"),
        "Ampere GPUs have no NVLink SHARP");
    refusedInRun(
        Tool("all_reduce -b 1M -e 1M --algorithm nccl --nvls off " + oneHost, "NCCL_ALGO=NVLS"),
        "NvlsSupport is off");
    ExpectRefused(Tool("all_reduce -b 1M -e 1M --algorithm nccl --nvls bogus " + oneHost),
                  "--nvls");
    // On one H100 host NCCL's choice for a large all-reduce is NVLS, and it runs.
    result = Tool("all_reduce -b 256M -e 256M --algorithm nccl " + oneHost);
    BOOST_REQUIRE_MESSAGE(result.exitCode == 0, result.output);
    BOOST_TEST(Contains(result.output, "      NVLS    Simple"), result.output);
    result = Tool("all_reduce -b 1M -e 1M " + cluster);
    BOOST_TEST(!Contains(result.output, "# Simulated algorithm: nccl"), result.output);
    // CollNet: only where the switches reduce (--sharp on), then NCCL's choice for a large
    // all-reduce across hosts; forced without it, refused naming the flag; a bad value
    // refused naming the flag; the textbook algorithms do not have it.
    refusedInRun(
        Tool("all_reduce -b 1M -e 1M --algorithm nccl " + cluster, "NCCL_ALGO=CollNetDirect"),
        "--sharp off");
    ExpectRefused(Tool("all_reduce -b 1M -e 1M --algorithm nccl --sharp maybe " + cluster),
                  "--sharp");
    ExpectRefused(Tool("all_reduce -b 1M -e 1M " + cluster, "NCCL_ALGO=CollNetChain"),
                  "runs in the NCCL model only");
    // (On 2 hosts NCCL's tuning prefers NVLSTree where the NVSwitches reduce: --nvls off.)
    result = Tool("all_reduce -b 256M -e 256M --algorithm nccl --sharp on --nvls off --hosts 2 "
                  "--gpus-per-host 8 --transport flow --topology rail-optimized");
    BOOST_REQUIRE_MESSAGE(result.exitCode == 0, result.output);
    BOOST_TEST(Contains(result.output, "CollNetDirect    Simple"), result.output);
    // NVLSTree: NCCL's choice on 2 H100 hosts for a large all-reduce, and it runs.
    result = Tool("all_reduce -b 256M -e 256M --algorithm nccl --hosts 2 --gpus-per-host 8 "
                  "--transport flow --topology rail-optimized");
    BOOST_REQUIRE_MESSAGE(result.exitCode == 0, result.output);
    BOOST_TEST(Contains(result.output, "NVLSTree    Simple"), result.output);
    // PAT: NCCL's choice for a mid-size all-gather on 16 hosts of one GPU (68.8 us + N / 37.5
    // GB/s against the ring's LL at 81.6 us, doc/collectives.md "PAT"), and it runs; with 4
    // GPUs a host it is refused in the run, saying it needs one GPU a node.
    const std::string oneGpu = "--hosts 16 --gpus-per-host 1 --transport flow";
    result = Tool("all_gather -b 1M -e 1M --algorithm nccl " + oneGpu);
    BOOST_REQUIRE_MESSAGE(result.exitCode == 0, result.output);
    BOOST_TEST(Contains(result.output, "       PAT    Simple"), result.output);
    BOOST_TEST(Contains(result.output, "PAT (all-gather, reduce-scatter) with one GPU a host"),
               result.output);
    result = Tool("reduce_scatter -b 1M -e 1M --algorithm nccl " + oneGpu, "NCCL_ALGO=PAT");
    BOOST_REQUIRE_MESSAGE(result.exitCode == 0, result.output);
    BOOST_TEST(Contains(result.output, "       PAT    Simple"), result.output);
    refusedInRun(Tool("all_gather -b 1M -e 1M --algorithm nccl " + cluster, "NCCL_ALGO=PAT"),
                 "PAT AllGather and ReduceScatter with one GPU a node");
}

BOOST_AUTO_TEST_CASE(pxn_keeps_an_all_to_all_off_oversubscribed_spines)
{
    // doc/chakra.md, "PXN": 8 MiB all-to-all on 4 x 8 H100, rail-optimized with 4:1 spines,
    // flow: 449.5 us from each GPU's own NIC, 131.8 us with PXN (every byte between hosts on
    // its rail). A bad --pxn value is one line naming the flag.
    const std::string cluster = "alltoall -b 8M -e 8M --hosts 4 --gpus-per-host 8 --gpu H100 "
                                "--topology rail-optimized --oversubscription 4 --transport flow";
    auto off = Tool(cluster + " --pxn off");
    auto on = Tool(cluster + " --pxn on");
    BOOST_REQUIRE_MESSAGE(off.exitCode == 0, off.output);
    BOOST_REQUIRE_MESSAGE(on.exitCode == 0, on.output);
    const std::vector<Row> without = ParseRows(off.output);
    const std::vector<Row> with = ParseRows(on.output);
    BOOST_REQUIRE_EQUAL(without.size(), 1u);
    BOOST_REQUIRE_EQUAL(with.size(), 1u);
    BOOST_TEST(without[0].timeUs == 449.45, boost::test_tools::tolerance(0.01));
    BOOST_TEST(with[0].timeUs == 131.77, boost::test_tools::tolerance(0.01));
    BOOST_TEST(Contains(on.output, "PXN between rails"), on.output);
    ExpectRefused(Tool(cluster + " --pxn yes"), "--pxn: 'yes' is not valid (one of: off, on)");
}
