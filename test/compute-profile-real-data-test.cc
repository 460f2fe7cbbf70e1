/*
 * The compute profile chakra_replay's pipeline writes from the shared real traces, checked
 * against GEMM times computed here from the raw Kineto JSON. Skipped (exit 77) when
 * ../shared/data is absent.
 */
#define BOOST_TEST_MODULE compute_profile_real_data
#include "chakra-test-data.h"

#include "ns3/compute-profile-extract.h"
#include "ns3/compute-profile.h"
#include "ns3/rank-trace-discovery.h"
#include "ns3/replay-pipeline.h"
#include "ns3/trace-file.h"

#include <algorithm>
#include <boost/test/unit_test.hpp>
#include <chrono>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <unordered_map>

using namespace ns3;
using chakra_test::TempDir;
using Json = nlohmann::json;

using RequireSharedData = chakra_test::RequireSharedData;
BOOST_TEST_GLOBAL_FIXTURE(RequireSharedData);

namespace
{

/** \return the file parsed */
Json
Load(const std::string& path)
{
    return Json::parse(ReadWholeFile(path));
}

/** \return the key of a linear / addmm / mm host node, written out again: C[M,N] = A[M,K] B[K,N] */
std::string
HandKey(const Json& node)
{
    const Json& s = node["input_shapes"];
    const std::string name = node["name"];
    std::vector<int64_t> a;
    int64_t n = 0;
    if (name == "aten::linear") // input [..., K], weight [N, K]
    {
        a = s[0].get<std::vector<int64_t>>();
        n = s[1][0];
    }
    else // addmm(bias, A, B) or mm(A, B)
    {
        const std::size_t first = name == "aten::addmm" ? 1 : 0;
        a = s[first].get<std::vector<int64_t>>();
        n = s[first + 1][1];
    }
    int64_t m = 1;
    for (std::size_t i = 0; i + 1 < a.size(); ++i)
    {
        m *= a[i];
    }
    return std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(a.back());
}

/** \return the median of \p v (mean of the middle two for an even count) */
double
Median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return v.size() % 2 == 1 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

/**
 * The GEMM times of one rank from the raw Kineto trace: for each outermost GEMM host op the
 * linker matched (its "ts" is its Kineto op's), the runtime calls on the op's thread inside
 * the Kineto op's span, their kernels by correlation id, summed; per key the median.
 */
std::map<std::string, double>
KinetoGemmMedians(const Json& linked, const Json& kineto)
{
    const std::set<std::string> gemm = {"aten::linear", "aten::addmm", "aten::mm"};
    std::unordered_map<uint64_t, const Json*> byId;
    for (const auto& node : linked["nodes"])
    {
        byId[node["id"].get<uint64_t>()] = &node;
    }
    // Kineto's CPU ops by (name, ts); runtime calls by thread; kernel time by correlation.
    std::map<std::pair<std::string, double>, const Json*> cpuOps;
    std::map<int64_t, std::vector<std::pair<double, int64_t>>> calls; // tid -> (ts, correlation)
    std::unordered_map<int64_t, double> kernelDur;
    for (const auto& e : kineto["traceEvents"])
    {
        const std::string cat = e.value("cat", "");
        if (cat == "cpu_op")
        {
            cpuOps[{e["name"].get<std::string>(), e["ts"].get<double>()}] = &e;
        }
        else if (cat == "cuda_runtime")
        {
            calls[e["tid"].get<int64_t>()].emplace_back(e["ts"].get<double>(),
                                                        e["args"]["correlation"].get<int64_t>());
        }
        else if (cat == "kernel")
        {
            kernelDur[e["args"]["correlation"].get<int64_t>()] += e["dur"].get<double>();
        }
    }
    std::map<std::string, std::vector<double>> samples;
    for (const auto& node : linked["nodes"])
    {
        if (node.contains("cat") || !gemm.count(node["name"]) || !node.contains("ts"))
        {
            continue;
        }
        bool outermost = true;
        for (uint64_t p = node["parent"]; byId.count(p) && outermost;)
        {
            const Json& parent = *byId[p];
            outermost = !gemm.count(parent["name"]);
            if (parent["parent"] == p)
            {
                break; // the profiler's process node
            }
            p = parent["parent"];
        }
        if (!outermost)
        {
            continue;
        }
        const Json& op = *cpuOps.at({node["name"].get<std::string>(), node["ts"].get<double>()});
        const double start = op["ts"];
        const double end = start + op["dur"].get<double>();
        double sum = 0;
        for (const auto& [ts, correlation] : calls[op["tid"].get<int64_t>()])
        {
            if (ts >= start && ts <= end && kernelDur.count(correlation))
            {
                sum += kernelDur[correlation];
            }
        }
        samples[HandKey(node)].push_back(sum);
    }
    std::map<std::string, double> medians;
    for (const auto& [key, values] : samples)
    {
        medians[key] = Median(values);
    }
    return medians;
}

} // namespace

// param-linear (one rank, fp32 linear layers forward and backward): the profile the pipeline
// writes holds, for every GEMM shape, the median that the raw Kineto trace gives for the ops
// the linker matched: the same rows, the same microseconds.
BOOST_AUTO_TEST_CASE(linear_profile_matches_kineto_kernels)
{
    TempDir out;
    const std::string dir = chakra_test::SharedData("host-device/param-linear");
    ReplayPipeline pipeline(out.Path());
    pipeline.Prepare(DiscoverRankTraces(dir));
    BOOST_REQUIRE(pipeline.GetProfilePath() == out.Path() + "/profile.csv");
    const ComputeProfile profile = ComputeProfile::Read(pipeline.GetProfilePath());

    // What the pipeline adds to a link: the extraction from the document in memory (here
    // read again from the linked file first).
    const std::string linked = out.Path() + "/linked/trace.0.json.gz";
    const HostJson document = HostJson::parse(ReadWholeFile(linked));
    const auto start = std::chrono::steady_clock::now();
    ComputeProfileExtractor again;
    again.AddTrace(document, linked);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    BOOST_TEST_MESSAGE("param-linear: " << again.Summary() << "; extracted from "
                                        << document["nodes"].size() << " nodes in " << seconds
                                        << " s");
    BOOST_TEST((again.GetProfile() == profile));

    const auto hand = KinetoGemmMedians(Load(out.Path() + "/linked/trace.0.json.gz"),
                                        Load(dir + "/linear_kineto.json.gz"));
    BOOST_REQUIRE(!hand.empty());
    BOOST_TEST(profile.Size() == hand.size());
    for (const auto& [shape, micros] : hand)
    {
        BOOST_TEST_MESSAGE("gemm," << shape << "," << micros);
        BOOST_TEST(profile.Micros("gemm", shape).value_or(-1) == micros, shape);
    }
}

// DLRM, 8 ranks: every rank's linked trace is pooled into one profile of gemm and bmm rows.
BOOST_AUTO_TEST_CASE(dlrm_ranks_pooled)
{
    TempDir out;
    ReplayPipeline pipeline(out.Path());
    pipeline.Prepare(DiscoverRankTraces(chakra_test::SharedData("host-device/param-dlrm-8rank")));
    const ComputeProfile profile = ComputeProfile::Read(pipeline.GetProfilePath());
    ComputeProfileExtractor pooled;
    for (int rank = 0; rank < 8; ++rank)
    {
        pooled.AddFile(out.Path() + "/linked/trace." + std::to_string(rank) + ".json.gz");
    }
    BOOST_TEST_MESSAGE("param-dlrm-8rank: " << pooled.Summary());
    BOOST_TEST(pooled.GetCounts().traces == 8u);
    BOOST_TEST((pooled.GetProfile() == profile));
    bool bmm = false;
    for (const auto& [key, samples] : pooled.GetSamples())
    {
        // The 8 ranks run the same dense layers: each shape is timed on every rank.
        BOOST_TEST(samples.size() % 8 == 0u, key.first << " " << key.second);
        bmm = bmm || key.first == "bmm";
    }
    BOOST_TEST(bmm);
}
