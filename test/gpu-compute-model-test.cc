/*
 * The GPU compute model of the LLM workload: datasheet figures looked up by name, the roofline
 * and its size-dependent GEMM efficiency against formulas written out here, flash attention's
 * causal and backward factors, the efficiency scale, argument checks, the measured-profile CSV
 * reader, and one layer's implied TFLOP/s against published H100 measurements.
 */
#define BOOST_TEST_MODULE gpu_compute_model
#include "chakra-test-data.h"

#include "ns3/compute-profile.h"
#include "ns3/gpu-compute-model.h"

#include <boost/test/unit_test.hpp>
#include <stdexcept>

using namespace ns3;
using chakra_test::TempDir;
using chakra_test::WriteFileBytes;

namespace
{

// The constants gpu-compute-model.cc states (and cites): the top GEMM efficiency, the flash
// attention top, the kernel's fixed cost and the HBM efficiency.
constexpr double kGemmTop = 0.80;
constexpr double kAttentionTop = 0.72;
constexpr double kMemoryEfficiency = 0.90;

// H100 SXM datasheet: BF16 1,979 TFLOP/s with sparsity -> 989 dense; HBM3 3.35 TB/s.
constexpr double kH100Bf16FlopsPerMicro = 989e12 / 1e6;
constexpr double kH100BytesPerMicro = 3.35e12 / 1e6;

ComputeTimeModel
H100(double scale = 1.0)
{
    return ComputeTimeModel(LookUpGpuCompute("H100"), Precision::Bf16, scale);
}

/** \return whether calling \p f throws std::invalid_argument whose message contains \p text */
template <typename F>
bool
ThrowsWith(F f, const std::string& text)
{
    try
    {
        f();
    }
    catch (const std::invalid_argument& e)
    {
        BOOST_TEST_MESSAGE(e.what());
        return std::string(e.what()).find(text) != std::string::npos;
    }
    return false;
}

} // namespace

BOOST_AUTO_TEST_SUITE(gpu_catalog)

// The datasheet figures as the brief and NVIDIA's sheets give them (dense = sparse / 2).
BOOST_AUTO_TEST_CASE(datasheet_figures)
{
    const GpuComputeSpec a100 = LookUpGpuCompute("A100");
    BOOST_TEST(a100.bf16Tflops == 312);
    BOOST_TEST(a100.fp8Tflops == 0);
    BOOST_TEST(a100.hbmTBps == 2.039);
    const GpuComputeSpec h100 = LookUpGpuCompute("H100");
    BOOST_TEST(h100.bf16Tflops == 989);
    BOOST_TEST(h100.fp8Tflops == 1979);
    BOOST_TEST(h100.hbmTBps == 3.35);
    BOOST_TEST(h100.memoryGiB == 80);
    const GpuComputeSpec h200 = LookUpGpuCompute("H200");
    BOOST_TEST(h200.bf16Tflops == h100.bf16Tflops);
    BOOST_TEST(h200.hbmTBps == 4.8);
    BOOST_TEST(h200.memoryGiB == 141);
    // HGX B200 per GPU: BF16 4.5 PFLOPS sparse -> 2.25 dense; 62 TB/s over 8 GPUs (7.7 each).
    const GpuComputeSpec b200 = LookUpGpuCompute("B200");
    BOOST_TEST(b200.bf16Tflops == 4500.0 / 2);
    BOOST_TEST(b200.hbmTBps == 7.7);
    BOOST_TEST(b200.memoryGiB == 180);
    // GB200 NVL72: 720 PFLOPS FP8 sparse over 72 GPUs -> 10 sparse, 5 dense per GPU.
    BOOST_TEST(LookUpGpuCompute("GB200").fp8Tflops == 720000.0 / 72 / 2);
    for (const std::string& name : GpuComputeNames())
    {
        BOOST_TEST(!LookUpGpuCompute(name).source.empty());
    }
}

// Names fold case and accept the CUDA driver's device names; GB200 is not taken for B200.
BOOST_AUTO_TEST_CASE(lookup_by_name)
{
    BOOST_TEST(LookUpGpuCompute("h100").model == "H100");
    BOOST_TEST(LookUpGpuCompute("H100-SXM").model == "H100");
    BOOST_TEST(LookUpGpuCompute("NVIDIA H100 80GB HBM3").model == "H100");
    BOOST_TEST(LookUpGpuCompute("NVIDIA A100-SXM4-80GB").model == "A100");
    BOOST_TEST(LookUpGpuCompute("gb200").model == "GB200");
    BOOST_TEST(LookUpGpuCompute("NVIDIA B200").model == "B200");
    BOOST_TEST(GpuComputeNames() ==
                   (std::vector<std::string>{"A100", "H100", "H200", "B200", "GB200"}),
               boost::test_tools::per_element());
}

// Unknown names, PCIe cards and GPUs without compute figures are errors naming --gpu and the
// known models.
BOOST_AUTO_TEST_CASE(unknown_names_listed)
{
    const std::string known = "A100, H100, H200, B200, GB200";
    BOOST_TEST(ThrowsWith([] { LookUpGpuCompute("MI300X"); }, known));
    BOOST_TEST(ThrowsWith([] { LookUpGpuCompute("MI300X"); }, "--gpu"));
    BOOST_TEST(ThrowsWith([] { LookUpGpuCompute("Tesla V100-SXM2-32GB"); }, "V100"));
    BOOST_TEST(ThrowsWith([] { LookUpGpuCompute("NVIDIA H100 PCIe"); }, "PCIe"));
    BOOST_TEST(ThrowsWith([] { LookUpGpuCompute(""); }, known));
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(roofline)

// A huge GEMM runs at peak x the top efficiency: 2mnk / (989 TFLOP/s x 0.80) within 1%.
BOOST_AUTO_TEST_CASE(huge_gemm_at_top_efficiency)
{
    const ComputeTimeModel model = H100();
    const double n = 8192;
    const double flops = 2 * n * n * n;
    const double expected = flops / (kH100Bf16FlopsPerMicro * kGemmTop);
    BOOST_TEST(model.GemmMicros(8192, 8192, 8192) == expected, boost::test_tools::tolerance(0.01));
    BOOST_TEST(model.GemmEfficiency(8192, 8192, 8192) == kGemmTop,
               boost::test_tools::tolerance(0.01));
}

// A tiny GEMM costs more per FLOP than a huge one, and the efficiency grows with size.
BOOST_AUTO_TEST_CASE(efficiency_grows_with_size)
{
    const ComputeTimeModel model = H100();
    const double tinyPerFlop = model.GemmMicros(256, 256, 256) / (2.0 * 256 * 256 * 256);
    const double hugePerFlop = model.GemmMicros(8192, 8192, 8192) / (2.0 * 8192 * 8192 * 8192);
    BOOST_TEST(tinyPerFlop > 2 * hugePerFlop);
    double previous = 0;
    for (uint64_t size = 128; size <= 16384; size *= 2)
    {
        const double efficiency = model.GemmEfficiency(size, size, size);
        BOOST_TEST(efficiency > previous);
        BOOST_TEST(efficiency <= 1.0);
        previous = efficiency;
    }
}

// A GEMM with one tiny dimension is bound by HBM: reading B (k x n, BF16) dominates.
BOOST_AUTO_TEST_CASE(thin_gemm_memory_bound)
{
    const ComputeTimeModel model = H100();
    const double bytes = 2.0 * (1 * 8192 + 8192.0 * 8192) + 2.0 * 1 * 8192;
    BOOST_TEST(model.GemmMicros(1, 8192, 8192) == bytes / (kH100BytesPerMicro * kMemoryEfficiency),
               boost::test_tools::tolerance(0.01));
}

// A memory-bound op moves its bytes at HBM bandwidth x the memory efficiency.
BOOST_AUTO_TEST_CASE(memory_bound_op)
{
    const ComputeTimeModel model = H100();
    const uint64_t bytes = 1'000'000'000;
    BOOST_TEST(model.MemoryBoundMicros(bytes) == 1e9 / (kH100BytesPerMicro * kMemoryEfficiency),
               boost::test_tools::tolerance(0.01));
}

// Flash attention forward: 2 b h q kv (dqk + dv) FLOPs at 989 x 0.72; causal about half;
// backward 2.5x forward (FlashAttention-2, arXiv:2307.08691: five matmuls against two).
BOOST_AUTO_TEST_CASE(attention_factors)
{
    const ComputeTimeModel model = H100();
    const double b = 2;
    const double h = 32;
    const double s = 8192;
    const double forwardFlops = 2 * b * h * s * s * (128 + 128);
    const double forward = model.AttentionMicros(2, 8192, 8192, 32, 128, 128, false, false);
    BOOST_TEST(forward == forwardFlops / (kH100Bf16FlopsPerMicro * kAttentionTop),
               boost::test_tools::tolerance(0.01));
    const double causal = model.AttentionMicros(2, 8192, 8192, 32, 128, 128, true, false);
    BOOST_TEST(causal / forward == 0.5, boost::test_tools::tolerance(0.01));
    const double backward = model.AttentionMicros(2, 8192, 8192, 32, 128, 128, false, true);
    BOOST_TEST(backward / forward == 2.5, boost::test_tools::tolerance(0.01));
}

// efficiencyScale 0.9 stretches a compute-bound GEMM by 1/0.9, 1.1 shrinks it by 1/1.1.
BOOST_AUTO_TEST_CASE(efficiency_scale)
{
    const double base = H100().GemmMicros(8192, 8192, 8192);
    BOOST_TEST(H100(0.9).GemmMicros(8192, 8192, 8192) / base == 1 / 0.9,
               boost::test_tools::tolerance(0.01));
    BOOST_TEST(H100(1.1).GemmMicros(8192, 8192, 8192) / base == 1 / 1.1,
               boost::test_tools::tolerance(0.01));
    // Past 1 / 0.80 the efficiency is capped at 1: no faster than peak.
    BOOST_TEST(H100(2.0).GemmEfficiency(8192, 8192, 8192) <= 1.0);
}

// FP8 doubles the H100 peak: a huge GEMM takes half the BF16 time (1,979 vs 989 TFLOP/s).
BOOST_AUTO_TEST_CASE(fp8_peak)
{
    const ComputeTimeModel fp8(LookUpGpuCompute("H100"), Precision::Fp8);
    BOOST_TEST(fp8.GemmMicros(8192, 8192, 8192) / H100().GemmMicros(8192, 8192, 8192) ==
                   989.0 / 1979.0,
               boost::test_tools::tolerance(0.01));
}

// Bad arguments are errors naming the flag: scale outside (0, 2], FP8 on A100, zero sizes.
BOOST_AUTO_TEST_CASE(arguments_checked)
{
    const GpuComputeSpec h100 = LookUpGpuCompute("H100");
    BOOST_TEST(
        ThrowsWith([&] { ComputeTimeModel(h100, Precision::Bf16, 0); }, "--gemm-efficiency-scale"));
    BOOST_TEST(ThrowsWith([&] { ComputeTimeModel(h100, Precision::Bf16, 2.5); },
                          "--gemm-efficiency-scale"));
    BOOST_TEST(ThrowsWith([&] { ComputeTimeModel(h100, Precision::Bf16, -1); },
                          "--gemm-efficiency-scale"));
    BOOST_TEST(ThrowsWith([] { ComputeTimeModel(LookUpGpuCompute("A100"), Precision::Fp8); },
                          "--precision"));
    GpuComputeSpec broken = h100;
    broken.hbmTBps = 0;
    BOOST_TEST(ThrowsWith([&] { ComputeTimeModel(broken, Precision::Bf16); }, "--gpu"));
    const ComputeTimeModel model = H100();
    BOOST_TEST(ThrowsWith([&] { model.GemmMicros(0, 1, 1); }, "GEMM m"));
    BOOST_TEST(ThrowsWith([&] { model.GemmEfficiency(1, 1, 0); }, "GEMM k"));
    BOOST_TEST(
        ThrowsWith([&] { model.AttentionMicros(1, 1, 1, 0, 128, 128, true, false); }, "heads"));
}

// One Llama-2-7B layer's forward GEMMs (hidden 4096, FFN 11008, 4096 tokens) on H100 BF16
// imply 600-800 TFLOP/s: the range published large BF16 GEMM measurements on H100 SXM report
// (S. Bekman, ml-engineering, "Maximum Achievable Matmul FLOPS": ~790 TFLOP/s at best).
BOOST_AUTO_TEST_CASE(llama_layer_implied_tflops)
{
    const ComputeTimeModel model = H100();
    const uint64_t t = 4096;
    const uint64_t d = 4096;
    const uint64_t f = 11008;
    // QKV projection, output projection, gate+up projection, down projection.
    const double flops =
        2.0 * t * d * (3 * d) + 2.0 * t * d * d + 2.0 * t * d * (2 * f) + 2.0 * t * f * d;
    const double micros = model.GemmMicros(t, 3 * d, d) + model.GemmMicros(t, d, d) +
                          model.GemmMicros(t, 2 * f, d) + model.GemmMicros(t, d, f);
    const double tflops = flops / micros / 1e6;
    BOOST_TEST_MESSAGE("implied " << tflops << " TFLOP/s");
    BOOST_TEST(tflops > 600);
    BOOST_TEST(tflops < 800);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(compute_profile)

// A profile reads back: hits return the microseconds, misses nullopt; blank lines skipped.
BOOST_AUTO_TEST_CASE(reads_and_looks_up)
{
    TempDir dir;
    const std::string path = dir.Path() + "/profile.csv";
    WriteFileBytes(path,
                   "op,shape,micros\n"
                   "gemm,4096x4096x8192,350.5\n"
                   "\n"
                   "flash_attn_fwd, 2x32x8192x128 , 1200\r\n");
    const ComputeProfile profile = ComputeProfile::Read(path);
    BOOST_TEST(profile.Size() == 2u);
    BOOST_TEST(profile.Micros("gemm", "4096x4096x8192").value() == 350.5);
    BOOST_TEST(profile.Micros("flash_attn_fwd", "2x32x8192x128").value() == 1200);
    BOOST_TEST(!profile.Micros("gemm", "1x1x1").has_value());
    BOOST_TEST(!profile.Micros("norm", "4096x4096x8192").has_value());
}

// Each bad file is an error naming the file and line.
BOOST_AUTO_TEST_CASE(bad_lines_named)
{
    TempDir dir;
    const std::string path = dir.Path() + "/bad.csv";
    const std::vector<std::pair<std::string, std::string>> cases = {
        {"op,micros\n", ":1: the header"},
        {"op,shape,micros\ngemm,1x1x1\n", ":2: expected"},
        {"op,shape,micros\n\ngemm,1x1x1,abc\n", ":3: micros 'abc'"},
        {"op,shape,micros\ngemm,1x1x1,-5\n", ":2: micros '-5'"},
        {"op,shape,micros\ngemm,1x1x1,5us\n", ":2: micros '5us'"},
        {"op,shape,micros\n,1x1x1,5\n", ":2: empty op"},
        {"op,shape,micros\ngemm,1x1x1,5\ngemm,1x1x1,6\n",
         ":3: op 'gemm' shape '1x1x1' given twice"},
        {"", ":1: empty file"},
    };
    for (const auto& [text, message] : cases)
    {
        WriteFileBytes(path, text);
        BOOST_TEST(ThrowsWith([&] { ComputeProfile::Read(path); }, path + message),
                   "file '" << text << "' should fail with " << message);
    }
    BOOST_TEST(ThrowsWith([&] { ComputeProfile::Read(dir.Path() + "/missing.csv"); },
                          "missing.csv: cannot open"));
}

BOOST_AUTO_TEST_SUITE_END()
