/*
 * The compute side of a data-center GPU (peak tensor-core FLOP/s, HBM bandwidth) and a roofline
 * time model for the ops of one transformer training step: GEMMs, flash attention and
 * memory-bound ops.
 */
#ifndef CHAKRA_GPU_COMPUTE_MODEL_H
#define CHAKRA_GPU_COMPUTE_MODEL_H

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup chakra-workload
 * \brief The compute side of one data-center GPU model (datasheet peaks, per GPU).
 */
struct GpuComputeSpec
{
    std::string model;    //!< "H100"
    double bf16Tflops{0}; //!< peak dense BF16 tensor-core TFLOP/s (10^12), no sparsity
    double fp8Tflops{0};  //!< peak dense FP8 TFLOP/s, 0 if the GPU has none (A100)
    double hbmTBps{0};    //!< HBM bandwidth, TB/s (10^12 B/s)
    double memoryGiB{0};  //!< HBM capacity as the datasheet states it (GB)
    std::string source;   //!< the datasheet the figures come from
};

/**
 * \ingroup chakra-workload
 * \return the GPU models LookUpGpuCompute knows: A100, H100, H200, B200, GB200
 */
std::vector<std::string> GpuComputeNames();

/**
 * \ingroup chakra-workload
 * \brief Looks a GPU up by model ("h100", "H100-SXM") or by the name the CUDA driver reports
 * ("NVIDIA H100 80GB HBM3"): the name matching of LookUpGpuLinks (helper/gpu-catalog.h).
 * \param name the GPU name (the --gpu flag)
 * \return the spec
 * \throws std::invalid_argument naming --gpu and listing the known models, for an unknown name,
 *         a PCIe card, or a model without compute figures here (V100, A800, ...)
 */
GpuComputeSpec LookUpGpuCompute(const std::string& name);

/**
 * \ingroup chakra-workload
 * \brief The tensor-core precision GEMMs and attention run in.
 */
enum class Precision
{
    Bf16, //!< BF16 inputs, FP32 accumulate
    Fp8   //!< FP8 inputs (Transformer Engine), BF16 outputs
};

/**
 * \ingroup chakra-workload
 * The efficiency scale a training step uses by default (LlmStepSpec::efficiencyScale,
 * --gemm-efficiency-scale): what a GEMM sustains inside a training step against what it
 * reaches alone. ComputeTimeModel's top efficiency (0.80 of peak) is a matmul
 * microbenchmark's; inside a step, kernels share SMs with NCCL's, and the ops the model leaves
 * out (residual adds, rotary embeddings, casts, gradient accumulation, launch gaps) take time.
 * A calibration, stated as one: fitted on ONE published row (NeMo 25.11, DGX-H100, Llama 3 8B
 * FP8 on 8 GPUs, 14,451 tokens/s per GPU) and checked against ten others, 9 of them within
 * 15% (doc/validation.md, "LLM training steps"; test/llm-validation-test.cc pins two).
 */
constexpr double kInSituEfficiencyScale = 0.62;

/**
 * \ingroup chakra-workload
 * \brief Time of one op on one GPU from its FLOPs and bytes.
 *
 * A roofline: the larger of FLOPs / (peak x efficiency) and bytes / (HBM x memory efficiency).
 * The compute efficiency grows with the op's size: a kernel pays a fixed launch and tail cost
 * t0 (idle SMs in the last wave, prologue, epilogue) besides its FLOPs at the top efficiency,
 * so efficiency = top x T / (T + t0) with T = FLOPs / (peak x top). The top efficiencies and
 * t0 are stated and cited in gpu-compute-model.cc. efficiencyScale multiplies the compute
 * efficiency (capped at 1), so a validation can bracket results at 0.9 and 1.1.
 */
class ComputeTimeModel
{
  public:
    /**
     * \param gpu the GPU (checked: positive peaks and bandwidth)
     * \param precision Fp8 needs a GPU with FP8 tensor cores
     * \param efficiencyScale multiplies the compute efficiency, in (0, 2]
     * \throws std::invalid_argument naming --gpu, --precision or --gemm-efficiency-scale
     */
    ComputeTimeModel(GpuComputeSpec gpu, Precision precision, double efficiencyScale = 1.0);

    /**
     * \return the compute efficiency of C[m,n] = A[m,k] B[k,n], in (0, 1]
     * \throws std::invalid_argument for a zero dimension
     */
    double GemmEfficiency(uint64_t m, uint64_t n, uint64_t k) const;

    /**
     * \return microseconds of C[m,n] = A[m,k] B[k,n]: 2mnk FLOPs against reading A and B and
     *         writing C (BF16 output; FP8 inputs are one byte)
     * \throws std::invalid_argument for a zero dimension
     */
    double GemmMicros(uint64_t m, uint64_t n, uint64_t k) const;

    /**
     * \brief Flash attention over batch x heads, q tokens against kv tokens.
     *
     * Forward FLOPs 2 x batch x heads x q x kv x (qkHeadDim + vHeadDim) (S = Q K^T, O = P V);
     * causal halves them; backward is 2.5x forward (FlashAttention-2: five matmuls against
     * the forward's two).
     * \return microseconds
     * \throws std::invalid_argument for a zero size
     */
    double AttentionMicros(uint64_t batch,
                           uint64_t qTokens,
                           uint64_t kvTokens,
                           uint32_t heads,
                           uint32_t qkHeadDim,
                           uint32_t vHeadDim,
                           bool causal,
                           bool backward) const;

    /**
     * \param bytes bytes read plus written (norms, activations, optimizer step)
     * \return microseconds: bytes / (HBM x memory efficiency)
     */
    double MemoryBoundMicros(uint64_t bytes) const;

    /** \return the GPU */
    const GpuComputeSpec& Gpu() const;

    /** \return the precision */
    Precision GetPrecision() const;

    /** \return the peak dense TFLOP/s of the precision */
    double PeakTflops() const;

    /** \return the efficiency large GEMMs reach (the curve's top, times the scale, capped) */
    double TopGemmEfficiency() const;

    /** \return the fraction of HBM bandwidth streaming kernels reach */
    static double MemoryEfficiency();

    /** \return the fixed launch and tail cost of a kernel, microseconds */
    static double KernelOverheadMicros();

  private:
    /**
     * \return microseconds of an op of \p flops and \p bytes whose compute runs at \p top of
     *         peak when large
     */
    double RooflineMicros(double flops, double bytes, double top) const;

    /** \return the size-dependent efficiency of \p flops at top \p top */
    double SizedEfficiency(double flops, double top) const;

    GpuComputeSpec m_gpu;     //!< the GPU
    Precision m_precision;    //!< GEMM and attention precision
    double m_efficiencyScale; //!< multiplies the compute efficiency
};

} // namespace ns3

#endif // CHAKRA_GPU_COMPUTE_MODEL_H
