#include "json-event-reader.h"

#include <array>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>

namespace ns3
{

namespace
{

/** Bytes a string holds as they are: printable ASCII but the quote and the backslash. */
constexpr std::array<bool, 256>
PlainStringBytes()
{
    std::array<bool, 256> plain{};
    for (int c = 0x20; c < 0x80; ++c)
    {
        plain[c] = c != '"' && c != '\\';
    }
    return plain;
}

constexpr std::array<bool, 256> kPlain = PlainStringBytes();

/** \return "'x'" for a printable byte, else "byte 0xNN" */
std::string
DescribeByte(unsigned char c)
{
    char text[16];
    if (c >= 0x20 && c < 0x7f)
    {
        std::snprintf(text, sizeof(text), "'%c'", c);
    }
    else
    {
        std::snprintf(text, sizeof(text), "byte 0x%02x", c);
    }
    return text;
}

/**
 * \return the length of the well-formed UTF-8 sequence of 2 to 4 bytes at \p s (its first
 * byte 0x80 or above), or 0 (the ranges of the Unicode standard's table 3-7: no overlong
 * forms, no surrogates, nothing above U+10FFFF)
 */
std::size_t
Utf8Length(const unsigned char* s, std::size_t available)
{
    auto cont = [&](std::size_t i, unsigned char low = 0x80, unsigned char high = 0xbf) {
        return i < available && s[i] >= low && s[i] <= high;
    };
    const unsigned char c = s[0];
    if (c >= 0xc2 && c <= 0xdf)
    {
        return cont(1) ? 2 : 0;
    }
    if (c == 0xe0)
    {
        return cont(1, 0xa0) && cont(2) ? 3 : 0;
    }
    if ((c >= 0xe1 && c <= 0xec) || c == 0xee || c == 0xef)
    {
        return cont(1) && cont(2) ? 3 : 0;
    }
    if (c == 0xed)
    {
        return cont(1, 0x80, 0x9f) && cont(2) ? 3 : 0;
    }
    if (c == 0xf0)
    {
        return cont(1, 0x90) && cont(2) && cont(3) ? 4 : 0;
    }
    if (c >= 0xf1 && c <= 0xf3)
    {
        return cont(1) && cont(2) && cont(3) ? 4 : 0;
    }
    if (c == 0xf4)
    {
        return cont(1, 0x80, 0x8f) && cont(2) && cont(3) ? 4 : 0;
    }
    return 0;
}

/** Appends code point \p code (at most U+10FFFF, not a surrogate) as UTF-8. */
void
AppendUtf8(std::string& out, uint32_t code)
{
    if (code < 0x80)
    {
        out.push_back(static_cast<char>(code));
    }
    else if (code < 0x800)
    {
        out.push_back(static_cast<char>(0xc0 | (code >> 6)));
        out.push_back(static_cast<char>(0x80 | (code & 0x3f)));
    }
    else if (code < 0x10000)
    {
        out.push_back(static_cast<char>(0xe0 | (code >> 12)));
        out.push_back(static_cast<char>(0x80 | ((code >> 6) & 0x3f)));
        out.push_back(static_cast<char>(0x80 | (code & 0x3f)));
    }
    else
    {
        out.push_back(static_cast<char>(0xf0 | (code >> 18)));
        out.push_back(static_cast<char>(0x80 | ((code >> 12) & 0x3f)));
        out.push_back(static_cast<char>(0x80 | ((code >> 6) & 0x3f)));
        out.push_back(static_cast<char>(0x80 | (code & 0x3f)));
    }
}

bool
IsDigit(char c)
{
    return c >= '0' && c <= '9';
}

} // namespace

JsonEventReader::JsonEventReader(const std::string& text, uint32_t maxDepth)
    : m_data(text.data()),
      m_size(text.size()),
      m_maxDepth(maxDepth)
{
}

const std::string&
JsonEventReader::GetError() const
{
    return m_error;
}

uint64_t
JsonEventReader::GetErrorByte() const
{
    return m_errorByte;
}

bool
JsonEventReader::IsTooDeep() const
{
    return m_tooDeep;
}

bool
JsonEventReader::Fail(const std::string& what)
{
    if (m_error.empty())
    {
        m_error = what;
        m_errorByte = m_pos;
    }
    return false;
}

void
JsonEventReader::SkipWhitespace()
{
    while (m_pos < m_size)
    {
        const char c = m_data[m_pos];
        if (c != ' ' && c != '\n' && c != '\r' && c != '\t')
        {
            return;
        }
        ++m_pos;
    }
}

bool
JsonEventReader::Open(char bracket)
{
    if (m_open.size() >= m_maxDepth)
    {
        m_tooDeep = true;
        return Fail(JsonTooDeepMessage(m_maxDepth));
    }
    m_open.push_back(bracket);
    ++m_pos;
    return true;
}

bool
JsonEventReader::Read(JsonEventHandler& handler)
{
    m_pos = 0;
    m_open.clear();
    m_error.clear();
    m_tooDeep = false;
    // A UTF-8 byte order mark, as nlohmann/json skips it.
    if (m_size >= 3 && std::memcmp(m_data, "\xEF\xBB\xBF", 3) == 0)
    {
        m_pos = 3;
    }
    // Each turn reads one value; CloseContainers after it finds the next one.
    while (true)
    {
        SkipWhitespace();
        if (m_pos >= m_size)
        {
            return Fail("unexpected end of input; expected a value");
        }
        Step step = StartValue(handler);
        if (step == Step::VALUE_ENDED)
        {
            step = CloseContainers(handler);
        }
        if (step == Step::FAILED)
        {
            return false;
        }
        if (step == Step::DONE)
        {
            return true;
        }
    }
}

JsonEventReader::Step
JsonEventReader::StartValue(JsonEventHandler& handler)
{
    const char c = m_data[m_pos];
    if (c == '[')
    {
        if (!Open('[') || !handler.StartArray())
        {
            return Step::FAILED;
        }
        SkipWhitespace();
        if (m_pos < m_size && m_data[m_pos] == ']')
        {
            ++m_pos;
            m_open.pop_back();
            return handler.EndArray() ? Step::VALUE_ENDED : Step::FAILED;
        }
        return Step::NEXT_VALUE; // the first element
    }
    if (c == '{')
    {
        if (!Open('{') || !handler.StartObject())
        {
            return Step::FAILED;
        }
        SkipWhitespace();
        if (m_pos < m_size && m_data[m_pos] == '}')
        {
            ++m_pos;
            m_open.pop_back();
            return handler.EndObject() ? Step::VALUE_ENDED : Step::FAILED;
        }
        // the first member's value
        return ReadMemberName(handler, true) ? Step::NEXT_VALUE : Step::FAILED;
    }
    return ReadScalar(handler) ? Step::VALUE_ENDED : Step::FAILED;
}

JsonEventReader::Step
JsonEventReader::CloseContainers(JsonEventHandler& handler)
{
    while (true)
    {
        SkipWhitespace();
        if (m_open.empty())
        {
            // nlohmann/json's lexer takes a zero byte for the end of the input (C strings):
            // what follows one is not read.
            if (m_pos < m_size && m_data[m_pos] != '\0')
            {
                Fail("text after the end of the JSON document: " + DescribeByte(m_data[m_pos]));
                return Step::FAILED;
            }
            return Step::DONE;
        }
        if (m_pos >= m_size)
        {
            Fail(m_open.back() == '[' ? "unexpected end of input; expected ',' or ']'"
                                      : "unexpected end of input; expected ',' or '}'");
            return Step::FAILED;
        }
        const char next = m_data[m_pos];
        const char open = m_open.back();
        if (next == ',')
        {
            ++m_pos;
            if (open == '[')
            {
                return Step::NEXT_VALUE; // the next element
            }
            SkipWhitespace();
            // the member's value
            return ReadMemberName(handler, false) ? Step::NEXT_VALUE : Step::FAILED;
        }
        if (next != (open == '[' ? ']' : '}'))
        {
            Fail(open == '[' ? "expected ',' or ']' in an array, not " + DescribeByte(next)
                             : "expected ',' or '}' in an object, not " + DescribeByte(next));
            return Step::FAILED;
        }
        ++m_pos;
        m_open.pop_back();
        if (!(open == '[' ? handler.EndArray() : handler.EndObject()))
        {
            return Step::FAILED;
        }
    }
}

bool
JsonEventReader::ReadMemberName(JsonEventHandler& handler, bool first)
{
    if (m_pos >= m_size)
    {
        return Fail("unexpected end of input; expected a member name");
    }
    if (m_data[m_pos] != '"')
    {
        return Fail(std::string("expected a member name (a string)") + (first ? " or '}'" : "") +
                    ", not " + DescribeByte(m_data[m_pos]));
    }
    bool escaped = false;
    if (!ReadString(escaped) || !handler.Key(m_string))
    {
        return false;
    }
    SkipWhitespace();
    if (m_pos >= m_size)
    {
        return Fail("unexpected end of input; expected ':'");
    }
    if (m_data[m_pos] != ':')
    {
        return Fail("expected ':' after a member name, not " + DescribeByte(m_data[m_pos]));
    }
    ++m_pos;
    return true;
}

bool
JsonEventReader::ReadScalar(JsonEventHandler& handler)
{
    const char c = m_data[m_pos];
    switch (c)
    {
    case '"': {
        bool escaped = false;
        return ReadString(escaped) && handler.String(m_string, escaped);
    }
    case 't':
        return ReadLiteral("true", 4) && handler.Boolean(true);
    case 'f':
        return ReadLiteral("false", 5) && handler.Boolean(false);
    case 'n':
        return ReadLiteral("null", 4) && handler.Null();
    default:
        if (c == '-' || IsDigit(c))
        {
            return ReadNumber(handler);
        }
        return Fail(c == ']' || c == '}' ? "expected a value, not " + DescribeByte(c)
                                         : "unexpected " + DescribeByte(c) + "; expected a value");
    }
}

bool
JsonEventReader::ReadLiteral(const char* word, std::size_t size)
{
    if (m_size - m_pos < size || std::memcmp(m_data + m_pos, word, size) != 0)
    {
        return Fail(std::string("invalid literal; expected '") + word + "'");
    }
    m_pos += size;
    return true;
}

bool
JsonEventReader::ReadString(bool& escaped)
{
    const auto* bytes = reinterpret_cast<const unsigned char*>(m_data);
    ++m_pos; // the opening quote
    const std::size_t start = m_pos;
    escaped = false;
    // Most strings have neither escapes nor multi-byte characters: find the closing quote in
    // place and copy once.
    while (true)
    {
        while (m_pos < m_size && kPlain[bytes[m_pos]])
        {
            ++m_pos;
        }
        if (m_pos >= m_size)
        {
            return Fail("unexpected end of input inside a string");
        }
        const unsigned char c = bytes[m_pos];
        if (c == '"')
        {
            if (!escaped)
            {
                m_string.assign(m_data + start, m_pos - start);
            }
            ++m_pos;
            return true;
        }
        if (c == '\\')
        {
            if (!escaped)
            {
                m_string.assign(m_data + start, m_pos - start);
                escaped = true;
            }
            if (!ReadEscape())
            {
                return false;
            }
            // Copy what follows the escape up to the next special byte.
            const std::size_t from = m_pos;
            while (m_pos < m_size && kPlain[bytes[m_pos]])
            {
                ++m_pos;
            }
            m_string.append(m_data + from, m_pos - from);
            continue;
        }
        if (c < 0x20)
        {
            char what[80];
            std::snprintf(what,
                          sizeof(what),
                          "control character U+%04X inside a string (it must be escaped)",
                          c);
            return Fail(what);
        }
        const std::size_t length = Utf8Length(bytes + m_pos, m_size - m_pos);
        if (length == 0)
        {
            return Fail("invalid UTF-8 " + DescribeByte(c) + " inside a string");
        }
        if (escaped)
        {
            m_string.append(m_data + m_pos, length);
        }
        m_pos += length;
    }
}

bool
JsonEventReader::ReadEscape()
{
    // m_pos is at the backslash.
    if (m_pos + 1 >= m_size)
    {
        return Fail("unexpected end of input inside a string");
    }
    const char c = m_data[m_pos + 1];
    m_pos += 2;
    switch (c)
    {
    case '"':
    case '\\':
    case '/':
        m_string.push_back(c);
        return true;
    case 'b':
        m_string.push_back('\b');
        return true;
    case 'f':
        m_string.push_back('\f');
        return true;
    case 'n':
        m_string.push_back('\n');
        return true;
    case 'r':
        m_string.push_back('\r');
        return true;
    case 't':
        m_string.push_back('\t');
        return true;
    case 'u':
        break;
    default:
        m_pos -= 2;
        return Fail("invalid escape '\\" + std::string(1, c) + "' inside a string");
    }
    auto hex4 = [this](uint32_t& value) {
        if (m_size - m_pos < 4)
        {
            return false;
        }
        value = 0;
        for (int i = 0; i < 4; ++i)
        {
            const char h = m_data[m_pos + i];
            value <<= 4;
            if (h >= '0' && h <= '9')
            {
                value |= static_cast<uint32_t>(h - '0');
            }
            else if (h >= 'a' && h <= 'f')
            {
                value |= static_cast<uint32_t>(h - 'a' + 10);
            }
            else if (h >= 'A' && h <= 'F')
            {
                value |= static_cast<uint32_t>(h - 'A' + 10);
            }
            else
            {
                return false;
            }
        }
        m_pos += 4;
        return true;
    };
    uint32_t code = 0;
    if (!hex4(code))
    {
        return Fail("'\\u' must be followed by four hexadecimal digits");
    }
    if (code >= 0xdc00 && code <= 0xdfff)
    {
        return Fail("a \\u escape is a UTF-16 low surrogate without the high one before it");
    }
    if (code >= 0xd800 && code <= 0xdbff)
    {
        uint32_t low = 0;
        if (m_size - m_pos < 2 || m_data[m_pos] != '\\' || m_data[m_pos + 1] != 'u')
        {
            return Fail("a \\u escape is a UTF-16 high surrogate without the low one after it");
        }
        m_pos += 2;
        if (!hex4(low))
        {
            return Fail("'\\u' must be followed by four hexadecimal digits");
        }
        if (low < 0xdc00 || low > 0xdfff)
        {
            return Fail("a \\u escape is a UTF-16 high surrogate without the low one after it");
        }
        code = 0x10000 + ((code - 0xd800) << 10) + (low - 0xdc00);
    }
    AppendUtf8(m_string, code);
    return true;
}

bool
JsonEventReader::ReadNumber(JsonEventHandler& handler)
{
    const std::size_t start = m_pos;
    const bool negative = m_data[m_pos] == '-';
    if (negative)
    {
        ++m_pos;
    }
    if (m_pos >= m_size || !IsDigit(m_data[m_pos]))
    {
        return Fail("expected a digit after '-'");
    }
    // The integer part: "0" alone, or digits without a leading zero (what follows a leading
    // zero is left for the caller, which refuses it as it would any stray character).
    uint64_t magnitude = 0;
    bool overflow = false;
    if (m_data[m_pos] == '0')
    {
        ++m_pos;
    }
    else
    {
        while (m_pos < m_size && IsDigit(m_data[m_pos]))
        {
            const auto digit = static_cast<uint64_t>(m_data[m_pos] - '0');
            if (magnitude > (std::numeric_limits<uint64_t>::max() - digit) / 10)
            {
                overflow = true;
            }
            magnitude = magnitude * 10 + digit;
            ++m_pos;
        }
    }
    bool isFloat = false;
    if (m_pos < m_size && m_data[m_pos] == '.')
    {
        isFloat = true;
        ++m_pos;
        if (m_pos >= m_size || !IsDigit(m_data[m_pos]))
        {
            return Fail("expected a digit after the decimal point");
        }
        while (m_pos < m_size && IsDigit(m_data[m_pos]))
        {
            ++m_pos;
        }
    }
    if (m_pos < m_size && (m_data[m_pos] == 'e' || m_data[m_pos] == 'E'))
    {
        isFloat = true;
        ++m_pos;
        if (m_pos < m_size && (m_data[m_pos] == '+' || m_data[m_pos] == '-'))
        {
            ++m_pos;
        }
        if (m_pos >= m_size || !IsDigit(m_data[m_pos]))
        {
            return Fail("expected a digit in the exponent");
        }
        while (m_pos < m_size && IsDigit(m_data[m_pos]))
        {
            ++m_pos;
        }
    }
    // Integers as nlohmann/json types them; those that do not fit 64 bits become doubles.
    if (!isFloat && !overflow)
    {
        if (!negative)
        {
            return handler.Unsigned(magnitude);
        }
        constexpr uint64_t kMinMagnitude = uint64_t(1) << 63; // -INT64_MIN
        if (magnitude <= kMinMagnitude)
        {
            return handler.Integer(magnitude == kMinMagnitude ? std::numeric_limits<int64_t>::min()
                                                              : -static_cast<int64_t>(magnitude));
        }
    }
    // Correctly rounded and independent of the locale; values out of a double's range as
    // strtod (and so nlohmann/json) gives them: an overflow is an error, an underflow 0 or a
    // subnormal.
    const char* first = m_data + start;
    const char* last = m_data + m_pos;
    double value = 0;
    auto [end, status] = std::from_chars(first, last, value);
    if (status == std::errc::result_out_of_range)
    {
        const std::string token(first, last);
        value = std::strtod(token.c_str(), nullptr);
    }
    else if (status != std::errc() || end != last)
    {
        return Fail("invalid number '" + std::string(first, last) + "'");
    }
    if (!std::isfinite(value))
    {
        m_pos = start;
        return Fail("number overflow parsing '" + std::string(first, last) + "'");
    }
    return handler.Float(value);
}

} // namespace ns3
