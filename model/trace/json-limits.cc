#include "json-limits.h"

#include "trace-error.h"

#include <nlohmann/json.hpp>

namespace ns3
{

JsonDepthGuard::JsonDepthGuard(uint32_t limit)
    : m_limit(limit)
{
}

std::optional<uint64_t>
JsonDepthGuard::Scan(const char* data, std::size_t size)
{
    std::optional<uint64_t> excess;
    for (std::size_t i = 0; i < size; ++i)
    {
        const char c = data[i];
        if (m_inString)
        {
            if (m_escape)
            {
                m_escape = false;
            }
            else if (c == '\\')
            {
                m_escape = true;
            }
            else if (c == '"')
            {
                m_inString = false;
            }
            continue;
        }
        switch (c)
        {
        case '"':
            m_inString = true;
            break;
        case '[':
        case '{':
            if (++m_depth > m_limit)
            {
                excess = m_offset + i;
                m_offset += size;
                return excess;
            }
            break;
        case ']':
        case '}':
            // Unbalanced closers are the parser's error to report; only keep the count sane.
            if (m_depth > 0)
            {
                --m_depth;
            }
            break;
        default:
            break;
        }
    }
    m_offset += size;
    return excess;
}

uint32_t
JsonDepthGuard::GetLimit() const
{
    return m_limit;
}

std::string
JsonTooDeepMessage(uint32_t limit)
{
    return "JSON nested deeper than " + std::to_string(limit) +
           " levels (the readers' limit; real traces use fewer than 10)";
}

std::optional<uint64_t>
FindJsonDepthExcess(const std::string& text, uint32_t limit)
{
    JsonDepthGuard guard(limit);
    return guard.Scan(text.data(), text.size());
}

void
CheckJsonDepth(const std::string& text, const std::string& file, const std::string& where)
{
    std::optional<uint64_t> excess = FindJsonDepthExcess(text);
    if (excess)
    {
        throw TraceError(file,
                         (where.empty() ? "" : where + ", ") + "byte " + std::to_string(*excess),
                         JsonTooDeepMessage());
    }
}

void
ThrowJsonError(const std::exception& error, const std::string& file, uint64_t consumed)
{
    std::string what = error.what();
    // "[json.exception.parse_error.101] parse error at line 1, ...": the tag means nothing to
    // a user.
    if (what.compare(0, 16, "[json.exception.") == 0)
    {
        auto bracket = what.find("] ");
        if (bracket != std::string::npos)
        {
            what = what.substr(bracket + 2);
        }
    }
    uint64_t byte = consumed;
    if (const auto* parse = dynamic_cast<const nlohmann::json::parse_error*>(&error))
    {
        byte = parse->byte;
    }
    throw TraceError(file, "byte " + std::to_string(byte), "malformed JSON: " + what);
}

} // namespace ns3
