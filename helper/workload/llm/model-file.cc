/*
 * ReadModelFile: a transformer from a JSON or YAML file with our keys, or from a Hugging Face
 * config.json as is.
 */
#include "transformer-model.h"

#include "ns3/name-suggestion.h"
#include "ns3/quantity-parser.h"

#include <algorithm>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>
#include <yaml-cpp/yaml.h>

namespace ns3
{

namespace
{

/** A model file is a few dozen lines (an HF config a few hundred); refuse anything larger. */
constexpr std::streamoff kMaxFileBytes = 16 << 20;

/** One top-level key's value, whatever the file's syntax. */
struct Value
{
    std::string text;  //!< the scalar as written ("4096", "true", "silu")
    bool scalar{true}; //!< false for a list or a map
    bool null{false};  //!< JSON null or YAML ~
};

using Entries = std::map<std::string, Value>;

/** A numeric field: our key, the Hugging Face keys (first found wins), and where it goes. */
struct CountField
{
    const char* ours;                  //!< our file format's key
    std::vector<const char*> hf;       //!< the Hugging Face config.json keys
    uint32_t TransformerModel::*field; //!< the member it sets
    bool required;                     //!< whether a file must give it
};

const std::vector<CountField>&
CountFields()
{
    static const std::vector<CountField> fields = {
        {"layers", {"num_hidden_layers"}, &TransformerModel::layers, true},
        {"hidden", {"hidden_size"}, &TransformerModel::hidden, true},
        {"ffn", {"intermediate_size"}, &TransformerModel::ffn, true},
        {"heads", {"num_attention_heads"}, &TransformerModel::heads, true},
        {"kv-heads", {"num_key_value_heads"}, &TransformerModel::kvHeads, false},
        {"head-dim", {"head_dim"}, &TransformerModel::headDim, false},
        {"vocab", {"vocab_size"}, &TransformerModel::vocab, true},
        {"experts", {"num_local_experts", "n_routed_experts"}, &TransformerModel::experts, false},
        {"top-k", {"num_experts_per_tok"}, &TransformerModel::topK, false},
        {"shared-experts", {"n_shared_experts"}, &TransformerModel::sharedExperts, false},
        {"moe-ffn", {"moe_intermediate_size"}, &TransformerModel::moeFfn, false},
        {"dense-layers", {"first_k_dense_replace"}, &TransformerModel::denseLayers, false},
        {"q-lora-rank", {"q_lora_rank"}, &TransformerModel::qLoraRank, false},
        {"kv-lora-rank", {"kv_lora_rank"}, &TransformerModel::kvLoraRank, false},
        {"qk-rope-head-dim", {"qk_rope_head_dim"}, &TransformerModel::qkRopeHeadDim, false},
        {"qk-nope-head-dim", {"qk_nope_head_dim"}, &TransformerModel::qkNopeHeadDim, false},
        {"v-head-dim", {"v_head_dim"}, &TransformerModel::vHeadDim, false},
    };
    return fields;
}

/** Our format's keys that are not counts. */
const std::vector<std::string> kOtherKeys = {"name", "gated-mlp", "tied-embeddings"};

/** \return the file's text; refuses a missing or oversized file */
std::string
ReadText(const std::string& path)
{
    std::ifstream in(path, std::ios::binary | std::ios::ate);
    if (!in)
    {
        throw std::invalid_argument(path + ": cannot be read");
    }
    if (in.tellg() > kMaxFileBytes)
    {
        throw std::invalid_argument(path + ": larger than 16 MiB, not a model file");
    }
    in.seekg(0);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

/** The top-level keys of a JSON object. */
Entries
ParseJson(const std::string& path, const std::string& text)
{
    nlohmann::json root;
    try
    {
        root = nlohmann::json::parse(text);
    }
    catch (const nlohmann::json::exception& e)
    {
        throw std::invalid_argument(path + ": not valid JSON: " + e.what());
    }
    if (!root.is_object())
    {
        throw std::invalid_argument(path + ": must hold a JSON object of keys");
    }
    Entries entries;
    for (const auto& [key, value] : root.items())
    {
        Value v;
        v.null = value.is_null();
        v.scalar = value.is_primitive();
        // dump() writes numbers as JSON does: 4096 stays "4096", 4096.0 stays "4096.0" (refused).
        v.text = value.is_string() ? value.get<std::string>() : value.dump();
        entries[key] = v;
    }
    return entries;
}

/** The top-level keys of a YAML map; a repeated key is refused (the last would win silently). */
Entries
ParseYaml(const std::string& path, const std::string& text)
{
    YAML::Node root;
    try
    {
        root = YAML::Load(text);
    }
    catch (const YAML::Exception& e)
    {
        throw std::invalid_argument(path + ": not valid YAML: " + e.what());
    }
    if (!root.IsMap())
    {
        throw std::invalid_argument(path + ": must hold a YAML map of keys");
    }
    Entries entries;
    for (const auto& item : root)
    {
        const std::string key = item.first.as<std::string>();
        Value v;
        v.null = item.second.IsNull();
        v.scalar = item.second.IsScalar() || v.null;
        v.text = item.second.IsScalar() ? item.second.Scalar() : "";
        if (!entries.emplace(key, v).second)
        {
            throw std::invalid_argument(path + ": key '" + key + "' appears twice");
        }
    }
    return entries;
}

/** Parses \p value of \p key as a count. */
uint32_t
Count(const std::string& path, const std::string& key, const Value& value)
{
    if (!value.scalar || value.null)
    {
        throw std::invalid_argument(path + ": key '" + key + "' must be a whole number");
    }
    try
    {
        return static_cast<uint32_t>(
            ParseWholeNumber(value.text, "key '" + key + "'", 0, 4294967295u));
    }
    catch (const std::invalid_argument& e)
    {
        throw std::invalid_argument(path + ": " + e.what());
    }
}

/** Parses \p value of \p key as true or false. */
bool
Flag(const std::string& path, const std::string& key, const Value& value)
{
    if (value.scalar && (value.text == "true" || value.text == "false"))
    {
        return value.text == "true";
    }
    throw std::invalid_argument(path + ": key '" + key + "' must be true or false, not '" +
                                value.text + "'");
}

/** Fills the defaults a file may leave out: kv heads, head dim, the experts' width. */
void
FillDefaults(TransformerModel& m, const std::string& path, const std::string& headsKey)
{
    if (m.kvHeads == 0)
    {
        m.kvHeads = m.heads;
    }
    if (m.headDim == 0 && m.heads != 0)
    {
        if (m.hidden % m.heads != 0)
        {
            throw std::invalid_argument(
                path + ": key '" + headsKey + "' (" + std::to_string(m.heads) +
                ") does not divide the hidden size and no head dim is given");
        }
        m.headDim = m.hidden / m.heads;
    }
    if (m.experts != 0 && m.moeFfn == 0)
    {
        m.moeFfn = m.ffn; // Mixtral: the experts are intermediate_size wide
    }
}

/** Our format: every key known, the required ones present. */
TransformerModel
FromOurKeys(const std::string& path, const Entries& entries)
{
    std::vector<std::string> known = kOtherKeys;
    for (const auto& f : CountFields())
    {
        known.emplace_back(f.ours);
    }
    for (const auto& [key, value] : entries)
    {
        if (std::find(known.begin(), known.end(), key) == known.end())
        {
            throw std::invalid_argument(path + ": key '" + key + "' is unknown" +
                                        DidYouMean(key, known));
        }
    }
    TransformerModel m;
    for (const auto& f : CountFields())
    {
        auto it = entries.find(f.ours);
        if (it != entries.end())
        {
            m.*f.field = Count(path, f.ours, it->second);
        }
        else if (f.required)
        {
            throw std::invalid_argument(path + ": key '" + std::string(f.ours) + "' is missing");
        }
    }
    if (auto it = entries.find("gated-mlp"); it != entries.end())
    {
        m.gatedMlp = Flag(path, "gated-mlp", it->second);
    }
    if (auto it = entries.find("tied-embeddings"); it != entries.end())
    {
        m.tiedEmbeddings = Flag(path, "tied-embeddings", it->second);
    }
    if (auto it = entries.find("name"); it != entries.end())
    {
        m.name = it->second.text;
    }
    FillDefaults(m, path, "heads");
    return m;
}

/**
 * A Hugging Face config.json: the keys we need, the others (rope_theta, torch_dtype...)
 * ignored; a null counts as absent (DeepSeek-V2-Lite's q_lora_rank is null).
 */
TransformerModel
FromHuggingFace(const std::string& path,
                const Entries& entries,
                std::map<std::string, std::string>& used)
{
    TransformerModel m;
    for (const auto& f : CountFields())
    {
        bool found = false;
        for (const char* key : f.hf)
        {
            auto it = entries.find(key);
            if (it != entries.end() && !it->second.null)
            {
                m.*f.field = Count(path, key, it->second);
                used[f.ours] = key;
                found = true;
                break;
            }
        }
        if (!found && f.required)
        {
            throw std::invalid_argument(path + ": key '" + std::string(f.hf.front()) +
                                        "' is missing");
        }
    }
    if (auto it = entries.find("tie_word_embeddings"); it != entries.end() && !it->second.null)
    {
        m.tiedEmbeddings = Flag(path, "tie_word_embeddings", it->second);
    }
    // GPT-style configs say "gelu*" for the 2-matrix MLP; Gemma's GeGLU is gated despite "gelu".
    auto act = entries.find("hidden_act");
    auto type = entries.find("model_type");
    const bool gemma = type != entries.end() && type->second.text.rfind("gemma", 0) == 0;
    if (act != entries.end() && act->second.text.rfind("gelu", 0) == 0 && !gemma)
    {
        m.gatedMlp = false;
    }
    if (auto it = entries.find("moe_layer_freq");
        it != entries.end() && !it->second.null && it->second.text != "1")
    {
        throw std::invalid_argument(
            path + ": key 'moe_layer_freq' is " + it->second.text +
            ": only every layer after first_k_dense_replace (1) is modelled");
    }
    FillDefaults(m, path, "num_attention_heads");
    return m;
}

/** \return the file's base name without its extension */
std::string
Stem(const std::string& path)
{
    const auto slash = path.find_last_of('/');
    std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
    const auto dot = base.find_last_of('.');
    return dot == std::string::npos ? base : base.substr(0, dot);
}

/** \return whether \p path ends in \p suffix */
bool
EndsWith(const std::string& path, const std::string& suffix)
{
    return path.size() >= suffix.size() &&
           path.compare(path.size() - suffix.size(), suffix.size(), suffix) == 0;
}

} // namespace

TransformerModel
ReadModelFile(const std::string& path)
{
    const bool json = EndsWith(path, ".json");
    if (!json && !EndsWith(path, ".yaml") && !EndsWith(path, ".yml"))
    {
        throw std::invalid_argument(path + ": a model file ends in .json, .yaml or .yml");
    }
    const std::string text = ReadText(path);
    const Entries entries = json ? ParseJson(path, text) : ParseYaml(path, text);
    const bool huggingFace = entries.count("num_hidden_layers") || entries.count("hidden_size") ||
                             entries.count("model_type");
    std::map<std::string, std::string> hfKeys; // our key -> the HF key it was read from
    TransformerModel m =
        huggingFace ? FromHuggingFace(path, entries, hfKeys) : FromOurKeys(path, entries);
    if (m.name.empty())
    {
        m.name = Stem(path);
    }
    try
    {
        CheckModel(m, path);
    }
    catch (const std::invalid_argument& e)
    {
        // CheckModel names our keys; name the one the HF file holds instead.
        // The subject is the first key the message names.
        std::string message = e.what();
        std::size_t first = std::string::npos;
        std::string from;
        std::string to;
        for (const auto& [ours, theirs] : hfKeys)
        {
            const std::string key = "key '" + ours + "'";
            if (auto at = message.find(key); at < first)
            {
                first = at;
                from = key;
                to = "key '" + theirs + "'";
            }
        }
        if (first != std::string::npos)
        {
            message.replace(first, from.size(), to);
        }
        throw std::invalid_argument(message);
    }
    return m;
}

} // namespace ns3
