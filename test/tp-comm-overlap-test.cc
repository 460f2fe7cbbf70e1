/*
 * --tp-comm-overlap (LayerOpPlanner, WriteLlmStep): how a layer's tensor-parallel collectives
 * overlap its GEMMs. Checked by hand against what Megatron-Core and Transformer Engine run:
 * the backward's re-gather of the sequence shard, the split of a GEMM's backward into its
 * input and weight gradients, the ring exchanges' peers and bytes (the bytes of the collectives
 * they replace), the chunks' times (smaller GEMMs of the same model), every asynchronous op
 * waited for, and simulated steps that get shorter as more is overlapped.
 */
#define BOOST_TEST_MODULE tp_comm_overlap
#include "chakra-test-data.h"
#include "llm-test-models.h"
#include "simulation-util.h"

#include "ns3/chakra-module.h"

#include <boost/test/unit_test.hpp>
#include <set>

using namespace ns3;
using chakra_test::TempDir;

namespace
{

/** 2 layers, hidden 1024, 8 heads of 128, GELU MLP 4096 wide (as llm-step-test's toy model). */
TransformerModel
ToyModel()
{
    return chakra_test::GeluTransformer("toy", 2, 1024, 8, 32000);
}

/** tp 4 with sequence parallelism, one 512-token sequence per micro-batch, \p mode. */
ParallelLayout
Layout(TpCommOverlap mode, uint32_t gpus = 4)
{
    ParallelLayout layout;
    layout.gpus = gpus;
    layout.tp = 4;
    layout.sequenceParallel = true;
    layout.seq = 512;
    layout.microBatch = 1;
    layout.globalBatch = gpus / 4;
    layout.tpCommOverlap = mode;
    return ResolveLayout(layout, {ToyModel().layers, ToyModel().heads, ToyModel().kvHeads, 0});
}

/** The ops of layer 0's forward and backward. */
std::vector<LayerOp>
LayerOps(const ParallelLayout& layout, const ComputeTimeModel& gpu)
{
    const LayerOpPlanner planner(ToyModel(), layout, gpu, true);
    std::vector<LayerOp> ops = planner.Forward(0);
    const std::vector<LayerOp> backward = planner.Backward(0);
    ops.insert(ops.end(), backward.begin(), backward.end());
    return ops;
}

/** \return the op named \p name (the test fails if there is none) */
const LayerOp&
Op(const std::vector<LayerOp>& ops, const std::string& name)
{
    for (const LayerOp& op : ops)
    {
        if (op.name == name)
        {
            return op;
        }
    }
    BOOST_FAIL("no op " << name);
    return ops.front();
}

/** \return the ops whose name starts with \p prefix */
std::vector<LayerOp>
Starting(const std::vector<LayerOp>& ops, const std::string& prefix)
{
    std::vector<LayerOp> found;
    for (const LayerOp& op : ops)
    {
        if (op.name.rfind(prefix, 0) == 0)
        {
            found.push_back(op);
        }
    }
    return found;
}

/** A block of a larger model, so that a layer's GEMMs take longer than its collectives. */
TransformerModel
WideModel()
{
    return chakra_test::GeluTransformer("wide", 2, 8192, 64, 8192);
}

/** The simulated iteration of the wide model on one host of 4 GPUs, tp 4 (sp), \p mode. */
ChakraReport
RunWide(TpCommOverlap mode, const TempDir& dir, const std::string& name)
{
    LlmStepSpec spec;
    spec.model = WideModel();
    spec.layout.gpus = 4;
    spec.layout.tp = 4;
    spec.layout.sequenceParallel = true;
    spec.layout.seq = 2048;
    spec.layout.microBatch = 1;
    spec.layout.globalBatch = 1;
    spec.layout.tpCommOverlap = mode;
    WriteLlmStep(dir.File(name), spec);
    chakra_test::ClusterConfig config;
    config.hosts = 1;
    config.gpusPerHost = 4;
    config.transport = "flow";
    return chakra_test::RunCluster(dir.File(name), config);
}

} // namespace

BOOST_AUTO_TEST_SUITE(tp_comm_overlap)

// Sequence parallelism keeps only each rank's shard of a column-parallel GEMM's input, so its
// backward gathers the input again for the weight gradient (Megatron-Core's
// LinearWithGradAccumulationAndAsyncCommunication.backward): one all-gather of b x s x h / tp
// elements a rank per block, 1 x 512 x 1024 / 4 x 2 bytes = 262,144, in every mode. Without
// sequence parallelism the whole input was kept: no re-gather.
BOOST_AUTO_TEST_CASE(backward_regathers_the_sequence_shard)
{
    const ComputeTimeModel gpu(LookUpGpuCompute("H100"), Precision::Bf16, 1.0);
    for (TpCommOverlap mode :
         {TpCommOverlap::None, TpCommOverlap::Async, TpCommOverlap::Userbuffers})
    {
        const auto regathers = Starting(LayerOps(Layout(mode), gpu), "tp_regather_");
        BOOST_TEST_REQUIRE(regathers.size() == 2u); // attention and MLP
        for (const LayerOp& op : regathers)
        {
            BOOST_TEST((op.kind == LayerOpKind::TensorCollective));
            BOOST_TEST((op.collective == ChakraProtoMsg::ALL_GATHER));
            BOOST_TEST(op.bytes == 262144u);
            // Only without overlap does the chain wait for it.
            BOOST_TEST(op.blocking == (mode == TpCommOverlap::None));
        }
    }
    ParallelLayout plain = Layout(TpCommOverlap::Async);
    plain.sequenceParallel = false;
    BOOST_TEST(Starting(LayerOps(plain, gpu), "tp_regather_").empty());
}

// Async (Megatron-Core's default): the backward of the QKV GEMM (C[512, 768] = A[512, 1024]
// B[1024, 768] on a rank: (8 + 2 x 8) heads x 128 / 4) is its input gradient dX = dY B^T, a
// (512, 1024, 768) GEMM, and its weight gradient dB = A^T dY, (1024, 768, 512): the two
// together are the fused op of --tp-comm-overlap none. The re-gather runs beside the first and
// the weight gradient waits for it; the input gradient's reduce-scatter runs beside the second
// and the norm's backward waits for it.
BOOST_AUTO_TEST_CASE(async_splits_a_column_parallel_backward_around_its_collectives)
{
    const ComputeTimeModel gpu(LookUpGpuCompute("H100"), Precision::Bf16, 1.0);
    const auto async = LayerOps(Layout(TpCommOverlap::Async), gpu);
    const LayerOp& dgrad = Op(async, "qkv_l0_backward_dgrad");
    const LayerOp& wgrad = Op(async, "qkv_l0_backward_wgrad");
    BOOST_TEST(dgrad.micros == gpu.GemmMicros(512, 1024, 768), boost::test_tools::tolerance(1e-9));
    BOOST_TEST(wgrad.micros == gpu.GemmMicros(1024, 768, 512), boost::test_tools::tolerance(1e-9));
    const auto none = LayerOps(Layout(TpCommOverlap::None), gpu);
    BOOST_TEST(Op(none, "qkv_l0_backward").micros == dgrad.micros + wgrad.micros,
               boost::test_tools::tolerance(1e-9));
    BOOST_TEST(wgrad.joins == std::vector<std::string>{"tp_regather_attention_grad_l0"});
    const LayerOp& scatter = Op(async, "tp_reducescatter_attention_grad_l0");
    BOOST_TEST(!scatter.blocking);
    BOOST_TEST(scatter.bytes == 512u * 1024 * 2);
    BOOST_TEST(Op(async, "attention_norm_backward_l0").joins ==
               std::vector<std::string>{"tp_reducescatter_attention_grad_l0"});
    // The MLP's up-projection (512 x 4096 / 4 x 1024 on a rank) the same way.
    BOOST_TEST(Op(async, "mlp_l0_up_backward_dgrad").micros == gpu.GemmMicros(512, 1024, 1024),
               boost::test_tools::tolerance(1e-9));
    BOOST_TEST(Op(async, "mlp_norm_backward_l0").joins ==
               std::vector<std::string>{"tp_reducescatter_mlp_grad_l0"});
}

// Userbuffers: the all-gather into QKV and MLP-up (forward) and into the row-parallel GEMMs'
// input gradients (backward) is tp - 1 = 3 ring steps, each passing a 262,144-byte shard to the
// next rank (offset 1) and forwarding the one received before: 3 x 262,144 = 786,432 bytes a
// rank, what the ring all-gather sends. The reduce-scatter after the attention's output and
// MLP-down GEMMs sends each row chunk's partial sum to its owner, 1, 2 and 3 places on: the
// same 786,432 bytes, (tp - 1) / tp of the 1 MiB the collective reduces. The forward has no
// tensor-parallel collective left; the backward keeps the re-gather and the reduce-scatter of
// the column-parallel GEMMs (Transformer Engine's "bulk" overlaps).
BOOST_AUTO_TEST_CASE(ring_exchanges_move_the_bytes_of_the_collectives_they_replace)
{
    const ComputeTimeModel gpu(LookUpGpuCompute("H100"), Precision::Bf16, 1.0);
    const LayerOpPlanner planner(ToyModel(), Layout(TpCommOverlap::Userbuffers), gpu, true);
    const auto forward = planner.Forward(0);
    BOOST_TEST(Starting(forward, "tp_allgather_").empty());
    BOOST_TEST(Starting(forward, "tp_reducescatter_").empty());
    for (const std::string block : {"attention_l0", "mlp_l0"})
    {
        const auto gather = Starting(forward, "tp_ring_allgather_" + block + "_step");
        BOOST_TEST_REQUIRE(gather.size() == 3u);
        uint64_t bytes = 0;
        for (std::size_t i = 0; i < gather.size(); ++i)
        {
            BOOST_TEST((gather[i].kind == LayerOpKind::TensorRingExchange));
            BOOST_TEST(gather[i].offset == 1u);
            BOOST_TEST(!gather[i].blocking);
            bytes += gather[i].bytes;
            if (i > 0)
            {
                BOOST_TEST(gather[i].joins == std::vector<std::string>{gather[i - 1].name});
            }
        }
        BOOST_TEST(bytes == 786432u);
        const auto scatter = Starting(forward, "tp_ring_reducescatter_" + block + "_step");
        BOOST_TEST_REQUIRE(scatter.size() == 3u);
        bytes = 0;
        for (std::size_t i = 0; i < scatter.size(); ++i)
        {
            BOOST_TEST(scatter[i].offset == i + 1);
            bytes += scatter[i].bytes;
        }
        BOOST_TEST(bytes == 786432u);
    }
    const auto backward = planner.Backward(0);
    BOOST_TEST(Starting(backward, "tp_allgather_").empty());
    BOOST_TEST(Starting(backward, "tp_ring_allgather_attention_grad_l0_step").size() == 3u);
    BOOST_TEST(Starting(backward, "tp_ring_allgather_mlp_grad_l0_step").size() == 3u);
    BOOST_TEST(Starting(backward, "tp_regather_").size() == 2u);
    BOOST_TEST(Starting(backward, "tp_reducescatter_").size() == 2u);
}

// A chunk is a GEMM of 512 / 4 = 128 rows: the model's time for that smaller GEMM (its fixed
// cost per kernel paid 4 times), so 4 chunks cost more than the whole. Chunk i > 0 of an
// all-gather's GEMM waits for the shard of ring step i; the reduce-scatter's final sum waits for
// every partial sum sent to it and reads and writes tp + 1 shards.
BOOST_AUTO_TEST_CASE(chunks_are_smaller_gemms_waiting_for_their_shards)
{
    const ComputeTimeModel gpu(LookUpGpuCompute("H100"), Precision::Bf16, 1.0);
    const auto ops = LayerOps(Layout(TpCommOverlap::Userbuffers), gpu);
    const double chunk = gpu.GemmMicros(128, 768, 1024);
    for (uint32_t i = 0; i < 4; ++i)
    {
        const LayerOp& op = Op(ops, "qkv_l0_chunk" + std::to_string(i));
        BOOST_TEST(op.micros == chunk, boost::test_tools::tolerance(1e-9));
        const std::vector<std::string> waits =
            i == 0 ? std::vector<std::string>{}
                   : std::vector<std::string>{"tp_ring_allgather_attention_l0_step" +
                                              std::to_string(i)};
        BOOST_TEST(op.joins == waits);
    }
    BOOST_TEST(4 * chunk > gpu.GemmMicros(512, 768, 1024));
    const LayerOp& reduce = Op(ops, "tp_ring_reduce_mlp_l0");
    BOOST_TEST(reduce.micros == gpu.MemoryBoundMicros(5 * 262144),
               boost::test_tools::tolerance(1e-9));
    BOOST_TEST(reduce.joins.size() == 3u);
}

// With a measured profile the chunks and the two gradients keep the measured whole: the QKV
// forward measured at 100 us is four chunks of 100 x (4 x model(128 rows) / model(512 rows)) / 4
// us, and its backward measured at 300 us splits into the model's shares of dX and dW, summing
// to 300 us.
BOOST_AUTO_TEST_CASE(a_profiles_times_carry_over_to_chunks_and_gradients)
{
    const ComputeTimeModel gpu(LookUpGpuCompute("H100"), Precision::Bf16, 1.0);
    ComputeProfile profile;
    profile.Add("qkv", "512x768x1024", 100);
    profile.Add("qkv_backward", "512x768x1024", 300);
    const LayerOpPlanner ub(ToyModel(), Layout(TpCommOverlap::Userbuffers), gpu, true, &profile);
    const auto forward = ub.Forward(0);
    const double ratio = 4 * gpu.GemmMicros(128, 768, 1024) / gpu.GemmMicros(512, 768, 1024);
    for (uint32_t i = 0; i < 4; ++i)
    {
        BOOST_TEST(Op(forward, "qkv_l0_chunk" + std::to_string(i)).micros == 100 * ratio / 4,
                   boost::test_tools::tolerance(1e-9));
    }
    const LayerOpPlanner async(ToyModel(), Layout(TpCommOverlap::Async), gpu, true, &profile);
    const auto backward = async.Backward(0);
    const double dgrad = gpu.GemmMicros(512, 1024, 768);
    const double wgrad = gpu.GemmMicros(1024, 768, 512);
    BOOST_TEST(Op(backward, "qkv_l0_backward_dgrad").micros == 300 * dgrad / (dgrad + wgrad),
               boost::test_tools::tolerance(1e-9));
    BOOST_TEST(Op(backward, "qkv_l0_backward_wgrad").micros == 300 * wgrad / (dgrad + wgrad),
               boost::test_tools::tolerance(1e-9));
}

// Every asynchronous op is waited for by a later op of its pass, and every op waited for is an
// earlier asynchronous one, in every mode, with full recompute (whose names are prefixed) too;
// none has no asynchronous op, async only in the backward.
BOOST_AUTO_TEST_CASE(every_asynchronous_op_is_joined_in_its_pass)
{
    const ComputeTimeModel gpu(LookUpGpuCompute("H100"), Precision::Bf16, 1.0);
    for (TpCommOverlap mode :
         {TpCommOverlap::None, TpCommOverlap::Async, TpCommOverlap::Userbuffers})
    {
        for (Recompute recompute : {Recompute::None, Recompute::Full})
        {
            ParallelLayout layout = Layout(mode);
            layout.recompute = recompute;
            const LayerOpPlanner planner(ToyModel(), layout, gpu, true);
            for (const bool backward : {false, true})
            {
                const auto ops = backward ? planner.Backward(1) : planner.Forward(1);
                std::set<std::string> open;
                for (const LayerOp& op : ops)
                {
                    for (const std::string& joined : op.joins)
                    {
                        BOOST_TEST(open.count(joined) == 1u, op.name << " joins " << joined);
                    }
                    if (!op.blocking)
                    {
                        open.insert(op.name);
                    }
                }
                std::set<std::string> joined;
                for (const LayerOp& op : ops)
                {
                    joined.insert(op.joins.begin(), op.joins.end());
                }
                for (const std::string& name : open)
                {
                    BOOST_TEST(joined.count(name) == 1u, name << " is never joined");
                }
                // Async overlaps only backward collectives; userbuffers forward ones as well.
                const bool overlaps = mode == TpCommOverlap::Userbuffers ||
                                      (mode == TpCommOverlap::Async && backward);
                BOOST_TEST(overlaps == !open.empty());
            }
        }
    }
}

// The step simulated on one host of 4 H100 (tp 4, sp): a wide model (hidden 8192, sequence
// 2048) whose GEMMs outlast their collectives. Each mode hides more of the tensor-parallel
// traffic: the iteration and the exposed tensor-parallel time shrink from none to async to
// userbuffers, every exchange is matched (the step completes), and the per-role traces of two
// replicas give the per-rank traces' iteration.
BOOST_AUTO_TEST_CASE(overlap_shortens_the_simulated_step)
{
    TempDir dir;
    const ChakraReport none = RunWide(TpCommOverlap::None, dir, "none");
    const ChakraReport async = RunWide(TpCommOverlap::Async, dir, "async");
    const ChakraReport buffers = RunWide(TpCommOverlap::Userbuffers, dir, "ub");
    BOOST_TEST_REQUIRE(none.AllFinished());
    BOOST_TEST_REQUIRE(async.AllFinished());
    BOOST_TEST_REQUIRE(buffers.AllFinished());
    const auto tensor = [](const ChakraReport& report) {
        return report.GetTimeSplit().exposed[static_cast<std::size_t>(CommCategory::Tensor)];
    };
    BOOST_TEST(async.GetIterationTime() < none.GetIterationTime());
    BOOST_TEST(buffers.GetIterationTime() < async.GetIterationTime());
    BOOST_TEST(tensor(async) < tensor(none));
    BOOST_TEST(tensor(buffers) < tensor(async));

    LlmStepSpec spec;
    spec.model = ToyModel();
    spec.layout = Layout(TpCommOverlap::Userbuffers, 8);
    WriteLlmStep(dir.File("ranks"), spec);
    WriteLlmStepRoles(dir.File("roles"), spec);
    chakra_test::ClusterConfig config;
    config.hosts = 1;
    config.gpusPerHost = 8;
    config.transport = "flow";
    const ChakraReport perRank = chakra_test::RunCluster(dir.File("ranks"), config);
    const ChakraReport perRole = chakra_test::RunCluster(dir.File("roles"), config);
    BOOST_TEST_REQUIRE(perRank.AllFinished());
    BOOST_TEST_REQUIRE(perRole.AllFinished());
    BOOST_TEST(perRole.GetIterationTime() == perRank.GetIterationTime());
}

BOOST_AUTO_TEST_SUITE_END()
