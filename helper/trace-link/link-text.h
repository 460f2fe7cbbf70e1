/*
 * Name tests the linker's steps share on runtime call and kernel names (private to
 * helper/trace-link).
 */
#ifndef CHAKRA_LINK_TEXT_H
#define CHAKRA_LINK_TEXT_H

#include <string>

namespace ns3
{

/**
 * \ingroup chakra-linker
 * \return \p text with ASCII capitals lowered (runtime call and kernel names)
 */
inline std::string
LowerAscii(const std::string& text)
{
    std::string out = text;
    for (char& c : out)
    {
        if (c >= 'A' && c <= 'Z')
        {
            c = static_cast<char>(c - 'A' + 'a');
        }
    }
    return out;
}

/**
 * \ingroup chakra-linker
 * \return whether \p text contains \p part
 */
inline bool
ContainsText(const std::string& text, const char* part)
{
    return text.find(part) != std::string::npos;
}

} // namespace ns3

#endif // CHAKRA_LINK_TEXT_H
