/*
 * Small transformer models the LLM tests build by hand.
 */
#ifndef CHAKRA_LLM_TEST_MODELS_H
#define CHAKRA_LLM_TEST_MODELS_H

#include "ns3/transformer-model.h"

#include <string>

namespace chakra_test
{

/**
 * A GPT-style model: multi-head attention (as many K/V heads as heads, each hidden / heads
 * wide) and a GELU MLP (not gated), \p ffn wide (4 x hidden when 0), as GPT-2/3, MPT and the
 * Megatron-LM papers' models are.
 */
inline ns3::TransformerModel
GeluTransformer(const std::string& name,
                uint32_t layers,
                uint32_t hidden,
                uint32_t heads,
                uint32_t vocab,
                uint32_t ffn = 0,
                bool tiedEmbeddings = false)
{
    ns3::TransformerModel model;
    model.name = name;
    model.layers = layers;
    model.hidden = hidden;
    model.ffn = ffn > 0 ? ffn : 4 * hidden;
    model.heads = heads;
    model.kvHeads = heads;
    model.headDim = hidden / heads;
    model.vocab = vocab;
    model.gatedMlp = false;
    model.tiedEmbeddings = tiedEmbeddings;
    return model;
}

} // namespace chakra_test

#endif // CHAKRA_LLM_TEST_MODELS_H
