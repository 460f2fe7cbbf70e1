#include "python-literal.h"

#include <cctype>
#include <cstdint>
#include <nlohmann/json.hpp>

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

/** Rewrites Python literal text into JSON text, one token at a time. */
class PythonLiteralRewriter
{
  public:
    /** \param text the Python text */
    explicit PythonLiteralRewriter(const std::string& text)
        : m_text(text)
    {
        m_out.reserve(text.size());
    }

    /** \return the JSON text, or nullopt if the text is not a Python literal */
    std::optional<std::string> Rewrite()
    {
        while (m_pos < m_text.size())
        {
            if (!RewriteToken())
            {
                return std::nullopt;
            }
        }
        return std::move(m_out);
    }

  private:
    /** Rewrites the token at m_pos. \return false if it is not part of a literal */
    bool RewriteToken()
    {
        const char c = m_text[m_pos];
        if (c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == ',' || c == ':' || c == '[' ||
            c == '{')
        {
            m_out += c;
            ++m_pos;
            return true;
        }
        if (c == ']' || c == '}' || c == ')')
        {
            CloseContainer(c == ')' ? ']' : c);
            ++m_pos;
            return true;
        }
        if (c == '(')
        {
            m_out += '[';
            ++m_pos;
            return true;
        }
        if (c == '\'' || c == '"' ||
            ((c == 'b' || c == 'u' || c == 'r') && m_pos + 1 < m_text.size() &&
             (m_text[m_pos + 1] == '\'' || m_text[m_pos + 1] == '"')))
        {
            return RewriteString();
        }
        if (std::isalpha(static_cast<unsigned char>(c)) != 0)
        {
            return RewriteWord();
        }
        if ((c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.')
        {
            RewriteNumber();
            return true;
        }
        return false;
    }

    /** Closes a list or object with \p bracket. */
    void CloseContainer(char bracket)
    {
        // Python allows a trailing comma ("(1,)", "[1, 2,]"); JSON does not.
        std::size_t end = m_out.find_last_not_of(" \t\r\n");
        if (end != std::string::npos && m_out[end] == ',')
        {
            m_out.erase(end, 1);
        }
        m_out += bracket;
    }

    /** A quoted string, with an optional b/u/r prefix, written as a JSON string. */
    bool RewriteString()
    {
        const char first = m_text[m_pos];
        const bool raw = first == 'r';
        if (first != '\'' && first != '"')
        {
            ++m_pos; // string prefix
        }
        const char quote = m_text[m_pos++];
        std::string value;
        while (m_pos < m_text.size())
        {
            char d = m_text[m_pos++];
            if (d == quote)
            {
                m_out += nlohmann::json(value).dump(-1,
                                                    ' ',
                                                    false,
                                                    nlohmann::json::error_handler_t::replace);
                return true;
            }
            if (d != '\\' || raw)
            {
                value += d;
            }
            else if (!ReadEscape(value))
            {
                return false;
            }
        }
        return false; // not closed
    }

    /** The escape after a backslash, appended to \p value. \return false if malformed */
    bool ReadEscape(std::string& value)
    {
        if (m_pos >= m_text.size())
        {
            return false;
        }
        const char e = m_text[m_pos++];
        std::optional<uint32_t> code;
        switch (e)
        {
        case '\\':
        case '\'':
        case '"':
            value += e;
            return true;
        case 'n':
            value += '\n';
            return true;
        case 't':
            value += '\t';
            return true;
        case 'r':
            value += '\r';
            return true;
        case 'b':
            value += '\b';
            return true;
        case 'f':
            value += '\f';
            return true;
        case 'v':
            value += '\v';
            return true;
        case 'a':
            value += '\a';
            return true;
        case '0':
            value += '\0';
            return true;
        case 'x':
            code = ReadHex(2);
            break;
        case 'u':
            code = ReadHex(4);
            break;
        case 'U':
            code = ReadHex(8);
            break;
        default:
            return false; // \N{...} and the like: not in a repr of plain data
        }
        if (!code || *code > 0x10FFFF)
        {
            return false;
        }
        AppendUtf8(value, *code);
        return true;
    }

    /** \return the code point of \p digits hex digits at m_pos (consumed), or nullopt */
    std::optional<uint32_t> ReadHex(std::size_t digits)
    {
        if (m_pos + digits > m_text.size())
        {
            return std::nullopt;
        }
        uint32_t code = 0;
        for (std::size_t k = 0; k < digits; ++k)
        {
            const char h = m_text[m_pos + k];
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
        m_pos += digits;
        return code;
    }

    /** True, False or None. \return false for any other word */
    bool RewriteWord()
    {
        std::size_t end = m_pos;
        while (end < m_text.size() &&
               (std::isalnum(static_cast<unsigned char>(m_text[end])) != 0 || m_text[end] == '_'))
        {
            ++end;
        }
        const std::string word = m_text.substr(m_pos, end - m_pos);
        if (word == "True")
        {
            m_out += "true";
        }
        else if (word == "False")
        {
            m_out += "false";
        }
        else if (word == "None")
        {
            m_out += "null";
        }
        else
        {
            return false;
        }
        m_pos = end;
        return true;
    }

    /** A number, copied without a '+' that JSON does not allow (a sign of an exponent is). */
    void RewriteNumber()
    {
        while (m_pos < m_text.size() &&
               ((m_text[m_pos] >= '0' && m_text[m_pos] <= '9') || m_text[m_pos] == '-' ||
                m_text[m_pos] == '+' || m_text[m_pos] == '.' || m_text[m_pos] == 'e' ||
                m_text[m_pos] == 'E'))
        {
            if (m_text[m_pos] != '+' ||
                (!m_out.empty() && (m_out.back() == 'e' || m_out.back() == 'E')))
            {
                m_out += m_text[m_pos];
            }
            ++m_pos;
        }
    }

    const std::string& m_text; //!< the Python text
    std::size_t m_pos{0};      //!< the next character to read
    std::string m_out;         //!< the JSON text so far
};

} // namespace

std::optional<std::string>
PythonLiteralToJson(const std::string& text)
{
    return PythonLiteralRewriter(text).Rewrite();
}

} // namespace ns3
