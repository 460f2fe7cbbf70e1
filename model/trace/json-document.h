/*
 * ReadJsonDocument: a small JSON file (a manifest, a communicator group file) read whole,
 * with the module's limits and one-line errors.
 */
#ifndef CHAKRA_JSON_DOCUMENT_H
#define CHAKRA_JSON_DOCUMENT_H

#include <nlohmann/json.hpp>
#include <string>

namespace ns3
{

/**
 * \ingroup chakra-trace
 * \brief Parses a whole JSON file into a document.
 *
 * The file is read through InputFileStreamBuf, so nesting past kMaxJsonDepth is refused before
 * the parser builds anything.
 * \param path the file
 * \return its document
 * \throws TraceError naming the file (missing, unreadable, nested too deep, malformed JSON
 *         with its byte offset)
 */
nlohmann::json ReadJsonDocument(const std::string& path);

} // namespace ns3

#endif // CHAKRA_JSON_DOCUMENT_H
