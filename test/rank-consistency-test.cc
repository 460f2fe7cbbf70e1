/*
 * CheckRankConsistency on small per-rank .et files written directly with EtWriter.
 */
#define BOOST_TEST_MODULE rank_consistency
#include "chakra-test-data.h"

#include "ns3/et-writer.h"
#include "ns3/rank-consistency.h"
#include "ns3/trace-error.h"

#include <boost/test/unit_test.hpp>

using namespace ns3;
using chakra_test::TempDir;

namespace
{

/** A communication node to write. */
struct Comm
{
    ChakraProtoMsg::NodeType type;
    int type_or_src; //!< comm_type for COMM_COLL, comm_src for send/recv
    int dst;         //!< comm_dst (send/recv)
    int tag;         //!< comm_tag (send/recv)
    int64_t size;    //!< comm_size
    std::string pg;  //!< pg_name
    int root{-1};    //!< root_rank (-1: none)
};

Comm
Coll(ChakraProtoMsg::CollectiveCommType type, int64_t size, const std::string& pg = "0", int root = -1)
{
    return {ChakraProtoMsg::COMM_COLL_NODE, type, 0, 0, size, pg, root};
}

Comm
Send(int src, int dst, int tag, int64_t size, const std::string& pg = "0")
{
    return {ChakraProtoMsg::COMM_SEND_NODE, src, dst, tag, size, pg};
}

Comm
Recv(int src, int dst, int tag, int64_t size, const std::string& pg = "0")
{
    return {ChakraProtoMsg::COMM_RECV_NODE, src, dst, tag, size, pg};
}

/** Writes one rank's file: a process_group:init node (if given), a COMP node, the comms. */
std::string
WriteRank(const TempDir& dir,
          int rank,
          const std::vector<Comm>& comms,
          const std::string& groups = R"([{"pg_name": "0", "ranks": [0, 1, 2], "group_size": 3}])",
          bool rankInMetadata = true)
{
    ChakraProtoMsg::GlobalMetadata metadata;
    metadata.set_version("0.0.4");
    if (rankInMetadata)
    {
        auto* attr = metadata.add_attr();
        attr->set_name("rank");
        attr->set_int64_val(rank);
    }
    const std::string path = dir.File("job." + std::to_string(rank) + ".et");
    EtWriter writer(path, metadata);
    uint64_t id = 1;
    if (!groups.empty())
    {
        ChakraProtoMsg::Node meta;
        meta.set_id(id++);
        meta.set_name("process_group:init");
        meta.set_type(ChakraProtoMsg::METADATA_NODE);
        meta.mutable_inputs()->set_values(groups);
        writer.WriteNode(meta);
    }
    ChakraProtoMsg::Node comp;
    comp.set_id(id++);
    comp.set_name("aten::mm");
    comp.set_type(ChakraProtoMsg::COMP_NODE);
    writer.WriteNode(comp);
    for (const Comm& comm : comms)
    {
        ChakraProtoMsg::Node node;
        node.set_id(id++);
        node.set_name("comm");
        node.set_type(comm.type);
        auto add = [&](const std::string& name) {
            auto* attr = node.add_attr();
            attr->set_name(name);
            return attr;
        };
        if (comm.type == ChakraProtoMsg::COMM_COLL_NODE)
        {
            add("comm_type")->set_int64_val(comm.type_or_src);
        }
        else
        {
            add("comm_src")->set_int32_val(comm.type_or_src);
            add("comm_dst")->set_int32_val(comm.dst);
            add("comm_tag")->set_int32_val(comm.tag);
        }
        add("comm_size")->set_int64_val(comm.size);
        add("pg_name")->set_string_val(comm.pg);
        if (comm.root >= 0)
        {
            add("root_rank")->set_int64_val(comm.root);
        }
        writer.WriteNode(node);
    }
    writer.Commit();
    return path;
}

/** \return true if some mismatch contains every part */
bool
HasMismatch(const RankConsistencyReport& report, std::initializer_list<std::string> parts)
{
    for (const auto& mismatch : report.mismatches)
    {
        bool all = true;
        for (const auto& part : parts)
        {
            all = all && mismatch.find(part) != std::string::npos;
        }
        if (all)
        {
            return true;
        }
    }
    return false;
}

std::vector<Comm>
Normal()
{
    return {Coll(ChakraProtoMsg::ALL_REDUCE, 4096), Coll(ChakraProtoMsg::BROADCAST, 64, "0", 2),
            Coll(ChakraProtoMsg::ALL_GATHER, 100)};
}

} // namespace

BOOST_AUTO_TEST_CASE(identical_ranks_are_consistent)
{
    TempDir dir;
    std::vector<std::string> files;
    for (int rank = 0; rank < 3; ++rank)
    {
        files.push_back(WriteRank(dir, rank, Normal()));
    }
    auto report = CheckRankConsistency(files);
    BOOST_TEST(report.IsConsistent());
    BOOST_TEST(report.files.size() == 3u);
    BOOST_TEST(report.collectivesPerGroup.at("0") == 3u);
    BOOST_TEST(FindRankFiles(dir.File("job")) == files, boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(order_type_size_root_and_count_mismatches)
{
    TempDir dir;
    auto swapped = Normal();
    std::swap(swapped[0], swapped[2]);
    auto bigger = Normal();
    bigger[0].size = 4097;
    auto root = Normal();
    root[1].root = 0;
    auto fewer = Normal();
    fewer.pop_back();
    for (const auto& [variant, parts] :
         std::vector<std::pair<std::vector<Comm>, std::vector<std::string>>>{
             {swapped, {"collective #0", "comm_type ALL_GATHER vs ALL_REDUCE"}},
             {bigger, {"collective #0", "comm_size 4097 vs 4096"}},
             {root, {"collective #1", "root_rank 0 vs 2"}},
             {fewer, {"rank 2 has 2 collectives, rank 0 has 3"}}})
    {
        auto report = CheckRankConsistency({WriteRank(dir, 0, Normal()),
                                            WriteRank(dir, 1, Normal()),
                                            WriteRank(dir, 2, variant)});
        BOOST_TEST(!report.IsConsistent());
        bool found = false;
        for (const auto& mismatch : report.mismatches)
        {
            bool all = true;
            for (const auto& part : parts)
            {
                all = all && mismatch.find(part) != std::string::npos;
            }
            found = found || all;
        }
        BOOST_TEST(found, parts[0] << " / " << parts.back());
    }
}

BOOST_AUTO_TEST_CASE(all_to_all_sizes_may_differ)
{
    TempDir dir;
    auto report = CheckRankConsistency(
        {WriteRank(dir, 0, {Coll(ChakraProtoMsg::ALL_TO_ALL, 100)}),
         WriteRank(dir, 1, {Coll(ChakraProtoMsg::ALL_TO_ALL, 300)}),
         WriteRank(dir, 2, {Coll(ChakraProtoMsg::ALL_TO_ALL, 100)})});
    BOOST_TEST(report.IsConsistent());
    BOOST_TEST(report.noteCount == 1u);
}

BOOST_AUTO_TEST_CASE(groups_are_compared_among_their_members_only)
{
    TempDir dir;
    const std::string groups =
        R"([{"pg_name": "0", "ranks": [0, 1, 2]}, {"pg_name": "7", "ranks": [0, 2]}])";
    auto sub = Coll(ChakraProtoMsg::ALL_REDUCE, 8, "7");
    auto report = CheckRankConsistency({WriteRank(dir, 0, {sub}, groups),
                                        WriteRank(dir, 1, {}, groups),
                                        WriteRank(dir, 2, {sub}, groups)});
    BOOST_TEST(report.IsConsistent());
    // A member without a trace is a mismatch.
    auto missing = CheckRankConsistency({WriteRank(dir, 0, {sub}, groups),
                                         WriteRank(dir, 1, {}, groups)});
    BOOST_TEST(HasMismatch(missing, {"process group \"7\"", "rank 2 has no trace"}));
}

BOOST_AUTO_TEST_CASE(send_recv_pairs_match_by_src_dst_tag_and_size)
{
    TempDir dir;
    auto good = CheckRankConsistency(
        {WriteRank(dir, 0, {Send(0, 1, 0, 64), Send(0, 1, 1, 32), Recv(2, 0, 0, 8)}),
         WriteRank(dir, 1, {Recv(0, 1, 0, 64), Recv(0, 1, 1, 32)}),
         WriteRank(dir, 2, {Send(2, 0, 0, 8)})});
    BOOST_TEST(good.IsConsistent());
    BOOST_TEST(good.messages == 3u);

    auto size = CheckRankConsistency({WriteRank(dir, 0, {Send(0, 1, 0, 64)}),
                                      WriteRank(dir, 1, {Recv(0, 1, 0, 60)}),
                                      WriteRank(dir, 2, {})});
    BOOST_TEST(HasMismatch(size, {"send", "of 64 bytes", "expects 60"}));
    auto tag = CheckRankConsistency({WriteRank(dir, 0, {Send(0, 1, 0, 64)}),
                                     WriteRank(dir, 1, {Recv(0, 1, 1, 64)}),
                                     WriteRank(dir, 2, {})});
    BOOST_TEST(HasMismatch(tag, {"send", "tag 0", "no matching receive on rank 1"}));
    BOOST_TEST(HasMismatch(tag, {"receive", "tag 1", "no matching send on rank 0"}));
    auto wrongFile = CheckRankConsistency({WriteRank(dir, 0, {Send(1, 2, 0, 64)}),
                                           WriteRank(dir, 1, {}), WriteRank(dir, 2, {Recv(1, 2, 0, 64)})});
    BOOST_TEST(HasMismatch(wrongFile, {"send from rank 1 in the file of rank 0"}));
    auto absent = CheckRankConsistency({WriteRank(dir, 0, {Send(0, 5, 0, 64)}),
                                        WriteRank(dir, 1, {}), WriteRank(dir, 2, {})});
    BOOST_TEST(HasMismatch(absent, {"rank 5 has no trace"}));
}

BOOST_AUTO_TEST_CASE(ranks_from_names_and_duplicates)
{
    TempDir dir;
    // Without a "rank" metadata attribute the name's number is the rank.
    auto a = WriteRank(dir, 1, Normal(), "", false);
    auto b = WriteRank(dir, 0, Normal(), "", false);
    auto report = CheckRankConsistency({a, b});
    BOOST_TEST(report.IsConsistent());
    BOOST_TEST(report.files.at(0) == b);
    BOOST_TEST(report.files.at(1) == a);
    BOOST_CHECK_THROW(CheckRankConsistency({a, a}), TraceError);
}
