/*
 * TraceLinker on the shared real traces (../shared/data/host-device). Expected values are
 * computed here from the input files themselves, by brute force and by rules independent of the
 * linker's matching (External ids, sequence numbers, name counts, time containment).
 */
#define BOOST_TEST_MODULE trace_linker_real_data
#include "chakra-test-data.h"
#include "linked-trace-check.h"

#include "ns3/trace-linker.h"

#include <algorithm>
#include <boost/test/unit_test.hpp>
#include <map>
#include <set>

using namespace ns3;
using Json = nlohmann::ordered_json;
using RequireSharedData = chakra_test::RequireSharedData;
BOOST_TEST_GLOBAL_FIXTURE(RequireSharedData);

namespace
{

Json
Load(const std::string& relative)
{
    return Json::parse(chakra_test::ReadMaybeGzip(chakra_test::SharedData(relative)));
}

LinkResult
LinkShared(const std::string& host, const std::string& device, int64_t rank)
{
    return TraceLinker().Link(chakra_test::SharedData(host), chakra_test::SharedData(device), rank);
}

bool
IsCpuOp(const Json& e)
{
    return e.value("ph", "") == "X" &&
           (e.value("cat", "") == "cpu_op" || e.value("cat", "") == "user_annotation");
}

bool
IsGpuOp(const Json& e)
{
    const std::string cat = e.value("cat", "");
    return e.value("ph", "") == "X" &&
           (cat == "kernel" || cat == "gpu_memcpy" || cat == "gpu_memset");
}

/** The Kineto side of a pair, indexed the obvious way. */
struct Device
{
    std::vector<Json> cpu;
    std::vector<Json> gpu;
    std::map<long long, Json> runtimeByCorrelation;

    explicit Device(const Json& trace)
    {
        for (const auto& e : trace["traceEvents"])
        {
            if (IsCpuOp(e))
            {
                cpu.push_back(e);
            }
            else if (IsGpuOp(e))
            {
                gpu.push_back(e);
            }
            else if (e.value("cat", "") == "cuda_runtime" || e.value("cat", "") == "cuda_driver")
            {
                runtimeByCorrelation[e["args"]["correlation"].get<long long>()] = e;
            }
        }
    }

    /** \return the CPU ops of \p tid whose [ts, ts + dur] contains t, innermost first */
    std::vector<const Json*> Enclosing(const Json& tid, double t) const
    {
        std::vector<const Json*> found;
        for (const auto& e : cpu)
        {
            double ts = e["ts"].get<double>();
            if (e["tid"] == tid && ts <= t && t <= ts + e["dur"].get<double>())
            {
                found.push_back(&e);
            }
        }
        std::sort(found.begin(), found.end(), [](const Json* a, const Json* b) {
            return (*a)["dur"].get<double>() < (*b)["dur"].get<double>();
        });
        return found;
    }
};

/** Output nodes by id, and GPU nodes by correlation. */
struct Output
{
    std::map<long long, const Json*> byId;
    std::map<long long, const Json*> gpuByCorrelation;

    explicit Output(const Json& trace)
    {
        for (const auto& node : trace["nodes"])
        {
            byId[node["id"].get<long long>()] = &node;
            if (node.contains("cat"))
            {
                gpuByCorrelation[node["correlation"].get<long long>()] = &node;
            }
        }
    }

    const Json& Parent(const Json& node) const
    {
        return *byId.at(chakra_test::ParentOf(node));
    }
};

/** \return the k-th host node named \p name in id order */
const Json*
NthHostNode(const Json& host, const std::string& name, std::size_t k)
{
    std::vector<const Json*> nodes;
    for (const auto& node : host["nodes"])
    {
        if (node["name"] == name)
        {
            nodes.push_back(&node);
        }
    }
    std::sort(nodes.begin(), nodes.end(), [](const Json* a, const Json* b) {
        return (*a)["id"].get<long long>() < (*b)["id"].get<long long>();
    });
    return k < nodes.size() ? nodes[k] : nullptr;
}

/** \return the name of the first operator node (after the profiler's own nodes) */
const std::string*
NthHostName(const Json& trace)
{
    for (const auto& node : trace["nodes"])
    {
        if (node["name"].get<std::string>().rfind("[pytorch|profiler|", 0) != 0)
        {
            return &node["name"].get_ref<const std::string&>();
        }
    }
    return nullptr;
}

} // namespace

BOOST_AUTO_TEST_CASE(hta_simple_add_kernels_go_to_their_launching_ops)
{
    const std::string dir = "host-device/hta-simple-add/";
    LinkResult r = LinkShared(dir + "benchmark_simple_add_et.json.gz",
                              dir + "benchmark_simple_add_trace.json.gz",
                              0);
    BOOST_TEST(chakra_test::CheckLinkedTrace(r.trace) == "");
    Json host = Load(dir + "benchmark_simple_add_et.json.gz");
    Device device(Load(dir + "benchmark_simple_add_trace.json.gz"));

    // In this pair a Kineto CPU op's External id is the host node's rf_id (checked here for
    // every op), which gives an expected answer that does not use order matching.
    std::map<long long, std::string> hostNameByRf;
    for (const auto& node : host["nodes"])
    {
        hostNameByRf[node["rf_id"].get<long long>()] = node["name"];
    }
    std::map<long long, const Json*> cpuByExternal;
    for (const auto& e : device.cpu)
    {
        long long ext = e["args"]["External id"].get<long long>();
        BOOST_TEST(hostNameByRf[ext] == e["name"].get<std::string>());
        cpuByExternal[ext] = &e;
    }
    BOOST_TEST(r.summary.hostOpsLinked == 36u);
    for (const auto& node : r.trace["nodes"])
    {
        if (node.contains("ts") && !node.contains("cat"))
        {
            const auto& e = *cpuByExternal.at(node["rf_id"].get<long long>());
            BOOST_TEST(node["ts"] == e["ts"]);
            BOOST_TEST(node["inclusive_dur"] == e["dur"]);
        }
    }

    Output out(r.trace);
    BOOST_TEST(device.gpu.size() == 4u);
    BOOST_TEST(r.summary.gpuOpsAttached == 4u);
    for (const auto& kernel : device.gpu)
    {
        long long correlation = kernel["args"]["correlation"].get<long long>();
        const auto& launcher = device.runtimeByCorrelation.at(correlation);
        auto enclosing = device.Enclosing(launcher["tid"], launcher["ts"].get<double>());
        BOOST_REQUIRE(!enclosing.empty());
        long long expectedRf = (*enclosing.front())["args"]["External id"].get<long long>();
        BOOST_REQUIRE(out.gpuByCorrelation.count(correlation) == 1u);
        const Json& gpu = *out.gpuByCorrelation[correlation];
        BOOST_TEST(gpu["ts"] == kernel["ts"]);
        BOOST_TEST(gpu["dur"] == kernel["dur"]);
        BOOST_TEST(gpu["stream"] == kernel["args"]["stream"]);
        BOOST_TEST(out.Parent(gpu)["rf_id"] == expectedRf, "kernel " << correlation);
    }
}

BOOST_AUTO_TEST_CASE(param_linear_links_the_traced_iteration)
{
    const std::string dir = "host-device/param-linear/";
    LinkResult r = LinkShared(dir + "linear_et.json.gz", dir + "linear_kineto.json.gz", 0);
    BOOST_TEST(chakra_test::CheckLinkedTrace(r.trace) == "");
    Json host = Load(dir + "linear_et.json.gz");
    Json kineto = Load(dir + "linear_kineto.json.gz");
    Device device(kineto);

    std::size_t kernels = 0;
    for (const auto& e : device.gpu)
    {
        kernels += e["cat"] == "kernel";
    }
    BOOST_TEST(kernels == 8716u);
    BOOST_TEST(r.summary.gpuOpsByKind[0] == kernels);
    BOOST_TEST(r.summary.hostOps == 928u);
    BOOST_TEST(r.summary.hostOpsLinked == 928u);

    // The Kineto trace holds 40 iterations, the host trace one. Which one: the Kineto
    // aten::linear whose "Sequence number" is the host's first aten::linear's seq_id starts it,
    // the next Optimizer.step ends it.
    const auto* firstLinear = NthHostNode(host, "aten::linear", 0);
    BOOST_REQUIRE(firstLinear != nullptr);
    const long long seq = (*firstLinear)["seq_id"].get<long long>();
    double start = -1;
    for (const auto& e : device.cpu)
    {
        if (e["name"] == "aten::linear" && e["args"].value("Sequence number", -1LL) == seq)
        {
            start = e["ts"].get<double>();
        }
    }
    BOOST_REQUIRE(start > 0);
    double end = 1e300;
    for (const auto& e : device.cpu)
    {
        if (e["name"] == "Optimizer.step#SGD.step" && e["ts"].get<double>() > start)
        {
            end = std::min(end, e["ts"].get<double>() + e["dur"].get<double>());
        }
    }
    BOOST_TEST(Json(r.trace["nodes"])[0]["id"] == 1);
    Output out(r.trace);
    std::set<long long> expected;
    std::size_t expectedMemsets = 0;
    for (const auto& e : device.gpu)
    {
        long long correlation = e["args"]["correlation"].get<long long>();
        double launch = device.runtimeByCorrelation.at(correlation)["ts"].get<double>();
        if (launch >= start && launch <= end)
        {
            expected.insert(correlation);
            expectedMemsets += e["cat"] == "gpu_memset";
        }
    }
    std::size_t attached = 0;
    std::size_t memsets = 0;
    for (const auto& [correlation, gpu] : out.gpuByCorrelation)
    {
        BOOST_TEST(expected.count(correlation) == 1u,
                   "attached outside the iteration: " << correlation);
        attached += expected.count(correlation);
        memsets += (*gpu)["cat"] == "gpu_memset";
        // Its parent is the innermost Kineto op around the launcher (by name).
        const auto& launcher = device.runtimeByCorrelation.at(correlation);
        auto enclosing = device.Enclosing(launcher["tid"], launcher["ts"].get<double>());
        BOOST_REQUIRE(!enclosing.empty());
        BOOST_TEST(out.Parent(*gpu)["name"] == (*enclosing.front())["name"]);
    }
    BOOST_TEST_MESSAGE("param-linear: " << attached << " of " << expected.size()
                                        << " GPU ops launched in the traced iteration attached ("
                                        << kernels << " kernels in 40 iterations)");
    BOOST_TEST(expected.size() > 200u);
    BOOST_TEST(attached * 100 >= expected.size() * 99);
    BOOST_TEST(expectedMemsets > 0u);
    BOOST_TEST(memsets == expectedMemsets);
    // The host's first aten::linear got the Kineto start of that iteration.
    for (const auto& node : r.trace["nodes"])
    {
        if (node["name"] == "aten::linear")
        {
            BOOST_TEST(node["ts"].get<double>() == start);
            break;
        }
    }
}

BOOST_AUTO_TEST_CASE(param_dlrm_every_rank)
{
    const std::string dir = "host-device/param-dlrm-8rank/";
    const std::vector<std::string> files = chakra_test::ListDir(chakra_test::SharedData(dir));
    for (int rank = 0; rank < 8; ++rank)
    {
        std::string hostFile = dir + "dlrm_eg_" + std::to_string(rank) + ".json.gz";
        std::string deviceFile;
        for (const auto& name : files)
        {
            if (name.rfind("worker" + std::to_string(rank) + "_", 0) == 0)
            {
                deviceFile = dir + name;
            }
        }
        BOOST_REQUIRE(!deviceFile.empty());
        BOOST_TEST_CONTEXT("rank " << rank)
        {
            LinkResult r = LinkShared(hostFile, deviceFile, rank);
            BOOST_TEST(chakra_test::CheckLinkedTrace(r.trace) == "");
            BOOST_TEST(r.summary.warnings.empty());
            Json host = Load(hostFile);
            Device device(Load(deviceFile));
            Output out(r.trace);

            std::set<long long> withLauncher;
            std::set<long long> withoutLauncher;
            for (const auto& e : device.gpu)
            {
                long long c = e["args"]["correlation"].get<long long>();
                (device.runtimeByCorrelation.count(c) ? withLauncher : withoutLauncher).insert(c);
            }
            std::size_t attached = 0;
            for (long long c : withLauncher)
            {
                attached += out.gpuByCorrelation.count(c);
            }
            BOOST_TEST(attached * 100 >= withLauncher.size() * 99);
            BOOST_TEST(withoutLauncher.size() == (rank == 1 || rank == 3 ? 64u : 0u));
            std::size_t noLauncher = 0;
            for (const auto& op : r.summary.unmatched)
            {
                if (op.kind == UnmatchedOp::Kind::GPU)
                {
                    BOOST_TEST(op.reasonCode == "no-launcher");
                    BOOST_TEST(withoutLauncher.count(op.correlation) == 1u);
                    ++noLauncher;
                }
            }
            BOOST_TEST(noLauncher == withoutLauncher.size());
            for (long long c : withoutLauncher)
            {
                BOOST_TEST(out.gpuByCorrelation.count(c) == 0u); // never attached by guess
            }

            // NCCL kernels: under the host op of the same collective call, found here as the
            // k-th Kineto op of that name around the launcher <-> the k-th host node of that
            // name.
            std::map<std::string, std::vector<double>> kinetoStarts;
            for (const auto& e : device.cpu)
            {
                kinetoStarts[e["name"].get<std::string>()].push_back(e["ts"].get<double>());
            }
            for (auto& [name, starts] : kinetoStarts)
            {
                std::sort(starts.begin(), starts.end());
            }
            const std::set<std::string> commOps = {"nccl:all_to_all",
                                                   "nccl:all_reduce",
                                                   "record_param_comms"};
            std::size_t sendRecv = 0;
            std::size_t allReduce = 0;
            for (const auto& e : device.gpu)
            {
                const std::string name = e["name"];
                if (name.find("ncclKernel") == std::string::npos)
                {
                    continue;
                }
                sendRecv += name.find("ncclKernel_SendRecv") == 0;
                allReduce += name.find("ncclKernel_AllReduce") == 0;
                long long c = e["args"]["correlation"].get<long long>();
                const auto& launcher = device.runtimeByCorrelation.at(c);
                const Json* call = nullptr;
                for (auto* op : device.Enclosing(launcher["tid"], launcher["ts"].get<double>()))
                {
                    if (commOps.count((*op)["name"]) != 0)
                    {
                        call = op;
                        break;
                    }
                }
                BOOST_REQUIRE(call != nullptr);
                const std::string callName = (*call)["name"];
                const auto& starts = kinetoStarts[callName];
                std::size_t k =
                    std::lower_bound(starts.begin(), starts.end(), (*call)["ts"].get<double>()) -
                    starts.begin();
                const Json* hostCall = NthHostNode(host, callName, k);
                BOOST_REQUIRE(hostCall != nullptr);
                BOOST_REQUIRE(out.gpuByCorrelation.count(c) == 1u);
                const Json* node = out.gpuByCorrelation[c];
                BOOST_TEST(commOps.count(out.Parent(*node)["name"].get<std::string>()) == 1u);
                bool found = false;
                for (int up = 0; up < 3 && !found; ++up)
                {
                    node = &out.Parent(*node);
                    found = (*node)["rf_id"] == (*hostCall)["rf_id"] && (*node)["name"] == callName;
                }
                BOOST_TEST(found,
                           name << " (correlation " << c << ") not under " << callName << " #"
                                << k);
            }
            BOOST_TEST(sendRecv == 5u);
            BOOST_TEST(allReduce == 3u);
        }
    }
}

BOOST_AUTO_TEST_CASE(torch113_gloo_host_ops_get_legacy_timings)
{
    for (int rank = 0; rank < 2; ++rank)
    {
        const std::string dir = "host-device/torch113-gloo/";
        const std::string hostFile = dir + "pytorch_et_" + std::to_string(rank) + ".json.gz";
        const std::string deviceFile = dir + "kineto_trace_" + std::to_string(rank) + ".json.gz";
        BOOST_TEST_CONTEXT("rank " << rank)
        {
            LinkResult r = LinkShared(hostFile, deviceFile, rank);
            BOOST_TEST(chakra_test::CheckLinkedTrace(r.trace) == "");
            BOOST_TEST(r.summary.legacyDeviceTrace);
            Json legacy = Load(deviceFile);
            BOOST_REQUIRE(legacy.is_array());
            // Expected: the k-th host op of a name <-> the k-th event of that name inside
            // ProfilerStep#0 (any thread: gloo runs its collectives on worker threads).
            double stepStart = 0;
            double stepEnd = 0;
            for (const auto& e : legacy)
            {
                if (e["name"] == "ProfilerStep#0")
                {
                    stepStart = e["ts"].get<double>();
                    stepEnd = stepStart + e["dur"].get<double>();
                }
            }
            BOOST_REQUIRE(stepEnd > stepStart);
            // The execution-trace observer starts with the host's first op: the profiler's own
            // ops at the very start of the step (an aten::empty) are not in the host trace.
            const std::string firstName = *NthHostName(r.trace);
            double windowStart = stepEnd;
            for (const auto& e : legacy)
            {
                double ts = e["ts"].get<double>();
                if (e["name"] == firstName && ts >= stepStart && ts < windowStart)
                {
                    windowStart = ts;
                }
            }
            std::map<std::string, std::vector<const Json*>> events;
            for (const auto& e : legacy)
            {
                double ts = e["ts"].get<double>();
                if (ts >= windowStart && ts <= stepEnd && e["name"] != "ProfilerStep#0")
                {
                    events[e["name"]].push_back(&e);
                }
            }
            for (auto& [name, list] : events)
            {
                std::stable_sort(list.begin(), list.end(), [](const Json* a, const Json* b) {
                    return (*a)["ts"].get<double>() < (*b)["ts"].get<double>();
                });
            }
            std::map<std::string, std::size_t> seen;
            std::size_t checked = 0;
            for (const auto& node : r.trace["nodes"])
            {
                const std::string name = node["name"];
                if (name.rfind("[pytorch|profiler|", 0) == 0)
                {
                    continue;
                }
                std::size_t k = seen[name]++;
                BOOST_REQUIRE(k < events[name].size());
                BOOST_TEST(node["ts"] == (*events[name][k])["ts"], name << " #" << k);
                BOOST_TEST(node["inclusive_dur"] == (*events[name][k])["dur"], name << " #" << k);
                ++checked;
            }
            BOOST_TEST(checked == 146u);
            BOOST_TEST(r.summary.hostOpsLinked == 146u);
        }
    }
}

BOOST_AUTO_TEST_CASE(tool_links_a_real_pair)
{
    chakra_test::TempDir dir;
    const std::string base = chakra_test::SharedData("host-device/hta-simple-add/");
    auto result = chakra_test::RunCommand(
        chakra_test::ToolPath("chakra_trace_link") + " --chakra-host-trace " + base +
        "benchmark_simple_add_et.json.gz --chakra-device-trace " + base +
        "benchmark_simple_add_trace.json.gz --rank 0 --output-file " + dir.File("out.json.gz"));
    BOOST_TEST(result.exitCode == 0);
    BOOST_TEST(result.output.find("GPU ops attached: 4 of 4") != std::string::npos);
    auto trace = Json::parse(chakra_test::ReadMaybeGzip(dir.File("out.json.gz")));
    BOOST_TEST(chakra_test::CheckLinkedTrace(trace) == "");
}
