/*
 * Python's text of a literal (str() or repr() of a list) rewritten as JSON text: how the
 * reference Chakra converter stores a node's inputs, process groups among them.
 */
#ifndef CHAKRA_PYTHON_LITERAL_H
#define CHAKRA_PYTHON_LITERAL_H

#include <optional>
#include <string>

namespace ns3
{

/**
 * Python's text of a literal (what str() or repr() of a list writes: 'single' or "double"
 * quoted strings with backslash escapes and b/u/r prefixes, True/False/None, tuples, trailing
 * commas) rewritten as JSON text. The reference Chakra converter stores a node's inputs this
 * way, so its process_group:init reads ['[{"pg_name": "0", ...}]'].
 * \param text the Python text
 * \return the JSON text, or nullopt if \p text is not such a literal
 */
std::optional<std::string> PythonLiteralToJson(const std::string& text);

} // namespace ns3

#endif // CHAKRA_PYTHON_LITERAL_H
