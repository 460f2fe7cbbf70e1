/*
 * ScaleTraceSet and chakra_scale: small recorded jobs written by hand with the project's
 * writer, scaled and read back against the group lists, sizes and peers derived by hand; the
 * bad requests; and the shared DLRM 8-rank job scaled to 16 (skipped without the shared data).
 */
#define BOOST_TEST_MODULE trace_scaler
#include "chakra-test-data.h"

#include "ns3/chakra-module.h"
#include "ns3/communicator.h"
#include "ns3/rank-consistency.h"
#include "ns3/rank-trace-discovery.h"
#include "ns3/replay-pipeline.h"
#include "ns3/trace-scaler.h"

#include <boost/test/unit_test.hpp>
#include <map>

using namespace ns3;
using chakra_test::RunCommand;
using chakra_test::TempDir;

namespace
{

/** One rank's trace read back. */
struct ReadBack
{
    ChakraProtoMsg::GlobalMetadata metadata; //!< its metadata
    std::vector<EtNode> nodes;               //!< in file order
    std::vector<ProcessGroupSpec> groups;    //!< its process_group:init list

    /** \return the node named \p name */
    const EtNode& operator[](const std::string& name) const
    {
        for (const auto& node : nodes)
        {
            if (node.GetName() == name)
            {
                return node;
            }
        }
        BOOST_FAIL("no node named " << name);
        return nodes.front();
    }
};

ReadBack
Read(const std::string& path)
{
    ReadBack back;
    EtReader reader(path);
    back.metadata = reader.GetMetadata();
    ChakraProtoMsg::Node node;
    while (reader.ReadNode(node))
    {
        back.nodes.emplace_back(node);
        if (node.name() == "process_group:init")
        {
            std::string error;
            back.groups = ParseProcessGroups(node.inputs().values(), error);
            BOOST_REQUIRE_MESSAGE(error.empty(), error);
        }
    }
    return back;
}

/** \return the integer metadata attribute \p name */
int64_t
MetadataInt(const ChakraProtoMsg::GlobalMetadata& metadata, const std::string& name)
{
    for (const auto& attribute : metadata.attr())
    {
        if (attribute.name() == name)
        {
            return attribute.int64_val();
        }
    }
    BOOST_FAIL("no metadata attribute " << name);
    return -1;
}

/**
 * The recorded 2-rank data-parallel job: rank r computes "fwd" for 100 + 10 r us, all-reduces
 * 1 MiB and all-to-alls 4096 bytes over "dp", sends 64 bytes to and receives 64 bytes from the
 * other rank, then "opt" for 5 us.
 */
void
WriteDataParallelJob(const std::string& prefix)
{
    for (uint32_t rank = 0; rank < 2; ++rank)
    {
        RankTraceBuilder b(RankTraceBuilder::Path(prefix, rank), 2);
        b.ProcessGroups({{"dp", {0, 1}, 2}});
        const uint64_t fwd = b.Compute("fwd", 100 + 10 * rank, {});
        const uint64_t ar = b.Collective("ar", ChakraProtoMsg::ALL_REDUCE, 1 << 20, {fwd}, "dp");
        const uint64_t a2a = b.Collective("a2a", ChakraProtoMsg::ALL_TO_ALL, 4096, {ar}, "dp");
        const uint64_t send = b.Send("send", 1 - rank, 7, 64, {a2a});
        const uint64_t recv = b.Recv("recv", 1 - rank, 7, 64, {a2a});
        b.Compute("opt", 5, {send, recv});
        b.Commit();
    }
}

/**
 * The recorded DP x TP job, tp 2 on 4 ranks (Megatron's order: TP groups {0,1} {2,3}, DP
 * groups {0,2} {1,3}): a TP all-reduce of 4096 bytes then a DP all-reduce of 1 MiB, and a
 * broadcast of 256 bytes from the TP group's first rank.
 */
void
WriteDataTensorJob(const std::string& prefix, const std::vector<ProcessGroupSpec>& groups)
{
    for (uint32_t rank = 0; rank < 4; ++rank)
    {
        RankTraceBuilder b(RankTraceBuilder::Path(prefix, rank), 4);
        b.ProcessGroups(groups);
        const uint64_t fwd = b.Compute("fwd", 50 + rank, {});
        const std::string tp = rank < 2 ? "tp0" : "tp1";
        const std::string dp = rank % 2 == 0 ? "dp0" : "dp1";
        const uint64_t tpAr = b.Collective("tp_ar", ChakraProtoMsg::ALL_REDUCE, 4096, {fwd}, tp);
        const uint64_t bc = b.Collective("tp_bc",
                                         ChakraProtoMsg::BROADCAST,
                                         256,
                                         {tpAr},
                                         tp,
                                         RankTraceBuilder::CommStream,
                                         rank < 2 ? 0 : 2);
        b.Collective("dp_ar", ChakraProtoMsg::ALL_REDUCE, 1 << 20, {bc}, dp);
        b.Commit();
    }
}

/** Megatron's tp 2 x dp 2 groups on 4 ranks */
const std::vector<ProcessGroupSpec> kDataTensorGroups = {{"tp0", {0, 1}, 2},
                                                         {"tp1", {2, 3}, 2},
                                                         {"dp0", {0, 2}, 2},
                                                         {"dp1", {1, 3}, 2}};

TraceScaleSpec
Spec(const std::string& input, const std::string& output, uint32_t ranks)
{
    TraceScaleSpec spec;
    spec.input = input;
    spec.output = output;
    spec.ranks = ranks;
    return spec;
}

/** Runs the rank-consistency check over the scaled set */
void
RequireConsistent(const std::vector<std::string>& files)
{
    const RankConsistencyReport report = CheckRankConsistency(files);
    BOOST_TEST_INFO(report);
    BOOST_TEST(report.IsConsistent());
}

/** \return true if \p dir holds no file but the recorded job's (nothing was written) */
bool
OnlyRecorded(const TempDir& dir)
{
    for (const auto& name : chakra_test::ListDir(dir.Path()))
    {
        if (name.rfind("in.", 0) != 0)
        {
            return false;
        }
    }
    return true;
}

} // namespace

BOOST_AUTO_TEST_SUITE(data_parallel)

// A 2-rank DP job at 8 ranks: rank r' is recorded rank r' mod 2 (durations 100 and 110 us
// alternating), one group "dp" of all 8 ranks, sizes kept (per-rank all-to-all), every node and
// dependency as recorded, and each send / receive moved into its copy: rank 2c <-> 2c + 1.
BOOST_AUTO_TEST_CASE(two_ranks_to_eight_in_rotation)
{
    TempDir dir;
    WriteDataParallelJob(dir.File("in"));
    const TraceScaleResult result = ScaleTraceSet(Spec(dir.File("in"), dir.File("out"), 8));
    BOOST_TEST(result.recordedRanks == 2u);
    BOOST_TEST(result.replicaSize == 1u);
    BOOST_REQUIRE(result.files.size() == 8u);
    const ReadBack recorded = Read(dir.File("in.0.et"));
    for (uint32_t rank = 0; rank < 8; ++rank)
    {
        BOOST_TEST_CONTEXT("rank " << rank)
        {
            const ReadBack back = Read(dir.File("out." + std::to_string(rank) + ".et"));
            BOOST_TEST(MetadataInt(back.metadata, "rank") == rank);
            BOOST_TEST(MetadataInt(back.metadata, "world_size") == 8);
            BOOST_REQUIRE(back.groups.size() == 1u);
            BOOST_TEST(back.groups[0].name == "dp");
            BOOST_TEST(back.groups[0].ranks == std::vector<uint32_t>({0, 1, 2, 3, 4, 5, 6, 7}));
            BOOST_TEST(back["fwd"].GetDurationMicros() == 100u + 10u * (rank % 2));
            BOOST_TEST(back["opt"].GetDurationMicros() == 5u);
            BOOST_TEST(back["ar"].GetCommSize() == uint64_t(1) << 20);
            BOOST_TEST(back["a2a"].GetCommSize() == 4096u);
            BOOST_TEST(back["ar"].GetPgName() == "dp");
            const int64_t peer = rank % 2 == 0 ? rank + 1 : rank - 1;
            BOOST_TEST(*back["send"].GetCommDst() == peer);
            BOOST_TEST(*back["recv"].GetCommSrc() == peer);
            BOOST_REQUIRE(back.nodes.size() == recorded.nodes.size());
            for (std::size_t i = 0; i < back.nodes.size(); ++i)
            {
                BOOST_TEST(back.nodes[i].GetId() == recorded.nodes[i].GetId());
                BOOST_TEST(back.nodes[i].GetDataDeps().size() ==
                           recorded.nodes[i].GetDataDeps().size());
            }
        }
    }
    RequireConsistent(result.files);
}

// Same bytes per peer: a 4096-byte all-to-all over 2 ranks sends 2048 bytes to each; over 8
// ranks each peer keeps 2048 bytes, so the rank's input is 8 x 2048 = 16384 bytes. The
// all-reduce keeps its 1 MiB (NCCL's count is per rank).
BOOST_AUTO_TEST_CASE(per_peer_all_to_all_grows_with_the_group)
{
    TempDir dir;
    WriteDataParallelJob(dir.File("in"));
    TraceScaleSpec spec = Spec(dir.File("in"), dir.File("out"), 8);
    spec.allToAll = AllToAllScaling::PerPeer;
    ScaleTraceSet(spec);
    for (uint32_t rank : {0u, 5u})
    {
        const ReadBack back = Read(dir.File("out." + std::to_string(rank) + ".et"));
        BOOST_TEST(back["a2a"].GetCommSize() == 8u * 2048u);
        BOOST_TEST(back["ar"].GetCommSize() == uint64_t(1) << 20);
    }
}

// M = N is the job as recorded (copy 0 keeps every name and peer); M = 3 from 2 ranks is a
// partial copy whose rank 2 would send to rank 3: an error naming --ranks, nothing written.
BOOST_AUTO_TEST_CASE(same_size_is_identity_and_a_partial_copy_with_messages_is_refused)
{
    TempDir dir;
    WriteDataParallelJob(dir.File("in"));
    ScaleTraceSet(Spec(dir.File("in"), dir.File("same"), 2));
    BOOST_TEST(*Read(dir.File("same.1.et"))["send"].GetCommDst() == 0);
    TempDir other;
    WriteDataParallelJob(other.File("in"));
    BOOST_CHECK_EXCEPTION(ScaleTraceSet(Spec(other.File("in"), other.File("out"), 3)),
                          std::invalid_argument,
                          [](const std::invalid_argument& e) {
                              return std::string(e.what()).find("--ranks 3: rank 2") == 0;
                          });
    BOOST_TEST(OnlyRecorded(other));
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(data_and_tensor_parallel)

// tp 2 x dp 2 on 4 ranks at 8: the replica is 2 ranks; DP groups become one rank of each of
// the 4 replicas ({0,2,4,6}, {1,3,5,7}); TP groups stay pairs, copy 1's renamed: tp0@1 = {4,5},
// tp1@1 = {6,7}. Rank 5 (recorded rank 1, copy 1) all-reduces on tp0@1 and broadcasts from
// rank 4 (recorded root 0, moved into the copy); the DP root-less all-reduce stays on dp1.
BOOST_AUTO_TEST_CASE(tensor_groups_stay_pairs)
{
    TempDir dir;
    WriteDataTensorJob(dir.File("in"), kDataTensorGroups);
    const TraceScaleResult result = ScaleTraceSet(Spec(dir.File("in"), dir.File("out"), 8));
    BOOST_TEST(result.replicaSize == 2u);
    BOOST_TEST(result.replicaGroups == std::vector<std::string>({"tp0", "tp1"}));
    std::map<std::string, std::vector<uint32_t>> expected = {{"tp0", {0, 1}},
                                                             {"tp0@1", {4, 5}},
                                                             {"tp1", {2, 3}},
                                                             {"tp1@1", {6, 7}},
                                                             {"dp0", {0, 2, 4, 6}},
                                                             {"dp1", {1, 3, 5, 7}}};
    const ReadBack back = Read(dir.File("out.5.et"));
    std::map<std::string, std::vector<uint32_t>> found;
    for (const auto& group : back.groups)
    {
        found[group.name] = group.ranks;
    }
    BOOST_TEST(found == expected);
    BOOST_TEST(back["tp_ar"].GetPgName() == "tp0@1");
    BOOST_TEST(back["tp_bc"].GetInt("root_rank") == 4);
    BOOST_TEST(back["dp_ar"].GetPgName() == "dp1");
    BOOST_TEST(back["fwd"].GetDurationMicros() == 51u);
    RequireConsistent(result.files);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(bad_requests)

// Each bad request is an error naming the flag or the file, and writes nothing.
BOOST_AUTO_TEST_CASE(ranks_not_a_multiple_of_the_replica)
{
    TempDir dir;
    WriteDataTensorJob(dir.File("in"), kDataTensorGroups);
    BOOST_CHECK_EXCEPTION(ScaleTraceSet(Spec(dir.File("in"), dir.File("out"), 9)),
                          std::invalid_argument,
                          [](const std::invalid_argument& e) {
                              return std::string(e.what()) ==
                                     "--ranks 9 is not a multiple of the replica size 2 (the "
                                     "ranks of one tensor/pipeline-parallel replica)";
                          });
    BOOST_TEST(OnlyRecorded(dir));
}

BOOST_AUTO_TEST_CASE(fewer_ranks_than_recorded)
{
    TempDir dir;
    WriteDataParallelJob(dir.File("in"));
    BOOST_CHECK_EXCEPTION(ScaleTraceSet(Spec(dir.File("in"), dir.File("out"), 1)),
                          std::invalid_argument,
                          [](const std::invalid_argument& e) {
                              return std::string(e.what()).find("--ranks 1 is below the 2 "
                                                                "recorded ranks") == 0;
                          });
    BOOST_TEST(OnlyRecorded(dir));
}

// Ranks 0 and 2 of a job without rank 1: FindRankTraces names the missing rank.
BOOST_AUTO_TEST_CASE(missing_rank_file)
{
    TempDir dir;
    WriteDataTensorJob(dir.File("in"), kDataTensorGroups);
    std::remove(dir.File("in.1.et").c_str());
    BOOST_CHECK_EXCEPTION(ScaleTraceSet(Spec(dir.File("in"), dir.File("out"), 8)),
                          TraceError,
                          [](const TraceError& e) {
                              return std::string(e.what()).find(
                                         "in.<rank>.et: missing the traces of ranks 1 ") !=
                                     std::string::npos;
                          });
    BOOST_TEST(OnlyRecorded(dir));
}

// A group of ranks {0, 1, 2} of 4 is neither the whole job, nor inside a replica, nor one rank
// per replica: an error naming it, unless --dp-only widens it (to {0,1,2,4,5,6} at 8 ranks).
BOOST_AUTO_TEST_CASE(unclassifiable_group_needs_dp_only)
{
    TempDir dir;
    WriteDataTensorJob(dir.File("in"),
                       {{"tp0", {0, 1}, 2},
                        {"tp1", {2, 3}, 2},
                        {"dp0", {0, 2}, 2},
                        {"dp1", {1, 3}, 2},
                        {"odd", {0, 1, 2}, 3}});
    BOOST_CHECK_EXCEPTION(ScaleTraceSet(Spec(dir.File("in"), dir.File("out"), 8)),
                          std::invalid_argument,
                          [](const std::invalid_argument& e) {
                              return std::string(e.what()).find(
                                         "--input: process group 'odd' (ranks 0 1 2)") == 0 &&
                                     std::string(e.what()).find("--dp-only") != std::string::npos;
                          });
    BOOST_TEST(OnlyRecorded(dir));
    TraceScaleSpec spec = Spec(dir.File("in"), dir.File("out"), 8);
    spec.dpOnly = true;
    const TraceScaleResult result = ScaleTraceSet(spec);
    BOOST_TEST(result.replicaSize == 1u);
    for (const auto& group : result.groups)
    {
        if (group.name == "odd")
        {
            BOOST_TEST(group.ranks == std::vector<uint32_t>({0, 1, 2, 4, 5, 6}));
        }
    }
}

// The tool: a misspelt --alltoall-scaling is an error naming the flag with the near name.
BOOST_AUTO_TEST_CASE(tool_names_a_bad_alltoall_scaling)
{
    TempDir dir;
    WriteDataParallelJob(dir.File("in"));
    const auto result =
        RunCommand(chakra_test::ToolPath("chakra_scale") + " --input " + dir.File("in") +
                   " --output " + dir.File("out") + " --ranks 8 --alltoall-scaling per-peers");
    BOOST_TEST(result.exitCode != 0);
    BOOST_TEST(result.output.find("--alltoall-scaling 'per-peers' is not one of per-rank, "
                                  "per-peer (did you mean 'per-peer'?)") != std::string::npos,
               result.output);
    BOOST_TEST(OnlyRecorded(dir));
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(tool)

// The tool end to end: chakra_scale writes 8 ranks from 2 and chakra_check_ranks finds them
// consistent, 8 ranks with the "dp" group's 2 collectives and 8 send/receive pairs (4 copies
// of the recorded 2 pairs); a --ranks of 0 is refused where the flag enters.
BOOST_AUTO_TEST_CASE(tool_writes_a_set_that_checks)
{
    TempDir dir;
    WriteDataParallelJob(dir.File("in"));
    const auto scaled =
        RunCommand(chakra_test::ToolPath("chakra_scale") + " --input " + dir.File("in") +
                   " --output " + dir.File("out") + " --ranks 8 --alltoall-scaling per-peer");
    BOOST_TEST_INFO(scaled.output);
    BOOST_REQUIRE(scaled.exitCode == 0);
    const auto checked =
        RunCommand(chakra_test::ToolPath("chakra_check_ranks") + " " + dir.File("out"));
    BOOST_TEST_INFO(checked.output);
    BOOST_TEST(checked.exitCode == 0);
    BOOST_TEST(checked.output.find("ranks: 8; collectives per process group: \"dp\" 2; "
                                   "send/recv pairs matched: 8") != std::string::npos);
    const auto zero = RunCommand(chakra_test::ToolPath("chakra_scale") + " --input " +
                                 dir.File("in") + " --output " + dir.File("zero") + " --ranks 0");
    BOOST_TEST(zero.exitCode != 0);
    BOOST_TEST(zero.output.find("--ranks must be between 1 and 1000000, got 0") !=
                   std::string::npos,
               zero.output);
    BOOST_TEST(!chakra_test::FileExists(dir.File("zero.0.et")));
}

BOOST_AUTO_TEST_SUITE_END()

namespace
{

/** \return true when the shared real traces are present */
struct HasSharedData
{
    boost::test_tools::assertion_result operator()(boost::unit_test::test_unit_id) const
    {
        return !chakra_test::SharedDataDir().empty();
    }
};

/** \return the sum of the COMP nodes' durations of a trace */
uint64_t
ComputeMicros(const std::string& path)
{
    uint64_t total = 0;
    EtReader reader(path);
    ChakraProtoMsg::Node node;
    while (reader.ReadNode(node))
    {
        total += node.type() == ChakraProtoMsg::COMP_NODE ? node.duration_micros() : 0;
    }
    return total;
}

} // namespace

BOOST_AUTO_TEST_SUITE(real_data)

// The shared DLRM 8-rank job (converted from its host and Kineto traces) at 16 ranks: the
// ranks agree on every collective (the all-to-alls on the unnamed world, now 16 ranks), and
// rank r computes as long as recorded rank r mod 8.
BOOST_AUTO_TEST_CASE(dlrm_eight_ranks_to_sixteen, *boost::unit_test::precondition(HasSharedData()))
{
    TempDir dir;
    ReplayPipeline pipeline(dir.File("replay"));
    const std::string prefix = pipeline.Prepare(
        DiscoverRankTraces(chakra_test::SharedData("host-device/param-dlrm-8rank")));
    const TraceScaleResult result = ScaleTraceSet(Spec(prefix, dir.File("dlrm16"), 16));
    BOOST_REQUIRE(result.files.size() == 16u);
    RequireConsistent(result.files);
    for (uint32_t rank = 0; rank < 16; ++rank)
    {
        BOOST_TEST(ComputeMicros(result.files[rank]) ==
                       ComputeMicros(prefix + "." + std::to_string(rank % 8) + ".et"),
                   "rank " << rank);
    }
}

BOOST_AUTO_TEST_SUITE_END()
