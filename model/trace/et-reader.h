/*
 * Streaming reader of Chakra .et files (plain or gzip'd).
 */
#ifndef CHAKRA_ET_READER_H
#define CHAKRA_ET_READER_H

#include "et_def.pb.h"
#include "trace-file.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup chakra-trace
 * \brief Reads a .et file one message at a time.
 *
 * The file is a stream of varint32-length-prefixed protobuf messages: one GlobalMetadata, then
 * Nodes. The reader holds one buffer, whatever the file size: 8 KiB while it reads the metadata,
 * then read-ahead chunks of up to 64 KiB, grown for a larger message (at most kMaxMessageBytes)
 * and given back once the rest of the file needs less (a job's ranks keep their readers open
 * together for the whole run). Every problem (empty file, truncated message, bad length prefix,
 * absurd length, bytes that are not the expected message) raises a TraceError naming the file,
 * the message number and byte offset.
 *
 * A repeated id in a dependency list (ctrl_deps, data_deps) is dropped as the node is read
 * (first occurrence kept, order kept). In a message larger than kDirectParseBytes the reader
 * decodes the two lists from the wire itself, so a node listing the same few parents millions
 * of times costs memory for the distinct ones only. A node may list at most kMaxDepsPerList
 * distinct ids per list.
 */
class EtReader
{
  public:
    /**
     * Largest message accepted. A node holds an operator's name, a few attributes and its
     * dependencies: the largest message in the shared real traces is 26 KB, the generator's a
     * few hundred bytes. 16 MiB is 600 times that and bounds what one node can cost: this
     * buffer plus its decoded form (at most 8 bytes per wire byte, for packed 1-byte varints).
     * A bigger length prefix means a corrupt or foreign file. EtWriter applies the same bound.
     */
    static constexpr uint32_t kMaxMessageBytes = 16u << 20;

    /**
     * Most distinct ids in one node's ctrl_deps or data_deps. The most in the shared traces is
     * 271; a node waiting for a million others is not a trace of a training step.
     */
    static constexpr uint32_t kMaxDepsPerList = 1u << 20;

    /**
     * Messages up to this size are parsed by protobuf directly, repeats dropped afterwards:
     * protobuf's decoding is the fastest and can cost at most 8 times the message (512 KiB);
     * larger messages have their dependency lists decoded by the reader itself.
     */
    static constexpr uint32_t kDirectParseBytes = 64u << 10;

    /**
     * Opens the file and reads its GlobalMetadata.
     * \param path the .et file
     * \throws TraceError if it cannot be opened or does not start with a GlobalMetadata
     */
    explicit EtReader(const std::string& path);

    /**
     * As above, with another threshold for the reader's own decoding of dependency lists
     * (tests and the fuzz target give 0 to decode every node that way).
     * \param path the .et file
     * \param directParseBytes see kDirectParseBytes
     */
    EtReader(const std::string& path, uint32_t directParseBytes);

    /** \return the file's GlobalMetadata */
    const ChakraProtoMsg::GlobalMetadata& GetMetadata() const;

    /**
     * Reads the next node.
     * \param[out] node the node (cleared first)
     * \return false at the end of the file
     * \throws TraceError on a damaged or foreign message
     */
    bool ReadNode(ChakraProtoMsg::Node& node);

    /** \return the number of nodes read so far */
    uint64_t GetNodesRead() const;
    /** \return the path */
    const std::string& GetPath() const;
    /** \return true if the file is gzip'd */
    bool IsCompressed() const;
    /** \return the (uncompressed) byte offset of the next message */
    uint64_t GetOffset() const;
    /** \return repeated dependency ids dropped so far (same id twice in one list) */
    uint64_t GetDuplicateDepsDropped() const;
    /**
     * \return the bytes of the read buffer: what the reader holds besides its parsed metadata
     *         (about the rest of the file, or the largest message still ahead; 0 at the end)
     */
    std::size_t GetBufferSize() const;

  private:
    /**
     * Drops the repeated ids of one dependency list, keeping the first of each, in order.
     * \param list the list
     */
    void DropRepeats(google::protobuf::RepeatedField<uint64_t>& list);
    /**
     * Parses a Node message, decoding ctrl_deps and data_deps without repeats.
     * \param data the message bytes
     * \param size their number
     * \param[out] node the node
     * \return false if the bytes are not a valid Node message
     */
    bool ParseNode(const char* data, uint32_t size, ChakraProtoMsg::Node& node);
    /**
     * Reads the next length-prefixed message into a contiguous range of the buffer.
     * \param what the expected message ("GlobalMetadata", "Node") for errors
     * \param[out] data start of the message bytes (valid until the next call)
     * \param[out] size message size
     * \return false at a clean end of file (no byte of a new message)
     */
    bool NextMessage(const char* what, const char*& data, uint32_t& size);
    /** Makes at least \p bytes bytes available from m_begin; false if the file ends first. */
    bool Fill(std::size_t bytes);
    /**
     * Moves the unread bytes to a smaller buffer when what is left of the file needs at most
     * a quarter of the one it has (after a large message, or a small file read whole).
     */
    void ShrinkBuffer();
    /** \return "message <n> at byte <offset>" for the message being read */
    std::string Where() const;

    InputFile m_file;                          //!< the byte source
    std::vector<char> m_buffer;                //!< read buffer
    std::size_t m_begin{0};                    //!< first unread byte in m_buffer
    std::size_t m_end{0};                      //!< end of valid bytes in m_buffer
    uint64_t m_bufferOffset{0};                //!< file offset of m_buffer[0]
    uint64_t m_messageOffset{0};               //!< file offset of the message being read
    uint64_t m_messageIndex{0};                //!< 0 = metadata, 1 = first node, ...
    ChakraProtoMsg::GlobalMetadata m_metadata; //!< the file's metadata
    uint32_t m_directParseBytes;               //!< see kDirectParseBytes
    std::string m_rest;                        //!< a node's fields other than its dependencies
    uint64_t m_duplicateDeps{0};               //!< repeated dependency ids dropped
};

/**
 * \param message a parsed message
 * \return the number of a field the schema defines that was found with another wire type
 *         (the bytes are some other message), or 0 if there is none
 */
int FindWireTypeMismatch(const google::protobuf::Message& message);

} // namespace ns3

#endif // CHAKRA_ET_READER_H
