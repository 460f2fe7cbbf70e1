/*
 * .et <-> JSON conversion: byte-identical round trips on hand-made traces, hand-written JSON,
 * and clear errors on bad JSON.
 */
#define BOOST_TEST_MODULE et_json
#include "chakra-test-data.h"

#include "ns3/et-json.h"
#include "ns3/et-node.h"
#include "ns3/et-reader.h"
#include "ns3/et-writer.h"
#include "ns3/trace-error.h"

#include <boost/test/unit_test.hpp>
#include <cmath>
#include <google/protobuf/unknown_field_set.h>
#include <limits>

using namespace ns3;
using chakra_test::TempDir;

namespace
{

/** A trace with every attribute type, special floats, bytes, empty IOInfo and unknown fields. */
void
WriteAwkwardTrace(const std::string& path)
{
    ChakraProtoMsg::GlobalMetadata metadata;
    metadata.set_version("1.0.2-chakra.0.0.4");
    auto* m = metadata.add_attr();
    m->set_name("pid");
    m->set_uint64_val(std::numeric_limits<uint64_t>::max());
    EtWriter writer(path, metadata);

    ChakraProtoMsg::Node node;
    node.set_id(0);
    node.set_type(ChakraProtoMsg::COMP_NODE);
    node.mutable_outputs(); // present but empty: serializes differently from absent
    auto add = [&](const std::string& name) {
        auto* a = node.add_attr();
        a->set_name(name);
        return a;
    };
    add("d")->set_double_val(0.1);
    add("nan")->set_double_val(std::numeric_limits<double>::quiet_NaN());
    add("inf")->set_double_val(-std::numeric_limits<double>::infinity());
    add("f")->set_float_val(1.0f / 3.0f);
    add("negzero")->set_double_val(-0.0);
    add("i32")->set_int32_val(std::numeric_limits<int32_t>::min());
    add("s64")->set_sint64_val(std::numeric_limits<int64_t>::min());
    add("sf32")->set_sfixed32_val(-7);
    add("f64")->set_fixed64_val(std::numeric_limits<uint64_t>::max());
    add("b")->set_bool_val(true);
    add("bytes")->set_bytes_val(std::string("\x00\xff\x10 binary", 10));
    add("utf8")->set_string_val("gr\xc3\xbc\xc3\x9f \"quoted\" \\ \n");
    add("empty_unset");
    auto* fl = add("floats")->mutable_float_list();
    fl->add_values(1.5f);
    fl->add_values(std::numeric_limits<float>::infinity());
    auto* bl = add("bools")->mutable_bool_list();
    bl->add_values(true);
    bl->add_values(false);
    auto* sl = add("strings")->mutable_string_list();
    sl->add_values("a");
    sl->add_values("");
    add("byteslist")->mutable_bytes_list()->add_values(std::string("\x01\x02", 2));
    auto* il = add("i64list")->mutable_int64_list();
    il->add_values(-1);
    // Unknown fields inside a list message and inside IOInfo (the fuzzer found the first
    // dropped by .et -> JSON -> .et): a fixed64 field 143 and a varint field 7.
    il->GetReflection()->MutableUnknownFields(il)->AddFixed64(143, 0x40ull << 48);
    node.mutable_inputs()
        ->GetReflection()
        ->MutableUnknownFields(node.mutable_inputs())
        ->AddVarint(7, 1);
    add("u32list")->mutable_uint32_list();
    add("doc")->set_doc_string("documented");
    // A field number this schema does not define (written by a newer Chakra).
    node.GetReflection()->MutableUnknownFields(&node)->AddVarint(99, 12345);
    writer.WriteNode(node);

    ChakraProtoMsg::Node second;
    second.set_id(std::numeric_limits<uint64_t>::max());
    second.set_name("last");
    second.set_type(static_cast<ChakraProtoMsg::NodeType>(42)); // unknown enum value
    second.add_data_deps(0);
    writer.WriteNode(second);
    writer.Commit();
}

std::string
ConversionError(bool reverse, const std::string& input, const std::string& output)
{
    try
    {
        reverse ? ConvertJsonToEt(input, output) : ConvertEtToJson(input, output);
    }
    catch (const TraceError& e)
    {
        return e.what();
    }
    return "";
}

} // namespace

BOOST_AUTO_TEST_CASE(awkward_trace_round_trips_byte_for_byte)
{
    TempDir dir;
    for (const std::string suffix : {"", ".gz"})
    {
        std::string et = dir.File("a.et");
        std::string json = dir.File("a.json" + suffix);
        std::string back = dir.File("back.et");
        WriteAwkwardTrace(et);
        BOOST_TEST(ConvertEtToJson(et, json) == 2u);
        BOOST_TEST(ConvertJsonToEt(json, back) == 2u);
        BOOST_TEST(chakra_test::ReadFileBytes(back) == chakra_test::ReadFileBytes(et));
    }
}

BOOST_AUTO_TEST_CASE(json_is_one_valid_document_with_typed_attributes)
{
    TempDir dir;
    WriteAwkwardTrace(dir.File("a.et"));
    ConvertEtToJson(dir.File("a.et"), dir.File("a.json"));
    EtJson doc = EtJson::parse(chakra_test::ReadFileBytes(dir.File("a.json")));
    BOOST_TEST(doc["format"] == "chakra-et-json");
    BOOST_TEST(doc["metadata"]["version"] == "1.0.2-chakra.0.0.4");
    BOOST_TEST(doc["metadata"]["attr"][0]["value"].get<uint64_t>() ==
               std::numeric_limits<uint64_t>::max());
    BOOST_REQUIRE(doc["nodes"].size() == 2u);
    const EtJson& attrs = doc["nodes"][0]["attr"];
    BOOST_TEST(attrs[0]["type"] == "double_val");
    BOOST_TEST(attrs[0]["value"].get<double>() == 0.1);
    BOOST_TEST(attrs[1]["value"] == "nan");
    BOOST_TEST(attrs[2]["value"] == "-inf");
    BOOST_TEST(attrs[10]["type"] == "bytes_val");
    BOOST_TEST(attrs[10]["value"] == "AP8QIGJpbmFyeQ=="); // base64 of the 10 bytes
    BOOST_TEST(doc["nodes"][1]["type"] == 42);
    BOOST_TEST(doc["nodes"][0].contains("unknown_fields"));
    BOOST_TEST(doc["nodes"][0]["inputs"].contains("unknown_fields"));
    BOOST_TEST(attrs[17]["name"] == "i64list");
    BOOST_TEST(attrs[17].contains("list_unknown_fields"));
}

BOOST_AUTO_TEST_CASE(hand_written_minimal_json)
{
    TempDir dir;
    // Nodes before metadata, optional keys omitted, "int64" short type name.
    chakra_test::WriteFileBytes(dir.File("h.json"), R"({
      "nodes": [
        {"id": 1, "name": "gemm", "type": "COMP_NODE", "duration_micros": 25},
        {"id": 2, "name": "ar", "type": "COMM_COLL_NODE", "data_deps": [1],
         "attr": [{"name": "comm_type", "type": "int64", "value": 0},
                  {"name": "comm_size", "type": "uint64_val", "value": 4294967296}]}
      ],
      "metadata": {"version": "0.0.4"}
    })");
    BOOST_TEST(ConvertJsonToEt(dir.File("h.json"), dir.File("h.et")) == 2u);
    EtReader reader(dir.File("h.et"));
    ChakraProtoMsg::Node proto;
    BOOST_REQUIRE(reader.ReadNode(proto));
    BOOST_TEST(proto.duration_micros() == 25u);
    BOOST_REQUIRE(reader.ReadNode(proto));
    EtNode node(proto);
    BOOST_TEST(node.GetCommType().value() == ChakraProtoMsg::ALL_REDUCE);
    BOOST_TEST(node.GetCommSize() == 4294967296ull);
    BOOST_TEST(node.GetDataDeps().size() == 1);
    BOOST_TEST(!reader.ReadNode(proto));
}

/** Writes \p json, converts it, and checks the error mentions the file and \p text. */
void
ExpectJsonError(const std::string& json, const std::string& text)
{
    TempDir dir;
    std::string input = dir.File("bad.json");
    chakra_test::WriteFileBytes(input, json);
    std::string error = ConversionError(true, input, dir.File("out.et"));
    BOOST_TEST_INFO("error: " << error);
    BOOST_TEST(error.find(input + ": ") == 0u);
    BOOST_TEST(error.find(text) != std::string::npos);
    // No output, not even a partial one.
    BOOST_TEST(chakra_test::ListDir(dir.Path()) == std::vector<std::string>({"bad.json"}));
}

const std::string kMeta = R"("metadata": {"version": "0.0.4"})";

BOOST_AUTO_TEST_CASE(bad_json_inputs)
{
    ExpectJsonError("", "malformed JSON");
    ExpectJsonError("{" + kMeta + ", \"nodes\": [{\"id\": 1}", "malformed JSON");
    ExpectJsonError("{\"nodes\": []}", "missing \"metadata\"");
    ExpectJsonError("{" + kMeta + ", \"nodez\": []}", "unknown key 'nodez'");
    ExpectJsonError("{" + kMeta + ", \"nodes\": [{\"id\": 1}, {\"name\": \"x\"}]}",
                    "node #2: node without 'id'");
    ExpectJsonError("{" + kMeta + ", \"nodes\": [{\"id\": 1, \"data_dep\": [2]}]}",
                    "unknown key 'data_dep'");
    ExpectJsonError("{" + kMeta + ", \"nodes\": [{\"id\": -1}]}", "does not fit in uint64");
    ExpectJsonError("{" + kMeta + ", \"nodes\": [{\"id\": 1, \"type\": \"COMPUTE\"}]}",
                    "unknown node type");
    ExpectJsonError("{" + kMeta +
                        ", \"nodes\": [{\"id\": 3, \"attr\": [{\"name\": \"a\", \"type\": "
                        "\"int32_val\", \"value\": 3000000000}]}]}",
                    "node 3: attribute 'a': value 3000000000 does not fit in int32");
    ExpectJsonError("{" + kMeta +
                        ", \"nodes\": [{\"id\": 3, \"attr\": [{\"name\": \"a\", \"type\": "
                        "\"complex_val\", \"value\": 1}]}]}",
                    "unknown attribute type 'complex_val'");
    ExpectJsonError("{" + kMeta + ", \"nodes\": [7]}", "each entry of 'nodes' must be an object");
    ExpectJsonError("{\"format\": \"other\", " + kMeta + ", \"nodes\": []}", "format is");
}

BOOST_AUTO_TEST_CASE(bad_et_input_leaves_no_json)
{
    TempDir dir;
    chakra_test::WriteFileBytes(dir.File("bad.et"), "\x05garbage");
    std::string error = ConversionError(false, dir.File("bad.et"), dir.File("out.json"));
    BOOST_TEST(error.find(dir.File("bad.et")) == 0u);
    BOOST_TEST(!chakra_test::FileExists(dir.File("out.json")));
}
