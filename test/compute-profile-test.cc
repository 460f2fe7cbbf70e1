/*
 * Measured compute profiles: writing one (round trip, atomic), the LLM planner's lookup of
 * ("gemm", MxNxK) rows forward and backward, and the extraction of GEMM times from a hand-made
 * linked trace (keys, medians, what is skipped).
 */
#define BOOST_TEST_MODULE compute_profile
#include "chakra-test-data.h"
#include "llm-test-models.h"

#include "ns3/compute-profile-extract.h"
#include "ns3/compute-profile.h"
#include "ns3/gpu-compute-model.h"
#include "ns3/layer-op-planner.h"
#include "ns3/parallel-layout.h"
#include "ns3/trace-error.h"

#include <boost/test/unit_test.hpp>
#include <filesystem>
#include <stdexcept>

using namespace ns3;
using chakra_test::TempDir;
using chakra_test::WriteFileBytes;

namespace
{

/** \return whether calling \p f throws an E whose message contains \p text */
template <typename E, typename F>
bool
ThrowsWith(F f, const std::string& text)
{
    try
    {
        f();
    }
    catch (const E& e)
    {
        BOOST_TEST_MESSAGE(e.what());
        return std::string(e.what()).find(text) != std::string::npos;
    }
    return false;
}

/** \return the files in \p dir */
std::size_t
CountFiles(const std::string& dir)
{
    std::size_t n = 0;
    for ([[maybe_unused]] const auto& entry : std::filesystem::directory_iterator(dir))
    {
        ++n;
    }
    return n;
}

} // namespace

BOOST_AUTO_TEST_SUITE(writing)

// Write then Read gives the same profile, times that are no short decimal included, and the
// file is the header and the rows sorted by op then shape.
BOOST_AUTO_TEST_CASE(round_trip)
{
    TempDir dir;
    ComputeProfile profile;
    profile.Add("qkv", "64x288x96", 3);
    profile.Add("gemm", "512x1024x1024", 138.5);
    profile.Add("gemm", "16x128x64", 0.1 + 0.2); // 0.30000000000000004
    profile.Add("bmm", "2x16x48x32", 1.0 / 3.0);
    const std::string path = dir.Path() + "/profile.csv";
    profile.Write(path);
    const ComputeProfile back = ComputeProfile::Read(path);
    BOOST_TEST((back == profile));
    BOOST_TEST(back.Micros("gemm", "16x128x64").value() == 0.1 + 0.2);
    BOOST_TEST(chakra_test::ReadFileBytes(path) == "op,shape,micros\n"
                                                   "bmm,2x16x48x32,0.3333333333333333\n"
                                                   "gemm,16x128x64,0.30000000000000004\n"
                                                   "gemm,512x1024x1024,138.5\n"
                                                   "qkv,64x288x96,3\n");
}

// A write into a directory that does not exist fails naming the path, and nothing appears
// there (not even a temporary); an older profile at a path is only replaced by a whole one.
BOOST_AUTO_TEST_CASE(unwritable_path_is_an_error_and_leaves_no_file)
{
    TempDir dir;
    ComputeProfile profile;
    profile.Add("gemm", "1x2x3", 4);
    const std::string missing = dir.Path() + "/no-such-dir/profile.csv";
    BOOST_TEST(ThrowsWith<TraceError>([&] { profile.Write(missing); }, "no-such-dir"));
    BOOST_TEST(!chakra_test::FileExists(missing));
    BOOST_TEST(CountFiles(dir.Path()) == 0u);
    // A path that is a directory: the rename fails, the temporary is removed.
    const std::string taken = dir.Path() + "/taken";
    std::filesystem::create_directory(taken);
    std::filesystem::create_directory(taken + "/x");
    BOOST_CHECK_THROW(profile.Write(taken), TraceError);
    BOOST_TEST(CountFiles(dir.Path()) == 1u);
}

// Add refuses what Read would refuse or could not read back, naming the op and shape.
BOOST_AUTO_TEST_CASE(add_refuses_bad_entries)
{
    ComputeProfile profile;
    profile.Add("gemm", "1x2x3", 4);
    BOOST_TEST(ThrowsWith<std::invalid_argument>([&] { profile.Add("gemm", "1x2x3", 5); },
                                                 "op 'gemm' shape '1x2x3' given twice"));
    BOOST_TEST(ThrowsWith<std::invalid_argument>([&] { profile.Add("gemm", "1x2x4", 0); },
                                                 "not a positive number"));
    BOOST_TEST(ThrowsWith<std::invalid_argument>([&] { profile.Add("gemm", "1x2x4", -1); },
                                                 "not a positive number"));
    for (const char* shape : {"", "1,2", " 1x2", "1x2\n"})
    {
        BOOST_TEST(ThrowsWith<std::invalid_argument>([&] { profile.Add("gemm", shape, 1); },
                                                     "without commas"),
                   "shape '" << shape << "'");
    }
    BOOST_TEST(profile.Size() == 1u);
}

BOOST_AUTO_TEST_SUITE_END()

namespace
{

/**
 * A small dense model whose GEMMs have distinct shapes forward and backward: b x s = 2 x 32 =
 * 64 tokens, hidden 96, 4 heads of 24, a GELU MLP 128 wide, tp 1. Its GEMMs (m x n x k):
 * qkv 64 x 288 x 96 (3 x 4 heads x 24), attention_out 64 x 96 x 96, mlp_up 64 x 128 x 96,
 * mlp_down 64 x 96 x 128.
 */
struct SmallModel
{
    TransformerModel model;
    ParallelLayout layout;
    ComputeTimeModel gpu{LookUpGpuCompute("H100"), Precision::Bf16, 1.0};

    SmallModel()
    {
        // hidden 96, MLP 128, 4 heads of 24.
        model = chakra_test::GeluTransformer("small", 1, 96, 4, 256, 128);
        layout.gpus = 1;
        layout.seq = 32;
        layout.microBatch = 2;
        layout.globalBatch = 2;
        layout = ResolveLayout(layout, {1, 4, 4, 0});
    }

    /** \return the time of op \p name in \p ops */
    static double Micros(const std::vector<LayerOp>& ops, const std::string& name)
    {
        for (const auto& op : ops)
        {
            if (op.name == name)
            {
                return op.micros;
            }
        }
        BOOST_FAIL("no op " << name);
        return 0;
    }
};

} // namespace

BOOST_FIXTURE_TEST_SUITE(planner_lookup, SmallModel)

// A ("gemm", MxNxK) row times the forward GEMM of that shape; a GEMM the profile lacks keeps
// the model's time.
BOOST_AUTO_TEST_CASE(gemm_row_times_a_forward_gemm)
{
    ComputeProfile profile;
    profile.Add("gemm", "64x288x96", 7.5);
    const auto ops = LayerOpPlanner(model, layout, gpu, true, &profile).Forward(0);
    BOOST_TEST(Micros(ops, "qkv_l0") == 7.5);
    BOOST_TEST(Micros(ops, "attention_out_l0") == gpu.GemmMicros(64, 96, 96));
    BOOST_TEST(Micros(ops, "mlp_l0_down") == gpu.GemmMicros(64, 96, 128));
}

// The op's own name wins over the generic row; the layer tag is left out of the name wherever
// it stands ("mlp_l0_up" is looked up as "mlp_up").
BOOST_AUTO_TEST_CASE(named_row_before_gemm_row)
{
    ComputeProfile profile;
    profile.Add("gemm", "64x288x96", 7.5);
    profile.Add("qkv", "64x288x96", 3);
    profile.Add("mlp_up", "64x128x96", 4);
    const auto ops = LayerOpPlanner(model, layout, gpu, true, &profile).Forward(0);
    BOOST_TEST(Micros(ops, "qkv_l0") == 3);
    BOOST_TEST(Micros(ops, "mlp_l0_up") == 4);
}

// A backward GEMM without its own row is its input gradient dX[m,k] = dY[m,n] W^T (gemm
// m x k x n) plus its weight gradient dW[k,n] = X^T dY (gemm k x n x m), each from the
// profile when listed, else modelled; the forward row is not used for either.
BOOST_AUTO_TEST_CASE(backward_is_its_two_gradient_gemms)
{
    ComputeProfile profile;
    profile.Add("gemm", "64x288x96", 7.5);  // qkv forward: not a gradient's shape
    profile.Add("gemm", "64x96x288", 2.25); // qkv input gradient
    auto ops = LayerOpPlanner(model, layout, gpu, true, &profile).Backward(0);
    BOOST_TEST(Micros(ops, "qkv_l0_backward") == 2.25 + gpu.GemmMicros(96, 288, 64));
    profile.Add("gemm", "96x288x64", 5.5); // qkv weight gradient
    ops = LayerOpPlanner(model, layout, gpu, true, &profile).Backward(0);
    BOOST_TEST(Micros(ops, "qkv_l0_backward") == 2.25 + 5.5);
    profile.Add("qkv_backward", "64x288x96", 1);
    ops = LayerOpPlanner(model, layout, gpu, true, &profile).Backward(0);
    BOOST_TEST(Micros(ops, "qkv_l0_backward") == 1);
}

// Without a profile, or with rows of other shapes, every GEMM is the model's.
BOOST_AUTO_TEST_CASE(falls_back_to_the_model)
{
    ComputeProfile other;
    other.Add("gemm", "1x2x3", 9);
    const ComputeProfile* none = nullptr;
    const ComputeProfile* some = &other;
    for (const ComputeProfile* profile : {none, some})
    {
        const LayerOpPlanner planner(model, layout, gpu, true, profile);
        const auto forward = planner.Forward(0);
        const auto backward = planner.Backward(0);
        BOOST_TEST(Micros(forward, "qkv_l0") == gpu.GemmMicros(64, 288, 96));
        BOOST_TEST(Micros(forward, "mlp_l0_up") == gpu.GemmMicros(64, 128, 96));
        BOOST_TEST(Micros(backward, "qkv_l0_backward") ==
                   gpu.GemmMicros(64, 96, 288) + gpu.GemmMicros(96, 288, 64));
        BOOST_TEST(Micros(backward, "mlp_l0_down_backward") ==
                   gpu.GemmMicros(64, 128, 96) + gpu.GemmMicros(128, 96, 64));
    }
}

BOOST_AUTO_TEST_SUITE_END()

namespace
{

/** A host op of a schema 1.0.1 linked trace: its id, parent, name and input shapes. */
std::string
HostNode(int id, int parent, const std::string& name, const std::string& shapes)
{
    return R"({"id": )" + std::to_string(id) + R"(, "parent": )" + std::to_string(parent) +
           R"(, "name": ")" + name + R"(", "tid": 1, "input_shapes": )" + shapes + "}";
}

/** A GPU op under host op \p parent: "cat" \p cat, and "dur" unless \p dur is empty. */
std::string
GpuNode(int id, int parent, const std::string& cat, const std::string& dur)
{
    return R"({"id": )" + std::to_string(id) + R"(, "parent": )" + std::to_string(parent) +
           R"(, "name": "k", "cat": ")" + cat + R"(", "stream": 7)" +
           (dur.empty() ? "" : R"(, "dur": )" + dur) + "}";
}

/** \return a linked trace document of the profiler's roots (1, 2) and \p nodes */
std::string
LinkedTrace(const std::vector<std::string>& nodes)
{
    std::string text =
        R"({"schema": "1.0.1", "nodes": [)"
        R"({"id": 1, "parent": 1, "name": "[pytorch|profiler|execution_trace|process]"},)"
        R"({"id": 2, "parent": 1, "name": "[pytorch|profiler|execution_trace|thread]"})";
    for (const auto& node : nodes)
    {
        text += ",\n" + node;
    }
    return text + R"(], "trace_link": {"version": 1, "rank": 0}})";
}

/**
 * Hand-drawn: every GEMM op, its key and its kernels' time (us).
 *   id  op                     input shapes                  key                  kernels
 *   10  aten::linear           [4,8,64] [32,64] [32]         gemm 32x32x64        via 12: 10+2
 *   12   aten::addmm (nested)  [32] [32,64] [64,32]          -                    10, 2, memset 1
 *   20-24 aten::mm x5          [16,64] [64,128]              gemm 16x128x64       90 5 7 6 6
 *   30  aten::addmm            [256] [8,32] [32,256]         gemm 8x256x32        4
 *   40  aten::matmul           [2,3,16,32] [32,48]           gemm 96x48x32        via 41: 9
 *   41   aten::mm (nested)     [96,32] [32,48]               -                    9
 *   50  aten::matmul batched   [2,16,32] [2,32,48]           none (skipped)       -
 *   51   aten::bmm             [2,16,32] [2,32,48]           bmm 2x16x48x32       11
 *   60  aten::mm, no kernel    [16,64] [64,128]              (skipped)            -
 *   61  aten::mm, kernel w/o dur                             (skipped)            no dur
 *   62  aten::linear 1-D input [64] [32,64] [32]             none (skipped)       -
 *   63  aten::mm, K differs    [16,64] [32,128]              none (skipped)       -
 *   70  aten::add                                            not a GEMM           3
 * Medians: 16x128x64 over 90 5 7 6 6 -> 6 (the first call's 90 is the outlier a mean would
 * keep: 22.8).
 */
std::string
HandTrace()
{
    std::vector<std::string> n = {
        HostNode(10, 2, "aten::linear", "[[4,8,64],[32,64],[32]]"),
        HostNode(11, 10, "aten::t", "[[32,64]]"),
        HostNode(12, 10, "aten::addmm", "[[32],[32,64],[64,32],[],[]]"),
        GpuNode(13, 12, "gpu_memset", "1"),
        GpuNode(14, 12, "kernel", "10"),
        GpuNode(15, 12, "kernel", "2"),
    };
    const char* mmDurations[] = {"90", "5", "7", "6", "6"};
    for (int i = 0; i < 5; ++i)
    {
        n.push_back(HostNode(20 + i, 2, "aten::mm", "[[16,64],[64,128]]"));
        n.push_back(GpuNode(100 + i, 20 + i, "kernel", mmDurations[i]));
    }
    n.push_back(HostNode(30, 2, "aten::addmm", "[[256],[8,32],[32,256],[],[]]"));
    n.push_back(GpuNode(31, 30, "kernel", "4"));
    n.push_back(HostNode(40, 2, "aten::matmul", "[[2,3,16,32],[32,48]]"));
    n.push_back(HostNode(41, 40, "aten::mm", "[[96,32],[32,48]]"));
    n.push_back(GpuNode(42, 41, "kernel", "9"));
    n.push_back(HostNode(50, 2, "aten::matmul", "[[2,16,32],[2,32,48]]"));
    n.push_back(HostNode(51, 50, "aten::bmm", "[[2,16,32],[2,32,48]]"));
    n.push_back(GpuNode(52, 51, "kernel", "11"));
    n.push_back(HostNode(60, 2, "aten::mm", "[[16,64],[64,128]]"));
    n.push_back(HostNode(61, 2, "aten::mm", "[[16,64],[64,128]]"));
    n.push_back(GpuNode(64, 61, "kernel", ""));
    n.push_back(HostNode(62, 2, "aten::linear", "[[64],[32,64],[32]]"));
    n.push_back(HostNode(63, 2, "aten::mm", "[[16,64],[32,128]]"));
    n.push_back(HostNode(70, 2, "aten::add", "[[16,64],[16,64],[]]"));
    n.push_back(GpuNode(71, 70, "kernel", "3"));
    return LinkedTrace(n);
}

} // namespace

BOOST_AUTO_TEST_SUITE(extraction)

// The hand-made linked trace gives the hand-drawn rows and medians, and counts what it skips.
BOOST_AUTO_TEST_CASE(gemm_rows_and_medians_of_a_linked_trace)
{
    TempDir dir;
    const std::string path = dir.Path() + "/linked.json";
    WriteFileBytes(path, HandTrace());
    ComputeProfileExtractor extractor;
    extractor.AddFile(path);
    ComputeProfile expected;
    expected.Add("gemm", "32x32x64", 12);
    expected.Add("gemm", "16x128x64", 6);
    expected.Add("gemm", "8x256x32", 4);
    expected.Add("gemm", "96x48x32", 9);
    expected.Add("bmm", "2x16x48x32", 11);
    const ComputeProfile profile = extractor.GetProfile();
    BOOST_TEST((profile == expected));
    for (const auto& [key, micros] : profile.GetEntries())
    {
        BOOST_TEST_MESSAGE(key.first << "," << key.second << "," << micros);
    }
    const ProfileExtractCounts& counts = extractor.GetCounts();
    BOOST_TEST(counts.traces == 1u);
    BOOST_TEST(counts.gemmOps == 9u);      // 10, 20-24, 30, 40, 51
    BOOST_TEST(counts.nestedInGemm == 2u); // 12, 41
    BOOST_TEST(counts.shapeUnknown == 3u); // 50, 62, 63
    BOOST_TEST(counts.noKernelTime == 2u); // 60, 61
}

// The ranks' samples pool: one rank's 3 us and another's 4 us give 3.5 (two samples: the mean
// of the middle two); a rank of the "-chakra" schema (ctrl_deps, inputs.shapes) reads too.
BOOST_AUTO_TEST_CASE(ranks_pool_and_chakra_schema_reads)
{
    ComputeProfileExtractor extractor;
    extractor.AddTrace(HostJson::parse(LinkedTrace({HostNode(10, 2, "aten::mm", "[[8,8],[8,8]]"),
                                                    GpuNode(11, 10, "kernel", "3")})),
                       "rank0");
    extractor.AddTrace(HostJson::parse(R"({"schema": "1.0.2-chakra.0.0.4", "nodes": [
        {"id": 1, "ctrl_deps": 1, "name": "[pytorch|profiler|execution_trace|process]"},
        {"id": 10, "ctrl_deps": 1, "name": "aten::mm",
         "inputs": {"values": [], "shapes": [[8, 8], [8, 8]], "types": []}, "attrs": []},
        {"id": 11, "ctrl_deps": 10, "name": "k", "cat": "kernel", "dur": 4.0}]})"),
                       "rank1");
    BOOST_TEST(extractor.GetProfile().Micros("gemm", "8x8x8").value() == 3.5);
    BOOST_TEST(extractor.GetCounts().traces == 2u);
}

// Each aten op's inputs map to C[M,N] = A[M,K] B[K,N] as the header states.
BOOST_AUTO_TEST_CASE(keys_of_each_aten_op)
{
    const ProfileKey gemm{"gemm", "6x5x4"};
    BOOST_TEST((GemmProfileKey("aten::mm", {{6, 4}, {4, 5}}) == gemm));
    BOOST_TEST((GemmProfileKey("aten::addmm", {{5}, {6, 4}, {4, 5}, {}, {}}) == gemm));
    BOOST_TEST((GemmProfileKey("aten::linear", {{2, 3, 4}, {5, 4}, {5}}) == gemm));
    BOOST_TEST((GemmProfileKey("aten::matmul", {{3, 2, 4}, {4, 5}}) == gemm));
    BOOST_TEST(
        (GemmProfileKey("aten::bmm", {{3, 2, 4}, {3, 4, 5}}) == ProfileKey{"bmm", "3x2x5x4"}));
    BOOST_TEST(!GemmProfileKey("aten::mm", {{6, 4}, {3, 5}}).has_value());
    BOOST_TEST(!GemmProfileKey("aten::linear", {{2, 3, 4}, {4, 5}}).has_value()); // W is [N,K]
    BOOST_TEST(!GemmProfileKey("aten::matmul", {{4}, {4, 5}}).has_value());
    BOOST_TEST(!GemmProfileKey("aten::mm", {{0, 4}, {4, 5}}).has_value());
    BOOST_TEST(!GemmProfileKey("aten::mm", {}).has_value());
    BOOST_TEST(!GemmProfileKey("aten::add", {{6, 4}, {4, 5}}).has_value());
}

// A file that is no linked trace is an error naming it.
BOOST_AUTO_TEST_CASE(bad_file_named)
{
    TempDir dir;
    const std::string path = dir.Path() + "/not-linked.json";
    WriteFileBytes(path, R"({"traceEvents": []})");
    ComputeProfileExtractor extractor;
    BOOST_TEST(ThrowsWith<TraceError>([&] { extractor.AddFile(path); },
                                      "not-linked.json: a linked trace needs a \"nodes\" list"));
    WriteFileBytes(path, R"({"nodes": [)");
    BOOST_CHECK_THROW(extractor.AddFile(path), TraceError);
}

BOOST_AUTO_TEST_SUITE_END()
