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
             {swapped,
              {"call #0", "differs in comm_type", "rank 2 has ALL_GATHER of 100 bytes",
               "job.2.et: node 3 (comm)", "rank 0 has ALL_REDUCE of 4096 bytes",
               "job.0.et: node 3 (comm)"}},
             {bigger,
              {"call #0", "differs in comm_size", "rank 2 has ALL_REDUCE of 4097 bytes",
               "rank 0 has ALL_REDUCE of 4096 bytes"}},
             {root,
              {"call #1", "differs in root_rank", "rank 2 has BROADCAST of 64 bytes, root 0",
               "rank 0 has BROADCAST of 64 bytes, root 2"}},
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

namespace
{

/**
 * The issue's reproducer as converted traces: a CPU op (1); a GPU kernel on stream 7 (2, 1000
 * us on rank 0, 1 us on rank 1); a 64 MiB all-reduce kernel on stream 24 after both (3); a
 * 4-byte all-reduce on host thread 1 after the CPU op only (4). \p swapped writes the two
 * calls in the other order (ids 3 and 4 exchanged), as a program that issues them the other
 * way round would.
 */
std::string
WriteReproducer(const TempDir& dir, int rank, bool swapped)
{
    ChakraProtoMsg::GlobalMetadata metadata;
    metadata.set_version("0.0.4");
    auto* rankAttr = metadata.add_attr();
    rankAttr->set_name("rank");
    rankAttr->set_int64_val(rank);
    const std::string path =
        dir.File(std::string(swapped ? "swapped." : "repro.") + std::to_string(rank) + ".et");
    EtWriter writer(path, metadata);
    auto node = [](uint64_t id, const std::string& name, ChakraProtoMsg::NodeType type,
                   std::vector<uint64_t> deps) {
        ChakraProtoMsg::Node n;
        n.set_id(id);
        n.set_name(name);
        n.set_type(type);
        for (uint64_t dep : deps)
        {
            n.add_data_deps(dep);
        }
        return n;
    };
    auto attr = [](ChakraProtoMsg::Node& n, const std::string& name) {
        auto* a = n.add_attr();
        a->set_name(name);
        return a;
    };
    auto cpu = node(1, "cpu_op", ChakraProtoMsg::COMP_NODE, {});
    attr(cpu, "is_cpu_op")->set_bool_val(true);
    attr(cpu, "tid")->set_int64_val(1);
    cpu.set_duration_micros(10);
    auto kernel = node(2, "kernel", ChakraProtoMsg::COMP_NODE, {1});
    attr(kernel, "is_cpu_op")->set_bool_val(false);
    attr(kernel, "stream")->set_int64_val(7);
    kernel.set_duration_micros(rank == 0 ? 1000 : 1);
    auto big = [&](uint64_t id) {
        auto n = node(id, "ncclKernel_AllReduce", ChakraProtoMsg::COMM_COLL_NODE, {1, 2});
        attr(n, "is_cpu_op")->set_bool_val(false);
        attr(n, "stream")->set_int64_val(24);
        attr(n, "comm_type")->set_int64_val(ChakraProtoMsg::ALL_REDUCE);
        attr(n, "comm_size")->set_int64_val(64LL << 20);
        attr(n, "pg_name")->set_string_val("0");
        return n;
    };
    auto small = [&](uint64_t id) {
        auto n = node(id, "nccl:all_reduce", ChakraProtoMsg::COMM_COLL_NODE, {1});
        attr(n, "is_cpu_op")->set_bool_val(true);
        attr(n, "tid")->set_int64_val(1);
        attr(n, "comm_type")->set_int64_val(ChakraProtoMsg::ALL_REDUCE);
        attr(n, "comm_size")->set_int64_val(4);
        attr(n, "pg_name")->set_string_val("0");
        return n;
    };
    writer.WriteNode(cpu);
    writer.WriteNode(kernel);
    writer.WriteNode(swapped ? small(3) : big(3));
    writer.WriteNode(swapped ? big(4) : small(4));
    writer.Commit();
    return path;
}

} // namespace

BOOST_AUTO_TEST_CASE(issue_reproducer_is_compared_in_program_order)
{
    TempDir dir;
    // The same program on both ranks: consistent, although rank 0 reaches the small call long
    // before the big one (its kernel takes 1000 us) and rank 1 does not: what pairs is the
    // order in the files, which the simulator follows too.
    auto same = CheckRankConsistency({WriteReproducer(dir, 0, false), WriteReproducer(dir, 1, false)});
    BOOST_TEST(same.IsConsistent());
    BOOST_TEST(same.collectivesPerGroup.at("0") == 2u);
    // Rank 1 issues the two calls the other way round: both counts agree (2 all-reduces), but
    // call #0 is 64 MiB on rank 0 and 4 bytes on rank 1, and so is call #1 the other way.
    auto swapped =
        CheckRankConsistency({WriteReproducer(dir, 0, false), WriteReproducer(dir, 1, true)});
    BOOST_TEST(!swapped.IsConsistent());
    BOOST_TEST(swapped.mismatchCount == 2u);
    BOOST_TEST(HasMismatch(swapped, {"process group \"0\": call #0", "differs in comm_size",
                                     "rank 1 has ALL_REDUCE of 4 bytes", "swapped.1.et: node 3",
                                     "rank 0 has ALL_REDUCE of 67108864 bytes",
                                     "repro.0.et: node 3"}));
    BOOST_TEST(HasMismatch(swapped, {"call #1", "rank 1 has ALL_REDUCE of 67108864 bytes",
                                     "swapped.1.et: node 4", "rank 0 has ALL_REDUCE of 4 bytes",
                                     "repro.0.et: node 4"}));
}

BOOST_AUTO_TEST_CASE(every_disagreement_is_counted_the_first_five_listed)
{
    TempDir dir;
    std::vector<Comm> mine;
    std::vector<Comm> theirs;
    for (int k = 0; k < 8; ++k)
    {
        mine.push_back(Coll(ChakraProtoMsg::ALL_REDUCE, 100 + k));
        theirs.push_back(Coll(ChakraProtoMsg::ALL_REDUCE, 200 + k));
    }
    auto report = CheckRankConsistency(
        {WriteRank(dir, 0, mine), WriteRank(dir, 1, mine), WriteRank(dir, 2, theirs)});
    BOOST_TEST(report.mismatchCount == 8u);
    BOOST_TEST(report.mismatches.size() == 5u);
}

BOOST_AUTO_TEST_CASE(process_groups_in_the_reference_converters_python_text)
{
    TempDir dir;
    // What mlcommons/chakra's converter stores: str() of the host trace's inputs.values, a
    // Python list holding the JSON text (single quotes outside, PyTorch's JSON inside).
    const std::string reference =
        R"(['[{"pg_name": "0", "backend_id": 82149104, "backend_config": "cuda:nccl", )"
        R"("ranks": [], "group_size": 3, "group_count": 1}, {"pg_name": "7", "ranks": [0, 2], )"
        R"("group_size": 2}]'])";
    auto sub = Coll(ChakraProtoMsg::ALL_REDUCE, 8, "7");
    auto report = CheckRankConsistency({WriteRank(dir, 0, {sub}, reference),
                                        WriteRank(dir, 1, {}, reference),
                                        WriteRank(dir, 2, {sub}, reference)});
    BOOST_TEST(report.IsConsistent());
    BOOST_TEST(report.collectivesPerGroup.at("7") == 1u);
    // Group 7 has ranks 0 and 2 only: without rank 2's file it is a mismatch.
    auto missing = CheckRankConsistency(
        {WriteRank(dir, 0, {sub}, reference), WriteRank(dir, 1, {}, reference)});
    BOOST_TEST(HasMismatch(missing, {"process group \"7\"", "rank 2 has no trace"}));
    // The whole description as Python literals (single-quoted keys, True/None, a tuple).
    const std::string python =
        R"([{'pg_name': '7', 'ranks': (0, 2), 'group_size': 2, 'is_default': False, )"
        R"('desc': None, 'note': 'it\'s'}])";
    auto pythonOnly = CheckRankConsistency({WriteRank(dir, 0, {sub}, python),
                                            WriteRank(dir, 1, {}, python),
                                            WriteRank(dir, 2, {sub}, python)});
    BOOST_TEST(pythonOnly.IsConsistent());
    // Neither JSON nor Python text: one clear error naming the file and node.
    BOOST_CHECK_EXCEPTION(
        CheckRankConsistency({WriteRank(dir, 0, {}, "[{pg_name: 0}]")}), TraceError,
        [](const TraceError& e) {
            const std::string what = e.what();
            return what.find("job.0.et") != std::string::npos &&
                   what.find("node 1") != std::string::npos &&
                   what.find("neither a JSON list of objects nor Python") != std::string::npos;
        });
}
