/*
 * TransformerModel: the presets' parameter counts against the published ones, the layer parts
 * and training FLOPs against formulas written out here, and model files (ours in YAML, a
 * Hugging Face config.json) read back, with the errors of bad files.
 */
#define BOOST_TEST_MODULE transformer_model
#include "chakra-test-data.h"

#include "ns3/transformer-model.h"

#include <boost/test/unit_test.hpp>
#include <cmath>
#include <fstream>

using namespace ns3;
using chakra_test::TempDir;

namespace
{

/** Writes \p text to \p name in \p dir and returns its path. */
std::string
WriteFile(const TempDir& dir, const std::string& name, const std::string& text)
{
    const std::string path = dir.Path() + "/" + name;
    std::ofstream(path) << text;
    return path;
}

/** Checks \p count is within \p tolerance (relative) of the published \p figure. */
void
CheckNear(double count, double figure, double tolerance, const std::string& what)
{
    BOOST_TEST_INFO(what << ": " << count << " vs published " << figure);
    BOOST_CHECK_LE(std::abs(count - figure) / figure, tolerance);
}

/** Checks reading \p path fails with a message that holds each of \p parts. */
void
CheckFileError(const std::string& path, const std::vector<std::string>& parts)
{
    try
    {
        ReadModelFile(path);
        BOOST_ERROR("no error for " << path);
    }
    catch (const std::invalid_argument& e)
    {
        for (const auto& part : parts)
        {
            BOOST_TEST_INFO("message: " << e.what());
            BOOST_CHECK(std::string(e.what()).find(part) != std::string::npos);
        }
    }
}

/** Checks two models are the same shape (the name aside). */
void
CheckSameShape(const TransformerModel& a, const TransformerModel& b)
{
    BOOST_CHECK_EQUAL(a.layers, b.layers);
    BOOST_CHECK_EQUAL(a.hidden, b.hidden);
    BOOST_CHECK_EQUAL(a.ffn, b.ffn);
    BOOST_CHECK_EQUAL(a.heads, b.heads);
    BOOST_CHECK_EQUAL(a.kvHeads, b.kvHeads);
    BOOST_CHECK_EQUAL(a.headDim, b.headDim);
    BOOST_CHECK_EQUAL(a.vocab, b.vocab);
    BOOST_CHECK_EQUAL(a.gatedMlp, b.gatedMlp);
    BOOST_CHECK_EQUAL(a.tiedEmbeddings, b.tiedEmbeddings);
    BOOST_CHECK_EQUAL(a.experts, b.experts);
    BOOST_CHECK_EQUAL(a.topK, b.topK);
    BOOST_CHECK_EQUAL(a.sharedExperts, b.sharedExperts);
    BOOST_CHECK_EQUAL(a.moeFfn, b.moeFfn);
    BOOST_CHECK_EQUAL(a.denseLayers, b.denseLayers);
    BOOST_CHECK_EQUAL(a.qLoraRank, b.qLoraRank);
    BOOST_CHECK_EQUAL(a.kvLoraRank, b.kvLoraRank);
    BOOST_CHECK_EQUAL(a.qkRopeHeadDim, b.qkRopeHeadDim);
    BOOST_CHECK_EQUAL(a.qkNopeHeadDim, b.qkNopeHeadDim);
    BOOST_CHECK_EQUAL(a.vHeadDim, b.vHeadDim);
}

/** Meta's Llama 3 8B config.json (huggingface.co/meta-llama/Meta-Llama-3-8B), as published. */
const char* kLlama3HfConfig = R"({
  "architectures": ["LlamaForCausalLM"],
  "attention_bias": false,
  "attention_dropout": 0.0,
  "bos_token_id": 128000,
  "eos_token_id": 128001,
  "hidden_act": "silu",
  "hidden_size": 4096,
  "initializer_range": 0.02,
  "intermediate_size": 14336,
  "max_position_embeddings": 8192,
  "model_type": "llama",
  "num_attention_heads": 32,
  "num_hidden_layers": 32,
  "num_key_value_heads": 8,
  "pretraining_tp": 1,
  "rms_norm_eps": 1e-05,
  "rope_scaling": null,
  "rope_theta": 500000.0,
  "tie_word_embeddings": false,
  "torch_dtype": "bfloat16",
  "transformers_version": "4.40.0.dev0",
  "use_cache": true,
  "vocab_size": 128256
})";

} // namespace

BOOST_AUTO_TEST_SUITE(presets)

/**
 * Every preset's total (and, for MoE, active) parameters are within 1-2% of the published
 * figure: the presets hold the published shapes and the counts add the right parts.
 */
BOOST_AUTO_TEST_CASE(parameter_counts_match_published_figures)
{
    // Brown et al. 2020, Table 2.1: "GPT-3 175B".
    CheckNear(TotalParameters(ModelPreset("gpt3-175b")), 175e9, 0.01, "gpt3-175b");
    // Hugging Face model cards, "Model size": 8.03B, 70.6B, 406B (Meta: 405B).
    CheckNear(TotalParameters(ModelPreset("llama3-8b")), 8.03e9, 0.01, "llama3-8b");
    CheckNear(TotalParameters(ModelPreset("llama3-70b")), 70.6e9, 0.01, "llama3-70b");
    CheckNear(TotalParameters(ModelPreset("llama3-405b")), 405e9, 0.01, "llama3-405b");
    // Mistral AI, "Mixtral of experts" (mistral.ai/news/mixtral-of-experts, Dec 2023): "46.7B
    // total parameters but only uses 12.9B parameters per token".
    const auto mixtral = ModelPreset("mixtral-8x7b");
    CheckNear(TotalParameters(mixtral), 46.7e9, 0.01, "mixtral total");
    CheckNear(ActiveParameters(mixtral), 12.9e9, 0.01, "mixtral active");
    // DeepSeek-V3 Technical Report (arXiv:2412.19437), abstract: 671B total, 37B activated
    // per token (the MTP module's 14B are not in either figure).
    const auto deepseek = ModelPreset("deepseek-v3");
    CheckNear(TotalParameters(deepseek), 671e9, 0.01, "deepseek-v3 total");
    CheckNear(ActiveParameters(deepseek), 37e9, 0.02, "deepseek-v3 active");
    // A dense model uses all its weights for every token.
    BOOST_CHECK_EQUAL(ActiveParameters(ModelPreset("llama3-70b")),
                      TotalParameters(ModelPreset("llama3-70b")));
}

/** Every preset passes CheckModel and is named after itself. */
BOOST_AUTO_TEST_CASE(presets_are_valid)
{
    const auto names = ModelPresetNames();
    BOOST_CHECK_EQUAL(names.size(), 6u);
    for (const auto& name : names)
    {
        const auto model = ModelPreset(name);
        BOOST_CHECK_EQUAL(model.name, name);
        BOOST_CHECK_NO_THROW(CheckModel(model, name));
    }
}

/** An unknown preset's error suggests the near name and lists the presets. */
BOOST_AUTO_TEST_CASE(unknown_preset_suggests_and_lists)
{
    try
    {
        ModelPreset("llama-8b");
        BOOST_ERROR("no error");
    }
    catch (const std::invalid_argument& e)
    {
        const std::string message = e.what();
        BOOST_TEST_INFO(message);
        BOOST_CHECK(message.find("did you mean 'llama3-8b'") != std::string::npos);
        BOOST_CHECK(message.find("deepseek-v3") != std::string::npos);
    }
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(layers)

/**
 * Llama 3 8B's layer by hand: Q and O 4096 x 4096 each, K and V 4096 x (8 heads x 128), the
 * SwiGLU MLP 3 x 4096 x 14336, two RMSNorms of 4096; embeddings 2 x 128256 x 4096 + 4096.
 */
BOOST_AUTO_TEST_CASE(llama3_8b_layer_by_hand)
{
    const auto m = ModelPreset("llama3-8b");
    const auto p = LayerParameterCount(m, 0);
    BOOST_CHECK_EQUAL(p.attention, 2ull * 4096 * 4096 + 2ull * 4096 * 1024);
    BOOST_CHECK_EQUAL(p.denseMlp, 3ull * 4096 * 14336);
    BOOST_CHECK_EQUAL(p.routedExpert, 0u);
    BOOST_CHECK_EQUAL(p.router, 0u);
    BOOST_CHECK_EQUAL(p.norms, 2u * 4096);
    BOOST_CHECK_EQUAL(EmbeddingParameters(m), 2ull * 128256 * 4096 + 4096);
    BOOST_CHECK(!IsMoeLayer(m, 0));
    BOOST_CHECK_THROW(LayerParameterCount(m, 32), std::invalid_argument);
}

/**
 * DeepSeek-V3: the first 3 layers dense (18432 wide), the others 256 routed + 1 shared
 * experts of 2048; MLA's projections by hand from DeepSeek-V2 (arXiv:2405.04434) section 2.1:
 * W_DQ 7168x1536, W_UQ+W_QR 1536x128x(128+64), W_DKV+W_KR 7168x(512+64),
 * W_UK+W_UV 512x128x(128+128), W_O 128x128x7168.
 */
BOOST_AUTO_TEST_CASE(deepseek_v3_layers_by_hand)
{
    const auto m = ModelPreset("deepseek-v3");
    BOOST_CHECK(!IsMoeLayer(m, 2));
    BOOST_CHECK(IsMoeLayer(m, 3));
    const uint64_t mla = 7168ull * 1536 + 1536ull * 128 * 192 + 7168ull * 576 + 512ull * 128 * 256 +
                         128ull * 128 * 7168;
    const auto dense = LayerParameterCount(m, 0);
    BOOST_CHECK_EQUAL(dense.attention, mla);
    BOOST_CHECK_EQUAL(dense.denseMlp, 3ull * 7168 * 18432);
    BOOST_CHECK_EQUAL(dense.norms, 2ull * 7168 + 1536 + 512);
    const auto moe = LayerParameterCount(m, 60);
    BOOST_CHECK_EQUAL(moe.attention, mla);
    BOOST_CHECK_EQUAL(moe.denseMlp, 0u);
    BOOST_CHECK_EQUAL(moe.routedExpert, 3ull * 7168 * 2048);
    BOOST_CHECK_EQUAL(moe.sharedExperts, 3ull * 7168 * 2048);
    BOOST_CHECK_EQUAL(moe.router, 7168ull * 256);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(flops)

/**
 * GPT-3 175B against Narayanan et al., SC'21 ("Efficient Large-Scale Language Model Training
 * on GPU Clusters Using Megatron-LM"), section 5.1 / appendix: a batch of B sequences of s
 * tokens costs 72 B s l h^2 (1 + s/(6h) + V/(12 l h)) without recompute, attention counted
 * non-causal; per token divide by B s. Causal halves the s/(6h) term.
 */
BOOST_AUTO_TEST_CASE(gpt3_matches_narayanan_formula)
{
    const auto m = ModelPreset("gpt3-175b");
    const double l = 96;
    const double h = 12288;
    const double V = 50257;
    const double s = 2048;
    const double full = 72 * l * h * h * (1 + s / (6 * h) + V / (12 * l * h));
    const double causal = 72 * l * h * h * (1 + s / (12 * h) + V / (12 * l * h));
    BOOST_CHECK_CLOSE(TrainingFlopsPerToken(m, 2048, false), full, 1e-9);
    BOOST_CHECK_CLOSE(TrainingFlopsPerToken(m, 2048, true), causal, 1e-9);
    // The familiar rule of thumb: about 6 x parameters per token (here within 3% at s 2048).
    CheckNear(TrainingFlopsPerToken(m, 2048, true), 6 * 175e9, 0.03, "6N");
}

/**
 * Llama 3 8B (GQA, SwiGLU): 6 x (the GEMM weights a token passes: per layer Q, K, V, O and the
 * three MLP matrices; the LM head) + the attention term 3 x 2 x l x (2 s heads headDim) / 2.
 */
BOOST_AUTO_TEST_CASE(llama3_8b_gqa_by_hand)
{
    const auto m = ModelPreset("llama3-8b");
    const double s = 8192;
    const double perLayer = 4096.0 * (4096 + 1024 + 1024) + 4096.0 * 4096 + 3.0 * 4096 * 14336;
    const double lmHead = 128256.0 * 4096;
    const double attention = 6 * 32 * (2 * s * 32 * 128) / 2;
    const double expected = 6 * (32 * perLayer + lmHead) + attention;
    BOOST_CHECK_CLOSE(TrainingFlopsPerToken(m, 8192, true), expected, 1e-9);
}

/**
 * Mixtral 8x7B: a token passes the attention, its router and TWO of the eight experts; the
 * FLOPs grow by exactly 6 x one expert's weights per layer when top-k goes from 2 to 3.
 */
BOOST_AUTO_TEST_CASE(moe_counts_top_k_experts)
{
    auto m = ModelPreset("mixtral-8x7b");
    const double s = 4096;
    const double expert = 3.0 * 4096 * 14336;
    const double perLayer = 4096.0 * (4096 + 1024 + 1024) + 4096.0 * 4096 + 2 * expert + 4096 * 8;
    const double attention = 6 * 32 * (2 * s * 32 * 128) / 2;
    const double expected = 6 * (32 * perLayer + 32000.0 * 4096) + attention;
    BOOST_CHECK_CLOSE(TrainingFlopsPerToken(m, 4096, true), expected, 1e-9);
    m.topK = 3;
    BOOST_CHECK_CLOSE(TrainingFlopsPerToken(m, 4096, true), expected + 6 * 32 * expert, 1e-9);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(model_files)

/** Meta's Llama 3 8B config.json, extra keys and all, reads to the llama3-8b preset. */
BOOST_AUTO_TEST_CASE(hugging_face_config_reads_as_preset)
{
    TempDir dir;
    const auto path = WriteFile(dir, "Meta-Llama-3-8B.json", kLlama3HfConfig);
    const auto model = ReadModelFile(path);
    CheckSameShape(model, ModelPreset("llama3-8b"));
    BOOST_CHECK_EQUAL(model.name, "Meta-Llama-3-8B");
}

/**
 * DeepSeek-V3's config.json keys (n_routed_experts, first_k_dense_replace, MLA ranks, a null
 * key, a nested one) read to the deepseek-v3 preset; "gelu" marks GPT-style 2-matrix MLPs.
 */
BOOST_AUTO_TEST_CASE(hugging_face_moe_and_mla_keys)
{
    TempDir dir;
    const auto path = WriteFile(dir, "dsv3.json", R"({
      "model_type": "deepseek_v3", "hidden_act": "silu", "num_hidden_layers": 61,
      "hidden_size": 7168, "intermediate_size": 18432, "moe_intermediate_size": 2048,
      "num_attention_heads": 128, "num_key_value_heads": 128, "vocab_size": 129280,
      "n_routed_experts": 256, "n_shared_experts": 1, "num_experts_per_tok": 8,
      "first_k_dense_replace": 3, "moe_layer_freq": 1, "q_lora_rank": 1536,
      "kv_lora_rank": 512, "qk_rope_head_dim": 64, "qk_nope_head_dim": 128, "v_head_dim": 128,
      "tie_word_embeddings": false, "num_nextn_predict_layers": 1, "quantization_config": null,
      "rope_scaling": {"factor": 40, "type": "yarn"}})");
    CheckSameShape(ReadModelFile(path), ModelPreset("deepseek-v3"));

    const auto gelu = WriteFile(dir, "gelu.json", R"({"model_type": "x", "hidden_act": "gelu_new",
      "num_hidden_layers": 2, "hidden_size": 64, "intermediate_size": 256,
      "num_attention_heads": 4, "vocab_size": 100, "tie_word_embeddings": true})");
    const auto model = ReadModelFile(gelu);
    BOOST_CHECK(!model.gatedMlp);
    BOOST_CHECK(model.tiedEmbeddings);
    BOOST_CHECK_EQUAL(model.kvHeads, 4u);
    BOOST_CHECK_EQUAL(model.headDim, 16u);
}

/** A YAML file with our keys reads to the model it describes (Mixtral 8x7B here). */
BOOST_AUTO_TEST_CASE(yaml_with_our_keys)
{
    TempDir dir;
    const auto path = WriteFile(dir, "mixtral.yaml", R"(name: my-mixtral
layers: 32
hidden: 4096
ffn: 14336
heads: 32
kv-heads: 8
vocab: 32000
gated-mlp: true
tied-embeddings: false
experts: 8
top-k: 2
)");
    const auto model = ReadModelFile(path);
    CheckSameShape(model, ModelPreset("mixtral-8x7b"));
    BOOST_CHECK_EQUAL(model.name, "my-mixtral");
}

/** Each bad file is refused with the file and the offending key in the message. */
BOOST_AUTO_TEST_CASE(bad_files_name_file_and_key)
{
    TempDir dir;
    const std::string base = "layers: 2\nhidden: 64\nffn: 256\nheads: 4\nvocab: 100\n";
    auto check = [&](const std::string& name,
                     const std::string& text,
                     const std::vector<std::string>& parts) {
        const auto path = WriteFile(dir, name, text);
        auto all = parts;
        all.push_back(path);
        CheckFileError(path, all);
    };
    check("missing.yaml", "layers: 2\nffn: 256\nheads: 4\nvocab: 100\n", {"'hidden'", "missing"});
    check("unknown.yaml", base + "kv-head: 2\n", {"'kv-head'", "did you mean 'kv-heads'"});
    check("negative.yaml", base + "experts: -1\n", {"'experts'"});
    check("fraction.json",
          R"({"layers": 2, "hidden": 64.5, "ffn": 256, "heads": 4, "vocab": 100})",
          {"'hidden'"});
    check("zero.yaml", "layers: 0\nhidden: 64\nffn: 256\nheads: 4\nvocab: 100\n", {"'layers'"});
    check("absurd.yaml",
          "layers: 2000000\nhidden: 64\nffn: 256\nheads: 4\nvocab: 100\n",
          {"'layers'"});
    // Each field in range, but 10^6 layers of width 10^6 is beyond any model (> 10^15).
    check("huge.yaml",
          "layers: 1000000\nhidden: 1000000\nffn: 256\nheads: 4\nvocab: 100\n",
          {"absurd"});
    check("gqa.yaml", base + "kv-heads: 3\n", {"'kv-heads'"});
    check("topk.yaml", base + "top-k: 2\n", {"'top-k'"});
    check("topk-big.yaml", base + "experts: 4\ntop-k: 5\n", {"'top-k'"});
    check("mla.yaml", base + "v-head-dim: 64\n", {"'v-head-dim'"});
    check("flag.yaml", base + "gated-mlp: maybe\n", {"'gated-mlp'"});
    check("twice.yaml", base + "hidden: 32\n", {"'hidden'", "twice"});
    check("list.yaml", base + "experts: [1, 2]\n", {"'experts'"});
    // A Hugging Face file's errors name its own keys.
    check("hf.json",
          R"({"model_type": "llama", "num_hidden_layers": 2, "hidden_size": 64,
              "intermediate_size": 256, "num_attention_heads": 4, "num_key_value_heads": 3,
              "vocab_size": 100})",
          {"'num_key_value_heads'"});
    check("hf-freq.json",
          R"({"model_type": "deepseek_v3", "num_hidden_layers": 4, "hidden_size": 64,
              "intermediate_size": 256, "num_attention_heads": 4, "vocab_size": 100,
              "n_routed_experts": 4, "num_experts_per_tok": 2, "moe_layer_freq": 2})",
          {"'moe_layer_freq'"});
    check("hf-missing.json",
          R"({"model_type": "llama", "hidden_size": 64})",
          {"'num_hidden_layers'", "missing"});
    CheckFileError(dir.Path() + "/model.txt", {"model.txt", ".json"});
    CheckFileError(dir.Path() + "/absent.json", {"absent.json", "cannot be read"});
}

BOOST_AUTO_TEST_SUITE_END()
