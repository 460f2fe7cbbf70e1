/*
 * TraceConverter on small hand-made traces (host-only and linked, per doc/linked-trace.md):
 * one case per rule, checked by reading the .et back. Expected values are worked out by hand
 * from the traces written here.
 */
#define BOOST_TEST_MODULE converter
#include "chakra-test-data.h"
#include "converter-test-util.h"

#include "ns3/collective-call.h"
#include "ns3/dependency-cycle.h"
#include "ns3/trace-error.h"

#include <boost/test/unit_test.hpp>
#include <nlohmann/json.hpp>

using namespace ns3;
using chakra_test::ConvertText;
using chakra_test::CtrlDeps;
using chakra_test::DataDeps;
using chakra_test::TempDir;
using Json = nlohmann::json;
using Ids = std::vector<uint64_t>;

namespace
{

/** A tensor value [tensor_id, storage_id, offset, num_elem, elem_bytes, device]. */
Json
Tensor(int64_t id, int64_t count, int64_t elementBytes)
{
    return Json::array({id, id + 1000, 0, count, elementBytes, "cuda:0"});
}

/** A schema 1.0.1 host op. */
Json
Host(uint64_t id, const std::string& name, uint64_t parent, int64_t tid = 1)
{
    return {{"id", id},
            {"name", name},
            {"parent", parent},
            {"rf_id", id + 500},
            {"fw_parent", 0},
            {"seq_id", -1},
            {"scope", 0},
            {"tid", tid},
            {"fw_tid", 0},
            {"op_schema", ""},
            {"inputs", Json::array()},
            {"input_shapes", Json::array()},
            {"input_types", Json::array()},
            {"outputs", Json::array()},
            {"output_shapes", Json::array()},
            {"output_types", Json::array()}};
}

/** A host op with timing, as a linker leaves it. */
Json
Timed(Json node, double ts, double exclusive)
{
    node["ts"] = ts;
    node["exclusive_dur"] = exclusive;
    node["inclusive_dur"] = exclusive;
    return node;
}

/** Sets a node's inputs (values and types). */
Json
WithInputs(Json node, Json values, Json types)
{
    node["inputs"] = std::move(values);
    node["input_types"] = std::move(types);
    return node;
}

/** A GPU op as the linker adds it (schema 1.0.1 layout). */
Json
Gpu(uint64_t id,
    const std::string& name,
    uint64_t launcher,
    int64_t stream,
    double ts,
    double dur,
    const std::string& cat = "kernel")
{
    return {{"id", id},
            {"name", name},
            {"parent", launcher},
            {"cat", cat},
            {"ts", ts},
            {"dur", dur},
            {"inclusive_dur", dur},
            {"exclusive_dur", dur},
            {"stream", stream},
            {"device", 0},
            {"correlation", id + 9000},
            {"tid", 1},
            {"inputs", Json::array()},
            {"input_shapes", Json::array()},
            {"input_types", Json::array()},
            {"outputs", Json::array()},
            {"output_shapes", Json::array()},
            {"output_types", Json::array()}};
}

/** The profiler's process root and one thread root per tid given. */
Json
Roots(std::initializer_list<std::pair<uint64_t, int64_t>> threads)
{
    Json nodes = Json::array();
    nodes.push_back(Host(1, "[pytorch|profiler|execution_trace|process]", 1, 0));
    for (auto [id, tid] : threads)
    {
        nodes.push_back(Host(id, "[pytorch|profiler|execution_trace|thread]", 1, tid));
    }
    return nodes;
}

/** A process_group:init node holding \p groups. */
Json
PgInit(uint64_t id, uint64_t parent, const Json& groups)
{
    return WithInputs(Host(id, "## process_group:init ##", parent),
                      Json::array({groups.dump()}),
                      Json::array({"String"}));
}

/** A whole schema 1.0.1 trace. */
Json
Trace(Json nodes, std::optional<Json> link = std::nullopt)
{
    Json trace = {{"schema", "1.0.1"},
                  {"pid", 42},
                  {"time", "2024-01-01 00:00:00"},
                  {"start_ts", 0},
                  {"finish_ts", 1000},
                  {"nodes", std::move(nodes)}};
    if (link)
    {
        trace["trace_link"] = *link;
    }
    return trace;
}

/** A trace_link object. */
Json
Link(int64_t rank, int64_t worldSize)
{
    return {{"version", 1}, {"rank", rank}, {"world_size", worldSize}, {"backend", "nccl"}};
}

/** The same trace in the chakra schema layout (ctrl_deps, {values, shapes, types}, attrs). */
Json
ToChakraSchema(const Json& legacy)
{
    Json out = legacy;
    out["schema"] = "1.1.0-chakra.0.0.4";
    for (Json& node : out["nodes"])
    {
        Json converted = {{"id", node["id"]},
                          {"name", node["name"]},
                          {"ctrl_deps", node["parent"]}};
        converted["inputs"] = {{"values", node["inputs"]},
                               {"shapes", node["input_shapes"]},
                               {"types", node["input_types"]}};
        converted["outputs"] = {{"values", node["outputs"]},
                                {"shapes", node["output_shapes"]},
                                {"types", node["output_types"]}};
        Json attrs = Json::array();
        for (const char* key :
             {"rf_id", "fw_parent", "seq_id", "scope", "tid", "fw_tid", "op_schema"})
        {
            if (node.contains(key) && !node.contains("cat"))
            {
                std::string type = node[key].is_string() ? "string" : "uint64";
                attrs.push_back({{"name", key}, {"type", type}, {"value", node[key]}});
            }
        }
        converted["attrs"] = attrs;
        for (auto it = node.begin(); it != node.end(); ++it)
        {
            static const std::set<std::string> moved = {"id",
                                                        "name",
                                                        "parent",
                                                        "inputs",
                                                        "input_shapes",
                                                        "input_types",
                                                        "outputs",
                                                        "output_shapes",
                                                        "output_types",
                                                        "rf_id",
                                                        "fw_parent",
                                                        "seq_id",
                                                        "scope",
                                                        "fw_tid",
                                                        "op_schema"};
            if (moved.count(it.key()) == 0 && (it.key() != "tid" || node.contains("cat")))
            {
                converted[it.key()] = it.value();
            }
        }
        node = converted;
    }
    return out;
}

/**
 * Trace A: every node type and dependency rule, one rank of a linked trace.
 *   thread 1 (root 2): 3 pg init; 4 ProfilerStep#1 { 5 aten::mm -> kernel 6 (stream 7);
 *     7 aten::copy_ -> memcpy 8 (stream 7), memset 9 (stream 9); 10 aten::item (sync on 6) }
 *   thread 2 (root 11): 12 aten::add (inter_thread_dep 10) -> kernels 13 (ts 160), 14 (ts 150)
 */
Json
TraceA()
{
    Json nodes = Roots({{2, 1}, {11, 2}});
    nodes.push_back(
        PgInit(3,
               2,
               Json::array({{{"pg_name", "0"},
                             {"ranks", Json::array()},
                             {"group_size", 4},
                             {"pg_desc", "default_pg"}},
                            {{"pg_name", "5"}, {"ranks", {1, 3}}, {"group_size", 2}}})));
    nodes.push_back(Timed(Host(4, "ProfilerStep#1", 2), 100, 2.4));
    nodes.push_back(Timed(WithInputs(Host(5, "aten::mm", 4),
                                     Json::array({Tensor(1, 6, 4), Tensor(2, 6, 4)}),
                                     Json::array({"Tensor(float)", "Tensor(float)"})),
                          101,
                          5.6));
    nodes.push_back(Gpu(6, "volta_sgemm_128x64_nn", 5, 7, 110, 10.6));
    nodes.push_back(Timed(Host(7, "aten::copy_", 4), 110, 3.5));
    nodes.push_back(Gpu(8, "Memcpy HtoD (Pageable -> Device)", 7, 7, 125, 2, "gpu_memcpy"));
    nodes.push_back(Gpu(9, "Memset (Device)", 7, 9, 126, 1, "gpu_memset"));
    Json item = Timed(Host(10, "aten::item", 4), 130, 1);
    item["sync_deps"] = {6};
    nodes.push_back(item);
    Json add = Timed(Host(12, "aten::add", 11, 2), 140, 4);
    add["inter_thread_dep"] = 10;
    nodes.push_back(add);
    nodes.push_back(Gpu(13, "vectorized_elementwise_kernel", 12, 7, 160, 3));
    nodes.push_back(Gpu(14, "vectorized_elementwise_kernel", 12, 7, 150, 3));
    return Trace(nodes, Link(1, 4));
}

/** Node ids of a file in order. */
Ids
IdsOf(const chakra_test::EtFile& file)
{
    Ids ids;
    for (const auto& node : file.nodes)
    {
        ids.push_back(node.GetId());
    }
    return ids;
}

/** \return the oneof used by an attribute of a node */
ChakraProtoMsg::AttributeProto::ValueCase
AttrCase(const EtNode& node, const std::string& name)
{
    const auto* attr = node.FindAttr(name);
    BOOST_REQUIRE_MESSAGE(attr != nullptr, node.Describe() + " has no " + name);
    return attr->value_case();
}

/** Expects conversion of \p json to fail with a message containing every one of \p parts. */
void
ExpectError(const Json& json,
            std::initializer_list<std::string> parts,
            const std::string& text = "")
{
    TempDir dir;
    const std::string input = dir.File("bad.json");
    const std::string output = dir.File("bad.et");
    chakra_test::WriteFileBytes(input, text.empty() ? json.dump() : text);
    try
    {
        TraceConverter().Convert(input, output);
        BOOST_ERROR("conversion succeeded, expected an error with: " + *parts.begin());
    }
    catch (const TraceError& e)
    {
        std::string message = e.what();
        BOOST_TEST(message.find(input) != std::string::npos, message);
        for (const auto& part : parts)
        {
            BOOST_TEST(message.find(part) != std::string::npos,
                       "'" << part << "' not in: " << message);
        }
    }
    BOOST_TEST(!chakra_test::FileExists(output));
    BOOST_TEST(chakra_test::ListDir(dir.Path()).size() == 1u); // no temporary left either
}

/**
 * One collective call: c10d op > record_param_comms > backend op > optional kernel.
 * \return the nodes (ids first .. first+3)
 */
Json
Call(uint64_t first,
     uint64_t parent,
     const std::string& c10d,
     const Json& c10dInputs,
     const std::string& collectiveName,
     const Json& pg,
     int64_t rankArgument,
     const std::string& backend,
     const Json& backendInputs,
     const std::string& kernel)
{
    Json nodes = Json::array();
    auto types = [](const Json& values) {
        Json out = Json::array();
        for (const Json& value : values)
        {
            out.push_back(value.is_array() && !value.empty() && value[0].is_array()
                              ? "GenericList[Tensor(float)]"
                              : (value.is_array() && value.size() == 6 ? "Tensor(float)" : "Int"));
        }
        return out;
    };
    nodes.push_back(WithInputs(Host(first, c10d, parent), c10dInputs, types(c10dInputs)));
    Json recordInputs =
        {backendInputs, 7, pg, rankArgument, collectiveName, Json::array(), Json::array()};
    Json recordTypes = {"GenericList[Tensor(float)]",
                        "Int",
                        "Tuple[String,String]",
                        "Int",
                        "String",
                        "GenericList[]",
                        "GenericList[]"};
    nodes.push_back(
        WithInputs(Host(first + 1, "record_param_comms", first), recordInputs, recordTypes));
    nodes.push_back(
        WithInputs(Host(first + 2, backend, first + 1), backendInputs, types(backendInputs)));
    if (!kernel.empty())
    {
        nodes.push_back(Gpu(first + 3, kernel, first + 2, 20, 1000 + first, 30.2));
    }
    return nodes;
}

} // namespace

BOOST_AUTO_TEST_SUITE(node_types)

BOOST_AUTO_TEST_CASE(linked_trace_nodes_attributes_and_durations)
{
    TempDir dir;
    auto [report, et] = ConvertText(dir, TraceA().dump());
    BOOST_TEST(chakra_test::CheckStructure(et) == "");
    // The profiler roots 1, 2 and 11 are left out; everything else keeps its id, ascending.
    BOOST_TEST(IdsOf(et) == (Ids{3, 4, 5, 6, 7, 8, 9, 10, 12, 13, 14}),
               boost::test_tools::per_element());
    BOOST_TEST(report.droppedRoots == 3u);
    BOOST_TEST(et.metadata.version() == "0.0.4");
    BOOST_TEST(et.MetaString("schema") == "1.0.1");

    const EtNode& mm = et.Get(5);
    BOOST_TEST(mm.GetType() == ChakraProtoMsg::COMP_NODE);
    BOOST_TEST(mm.IsCpuOp());
    BOOST_TEST(AttrCase(mm, "is_cpu_op") == ChakraProtoMsg::AttributeProto::kBoolVal);
    BOOST_TEST(mm.GetDurationMicros() == 6u); // exclusive_dur 5.6 rounded
    BOOST_TEST(mm.GetDouble("duration_exact_micros") == 5.6);
    BOOST_TEST(*mm.GetTid() == 1);
    BOOST_TEST(AttrCase(mm, "tid") == ChakraProtoMsg::AttributeProto::kInt64Val);
    BOOST_TEST(mm.GetInt("rf_id") == 505);
    BOOST_TEST(AttrCase(mm, "rf_id") == ChakraProtoMsg::AttributeProto::kInt64Val);
    BOOST_TEST(AttrCase(mm, "op_schema") == ChakraProtoMsg::AttributeProto::kStringVal);
    for (const char* name : {"fw_parent", "seq_id", "scope", "fw_tid"})
    {
        BOOST_TEST(AttrCase(mm, name) == ChakraProtoMsg::AttributeProto::kInt64Val);
    }
    BOOST_TEST(mm.GetInt("seq_id") == -1);
    // IOInfo strings are JSON (double quotes), equal to the trace's arrays.
    BOOST_TEST(Json::parse(mm.GetProto().inputs().values()) ==
               Json::array({Tensor(1, 6, 4), Tensor(2, 6, 4)}));
    BOOST_TEST(Json::parse(mm.GetProto().inputs().types()) ==
               Json::array({"Tensor(float)", "Tensor(float)"}));
    BOOST_TEST(mm.GetProto().start_time_micros() == 101u);

    const EtNode& kernel = et.Get(6);
    BOOST_TEST(kernel.GetType() == ChakraProtoMsg::COMP_NODE);
    BOOST_TEST(!kernel.IsCpuOp());
    BOOST_TEST(kernel.FindAttr("is_cpu_op") != nullptr);
    BOOST_TEST(*kernel.GetStream() == 7);
    BOOST_TEST(AttrCase(kernel, "stream") == ChakraProtoMsg::AttributeProto::kInt64Val);
    BOOST_TEST(kernel.GetDurationMicros() == 11u); // dur 10.6
    BOOST_TEST(!kernel.HasAttr("tid"));
    for (uint64_t id : {8, 9})
    {
        const EtNode& op = et.Get(id);
        BOOST_TEST(op.GetType() == ChakraProtoMsg::COMP_NODE);
        BOOST_TEST(!op.IsCpuOp());
    }
    BOOST_TEST(*et.Get(9).GetStream() == 9);
    BOOST_TEST(et.Get(8).GetString("cat") == "gpu_memcpy");
    BOOST_TEST(et.Get(4).GetDurationMicros() == 2u); // 2.4
    BOOST_TEST(et.Get(7).GetDurationMicros() == 4u); // 3.5 rounds half up
    BOOST_TEST(report.cpuOps == 5u);
    BOOST_TEST(report.gpuOps == 5u);
}

BOOST_AUTO_TEST_CASE(process_group_init_becomes_metadata_with_ranks_filled_in)
{
    TempDir dir;
    auto [report, et] = ConvertText(dir, TraceA().dump());
    const EtNode& meta = et.Get(3);
    BOOST_TEST(meta.GetType() == ChakraProtoMsg::METADATA_NODE);
    BOOST_TEST(meta.GetName() == "process_group:init");
    BOOST_TEST(meta.GetDataDeps().empty());
    BOOST_TEST(meta.GetCtrlDeps().empty());
    Json groups = Json::parse(meta.GetProto().inputs().values());
    BOOST_REQUIRE(groups.is_array());
    BOOST_REQUIRE(groups.size() == 2u);
    BOOST_TEST(groups[0]["pg_name"] == "0");
    BOOST_TEST(groups[0]["ranks"] == Json::array({0, 1, 2, 3})); // [] + group_size 4
    BOOST_TEST(groups[0]["group_size"] == 4);
    BOOST_TEST(groups[0]["pg_desc"] == "default_pg"); // other keys kept
    BOOST_TEST(groups[1]["pg_name"] == "5");
    BOOST_TEST(groups[1]["ranks"] == Json::array({1, 3}));
    BOOST_TEST(report.metadataNodes == 1u);
    // Nothing depends on the metadata node.
    for (const auto& node : et.nodes)
    {
        for (uint64_t dep : DataDeps(node))
        {
            BOOST_TEST(dep != 3u);
        }
    }
}

BOOST_AUTO_TEST_CASE(every_schema_gives_the_same_nodes)
{
    TempDir dir;
    Json legacy = TraceA();
    auto a = ConvertText(dir, legacy.dump(), {}, "legacy");
    auto b = ConvertText(dir, ToChakraSchema(legacy).dump(), {}, "chakra");
    BOOST_TEST(b.et.MetaString("schema") == "1.1.0-chakra.0.0.4");
    BOOST_REQUIRE(a.et.nodes.size() == b.et.nodes.size());
    for (std::size_t i = 0; i < a.et.nodes.size(); ++i)
    {
        BOOST_TEST(a.et.nodes[i].GetProto().SerializeAsString() ==
                       b.et.nodes[i].GetProto().SerializeAsString(),
                   a.et.nodes[i].Describe());
    }
}

BOOST_AUTO_TEST_CASE(linked_keys_in_attrs_are_read_too)
{
    // A chakra-schema linker may put its keys into "attrs": they are read from there as well.
    Json trace = ToChakraSchema(Trace(Json::array({Host(4, "aten::mm", 4)})));
    Json& attrs = trace["nodes"][0]["attrs"];
    attrs.push_back({{"name", "ts"}, {"type", "double"}, {"value", 12.0}});
    attrs.push_back({{"name", "exclusive_dur"}, {"type", "double"}, {"value", 7.4}});
    TempDir dir;
    auto [report, et] = ConvertText(dir, trace.dump());
    BOOST_TEST(et.Get(4).GetDurationMicros() == 7u);
    BOOST_TEST(et.Get(4).GetProto().start_time_micros() == 12u);
    BOOST_TEST(!et.Get(4).HasAttr("exclusive_dur")); // represented by duration_micros instead
    trace["nodes"][0].erase("ctrl_deps");
    ExpectError(trace, {"node 4 (aten::mm)", "ctrl_deps"});
}

BOOST_AUTO_TEST_CASE(same_input_same_bytes)
{
    TempDir dir;
    const std::string input = dir.File("a.json");
    chakra_test::WriteFileBytes(input, TraceA().dump());
    TraceConverter().Convert(input, dir.File("one.et"));
    TraceConverter().Convert(input, dir.File("two.et.gz"));
    BOOST_TEST(chakra_test::ReadFileBytes(dir.File("one.et")) ==
               chakra_test::ReadMaybeGzip(dir.File("two.et.gz")));
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(dependencies)

BOOST_AUTO_TEST_CASE(program_order_launch_stream_sync_and_inter_thread)
{
    TempDir dir;
    auto [report, et] = ConvertText(dir, TraceA().dump());
    // Thread 1 in program order 4, 5, 7, 10; the call-tree parent as ctrl dep.
    BOOST_TEST(DataDeps(et.Get(4)).empty());
    BOOST_TEST(CtrlDeps(et.Get(4)).empty()); // its parent, the thread root, is not in the output
    BOOST_TEST(DataDeps(et.Get(5)) == (Ids{4}), boost::test_tools::per_element());
    BOOST_TEST(CtrlDeps(et.Get(5)) == (Ids{4}), boost::test_tools::per_element());
    BOOST_TEST(DataDeps(et.Get(7)) == (Ids{5}), boost::test_tools::per_element());
    BOOST_TEST(CtrlDeps(et.Get(7)) == (Ids{4}), boost::test_tools::per_element());
    // aten::item waited for kernel 6 (sync_deps) and follows aten::copy_.
    BOOST_TEST(DataDeps(et.Get(10)) == (Ids{6, 7}), boost::test_tools::per_element());
    // GPU ops: launcher, then the previous op of the same stream by start time
    // (stream 7: 6 @110, 8 @125, 14 @150, 13 @160).
    BOOST_TEST(DataDeps(et.Get(6)) == (Ids{5}), boost::test_tools::per_element());
    BOOST_TEST(CtrlDeps(et.Get(6)) == (Ids{5}), boost::test_tools::per_element());
    BOOST_TEST(DataDeps(et.Get(8)) == (Ids{6, 7}), boost::test_tools::per_element());
    BOOST_TEST(DataDeps(et.Get(9)) == (Ids{7}), boost::test_tools::per_element());
    BOOST_TEST(DataDeps(et.Get(14)) == (Ids{8, 12}), boost::test_tools::per_element());
    BOOST_TEST(DataDeps(et.Get(13)) == (Ids{12, 14}), boost::test_tools::per_element());
    // Thread 2 starts after the op of thread 1 named by inter_thread_dep.
    BOOST_TEST(DataDeps(et.Get(12)) == (Ids{10}), boost::test_tools::per_element());
    BOOST_TEST(CtrlDeps(et.Get(12)).empty());
    BOOST_TEST(*et.Get(12).GetTid() == 2);
    BOOST_TEST(report.droppedReferences == 0u);
}

BOOST_AUTO_TEST_CASE(host_only_trace_in_id_order_per_thread)
{
    // Without timing: preorder of the call tree per tid; two threads interleaved by id.
    Json nodes = Roots({{2, 1}, {3, 2}});
    nodes.push_back(Host(4, "a", 2));
    nodes.push_back(Host(5, "x", 3, 2));
    nodes.push_back(Host(6, "a.child", 4));
    nodes.push_back(Host(7, "x.child", 5, 2));
    nodes.push_back(Host(8, "b", 2));
    TempDir dir;
    auto [report, et] = ConvertText(dir, Trace(nodes).dump());
    BOOST_TEST(DataDeps(et.Get(4)).empty());
    BOOST_TEST(DataDeps(et.Get(6)) == (Ids{4}), boost::test_tools::per_element());
    BOOST_TEST(DataDeps(et.Get(8)) == (Ids{6}), boost::test_tools::per_element());
    BOOST_TEST(DataDeps(et.Get(5)).empty());
    BOOST_TEST(DataDeps(et.Get(7)) == (Ids{5}), boost::test_tools::per_element());
    BOOST_TEST(CtrlDeps(et.Get(7)) == (Ids{5}), boost::test_tools::per_element());
    for (const auto& node : et.nodes)
    {
        BOOST_TEST(node.GetDurationMicros() == 0u); // a host trace has no times
    }
}

BOOST_AUTO_TEST_CASE(sync_on_work_the_op_launched_itself_holds_the_next_op)
{
    // aten::item launches a blocking copy and waits for it: 6 cannot wait for its own child, so
    // the next host op of the thread (7) waits for the copy.
    Json nodes = Roots({{2, 1}});
    Json item = Timed(Host(5, "aten::item", 2), 10, 1);
    item["sync_deps"] = {6};
    nodes.push_back(item);
    nodes.push_back(Gpu(6, "Memcpy DtoH (Device -> Pageable)", 5, 7, 11, 2, "gpu_memcpy"));
    nodes.push_back(Timed(Host(7, "aten::add", 2), 20, 1));
    TempDir dir;
    auto [report, et] = ConvertText(dir, Trace(nodes).dump());
    BOOST_TEST(DataDeps(et.Get(5)).empty());
    BOOST_TEST(DataDeps(et.Get(6)) == (Ids{5}), boost::test_tools::per_element());
    BOOST_TEST(DataDeps(et.Get(7)) == (Ids{5, 6}), boost::test_tools::per_element());
    BOOST_TEST(report.movedSyncDeps == 1u);
}

BOOST_AUTO_TEST_CASE(references_to_missing_nodes_are_dropped)
{
    Json nodes = Roots({{2, 1}});
    Json a = Timed(Host(4, "a", 2), 1, 1);
    a["inter_thread_dep"] = 999;
    a["sync_deps"] = {998};
    nodes.push_back(a);
    nodes.push_back(Timed(Host(5, "b", 997), 2, 1)); // parent 997 does not exist
    TempDir dir;
    auto [report, et] = ConvertText(dir, Trace(nodes).dump());
    BOOST_TEST(chakra_test::CheckStructure(et) == "");
    BOOST_TEST(DataDeps(et.Get(4)).empty());
    BOOST_TEST(CtrlDeps(et.Get(5)).empty());
    BOOST_TEST(DataDeps(et.Get(5)) == (Ids{4}), boost::test_tools::per_element());
    BOOST_TEST(report.droppedReferences == 3u);
    BOOST_TEST(report.warningCount >= 3u);
}

BOOST_AUTO_TEST_CASE(dependency_cycle_is_reported_with_ids_and_names)
{
    // Thread 1: 50 then 51; thread 2: 60 then 61. 50 waits for 61 and 60 for 51: a cycle.
    Json nodes = Roots({{2, 1}, {3, 2}});
    Json a = Timed(Host(50, "first", 2), 1, 1);
    a["inter_thread_dep"] = 61;
    nodes.push_back(a);
    nodes.push_back(Timed(Host(51, "second", 2), 2, 1));
    Json c = Timed(Host(60, "third", 3, 2), 3, 1);
    c["inter_thread_dep"] = 51;
    nodes.push_back(c);
    nodes.push_back(Timed(Host(61, "fourth", 3, 2), 4, 1));
    ExpectError(
        Trace(nodes),
        {"cycle", "node 50 (first)", "node 51 (second)", "node 60 (third)", "node 61 (fourth)"});
}

BOOST_AUTO_TEST_CASE(parent_loop_is_reported)
{
    Json nodes = Roots({{2, 1}});
    nodes.push_back(Host(7, "p", 8));
    nodes.push_back(Host(8, "q", 7));
    ExpectError(Trace(nodes), {"cycle", "node 7 (p)", "node 8 (q)"});
}

BOOST_AUTO_TEST_CASE(deep_call_tree_without_recursion)
{
    // 100,000 nested host ops (each the child of the previous): a recursive traversal or cycle
    // search would overflow the stack.
    const uint64_t depth = 100000;
    Json nodes = Roots({{2, 1}});
    for (uint64_t id = 3; id < 3 + depth; ++id)
    {
        nodes.push_back({{"id", id}, {"name", "op"}, {"parent", id - 1}, {"tid", 1}});
    }
    TempDir dir;
    auto [report, et] = ConvertText(dir, Trace(nodes).dump());
    BOOST_REQUIRE(et.nodes.size() == depth);
    BOOST_TEST(DataDeps(et.Get(3)).empty());
    BOOST_TEST(DataDeps(et.Get(2 + depth)) == (Ids{1 + depth}), boost::test_tools::per_element());
    BOOST_TEST(CtrlDeps(et.Get(2 + depth)) == (Ids{1 + depth}), boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(cycle_finder)
{
    // Acyclic: a diamond.
    BOOST_TEST(FindDependencyCycle({{}, {0}, {0}, {1, 2}}).empty());
    // 0 <- 1 <- 2 <- 0 (each depends on the one before), plus 3 hanging off the cycle.
    auto cycle = FindDependencyCycle({{2}, {0}, {1}, {2}});
    BOOST_TEST(cycle == (std::vector<std::size_t>{0, 1, 2}), boost::test_tools::per_element());
    // A self-dependency.
    BOOST_TEST(FindDependencyCycle({{}, {1}}) == (std::vector<std::size_t>{1}),
               boost::test_tools::per_element());
    // A million-long chain closed into a cycle: found iteratively, whole.
    const std::size_t n = 1000000;
    std::vector<std::vector<std::size_t>> deps(n);
    for (std::size_t i = 1; i < n; ++i)
    {
        deps[i].push_back(i - 1);
    }
    BOOST_TEST(FindDependencyCycle(deps).empty());
    deps[0].push_back(n - 1);
    cycle = FindDependencyCycle(deps);
    BOOST_REQUIRE(cycle.size() == n);
    for (std::size_t k = 1; k < n; ++k)
    {
        BOOST_REQUIRE(cycle[k] == (cycle[k - 1] + 1) % n);
    }
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(collectives)

BOOST_AUTO_TEST_CASE(one_comm_node_per_call_the_kernel_when_there_is_one)
{
    Json nodes = Roots({{2, 1}});
    Json t = Tensor(100, 1000, 4);
    for (const Json& node : Call(20,
                                 2,
                                 "c10d::allreduce_",
                                 Json::array({Json::array({t}), "<Object>", "<Object>", -1}),
                                 "allreduce",
                                 Json::array({"0", "default_pg"}),
                                 1,
                                 "nccl:all_reduce",
                                 Json::array({t}),
                                 "ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, ...)"))
    {
        nodes.push_back(node);
    }
    TempDir dir;
    auto [report, et] = ConvertText(dir, Trace(nodes, Link(1, 4)).dump());
    auto comm = et.CommNodes();
    BOOST_REQUIRE(comm.size() == 1u);
    const EtNode& kernel = comm[0];
    BOOST_TEST(kernel.GetId() == 23u);
    BOOST_TEST(kernel.GetType() == ChakraProtoMsg::COMM_COLL_NODE);
    BOOST_TEST(*kernel.GetCommType() == ChakraProtoMsg::ALL_REDUCE);
    BOOST_TEST(AttrCase(kernel, "comm_type") == ChakraProtoMsg::AttributeProto::kInt64Val);
    BOOST_TEST(kernel.GetCommSize() == 4000u);
    BOOST_TEST(AttrCase(kernel, "comm_size") == ChakraProtoMsg::AttributeProto::kInt64Val);
    BOOST_TEST(kernel.GetPgName() == "0");
    BOOST_TEST(AttrCase(kernel, "pg_name") == ChakraProtoMsg::AttributeProto::kStringVal);
    BOOST_TEST(!kernel.IsCpuOp());
    BOOST_TEST(*kernel.GetStream() == 20);
    BOOST_TEST(kernel.GetDurationMicros() == 30u);
    BOOST_TEST(DataDeps(kernel) == (Ids{22}), boost::test_tools::per_element());
    for (uint64_t id : {20, 21, 22})
    {
        BOOST_TEST(et.Get(id).GetType() == ChakraProtoMsg::COMP_NODE);
        BOOST_TEST(et.Get(id).IsCpuOp());
    }
    BOOST_TEST(report.commFromKernels == 1u);
}

BOOST_AUTO_TEST_CASE(one_comm_node_per_call_the_innermost_host_op_without_kernel)
{
    Json nodes = Roots({{2, 1}});
    Json t = Tensor(100, 1000, 4);
    for (const Json& node : Call(20,
                                 2,
                                 "c10d::allreduce_",
                                 Json::array({Json::array({t}), "<Object>", "<Object>", -1}),
                                 "allreduce",
                                 Json::array({"0", "default_pg"}),
                                 1,
                                 "nccl:all_reduce",
                                 Json::array({t}),
                                 ""))
    {
        nodes.push_back(node);
    }
    TempDir dir;
    auto [report, et] = ConvertText(dir, Trace(nodes).dump());
    auto comm = et.CommNodes();
    BOOST_REQUIRE(comm.size() == 1u);
    BOOST_TEST(comm[0].GetId() == 22u);
    BOOST_TEST(comm[0].GetName() == "nccl:all_reduce");
    BOOST_TEST(comm[0].IsCpuOp());
    BOOST_TEST(comm[0].GetCommSize() == 4000u);
    BOOST_TEST(*comm[0].GetTid() == 1);
    BOOST_TEST(DataDeps(comm[0]) == (Ids{21}), boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(collective_names_map_to_comm_types)
{
    using P = ChakraProtoMsg::CollectiveCommType;
    // backend op name, kernel name, expected type (CollectiveCommType of FORMATS.md).
    const std::vector<std::tuple<std::string, std::string, int>> cases = {
        {"nccl:all_reduce", "ncclKernel_AllReduce_RING_LL_Sum_float(x)", 0},
        {"nccl:reduce", "ncclKernel_Reduce_RING_LL_Sum_float(x)", 1},
        {"nccl:all_gather", "ncclDevKernel_AllGather_RING_LL(x)", 2},
        {"nccl:_allgather_base", "ncclDevKernel_AllGather_RING_LL(x)", 2},
        {"nccl:all_gather_into_tensor_coalesced", "ncclDevKernel_AllGather_RING_LL(x)", 2},
        {"nccl:gather", "ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(x)", 3},
        {"nccl:scatter", "ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(x)", 4},
        {"nccl:broadcast", "ncclKernel_Broadcast_RING_LL_Sum_int8_t(x)", 5},
        {"nccl:all_to_all", "ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(x)", 6},
        {"nccl:reduce_scatter", "ncclDevKernel_ReduceScatter_Sum_f32_RING_LL(x)", 7},
        {"nccl:_reduce_scatter_base", "ncclDevKernel_ReduceScatter_Sum_f32_RING_LL(x)", 7},
        {"gloo:barrier", "", 9},
        {"gloo:all_reduce", "", 0},
    };
    for (const auto& [backend, kernel, expected] : cases)
    {
        Json nodes = Roots({{2, 1}});
        Json t = Tensor(100, 10, 4);
        Json call = Call(20,
                         2,
                         "c10d::something_else",
                         Json::array({Json::array({t})}),
                         backend.substr(backend.find(':') + 1),
                         Json::array({"0", ""}),
                         0,
                         backend,
                         Json::array({t}),
                         kernel);
        for (const Json& node : call)
        {
            nodes.push_back(node);
        }
        TempDir dir;
        auto [report, et] = ConvertText(dir, Trace(nodes, Link(0, 2)).dump());
        auto comm = et.CommNodes();
        BOOST_REQUIRE_MESSAGE(comm.size() == 1u, backend);
        BOOST_TEST(comm[0].GetType() == ChakraProtoMsg::COMM_COLL_NODE, backend);
        BOOST_TEST(static_cast<int>(*comm[0].GetCommType()) == expected, backend);
        BOOST_TEST(comm[0].GetId() == (kernel.empty() ? 22u : 23u), backend);
        BOOST_TEST(comm[0].GetCommSize() == (expected == P::BARRIER ? 0u : 40u), backend);
    }
}

BOOST_AUTO_TEST_CASE(kernel_names_alone_give_the_collective)
{
    const std::vector<std::pair<std::string, int>> cases = {
        {"ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)", 0},
        {"ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)", 0},
        {"ncclKernel_AllGather_RING_LL_Sum_int8_t(ncclDevComm*)", 2},
        {"ncclDevKernel_AllGather_RING_LL(ncclDevKernelArgsStorage<4096ul>)", 2},
        {"ncclKernel_ReduceScatter_RING_LL_Sum_float(ncclDevComm*)", 7},
        {"ncclDevKernel_ReduceScatter_Sum_bf16_RING_LL(x)", 7},
        {"ncclKernel_Broadcast_RING_LL_Sum_int8_t(ncclDevComm*)", 5},
        {"ncclDevKernel_Broadcast_RING_LL(x)", 5},
        {"ncclKernel_Reduce_RING_LL_Sum_float(ncclDevComm*)", 1},
        {"ncclDevKernel_Reduce_Sum_f32_RING_LL(x)", 1},
    };
    for (const auto& [name, expected] : cases)
    {
        auto op = ClassifyNcclKernelName(name);
        BOOST_REQUIRE_MESSAGE(op.has_value(), name);
        BOOST_TEST((op->kind == CommKind::Collective), name);
        BOOST_TEST(static_cast<int>(op->type) == expected, name);
    }
    for (const char* name : {"ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(x)",
                             "ncclDevKernel_SendRecv(ncclDevKernelArgsStorage<4096ul>)"})
    {
        auto op = ClassifyNcclKernelName(name);
        BOOST_REQUIRE(op.has_value());
        BOOST_TEST((op->kind == CommKind::SendRecv), name);
    }
    BOOST_TEST(!ClassifyNcclKernelName("ncclKernel_Frobnicate_RING(x)").has_value());
    BOOST_TEST(!ClassifyNcclKernelName("volta_sgemm_128x64_nn").has_value());

    // In a trace: a NCCL kernel launched outside any collective host op still becomes a
    // COMM_COLL of its kernel's type (size unknown: 0, with a warning); a SendRecv kernel there
    // cannot tell its direction and stays a GPU compute op.
    Json nodes = Roots({{2, 1}});
    nodes.push_back(Timed(Host(4, "aten::foo", 2), 1, 1));
    nodes.push_back(Gpu(5, "ncclDevKernel_ReduceScatter_Sum_f32_RING_LL(x)", 4, 3, 2, 5));
    nodes.push_back(Gpu(6, "ncclDevKernel_SendRecv(x)", 4, 3, 8, 5));
    TempDir dir;
    auto [report, et] = ConvertText(dir, Trace(nodes).dump());
    BOOST_TEST(et.Get(5).GetType() == ChakraProtoMsg::COMM_COLL_NODE);
    BOOST_TEST(*et.Get(5).GetCommType() == ChakraProtoMsg::REDUCE_SCATTER);
    BOOST_TEST(et.Get(5).GetCommSize() == 0u);
    BOOST_TEST(et.Get(6).GetType() == ChakraProtoMsg::COMP_NODE);
    BOOST_TEST(report.warningCount == 2u);
}

BOOST_AUTO_TEST_CASE(misattached_kernel_joins_its_call_instead_of_counting_twice)
{
    // The linker attached the all_reduce kernel (24) to the op after the call (23): the call
    // 20..22 has no kernel and the kernel is under no collective op. One COMM_COLL: the kernel,
    // with the call's size. An all_gather kernel (26) finds no all_gather call: it stays alone.
    Json nodes = Roots({{2, 1}});
    Json t = Tensor(100, 250, 4);
    for (const Json& node : Call(20,
                                 2,
                                 "c10d::allreduce_",
                                 Json::array({Json::array({t})}),
                                 "allreduce",
                                 Json::array({"0", ""}),
                                 0,
                                 "nccl:all_reduce",
                                 Json::array({t}),
                                 ""))
    {
        nodes.push_back(node);
    }
    nodes.push_back(Timed(Host(23, "autograd::engine::evaluate_function", 2), 50, 3));
    nodes.push_back(Gpu(24, "ncclKernel_AllReduce_RING_LL_Sum_float(x)", 23, 5, 51, 40));
    nodes.push_back(Timed(Host(25, "aten::add", 2), 60, 3));
    nodes.push_back(Gpu(26, "ncclKernel_AllGather_RING_LL_Sum_float(x)", 25, 5, 61, 40));
    TempDir dir;
    auto [report, et] = ConvertText(dir, Trace(nodes, Link(0, 2)).dump());
    auto comm = et.CommNodes();
    BOOST_REQUIRE(comm.size() == 2u);
    BOOST_TEST(comm[0].GetId() == 24u);
    BOOST_TEST(*comm[0].GetCommType() == ChakraProtoMsg::ALL_REDUCE);
    BOOST_TEST(comm[0].GetCommSize() == 1000u);
    BOOST_TEST(et.Get(22).GetType() == ChakraProtoMsg::COMP_NODE);
    BOOST_TEST(comm[1].GetId() == 26u);
    BOOST_TEST(comm[1].GetCommSize() == 0u);
    BOOST_TEST(report.warningCount == 2u);
}

BOOST_AUTO_TEST_CASE(host_collective_names)
{
    const std::vector<std::pair<std::string, int>> collectives = {
        {"all_reduce", 0},
        {"allreduce_", 0},
        {"allreduce_coalesced_", 0},
        {"reduce_", 1},
        {"allgather_", 2},
        {"_allgather_base_", 2},
        {"all_gather_into_tensor_coalesced", 2},
        {"gather_", 3},
        {"scatter_", 4},
        {"broadcast_", 5},
        {"alltoall_base_", 6},
        {"all_to_allv", 6},
        {"all_to_all", 6},
        {"reduce_scatter_", 7},
        {"_reduce_scatter_base_", 7},
        {"reduce_scatter_tensor_coalesced", 7},
        {"barrier", 9},
        {"monitored_barrier_", 9},
    };
    for (const auto& [name, expected] : collectives)
    {
        auto op = ClassifyCollectiveName(name);
        BOOST_REQUIRE_MESSAGE(op.has_value(), name);
        BOOST_TEST((op->kind == CommKind::Collective), name);
        BOOST_TEST(static_cast<int>(op->type) == expected, name);
    }
    BOOST_TEST((ClassifyCollectiveName("send")->kind == CommKind::Send));
    BOOST_TEST((ClassifyCollectiveName("recv_")->kind == CommKind::Recv));
    BOOST_TEST((ClassifyCollectiveName("recv_any_source_")->kind == CommKind::Recv));
    BOOST_TEST(!ClassifyCollectiveName("frobnicate").has_value());
    BOOST_TEST(!ClassifyCollectiveName("wait").has_value());
}

BOOST_AUTO_TEST_CASE(wait_records_are_not_collectives)
{
    Json nodes = Roots({{2, 1}});
    nodes.push_back(WithInputs(
        Host(4, "record_param_comms", 2),
        Json::array(
            {47, Json::array({"", ""}), 0, "wait", Json::array(), Json::array(), -1, -1, 1}),
        Json::array({"Int",
                     "Tuple[String,String]",
                     "Int",
                     "String",
                     "GenericList[]",
                     "GenericList[]",
                     "Int",
                     "Int",
                     "Int"})));
    nodes.push_back(Host(5, "nccl:coalesced", 2));
    TempDir dir;
    auto [report, et] = ConvertText(dir, Trace(nodes).dump());
    BOOST_TEST(et.CommNodes().empty());
    BOOST_TEST(et.Get(4).GetType() == ChakraProtoMsg::COMP_NODE);
}

BOOST_AUTO_TEST_CASE(sizes_are_summed_over_tensor_lists_and_64_bit)
{
    Json nodes = Roots({{2, 1}});
    // all_gather of a list of two tensors: 10 x 4 + 6 x 2 = 52 bytes.
    Json list = Json::array({Tensor(1, 10, 4), Tensor(2, 6, 2)});
    nodes.push_back(WithInputs(Host(4, "nccl:all_gather", 2),
                               Json::array({list}),
                               Json::array({"GenericList[Tensor(float),Tensor(half)]"})));
    // reduce_scatter through the c10d op only: (outputs, inputs[][]): the inputs, 3 x 5 x 4.
    Json inputs = Json::array({Json::array({Tensor(3, 5, 4), Tensor(4, 5, 4), Tensor(5, 5, 4)})});
    nodes.push_back(WithInputs(
        Host(5, "c10d::reduce_scatter_", 2),
        Json::array({Json::array({Tensor(6, 5, 4)}), inputs, "<Object>"}),
        Json::array(
            {"GenericList[Tensor(float)]", "GenericList[GenericList[Tensor(float)]]", "Object"})));
    // all_reduce of 1.5 Gi floats: 6 GiB, beyond 32 bits.
    nodes.push_back(WithInputs(Host(6, "nccl:all_reduce", 2),
                               Json::array({Tensor(7, int64_t{3} << 29, 4)}),
                               Json::array({"Tensor(float)"})));
    // Non-tensor arguments do not count.
    nodes.push_back(WithInputs(Host(7, "nccl:broadcast", 2),
                               Json::array({Tensor(8, 3, 8), Json::array({1, 2, 3, 4, 5, "x"})}),
                               Json::array({"Tensor(long)", "GenericList[Int]"})));
    TempDir dir;
    auto [report, et] = ConvertText(dir, Trace(nodes).dump());
    BOOST_TEST(et.Get(4).GetCommSize() == 52u);
    BOOST_TEST(*et.Get(5).GetCommType() == ChakraProtoMsg::REDUCE_SCATTER);
    BOOST_TEST(et.Get(5).GetCommSize() == 60u);
    BOOST_TEST(et.Get(6).GetCommSize() == 6442450944u);
    BOOST_TEST(et.Get(6).FindAttr("comm_size")->int64_val() == 6442450944);
    BOOST_TEST(et.Get(7).GetCommSize() == 24u);
}

BOOST_AUTO_TEST_CASE(recorded_sizes_and_process_group_by_backend_id)
{
    // Schema 1.0.2 style: record_param_comms names its group by backend id, which
    // process_group:init maps to a pg_name; in_msg_nelems x dtype size cross-checks the size.
    Json nodes = Roots({{2, 1}});
    nodes.push_back(PgInit(
        3,
        2,
        Json::array(
            {{{"pg_name", "9"}, {"backend_id", 777}, {"ranks", {0, 2}}, {"group_size", 2}}})));
    Json t = Tensor(100, 16, 2);
    for (const Json& node : Call(20,
                                 2,
                                 "c10d::allreduce_",
                                 Json::array({Json::array({t})}),
                                 "allreduce",
                                 777,
                                 0,
                                 "nccl:all_reduce",
                                 Json::array({t}),
                                 ""))
    {
        nodes.push_back(node);
    }
    Json chakra = ToChakraSchema(Trace(nodes));
    for (Json& node : chakra["nodes"])
    {
        if (node["name"] == "record_param_comms")
        {
            node["attrs"].push_back({{"name", "in_msg_nelems"}, {"type", "uint64"}, {"value", 16}});
            node["attrs"].push_back({{"name", "dtype"}, {"type", "string"}, {"value", "Half"}});
        }
    }
    TempDir dir;
    auto [report, et] = ConvertText(dir, chakra.dump());
    BOOST_TEST(et.Get(22).GetPgName() == "9");
    BOOST_TEST(et.Get(22).GetCommSize() == 32u);
    BOOST_TEST(report.sizeMismatches == 0u);

    // A record that disagrees with the tensors is reported (the tensors win).
    for (Json& node : chakra["nodes"])
    {
        if (node["name"] == "record_param_comms")
        {
            node["attrs"][node["attrs"].size() - 2]["value"] = 17;
        }
    }
    auto second = ConvertText(dir, chakra.dump(), {}, "second");
    BOOST_TEST(second.et.Get(22).GetCommSize() == 32u);
    BOOST_TEST(second.report.sizeMismatches == 1u);
}

BOOST_AUTO_TEST_CASE(broadcast_root_is_a_global_rank)
{
    Json nodes = Roots({{2, 1}});
    nodes.push_back(
        PgInit(3, 2, Json::array({{{"pg_name", "5"}, {"ranks", {1, 3}}, {"group_size", 2}}})));
    Json t = Tensor(100, 8, 4);
    // c10d::broadcast_(tensors, pg, root_rank=1, root_tensor=0, async, timeout)
    for (const Json& node : Call(20,
                                 2,
                                 "c10d::broadcast_",
                                 Json::array({Json::array({t}), "<Object>", 1, 0, true, -1}),
                                 "broadcast",
                                 Json::array({"5", ""}),
                                 1,
                                 "nccl:broadcast",
                                 Json::array({t}),
                                 "ncclKernel_Broadcast_RING_LL_Sum_int8_t(x)"))
    {
        nodes.push_back(node);
    }
    TempDir dir;
    auto [report, et] = ConvertText(dir, Trace(nodes, Link(3, 4)).dump());
    const EtNode& kernel = et.Get(23);
    BOOST_TEST(*kernel.GetCommType() == ChakraProtoMsg::BROADCAST);
    BOOST_TEST(kernel.GetInt("root_rank") == 3); // group-local 1 in ranks [1, 3]
    BOOST_TEST(AttrCase(kernel, "root_rank") == ChakraProtoMsg::AttributeProto::kInt64Val);
    BOOST_TEST(kernel.GetPgName() == "5");
}

BOOST_AUTO_TEST_CASE(asynchronous_gloo_op_beside_its_c10d_op_is_one_call)
{
    // torch 1.13 + gloo: the last gloo:all_reduce is recorded beside c10d::allreduce_, not
    // under it. They share the tensor: one COMM_COLL (the gloo op). Another gloo op on another
    // tensor is a call of its own.
    Json nodes = Roots({{2, 1}});
    Json t = Tensor(12, 8192, 4);
    nodes.push_back(
        WithInputs(Timed(Host(5, "c10d::allreduce_", 2), 10, 3),
                   Json::array({Json::array({t}), "<Object>", "<Object>", -1}),
                   Json::array({"GenericList[Tensor(float)]", "Object", "Object", "Int"})));
    nodes.push_back(WithInputs(Timed(Host(6, "gloo:all_reduce", 2), 13, 700),
                               Json::array({t}),
                               Json::array({"Tensor(float)"})));
    nodes.push_back(WithInputs(Host(7, "gloo:all_reduce", 2),
                               Json::array({Tensor(40, 2, 4)}),
                               Json::array({"Tensor(float)"})));
    TempDir dir;
    auto [report, et] = ConvertText(dir, Trace(nodes).dump());
    auto comm = et.CommNodes();
    BOOST_REQUIRE(comm.size() == 2u);
    BOOST_TEST(comm[0].GetId() == 6u);
    BOOST_TEST(comm[0].IsCpuOp());
    BOOST_TEST(comm[0].GetCommSize() == 32768u);
    BOOST_TEST(comm[0].GetDurationMicros() == 700u);
    BOOST_TEST(comm[1].GetId() == 7u);
    BOOST_TEST(comm[1].GetCommSize() == 8u);
    BOOST_TEST(et.Get(5).GetType() == ChakraProtoMsg::COMP_NODE);
}

BOOST_AUTO_TEST_CASE(astra_sim_form_puts_no_communication_on_the_cpu)
{
    // Issue 23: a call without a kernel becomes a comm node on the host op, is_cpu_op true,
    // which current ASTRA-sim refuses ("Comm node should not be on CPU"). With astraSim the
    // converter writes what chakra_generator --astra-sim writes: no METADATA node (and no
    // dependency on it), communication off the CPU, pg_name the communicator number (the
    // world "0", sub-group "5" = ranks {1, 3} numbered 1 in <prefix>.comm-groups.json).
    Json nodes = Roots({{2, 1}});
    nodes.push_back(
        PgInit(3,
               2,
               Json::array({{{"pg_name", "0"}, {"ranks", Json::array()}, {"group_size", 4}},
                            {{"pg_name", "5"}, {"ranks", {1, 3}}, {"group_size", 2}}})));
    Json t = Tensor(100, 1000, 4);
    const Json allReduceArgs = Json::array({Json::array({t}), "<Object>", "<Object>", -1});
    for (const Json& node : Call(20,
                                 2,
                                 "c10d::allreduce_",
                                 allReduceArgs,
                                 "allreduce",
                                 Json::array({"0", "default_pg"}),
                                 1,
                                 "nccl:all_reduce",
                                 Json::array({t}),
                                 ""))
    {
        nodes.push_back(node);
    }
    for (const Json& node : Call(30,
                                 2,
                                 "c10d::allreduce_",
                                 allReduceArgs,
                                 "allreduce",
                                 Json::array({"5", ""}),
                                 1,
                                 "nccl:all_reduce",
                                 Json::array({t}),
                                 "ncclKernel_AllReduce_RING_LL_Sum_float(x)"))
    {
        nodes.push_back(node);
    }
    TempDir dir;
    // Without the option: the host-op call is on the CPU (what ASTRA-sim refuses).
    auto plain = ConvertText(dir, Trace(nodes, Link(1, 4)).dump(), {}, "plain.1");
    BOOST_TEST(plain.et.Get(22).IsCpuOp());
    BOOST_TEST(plain.et.Get(3).GetType() == ChakraProtoMsg::METADATA_NODE);
    BOOST_TEST(!chakra_test::FileExists(dir.File("plain.comm-groups.json")));

    ConversionOptions options;
    options.astraSim = true;
    auto [report, et] = ConvertText(dir, Trace(nodes, Link(1, 4)).dump(), options, "astra.1");
    BOOST_TEST(chakra_test::CheckStructure(et) == "");
    for (const auto& node : et.nodes)
    {
        BOOST_TEST(node.GetType() != ChakraProtoMsg::METADATA_NODE);
        BOOST_TEST(DataDeps(node) != (Ids{3}));
    }
    auto comm = et.CommNodes();
    BOOST_REQUIRE(comm.size() == 2u);
    BOOST_TEST(comm[0].GetId() == 22u); // the host op nccl:all_reduce
    BOOST_TEST(!comm[0].IsCpuOp());
    BOOST_TEST(comm[0].GetPgName() == "0");
    BOOST_TEST(comm[1].GetId() == 33u); // the kernel
    BOOST_TEST(!comm[1].IsCpuOp());
    BOOST_TEST(comm[1].GetPgName() == "1");
    BOOST_TEST(et.Get(21).IsCpuOp()); // compute stays where it was
    BOOST_TEST(report.commGroupFile == dir.File("astra.comm-groups.json"));
    BOOST_TEST(Json::parse(chakra_test::ReadFileBytes(report.commGroupFile)) ==
               Json::parse(R"({"1": [1, 3]})"));
    BOOST_TEST(AstraSimCommGroupFile("out/job.12.et.gz") == "out/job.comm-groups.json");
    BOOST_TEST(AstraSimCommGroupFile("a.b/run.et") == "a.b/run.comm-groups.json");
}

BOOST_AUTO_TEST_CASE(astra_sim_form_refuses_what_astra_sim_does_not_run)
{
    // A broadcast (ASTRA-sim runs all-reduce, all-gather, reduce-scatter, all-to-all): an error
    // naming the input and the node, and no output at all.
    Json nodes = Roots({{2, 1}});
    Json t = Tensor(100, 8, 4);
    const Json broadcastArgs = Json::array({Json::array({t}), "<Object>", 0, 0, true, -1});
    for (const Json& node : Call(20,
                                 2,
                                 "c10d::broadcast_",
                                 broadcastArgs,
                                 "broadcast",
                                 Json::array({"0", ""}),
                                 1,
                                 "nccl:broadcast",
                                 Json::array({t}),
                                 "ncclKernel_Broadcast_RING_LL_Sum_int8_t(x)"))
    {
        nodes.push_back(node);
    }
    TempDir dir;
    chakra_test::WriteFileBytes(dir.File("b.json"), Trace(nodes, Link(0, 2)).dump());
    ConversionOptions options;
    options.astraSim = true;
    std::string error;
    try
    {
        TraceConverter(options).Convert(dir.File("b.json"), dir.File("b.0.et"));
    }
    catch (const TraceError& e)
    {
        error = e.what();
    }
    BOOST_TEST(error == dir.File("b.json") +
                            ": node 23 (ncclKernel_Broadcast_RING_LL_Sum_int8_t(x)): collective "
                            "type BROADCAST: ASTRA-sim runs all-reduce, all-gather, "
                            "reduce-scatter and all-to-all only");
    BOOST_TEST(chakra_test::ListDir(dir.Path()).size() == 1u);
}

BOOST_AUTO_TEST_CASE(process_group_whose_size_disagrees_with_its_list_is_an_error)
{
    // Issue 23 item 15: group "5" lists ranks 1 and 3 but says group_size 4 (or lists rank 3
    // twice). Written through, the simulator ran the group's collectives over the list while the
    // trace said otherwise; now the input, the node and the group are named, and nothing is
    // written.
    const std::vector<std::pair<Json, std::string>> cases = {
        {Json::array({1, 3}), "lists 2 ranks but its group_size is 4"},
        {Json::array({1, 3, 3, 0}), "lists rank 3 twice"},
    };
    for (const auto& [ranks, message] : cases)
    {
        Json nodes = Roots({{2, 1}});
        nodes.push_back(
            PgInit(3, 2, Json::array({{{"pg_name", "5"}, {"ranks", ranks}, {"group_size", 4}}})));
        TempDir dir;
        chakra_test::WriteFileBytes(dir.File("g.json"), Trace(nodes, Link(1, 4)).dump());
        std::string error;
        try
        {
            TraceConverter().Convert(dir.File("g.json"), dir.File("g.0.et"));
        }
        catch (const TraceError& e)
        {
            error = e.what();
        }
        BOOST_TEST(error.find(dir.File("g.json") + ": node 3") == 0u, error);
        BOOST_TEST(error.find("process group \"5\"") != std::string::npos, error);
        BOOST_TEST(error.find(message) != std::string::npos, error);
        BOOST_TEST(chakra_test::ListDir(dir.Path()).size() == 1u);
    }
}

// A default group (no ranks, no group_size) spans the world: a world size of 2^33 made the
// converter list 2^33 ranks (out of memory). Refused where it is read, naming the key.
BOOST_AUTO_TEST_CASE(an_absurd_world_size_is_refused_where_it_is_read)
{
    Json nodes = Roots({{2, 1}});
    nodes.push_back(PgInit(3, 2, Json::array({{{"pg_name", "0"}, {"ranks", Json::array()}}})));
    ExpectError(Trace(nodes, Link(0, int64_t{1} << 33)),
                {"trace_link.world_size", "absurd world size 8589934592"});
    // With a real world size the same default group converts.
    TempDir dir;
    auto [report, et] = ConvertText(dir, Trace(nodes, Link(0, 4)).dump());
    BOOST_TEST(chakra_test::CheckStructure(et) == "");
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(point_to_point)

/** Rank 6 of pg "pg1" = global ranks [4, 6, 7]: two sends to 7, a recv from 4, a send to 4. */
Json
SendRecvTrace(bool kernels)
{
    Json nodes = Roots({{2, 1}});
    nodes.push_back(
        PgInit(3, 2, Json::array({{{"pg_name", "pg1"}, {"ranks", {4, 6, 7}}, {"group_size", 3}}})));
    Json pg = Json::array({"pg1", "desc"});
    auto add = [&](uint64_t first, const std::string& op, int64_t peer, const Json& tensor) {
        const bool send = op == "send";
        for (const Json& node : Call(first,
                                     2,
                                     send ? "c10d::send" : "c10d::recv_",
                                     Json::array({Json::array({tensor}), "<Object>", peer, 0}),
                                     op,
                                     pg,
                                     peer,
                                     send ? "nccl:send" : "nccl:recv",
                                     Json::array({tensor}),
                                     kernels ? "ncclDevKernel_SendRecv(x)" : ""))
        {
            nodes.push_back(node);
        }
    };
    add(30, "send", 2, Tensor(300, 256, 4)); // to global 7, 1024 bytes
    add(34, "send", 2, Tensor(301, 128, 4)); // to global 7, 512 bytes
    add(38, "recv", 0, Tensor(302, 64, 8));  // from global 4, 512 bytes
    add(42, "send", 0, Tensor(303, 1, 4));   // to global 4, 4 bytes
    return Trace(nodes, Link(6, 8));
}

BOOST_AUTO_TEST_CASE(send_recv_with_global_ranks_and_matching_tags)
{
    TempDir dir;
    auto [report, et] = ConvertText(dir, SendRecvTrace(true).dump());
    auto comm = et.CommNodes();
    BOOST_REQUIRE(comm.size() == 4u);
    // (id, type, src, dst, tag, size) worked out by hand.
    const std::vector<std::tuple<uint64_t, ChakraProtoMsg::NodeType, int, int, int, uint64_t>>
        expected = {{33, ChakraProtoMsg::COMM_SEND_NODE, 6, 7, 0, 1024},
                    {37, ChakraProtoMsg::COMM_SEND_NODE, 6, 7, 1, 512},
                    {41, ChakraProtoMsg::COMM_RECV_NODE, 4, 6, 0, 512},
                    {45, ChakraProtoMsg::COMM_SEND_NODE, 6, 4, 0, 4}};
    for (std::size_t k = 0; k < expected.size(); ++k)
    {
        const auto& [id, type, src, dst, tag, size] = expected[k];
        const EtNode& node = comm[k];
        BOOST_TEST(node.GetId() == id);
        BOOST_TEST(node.GetType() == type);
        BOOST_TEST(*node.GetCommSrc() == src);
        BOOST_TEST(*node.GetCommDst() == dst);
        BOOST_TEST(*node.GetCommTag() == tag);
        BOOST_TEST(node.GetCommSize() == size);
        BOOST_TEST(node.GetPgName() == "pg1");
        BOOST_TEST(!node.IsCpuOp());
        for (const char* name : {"comm_src", "comm_dst", "comm_tag"})
        {
            BOOST_TEST(AttrCase(node, name) == ChakraProtoMsg::AttributeProto::kInt32Val);
        }
        BOOST_TEST(!node.HasAttr("comm_type"));
    }
    BOOST_TEST(report.sends == 3u);
    BOOST_TEST(report.recvs == 1u);
}

BOOST_AUTO_TEST_CASE(send_recv_from_host_ops_need_the_rank)
{
    TempDir dir;
    auto [report, et] = ConvertText(dir, SendRecvTrace(false).dump());
    auto comm = et.CommNodes();
    BOOST_REQUIRE(comm.size() == 4u);
    BOOST_TEST(comm[0].GetId() == 32u);
    BOOST_TEST(comm[0].GetName() == "nccl:send");
    BOOST_TEST(comm[0].IsCpuOp());
    BOOST_TEST(*comm[2].GetCommSrc() == 4);

    // Without trace_link the rank must be given.
    Json noLink = SendRecvTrace(false);
    noLink.erase("trace_link");
    ExpectError(noLink, {"node 32 (nccl:send)", "rank"});
    ConversionOptions options;
    options.rank = 6;
    auto given = ConvertText(dir, noLink.dump(), options, "given");
    BOOST_TEST(*given.et.Get(32).GetCommSrc() == 6);
    BOOST_TEST(*given.et.Get(32).GetCommDst() == 7);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(bad_input)

BOOST_AUTO_TEST_CASE(malformed_or_incomplete_traces)
{
    ExpectError(Json(), {"malformed JSON"}, R"({"schema": "1.0.1", "nodes": [ {"id": 1,)");
    ExpectError(Json(), {"not a PyTorch execution trace"}, "[1, 2, 3]");
    ExpectError(Json({{"nodes", Json::array()}}), {"schema"});
    ExpectError(Json({{"schema", "2.0"}, {"nodes", Json::array()}}), {"unsupported schema"});
    ExpectError(Json({{"schema", "1.0.1"}}), {"nodes"});

    Json noId = Host(4, "a", 1);
    noId.erase("id");
    ExpectError(Trace(Json::array({noId})), {"node #0", "\"id\""});
    Json noName = Host(4, "a", 1);
    noName.erase("name");
    ExpectError(Trace(Json::array({noName})), {"node 4", "\"name\""});
    Json noParent = Host(4, "a", 1);
    noParent.erase("parent");
    ExpectError(Trace(Json::array({noParent})), {"node 4 (a)", "parent"});
    Json badId = Host(4, "a", 1);
    badId["id"] = "four";
    ExpectError(Trace(Json::array({badId})), {"node #0", "\"id\""});
    ExpectError(Trace(Json::array({Host(4, "a", 4), Host(4, "b", 4)})), {"duplicate node id"});
    Json gpu = Gpu(5, "k", 4, 1, 1, 1);
    gpu.erase("stream");
    ExpectError(Trace(Json::array({Host(4, "a", 4), gpu})), {"node 5 (k)", "stream"});
    Json negative = Timed(Host(4, "a", 4), 1, -3);
    negative["inclusive_dur"] = 1;
    ExpectError(Trace(Json::array({negative})), {"node 4 (a)", "exclusive_dur", "negative"});
    Json chakra = ToChakraSchema(Trace(Json::array({Host(4, "a", 4)})));
    chakra["nodes"][0]["attrs"].push_back(7);
    ExpectError(chakra, {"node 4 (a)", "attrs"});
}

BOOST_AUTO_TEST_CASE(unknown_collectives)
{
    ExpectError(Trace(Json::array({Host(4, "nccl:all_frobnicate", 4)})),
                {"node 4 (nccl:all_frobnicate)", "unknown collective name"});
    Json record =
        WithInputs(Host(4, "record_param_comms", 4),
                   Json::array({Json::array({Tensor(1, 2, 4)}), 1, 0, 0, "frobnicate"}),
                   Json::array({"GenericList[Tensor(float)]", "Int", "Int", "Int", "String"}));
    ExpectError(Trace(Json::array({record})), {"node 4 (record_param_comms)", "frobnicate"});
}

BOOST_AUTO_TEST_CASE(absurd_sizes)
{
    auto reduce = [](const Json& tensor) {
        return Trace(Json::array({WithInputs(Host(4, "nccl:all_reduce", 4),
                                             Json::array({tensor}),
                                             Json::array({"Tensor(float)"}))}));
    };
    ExpectError(reduce(Tensor(1, -5, 4)), {"node 4 (nccl:all_reduce)", "absurd"});
    ExpectError(reduce(Tensor(1, 5, 1000)), {"node 4 (nccl:all_reduce)", "absurd"});
    ExpectError(reduce(Tensor(1, int64_t{1} << 49, 8)), {"node 4 (nccl:all_reduce)", "absurd"});
    ExpectError(
        Trace(Json::array({PgInit(3, 3, Json::array({{{"pg_name", "0"}, {"group_size", -2}}}))})),
        {"node 3", "group_size"});
    ExpectError(Trace(Json::array({PgInit(3, 3, Json::array({{{"ranks", {0}}}}))})),
                {"node 3", "pg_name"});
}

BOOST_AUTO_TEST_CASE(peers_outside_their_group)
{
    Json trace = point_to_point::SendRecvTrace(false);
    for (Json& node : trace["nodes"])
    {
        if (node["id"] == 30)
        {
            node["inputs"][2] = 5; // group "pg1" has 3 ranks
        }
    }
    ExpectError(trace, {"node 32 (nccl:send)", "destination rank 5", "pg1"});
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(linker_timing)

BOOST_AUTO_TEST_CASE(waits_gaps_cross_stream_deps_and_the_gpu_name)
{
    // mm (own time 12.5, of which 8 blocked on the device, 2.25 of thread time before it),
    // a kernel on stream 7, a kernel on stream 24 that waited for the first (cross_stream_deps).
    Json nodes = Roots({{2, 1}});
    Json mm = Timed(Host(3, "aten::mm", 2), 100, 12.5);
    mm["wait_dur"] = 8;
    mm["gap_dur"] = 2.25;
    nodes.push_back(mm);
    nodes.push_back(Gpu(4, "gemm", 3, 7, 110, 20));
    Json waiting = Gpu(5, "ncclKernel_AllReduce", 3, 24, 131, 5);
    waiting["cross_stream_deps"] = {4};
    nodes.push_back(waiting);
    Json link = Link(0, 1);
    link["device_properties"] = Json::array({{{"id", 0}, {"name", "Tesla V100-SXM2-32GB"}}});
    TempDir dir;
    auto [report, et] = ConvertText(dir, Trace(nodes, link).dump());
    BOOST_TEST(chakra_test::CheckStructure(et) == "");
    // Replayed CPU time: 12.5 - 8 + 2.25 = 6.75 (rounded 7); the kernel's own duration stays.
    BOOST_TEST(et.Get(3).GetDouble("duration_exact_micros") == 6.75);
    BOOST_TEST(et.Get(3).GetDurationMicros() == 7u);
    BOOST_TEST(et.Get(5).GetDurationMicros() == 5u);
    // The stream-24 kernel runs after its launcher and after the stream-7 kernel it waited for.
    BOOST_TEST(DataDeps(et.Get(5)) == (Ids{3, 4}), boost::test_tools::per_element());
    BOOST_TEST(DataDeps(et.Get(4)) == (Ids{3}), boost::test_tools::per_element());
    BOOST_TEST(et.MetaString("gpu_name") == "Tesla V100-SXM2-32GB");
    // A cross-stream reference to no GPU op is dropped and said.
    nodes[4]["cross_stream_deps"] = {99};
    auto [dropped, et2] = ConvertText(dir, Trace(nodes, link).dump(), {}, "dropped");
    BOOST_TEST(DataDeps(et2.Get(5)) == (Ids{3}), boost::test_tools::per_element());
    BOOST_TEST(dropped.droppedReferences == 1u);
}

BOOST_AUTO_TEST_CASE(gpu_ops_of_chakras_python_linker_keep_stream_in_args)
{
    // The Python linkers copy the launching op into each GPU op and put Kineto's fields in
    // "args"; some give only inclusive/exclusive durations and "stream": null.
    Json nodes = Roots({{2, 1}});
    nodes.push_back(Timed(Host(3, "aten::mm", 2), 100, 10));
    Json gpu = Host(4, "gemm", 3); // a copy of a host op ...
    gpu["cat"] = "kernel";         // ... made a GPU op
    gpu["ph"] = "X";
    gpu["ts"] = 110;
    gpu["inclusive_dur"] = 20;
    gpu["exclusive_dur"] = 20;
    gpu["stream"] = nullptr;
    gpu["inter_thread_dep"] = nullptr;
    gpu["args"] = {{"stream", 7}, {"device", 0}, {"correlation", 77}, {"External id", 5}};
    nodes.push_back(gpu);
    TempDir dir;
    auto [report, et] = ConvertText(dir, Trace(nodes).dump());
    const EtNode& kernel = et.Get(4);
    BOOST_TEST(!kernel.IsCpuOp());
    BOOST_TEST(*kernel.GetStream() == 7);
    BOOST_TEST(kernel.GetInt("correlation") == 77);
    BOOST_TEST(kernel.GetDurationMicros() == 20u);
    BOOST_TEST(DataDeps(kernel) == (Ids{3}), boost::test_tools::per_element());
    // The same in the chakra schema layout.
    auto [report2, et2] = ConvertText(dir, ToChakraSchema(Trace(nodes)).dump(), {}, "chakra");
    BOOST_TEST(*et2.Get(4).GetStream() == 7);
    // Neither at the top level nor in args: the error says where it looked.
    nodes[3]["args"].erase("stream");
    ExpectError(Trace(nodes), {"node 4 (gemm)", "without \"stream\"", "\"args\""});
}

BOOST_AUTO_TEST_SUITE_END()
