/*
 * JsonEventReader (the converter's JSON reader) against nlohmann/json, the parser it replaced:
 * on every document both accept, the values must be the same (types included: nlohmann's
 * typing of numbers is what the converter's checks rely on); every document nlohmann refuses
 * must be refused; and the inputs and outputs PyTorchTrace keeps as text must be the text
 * nlohmann's dump writes (the .et files carry it byte for byte).
 */
#define BOOST_TEST_MODULE json_event_reader
#include "ns3/json-event-reader.h"
#include "ns3/json-limits.h"
#include "ns3/pytorch-trace.h"

#include <boost/test/unit_test.hpp>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

using namespace ns3;
using Json = nlohmann::json;

namespace
{

/** Builds the JSON value the events describe (a DOM, as the oracle's parse does). */
class DomBuilder : public JsonEventHandler
{
  public:
    Json root;

    bool Null() override
    {
        return Put(Json());
    }

    bool Boolean(bool value) override
    {
        return Put(Json(value));
    }

    bool Integer(int64_t value) override
    {
        return Put(Json(value));
    }

    bool Unsigned(uint64_t value) override
    {
        return Put(Json(value));
    }

    bool Float(double value) override
    {
        return Put(Json(value));
    }

    bool String(std::string& value, bool escaped) override
    {
        // Unescaped strings are their text byte for byte: no byte that needs an escape.
        if (!escaped)
        {
            for (unsigned char c : value)
            {
                BOOST_TEST((c >= 0x20 && c != '"' && c != '\\'));
            }
        }
        return Put(Json(value));
    }

    bool Key(std::string& name) override
    {
        m_key = name;
        return true;
    }

    bool StartObject() override
    {
        return Open(Json::object());
    }

    bool StartArray() override
    {
        return Open(Json::array());
    }

    bool EndObject() override
    {
        m_open.pop_back();
        return true;
    }

    bool EndArray() override
    {
        m_open.pop_back();
        return true;
    }

  private:
    Json* Slot()
    {
        if (m_open.empty())
        {
            return &root;
        }
        Json* container = m_open.back();
        if (container->is_array())
        {
            container->push_back(Json());
            return &container->back();
        }
        return &(*container)[m_key];
    }

    bool Put(Json value)
    {
        *Slot() = std::move(value);
        return true;
    }

    bool Open(Json empty)
    {
        Json* slot = Slot();
        *slot = std::move(empty);
        m_open.push_back(slot);
        return true;
    }

    std::vector<Json*> m_open;
    std::string m_key;
};

/** \return true if \p a and \p b are equal with the same type at every level */
bool
SameTyped(const Json& a, const Json& b)
{
    if (a.type() != b.type())
    {
        return false;
    }
    if (a.is_array())
    {
        if (a.size() != b.size())
        {
            return false;
        }
        for (std::size_t i = 0; i < a.size(); ++i)
        {
            if (!SameTyped(a[i], b[i]))
            {
                return false;
            }
        }
        return true;
    }
    if (a.is_object())
    {
        if (a.size() != b.size())
        {
            return false;
        }
        for (auto it = a.begin(); it != a.end(); ++it)
        {
            auto other = b.find(it.key());
            if (other == b.end() || !SameTyped(*it, *other))
            {
                return false;
            }
        }
        return true;
    }
    if (a.is_number_float())
    {
        // Bit for bit: -0.0 and 0.0 must stay apart, as nlohmann's dump tells them apart.
        return a.dump() == b.dump();
    }
    return a == b;
}

/** Checks the reader against nlohmann on \p text; \return whether the reader accepted it */
bool
CheckAgainstNlohmann(const std::string& text)
{
    JsonEventReader reader(text);
    DomBuilder builder;
    const bool accepted = reader.Read(builder);
    const bool expected = Json::accept(text);
    BOOST_TEST_INFO("text: " << Json(text).dump(-1, ' ', true, Json::error_handler_t::replace)
                             << "; reader: " << (accepted ? "accepted" : reader.GetError()));
    BOOST_TEST(accepted == expected);
    if (accepted && expected)
    {
        const Json oracle = Json::parse(text);
        BOOST_TEST_INFO("reader: " << builder.root.dump() << ", nlohmann: " << oracle.dump());
        BOOST_TEST(SameTyped(builder.root, oracle));
    }
    if (!accepted)
    {
        BOOST_TEST(!reader.GetError().empty());
        BOOST_TEST(reader.GetErrorByte() <= text.size());
    }
    return accepted;
}

/** A small host trace with every kind of value an io field can hold. */
const char* kTrace = R"json({"schema": "1.1.0-chakra.0.0.4", "pid": 7, "nodes": [
 {"id": 2, "name": "[pytorch|profiler|execution_trace|thread]", "ctrl_deps": 1,
  "inputs": {"values": [], "shapes": [], "types": []},
  "outputs": {"values": [], "shapes": [], "types": []}, "attrs": []},
 {"id": 3, "name": "aten::x", "ctrl_deps": 2,
  "inputs": {"values": [ [8, 9, 0, 64, 4, "cuda:0"], -1, 1.5, 1e5, -0.0, 2.5E-3, 1e-400,
                          18446744073709551615, 18446744073709551616, -9223372036854775808,
                          true, false, null, "a\"b\\c\/d\u00e9\ud83d\ude00\n\u0001", "é中",
                          {"z": 1, "a": [2, {"k": "v"}], "z": 3}, [[], {}], "" ],
             "shapes": [[64], [[]], []],
             "types": ["Tensor(float)", "GenericList[Int]"]},
  "outputs": {"values": [[222, 9, 0, 64, 4, "cuda:0"]], "shapes": [[64]],
              "types": ["Tensor(float)"], "extra": {"ignored": [1]}},
  "attrs": [{"name": "rf_id", "type": "uint64", "value": 7},
            {"name": "op_schema", "type": "string", "value": "aten::x(Tensor self) -> Tensor"}]},
 {"id": 4, "name": "aten::y", "ctrl_deps": 3,
  "inputs": {"values": [1], "values": [2, 3], "shapes": null, "types": ["Int", "Int"]},
  "outputs": null, "attrs": []}
]})json";

} // namespace

BOOST_AUTO_TEST_SUITE(reader)

BOOST_AUTO_TEST_CASE(values_and_types_are_nlohmanns)
{
    for (const char* text : {"0",
                             "-0",
                             "7",
                             "-7",
                             "1.5",
                             "-1.5e-3",
                             "1E5",
                             "1e+2",
                             "0.1",
                             "123456789.125e7",
                             "18446744073709551615",
                             "18446744073709551616",
                             "-9223372036854775808",
                             "-9223372036854775809",
                             "1e-400",
                             "-1e-400",
                             "4.9406564584124654e-324",
                             "1.7976931348623157e308",
                             "true",
                             "false",
                             "null",
                             "\"\"",
                             "\"plain\"",
                             "\"\\\" \\\\ \\/ \\b \\f \\n \\r \\t\"",
                             "\"\\u0000\\u001f\\u00e9\\u4e2d\"",
                             "\"\\ud83d\\ude00\"",
                             "\"\\uD83D\\uDE00\"",
                             "\"\xc3\xa9\xe4\xb8\xad\xf0\x9f\x98\x80\"",
                             "\"\x7f\"",
                             "[]",
                             "{}",
                             "[[[]]]",
                             "{\"a\":{\"b\":{}}}",
                             " \t\r\n[ 1 , 2 ] \n",
                             "{\"b\": 1, \"a\": 2, \"b\": 3}",
                             "[1, \"x\", null, {\"k\": [true, false]}, -2, 2.0]",
                             "\xEF\xBB\xBF{\"bom\": 1}",
                             "\xEF\xBB\xBF  7"})
    {
        BOOST_TEST(CheckAgainstNlohmann(text));
    }
}

BOOST_AUTO_TEST_CASE(what_nlohmann_refuses_is_refused)
{
    for (const char* text : {"",
                             " ",
                             "[",
                             "]",
                             "{",
                             "[1,]",
                             "[,1]",
                             "[1 2]",
                             "{\"a\"}",
                             "{\"a\":}",
                             "{,}",
                             "{\"a\":1,}",
                             "{1:2}",
                             "{\"a\" 1}",
                             "01",
                             "-",
                             "-a",
                             "1.",
                             "1.e5",
                             "1e",
                             "1e+",
                             ".5",
                             "+1",
                             "0x10",
                             "tru",
                             "nul",
                             "fals",
                             "True",
                             "NaN",
                             "Infinity",
                             "1e9999",
                             "-1e9999",
                             "\"abc",
                             "\"\\x\"",
                             "\"\\u12\"",
                             "\"\\u12g4\"",
                             "\"\\ud800\"",
                             "\"\\ud800\\u0041\"",
                             "\"\\udc00\"",
                             "\"\x01\"",
                             "\"a\nb\"",
                             "\"\xff\"",
                             "\"\xc0\xaf\"",
                             "\"\xc3\"",
                             "\"\xe0\x80\x80\"",
                             "\"\xed\xa0\x80\"",
                             "\"\xf4\x90\x80\x80\"",
                             "\"\xf5\x80\x80\x80\"",
                             "\"\x80\"",
                             "[1] x",
                             "{} {}",
                             "1 2",
                             "\xEF\xBB",
                             "\xEF\xBB\xBF"})
    {
        BOOST_TEST(!CheckAgainstNlohmann(text));
    }
    // Zero bytes: inside a string an unescaped control character; after the document, the end
    // of the input for nlohmann (whatever follows).
    BOOST_TEST(!CheckAgainstNlohmann(std::string("\"a\0b\"", 5)));
    BOOST_TEST(!CheckAgainstNlohmann(std::string("[1,\0]", 5)));
    BOOST_TEST(CheckAgainstNlohmann(std::string("[1]\0", 4)));
    BOOST_TEST(CheckAgainstNlohmann(std::string("[1] \0x", 6)));
}

BOOST_AUTO_TEST_CASE(errors_name_the_byte)
{
    // Offsets counted by hand: the byte the reader stopped at.
    for (const auto& [text, byte] :
         std::vector<std::pair<std::string, uint64_t>>{{"[1,]", 3},
                                                       {"[1 2]", 3},
                                                       {"{\"a\" 1}", 5},
                                                       {"[1] x", 4},
                                                       {"\"\\x\"", 1},
                                                       {"[\"ok\", \"\xff\"]", 8},
                                                       {"1e9999", 0},
                                                       {"[", 1}})
    {
        JsonEventReader reader(text);
        DomBuilder builder;
        BOOST_TEST_INFO(text);
        BOOST_TEST(!reader.Read(builder));
        BOOST_TEST(reader.GetErrorByte() == byte);
        BOOST_TEST(!reader.IsTooDeep());
    }
}

BOOST_AUTO_TEST_CASE(nesting_is_bounded_where_the_limit_is_passed)
{
    const std::string atLimit = std::string(kMaxJsonDepth, '[') + std::string(kMaxJsonDepth, ']');
    BOOST_TEST(CheckAgainstNlohmann(atLimit));
    // One more level: refused at the bracket that opens it (offset kMaxJsonDepth), with the
    // message of the other readers' depth check.
    for (const char open : {'[', '{'})
    {
        std::string deeper = std::string(kMaxJsonDepth, '[');
        deeper += open;
        JsonEventReader reader(deeper);
        DomBuilder builder;
        BOOST_TEST(!reader.Read(builder));
        BOOST_TEST(reader.IsTooDeep());
        BOOST_TEST(reader.GetErrorByte() == kMaxJsonDepth);
        BOOST_TEST(reader.GetError() == JsonTooDeepMessage());
    }
    // 100,000 levels: no recursion in the reader, so no stack overflow.
    const std::string hundredThousand(100000, '[');
    JsonEventReader deep(hundredThousand);
    DomBuilder builder;
    BOOST_TEST(!deep.Read(builder));
    BOOST_TEST(deep.IsTooDeep());
}

BOOST_AUTO_TEST_CASE(mutated_traces_are_accepted_and_refused_as_nlohmann_does)
{
    // Byte changes, insertions, deletions and cuts of a trace, from a fixed seed: the two
    // readers must agree on each, and on the values of those they accept.
    const std::string base = kTrace;
    const std::string alphabet = "[]{}\",:\\/-+.eE0123456789tfnu \n\x01\x7f\xc3\xa9\xed\xff";
    std::mt19937_64 random(20261126);
    auto pick = [&](std::size_t n) {
        return static_cast<std::size_t>(std::uniform_int_distribution<uint64_t>(0, n - 1)(random));
    };
    uint32_t accepted = 0;
    const uint32_t cases = 3000;
    for (uint32_t k = 0; k < cases; ++k)
    {
        std::string text = base;
        const std::size_t edits = 1 + pick(3);
        for (std::size_t e = 0; e < edits && !text.empty(); ++e)
        {
            const std::size_t at = pick(text.size());
            switch (pick(4))
            {
            case 0:
                text[at] = alphabet[pick(alphabet.size())];
                break;
            case 1:
                text.insert(at, 1, alphabet[pick(alphabet.size())]);
                break;
            case 2:
                text.erase(at, 1 + pick(4));
                break;
            default:
                text.resize(at);
                break;
            }
        }
        accepted += CheckAgainstNlohmann(text) ? 1 : 0;
    }
    // Both outcomes occur often enough for the comparison to mean something.
    BOOST_TEST_MESSAGE(accepted << " of " << cases << " mutated traces are JSON");
    BOOST_TEST(accepted > 100u);
    BOOST_TEST(accepted < cases - 100u);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(trace_io_text)

BOOST_AUTO_TEST_CASE(inputs_and_outputs_are_nlohmanns_compact_dump)
{
    // The .et carries the io arrays as text: PyTorchTrace keeps them as compact text without
    // building them, and that text must be what nlohmann's dump of the parsed value writes
    // (key order and repeated keys of objects inside, float forms, escapes, -0.0, 2^64).
    const PyTorchTrace trace = PyTorchTrace::Parse(kTrace, "t.json");
    const Json oracle = Json::parse(kTrace);
    auto dump = [](const Json& value) {
        return value.dump(-1, ' ', false, Json::error_handler_t::replace);
    };
    BOOST_REQUIRE(trace.GetSize() == 3u);
    for (std::size_t i = 0; i < 3; ++i)
    {
        const Json& node = oracle["nodes"][i];
        const PyTorchNode& read = trace.GetNode(*trace.FindIndex(node["id"].get<uint64_t>()));
        for (const auto& [key, io] :
             {std::pair<const char*, const PyTorchIo*>{"inputs", &read.inputs},
              {"outputs", &read.outputs}})
        {
            const Json& field = node[key];
            for (const auto& [member, text] :
                 {std::pair<const char*, const std::string*>{"values", &io->values},
                  {"shapes", &io->shapes},
                  {"types", &io->types}})
            {
                const bool given =
                    field.is_object() && field.contains(member) && !field[member].is_null();
                BOOST_TEST_INFO("node " << read.id << " " << key << "." << member);
                BOOST_TEST(*text == (given ? dump(field[member]) : std::string("[]")));
            }
        }
    }
    // The hand-checked forms of a few of them.
    const PyTorchNode& x = trace.GetNode(*trace.FindIndex(3));
    BOOST_TEST(x.inputs.values.find(R"(,1.5,100000.0,-0.0,0.0025,0.0,18446744073709551615,)"
                                    R"(1.8446744073709552e+19,-9223372036854775808,)") !=
               std::string::npos);
    BOOST_TEST(x.inputs.values.find(R"("a\"b\\c/dé😀\n\u0001","é中",{"a":[2,{"k":"v"}],"z":3})") !=
               std::string::npos);
    const PyTorchNode& y = trace.GetNode(*trace.FindIndex(4));
    BOOST_TEST(y.inputs.values == "[2,3]"); // the last of a repeated key, as in a JSON object
    BOOST_TEST(y.inputs.shapes == "[]");
}

BOOST_AUTO_TEST_CASE(io_fields_of_the_wrong_form_are_named)
{
    auto errorOf = [](const std::string& node, bool legacy) {
        const std::string text = std::string(R"({"schema": ")") +
                                 (legacy ? "1.0.1" : "1.1.0-chakra.0.0.4") + R"(", "nodes": [)" +
                                 node + "]}";
        try
        {
            PyTorchTrace::Parse(text, "t.json");
        }
        catch (const std::exception& e)
        {
            return std::string(e.what());
        }
        return std::string();
    };
    const std::string head = R"({"id": 5, "name": "op", )";
    BOOST_TEST(errorOf(head + R"("ctrl_deps": 1, "inputs": [1]})", false) ==
               "t.json: node 5 (op): field \"inputs\" is not a {values, shapes, types} object");
    BOOST_TEST(errorOf(head + R"("ctrl_deps": 1, "outputs": 3})", false) ==
               "t.json: node 5 (op): field \"outputs\" is not a {values, shapes, types} object");
    BOOST_TEST(errorOf(head + R"("ctrl_deps": 1, "inputs": {"values": [], "types": 7}})", false) ==
               "t.json: node 5 (op): field \"inputs.types\" is not an array");
    BOOST_TEST(errorOf(head + R"("ctrl_deps": 1, "inputs": {"shapes": {}, "values": "x"}})",
                       false) == "t.json: node 5 (op): field \"inputs.values\" is not an array");
    BOOST_TEST(errorOf(head + R"("parent": 1, "input_shapes": {"a": 1}})", true) ==
               "t.json: node 5 (op): field \"input_shapes\" is not an array");
    // Null is no value; the last of repeated keys counts.
    BOOST_TEST(errorOf(head + R"("ctrl_deps": 1, "inputs": 3, "inputs": null})", false) == "");
    BOOST_TEST(errorOf(head + R"("parent": 1, "inputs": [1], "outputs": null})", true) == "");
    // The schema named after the nodes: they are read with it all the same.
    std::string late;
    try
    {
        PyTorchTrace::Parse(R"({"nodes": [{"id": 5, "name": "op", "parent": 1, "inputs": )"
                            R"({"values": []}}], "schema": "1.0.1"})",
                            "t.json");
    }
    catch (const std::exception& e)
    {
        late = e.what();
    }
    BOOST_TEST(late == "t.json: node 5 (op): field \"inputs\" is not an array");
}

BOOST_AUTO_TEST_SUITE_END()
