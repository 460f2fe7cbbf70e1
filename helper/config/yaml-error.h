/*
 * YamlErrorText: where and what a YAML file's error is, for the files users write (topology
 * files, jobs files).
 */
#ifndef CHAKRA_YAML_ERROR_H
#define CHAKRA_YAML_ERROR_H

#include <string>

namespace ns3
{

/**
 * \ingroup chakra-config
 * \param path the file
 * \param line the line yaml-cpp's mark gives (from 0; negative: none)
 * \param what yaml-cpp's message (a parse error, a conversion it refused)
 * \return "PATH: line N: WHAT" (lines counted from 1; no line when there is none)
 */
std::string YamlErrorText(const std::string& path, int line, const std::string& what);

} // namespace ns3

#endif // CHAKRA_YAML_ERROR_H
