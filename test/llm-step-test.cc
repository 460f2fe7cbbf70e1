/*
 * chakra_generator --workload llm (WriteLlmStep): the communication of a generated training
 * step read back against Megatron-LM's and ZeRO's formulas, worked out by hand in each case;
 * bad layouts refused before any file; a small step simulated to completion.
 */
#define BOOST_TEST_MODULE llm_step
#include "chakra-test-data.h"
#include "llm-test-models.h"
#include "simulation-util.h"

#include "ns3/chakra-module.h"

#include <boost/test/unit_test.hpp>
#include <map>
#include <sstream>

using namespace ns3;
using chakra_test::TempDir;

namespace
{

/** A small GPT-like model whose sizes are easy to work out by hand. */
TransformerModel
ToyModel()
{
    // 4 layers, hidden 1024, MLP 4096, 8 heads of 128.
    return chakra_test::GeluTransformer("toy", 4, 1024, 8, 32000);
}

/** A layout of \p gpus GPUs with 1 sequence of 512 tokens per micro-batch. */
ParallelLayout
Layout(uint32_t gpus, uint32_t tp, uint32_t pp, uint32_t globalBatch)
{
    ParallelLayout layout;
    layout.gpus = gpus;
    layout.tp = tp;
    layout.pp = pp;
    layout.seq = 512;
    layout.microBatch = 1;
    layout.globalBatch = globalBatch;
    return layout;
}

/** Every node of one rank's trace. */
std::vector<ChakraProtoMsg::Node>
ReadNodes(const std::string& path)
{
    std::vector<ChakraProtoMsg::Node> nodes;
    EtReader reader(path);
    ChakraProtoMsg::Node node;
    while (reader.ReadNode(node))
    {
        nodes.push_back(node);
    }
    return nodes;
}

/** \return an integer attribute of a node (0 if absent) */
int64_t
IntAttr(const ChakraProtoMsg::Node& node, const std::string& name)
{
    for (const auto& attr : node.attr())
    {
        if (attr.name() == name)
        {
            return attr.has_int64_val() ? attr.int64_val() : attr.int32_val();
        }
    }
    return 0;
}

/** \return the collectives of a trace whose name starts with \p prefix: name -> comm_size */
std::vector<std::pair<std::string, int64_t>>
Collectives(const std::vector<ChakraProtoMsg::Node>& nodes, const std::string& prefix)
{
    std::vector<std::pair<std::string, int64_t>> found;
    for (const auto& node : nodes)
    {
        if (node.type() == ChakraProtoMsg::COMM_COLL_NODE && node.name().rfind(prefix, 0) == 0)
        {
            found.emplace_back(node.name(), IntAttr(node, "comm_size"));
        }
    }
    return found;
}

/** \return true if \p name is an op of a transformer layer ("..._l<layer>") */
bool
IsLayerOp(const std::string& name)
{
    const auto at = name.rfind("_l");
    return at != std::string::npos && at + 2 < name.size() && std::isdigit(name[at + 2]);
}

/** The toy model with 8 routed experts (top 2, each 4096 wide) in every layer, no shared one. */
TransformerModel
ToyMoeModel()
{
    TransformerModel model = ToyModel();
    model.experts = 8;
    model.topK = 2;
    model.moeFfn = 4096;
    return model;
}

/** An MoE layout: \p gpus GPUs, tp (sp), ep, etp (0: tp), pp 1, one 512-token micro-batch. */
ParallelLayout
MoeLayout(uint32_t gpus, uint32_t tp, uint32_t ep, uint32_t etp)
{
    ParallelLayout layout = Layout(gpus, tp, 1, gpus / tp);
    layout.sequenceParallel = true;
    layout.ep = ep;
    layout.etp = etp;
    return layout;
}

/** \return the comm_size of every collective of a layer whose name starts with \p prefix */
std::vector<int64_t>
LayerCollectiveBytes(const std::vector<ChakraProtoMsg::Node>& nodes, const std::string& prefix)
{
    std::vector<int64_t> bytes;
    for (const auto& [name, size] : Collectives(nodes, prefix))
    {
        if (IsLayerOp(name))
        {
            bytes.push_back(size);
        }
    }
    return bytes;
}

/**
 * \return per rank, the bytes its collectives move: an all-gather's comm_size is the rank's
 *         contribution, 1/dp of what is gathered; a reduction's is what it reduces
 */
std::vector<double>
MovedBytes(const std::vector<std::string>& files, uint32_t dp)
{
    std::vector<double> moved;
    for (const auto& file : files)
    {
        double sum = 0;
        for (const auto& node : ReadNodes(file))
        {
            if (node.type() == ChakraProtoMsg::COMM_COLL_NODE)
            {
                const double bytes = IntAttr(node, "comm_size");
                sum +=
                    IntAttr(node, "comm_type") == ChakraProtoMsg::ALL_GATHER ? dp * bytes : bytes;
            }
        }
        moved.push_back(sum);
    }
    return moved;
}

} // namespace

BOOST_AUTO_TEST_SUITE(llm_step)

// Megatron's tensor parallelism: per layer, an all-reduce of the b x s x h activations after
// attention and after the MLP in forward, and two more of the input gradients in backward:
// 2 x b x s x h bytes each at 2 bytes per element (Shoeybi et al. 2019, Section 3).
BOOST_AUTO_TEST_CASE(tensor_parallel_all_reduces_carry_b_s_h_activations)
{
    TempDir dir;
    LlmStepSpec spec;
    spec.model = ToyModel();
    spec.layout = Layout(2, 2, 1, 1);
    const auto files = WriteLlmStep(dir.File("tp"), spec);
    BOOST_REQUIRE(files.size() == 2u);
    const int64_t bsh = 1 * 512 * 1024;
    for (const auto& file : files)
    {
        const auto nodes = ReadNodes(file);
        const auto reduces = Collectives(nodes, "tp_allreduce_");
        std::map<std::string, int64_t> layerReduces;
        for (const auto& [name, bytes] : reduces)
        {
            if (IsLayerOp(name))
            {
                layerReduces[name] = bytes;
                BOOST_TEST(bytes == 2 * bsh, name);
            }
        }
        // 4 layers x (attention, MLP) x (forward, backward).
        BOOST_TEST(layerReduces.size() == 4u * 2 * 2);
        BOOST_TEST(Collectives(nodes, "tp_reducescatter_").empty());
    }
}

// With sequence parallelism each all-reduce becomes a reduce-scatter of the same b x s x h
// input, and each block opens with an all-gather in which a rank contributes b x s x h / tp
// (Korthikanti et al. 2022, Section 4.2.2): the same bytes on the wire as an all-reduce. The
// backward gathers each block's input shard once more for its first GEMM's weight gradient
// (Megatron-Core keeps only the shard): one more all-gather per layer and block.
BOOST_AUTO_TEST_CASE(sequence_parallel_replaces_all_reduce_by_reduce_scatter_and_all_gather)
{
    TempDir dir;
    LlmStepSpec spec;
    spec.model = ToyModel();
    spec.layout = Layout(4, 4, 1, 1);
    spec.layout.sequenceParallel = true;
    const auto files = WriteLlmStep(dir.File("sp"), spec);
    const int64_t bsh = 1 * 512 * 1024;
    const auto nodes = ReadNodes(files.at(3));
    uint32_t gathers = 0;
    uint32_t regathers = 0;
    uint32_t scatters = 0;
    for (const auto& [name, bytes] : Collectives(nodes, "tp_"))
    {
        if (!IsLayerOp(name))
        {
            continue; // embedding, output layer, loss statistics
        }
        if (name.rfind("tp_allgather_", 0) == 0)
        {
            BOOST_TEST(bytes == 2 * bsh / 4, name);
            ++gathers;
        }
        else if (name.rfind("tp_regather_", 0) == 0)
        {
            // The backward gathers a column-parallel GEMM's input again (tp-comm-overlap-test).
            BOOST_TEST(bytes == 2 * bsh / 4, name);
            ++regathers;
        }
        else
        {
            BOOST_TEST(name.rfind("tp_reducescatter_", 0) == 0, name);
            BOOST_TEST(bytes == 2 * bsh, name);
            ++scatters;
        }
    }
    BOOST_TEST(gathers == 4u * 2 * 2);
    BOOST_TEST(regathers == 4u * 2);
    BOOST_TEST(scatters == 4u * 2 * 2);
}

// ZeRO-3 / FSDP move 3x the weights per step with one micro-batch: the weights all-gathered
// for forward and again for backward, the gradients reduce-scattered (Rajbhandari et al. 2020,
// Section 7.2.2). Counted per rank as the bytes each collective gathers or reduces.
BOOST_AUTO_TEST_CASE(zero3_moves_three_times_the_weights)
{
    TempDir dir;
    LlmStepSpec spec;
    spec.model = ToyModel();
    spec.layout = Layout(4, 1, 1, 4); // dp 4, one micro-batch each
    spec.layout.zero = 3;
    const double weightBytes = 2.0 * TotalParameters(spec.model);
    for (double moved : MovedBytes(WriteLlmStep(dir.File("z3"), spec), 4))
    {
        BOOST_TEST(moved == 3 * weightBytes, boost::test_tools::tolerance(0.001));
    }
}

// The element sizes of the gathers and reductions (--fsdp-param-dtype, --grad-reduce-dtype):
// FSDP gathering fp32 weights moves 4 + 4 + 2 = 10 bytes a parameter per step with one
// micro-batch (5x the 16-bit weights), with fp32 gradients too 12 (6x); plain data
// parallelism reduces 2 or 4 bytes a parameter.
BOOST_AUTO_TEST_CASE(gather_and_reduce_dtypes_scale_the_traffic)
{
    TempDir dir;
    LlmStepSpec spec;
    spec.model = ToyModel();
    spec.layout = Layout(4, 1, 1, 4);
    spec.layout.fsdp = true;
    spec.layout.gatherBytes = 4;
    const double weightBytes = 2.0 * TotalParameters(spec.model);
    // Two gathered layers are held, now at 4 bytes a parameter instead of 2.
    LlmStepSpec half = spec;
    half.layout.gatherBytes = 2;
    const double largest = LayerParametersOnGpu(spec.model, spec.layout, 0).dense;
    BOOST_TEST(PlanLlmStep(spec).memory.weights - PlanLlmStep(half).memory.weights ==
                   2 * (4 - 2) * largest,
               boost::test_tools::tolerance(1e-9));
    for (double moved : MovedBytes(WriteLlmStep(dir.File("g32"), spec), 4))
    {
        BOOST_TEST(moved == 5 * weightBytes, boost::test_tools::tolerance(0.001));
    }
    spec.layout.gradReduceBytes = 4;
    for (double moved : MovedBytes(WriteLlmStep(dir.File("g32r32"), spec), 4))
    {
        BOOST_TEST(moved == 6 * weightBytes, boost::test_tools::tolerance(0.001));
    }
    // Data parallelism without sharding: one all-reduce of the gradients (in buckets).
    spec.layout.fsdp = false;
    spec.layout.gatherBytes = 2;
    spec.layout.gradReduceBytes = 2;
    for (double moved : MovedBytes(WriteLlmStep(dir.File("dp16"), spec), 4))
    {
        BOOST_TEST(moved == weightBytes, boost::test_tools::tolerance(0.001));
    }
    spec.layout.gradReduceBytes = 4;
    for (double moved : MovedBytes(WriteLlmStep(dir.File("dp32"), spec), 4))
    {
        BOOST_TEST(moved == 2 * weightBytes, boost::test_tools::tolerance(0.001));
    }
    // fp32 gathers exist only where weights are gathered for every pass.
    spec.layout.gatherBytes = 4;
    spec.layout.zero = 1;
    BOOST_CHECK_EXCEPTION(WriteLlmStep(dir.File("z1"), spec),
                          std::invalid_argument,
                          [](const std::invalid_argument& e) {
                              return std::string(e.what()).find("--fsdp-param-dtype fp32 needs "
                                                                "--fsdp or --zero 3") !=
                                     std::string::npos;
                          });
    BOOST_TEST(!chakra_test::FileExists(dir.File("z1.0.et")));
}

// Gathered fp32 weights are cast to 16 bits for every pass (autocast): 6 bytes of memory
// traffic a parameter in the forward (read 4, write 2) and 6 in the backward (the gradient
// back through the cast), 12 with a full recompute's second forward. Checked against the
// optimizer step's 28 bytes a parameter of the rank's quarter (the same memory bandwidth
// times both): a layer's forward cast takes 6 P / (28 x total / 4) of the optimizer's time.
BOOST_AUTO_TEST_CASE(fp32_gathers_cast_the_weights_every_pass)
{
    TempDir dir;
    LlmStepSpec spec;
    // Two layers of hidden 4096 (201 M parameters each): casts of hundreds of us, so that
    // the traces' whole microseconds do not blur the ratios.
    spec.model = chakra_test::GeluTransformer("cast", 2, 4096, 32, 32000);
    spec.layout = Layout(4, 1, 1, 4);
    spec.layout.fsdp = true;
    spec.layout.gatherBytes = 4;
    const double total = static_cast<double>(TotalParameters(spec.model));
    const double layer =
        static_cast<double>(LayerParametersOnGpu(spec.model, spec.layout, 0).dense);
    for (const Recompute recompute : {Recompute::None, Recompute::Full})
    {
        spec.layout.recompute = recompute;
        const auto nodes = ReadNodes(WriteLlmStep(dir.File("cast"), spec).front());
        double optimizer = 0;
        std::vector<double> layerCasts;
        for (const auto& node : nodes)
        {
            if (node.name() == "optimizer_step")
            {
                optimizer = static_cast<double>(node.duration_micros());
            }
            if (node.name().rfind("weight_cast_l", 0) == 0)
            {
                layerCasts.push_back(static_cast<double>(node.duration_micros()));
            }
        }
        BOOST_TEST_REQUIRE(optimizer > 0);
        // Two layers, forward then backward: l0 l1 (forward), l1 l0 (backward).
        BOOST_TEST_REQUIRE(layerCasts.size() == 4u);
        const double forward = optimizer * 6 * layer / (28 * total / 4);
        const double backward = forward * (recompute == Recompute::Full ? 2 : 1);
        BOOST_TEST(layerCasts[0] == forward, boost::test_tools::tolerance(0.01));
        BOOST_TEST(layerCasts[1] == forward, boost::test_tools::tolerance(0.01));
        BOOST_TEST(layerCasts[2] == backward, boost::test_tools::tolerance(0.01));
        BOOST_TEST(layerCasts[3] == backward, boost::test_tools::tolerance(0.01));
    }
    // 16-bit gathers: no cast.
    spec.layout.gatherBytes = 2;
    spec.layout.recompute = Recompute::None;
    for (const auto& node : ReadNodes(WriteLlmStep(dir.File("nocast"), spec).front()))
    {
        BOOST_TEST(node.name().find("weight_cast") == std::string::npos);
    }
}

// A bad layout is refused before any file is written.
BOOST_AUTO_TEST_CASE(a_bad_layout_writes_nothing)
{
    TempDir dir;
    LlmStepSpec spec;
    spec.model = ToyModel();
    spec.layout = Layout(3, 3, 1, 1); // 3 does not divide 8 heads
    BOOST_CHECK_THROW(WriteLlmStep(dir.File("bad"), spec), std::invalid_argument);
    BOOST_TEST(!chakra_test::FileExists(dir.File("bad.0.et")));
}

// Pipeline parallelism: with pp 2 and 4 micro-batches, the first stage sends 4 activations
// and receives 4 gradients, each b x s x h x 2 bytes; the step runs to completion on a small
// cluster (no deadlock between the stages' 1F1B orders, the tensor-parallel groups and the
// data-parallel reductions).
BOOST_AUTO_TEST_CASE(a_pipelined_step_exchanges_activations_and_runs_to_completion)
{
    TempDir dir;
    LlmStepSpec spec;
    spec.model = ToyModel();
    spec.layout = Layout(8, 2, 2, 8); // tp 2, pp 2, dp 2, 4 micro-batches
    const auto files = WriteLlmStep(dir.File("pp"), spec);
    BOOST_REQUIRE(files.size() == 8u);
    uint32_t sends = 0;
    uint32_t recvs = 0;
    for (const auto& node : ReadNodes(files.at(0))) // tp 0, dp 0, stage 0
    {
        if (node.type() == ChakraProtoMsg::COMM_SEND_NODE)
        {
            BOOST_TEST(IntAttr(node, "comm_size") == 2 * 512 * 1024);
            ++sends;
        }
        recvs += node.type() == ChakraProtoMsg::COMM_RECV_NODE;
    }
    BOOST_TEST(sends == 4u);
    BOOST_TEST(recvs == 4u);

    chakra_test::ClusterConfig config;
    config.hosts = 2;
    config.gpusPerHost = 4;
    config.transport = "flow";
    const ChakraReport report = chakra_test::RunCluster(dir.File("pp"), config);
    BOOST_TEST(report.AllFinished());

    // The report's throughput is the step's stated FLOPs and tokens over the simulated time:
    // 8 sequences of 512 tokens, FLOPs per token from the model, H100's 989 dense BF16 TFLOP/s.
    const TrainingThroughput throughput = report.GetTrainingThroughput();
    BOOST_REQUIRE(throughput.stated);
    const double seconds = report.GetIterationTime().GetSeconds();
    const double flops = TrainingFlopsPerToken(spec.model, 512, true) * 8 * 512;
    BOOST_TEST(throughput.tokensPerSecondPerGpu == 8 * 512 / seconds / 8,
               boost::test_tools::tolerance(1e-9));
    BOOST_TEST(throughput.tflopsPerGpu == flops / seconds / 8 / 1e12,
               boost::test_tools::tolerance(1e-9));
    BOOST_TEST(throughput.mfu == flops / seconds / 8 / 989e12, boost::test_tools::tolerance(1e-9));

    // The tensor-parallel all-reduces sit between a layer's GEMMs, so the time split shows them
    // exposed; nothing here is context or expert parallel.
    const StepTimeSplit split = report.GetTimeSplit();
    BOOST_TEST(split.exposed[static_cast<std::size_t>(CommCategory::Tensor)] > 0.0);
    BOOST_TEST(split.exposed[static_cast<std::size_t>(CommCategory::Context)] == 0.0);
    BOOST_TEST(split.exposed[static_cast<std::size_t>(CommCategory::Expert)] == 0.0);
}

// The report's time split on a pure pipeline: 4 stages of 4 layers each, 8 micro-batches, one
// GPU per stage, a small vocabulary so the embedding and output layer do not unbalance the
// stages. 1F1B keeps each stage busy for m (tf + tb) of an iteration of (m + pp - 1)(tf + tb)
// (Narayanan et al., SC'21, section 2.2), so each stage's bubble, waiting on its neighbours and
// idle, is (pp - 1) / (m + pp - 1) = 3/11 of the step. The formula leaves out the activations'
// NVLink transfers (a few microseconds against ~540 us of compute per stage and micro-batch)
// and the last stage's output layer and loss (about 4% more compute there), so the split holds
// it within 2 points; there is no TP, CP, EP or DP traffic to expose.
BOOST_AUTO_TEST_CASE(the_time_split_shows_the_pipeline_bubble_of_1f1b)
{
    TempDir dir;
    LlmStepSpec spec;
    spec.model = ToyModel();
    spec.model.vocab = 1024;
    spec.model.layers = 16;
    spec.layout = Layout(4, 1, 4, 8);
    WriteLlmStep(dir.File("bubble"), spec);
    chakra_test::ClusterConfig config;
    config.hosts = 1;
    config.gpusPerHost = 4;
    config.transport = "flow";
    const ChakraReport report = chakra_test::RunCluster(dir.File("bubble"), config);
    BOOST_REQUIRE(report.AllFinished());
    const StepTimeSplit split = report.GetTimeSplit();
    const double bubble =
        split.idle + split.exposed[static_cast<std::size_t>(CommCategory::Pipeline)];
    BOOST_TEST(bubble == 3.0 / 11, boost::test_tools::tolerance(0.02 / (3.0 / 11)));
    for (CommCategory category : {CommCategory::Tensor,
                                  CommCategory::Context,
                                  CommCategory::Expert,
                                  CommCategory::Data,
                                  CommCategory::Other})
    {
        BOOST_TEST(split.exposed[static_cast<std::size_t>(category)] == 0.0, category);
    }
    std::ostringstream text;
    report.Print(text);
    BOOST_TEST(text.str().find("pipeline bubble") != std::string::npos, text.str());
}

// Megatron-Core's all-to-all dispatcher sends each token a rank routes to its top-k experts,
// h 16-bit values each, starting from the rank's sequence-parallel shard whatever etp
// (megatron/core/transformer/moe/token_dispatcher.py: A2A over EP, then AG over expert TP).
// Toy MoE (no shared experts), 8 GPUs, tp 2 (sp), ep 4, s 512, top 2, h 1024: a rank routes its
// own s / tp = 256 tokens, 256 x 2 x 1024 x 2 = 1,048,576 bytes per dispatch and combine, with
// etp 1 and with etp = tp (the default) alike: 4 layers x (dispatch, combine) x (forward,
// backward) = 16 all-to-alls. Nothing of the routed experts is split over the tp group, so the
// MLP block has no tp collective. With etp 1 the experts are whole (no etp collective); with
// etp = tp = 2 the pair all-gathers what it received (1,048,576 bytes, the rank's part) and
// reduce-scatters the experts' output (2,097,152), once per direction and layer: 8 each.
BOOST_AUTO_TEST_CASE(moe_with_tp_dispatches_each_ranks_own_sequence_shard)
{
    const int64_t part = 256 * 2 * 1024 * 2;
    for (uint32_t etp : {1u, 2u})
    {
        BOOST_TEST_CONTEXT("etp " << etp)
        {
            TempDir dir;
            LlmStepSpec spec;
            spec.model = ToyMoeModel();
            spec.layout = MoeLayout(8, 2, 4, etp);
            const auto nodes = ReadNodes(WriteLlmStep(dir.File("moe"), spec).at(5));
            BOOST_TEST(LayerCollectiveBytes(nodes, "ep_") == std::vector<int64_t>(16, part),
                       boost::test_tools::per_element());
            BOOST_TEST(LayerCollectiveBytes(nodes, "tp_allgather_mlp").empty());
            const auto gathers = LayerCollectiveBytes(nodes, "etp_allgather_");
            const auto scatters = LayerCollectiveBytes(nodes, "etp_reducescatter_");
            BOOST_TEST(gathers == std::vector<int64_t>(etp == 1 ? 0 : 8, part),
                       boost::test_tools::per_element());
            BOOST_TEST(scatters == std::vector<int64_t>(etp == 1 ? 0 : 8, 2 * part),
                       boost::test_tools::per_element());
        }
    }
}

// 1 < etp < tp: tp 4 (sp), ep 2, etp 2 on 8 GPUs. A rank routes s / tp = 128 tokens: all-to-alls
// of 128 x 2 x 1024 x 2 = 524,288 bytes. Its expert tensor group (2 consecutive ranks) then
// all-gathers what the pair received (the rank's part, 524,288 bytes) and reduce-scatters the
// experts' output (the whole, 2 x 524,288): one of each per direction and layer, 8 of each.
// The step, with its expert tensor groups, runs to completion.
BOOST_AUTO_TEST_CASE(etp_between_1_and_tp_gathers_over_the_expert_tensor_group)
{
    TempDir dir;
    LlmStepSpec spec;
    spec.model = ToyMoeModel();
    spec.layout = MoeLayout(8, 4, 2, 2);
    const auto nodes = ReadNodes(WriteLlmStep(dir.File("etp"), spec).at(3));
    const int64_t part = 128 * 2 * 1024 * 2;
    BOOST_TEST(LayerCollectiveBytes(nodes, "ep_") == std::vector<int64_t>(16, part),
               boost::test_tools::per_element());
    BOOST_TEST(LayerCollectiveBytes(nodes, "etp_allgather_") == std::vector<int64_t>(8, part),
               boost::test_tools::per_element());
    BOOST_TEST(LayerCollectiveBytes(nodes, "etp_reducescatter_") ==
                   std::vector<int64_t>(8, 2 * part),
               boost::test_tools::per_element());
    chakra_test::ClusterConfig config;
    config.hosts = 2;
    config.gpusPerHost = 4;
    config.transport = "flow";
    BOOST_TEST(chakra_test::RunCluster(dir.File("etp"), config).AllFinished());
}

// The step's model FLOPs are the model's, whatever the layout (the MFU convention): the
// metadata of every rank states the same count for etp 1 and etp = tp, and it is
// TrainingFlopsPerToken x the 4 x 512 tokens of the step. The step runs to completion with
// etp 1 (the expert groups inside the tensor groups).
BOOST_AUTO_TEST_CASE(etp_keeps_the_model_flops_and_the_step_runs)
{
    const TransformerModel model = ToyMoeModel();
    const double flops = TrainingFlopsPerToken(model, 512, true) * 4 * 512;
    for (uint32_t etp : {1u, 2u})
    {
        BOOST_TEST_CONTEXT("etp " << etp)
        {
            TempDir dir;
            LlmStepSpec spec;
            spec.model = model;
            spec.layout = MoeLayout(8, 2, 4, etp);
            const auto files = WriteLlmStep(dir.File("flops"), spec);
            for (const auto& file : files)
            {
                const EtReader reader(file);
                double stated = 0;
                for (const auto& attr : reader.GetMetadata().attr())
                {
                    stated = attr.name() == "model_flops_per_step" ? attr.double_val() : stated;
                }
                BOOST_TEST(stated == flops, boost::test_tools::tolerance(1e-12));
            }
            if (etp == 1)
            {
                chakra_test::ClusterConfig config;
                config.hosts = 2;
                config.gpusPerHost = 4;
                config.transport = "flow";
                BOOST_TEST(chakra_test::RunCluster(dir.File("flops"), config).AllFinished());
            }
        }
    }
}

// The command line: every mistake is one error line naming the flag (or the model), exit 1,
// and no trace written; a good one writes one trace per GPU.
BOOST_AUTO_TEST_CASE(the_command_line_checks_before_writing)
{
    TempDir dir;
    const std::string tool = chakra_test::ToolPath("chakra_generator") + " --workload llm ";
    const std::vector<std::pair<std::string, std::string>> mistakes = {
        {"--model llama3-8b --ranks 12 --tp 3", "--tp 3 does not divide the 32 attention heads"},
        {"--model llama-8b", "did you mean 'llama3-8b'"},
        {"--model llama3-8b --layers 4", "--layers does not apply to --workload llm"},
        {"--model llama3-8b --recompute some", "--recompute: 'some' is not valid"},
        {"--model llama3-8b --gpu V100", "--gpu"},
        {"--model llama3-8b --ranks 8 --pp 2 --vp 2 --gbs 12", "multiple of --pp 2"},
        {"--model " + dir.File("absent.json"), "absent.json"},
        {"--model mixtral-8x7b --ranks 8 --tp 2 --ep 4 --etp 1", "needs --sequence-parallel"},
        {"--model llama3-8b --ranks 8 --fsdp --fsdp-param-dtype fp16",
         "--fsdp-param-dtype: 'fp16' is not valid (bf16, fp32)"},
        {"--model llama3-8b --ranks 8 --grad-reduce-dtype tf32",
         "--grad-reduce-dtype: 'tf32' is not valid (bf16, fp32)"},
        {"--model llama3-8b --ranks 8 --fsdp-param-dtype fp32", "needs --fsdp or --zero 3"},
        {"--model llama3-8b --ranks 8 --tp 2 --tp-comm-overlap ring",
         "--tp-comm-overlap: 'ring' is not valid (none, async, userbuffers)"},
        {"--model llama3-8b --ranks 8 --tp 2 --tp-comm-overlap userbuffers",
         "--tp-comm-overlap userbuffers needs --sequence-parallel"},
    };
    for (const auto& [flags, message] : mistakes)
    {
        BOOST_TEST_CONTEXT(flags)
        {
            const auto result =
                chakra_test::RunCommand(tool + flags + " --output-prefix " + dir.File("bad"));
            BOOST_TEST(result.exitCode == 1, result.output);
            BOOST_TEST(result.output.find(message) != std::string::npos, result.output);
            BOOST_TEST(!chakra_test::FileExists(dir.File("bad.0.et")));
        }
    }
    const auto good = chakra_test::RunCommand(tool +
                                              "--model llama3-8b --ranks 4 --tp 2 --pp 2 --seq "
                                              "1024 --gbs 4 --output-prefix " +
                                              dir.File("good"));
    BOOST_TEST(good.exitCode == 0, good.output);
    BOOST_TEST(good.output.find("llama3-8b on 4 GPUs (H100): tp 2, pp 2") != std::string::npos,
               good.output);
    BOOST_TEST(chakra_test::FileExists(dir.File("good.3.et")));
    BOOST_TEST(!chakra_test::FileExists(dir.File("good.4.et")));
}

BOOST_AUTO_TEST_SUITE_END()
