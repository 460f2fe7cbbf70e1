/*
 * What both directions of the .et <-> JSON conversion share: the format's name and version,
 * and base64 (bytes values and unknown fields). Private to model/trace.
 */
#ifndef CHAKRA_ET_JSON_FORMAT_H
#define CHAKRA_ET_JSON_FORMAT_H

#include <optional>
#include <string>

namespace ns3
{

/** \ingroup chakra-trace \brief The "format" of the JSON form of a .et. */
constexpr const char* kEtJsonFormatName = "chakra-et-json";
/** \ingroup chakra-trace \brief The "format_version" this code writes and reads. */
constexpr int kEtJsonFormatVersion = 1;

/**
 * \ingroup chakra-trace
 * \param bytes any bytes
 * \return their base64 text (standard alphabet, padded)
 */
std::string EncodeBase64(const std::string& bytes);

/**
 * \ingroup chakra-trace
 * \param text base64 text (standard alphabet, padded)
 * \return the bytes, or nullopt if \p text is not base64
 */
std::optional<std::string> DecodeBase64(const std::string& text);

} // namespace ns3

#endif // CHAKRA_ET_JSON_FORMAT_H
