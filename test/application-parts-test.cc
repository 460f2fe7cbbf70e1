/*
 * The collaborators ChakraApplication owns, each by itself on hand-made nodes: the call order
 * (numbers and parked calls), the resource queues (streams and host threads), the rank stats
 * (unions of intervals, exposed communication), the communicator table and the node trim.
 */
#define BOOST_TEST_MODULE application_parts
#include "ns3/chakra-report.h"
#include "ns3/collective-call-order.h"
#include "ns3/communicator-table.h"
#include "ns3/node-trim.h"
#include "ns3/nstime.h"
#include "ns3/rank-stats.h"
#include "ns3/resource-queues.h"
#include "ns3/text-format.h"

#include <algorithm>
#include <boost/test/unit_test.hpp>
#include <limits>
#include <memory>
#include <string>
#include <vector>

using namespace ns3;

namespace
{

using NodePtr = std::shared_ptr<const EtNode>;

/** A node of \p type with the given integer and string attributes. */
NodePtr
MakeNode(uint64_t id,
         ChakraProtoMsg::NodeType type,
         const std::vector<std::pair<std::string, int64_t>>& ints = {},
         const std::string& pg = "")
{
    ChakraProtoMsg::Node proto;
    proto.set_id(id);
    proto.set_name("node" + std::to_string(id));
    proto.set_type(type);
    for (const auto& [name, value] : ints)
    {
        auto* attr = proto.add_attr();
        attr->set_name(name);
        if (name == "is_cpu_op")
        {
            attr->set_bool_val(value != 0);
        }
        else
        {
            attr->set_int64_val(value);
        }
    }
    if (!pg.empty())
    {
        auto* attr = proto.add_attr();
        attr->set_name("pg_name");
        attr->set_string_val(pg);
    }
    return std::make_shared<const EtNode>(proto);
}

/** An all-reduce on \p pg. */
NodePtr
Call(uint64_t id, const std::string& pg)
{
    return MakeNode(id,
                    ChakraProtoMsg::COMM_COLL_NODE,
                    {{"comm_type", ChakraProtoMsg::ALL_REDUCE}},
                    pg);
}

} // namespace

BOOST_AUTO_TEST_SUITE(call_order)

BOOST_AUTO_TEST_CASE(calls_are_numbered_per_communicator_in_read_order)
{
    CollectiveCallOrder order;
    order.Number(*Call(10, "tp"));
    order.Number(*MakeNode(11, ChakraProtoMsg::COMP_NODE));
    order.Number(*Call(12, "dp"));
    order.Number(*MakeNode(13, ChakraProtoMsg::COMM_COLL_NODE, {}, "tp")); // no comm_type
    order.Number(*Call(14, "tp"));
    BOOST_TEST(order.NumberOf(10).value() == 0u);
    BOOST_TEST(!order.NumberOf(11).has_value());
    BOOST_TEST(order.NumberOf(12).value() == 0u);
    BOOST_TEST(!order.NumberOf(13).has_value());
    BOOST_TEST(order.NumberOf(14).value() == 1u);
    order.Completed("tp", 10);
    BOOST_TEST(!order.NumberOf(10).has_value());
}

BOOST_AUTO_TEST_CASE(posted_calls_ready_out_of_order_start_in_program_order)
{
    CollectiveCallOrder order;
    std::vector<NodePtr> calls;
    for (uint64_t id = 0; id < 4; ++id)
    {
        calls.push_back(Call(id, "tp"));
        order.Number(*calls.back());
    }
    std::vector<uint64_t> started;
    auto start = [&started](NodePtr node) { started.push_back(node->GetId()); };
    // Ready in the order 2, 0, 3, 1.
    BOOST_TEST(!order.TryStart(calls[2], 2));
    BOOST_TEST(order.TryStart(calls[0], 0));
    started.push_back(0);
    order.StartParked("tp", start);
    BOOST_TEST(started == std::vector<uint64_t>({0}), "call 2 waits for call 1");
    BOOST_TEST(!order.TryStart(calls[3], 3));
    BOOST_TEST(order.DescribeParked().size() == 2u);
    BOOST_TEST(order.DescribeParked().front().find("waits for call #1 to start") !=
               std::string::npos);
    BOOST_TEST(order.TryStart(calls[1], 1));
    started.push_back(1);
    order.StartParked("tp", start);
    BOOST_TEST(started == std::vector<uint64_t>({0, 1, 2, 3}));
    BOOST_TEST(order.DescribeParked().empty());
}

BOOST_AUTO_TEST_CASE(serial_calls_wait_for_the_previous_to_complete)
{
    CollectiveCallOrder order;
    order.SetMode(CollectiveCallOrder::SERIAL);
    auto first = Call(0, "tp");
    auto second = Call(1, "tp");
    order.Number(*first);
    order.Number(*second);
    std::vector<uint64_t> started;
    auto start = [&started](NodePtr node) { started.push_back(node->GetId()); };
    BOOST_TEST(order.TryStart(first, 0));
    BOOST_TEST(!order.TryStart(second, 1), "posted would start it; serial waits");
    BOOST_TEST(order.DescribeParked().front().find("waits for call #0 to complete") !=
               std::string::npos);
    order.StartParked("tp", start);
    BOOST_TEST(started.empty());
    order.Completed("tp", 0);
    order.StartParked("tp", start);
    BOOST_TEST(started == std::vector<uint64_t>({1}));
}

BOOST_AUTO_TEST_CASE(communicators_do_not_wait_for_each_other)
{
    CollectiveCallOrder order;
    auto tp0 = Call(0, "tp");
    auto dp0 = Call(1, "dp");
    auto tp1 = Call(2, "tp");
    order.Number(*tp0);
    order.Number(*dp0);
    order.Number(*tp1);
    BOOST_TEST(!order.TryStart(tp1, 1));
    BOOST_TEST(order.TryStart(dp0, 0), "dp's call 0 does not wait for tp's call 0");
}

BOOST_AUTO_TEST_CASE(a_call_completing_at_once_lets_the_next_start_in_order)
{
    // Serial order, and every started call completes inside start(): the re-entrant
    // StartParked must still hand the calls over once each, in number order.
    CollectiveCallOrder order;
    order.SetMode(CollectiveCallOrder::SERIAL);
    std::vector<NodePtr> calls;
    for (uint64_t id = 0; id < 4; ++id)
    {
        calls.push_back(Call(id, ""));
        order.Number(*calls.back());
    }
    std::vector<uint64_t> started;
    std::function<void(NodePtr)> start = [&](NodePtr node) {
        started.push_back(node->GetId());
        order.Completed("", node->GetId());
        order.StartParked("", start);
    };
    BOOST_TEST(!order.TryStart(calls[3], 3));
    BOOST_TEST(!order.TryStart(calls[1], 1));
    BOOST_TEST(!order.TryStart(calls[2], 2));
    BOOST_TEST(order.TryStart(calls[0], 0));
    start(calls[0]);
    BOOST_TEST(started == std::vector<uint64_t>({0, 1, 2, 3}));
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(resource_queues)

BOOST_AUTO_TEST_CASE(resource_of_each_kind_of_node)
{
    BOOST_TEST(ResourceQueues::ResourceOf(*MakeNode(0, ChakraProtoMsg::COMP_NODE)) == "stream 0");
    BOOST_TEST(ResourceQueues::ResourceOf(
                   *MakeNode(1, ChakraProtoMsg::COMP_NODE, {{"stream", 7}})) == "stream 7");
    BOOST_TEST(ResourceQueues::ResourceOf(
                   *MakeNode(2, ChakraProtoMsg::COMP_NODE, {{"is_cpu_op", 1}, {"tid", 3}})) ==
               "cpu thread 3");
    BOOST_TEST(ResourceQueues::ResourceOf(
                   *MakeNode(3, ChakraProtoMsg::COMP_NODE, {{"is_cpu_op", 1}})) == "cpu thread 0");
    BOOST_TEST(ResourceQueues::ResourceOf(*Call(4, "")) == "",
               "a call naming no stream runs beside");
    BOOST_TEST(ResourceQueues::ResourceOf(
                   *MakeNode(5, ChakraProtoMsg::COMM_SEND_NODE, {{"stream", 24}})) == "stream 24");
    BOOST_TEST(ResourceQueues::ResourceOf(*MakeNode(6, ChakraProtoMsg::METADATA_NODE)) == "");
}

BOOST_AUTO_TEST_CASE(one_stream_runs_its_nodes_one_at_a_time_in_issue_order)
{
    ResourceQueues queues;
    auto a = MakeNode(0, ChakraProtoMsg::COMP_NODE, {{"stream", 1}});
    auto b = MakeNode(1, ChakraProtoMsg::COMP_NODE, {{"stream", 1}});
    auto c = MakeNode(2, ChakraProtoMsg::COMP_NODE, {{"stream", 1}});
    auto other = MakeNode(3, ChakraProtoMsg::COMP_NODE, {{"stream", 2}});
    auto free = Call(4, "");
    BOOST_TEST(queues.Acquire(a));
    BOOST_TEST(!queues.Acquire(b));
    BOOST_TEST(!queues.Acquire(c));
    BOOST_TEST(queues.Acquire(other), "another stream is free");
    BOOST_TEST(queues.Acquire(free), "a node without a resource never waits");
    BOOST_TEST(queues.DescribeWaiting() ==
               std::vector<std::string>({b->Describe() + " queued behind stream 1",
                                         c->Describe() + " queued behind stream 1"}));
    BOOST_TEST(queues.Release(*free) == nullptr);
    BOOST_TEST(queues.Release(*a) == b);
    BOOST_TEST(queues.Release(*b) == c);
    BOOST_TEST(queues.Release(*c) == nullptr);
    BOOST_TEST(queues.Acquire(MakeNode(5, ChakraProtoMsg::COMP_NODE, {{"stream", 1}})),
               "the stream is free again");
    BOOST_TEST(!queues.Acquire(MakeNode(6, ChakraProtoMsg::COMP_NODE, {{"stream", 2}})),
               "stream 2 is still held by node 3");
}

BOOST_AUTO_TEST_CASE(waiting_nodes_are_listed_in_the_order_of_the_resource_names)
{
    // "cpu thread 1" < "stream 10" < "stream 2" as text, not as numbers.
    ResourceQueues queues;
    auto s2 = MakeNode(0, ChakraProtoMsg::COMP_NODE, {{"stream", 2}});
    auto s10 = MakeNode(1, ChakraProtoMsg::COMP_NODE, {{"stream", 10}});
    auto cpu = MakeNode(2, ChakraProtoMsg::COMP_NODE, {{"is_cpu_op", 1}, {"tid", 1}});
    auto s1 = MakeNode(3, ChakraProtoMsg::COMP_NODE, {{"stream", 1}});
    auto cpu1 = MakeNode(4, ChakraProtoMsg::COMP_NODE, {{"is_cpu_op", 1}, {"tid", 1}});
    for (const auto& node : {s2, s10, cpu, s1})
    {
        BOOST_TEST(queues.Acquire(node), "thread 1 and streams 1, 2 and 10 are four resources");
    }
    auto w2 = MakeNode(5, ChakraProtoMsg::COMP_NODE, {{"stream", 2}});
    auto w10 = MakeNode(6, ChakraProtoMsg::COMP_NODE, {{"stream", 10}});
    BOOST_TEST(!queues.Acquire(w2));
    BOOST_TEST(!queues.Acquire(w10));
    BOOST_TEST(!queues.Acquire(cpu1));
    BOOST_TEST(queues.DescribeWaiting() ==
               std::vector<std::string>({cpu1->Describe() + " queued behind cpu thread 1",
                                         w10->Describe() + " queued behind stream 10",
                                         w2->Describe() + " queued behind stream 2"}));
    BOOST_TEST(queues.Release(*cpu) == cpu1, "a host thread and a stream of one number differ");
    BOOST_TEST(queues.Release(*s1) == nullptr);
}

BOOST_AUTO_TEST_CASE(times_print_in_microseconds_with_three_decimals)
{
    // Worked by hand: nanoseconds / 1000 with three decimals, the sign before the integer part.
    BOOST_TEST(FormatMicros(NanoSeconds(0)) == "0.000");
    BOOST_TEST(FormatMicros(NanoSeconds(1)) == "0.001");
    BOOST_TEST(FormatMicros(NanoSeconds(-1)) == "-0.001");
    BOOST_TEST(FormatMicros(NanoSeconds(-1500)) == "-1.500");
    BOOST_TEST(FormatMicros(NanoSeconds(1000)) == "1.000");
    BOOST_TEST(FormatMicros(NanoSeconds(11749931734)) == "11749931.734");
    // 2^49 - 1 ns, the last written from the integer, and 2^49 ns, the first through printf.
    BOOST_TEST(FormatMicros(NanoSeconds(562949953421311)) == "562949953421.311");
    BOOST_TEST(FormatMicros(NanoSeconds(562949953421312)) == "562949953421.312");
    BOOST_TEST(FormatMicros(NanoSeconds(-562949953421312)) == "-562949953421.312");
    // 2^63 - 1 ns: doubles near 9223372036854775.807 us are 2 apart; the nearest is ...776.
    BOOST_TEST(FormatMicros(NanoSeconds(std::numeric_limits<int64_t>::max())) ==
               "9223372036854776.000");
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(rank_stats)

BOOST_AUTO_TEST_CASE(busy_times_are_unions_and_exposed_communication_is_uncovered)
{
    RankStatsRecorder recorder;
    recorder.SetRank(3);
    // Compute [0, 10] and [5, 15] (two streams): busy 15. Communication [12, 20] and
    // [30, 40]: 18, of which [15, 20] and [30, 40] no compute covers: 15 exposed.
    recorder.AddCompute(MicroSeconds(5), MicroSeconds(15));
    recorder.AddCompute(MicroSeconds(0), MicroSeconds(10));
    recorder.AddCommunication(MicroSeconds(30), MicroSeconds(40), CommCategory::Other);
    recorder.AddCommunication(MicroSeconds(12), MicroSeconds(20), CommCategory::Other);
    recorder.CountNode();
    recorder.CountNode();
    recorder.SetFinished(MicroSeconds(40));
    const RankStats stats = recorder.Summarize("t.0.et");
    BOOST_TEST(stats.rank == 3u);
    BOOST_TEST(stats.finished);
    BOOST_TEST(stats.finishTime == MicroSeconds(40));
    BOOST_TEST(stats.nodes == 2u);
    BOOST_TEST(stats.computeBusy == MicroSeconds(15));
    BOOST_TEST(stats.commTime == MicroSeconds(18));
    BOOST_TEST(stats.exposedComm == MicroSeconds(15));
    BOOST_TEST(stats.warnings.empty());
}

BOOST_AUTO_TEST_CASE(back_to_back_and_out_of_order_intervals_keep_their_union)
{
    // Compute [20, 25], then [0, 5] (earlier, disjoint), [5, 8] (touching it), [7, 9]
    // (overlapping) and [30, 31]: busy 5 + 9 + 1 = 15. Communication [4, 21]: 17, of which
    // [9, 20] no compute covers: 11 exposed.
    RankStatsRecorder recorder;
    recorder.AddCompute(MicroSeconds(20), MicroSeconds(25));
    recorder.AddCompute(MicroSeconds(0), MicroSeconds(5));
    recorder.AddCompute(MicroSeconds(5), MicroSeconds(8));
    recorder.AddCompute(MicroSeconds(7), MicroSeconds(9));
    recorder.AddCompute(MicroSeconds(30), MicroSeconds(31));
    recorder.AddCommunication(MicroSeconds(4), MicroSeconds(21), CommCategory::Other);
    const RankStats stats = recorder.Summarize("t.0.et");
    BOOST_TEST(stats.computeBusy == MicroSeconds(15));
    BOOST_TEST(stats.commTime == MicroSeconds(17));
    BOOST_TEST(stats.exposedComm == MicroSeconds(11));
}

// The exposed part is split by category, each instant counted once, for the first category in
// the attribution order (TP, CP, EP, DP, other, PP) that runs then. Hand-drawn timeline (us):
//   compute [0, 10] and [20, 30]
//   TP      [8, 12]            -> exposed [10, 12] = 2
//   DP      [11, 24]           -> exposed [12, 20] = 8 ([11, 12] is TP's, [20, 24] compute's)
//   PP      [18, 22], [30, 35] -> exposed [30, 35] = 5 ([18, 20] is DP's)
//   other   [40, 41]           -> exposed 1
// Exposed in all: [10, 20] + [30, 35] + [40, 41] = 16, the sum of the parts.
BOOST_AUTO_TEST_CASE(exposed_communication_is_split_by_category_without_double_counting)
{
    RankStatsRecorder recorder;
    recorder.AddCompute(MicroSeconds(0), MicroSeconds(10));
    recorder.AddCompute(MicroSeconds(20), MicroSeconds(30));
    recorder.AddCommunication(MicroSeconds(30), MicroSeconds(35), CommCategory::Pipeline);
    recorder.AddCommunication(MicroSeconds(18), MicroSeconds(22), CommCategory::Pipeline);
    recorder.AddCommunication(MicroSeconds(11), MicroSeconds(24), CommCategory::Data);
    recorder.AddCommunication(MicroSeconds(8), MicroSeconds(12), CommCategory::Tensor);
    recorder.AddCommunication(MicroSeconds(40), MicroSeconds(41), CommCategory::Other);
    const RankStats stats = recorder.Summarize("t.0.et");
    auto exposed = [&stats](CommCategory c) {
        return stats.exposedByCategory[static_cast<std::size_t>(c)];
    };
    BOOST_TEST(exposed(CommCategory::Tensor) == MicroSeconds(2));
    BOOST_TEST(exposed(CommCategory::Context) == Time());
    BOOST_TEST(exposed(CommCategory::Expert) == Time());
    BOOST_TEST(exposed(CommCategory::Data) == MicroSeconds(8));
    BOOST_TEST(exposed(CommCategory::Other) == MicroSeconds(1));
    BOOST_TEST(exposed(CommCategory::Pipeline) == MicroSeconds(5));
    BOOST_TEST(stats.exposedComm == MicroSeconds(16));
}

// Groups are classified by their family, the name's leading letters, as the generators and
// Megatron-LM name them; send/recv on an unnamed group is pipeline traffic.
BOOST_AUTO_TEST_CASE(process_groups_are_classified_by_family)
{
    BOOST_TEST(ClassifyCommunication("tp3", false) == CommCategory::Tensor);
    BOOST_TEST(ClassifyCommunication("cp0", true) == CommCategory::Context);
    BOOST_TEST(ClassifyCommunication("ep12", false) == CommCategory::Expert);
    for (const char* data : {"dp0", "dpcp7", "edp1", "emb0", "DP2"})
    {
        BOOST_TEST(ClassifyCommunication(data, false) == CommCategory::Data, data);
    }
    BOOST_TEST(ClassifyCommunication("pp1", true) == CommCategory::Pipeline);
    BOOST_TEST(ClassifyCommunication("", false) == CommCategory::Other);
    BOOST_TEST(ClassifyCommunication("7", false) == CommCategory::Other);
    BOOST_TEST(ClassifyCommunication("7", true) == CommCategory::Pipeline);
    BOOST_TEST(ClassifyCommunication("tpx", false) == CommCategory::Other);
}

BOOST_AUTO_TEST_CASE(nodes_without_comm_size_make_one_warning_first)
{
    RankStatsRecorder recorder;
    recorder.AddWarning("earlier warning");
    for (uint64_t id = 100; id < 112; ++id)
    {
        recorder.AddSizelessNode(id);
    }
    const RankStats stats = recorder.Summarize("t.0.et");
    BOOST_TEST_REQUIRE(stats.warnings.size() == 2u);
    BOOST_TEST(stats.warnings[0] ==
               "t.0.et: 12 communication node(s) without comm_size ran as 0 bytes: node(s) 100, "
               "101, 102, 103, 104, 105, 106, 107, 108, 109 and 2 more (MissingCommSize=error, "
               "or --strict, makes it an error)");
    BOOST_TEST(stats.warnings[1] == "earlier warning");
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(communicator_table)

BOOST_AUTO_TEST_CASE(declared_foreign_and_undeclared_groups)
{
    // Rank 2 of 8, four ranks a host.
    CommunicatorTable table;
    table.Configure(2, 8, ShareRankList({0, 0, 0, 0, 1, 1, 1, 1}));
    std::vector<std::string> warnings;
    table.SetWarnings("t.2.et", [&warnings](const std::string& w) { warnings.push_back(w); });

    const Communicator& world = table.Of(*Call(0, ""));
    BOOST_TEST(world.Size() == 8u);
    BOOST_TEST(world.myIndex == 2u);

    table.NoteDeclared(true);
    BOOST_TEST(table.Declare({"tp", {3, 2, 5}, 3}) == "");
    BOOST_TEST(table.Declare({"other", {0, 1}, 2}) == "");
    BOOST_TEST(table.Declare({"big", {2, 9}, 2}).find("names a rank beyond the 8 ranks") !=
               std::string::npos);
    const Communicator& tp = table.Of(*Call(1, "tp"));
    BOOST_TEST(tp.Size() == 3u);
    BOOST_TEST(tp.myIndex == 1u);
    BOOST_TEST(*tp.hostOf == std::vector<uint32_t>({0, 0, 1}));
    BOOST_TEST(table.IsForeign("other"));
    BOOST_TEST(!table.IsForeign("tp"));
    BOOST_TEST(table.Label(CommunicatorId("tp")) == "communicator 'tp'");
    BOOST_TEST(table.Label(CommunicatorId("")) == "the world communicator");

    BOOST_TEST(warnings.empty());
    const Communicator& undeclared = table.Of(*Call(2, "x"));
    BOOST_TEST(undeclared.Size() == 8u, "an undeclared group spans every rank");
    BOOST_TEST(undeclared.name == "x");
    BOOST_TEST(undeclared.id == CommunicatorId("x"));
    BOOST_TEST_REQUIRE(warnings.size() == 1u);
    BOOST_TEST(warnings[0].find("process group 'x'") != std::string::npos);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(node_trim)

namespace
{

/** The names of a node's attributes, in order. */
std::vector<std::string>
AttributeNames(const ChakraProtoMsg::Node& node)
{
    std::vector<std::string> names;
    for (const auto& attribute : node.attr())
    {
        names.push_back(attribute.name());
    }
    return names;
}

/** Adds an int64 attribute. */
void
AddInt(ChakraProtoMsg::Node& node, const std::string& name, int64_t value)
{
    auto* attribute = node.add_attr();
    attribute->set_name(name);
    attribute->set_int64_val(value);
}

} // namespace

BOOST_AUTO_TEST_CASE(provenance_attributes_and_tensors_go_the_rest_stays_in_order)
{
    // A GPU kernel as the converter writes it (doc/chakra.md): the host trace's provenance
    // between the attributes the replay reads, and tensor inputs/outputs.
    ChakraProtoMsg::Node node;
    node.set_id(42);
    node.set_name("ncclKernel_AllReduce");
    node.set_type(ChakraProtoMsg::COMM_COLL_NODE);
    node.add_data_deps(41);
    node.add_ctrl_deps(40);
    node.set_duration_micros(17);
    AddInt(node, "rf_id", 6);
    AddInt(node, "stream", 7);
    AddInt(node, "fw_parent", 0);
    AddInt(node, "seq_id", -1);
    AddInt(node, "comm_type", ChakraProtoMsg::ALL_REDUCE);
    AddInt(node, "scope", 7);
    AddInt(node, "fw_tid", 0);
    AddInt(node, "comm_size", 1 << 20);
    AddInt(node, "device", 0);
    AddInt(node, "correlation", 99);
    auto* schema = node.add_attr();
    schema->set_name("op_schema");
    schema->set_string_val("aten::all_reduce(Tensor) -> Tensor");
    auto* category = node.add_attr();
    category->set_name("cat");
    category->set_string_val("kernel");
    auto* pg = node.add_attr();
    pg->set_name("pg_name");
    pg->set_string_val("0");
    node.mutable_inputs()->set_values("[[1,2,3]]");
    node.mutable_outputs()->set_shapes("[[262144]]");

    DropUnsimulatedFields(node);

    // Hand list: the attributes above minus the nine provenance names, in their order.
    BOOST_TEST(AttributeNames(node) ==
               std::vector<std::string>({"stream", "comm_type", "comm_size", "pg_name"}));
    BOOST_TEST(!node.has_inputs());
    BOOST_TEST(!node.has_outputs());
    const EtNode kept(node);
    BOOST_TEST(kept.GetId() == 42u);
    BOOST_TEST(kept.GetName() == "ncclKernel_AllReduce");
    BOOST_TEST(kept.GetType() == ChakraProtoMsg::COMM_COLL_NODE);
    BOOST_TEST(kept.GetDurationMicros() == 17u);
    BOOST_TEST(kept.GetDataDeps().size() == 1);
    BOOST_TEST(kept.GetCtrlDeps().size() == 1);
    BOOST_TEST(*kept.GetStream() == 7);
    BOOST_TEST(*kept.GetCommType() == ChakraProtoMsg::ALL_REDUCE);
    BOOST_TEST(kept.GetCommSize() == uint64_t{1} << 20);
    BOOST_TEST(kept.GetPgName() == "0");
}

BOOST_AUTO_TEST_CASE(a_metadata_node_keeps_its_inputs_the_process_group_declaration)
{
    // RunMetadata reads process_group:init's inputs.values: the one place inputs are read.
    ChakraProtoMsg::Node node;
    node.set_id(1);
    node.set_name("[pytorch|profiler|execution_trace|process_group:init]");
    node.set_type(ChakraProtoMsg::METADATA_NODE);
    AddInt(node, "rf_id", 1);
    node.mutable_inputs()->set_values("[[{\"pg_name\": \"0\", \"ranks\": [0, 1]}]]");
    DropUnsimulatedFields(node);
    BOOST_TEST(AttributeNames(node).empty());
    BOOST_REQUIRE(node.has_inputs());
    BOOST_TEST(node.inputs().values() == "[[{\"pg_name\": \"0\", \"ranks\": [0, 1]}]]");
}

BOOST_AUTO_TEST_CASE(a_repeated_name_keeps_its_first_value_first)
{
    // FindAttr returns the first attribute of a name: dropping others must not reorder them.
    ChakraProtoMsg::Node node;
    node.set_id(3);
    node.set_type(ChakraProtoMsg::COMP_NODE);
    AddInt(node, "seq_id", 1);
    AddInt(node, "tid", 1);
    AddInt(node, "scope", 2);
    AddInt(node, "tid", 2);
    DropUnsimulatedFields(node);
    BOOST_TEST(AttributeNames(node) == std::vector<std::string>({"tid", "tid"}));
    BOOST_TEST(*EtNode(node).GetTid() == 1);
    BOOST_TEST(IsUnsimulatedAttribute("op_schema"));
    BOOST_TEST(!IsUnsimulatedAttribute("duration_exact_micros"));
    BOOST_TEST(!IsUnsimulatedAttribute("is_cpu_op"));
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_CASE(interned_strings_are_one_copy_and_compare_by_text)
{
    // Built from different buffers, equal texts are one pooled copy; order and comparisons
    // follow the text (the report sorts calls by group name), not the pool's addresses.
    std::string built = "tp";
    built += "0";
    const InternedString a(built);
    const InternedString b("tp0");
    const InternedString c("dp0");
    BOOST_TEST(&a.str() == &b.str());
    BOOST_TEST((a == b));
    BOOST_TEST((a != c));
    BOOST_TEST((c < a));
    BOOST_TEST(!(a < b));
    BOOST_TEST((a == "tp0"));
    BOOST_TEST((a == std::string("tp0")));
    BOOST_TEST(("pg " + a + "!") == "pg tp0!");
    BOOST_TEST(InternedString().empty());
    BOOST_TEST((InternedString() == ""));
    const std::size_t pooled = InternedString::PoolSize();
    const InternedString again("tp0");
    BOOST_TEST(InternedString::PoolSize() == pooled);
    BOOST_TEST(sizeof(CommRecord) <= 96u);
}

BOOST_AUTO_TEST_CASE(the_report_reads_each_ranks_records_in_turn_without_a_copy)
{
    // Ranks 0 (two records), 1 (none) and 2 (one), added shared: the report lists 3 records
    // in rank order, and they are the ranks' own objects (shared, not copied).
    auto make = [](uint32_t rank, uint64_t firstNode, std::size_t n) {
        auto records = std::make_shared<std::vector<CommRecord>>();
        for (std::size_t i = 0; i < n; ++i)
        {
            CommRecord r;
            r.rank = rank;
            r.nodeId = firstNode + i;
            r.kind = i % 2 == 0 ? "SEND" : "ALL_REDUCE";
            records->push_back(r);
        }
        return records;
    };
    auto r0 = make(0, 10, 2);
    auto r2 = make(2, 30, 1);
    ChakraReport report;
    RankStats s0;
    s0.rank = 0;
    RankStats s1;
    s1.rank = 1;
    RankStats s2;
    s2.rank = 2;
    report.AddRank(s0, r0);
    report.AddRank(s1, make(1, 20, 0));
    report.AddRank(s2, r2);
    const CommRecordList& list = report.GetCommRecords();
    BOOST_TEST(list.size() == 3u);
    BOOST_TEST(!list.empty());
    std::vector<uint64_t> nodes;
    for (const CommRecord& r : list)
    {
        nodes.push_back(r.nodeId);
    }
    BOOST_TEST((nodes == std::vector<uint64_t>{10, 11, 30}));
    BOOST_TEST(&*list.begin() == &(*r0)[0]);
    BOOST_TEST(std::count_if(list.begin(), list.end(), [](const CommRecord& r) {
                   return r.kind == "SEND";
               }) == 2);
    // Ranks added out of order still come out by rank.
    ChakraReport shuffled;
    shuffled.AddRank(s2, r2);
    shuffled.AddRank(s0, r0);
    BOOST_TEST(shuffled.GetRanks().front().rank == 0u);
    BOOST_TEST(shuffled.GetRanks().back().rank == 2u);
}
