#include "gpu-compute-model.h"

#include "ns3/gpu-catalog.h"
#include "ns3/name-suggestion.h"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <stdexcept>

namespace ns3
{

namespace
{

// Peak dense (no 2:4 sparsity) tensor-core figures per GPU. NVIDIA quotes Hopper and
// Blackwell peaks with sparsity; dense is half. Memory as the sheets state it (GB).
const std::vector<GpuComputeSpec>&
ComputeCatalog()
{
    static const std::vector<GpuComputeSpec> specs = {
        {"A100",
         312,
         0,
         2.039,
         80,
         "NVIDIA A100 Tensor Core GPU datasheet (SXM4 80GB): BF16 312 TFLOPS dense, "
         "HBM2e 2,039 GB/s; Ampere has no FP8"},
        {"H100",
         989,
         1979,
         3.35,
         80,
         "NVIDIA H100 Tensor Core GPU datasheet (SXM5): BF16 1,979 / FP8 3,958 TFLOPS with "
         "sparsity, halved; HBM3 3.35 TB/s, 80 GB"},
        {"H200",
         989,
         1979,
         4.8,
         141,
         "NVIDIA H200 Tensor Core GPU datasheet (SXM): same tensor cores as H100 SXM; "
         "HBM3e 4.8 TB/s, 141 GB"},
        {"B200",
         2250,
         4500,
         7.7,
         180,
         "NVIDIA HGX B200 specifications (nvidia.com/en-us/data-center/hgx): per GPU "
         "FP16/BF16 4.5 and FP8 9 PFLOPS with sparsity (halved: 2,250 / 4,500 dense), "
         "180 GB HBM3e at 7.7 TB/s (62 TB/s over 8 GPUs)"},
        {"GB200",
         2500,
         5000,
         8.0,
         186,
         "NVIDIA GB200 NVL72 specifications (nvidia.com/en-us/data-center/gb200-nvl72): per "
         "GPU FP16/BF16 5 and FP8 10 PFLOPS with sparsity (halved: 2,500 / 5,000 dense), "
         "186 GB HBM3e at 8 TB/s (576 TB/s over 72 GPUs)"},
    };
    return specs;
}

// The efficiency cuBLAS reaches on large BF16 GEMMs: the Maximum Achievable Matmul FLOPS
// table of S. Bekman, "Machine Learning Engineering" (github.com/stas00/ml-engineering,
// compute/accelerator/README.md) reports about 80% of peak on H100 SXM (~790 of 989 TFLOP/s)
// and ~86% on A100 SXM; the lower figure is used for every GPU.
constexpr double kGemmTop = 0.80;

// Flash attention reaches less than a plain GEMM (softmax, masking, the causal diagonal):
// FlashAttention-2 (T. Dao, 2023, arXiv:2307.08691) reports up to 73% of A100 peak forward;
// FlashAttention-3 (J. Shah et al., 2024, arXiv:2407.08608) ~740 of 989 BF16 TFLOP/s (75%)
// on H100.
constexpr double kAttentionTop = 0.72;

// FlashAttention-2 section 3.1 / appendix: the backward pass runs five matmuls per block
// against the forward's two, so 2.5x the forward FLOPs.
constexpr double kAttentionBackwardFactor = 2.5;

// A kernel's fixed cost besides its FLOPs: launch latency plus the tail where the last wave
// leaves SMs idle. An estimate of a few microseconds (CUDA kernel launch is ~2-5 us); it
// brings a 1024^3 BF16 GEMM on H100 to about a third of peak, where NVIDIA's "Matrix
// Multiplication Background" guide (docs.nvidia.com/deeplearning/performance) shows small
// GEMMs far below the large ones.
constexpr double kOverheadMicros = 4.0;

// Streaming kernels (norms, elementwise, optimizer) reach about 90% of the datasheet HBM
// bandwidth on Hopper-class GPUs (e.g. BabelStream / nvbandwidth runs); an assumption.
constexpr double kMemoryEfficiency = 0.90;

void
RequirePositive(uint64_t value, const std::string& what)
{
    if (value == 0)
    {
        throw std::invalid_argument("llm compute: " + what + " must be positive");
    }
}

std::string
KnownList()
{
    std::string out;
    for (const std::string& name : GpuComputeNames())
    {
        out += (out.empty() ? "" : ", ") + name;
    }
    return out;
}

} // namespace

std::vector<std::string>
GpuComputeNames()
{
    std::vector<std::string> names;
    for (const GpuComputeSpec& spec : ComputeCatalog())
    {
        names.push_back(spec.model);
    }
    return names;
}

GpuComputeSpec
LookUpGpuCompute(const std::string& name)
{
    std::string why;
    const auto links = LookUpGpuLinks(name, why);
    if (links)
    {
        for (const GpuComputeSpec& spec : ComputeCatalog())
        {
            if (spec.model == links->model)
            {
                return spec;
            }
        }
        why = "'" + name + "' (" + links->model + ") has no compute figures here";
    }
    throw std::invalid_argument("llm: --gpu: " + why + "; known: " + KnownList() +
                                DidYouMean(name, GpuComputeNames()));
}

ComputeTimeModel::ComputeTimeModel(GpuComputeSpec gpu, Precision precision, double efficiencyScale)
    : m_gpu(std::move(gpu)),
      m_precision(precision),
      m_efficiencyScale(efficiencyScale)
{
    if (!(std::isfinite(m_gpu.bf16Tflops) && m_gpu.bf16Tflops > 0) ||
        !(std::isfinite(m_gpu.hbmTBps) && m_gpu.hbmTBps > 0) ||
        !(std::isfinite(m_gpu.fp8Tflops) && m_gpu.fp8Tflops >= 0))
    {
        throw std::invalid_argument("llm: --gpu '" + m_gpu.model +
                                    "': BF16 TFLOP/s and HBM TB/s must be positive, FP8 "
                                    "TFLOP/s not negative");
    }
    if (!(std::isfinite(efficiencyScale) && efficiencyScale > 0 && efficiencyScale <= 2))
    {
        std::ostringstream message;
        message << "llm: --gemm-efficiency-scale " << efficiencyScale << " is not in (0, 2]";
        throw std::invalid_argument(message.str());
    }
    if (precision == Precision::Fp8 && m_gpu.fp8Tflops <= 0)
    {
        throw std::invalid_argument("llm: --precision fp8: " + m_gpu.model +
                                    " has no FP8 tensor cores (use bf16)");
    }
}

const GpuComputeSpec&
ComputeTimeModel::Gpu() const
{
    return m_gpu;
}

Precision
ComputeTimeModel::GetPrecision() const
{
    return m_precision;
}

double
ComputeTimeModel::PeakTflops() const
{
    return m_precision == Precision::Fp8 ? m_gpu.fp8Tflops : m_gpu.bf16Tflops;
}

double
ComputeTimeModel::TopGemmEfficiency() const
{
    return std::min(1.0, kGemmTop * m_efficiencyScale);
}

double
ComputeTimeModel::MemoryEfficiency()
{
    return kMemoryEfficiency;
}

double
ComputeTimeModel::KernelOverheadMicros()
{
    return kOverheadMicros;
}

double
ComputeTimeModel::SizedEfficiency(double flops, double top) const
{
    // T = FLOPs at the top efficiency; the fixed cost t0 stretches it to T + t0.
    const double busyMicros = flops / (PeakTflops() * 1e6 * top);
    return top * busyMicros / (busyMicros + kOverheadMicros);
}

double
ComputeTimeModel::RooflineMicros(double flops, double bytes, double top) const
{
    const double computeMicros = flops / (PeakTflops() * 1e6 * SizedEfficiency(flops, top));
    const double memoryMicros = bytes / (m_gpu.hbmTBps * 1e6 * kMemoryEfficiency);
    return std::max(computeMicros, memoryMicros);
}

double
ComputeTimeModel::GemmEfficiency(uint64_t m, uint64_t n, uint64_t k) const
{
    RequirePositive(m, "GEMM m");
    RequirePositive(n, "GEMM n");
    RequirePositive(k, "GEMM k");
    const double flops = 2.0 * static_cast<double>(m) * static_cast<double>(n) * k;
    return SizedEfficiency(flops, TopGemmEfficiency());
}

double
ComputeTimeModel::GemmMicros(uint64_t m, uint64_t n, uint64_t k) const
{
    GemmEfficiency(m, n, k); // checks the dimensions
    const double dm = static_cast<double>(m);
    const double dn = static_cast<double>(n);
    const double dk = static_cast<double>(k);
    // FP8 GEMMs read one-byte inputs; the output stays BF16 (Transformer Engine's recipe).
    const double inputBytes = m_precision == Precision::Fp8 ? 1.0 : 2.0;
    const double bytes = inputBytes * (dm * dk + dk * dn) + 2.0 * dm * dn;
    return RooflineMicros(2.0 * dm * dn * dk, bytes, TopGemmEfficiency());
}

double
ComputeTimeModel::AttentionMicros(uint64_t batch,
                                  uint64_t qTokens,
                                  uint64_t kvTokens,
                                  uint32_t heads,
                                  uint32_t qkHeadDim,
                                  uint32_t vHeadDim,
                                  bool causal,
                                  bool backward) const
{
    RequirePositive(batch, "attention batch");
    RequirePositive(qTokens, "attention query tokens");
    RequirePositive(kvTokens, "attention key/value tokens");
    RequirePositive(heads, "attention heads");
    RequirePositive(qkHeadDim, "attention query/key head dim");
    RequirePositive(vHeadDim, "attention value head dim");
    const double rows = static_cast<double>(batch) * heads;
    const double q = static_cast<double>(qTokens);
    const double kv = static_cast<double>(kvTokens);
    // S = Q K^T: 2 q kv dqk; O = P V: 2 q kv dv. Causal masking skips half the blocks.
    double flops = 2.0 * rows * q * kv * (qkHeadDim + static_cast<double>(vHeadDim));
    // Q, K, V read and O written once each (BF16): flash attention keeps S and P on chip.
    double bytes = 2.0 * rows * (q * qkHeadDim + kv * qkHeadDim + kv * vHeadDim + q * vHeadDim);
    if (causal)
    {
        flops /= 2;
    }
    if (backward)
    {
        flops *= kAttentionBackwardFactor;
        bytes *= 2; // dO read, dQ, dK, dV written besides Q, K, V, O
    }
    // Attention stays BF16 under FP8 training (Transformer Engine applies FP8 to the linear
    // layers), so its peak is always the BF16 one.
    const ComputeTimeModel bf16(m_gpu, Precision::Bf16, m_efficiencyScale);
    return bf16.RooflineMicros(flops, bytes, std::min(1.0, kAttentionTop * m_efficiencyScale));
}

double
ComputeTimeModel::MemoryBoundMicros(uint64_t bytes) const
{
    return static_cast<double>(bytes) / (m_gpu.hbmTBps * 1e6 * kMemoryEfficiency);
}

} // namespace ns3
