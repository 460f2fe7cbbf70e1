/*
 * Base64 for the JSON form of a .et: bytes values and fields a message does not define.
 */
#include "et-json-format.h"

#include <cstdint>

namespace ns3
{

namespace
{

constexpr char kBase64Alphabet[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

} // namespace

std::string
EncodeBase64(const std::string& bytes)
{
    std::string out;
    out.reserve((bytes.size() + 2) / 3 * 4);
    std::size_t i = 0;
    for (; i + 2 < bytes.size(); i += 3)
    {
        uint32_t v = (static_cast<uint8_t>(bytes[i]) << 16) |
                     (static_cast<uint8_t>(bytes[i + 1]) << 8) | static_cast<uint8_t>(bytes[i + 2]);
        out += kBase64Alphabet[(v >> 18) & 63];
        out += kBase64Alphabet[(v >> 12) & 63];
        out += kBase64Alphabet[(v >> 6) & 63];
        out += kBase64Alphabet[v & 63];
    }
    std::size_t rest = bytes.size() - i;
    if (rest > 0)
    {
        uint32_t v = static_cast<uint8_t>(bytes[i]) << 16;
        if (rest == 2)
        {
            v |= static_cast<uint8_t>(bytes[i + 1]) << 8;
        }
        out += kBase64Alphabet[(v >> 18) & 63];
        out += kBase64Alphabet[(v >> 12) & 63];
        out += rest == 2 ? kBase64Alphabet[(v >> 6) & 63] : '=';
        out += '=';
    }
    return out;
}

std::optional<std::string>
DecodeBase64(const std::string& text)
{
    std::string out;
    uint32_t accumulator = 0;
    int bits = 0;
    std::size_t padding = 0;
    for (char c : text)
    {
        int v;
        if (c >= 'A' && c <= 'Z')
        {
            v = c - 'A';
        }
        else if (c >= 'a' && c <= 'z')
        {
            v = c - 'a' + 26;
        }
        else if (c >= '0' && c <= '9')
        {
            v = c - '0' + 52;
        }
        else if (c == '+')
        {
            v = 62;
        }
        else if (c == '/')
        {
            v = 63;
        }
        else if (c == '=')
        {
            ++padding;
            continue;
        }
        else
        {
            return std::nullopt;
        }
        if (padding > 0)
        {
            return std::nullopt; // data after padding
        }
        accumulator = (accumulator << 6) | static_cast<uint32_t>(v);
        bits += 6;
        if (bits >= 8)
        {
            bits -= 8;
            out += static_cast<char>((accumulator >> bits) & 0xff);
        }
    }
    if (padding > 2 || (text.size() % 4) != 0)
    {
        return std::nullopt;
    }
    return out;
}

} // namespace ns3
