/*
 * A decoder-only transformer described by its shape (layers, widths, heads, experts), the
 * published presets, model files, and what the shape implies: parameters per layer and the
 * training FLOPs per token that MFU is measured against.
 */
#ifndef CHAKRA_TRANSFORMER_MODEL_H
#define CHAKRA_TRANSFORMER_MODEL_H

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup chakra-workload
 * A decoder-only transformer: pre-norm layers of attention then MLP (dense, or a mixture of
 * experts), an input embedding and an output layer (the LM head). Linear layers carry no
 * biases and the norms one weight per channel (RMSNorm), as in Llama, Mixtral and DeepSeek.
 */
struct TransformerModel
{
    std::string name;           //!< preset name or the file's name
    uint32_t layers{0};         //!< num_hidden_layers
    uint32_t hidden{0};         //!< hidden_size
    uint32_t ffn{0};            //!< intermediate_size of the dense MLP
    uint32_t heads{0};          //!< num_attention_heads
    uint32_t kvHeads{0};        //!< num_key_value_heads (GQA); = heads when absent
    uint32_t headDim{0};        //!< head_dim; hidden / heads when absent
    uint32_t vocab{0};          //!< vocab_size
    bool gatedMlp{true};        //!< SwiGLU: 3 matrices (up, gate, down); a GELU MLP: 2
    bool tiedEmbeddings{false}; //!< the input embedding is the output layer
    // Mixture of experts (experts == 0: dense)
    uint32_t experts{0};       //!< routed experts (num_local_experts, n_routed_experts)
    uint32_t topK{0};          //!< routed experts per token (num_experts_per_tok)
    uint32_t sharedExperts{0}; //!< experts every token uses (n_shared_experts), each moeFfn wide
    uint32_t moeFfn{0};        //!< width of one expert's MLP (moe_intermediate_size; default ffn)
    uint32_t denseLayers{0};   //!< first_k_dense_replace: the first layers keep a dense MLP
    // Multi-head latent attention (DeepSeek-V2/V3); all 0: standard attention
    uint32_t qLoraRank{0};     //!< q_lora_rank (0 with MLA: queries are not compressed)
    uint32_t kvLoraRank{0};    //!< kv_lora_rank (> 0 turns MLA on)
    uint32_t qkRopeHeadDim{0}; //!< qk_rope_head_dim
    uint32_t qkNopeHeadDim{0}; //!< qk_nope_head_dim
    uint32_t vHeadDim{0};      //!< v_head_dim
};

/**
 * \ingroup chakra-workload
 * \return the preset names, sorted
 */
std::vector<std::string> ModelPresetNames();

/**
 * \ingroup chakra-workload
 * \param name a preset name ("llama3-8b", ...)
 * \return the preset
 * \throws std::invalid_argument for an unknown name, listing the presets (with a did-you-mean)
 */
TransformerModel ModelPreset(const std::string& name);

/**
 * \ingroup chakra-workload
 * Reads a model from a .json, .yaml or .yml file: either our keys (layers, hidden, ffn, heads,
 * kv-heads, head-dim, vocab, gated-mlp, tied-embeddings, experts, top-k, shared-experts, moe-ffn,
 * dense-layers, q-lora-rank, kv-lora-rank, qk-rope-head-dim, qk-nope-head-dim, v-head-dim, name)
 * or a Hugging Face config.json as is (told apart by its num_hidden_layers / hidden_size /
 * model_type keys; its other keys are ignored).
 * \param path the file
 * \return the model, checked by CheckModel; its name is the file's "name" key or the file's
 *         base name without extension
 * \throws std::invalid_argument naming the file and the key
 */
TransformerModel ReadModelFile(const std::string& path);

/**
 * \ingroup chakra-workload
 * Checks every field: ranges (nothing absurd), GQA (kvHeads divides heads), MoE fields set
 * together, MLA fields set together, and a total below 10^15 parameters (so counts fit 64 bits).
 * \param model the model
 * \param where what errors start with (a file, a flag, a preset)
 * \throws std::invalid_argument "<where>: key '<key>' ..." with our file format's key names
 */
void CheckModel(const TransformerModel& model, const std::string& where);

/**
 * \ingroup chakra-workload
 * Parameters of one layer, by part (what gradients and weights are sized by).
 */
struct LayerParameters
{
    uint64_t attention{0};     //!< QKV (or MLA's projections) + output projection
    uint64_t denseMlp{0};      //!< the dense MLP (0 in an MoE layer)
    uint64_t routedExpert{0};  //!< ONE routed expert's MLP (0 in a dense layer)
    uint64_t sharedExperts{0}; //!< all shared experts of the layer
    uint64_t router{0};        //!< hidden x experts
    uint64_t norms{0};         //!< the two layer norms (+ MLA's q and kv latent norms)
};

/**
 * \ingroup chakra-workload
 * \param model a checked model
 * \param layer 0-based
 * \return the layer's parameters by part
 */
LayerParameters LayerParameterCount(const TransformerModel& model, uint32_t layer);

/**
 * \ingroup chakra-workload
 * \return whether \p layer (0-based) has a mixture of experts rather than a dense MLP
 */
bool IsMoeLayer(const TransformerModel& model, uint32_t layer);

/**
 * \ingroup chakra-workload
 * \return the input embedding (+ the output layer unless tied) + the final norm
 */
uint64_t EmbeddingParameters(const TransformerModel& model);

/**
 * \ingroup chakra-workload
 * \return every parameter: the layers (all experts) + EmbeddingParameters
 */
uint64_t TotalParameters(const TransformerModel& model);

/**
 * \ingroup chakra-workload
 * \return the parameters one token uses: as TotalParameters with only top-k routed experts
 *         (shared experts and the router are used by every token)
 */
uint64_t ActiveParameters(const TransformerModel& model);

/**
 * \ingroup chakra-workload
 * Model FLOPs of training one token (forward + backward = 3 x forward, no recompute), as
 * Megatron-LM and NeMo count them for MFU: 2 FLOPs per multiply-add of every weight a token
 * uses (attention projections, MLP or top-k + shared experts, router, LM head), plus the
 * attention scores and weighted sum over a sequence of \p seq tokens, halved when causal.
 * \param model a checked model
 * \param seq the sequence length
 * \param causal whether a token attends only to those before it
 * \return FLOPs per token
 */
double TrainingFlopsPerToken(const TransformerModel& model, uint32_t seq, bool causal);

} // namespace ns3

#endif // CHAKRA_TRANSFORMER_MODEL_H
