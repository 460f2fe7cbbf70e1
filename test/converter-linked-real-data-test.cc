/*
 * End to end on the shared real host + Kineto pairs: chakra_trace_link, then TraceConverter.
 *
 * It runs the tool as
 *     chakra_trace_link --chakra-host-trace H --chakra-device-trace D --rank R --output-file OUT
 * and reads OUT as doc/linked-trace.md describes it. Expected values come from the host traces
 * and the linked JSON, read here independently of the converter. Skipped (exit 77) when
 * ../shared/data is absent.
 */
#define BOOST_TEST_MODULE converter_linked_real_data
#include "chakra-test-data.h"
#include "converter-test-util.h"

#include "ns3/rank-consistency.h"

#include <algorithm>
#include <boost/test/unit_test.hpp>
#include <map>
#include <nlohmann/json.hpp>

using namespace ns3;
using chakra_test::SharedData;
using chakra_test::TempDir;
using Json = nlohmann::json;

using RequireSharedData = chakra_test::RequireSharedData;
BOOST_TEST_GLOBAL_FIXTURE(RequireSharedData);

namespace
{

/** Links one rank's pair with the chakra_trace_link tool. \return the linked file */
std::string
Link(const TempDir& dir,
     const std::string& host,
     const std::string& device,
     int rank,
     const std::string& name)
{
    const std::string tool = chakra_test::ToolPath("chakra_trace_link");
    BOOST_REQUIRE_MESSAGE(chakra_test::FileExists(tool),
                          "chakra_trace_link is not built (" + tool + ")");
    const std::string output = dir.File(name + ".linked.json");
    auto result = chakra_test::RunCommand(
        tool + " --chakra-host-trace " + SharedData(host) + " --chakra-device-trace " +
        SharedData(device) + " --rank " + std::to_string(rank) + " --output-file " + output);
    BOOST_REQUIRE_MESSAGE(result.exitCode == 0, "chakra_trace_link failed: " + result.output);
    return output;
}

/** The one file of a directory whose name starts with \p prefix. */
std::string
FindShared(const std::string& folder, const std::string& prefix)
{
    for (const auto& name : chakra_test::ListDir(SharedData(folder)))
    {
        if (name.rfind(prefix, 0) == 0)
        {
            return folder + "/" + name;
        }
    }
    BOOST_FAIL("no " + prefix + "* in " + folder);
    return "";
}

/** Bytes of the tensors in a JSON value. */
uint64_t
TensorBytes(const Json& value)
{
    if (value.is_array() && value.size() == 6 && value[5].is_string() && value[3].is_number())
    {
        return value[3].get<uint64_t>() * value[4].get<uint64_t>();
    }
    uint64_t sum = 0;
    if (value.is_array())
    {
        for (const auto& element : value)
        {
            sum += TensorBytes(element);
        }
    }
    return sum;
}

/** The nccl:/gloo: ops of a host trace in id order: (name, input bytes). */
std::vector<std::pair<std::string, uint64_t>>
BackendOps(const std::string& relative)
{
    Json trace = Json::parse(chakra_test::ReadMaybeGzip(SharedData(relative)));
    std::vector<std::pair<uint64_t, std::pair<std::string, uint64_t>>> ops;
    for (const auto& node : trace["nodes"])
    {
        std::string name = node["name"];
        if (name.rfind("nccl:", 0) == 0 || name.rfind("gloo:", 0) == 0)
        {
            const Json& inputs =
                node["inputs"].is_object() ? node["inputs"]["values"] : node["inputs"];
            ops.push_back({node["id"].get<uint64_t>(), {name, TensorBytes(inputs)}});
        }
    }
    std::sort(ops.begin(), ops.end());
    std::vector<std::pair<std::string, uint64_t>> out;
    for (auto& op : ops)
    {
        out.push_back(op.second);
    }
    return out;
}

/** \return true if the data + ctrl dependencies of the file have no cycle (Kahn) */
bool
Acyclic(const chakra_test::EtFile& et)
{
    std::map<uint64_t, std::size_t> pending;
    std::map<uint64_t, std::vector<uint64_t>> dependents;
    for (const auto& node : et.nodes)
    {
        pending[node.GetId()] = 0;
        for (auto deps : {chakra_test::DataDeps(node), chakra_test::CtrlDeps(node)})
        {
            for (uint64_t dep : deps)
            {
                ++pending[node.GetId()];
                dependents[dep].push_back(node.GetId());
            }
        }
    }
    std::vector<uint64_t> ready;
    for (const auto& [id, count] : pending)
    {
        if (count == 0)
        {
            ready.push_back(id);
        }
    }
    std::size_t done = 0;
    while (!ready.empty())
    {
        uint64_t id = ready.back();
        ready.pop_back();
        ++done;
        for (uint64_t next : dependents[id])
        {
            if (--pending[next] == 0)
            {
                ready.push_back(next);
            }
        }
    }
    return done == et.nodes.size();
}

/** Checks that every GPU op of the linked trace follows the previous one of its stream. */
void
CheckStreamOrder(const Json& linked, const chakra_test::EtFile& et)
{
    std::map<std::pair<int64_t, int64_t>, std::vector<std::pair<double, uint64_t>>> streams;
    for (const auto& node : linked["nodes"])
    {
        if (node.contains("cat"))
        {
            streams[{node.value("device", -1), node["stream"].get<int64_t>()}].push_back(
                {node["ts"].get<double>(), node["id"].get<uint64_t>()});
        }
    }
    for (auto& [key, ops] : streams)
    {
        std::stable_sort(ops.begin(), ops.end(), [](const auto& a, const auto& b) {
            return a.first < b.first;
        });
        for (std::size_t k = 1; k < ops.size(); ++k)
        {
            const auto& node = et.Get(ops[k].second);
            BOOST_TEST(!node.IsCpuOp());
            BOOST_TEST(*node.GetStream() == key.second);
            auto deps = chakra_test::DataDeps(node);
            BOOST_TEST((std::find(deps.begin(), deps.end(), ops[k - 1].second) != deps.end()),
                       node.Describe() << " does not follow node " << ops[k - 1].second
                                       << " of stream " << key.second);
        }
    }
}

} // namespace

BOOST_AUTO_TEST_CASE(dlrm_eight_ranks_linked)
{
    TempDir dir;
    std::vector<std::string> files;
    const std::string folder = "host-device/param-dlrm-8rank";
    for (int rank = 0; rank < 8; ++rank)
    {
        const std::string host = folder + "/dlrm_eg_" + std::to_string(rank) + ".json.gz";
        const std::string device = FindShared(folder, "worker" + std::to_string(rank) + "_");
        const std::string linked = Link(dir, host, device, rank, "dlrm" + std::to_string(rank));
        const std::string output = dir.File("dlrm." + std::to_string(rank) + ".et");
        auto report = TraceConverter().Convert(linked, output);
        auto et = chakra_test::ReadEt(output); // our reader reads it back
        BOOST_TEST(chakra_test::CheckStructure(et) == "");
        BOOST_TEST(Acyclic(et));
        BOOST_TEST(report.rank.value_or(-1) == rank);

        // 5 all-to-all and 3 all-reduce, in program order, sized as the host tensors.
        auto expected = BackendOps(host);
        auto comm = et.CommNodes();
        BOOST_REQUIRE(comm.size() == expected.size());
        BOOST_REQUIRE(comm.size() == 8u);
        std::map<int, int> byType;
        for (std::size_t k = 0; k < comm.size(); ++k)
        {
            const auto& node = comm[k];
            BOOST_REQUIRE(node.GetType() == ChakraProtoMsg::COMM_COLL_NODE);
            ++byType[*node.GetCommType()];
            int want = expected[k].first == "nccl:all_to_all" ? ChakraProtoMsg::ALL_TO_ALL
                                                              : ChakraProtoMsg::ALL_REDUCE;
            BOOST_TEST(static_cast<int>(*node.GetCommType()) == want, node.Describe());
            BOOST_TEST(node.GetCommSize() == expected[k].second, node.Describe());
        }
        BOOST_TEST(byType[ChakraProtoMsg::ALL_TO_ALL] == 5);
        BOOST_TEST(byType[ChakraProtoMsg::ALL_REDUCE] == 3);

        Json linkedJson = Json::parse(chakra_test::ReadMaybeGzip(linked));
        CheckStreamOrder(linkedJson, et);
        // Where the linker attached the NCCL kernels, they are the comm nodes.
        std::size_t ncclKernels = 0;
        for (const auto& node : linkedJson["nodes"])
        {
            ncclKernels +=
                node.contains("cat") && node["name"].get<std::string>().rfind("nccl", 0) == 0;
        }
        if (ncclKernels == comm.size())
        {
            for (const auto& node : comm)
            {
                BOOST_TEST(!node.IsCpuOp(), node.Describe());
                BOOST_TEST(node.GetStream().has_value(), node.Describe());
            }
        }
        BOOST_TEST_MESSAGE("rank " << rank << ": " << report.gpuOps << " GPU ops, "
                                   << report.commFromKernels << " comm nodes from kernels");
        files.push_back(output);
    }
    auto consistency = CheckRankConsistency(files);
    BOOST_TEST(consistency.IsConsistent(), consistency);
}

BOOST_AUTO_TEST_CASE(torch113_gloo_linked)
{
    TempDir dir;
    std::vector<std::string> files;
    const std::string folder = "host-device/torch113-gloo";
    for (int rank = 0; rank < 2; ++rank)
    {
        const std::string host = folder + "/pytorch_et_" + std::to_string(rank) + ".json.gz";
        const std::string device = folder + "/kineto_trace_" + std::to_string(rank) + ".json.gz";
        const std::string linked = Link(dir, host, device, rank, "gloo" + std::to_string(rank));
        const std::string output = dir.File("gloo." + std::to_string(rank) + ".et");
        auto report = TraceConverter().Convert(linked, output);
        auto et = chakra_test::ReadEt(output);
        BOOST_TEST(chakra_test::CheckStructure(et) == "");
        BOOST_TEST(Acyclic(et));
        auto expected = BackendOps(host);
        auto comm = et.CommNodes();
        BOOST_REQUIRE(comm.size() == 4u);
        for (std::size_t k = 0; k < comm.size(); ++k)
        {
            BOOST_TEST(*comm[k].GetCommType() == ChakraProtoMsg::ALL_REDUCE);
            BOOST_TEST(comm[k].IsCpuOp());
            BOOST_TEST(comm[k].GetCommSize() == expected[k].second);
        }
        files.push_back(output);
    }
    BOOST_TEST(CheckRankConsistency(files).IsConsistent());
}
