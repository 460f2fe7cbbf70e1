/*
 * .et reader/writer and typed attributes on hand-made traces: round trips, gzip, atomic output
 * and every kind of damaged input.
 */
#define BOOST_TEST_MODULE et_io
#include "chakra-test-data.h"

#include "ns3/et-node.h"
#include "ns3/et-reader.h"
#include "ns3/et-writer.h"
#include "ns3/trace-error.h"

#include <boost/test/unit_test.hpp>
#include <filesystem>
#include <limits>
#include <tuple>

using namespace ns3;
using chakra_test::TempDir;

namespace
{

ChakraProtoMsg::GlobalMetadata
Metadata()
{
    ChakraProtoMsg::GlobalMetadata metadata;
    metadata.set_version("0.0.4");
    return metadata;
}

ChakraProtoMsg::AttributeProto*
AddAttr(ChakraProtoMsg::Node& node, const std::string& name)
{
    auto* attribute = node.add_attr();
    attribute->set_name(name);
    return attribute;
}

/** A node exercising every field and several attribute types. */
ChakraProtoMsg::Node
RichNode(uint64_t id)
{
    ChakraProtoMsg::Node node;
    node.set_id(id);
    node.set_name("node" + std::to_string(id));
    node.set_type(ChakraProtoMsg::COMM_COLL_NODE);
    node.add_data_deps(id - 1);
    node.add_ctrl_deps(id - 2);
    node.set_start_time_micros(id * 10);
    node.set_duration_micros(id);
    node.mutable_inputs()->set_values("[[1, 2, 0, 16, 4, 'cuda:0']]");
    AddAttr(node, "comm_type")->set_int64_val(ChakraProtoMsg::ALL_GATHER);
    // 5 GiB: does not fit in 32 bits.
    AddAttr(node, "comm_size")->set_uint64_val(5ull << 30);
    AddAttr(node, "pg_name")->set_string_val("0");
    AddAttr(node, "is_cpu_op")->set_bool_val(false);
    AddAttr(node, "comm_src")->set_int32_val(3);
    AddAttr(node, "ratio")->set_float_val(0.5f);
    return node;
}

/** Writes nodes 2..n+1 to path. */
void
WriteTrace(const std::string& path, uint64_t n)
{
    EtWriter writer(path, Metadata());
    for (uint64_t id = 2; id < n + 2; ++id)
    {
        writer.WriteNode(RichNode(id));
    }
    writer.Commit();
}

/** The error message of reading the whole file, or "" if it reads. */
std::string
ReadError(const std::string& path)
{
    try
    {
        EtReader reader(path);
        ChakraProtoMsg::Node node;
        while (reader.ReadNode(node))
        {
        }
    }
    catch (const TraceError& e)
    {
        return e.what();
    }
    return "";
}

std::string
Varint(uint64_t value)
{
    std::string out;
    while (value >= 0x80)
    {
        out += static_cast<char>((value & 0x7f) | 0x80);
        value >>= 7;
    }
    out += static_cast<char>(value);
    return out;
}

std::string
Framed(const google::protobuf::MessageLite& message)
{
    std::string bytes = message.SerializeAsString();
    return Varint(bytes.size()) + bytes;
}

} // namespace

BOOST_AUTO_TEST_SUITE(round_trip)

BOOST_AUTO_TEST_CASE(plain_and_gzip_give_the_same_nodes)
{
    TempDir dir;
    for (const std::string name : {"t.et", "t.et.gz"})
    {
        std::string path = dir.File(name);
        WriteTrace(path, 100);
        EtReader reader(path);
        BOOST_TEST(reader.GetMetadata().version() == "0.0.4");
        BOOST_TEST(reader.IsCompressed() == (name == "t.et.gz"));
        ChakraProtoMsg::Node node;
        uint64_t expected = 2;
        while (reader.ReadNode(node))
        {
            BOOST_TEST(node.SerializeAsString() == RichNode(expected).SerializeAsString());
            ++expected;
        }
        BOOST_TEST(expected == 102u);
        BOOST_TEST(reader.GetNodesRead() == 100u);
    }
    // gzip output starts with the gzip magic; plain output with the metadata's length prefix.
    std::string gz = chakra_test::ReadFileBytes(dir.File("t.et.gz"));
    BOOST_REQUIRE(gz.size() > 2);
    BOOST_TEST(static_cast<uint8_t>(gz[0]) == 0x1f);
    BOOST_TEST(static_cast<uint8_t>(gz[1]) == 0x8b);
    std::string plain = chakra_test::ReadFileBytes(dir.File("t.et"));
    BOOST_TEST(plain.substr(0, Framed(Metadata()).size()) == Framed(Metadata()));
    // Compression is detected from content, not the name.
    chakra_test::WriteFileBytes(dir.File("renamed.et"), gz);
    BOOST_TEST(ReadError(dir.File("renamed.et")) == "");
}

BOOST_AUTO_TEST_CASE(a_reader_read_to_the_end_lets_its_file_go)
{
    // A feeder keeps its reader for the run; once at the end the reader holds no file (nor
    // zlib's state), and what it reports stays: offset (the file's uncompressed length),
    // compression, and no more nodes.
    TempDir dir;
    WriteTrace(dir.File("t.et"), 20);
    const uint64_t plainBytes = chakra_test::ReadFileBytes(dir.File("t.et")).size();
    auto openFiles = []() {
        std::size_t count = 0;
        for ([[maybe_unused]] const auto& entry :
             std::filesystem::directory_iterator("/proc/self/fd"))
        {
            ++count;
        }
        return count;
    };
    for (const std::string name : {"t.et", "t.et.gz"})
    {
        const std::string path = dir.File(name);
        WriteTrace(path, 20);
        const std::size_t before = openFiles();
        EtReader reader(path);
        BOOST_TEST(openFiles() == before + 1);
        ChakraProtoMsg::Node node;
        while (reader.ReadNode(node))
        {
        }
        BOOST_TEST(openFiles() == before);
        BOOST_TEST(!reader.ReadNode(node));
        BOOST_TEST(reader.GetNodesRead() == 20u);
        BOOST_TEST(reader.GetOffset() == plainBytes);
        BOOST_TEST(reader.IsCompressed() == (name == "t.et.gz"));
    }
}

BOOST_AUTO_TEST_CASE(wire_format_is_varint_length_then_message)
{
    TempDir dir;
    WriteTrace(dir.File("t.et"), 3);
    std::string expected = Framed(Metadata());
    for (uint64_t id = 2; id < 5; ++id)
    {
        expected += Framed(RichNode(id));
    }
    BOOST_TEST(chakra_test::ReadFileBytes(dir.File("t.et")) == expected);
}

BOOST_AUTO_TEST_CASE(message_larger_than_the_read_buffer)
{
    TempDir dir;
    ChakraProtoMsg::Node big = RichNode(7);
    big.mutable_inputs()->set_values(std::string(3u << 20, 'x')); // 3 MiB > 1 MiB buffer
    {
        EtWriter writer(dir.File("big.et"), Metadata());
        writer.WriteNode(RichNode(6));
        writer.WriteNode(big);
        writer.WriteNode(RichNode(8));
        writer.Commit();
    }
    EtReader reader(dir.File("big.et"));
    ChakraProtoMsg::Node node;
    BOOST_REQUIRE(reader.ReadNode(node));
    BOOST_REQUIRE(reader.ReadNode(node));
    BOOST_TEST(node.inputs().values().size() == 3u << 20);
    BOOST_REQUIRE(reader.ReadNode(node));
    BOOST_TEST(node.id() == 8u);
    BOOST_TEST(!reader.ReadNode(node));
}

// A feeder keeps its reader for the run, and a job's ranks open their files at once: opening
// reads the metadata with a small buffer, and once a large node at the head of the file (a
// process group's member list) is read, the reader keeps only what the rest needs.
BOOST_AUTO_TEST_CASE(reader_holds_what_the_rest_of_the_file_needs)
{
    TempDir dir;
    // plain: 50 KB ahead of 20 nodes (about 2 KB), a file that fits the 64 KiB read-ahead
    // whole; gzip: a 1 MiB node, the inflated length unknown, so the reader keeps up to
    // 64 KiB of read-ahead plus the unread bytes.
    const std::vector<std::tuple<std::string, std::size_t, std::size_t>> cases = {
        {"head.et", 50u << 10, 8u << 10},
        {"head.et.gz", 1u << 20, 128u << 10}};
    for (const auto& [name, headBytes, most] : cases)
    {
        const std::string path = dir.File(name);
        std::vector<ChakraProtoMsg::Node> written;
        ChakraProtoMsg::Node head = RichNode(1);
        head.mutable_inputs()->set_values(std::string(headBytes, 'r'));
        written.push_back(head);
        for (uint64_t id = 2; id < 22; ++id)
        {
            written.push_back(RichNode(id));
        }
        {
            EtWriter writer(path, Metadata());
            for (const auto& node : written)
            {
                writer.WriteNode(node);
            }
            writer.Commit();
        }
        EtReader reader(path);
        BOOST_TEST(reader.GetBufferSize() <= 8192u, name); // the metadata only
        ChakraProtoMsg::Node node;
        std::size_t plainBytes = Framed(Metadata()).size();
        for (std::size_t i = 0; i < written.size(); ++i)
        {
            BOOST_TEST_REQUIRE(reader.ReadNode(node), name << " node " << i);
            BOOST_TEST(node.SerializeAsString() == written[i].SerializeAsString(),
                       name << " node " << i);
            BOOST_TEST(reader.GetBufferSize() <= most, name << " node " << i);
            plainBytes += Framed(written[i]).size();
        }
        BOOST_TEST(!reader.ReadNode(node));
        BOOST_TEST(reader.GetBufferSize() == 0u, name);
        BOOST_TEST(reader.GetOffset() == plainBytes, name);
    }
}

BOOST_AUTO_TEST_CASE(metadata_only_file_has_no_nodes)
{
    TempDir dir;
    EtWriter(dir.File("m.et"), Metadata()).Commit();
    EtReader reader(dir.File("m.et"));
    ChakraProtoMsg::Node node;
    BOOST_TEST(!reader.ReadNode(node));
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(atomic_output)

BOOST_AUTO_TEST_CASE(uncommitted_writer_leaves_nothing)
{
    TempDir dir;
    {
        EtWriter writer(dir.File("t.et"), Metadata());
        writer.WriteNode(RichNode(2));
        // destroyed without Commit: a producer that failed half way
    }
    BOOST_TEST(chakra_test::ListDir(dir.Path()).empty());
}

BOOST_AUTO_TEST_CASE(failed_rewrite_keeps_the_old_file)
{
    TempDir dir;
    WriteTrace(dir.File("t.et"), 2);
    std::string before = chakra_test::ReadFileBytes(dir.File("t.et"));
    {
        EtWriter writer(dir.File("t.et"), Metadata());
        writer.WriteNode(RichNode(9));
    }
    BOOST_TEST(chakra_test::ReadFileBytes(dir.File("t.et")) == before);
    BOOST_TEST(chakra_test::ListDir(dir.Path()).size() == 1u);
}

BOOST_AUTO_TEST_CASE(unwritable_directory_is_a_clear_error)
{
    BOOST_CHECK_EXCEPTION(EtWriter("/nonexistent-dir/t.et", Metadata()),
                          TraceError,
                          [](const TraceError& e) {
                              return std::string(e.what()).find("/nonexistent-dir/t.et") == 0;
                          });
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(bad_input)

/** Checks that reading \p bytes fails with an error naming the file and containing \p text. */
void
ExpectError(const std::string& bytes, const std::string& text)
{
    TempDir dir;
    std::string path = dir.File("bad.et");
    chakra_test::WriteFileBytes(path, bytes);
    std::string error = ReadError(path);
    BOOST_TEST_INFO("error: " << error);
    BOOST_TEST(error.find(path + ": ") == 0u);
    BOOST_TEST(error.find(text) != std::string::npos);
    BOOST_TEST(error.find('\n') == std::string::npos);
}

BOOST_AUTO_TEST_CASE(empty_file)
{
    ExpectError("", "empty file");
}

BOOST_AUTO_TEST_CASE(truncated_node)
{
    std::string good = Framed(Metadata()) + Framed(RichNode(2));
    ExpectError(good.substr(0, good.size() - 5), "truncated Node message");
    // The position names the message and its byte offset.
    ExpectError(good.substr(0, good.size() - 5),
                "message 1 at byte " + std::to_string(Framed(Metadata()).size()));
}

BOOST_AUTO_TEST_CASE(truncated_metadata)
{
    std::string good = Framed(Metadata());
    ExpectError(good.substr(0, good.size() - 1), "truncated GlobalMetadata message");
}

BOOST_AUTO_TEST_CASE(truncated_length_prefix)
{
    ExpectError(Framed(Metadata()) + "\x80", "truncated length prefix");
}

BOOST_AUTO_TEST_CASE(bad_varint)
{
    ExpectError(Framed(Metadata()) + std::string(11, '\xff'), "bad varint");
}

BOOST_AUTO_TEST_CASE(absurd_length)
{
    ExpectError(Framed(Metadata()) + Varint(3ull << 30) + "abc", "exceeds");
}

BOOST_AUTO_TEST_CASE(node_where_metadata_expected)
{
    ExpectError(Framed(RichNode(2)), "wrong message type");
}

BOOST_AUTO_TEST_CASE(second_metadata_where_node_expected)
{
    ExpectError(Framed(Metadata()) + Framed(Metadata()), "wrong message type");
}

BOOST_AUTO_TEST_CASE(garbage_bytes)
{
    // Length 6 then bytes that are not a valid protobuf encoding (field number 0).
    ExpectError(Framed(Metadata()) + std::string("\x06\x00\x00\x00\x00\x00\x00", 7),
                "not a valid Node message");
}

BOOST_AUTO_TEST_CASE(truncated_gzip)
{
    TempDir dir;
    WriteTrace(dir.File("t.et.gz"), 200);
    std::string gz = chakra_test::ReadFileBytes(dir.File("t.et.gz"));
    ExpectError(gz.substr(0, gz.size() / 2), "truncated");
}

BOOST_AUTO_TEST_CASE(missing_file_and_directory)
{
    BOOST_CHECK_EXCEPTION(EtReader("/nonexistent.et"), TraceError, [](const TraceError& e) {
        return std::string(e.what()).find("/nonexistent.et: cannot open") == 0;
    });
    TempDir dir;
    BOOST_CHECK_EXCEPTION(EtReader(dir.Path()), TraceError, [](const TraceError& e) {
        return std::string(e.what()).find("not a regular file") != std::string::npos;
    });
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(typed_attributes)

/** A node with one attribute named "x" set by \p set. */
template <typename Set>
EtNode
NodeWith(Set set)
{
    ChakraProtoMsg::Node node;
    node.set_id(42);
    node.set_name("op");
    set(*AddAttr(node, "x"));
    return EtNode(node);
}

BOOST_AUTO_TEST_CASE(every_integer_oneof_reads_as_integer)
{
    using A = ChakraProtoMsg::AttributeProto;
    std::vector<std::function<void(A&)>> setters = {
        [](A& a) { a.set_int32_val(1000); },
        [](A& a) { a.set_int64_val(1000); },
        [](A& a) { a.set_uint32_val(1000); },
        [](A& a) { a.set_uint64_val(1000); },
        [](A& a) { a.set_sint32_val(1000); },
        [](A& a) { a.set_sint64_val(1000); },
        [](A& a) { a.set_fixed32_val(1000); },
        [](A& a) { a.set_fixed64_val(1000); },
        [](A& a) { a.set_sfixed32_val(1000); },
        [](A& a) { a.set_sfixed64_val(1000); },
    };
    for (const auto& set : setters)
    {
        EtNode node = NodeWith(set);
        BOOST_TEST(node.GetInt("x") == 1000);
        BOOST_TEST(node.GetUint("x") == 1000u);
        BOOST_TEST(node.GetDouble("x") == 1000.0);
    }
}

BOOST_AUTO_TEST_CASE(comm_size_in_uint64_is_not_read_as_zero)
{
    // The failure the reference feeder has: comm_size stored as uint64_val read back as 0.
    EtNode node = NodeWith([](auto& a) { a.set_uint64_val(5ull << 30); });
    BOOST_TEST(node.GetUint("x") == 5ull << 30);
    ChakraProtoMsg::Node proto = RichNode(3);
    BOOST_TEST(EtNode(proto).GetCommSize() == 5ull << 30);
    BOOST_TEST(EtNode(proto).GetCommType().value() == ChakraProtoMsg::ALL_GATHER);
    BOOST_TEST(EtNode(proto).GetCommSrc().value() == 3);
    BOOST_TEST(!EtNode(proto).GetCommDst().has_value());
    BOOST_TEST(EtNode(proto).GetPgName() == "0");
    BOOST_TEST(EtNode(proto).GetDouble("ratio") == 0.5);
}

BOOST_AUTO_TEST_CASE(range_is_checked)
{
    EtNode huge = NodeWith([](auto& a) { a.set_uint64_val(std::numeric_limits<uint64_t>::max()); });
    BOOST_CHECK_THROW(huge.GetInt("x"), TraceError);
    BOOST_TEST(huge.GetUint("x") == std::numeric_limits<uint64_t>::max());
    EtNode negative = NodeWith([](auto& a) { a.set_int64_val(-5); });
    BOOST_TEST(negative.GetInt("x") == -5);
    BOOST_CHECK_THROW(negative.GetUint("x"), TraceError);
    EtNode two = NodeWith([](auto& a) { a.set_int32_val(2); });
    BOOST_CHECK_THROW(two.GetBool("x"), TraceError);
}

BOOST_AUTO_TEST_CASE(missing_and_mistyped_attributes)
{
    EtNode node = NodeWith([](auto& a) { a.set_string_val("hello"); });
    BOOST_CHECK_EXCEPTION(node.GetInt("absent"), TraceError, [](const TraceError& e) {
        return std::string(e.what()) == "node 42 (op): missing attribute 'absent'";
    });
    BOOST_TEST(node.GetInt("absent", 7) == 7);
    BOOST_TEST(node.GetString("absent", "d") == "d");
    BOOST_CHECK_EXCEPTION(node.GetInt("x"), TraceError, [](const TraceError& e) {
        return std::string(e.what()) ==
               "node 42 (op): attribute 'x': expected an integer, found string_val";
    });
    // A default never hides a wrong type.
    BOOST_CHECK_THROW(node.GetInt("x", 7), TraceError);
    BOOST_TEST(node.GetString("x") == "hello");
}

BOOST_AUTO_TEST_CASE(documented_defaults)
{
    EtNode empty(ChakraProtoMsg::Node{});
    BOOST_TEST(empty.IsCpuOp() == false);
    BOOST_TEST(empty.GetCommSize() == 0u);
    BOOST_TEST(empty.GetPgName() == "");
    BOOST_TEST(!empty.GetCommType().has_value());
    BOOST_TEST(!empty.GetCommTag().has_value());
    BOOST_TEST(!empty.GetStream().has_value());
    BOOST_TEST(empty.GetNumOps() == 0u);
}

BOOST_AUTO_TEST_CASE(bool_and_lists)
{
    EtNode asInt = NodeWith([](auto& a) { a.set_int64_val(1); });
    BOOST_TEST(asInt.GetBool("x") == true);
    EtNode list = NodeWith([](auto& a) {
        a.mutable_uint64_list()->add_values(4);
        a.mutable_uint64_list()->add_values(9);
    });
    BOOST_TEST(list.GetIntList("x") == std::vector<int64_t>({4, 9}));
    BOOST_CHECK_THROW(list.GetInt("x"), TraceError);
}

BOOST_AUTO_TEST_CASE(indexed_attributes_read_as_by_name)
{
    // The conventions' attributes are found through an index made with the node: the first of
    // a repeated name, wherever it stands, and names that only look alike are not taken.
    ChakraProtoMsg::Node proto;
    proto.set_id(9);
    proto.set_name("op");
    AddAttr(proto, "streams")->set_int64_val(1);
    AddAttr(proto, "Stream")->set_int64_val(2);
    AddAttr(proto, "comm_tap")->set_int64_val(3);
    AddAttr(proto, "stream")->set_int64_val(4);
    AddAttr(proto, "stream")->set_int64_val(5);
    AddAttr(proto, "pg_name")->set_bytes_val("tp0");
    AddAttr(proto, "comm_tag")->set_int64_val(6);
    AddAttr(proto, "duration_exact_micros")->set_double_val(1.25);
    EtNode node(proto);
    BOOST_TEST(node.GetStream().value() == 4);
    BOOST_TEST(node.GetInt("stream") == 4);
    BOOST_TEST(node.FindAttr("stream") == &node.GetProto().attr(3));
    BOOST_TEST(node.GetInt("streams") == 1);
    BOOST_TEST(node.GetInt("Stream") == 2);
    BOOST_TEST(node.GetCommTag().value() == 6);
    BOOST_TEST(!node.GetCommSrc().has_value());
    BOOST_TEST(!node.HasAttr("tid"));
    BOOST_TEST(node.GetPgName() == "tp0");
    BOOST_TEST(node.GetDouble("duration_exact_micros") == 1.25);
    EtNode copied = node;
    BOOST_TEST(copied.GetStream().value() == 4, "a copy reads its own attributes");
    BOOST_TEST(copied.FindAttr("stream") == &copied.GetProto().attr(3));

    // Past the index's range (254 attributes) the name is looked up.
    ChakraProtoMsg::Node wide;
    for (int i = 0; i < 300; ++i)
    {
        AddAttr(wide, "a" + std::to_string(i))->set_int64_val(i);
    }
    AddAttr(wide, "tid")->set_int64_val(11);
    AddAttr(wide, "tid")->set_int64_val(12);
    AddAttr(wide, "is_cpu_op")->set_bool_val(true);
    EtNode far(wide);
    BOOST_TEST(far.GetTid().value() == 11);
    BOOST_TEST(far.IsCpuOp());
    BOOST_TEST(far.GetInt("a299") == 299);

    ChakraProtoMsg::Node bad;
    bad.set_id(5);
    bad.set_name("call");
    AddAttr(bad, "pg_name")->set_int64_val(3);
    BOOST_CHECK_EXCEPTION(EtNode(bad).GetPgName(), TraceError, [](const TraceError& e) {
        return std::string(e.what()) ==
               "node 5 (call): attribute 'pg_name': expected a string, found int64_val";
    });
    BOOST_TEST(EtNode::Classify("comm_size") == EtNode::COMM_SIZE);
    BOOST_TEST(EtNode::Classify("comm_sizes") == EtNode::KNOWN_COUNT);
    BOOST_TEST(EtNode::Classify("") == EtNode::KNOWN_COUNT);
}

BOOST_AUTO_TEST_CASE(unknown_comm_type_is_an_error)
{
    EtNode node = NodeWith([](auto&) {});
    ChakraProtoMsg::Node proto;
    AddAttr(proto, "comm_type")->set_int64_val(42);
    BOOST_CHECK_THROW(EtNode(proto).GetCommType(), TraceError);
}

BOOST_AUTO_TEST_SUITE_END()
