#include "communicator.h"

#include "ns3/json-limits.h"

#include <algorithm>
#include <cctype>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>

namespace ns3
{

namespace
{

/** Appends a code point as UTF-8. */
void
AppendUtf8(std::string& out, uint32_t code)
{
    if (code < 0x80)
    {
        out += static_cast<char>(code);
    }
    else if (code < 0x800)
    {
        out += static_cast<char>(0xC0 | (code >> 6));
        out += static_cast<char>(0x80 | (code & 0x3F));
    }
    else if (code < 0x10000)
    {
        out += static_cast<char>(0xE0 | (code >> 12));
        out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (code & 0x3F));
    }
    else
    {
        out += static_cast<char>(0xF0 | (code >> 18));
        out += static_cast<char>(0x80 | ((code >> 12) & 0x3F));
        out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (code & 0x3F));
    }
}

/**
 * Python's text of a literal (what str() or repr() of a list writes: 'single' or "double"
 * quoted strings with backslash escapes, True/False/None, tuples) rewritten as JSON text. The
 * reference Chakra converter stores a node's inputs this way, so its process_group:init reads
 * ['[{"pg_name": "0", ...}]'].
 * \return the JSON text, or nullopt if \p text is not such a literal
 */
std::optional<std::string>
PythonLiteralToJson(const std::string& text)
{
    std::string out;
    out.reserve(text.size());
    std::size_t i = 0;
    auto closeContainer = [&out](char bracket) {
        // Python allows a trailing comma ("(1,)", "[1, 2,]"); JSON does not.
        std::size_t end = out.find_last_not_of(" \t\r\n");
        if (end != std::string::npos && out[end] == ',')
        {
            out.erase(end, 1);
        }
        out += bracket;
    };
    while (i < text.size())
    {
        const char c = text[i];
        if (c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == ',' || c == ':' || c == '[' ||
            c == '{')
        {
            out += c;
            ++i;
        }
        else if (c == ']' || c == '}')
        {
            closeContainer(c);
            ++i;
        }
        else if (c == '(')
        {
            out += '[';
            ++i;
        }
        else if (c == ')')
        {
            closeContainer(']');
            ++i;
        }
        else if (c == '\'' || c == '"' ||
                 ((c == 'b' || c == 'u' || c == 'r') && i + 1 < text.size() &&
                  (text[i + 1] == '\'' || text[i + 1] == '"')))
        {
            const bool raw = c == 'r';
            if (c != '\'' && c != '"')
            {
                ++i; // string prefix
            }
            const char quote = text[i++];
            std::string value;
            bool closed = false;
            while (i < text.size())
            {
                char d = text[i++];
                if (d == quote)
                {
                    closed = true;
                    break;
                }
                if (d != '\\' || raw)
                {
                    value += d;
                    continue;
                }
                if (i >= text.size())
                {
                    return std::nullopt;
                }
                const char e = text[i++];
                auto hex = [&](std::size_t digits) -> std::optional<uint32_t> {
                    if (i + digits > text.size())
                    {
                        return std::nullopt;
                    }
                    uint32_t code = 0;
                    for (std::size_t k = 0; k < digits; ++k)
                    {
                        const char h = text[i + k];
                        code *= 16;
                        if (h >= '0' && h <= '9')
                        {
                            code += static_cast<uint32_t>(h - '0');
                        }
                        else if (h >= 'a' && h <= 'f')
                        {
                            code += static_cast<uint32_t>(h - 'a' + 10);
                        }
                        else if (h >= 'A' && h <= 'F')
                        {
                            code += static_cast<uint32_t>(h - 'A' + 10);
                        }
                        else
                        {
                            return std::nullopt;
                        }
                    }
                    i += digits;
                    return code;
                };
                std::optional<uint32_t> code;
                switch (e)
                {
                case '\\':
                case '\'':
                case '"':
                    value += e;
                    break;
                case 'n':
                    value += '\n';
                    break;
                case 't':
                    value += '\t';
                    break;
                case 'r':
                    value += '\r';
                    break;
                case 'b':
                    value += '\b';
                    break;
                case 'f':
                    value += '\f';
                    break;
                case 'v':
                    value += '\v';
                    break;
                case 'a':
                    value += '\a';
                    break;
                case '0':
                    value += '\0';
                    break;
                case 'x':
                    code = hex(2);
                    break;
                case 'u':
                    code = hex(4);
                    break;
                case 'U':
                    code = hex(8);
                    break;
                default:
                    return std::nullopt; // \N{...} and the like: not in a repr of plain data
                }
                if (e == 'x' || e == 'u' || e == 'U')
                {
                    if (!code || *code > 0x10FFFF)
                    {
                        return std::nullopt;
                    }
                    AppendUtf8(value, *code);
                }
            }
            if (!closed)
            {
                return std::nullopt;
            }
            out += nlohmann::json(value).dump(-1,
                                              ' ',
                                              false,
                                              nlohmann::json::error_handler_t::replace);
        }
        else if (std::isalpha(static_cast<unsigned char>(c)) != 0)
        {
            std::size_t end = i;
            while (end < text.size() &&
                   (std::isalnum(static_cast<unsigned char>(text[end])) != 0 || text[end] == '_'))
            {
                ++end;
            }
            const std::string word = text.substr(i, end - i);
            if (word == "True")
            {
                out += "true";
            }
            else if (word == "False")
            {
                out += "false";
            }
            else if (word == "None")
            {
                out += "null";
            }
            else
            {
                return std::nullopt;
            }
            i = end;
        }
        else if ((c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.')
        {
            while (i < text.size() &&
                   ((text[i] >= '0' && text[i] <= '9') || text[i] == '-' || text[i] == '+' ||
                    text[i] == '.' || text[i] == 'e' || text[i] == 'E'))
            {
                if (text[i] != '+' || (!out.empty() && (out.back() == 'e' || out.back() == 'E')))
                {
                    out += text[i];
                }
                ++i;
            }
        }
        else
        {
            return std::nullopt;
        }
    }
    return out;
}

} // namespace

uint64_t
CommunicatorId(const std::string& name)
{
    uint64_t hash = 1469598103934665603ull;
    for (unsigned char c : name)
    {
        hash ^= c;
        hash *= 1099511628211ull;
    }
    return hash;
}

std::vector<ProcessGroupSpec>
ParseProcessGroups(const std::string& text, std::string& error)
{
    using nlohmann::json;
    // Nesting past the readers' limit would overflow the stack in the copies below.
    auto tooDeep = [&error](const std::string& candidate) {
        std::optional<uint64_t> excess = FindJsonDepthExcess(candidate);
        if (excess)
        {
            error = "process groups: byte " + std::to_string(*excess) + ": " + JsonTooDeepMessage();
        }
        return excess.has_value();
    };
    if (tooDeep(text))
    {
        return {};
    }
    // JSON, else Python's text of a literal (the reference converter's str() of the inputs).
    bool tooDeepSeen = false;
    auto parse = [&](const std::string& candidate) {
        if (tooDeep(candidate))
        {
            tooDeepSeen = true;
            return json(json::value_t::discarded);
        }
        json parsed = json::parse(candidate, nullptr, false);
        if (parsed.is_discarded())
        {
            std::optional<std::string> converted = PythonLiteralToJson(candidate);
            if (converted && !tooDeep(*converted))
            {
                parsed = json::parse(*converted, nullptr, false);
            }
        }
        return parsed;
    };
    json document = parse(text);
    // Unwrap ["[...]"] and [[...]] forms.
    for (int depth = 0; depth < 3 && !tooDeepSeen; ++depth)
    {
        if (document.is_string())
        {
            document = parse(document.get<std::string>());
        }
        else if (document.is_array() && document.size() == 1 && !document[0].is_object())
        {
            document = json(document[0]);
        }
    }
    if (tooDeepSeen)
    {
        return {};
    }
    if (document.is_discarded() || !document.is_array())
    {
        error = "process groups are neither a JSON list of objects nor Python's text of one "
                "(['[{\"pg_name\": ...}]'])";
        return {};
    }
    std::vector<ProcessGroupSpec> groups;
    for (const auto& item : document)
    {
        if (!item.is_object() || !item.contains("pg_name"))
        {
            error = "a process group without \"pg_name\"";
            return {};
        }
        ProcessGroupSpec group;
        const auto& name = item["pg_name"];
        group.name = name.is_string() ? name.get<std::string>() : name.dump();
        if (item.contains("ranks") && item["ranks"].is_array())
        {
            for (const auto& rank : item["ranks"])
            {
                if (!rank.is_number_integer() || rank.get<int64_t>() < 0 ||
                    rank.get<int64_t>() > std::numeric_limits<uint32_t>::max())
                {
                    error = "process group '" + group.name + "' has a bad rank " + rank.dump();
                    return {};
                }
                group.ranks.push_back(rank.get<uint32_t>());
            }
        }
        // PyTorch writes "group_size" (older) or "pg_size" (newer).
        for (const char* key : {"group_size", "pg_size"})
        {
            if (group.size == 0 && item.contains(key) && item[key].is_number_integer())
            {
                const auto size = item[key].get<int64_t>();
                if (size < 0 || size > std::numeric_limits<uint32_t>::max())
                {
                    error = "process group '" + group.name + "' has a bad " + key + " " +
                            item[key].dump();
                    return {};
                }
                group.size = static_cast<uint32_t>(size);
            }
        }
        // A size that disagrees with the list, or a rank listed twice, left the list to win
        // silently: the collective then ran over other ranks than the trace's job had.
        std::vector<uint32_t> sorted = group.ranks;
        std::sort(sorted.begin(), sorted.end());
        auto twice = std::adjacent_find(sorted.begin(), sorted.end());
        if (twice != sorted.end())
        {
            error = "process group '" + group.name + "' lists rank " + std::to_string(*twice) +
                    " twice";
            return {};
        }
        if (!group.ranks.empty() && group.size != 0 && group.size != group.ranks.size())
        {
            error = "process group '" + group.name + "' lists " +
                    std::to_string(group.ranks.size()) + " ranks but its group size is " +
                    std::to_string(group.size);
            return {};
        }
        if (group.size == 0)
        {
            group.size = static_cast<uint32_t>(group.ranks.size());
        }
        groups.push_back(std::move(group));
    }
    return groups;
}

} // namespace ns3
