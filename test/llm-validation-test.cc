/*
 * The LLM training step against published measurements (doc/validation.md, "LLM training
 * steps"): small published rows generated and simulated end to end, each held within 15% of
 * the published figure.
 *
 * The GPU model's ceiling (top 0.80 of peak, the best a matmul microbenchmark reaches)
 * over-predicts every published end-to-end run by 35-85% (doc/validation.md says why). A step
 * therefore runs by default with one in-situ scale, kInSituEfficiencyScale = 0.62, fitted on a
 * row that is not tested here (NeMo 25.11, DGX-H100, LLAMA3_8B FP8 on 8 GPUs: 14451 tokens/s
 * per GPU; the simulation gives 14509 at 0.62), so each case checks a prediction of the
 * shipped default, not a fit.
 */
#define BOOST_TEST_MODULE llm_validation
#include "chakra-test-data.h"
#include "llm-test-models.h"
#include "simulation-util.h"

#include "ns3/chakra-module.h"

#include <boost/test/unit_test.hpp>
#include <cmath>

using namespace ns3;
using chakra_test::TempDir;

namespace
{

/** The default --gemm-efficiency-scale, fitted on the NeMo LLAMA3_8B row (file comment). */
constexpr double kInSituScale = kInSituEfficiencyScale;

/**
 * MPT-7B as llm-foundry defines it (github.com/mosaicml/llm-foundry, scripts/train/yamls/
 * pretrain/mpt-7b.yaml): d_model 4096, 32 heads, 32 layers, expansion ratio 4 (a GELU MLP,
 * not gated), vocabulary 50368, the output layer tied to the embedding.
 */
TransformerModel
Mpt7b()
{
    return chakra_test::GeluTransformer("mpt-7b", 32, 4096, 32, 50368, 0, true);
}

/**
 * GPT of the SC'21 paper's Table 1 (Narayanan et al., arXiv:2104.04473): a GELU MLP 4h wide,
 * vocabulary 51200, the output layer tied to the embedding.
 */
TransformerModel
Sc21Gpt(uint32_t layers, uint32_t hidden, uint32_t heads)
{
    return chakra_test::GeluTransformer("sc21-gpt", layers, hidden, heads, 51200, 0, true);
}

/** The simulated step of \p spec on hosts of 8 GPUs (flow transport). */
ChakraReport
Simulate(const LlmStepSpec& spec, const std::string& nicBandwidth, const std::string& nvLink)
{
    TempDir dir;
    WriteLlmStep(dir.File("step"), spec);
    chakra_test::ClusterConfig config;
    config.hosts = spec.layout.gpus / 8;
    config.gpusPerHost = 8;
    config.transport = "flow";
    config.nicBandwidth = nicBandwidth;
    config.nvLinkBandwidth = nvLink;
    ChakraReport report = chakra_test::RunCluster(dir.File("step"), config);
    BOOST_REQUIRE(report.AllFinished());
    BOOST_REQUIRE(report.GetTrainingThroughput().stated);
    return report;
}

} // namespace

BOOST_AUTO_TEST_SUITE(llm_validation)

// MosaicML's published H100 row (llm-foundry, scripts/train/benchmarking/README.md, table
// "H100 80GB BF16", row "7b | 2048 | 8"): MPT-7B, sequences of 2048 tokens, 8 H100 80GB
// GPUs, micro-batch 6, no gradient accumulation (global batch 48), BF16, FSDP FULL_SHARD, no
// activation checkpointing: 10643 tokens/s per GPU (46.44% MFU). The simulation runs that
// layout at the in-situ scale; the case fails when the simulated throughput leaves 15% of the
// published one.
BOOST_AUTO_TEST_CASE(mpt_7b_on_8_h100_within_15_percent_of_mosaicml)
{
    LlmStepSpec spec;
    spec.model = Mpt7b();
    spec.layout.gpus = 8;
    spec.layout.fsdp = true;
    spec.layout.seq = 2048;
    spec.layout.microBatch = 6;
    spec.layout.globalBatch = 48;
    spec.gpu = "H100";
    spec.precision = Precision::Bf16;
    spec.efficiencyScale = kInSituScale;
    constexpr double kPublished = 10643; // tokens/s per GPU
    // DGX H100 (the defaults): 8 x 400 Gb/s NICs, NVLink 450 GB/s per direction.
    const double simulated =
        Simulate(spec, "400Gbps", "3600Gbps").GetTrainingThroughput().tokensPerSecondPerGpu;
    BOOST_TEST_MESSAGE("MPT-7B on 8 H100: simulated "
                       << simulated << " tokens/s per GPU, published " << kPublished);
    BOOST_TEST(std::abs(simulated / kPublished - 1) < 0.15);
}

// The SC'21 paper's Table 1, row "3.6B": 32 heads, hidden 3072, 30 layers, tensor-parallel 2,
// 64 A100 80GB GPUs (DGX A100: 8 x 200 Gb/s HDR InfiniBand, NVLink 300 GB/s per direction),
// global batch 512 of 2048 tokens; micro-batch 16 and full activation recompute from
// Megatron-LM's examples/sc21/run_table_1.sh: 138 TFLOP/s per GPU as the paper counts them,
// 96 B s l h^2 (1 + s/6h + V/16lh) FLOPs per step (recompute included, non-causal attention).
// The step time that implies is set against the simulated one.
BOOST_AUTO_TEST_CASE(sc21_gpt_3_6b_on_64_a100_within_15_percent_of_megatron)
{
    const double b = 512;
    const double s = 2048;
    const double l = 30;
    const double h = 3072;
    const double v = 51200;
    const double paperFlops = 96 * b * s * l * h * h * (1 + s / (6 * h) + v / (16 * l * h));
    const double publishedSeconds = paperFlops / (138e12 * 64); // 3.70 s

    LlmStepSpec spec;
    spec.model = Sc21Gpt(30, 3072, 32);
    spec.layout.gpus = 64;
    spec.layout.tp = 2;
    spec.layout.seq = 2048;
    spec.layout.microBatch = 16;
    spec.layout.globalBatch = 512;
    spec.layout.recompute = Recompute::Full;
    // The paper's Megatron-LM (2021) had no asynchronous tensor-parallel all-reduce: it came
    // in September 2021 (commit 16c90445e7), after the runs and the sc21 scripts.
    spec.layout.tpCommOverlap = TpCommOverlap::None;
    spec.gpu = "A100";
    spec.efficiencyScale = kInSituScale;
    const double simulatedSeconds =
        Simulate(spec, "200Gbps", "2400Gbps").GetIterationTime().GetSeconds();
    BOOST_TEST_MESSAGE("SC'21 GPT 3.6B on 64 A100: simulated step "
                       << simulatedSeconds << " s, published " << publishedSeconds << " s");
    // Throughput is the inverse of the step time: compare publishedSeconds / simulatedSeconds.
    BOOST_TEST(std::abs(publishedSeconds / simulatedSeconds - 1) < 0.15);
}

BOOST_AUTO_TEST_SUITE_END()
