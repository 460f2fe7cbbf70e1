/*
 * Streaming writer of Chakra .et files.
 */
#ifndef CHAKRA_ET_WRITER_H
#define CHAKRA_ET_WRITER_H

#include "et_def.pb.h"
#include "trace-file.h"

#include <cstdint>
#include <string>

namespace ns3
{

/**
 * \ingroup chakra-trace
 * \brief Writes a .et file: GlobalMetadata first, then nodes, each varint32-length-prefixed.
 *
 * The file is gzip'd when its name ends in ".gz". It appears under its name only after
 * Commit(); a writer destroyed earlier (an error in the producer) leaves no partial file.
 */
class EtWriter
{
  public:
    /**
     * Creates the output and writes the metadata.
     * \param path the .et file to create
     * \param metadata its GlobalMetadata
     * \throws TraceError if the file cannot be created
     */
    EtWriter(const std::string& path, const ChakraProtoMsg::GlobalMetadata& metadata);

    /**
     * Appends a node. \throws TraceError on a write error, or a node no reader would accept
     * (over EtReader::kMaxMessageBytes, or more than EtReader::kMaxDepsPerList distinct ids
     * in a dependency list)
     * \param node the node
     */
    void WriteNode(const ChakraProtoMsg::Node& node);

    /** Finishes the file and moves it into place. \throws TraceError on failure */
    void Commit();

    /** \return the number of nodes written */
    uint64_t GetNodesWritten() const;

  private:
    /**
     * Writes one length-prefixed message.
     * \param message the message
     * \param node the node it is, for errors (nullptr: the metadata)
     */
    void WriteMessage(const google::protobuf::MessageLite& message,
                      const ChakraProtoMsg::Node* node);

    AtomicOutputFile m_file; //!< the output
    std::string m_scratch;   //!< serialization buffer, reused
    uint64_t m_nodes{0};     //!< nodes written
};

} // namespace ns3

#endif // CHAKRA_ET_WRITER_H
