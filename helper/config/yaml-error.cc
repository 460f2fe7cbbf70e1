#include "yaml-error.h"

namespace ns3
{

std::string
YamlErrorText(const std::string& path, int line, const std::string& what)
{
    return path + (line >= 0 ? ": line " + std::to_string(line + 1) : "") + ": " + what;
}

} // namespace ns3
