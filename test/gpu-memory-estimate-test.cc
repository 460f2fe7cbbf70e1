/*
 * The per-GPU memory estimate of an LLM training step against hand sums: ZeRO's model-state
 * bytes per parameter (Rajbhandari et al., SC'20), Korthikanti et al.'s activation formulas
 * (MLSys 2023, Table 2) and the interleaved schedule's extra activations (their section 4.2.3);
 * and a layout that does not fit refused before any file.
 */
#define BOOST_TEST_MODULE gpu_memory_estimate
#include "chakra-test-data.h"
#include "llm-test-models.h"

#include "ns3/chakra-module.h"

#include <boost/test/unit_test.hpp>
#include <tuple>

using namespace ns3;
using chakra_test::TempDir;

namespace
{

/** A GPT layer as Korthikanti et al. draw it: h 1024, MLP 4h (GELU), 8 heads of 128. */
TransformerModel
GptModel()
{
    return chakra_test::GeluTransformer("gpt", 8, 1024, 8, 32000);
}

/** A resolved layout: \p tp x \p pp x \p dp GPUs, 1 x 2048-token micro-batches. */
ParallelLayout
Layout(uint32_t tp, uint32_t pp, uint32_t dp, uint32_t microBatches)
{
    ParallelLayout layout;
    layout.gpus = tp * pp * dp;
    layout.tp = tp;
    layout.pp = pp;
    layout.seq = 2048;
    layout.globalBatch = uint64_t{microBatches} * dp;
    const TransformerModel model = GptModel();
    return ResolveLayout(layout, {model.layers, model.heads, model.kvHeads, model.experts});
}

} // namespace

BOOST_AUTO_TEST_SUITE(gpu_memory_estimate)

// Model state. A GPT layer holds 4h^2 (QKV, output projection) + 2hf (the MLP) weights, split
// over tp, and two norms of h, replicated: with h = 1024, f = 4096, tp 2: 6,291,456 + 2,048.
// One stage of 8 layers also holds the embedding and the (untied) output layer, V h / tp each.
// Per parameter: 2 bytes of weight, 2 of gradient, 12 of Adam state; ZeRO-1 divides the Adam
// state by dp (4 here), ZeRO-2 the gradients too, ZeRO-3 the weights as well, plus two whole
// layers gathered.
BOOST_AUTO_TEST_CASE(model_state_follows_zero)
{
    const double layer = (4.0 * 1024 * 1024 + 2.0 * 1024 * 4096) / 2 + 2 * 1024;
    const double parameters = 8 * layer + 2 * 32000.0 * 1024 / 2;
    for (uint32_t zero = 0; zero <= 3; ++zero)
    {
        BOOST_TEST_CONTEXT("zero " << zero)
        {
            ParallelLayout layout = Layout(2, 1, 4, 1);
            layout.zero = zero;
            const GpuMemoryEstimate m = EstimateGpuMemory(GptModel(), layout, 0);
            BOOST_TEST(m.parameters == static_cast<uint64_t>(parameters));
            const double weights = zero >= 3 ? 2 * parameters / 4 + 2 * 2 * layer : 2 * parameters;
            BOOST_TEST(m.weights == weights, boost::test_tools::tolerance(1e-12));
            BOOST_TEST(m.gradients == (zero >= 2 ? 2 * parameters / 4 : 2 * parameters),
                       boost::test_tools::tolerance(1e-12));
            BOOST_TEST(m.optimizer == (zero >= 1 ? 12 * parameters / 4 : 12 * parameters),
                       boost::test_tools::tolerance(1e-12));
        }
    }
}

// Activations of one micro-batch (1F1B with pp 1 holds one), in Korthikanti et al.'s Table 2
// less the two dropout masks (sbh each; dropout 0 today) and with flash attention (no 5as/h
// term): sbh (8 + 24/t) without sequence parallelism, sbh 32/t with it, 2sbh/t per layer
// with full recompute plus one layer whole while it runs again. The output layer adds the
// fp32 logits: 4 s b V / t.
BOOST_AUTO_TEST_CASE(activations_follow_korthikanti)
{
    const double s = 2048;
    const double h = 1024;
    const double t = 4;
    const double logits = 4 * s * 32000 / t;
    ParallelLayout layout = Layout(4, 1, 1, 1);
    BOOST_TEST(EstimateGpuMemory(GptModel(), layout, 0).activations ==
                   8 * s * h * (8 + 24 / t) + logits,
               boost::test_tools::tolerance(1e-12));
    layout.sequenceParallel = true;
    BOOST_TEST(EstimateGpuMemory(GptModel(), layout, 0).activations == 8 * s * h * 32 / t + logits,
               boost::test_tools::tolerance(1e-12));
    layout.recompute = Recompute::Full;
    BOOST_TEST(EstimateGpuMemory(GptModel(), layout, 0).activations ==
                   8 * 2 * s * h / t + s * h * 32 / t + logits,
               boost::test_tools::tolerance(1e-12));
}

// Micro-batches in flight: 1F1B's stage i holds pp - i of them (SC'21, section 2.2), so stage 0
// of 4 holds 4 passes of its 2 layers: as much as one micro-batch through all 8 layers. The
// interleaved schedule holds (1 + (pp - 1) / (pp vp)) times that on stage 0 (Korthikanti et
// al., section 4.2.3): 1.375 with pp 4, vp 2.
BOOST_AUTO_TEST_CASE(in_flight_passes_follow_the_schedule)
{
    ParallelLayout layout = Layout(1, 4, 1, 8);
    const TransformerModel model = GptModel();
    for (uint32_t stage = 0; stage < 4; ++stage)
    {
        BOOST_TEST(EstimateGpuMemory(model, layout, stage).passesInFlight == 4 - stage);
    }
    const double oneF1B = EstimateGpuMemory(model, layout, 0).activations;
    layout.vp = 2;
    const double interleaved = EstimateGpuMemory(model, layout, 0).activations;
    BOOST_TEST(interleaved / oneF1B == 1 + 3.0 / 8, boost::test_tools::tolerance(1e-12));
    // The peak stage: the first holds the most micro-batches, the last the logits.
    const GpuMemoryEstimate peak = PeakGpuMemory(model, layout);
    for (uint32_t stage = 0; stage < 4; ++stage)
    {
        BOOST_TEST(peak.Total() >= EstimateGpuMemory(model, layout, stage).Total());
    }
}

// Llama 3 70B on 8 H100s with tp 8 and no sharding needs 16 bytes x 70.6e9 / 8 = 141 GB of
// model state alone: refused before any file, naming the way out; allowed with the flag, and
// the plan says so.
BOOST_AUTO_TEST_CASE(a_layout_that_does_not_fit_is_refused_unless_allowed)
{
    TempDir dir;
    LlmStepSpec spec;
    spec.model = ModelPreset("llama3-70b");
    spec.layout.gpus = 8;
    spec.layout.tp = 8;
    spec.layout.seq = 4096;
    spec.layout.globalBatch = 1;
    try
    {
        PlanLlmStep(spec);
        BOOST_FAIL("a 70B model on 8 GPUs without sharding was planned");
    }
    catch (const std::invalid_argument& e)
    {
        const std::string message = e.what();
        BOOST_TEST(message.find("does not fit the H100's 80 GiB") != std::string::npos, message);
        BOOST_TEST(message.find("--allow-oversubscribed-memory") != std::string::npos, message);
    }
    spec.allowOversubscribedMemory = true;
    const LlmStepPlan plan = PlanLlmStep(spec);
    BOOST_TEST(plan.memoryOversubscribed);
    BOOST_TEST(plan.memory.weights + plan.memory.gradients + plan.memory.optimizer > 16 * 70e9 / 8);
}

// Expert tensor parallelism: a GPT model whose 8 layers each have 8 routed experts (GELU, f 4096:
// 2hf = 8,388,608 parameters each), on tp 2 (sp), dp 4, ep 4: 2 local experts per GPU. With
// etp = tp (2) a GPU holds half of each: 8 x 2 x 8,388,608 / 2 = 67,108,864 expert
// parameters; with etp 1 both whole: 134,217,728. Dense per GPU: 8 layers x (4h^2 / 2 +
// router 8h + norms 2h) + embedding and output V h / 2 each. ZeRO-1 shards the dense Adam
// state over dp = 4 and the expert state over the expert data group, tp x dp / (etp x ep):
// 1 rank with etp 2, 2 with etp 1 -- so the expert optimizer bytes per GPU are the same.
BOOST_AUTO_TEST_CASE(expert_weights_follow_etp_and_their_state_the_expert_data_group)
{
    TransformerModel model = GptModel();
    model.experts = 8;
    model.topK = 2;
    model.moeFfn = 4096;
    const double h = 1024;
    const double dense = 8 * (4 * h * h / 2 + 8 * h + 2 * h) + 2 * 32000 * h / 2;
    for (const auto& [etp, experts, expertData] :
         {std::tuple<uint32_t, double, double>{2, 67108864, 1}, {1, 134217728, 2}})
    {
        BOOST_TEST_CONTEXT("etp " << etp)
        {
            ParallelLayout layout;
            layout.gpus = 8;
            layout.tp = 2;
            layout.ep = 4;
            layout.etp = etp;
            layout.sequenceParallel = true;
            layout.seq = 2048;
            layout.globalBatch = 4;
            layout.zero = 1;
            layout = ResolveLayout(layout, {8, 8, 8, 8});
            const GpuMemoryEstimate m = EstimateGpuMemory(model, layout, 0);
            BOOST_TEST(m.parameters == static_cast<uint64_t>(dense + experts));
            BOOST_TEST(m.weights == 2 * (dense + experts), boost::test_tools::tolerance(1e-12));
            BOOST_TEST(m.optimizer == 12 * (dense / 4 + experts / expertData),
                       boost::test_tools::tolerance(1e-12));
            layout.zero = 2;
            BOOST_TEST(EstimateGpuMemory(model, layout, 0).gradients ==
                           2 * (dense / 4 + experts / expertData),
                       boost::test_tools::tolerance(1e-12));
        }
    }
}

BOOST_AUTO_TEST_SUITE_END()
