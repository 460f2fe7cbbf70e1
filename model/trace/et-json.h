/*
 * Chakra .et <-> JSON, for reading traces by eye and for writing small traces by hand.
 *
 * The JSON document (format "chakra-et-json", version 1):
 *   { "format": "chakra-et-json", "format_version": 1,
 *     "metadata": { "version": "...", "attr": [ATTR...] },
 *     "nodes": [ { "id": 1, "name": "...", "type": "COMP_NODE", "ctrl_deps": [], "data_deps": [],
 *                  "start_time_micros": 0, "duration_micros": 5,
 *                  "inputs": {"values": "...", "shapes": "...", "types": "..."},
 *                  "outputs": {...}, "attr": [ATTR...] }, ... ] }
 *   ATTR = { "name": "comm_size", "type": "int64_val", "value": 1048576 }
 * "type" is the name of the AttributeProto oneof field, so that .et -> JSON -> .et gives back
 * the same bytes. See doc/chakra.md for the full description.
 */
#ifndef CHAKRA_ET_JSON_H
#define CHAKRA_ET_JSON_H

#include "et_def.pb.h"

#include <nlohmann/json.hpp>
#include <string>

namespace ns3
{

/** JSON with keys kept in the order they were written. */
using EtJson = nlohmann::ordered_json;

/**
 * \ingroup chakra-trace
 * \brief Writes a .et file as one JSON document (one node per line), streaming.
 * \param etPath the .et file (plain or gzip'd)
 * \param jsonPath the JSON file to create (gzip'd if it ends in .gz); written atomically
 * \return the number of nodes
 * \throws TraceError on bad input or a write error
 */
uint64_t ConvertEtToJson(const std::string& etPath, const std::string& jsonPath);

/**
 * \ingroup chakra-trace
 * \brief Writes the .et file described by a JSON document, streaming node by node.
 * \param jsonPath the JSON file (plain or gzip'd)
 * \param etPath the .et file to create (gzip'd if it ends in .gz); written atomically
 * \return the number of nodes
 * \throws TraceError naming the node and key on bad input
 */
uint64_t ConvertJsonToEt(const std::string& jsonPath, const std::string& etPath);

/** \param node a node \return its JSON object */
EtJson NodeToJson(const ChakraProtoMsg::Node& node);
/** \param metadata the metadata \return its JSON object */
EtJson MetadataToJson(const ChakraProtoMsg::GlobalMetadata& metadata);

/**
 * \param json a node object
 * \param where position for errors ("node #3")
 * \return the node \throws TraceError (without file name) on a bad object
 */
ChakraProtoMsg::Node NodeFromJson(const EtJson& json, const std::string& where);
/**
 * \param json a metadata object \return the metadata
 * \throws TraceError (without file name) on a bad object
 */
ChakraProtoMsg::GlobalMetadata MetadataFromJson(const EtJson& json);

} // namespace ns3

#endif // CHAKRA_ET_JSON_H
