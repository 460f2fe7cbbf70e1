/*
 * Every shared real .et trace reads, its counts match data/PROVENANCE.md, and it survives
 * .et -> JSON -> .et byte for byte. Skipped (exit 77) when ../shared/data is absent.
 */
#define BOOST_TEST_MODULE et_io_real_data
#include "chakra-test-data.h"

#include "ns3/et-json.h"
#include "ns3/et-node.h"
#include "ns3/et-reader.h"

#include <boost/test/unit_test.hpp>
#include <map>
#include <regex>

using namespace ns3;

using RequireSharedData = chakra_test::RequireSharedData;
BOOST_TEST_GLOBAL_FIXTURE(RequireSharedData);

namespace
{

/** Counts of one trace by node type and collective type. */
struct Counts
{
    uint64_t nodes{0};
    std::map<std::string, uint64_t> byType;
    std::map<std::string, uint64_t> byCommType;
    uint64_t dataDeps{0};
    std::vector<EtNode> nodesOfInterest; //!< every non-COMP node
};

Counts
Count(const std::string& path)
{
    Counts counts;
    EtReader reader(path);
    ChakraProtoMsg::Node proto;
    while (reader.ReadNode(proto))
    {
        EtNode node(proto);
        ++counts.nodes;
        ++counts.byType[NodeTypeName(node.GetType())];
        counts.dataDeps += node.GetDataDeps().size();
        if (node.GetType() == ChakraProtoMsg::COMM_COLL_NODE && node.GetCommType())
        {
            ++counts.byCommType[CommTypeName(*node.GetCommType())];
        }
        if (node.GetType() != ChakraProtoMsg::COMP_NODE)
        {
            counts.nodesOfInterest.push_back(node);
        }
    }
    return counts;
}

} // namespace

BOOST_AUTO_TEST_CASE(every_shared_trace_reads)
{
    auto files = chakra_test::SharedEtFiles();
    // 12 microbenchmark folders of 4+8+16 ranks... (4 collectives x 28 files) + 8 + 1.
    BOOST_TEST(files.size() == 4u * (4 + 8 + 16) + 8 + 1);
    for (const auto& file : files)
    {
        BOOST_TEST_CONTEXT(file)
        {
            Counts counts = Count(file);
            BOOST_TEST(counts.nodes > 0u);
        }
    }
}

BOOST_AUTO_TEST_CASE(feeder_test_trace_counts)
{
    Counts c = Count(chakra_test::SharedData("et/chakra-feeder-test/chakra.0.et.gz"));
    BOOST_TEST(c.nodes == 3664u);
    BOOST_TEST(c.byType["COMP_NODE"] == 3643u);
    BOOST_TEST(c.byType["COMM_COLL_NODE"] == 21u);
    BOOST_TEST(c.byCommType["ALL_REDUCE"] == 5u);
    BOOST_TEST(c.byCommType["BROADCAST"] == 2u);
    // "~182k data deps"
    BOOST_TEST(c.dataDeps > 175000u);
    BOOST_TEST(c.dataDeps < 190000u);
    for (const auto& node : c.nodesOfInterest)
    {
        if (node.GetCommType())
        {
            BOOST_TEST(node.GetCommSize() > 0u);
        }
    }
}

BOOST_AUTO_TEST_CASE(microbenchmarks_hold_one_1MiB_collective_per_rank)
{
    const std::map<std::string, ChakraProtoMsg::CollectiveCommType> types = {
        {"all_reduce", ChakraProtoMsg::ALL_REDUCE},
        {"all_gather", ChakraProtoMsg::ALL_GATHER},
        {"all_to_all", ChakraProtoMsg::ALL_TO_ALL},
        {"reduce_scatter", ChakraProtoMsg::REDUCE_SCATTER},
    };
    std::regex pattern(
        ".*/astra-microbenchmarks/([a-z_]+)/([0-9]+)npus_1MB/[a-z_]+\\.([0-9]+)\\.et");
    std::size_t seen = 0;
    for (const auto& file : chakra_test::SharedEtFiles())
    {
        std::smatch match;
        if (!std::regex_match(file, match, pattern))
        {
            continue;
        }
        ++seen;
        BOOST_TEST_CONTEXT(file)
        {
            Counts c = Count(file);
            BOOST_TEST(c.nodes == 1u);
            BOOST_REQUIRE(c.nodesOfInterest.size() == 1u);
            const EtNode& node = c.nodesOfInterest[0];
            BOOST_TEST(node.GetType() == ChakraProtoMsg::COMM_COLL_NODE);
            BOOST_TEST(node.GetCommType().value() == types.at(match[1].str()));
            BOOST_TEST(node.GetCommSize() == 1u << 20);
        }
    }
    BOOST_TEST(seen == 4u * (4 + 8 + 16));
}

BOOST_AUTO_TEST_CASE(custom_ring_allreduce_is_a_ring_of_sends_and_recvs)
{
    const int n = 8;
    for (int rank = 0; rank < n; ++rank)
    {
        BOOST_TEST_CONTEXT("rank " << rank)
        {
            Counts c = Count(chakra_test::SharedData("et/astra-custom-ring-allreduce-8npus/"
                                                     "custom_allreduce." +
                                                     std::to_string(rank) + ".et"));
            // A ring all-reduce is 2(n-1) steps, each sending and receiving S/n bytes.
            BOOST_TEST(c.byType["COMM_SEND_NODE"] == 2u * (n - 1));
            BOOST_TEST(c.byType["COMM_RECV_NODE"] == 2u * (n - 1));
            for (const auto& node : c.nodesOfInterest)
            {
                BOOST_TEST(node.GetCommSize() == (1u << 20) / n);
                if (node.GetType() == ChakraProtoMsg::COMM_SEND_NODE)
                {
                    BOOST_TEST(node.GetCommDst().value() == (rank + 1) % n);
                }
                else
                {
                    BOOST_TEST(node.GetCommSrc().value() == (rank + n - 1) % n);
                }
            }
        }
    }
}

BOOST_AUTO_TEST_CASE(json_round_trip_is_byte_identical_for_every_shared_trace)
{
    chakra_test::TempDir dir;
    for (const auto& file : chakra_test::SharedEtFiles())
    {
        BOOST_TEST_CONTEXT(file)
        {
            ConvertEtToJson(file, dir.File("t.json"));
            ConvertJsonToEt(dir.File("t.json"), dir.File("t.et"));
            BOOST_TEST(
                (chakra_test::ReadFileBytes(dir.File("t.et")) == chakra_test::ReadMaybeGzip(file)));
        }
    }
}
