#include "transformer-model.h"

#include "ns3/name-suggestion.h"

#include <algorithm>
#include <map>
#include <stdexcept>

namespace ns3
{

namespace
{

/** Layers, widths, heads, experts, ranks: anything larger is a typo, not a model. */
constexpr uint32_t kMaxDimension = 1000000;
/** Vocabularies and MLP widths are larger than the other dimensions, but not this large. */
constexpr uint32_t kMaxWidth = 100000000;
/** Far above any model (DeepSeek-V3: 6.7e11), and low enough that counts fit 64 bits. */
constexpr double kMaxParameters = 1e15;

/**
 * The presets. Each figure is from the model's published config or paper:
 * - gpt3-175b: Brown et al., "Language Models are Few-Shot Learners", 2020, Table 2.1 (96
 *   layers, d_model 12288, 96 heads of 128, d_ff = 4 d_model) and section 2.1 (GPT-2's
 *   tokenizer: 50257 tokens). We keep 50257: Megatron-LM pads the vocabulary to a multiple of
 *   --make-vocab-size-divisible-by (128) x tensor-parallel size, i.e. 50304 at TP 1-8; a caller
 *   that models that padding sets vocab itself. GPT-3's biases and learned position embeddings
 *   (about 0.03% of the weights) are not modelled.
 * - llama3-8b / llama3-70b / llama3-405b: Meta's config.json on Hugging Face,
 *   https://huggingface.co/meta-llama/Meta-Llama-3-8B/blob/main/config.json,
 *   .../Meta-Llama-3-70B/... and .../Llama-3.1-405B/... (tie_word_embeddings false, SiLU).
 * - mixtral-8x7b: https://huggingface.co/mistralai/Mixtral-8x7B-v0.1/blob/main/config.json
 *   (num_local_experts 8, num_experts_per_tok 2; the experts are intermediate_size wide).
 * - deepseek-v3: https://huggingface.co/deepseek-ai/DeepSeek-V3/blob/main/config.json and
 *   DeepSeek-AI, "DeepSeek-V3 Technical Report", arXiv:2412.19437, section 4.2. The
 *   multi-token-prediction module (num_nextn_predict_layers 1, 14B of the 685B on Hugging Face)
 *   is left out: it is not part of the 671B main model, nor of the training step we model.
 */
std::map<std::string, TransformerModel>
Presets()
{
    std::map<std::string, TransformerModel> presets;
    auto dense = [](uint32_t layers,
                    uint32_t hidden,
                    uint32_t ffn,
                    uint32_t heads,
                    uint32_t kvHeads,
                    uint32_t vocab) {
        TransformerModel m;
        m.layers = layers;
        m.hidden = hidden;
        m.ffn = ffn;
        m.heads = heads;
        m.kvHeads = kvHeads;
        m.headDim = hidden / heads;
        m.vocab = vocab;
        return m;
    };
    presets["gpt3-175b"] = dense(96, 12288, 4 * 12288, 96, 96, 50257);
    presets["gpt3-175b"].gatedMlp = false;
    presets["llama3-8b"] = dense(32, 4096, 14336, 32, 8, 128256);
    presets["llama3-70b"] = dense(80, 8192, 28672, 64, 8, 128256);
    presets["llama3-405b"] = dense(126, 16384, 53248, 128, 8, 128256);

    TransformerModel mixtral = dense(32, 4096, 14336, 32, 8, 32000);
    mixtral.experts = 8;
    mixtral.topK = 2;
    mixtral.moeFfn = 14336;
    presets["mixtral-8x7b"] = mixtral;

    TransformerModel deepseek = dense(61, 7168, 18432, 128, 128, 129280);
    deepseek.experts = 256;
    deepseek.topK = 8;
    deepseek.sharedExperts = 1;
    deepseek.moeFfn = 2048;
    deepseek.denseLayers = 3;
    deepseek.qLoraRank = 1536;
    deepseek.kvLoraRank = 512;
    deepseek.qkRopeHeadDim = 64;
    deepseek.qkNopeHeadDim = 128;
    deepseek.vHeadDim = 128;
    presets["deepseek-v3"] = deepseek;

    for (auto& [name, model] : presets)
    {
        model.name = name;
    }
    return presets;
}

/** \return whether the model uses multi-head latent attention */
bool
IsMla(const TransformerModel& m)
{
    return m.kvLoraRank != 0;
}

/** Multiply-add weights of one MLP \p width wide (3 matrices gated, 2 not), in T. */
template <typename T>
T
MlpWeights(const TransformerModel& m, uint32_t width)
{
    return T(m.gatedMlp ? 3 : 2) * T(m.hidden) * T(width);
}

/**
 * The attention projections: Q, K, V and the output; with MLA (DeepSeek-V2, arXiv:2405.04434,
 * section 2.1) the query down (if q is compressed) and up projections, the joint KV down
 * projection with the shared RoPE key, the KV up projection to per-head keys and values, and
 * the output.
 */
template <typename T>
T
AttentionWeights(const TransformerModel& m)
{
    const T h = m.hidden;
    const T heads = m.heads;
    if (!IsMla(m))
    {
        const T hd = m.headDim;
        return h * heads * hd * 2 + h * T(m.kvHeads) * hd * 2;
    }
    const T qk = T(m.qkNopeHeadDim) + T(m.qkRopeHeadDim);
    const T query =
        m.qLoraRank != 0 ? h * T(m.qLoraRank) + T(m.qLoraRank) * heads * qk : h * heads * qk;
    const T keyValue = h * (T(m.kvLoraRank) + T(m.qkRopeHeadDim)) +
                       T(m.kvLoraRank) * heads * (T(m.qkNopeHeadDim) + T(m.vHeadDim));
    return query + keyValue + heads * T(m.vHeadDim) * h;
}

/** One layer's parameters in T (double to bound a model before the uint64 counts). */
template <typename T>
struct Parts
{
    T attention{0};     //!< see LayerParameters
    T denseMlp{0};      //!< see LayerParameters
    T routedExpert{0};  //!< see LayerParameters
    T sharedExperts{0}; //!< see LayerParameters
    T router{0};        //!< see LayerParameters
    T norms{0};         //!< see LayerParameters
};

template <typename T>
Parts<T>
LayerParts(const TransformerModel& m, uint32_t layer)
{
    Parts<T> p;
    p.attention = AttentionWeights<T>(m);
    // Pre-attention and pre-MLP RMSNorm; MLA adds one on the q latent and one on the kv latent.
    p.norms = T(2) * T(m.hidden) + T(m.qLoraRank) + T(m.kvLoraRank);
    if (IsMoeLayer(m, layer))
    {
        p.routedExpert = MlpWeights<T>(m, m.moeFfn);
        p.sharedExperts = T(m.sharedExperts) * p.routedExpert;
        p.router = T(m.hidden) * T(m.experts);
    }
    else
    {
        p.denseMlp = MlpWeights<T>(m, m.ffn);
    }
    return p;
}

/** \return the whole model's parameters, in T; all experts, or only top-k when \p active */
template <typename T>
T
CountParameters(const TransformerModel& m, bool active)
{
    const T embedding = T(m.vocab) * T(m.hidden) * T(m.tiedEmbeddings ? 1 : 2) + T(m.hidden);
    T total = embedding;
    for (uint32_t layer = 0; layer < m.layers; ++layer)
    {
        const Parts<T> p = LayerParts<T>(m, layer);
        const T experts = active ? T(m.topK) : T(m.experts);
        total += p.attention + p.denseMlp + experts * p.routedExpert + p.sharedExperts + p.router +
                 p.norms;
    }
    return total;
}

/** Throws "<where>: key '<key>' <what>". */
[[noreturn]] void
Fail(const std::string& where, const std::string& key, const std::string& what)
{
    throw std::invalid_argument(where + ": key '" + key + "' " + what);
}

/** Checks \p value is in [low, high] (0 allowed when \p low is 0: an optional field unset). */
void
CheckRange(const std::string& where,
           const std::string& key,
           uint32_t value,
           uint32_t low,
           uint32_t high)
{
    if (value < low || value > high)
    {
        Fail(where,
             key,
             "is " + std::to_string(value) + ", not in [" + std::to_string(low) + ", " +
                 std::to_string(high) + "]");
    }
}

/** The mixture-of-experts fields: all unset for a dense model, coherent for an MoE one. */
void
CheckExperts(const TransformerModel& m, const std::string& where)
{
    if (m.experts == 0)
    {
        const std::pair<const char*, uint32_t> moeOnly[] = {{"top-k", m.topK},
                                                            {"shared-experts", m.sharedExperts},
                                                            {"moe-ffn", m.moeFfn},
                                                            {"dense-layers", m.denseLayers}};
        for (const auto& [key, value] : moeOnly)
        {
            if (value != 0)
            {
                Fail(where, key, "is set but 'experts' is 0 (a dense model)");
            }
        }
        return;
    }
    CheckRange(where, "top-k", m.topK, 1, m.experts);
    CheckRange(where, "shared-experts", m.sharedExperts, 0, kMaxDimension);
    CheckRange(where, "moe-ffn", m.moeFfn, 1, kMaxWidth);
    if (m.denseLayers >= m.layers)
    {
        Fail(where,
             "dense-layers",
             "is " + std::to_string(m.denseLayers) + ": no layer of the " +
                 std::to_string(m.layers) + " would have experts");
    }
}

/** Multi-head latent attention: kv-lora-rank > 0 needs the head dimensions. */
void
CheckLatentAttention(const TransformerModel& m, const std::string& where)
{
    if (!IsMla(m))
    {
        const std::pair<const char*, uint32_t> mlaOnly[] = {{"q-lora-rank", m.qLoraRank},
                                                            {"qk-rope-head-dim", m.qkRopeHeadDim},
                                                            {"qk-nope-head-dim", m.qkNopeHeadDim},
                                                            {"v-head-dim", m.vHeadDim}};
        for (const auto& [key, value] : mlaOnly)
        {
            if (value != 0)
            {
                Fail(where, key, "is set but 'kv-lora-rank' is 0 (no latent attention)");
            }
        }
        return;
    }
    CheckRange(where, "kv-lora-rank", m.kvLoraRank, 1, kMaxDimension);
    CheckRange(where, "q-lora-rank", m.qLoraRank, 0, kMaxDimension);
    CheckRange(where, "qk-rope-head-dim", m.qkRopeHeadDim, 1, kMaxDimension);
    CheckRange(where, "qk-nope-head-dim", m.qkNopeHeadDim, 1, kMaxDimension);
    CheckRange(where, "v-head-dim", m.vHeadDim, 1, kMaxDimension);
}

} // namespace

std::vector<std::string>
ModelPresetNames()
{
    std::vector<std::string> names;
    for (const auto& [name, model] : Presets())
    {
        names.push_back(name);
    }
    return names;
}

TransformerModel
ModelPreset(const std::string& name)
{
    const auto presets = Presets();
    auto it = presets.find(name);
    if (it == presets.end())
    {
        const auto names = ModelPresetNames();
        std::string list;
        for (const auto& known : names)
        {
            list += (list.empty() ? "" : ", ") + known;
        }
        throw std::invalid_argument("model preset '" + name + "' is unknown" +
                                    DidYouMean(name, names) + "; presets: " + list);
    }
    return it->second;
}

void
CheckModel(const TransformerModel& m, const std::string& where)
{
    CheckRange(where, "layers", m.layers, 1, kMaxDimension);
    CheckRange(where, "hidden", m.hidden, 1, kMaxDimension);
    CheckRange(where, "ffn", m.ffn, 1, kMaxWidth);
    CheckRange(where, "heads", m.heads, 1, kMaxDimension);
    CheckRange(where, "kv-heads", m.kvHeads, 1, m.heads);
    CheckRange(where, "head-dim", m.headDim, 1, kMaxDimension);
    CheckRange(where, "vocab", m.vocab, 1, kMaxWidth);
    // GQA: each key/value head serves an equal group of query heads.
    if (m.heads % m.kvHeads != 0)
    {
        Fail(where,
             "kv-heads",
             "(" + std::to_string(m.kvHeads) + ") does not divide 'heads' (" +
                 std::to_string(m.heads) + ")");
    }
    CheckRange(where, "experts", m.experts, 0, kMaxDimension);
    CheckExperts(m, where);
    CheckLatentAttention(m, where);
    const double total = CountParameters<double>(m, false);
    if (total > kMaxParameters)
    {
        throw std::invalid_argument(where + ": " + std::to_string(total) +
                                    " parameters is absurd (more than 10^15)");
    }
}

bool
IsMoeLayer(const TransformerModel& m, uint32_t layer)
{
    return m.experts != 0 && layer >= m.denseLayers;
}

LayerParameters
LayerParameterCount(const TransformerModel& m, uint32_t layer)
{
    if (layer >= m.layers)
    {
        throw std::invalid_argument("LayerParameterCount: layer " + std::to_string(layer) +
                                    " of a " + std::to_string(m.layers) + "-layer model");
    }
    const Parts<uint64_t> p = LayerParts<uint64_t>(m, layer);
    LayerParameters out;
    out.attention = p.attention;
    out.denseMlp = p.denseMlp;
    out.routedExpert = p.routedExpert;
    out.sharedExperts = p.sharedExperts;
    out.router = p.router;
    out.norms = p.norms;
    return out;
}

uint64_t
EmbeddingParameters(const TransformerModel& m)
{
    return uint64_t(m.vocab) * m.hidden * (m.tiedEmbeddings ? 1 : 2) + m.hidden;
}

uint64_t
TotalParameters(const TransformerModel& m)
{
    return CountParameters<uint64_t>(m, false);
}

uint64_t
ActiveParameters(const TransformerModel& m)
{
    return CountParameters<uint64_t>(m, true);
}

/*
 * The convention is Megatron-LM's num_floating_point_operations
 * (megatron/training/training.py, https://github.com/NVIDIA/Megatron-LM): every GEMM 3 times
 * (forward, weight gradient, data gradient) at 2 FLOPs per multiply-add; GQA's K and V sized
 * by the key/value heads; SwiGLU's three matrices; MoE's top-k routed plus shared experts;
 * MLA's projections; the logits (hidden x vocab, once: the input embedding is a lookup); and
 * the attention scores QK^T and their weighted sum of V over seq keys, halved for the causal
 * mask. It reduces to Narayanan et al., SC'21, appendix, for GPT-3 (non-causal). We differ in
 * small ways: the router GEMM (hidden x experts) is counted, which Megatron leaves out; MLA's
 * latent norms (Megatron's "+ 1" per rank) are not, as no norm is elsewhere; the logits use
 * vocab as given, where Megatron uses its padded vocabulary (a caller that models the padding
 * sets vocab to it); and no multi-token-prediction layer is counted (Megatron's mtp_num_layers).
 */
double
TrainingFlopsPerToken(const TransformerModel& m, uint32_t seq, bool causal)
{
    double weights = double(m.vocab) * m.hidden; // the LM head
    double attention = 0;
    const double qkDim = IsMla(m) ? double(m.qkNopeHeadDim) + m.qkRopeHeadDim : m.headDim;
    const double vDim = IsMla(m) ? m.vHeadDim : m.headDim;
    for (uint32_t layer = 0; layer < m.layers; ++layer)
    {
        const Parts<double> p = LayerParts<double>(m, layer);
        weights += p.attention + p.denseMlp + m.topK * p.routedExpert + p.sharedExperts + p.router;
        // Per query token: seq dot products of qkDim per head, then a sum of seq vDim vectors.
        attention += double(seq) * m.heads * (qkDim + vDim) * (causal ? 0.5 : 1.0);
    }
    constexpr double kForwardBackward = 3; // forward, weight gradient, data gradient
    constexpr double kFlopsPerMac = 2;
    return kForwardBackward * kFlopsPerMac * (weights + attention);
}

} // namespace ns3
