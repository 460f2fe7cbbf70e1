#include "fuzz-targets.h"

#include "ns3/communicator.h"
#include "ns3/et-feeder.h"
#include "ns3/et-json.h"
#include "ns3/et-node.h"
#include "ns3/et-reader.h"
#include "ns3/et-summary.h"
#include "ns3/host-trace.h"
#include "ns3/kineto-trace.h"
#include "ns3/pytorch-trace.h"
#include "ns3/temporary-directory.h"
#include "ns3/trace-converter.h"
#include "ns3/trace-error.h"
#include "ns3/trace-file.h"
#include "ns3/trace-linker.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <set>
#include <unistd.h>

namespace chakra_fuzz
{

namespace
{

std::function<void(const std::string&)>&
Handler()
{
    static std::function<void(const std::string&)> handler = [](const std::string& what) {
        std::fprintf(stderr, "chakra fuzz: contract violation: %s\n", what.c_str());
        std::abort();
    };
    return handler;
}

void
Violation(const std::string& what)
{
    Handler()(what);
}

/** A scratch directory of this process, removed at exit (a static's destructor). */
const std::string&
ScratchDir()
{
    static const ns3::TemporaryDirectory dir("chakra-fuzz");
    return dir.GetPath();
}

std::string
Scratch(const std::string& name)
{
    return ScratchDir() + "/" + name;
}

void
WriteFile(const std::string& path, const void* data, std::size_t size)
{
    FILE* file = std::fopen(path.c_str(), "wb");
    if (file == nullptr || (size > 0 && std::fwrite(data, 1, size, file) != size))
    {
        std::perror("chakra fuzz: cannot write the scratch input");
        std::abort();
    }
    std::fclose(file);
}

std::string
Input(const std::string& name, const uint8_t* data, std::size_t size)
{
    std::string path = Scratch(name);
    WriteFile(path, data, size);
    return path;
}

/**
 * Runs \p body: true if it returns, false if it throws a TraceError that names one of
 * \p files; anything else is a violation.
 */
template <typename F>
bool
Accepts(std::initializer_list<std::string> files, F body)
{
    try
    {
        body();
        return true;
    }
    catch (const ns3::TraceError& e)
    {
        const std::string what = e.what();
        for (const auto& file : files)
        {
            if (what.find(file) != std::string::npos)
            {
                return false;
            }
        }
        Violation("the error names none of the input files: " + what);
    }
    catch (const std::exception& e)
    {
        Violation(std::string("an error that is not a TraceError escaped: ") + e.what());
    }
    return false;
}

/** The typed getters of the Chakra conventions: a wrong type is a TraceError naming the node. */
void
PokeNode(const ns3::EtNode& node)
{
    const std::string where = "node " + std::to_string(node.GetId());
    auto poke = [&](auto getter) {
        try
        {
            getter();
        }
        catch (const ns3::TraceError& e)
        {
            if (std::string(e.what()).find(where) == std::string::npos)
            {
                Violation("an attribute error names no node: " + std::string(e.what()));
            }
        }
    };
    poke([&] { return node.IsCpuOp(); });
    poke([&] { return node.GetCommType(); });
    poke([&] { return node.GetCommSize(); });
    poke([&] { return node.GetPgName(); });
    poke([&] { return node.GetCommSrc(); });
    poke([&] { return node.GetCommDst(); });
    poke([&] { return node.GetCommTag(); });
    poke([&] { return node.GetStream(); });
    poke([&] { return node.GetNumOps(); });
    poke([&] { return node.GetTensorSize(); });
}

/**
 * Reads a .et: \return false if the reader refuses it; \p nodes as read (serialized).
 * \param directParseBytes the reader's threshold for its own decoding of dependency lists
 */
bool
ReadNodes(const std::string& path,
          std::vector<std::string>& nodes,
          uint32_t directParseBytes = ns3::EtReader::kDirectParseBytes)
{
    nodes.clear();
    return Accepts({path}, [&] {
        ns3::EtReader reader(path, directParseBytes);
        ChakraProtoMsg::Node node;
        while (reader.ReadNode(node))
        {
            nodes.push_back(node.SerializeAsString());
        }
    });
}

/** Splits a .et into its messages (independently of EtReader). */
std::vector<std::string>
SplitMessages(const std::string& bytes)
{
    std::vector<std::string> messages;
    std::size_t i = 0;
    while (i < bytes.size())
    {
        uint64_t length = 0;
        int shift = 0;
        for (;;)
        {
            if (i >= bytes.size() || shift > 63)
            {
                return {};
            }
            auto b = static_cast<uint8_t>(bytes[i++]);
            length |= static_cast<uint64_t>(b & 0x7f) << shift;
            shift += 7;
            if (b < 0x80)
            {
                break;
            }
        }
        if (length > bytes.size() - i)
        {
            return {};
        }
        messages.push_back(bytes.substr(i, length));
        i += length;
    }
    return messages;
}

/** Protobuf's own reading of a node, with the reader's rule (repeated ids dropped) applied. */
std::string
ReferenceNode(const std::string& message)
{
    ChakraProtoMsg::Node node;
    if (!node.ParseFromString(message))
    {
        return "<protobuf rejects it>";
    }
    for (auto* list : {node.mutable_ctrl_deps(), node.mutable_data_deps()})
    {
        std::vector<uint64_t> distinct;
        std::set<uint64_t> seen;
        for (uint64_t id : *list)
        {
            if (seen.insert(id).second)
            {
                distinct.push_back(id);
            }
        }
        list->Clear();
        list->Add(distinct.begin(), distinct.end());
    }
    return node.SerializeAsString();
}

/** Feeds a trace to the end, finishing each node before asking for the next. */
void
Feed(const std::string& path, ns3::EtFeederOptions options, std::size_t nodes)
{
    std::size_t issued = 0;
    bool done = false;
    bool ok = Accepts({path}, [&] {
        ns3::EtFeeder feeder(path, options);
        while (feeder.HasNodesToIssue())
        {
            auto node = feeder.GetNextIssuableNode();
            ++issued;
            feeder.FreeChildrenNodes(node->GetId());
            feeder.RemoveNode(node->GetId());
        }
        done = feeder.IsDone();
    });
    if (ok && (!done || issued != nodes))
    {
        Violation("the feeder ended without error after issuing " + std::to_string(issued) +
                  " of " + std::to_string(nodes) + " nodes");
    }
}

const char* kHostFixture = R"x({"schema": "1.0.1", "pid": 7, "nodes": [
 {"name": "[pytorch|profiler|execution_trace|process]", "id": 1, "parent": 1, "tid": 0, "rf_id": 0},
 {"name": "[pytorch|profiler|execution_trace|thread]", "id": 2, "parent": 1, "tid": 1, "rf_id": 0},
 {"name": "aten::add", "id": 3, "parent": 2, "tid": 1, "rf_id": 1},
 {"name": "nccl:all_reduce", "id": 4, "parent": 2, "tid": 1, "rf_id": 2,
  "inputs": [[7, 8, 0, 4, 4, "cuda:0"]], "input_types": ["Tensor(float)"]}]})x";

const char* kKinetoFixture =
    R"({"schemaVersion": 1, "distributedInfo": {"rank": 0, "world_size": 1},
 "traceEvents": [
 {"ph": "X", "cat": "cpu_op", "name": "aten::add", "pid": 7, "tid": 7, "ts": 100, "dur": 20, "args": {"External id": 1}},
 {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 7, "tid": 7, "ts": 105, "dur": 5, "args": {"correlation": 9, "External id": 1}},
 {"ph": "X", "cat": "kernel", "name": "add_kernel", "pid": 0, "tid": 7, "ts": 112, "dur": 4, "args": {"correlation": 9, "stream": 7, "device": 0}},
 {"ph": "X", "cat": "cpu_op", "name": "nccl:all_reduce", "pid": 7, "tid": 7, "ts": 130, "dur": 20, "args": {"External id": 2}}]})";

std::string
Fixture(const std::string& name, const char* text)
{
    std::string path = Scratch(name);
    WriteFile(path, text, std::strlen(text));
    return path;
}

/** Converts a PyTorch trace; an output that appears must read back. */
void
Convert(const std::string& input)
{
    const std::string output = Scratch("converted.et");
    std::remove(output.c_str());
    bool ok = Accepts({input}, [&] { ns3::TraceConverter().Convert(input, output); });
    std::vector<std::string> nodes;
    if (ok && !ReadNodes(output, nodes))
    {
        Violation("the converter wrote a .et that the reader refuses");
    }
}

} // namespace

void
SetViolationHandler(std::function<void(const std::string&)> handler)
{
    Handler() = std::move(handler);
}

int
FuzzEtStream(const uint8_t* data, std::size_t size)
{
    const std::string path = Input("in.et", data, size);
    std::vector<std::string> nodes;
    std::vector<std::string> decoded;
    const bool accepted = ReadNodes(path, nodes);
    // Every node through the reader's own decoding of the dependency lists (what it does for
    // large messages): the same verdict and the same nodes as protobuf's decoding.
    if (ReadNodes(path, decoded, 0) != accepted || decoded != nodes)
    {
        Violation("the reader's own decoding of dependency lists disagrees with protobuf's");
    }
    if (!accepted)
    {
        return 0;
    }
    // The reader decodes the dependency lists itself: it must agree with protobuf (on the
    // uncompressed bytes: a gzip'd input is valid too).
    std::vector<std::string> messages = SplitMessages(ns3::ReadWholeFile(path));
    if (messages.size() == nodes.size() + 1)
    {
        for (std::size_t i = 0; i < nodes.size(); ++i)
        {
            if (ReferenceNode(messages[i + 1]) != nodes[i])
            {
                Violation("node message " + std::to_string(i + 1) +
                          ": the reader's decoding differs from protobuf's");
            }
        }
    }
    else
    {
        Violation("the reader accepted " + std::to_string(nodes.size()) +
                  " nodes, the framing holds " + std::to_string(messages.size()) + " messages");
    }
    for (const auto& bytes : nodes)
    {
        ChakraProtoMsg::Node proto;
        proto.ParseFromString(bytes);
        PokeNode(ns3::EtNode(std::move(proto)));
    }
    Accepts({path}, [&] { ns3::SummarizeEt(path); });
    ns3::EtFeederOptions lenient;
    lenient.danglingAsSatisfied = true;
    lenient.honourCtrlDeps = false;
    lenient.windowSize = 8;
    Feed(path, lenient, nodes.size());
    Feed(path, ns3::EtFeederOptions(), nodes.size());
    // .et -> JSON -> .et gives back the nodes.
    const std::string json = Scratch("round.json");
    const std::string again = Scratch("round.et");
    if (!Accepts({}, [&] { ns3::ConvertEtToJson(path, json); }))
    {
        Violation("the jsonizer refused a .et that the reader accepts");
        return 0;
    }
    if (!Accepts({}, [&] { ns3::ConvertJsonToEt(json, again); }))
    {
        Violation("the jsonizer refused its own JSON");
        return 0;
    }
    std::vector<std::string> back;
    if (!ReadNodes(again, back) || back != nodes)
    {
        Violation(".et -> JSON -> .et changed the nodes");
    }
    return 0;
}

int
FuzzHostTrace(const uint8_t* data, std::size_t size)
{
    const std::string path = Input("host.json", data, size);
    if (!Accepts({path}, [&] { ns3::HostTrace trace(path); }))
    {
        return 0;
    }
    const std::string kineto = Fixture("fixture-kineto.json", kKinetoFixture);
    const std::string linked = Scratch("linked.json");
    std::remove(linked.c_str());
    Accepts({path, kineto}, [&] {
        ns3::LinkResult result = ns3::TraceLinker().Link(path, kineto, 0);
        ns3::WriteLinkedTrace(result, linked);
    });
    Convert(path);
    return 0;
}

int
FuzzKinetoTrace(const uint8_t* data, std::size_t size)
{
    const std::string path = Input("kineto.json", data, size);
    if (!Accepts({path}, [&] { ns3::KinetoTrace trace(path); }))
    {
        return 0;
    }
    const std::string host = Fixture("fixture-host.json", kHostFixture);
    const std::string linked = Scratch("linked.json");
    std::remove(linked.c_str());
    bool ok = Accepts({path, host}, [&] {
        ns3::LinkResult result = ns3::TraceLinker().Link(host, path, 0);
        ns3::WriteLinkedTrace(result, linked);
    });
    if (ok)
    {
        Convert(linked); // what the linker writes, the converter reads
    }
    return 0;
}

int
FuzzLinkedTrace(const uint8_t* data, std::size_t size)
{
    const std::string path = Input("linked.json", data, size);
    if (Accepts({path}, [&] { ns3::PyTorchTrace::Load(path); }))
    {
        Convert(path);
    }
    return 0;
}

int
FuzzEtJson(const uint8_t* data, std::size_t size)
{
    const std::string path = Input("in.json", data, size);
    const std::string et = Scratch("from-json.et");
    if (!Accepts({path}, [&] { ns3::ConvertJsonToEt(path, et); }))
    {
        return 0;
    }
    std::vector<std::string> nodes;
    if (!ReadNodes(et, nodes))
    {
        Violation("JSON -> .et wrote a file the reader refuses");
        return 0;
    }
    const std::string json = Scratch("again.json");
    const std::string again = Scratch("again.et");
    std::vector<std::string> back;
    if (!Accepts({}, [&] { ns3::ConvertEtToJson(et, json); }) ||
        !Accepts({}, [&] { ns3::ConvertJsonToEt(json, again); }) || !ReadNodes(again, back) ||
        back != nodes)
    {
        Violation("JSON -> .et -> JSON -> .et changed the nodes");
    }
    return 0;
}

int
FuzzProcessGroups(const uint8_t* data, std::size_t size)
{
    const std::string text(reinterpret_cast<const char*>(data), size);
    std::string error;
    try
    {
        auto groups = ns3::ParseProcessGroups(text, error);
        if (!error.empty() && !groups.empty())
        {
            Violation("process groups returned with an error: " + error);
        }
    }
    catch (const std::exception& e)
    {
        Violation(std::string("ParseProcessGroups threw: ") + e.what());
    }
    return 0;
}

const std::vector<NamedTarget>&
AllTargets()
{
    static const std::vector<NamedTarget> targets = {
        {"et_stream", FuzzEtStream},
        {"host_trace", FuzzHostTrace},
        {"kineto_trace", FuzzKinetoTrace},
        {"linked_trace", FuzzLinkedTrace},
        {"et_json", FuzzEtJson},
        {"process_groups", FuzzProcessGroups},
    };
    return targets;
}

} // namespace chakra_fuzz
