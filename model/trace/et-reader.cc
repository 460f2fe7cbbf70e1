#include "et-reader.h"

#include "trace-error.h"

#include <algorithm>
#include <cstring>
#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/unknown_field_set.h>
#include <google/protobuf/wire_format_lite.h>
#include <optional>
#include <unordered_set>

namespace ns3
{

namespace
{
/**
 * The read buffer's first size (it grows to fit a larger message). A replay keeps one reader
 * open per rank for the whole run: 1 MiB cost 4 GiB at 4,096 ranks (doc/workloads.md, the DLRM
 * job scaled); 64 KiB holds hundreds of typical nodes (a few hundred bytes each).
 */
constexpr std::size_t kInitialBufferBytes = 1u << 16;
/** The smallest buffer ShrinkBuffer leaves (Fill grows it again for a larger message). */
constexpr std::size_t kSmallestBufferBytes = 1u << 13;

/** Field numbers of Node that the reader decodes itself (see FORMATS.md). */
constexpr int kNodeIdField = 1;
constexpr int kCtrlDepsField = 4;
constexpr int kDataDepsField = 5;

/** The ids of one dependency list, each kept once, in the order first seen. */
class DistinctIds
{
  public:
    /** \return false if \p id is already in the list */
    bool Add(uint64_t id)
    {
        if (m_index.empty())
        {
            // Most lists hold a handful of ids: a scan is cheaper than hashing them.
            if (std::find(m_ids.begin(), m_ids.end(), id) != m_ids.end())
            {
                return false;
            }
            m_ids.push_back(id);
            if (m_ids.size() == kScanLimit)
            {
                m_index.insert(m_ids.begin(), m_ids.end());
            }
            return true;
        }
        if (!m_index.insert(id).second)
        {
            return false;
        }
        m_ids.push_back(id);
        return true;
    }

    /** \return the number of distinct ids */
    std::size_t Size() const
    {
        return m_ids.size();
    }

    /** Replaces the content of \p field with the ids. */
    void CopyTo(google::protobuf::RepeatedField<uint64_t>& field) const
    {
        field.Clear();
        field.Add(m_ids.begin(), m_ids.end());
    }

  private:
    static constexpr std::size_t kScanLimit = 32; //!< past this many ids, a hash set
    std::vector<uint64_t> m_ids;                  //!< the ids in order
    std::unordered_set<uint64_t> m_index;         //!< the same ids once there are many
};

/**
 * Reads the ids of one ctrl_deps or data_deps field whose tag \p in has just read: one varint,
 * or a packed list.
 * \param in the message, after the field's tag
 * \param packed whether the field is a packed list (else one varint)
 * \param messageSize the size of the whole message (a list must end inside it)
 * \param add called with each id, in order
 * \return false if the bytes are malformed
 */
template <typename Add>
bool
ReadIdField(google::protobuf::io::CodedInputStream& in, bool packed, uint32_t messageSize, Add add)
{
    uint64_t value = 0;
    if (!packed)
    {
        if (!in.ReadVarint64(&value))
        {
            return false;
        }
        add(value);
        return true;
    }
    uint32_t length = 0;
    // Within what is left of the message: a limit past its end would be clamped silently, and
    // the bytes after it read as part of the list.
    if (!in.ReadVarint32(&length) ||
        length > messageSize - static_cast<uint32_t>(in.CurrentPosition()))
    {
        return false;
    }
    bool wellFormed = true;
    auto limit = in.PushLimit(static_cast<int>(length));
    while (wellFormed && in.BytesUntilLimit() > 0)
    {
        wellFormed = in.ReadVarint64(&value);
        if (wellFormed)
        {
            add(value);
        }
    }
    wellFormed = wellFormed && in.BytesUntilLimit() == 0;
    in.PopLimit(limit);
    return wellFormed;
}

} // namespace

int
FindWireTypeMismatch(const google::protobuf::Message& message)
{
    const google::protobuf::UnknownFieldSet& unknown =
        message.GetReflection()->GetUnknownFields(message);
    for (int i = 0; i < unknown.field_count(); ++i)
    {
        int number = unknown.field(i).number();
        if (message.GetDescriptor()->FindFieldByNumber(number) != nullptr)
        {
            return number;
        }
    }
    return 0;
}

EtReader::EtReader(const std::string& path)
    : EtReader(path, kDirectParseBytes)
{
}

EtReader::EtReader(const std::string& path, uint32_t directParseBytes)
    : m_file(path),
      // Small until the first node: opening reads only the metadata, and a job's ranks all
      // open their files before any reads a node.
      m_buffer(m_file.BufferSizeFor(kSmallestBufferBytes)),
      m_directParseBytes(directParseBytes)
{
    const char* data = nullptr;
    uint32_t size = 0;
    if (!NextMessage("GlobalMetadata", data, size))
    {
        throw TraceError(path, "", "empty file: a .et file starts with a GlobalMetadata message");
    }
    if (!m_metadata.ParseFromArray(data, static_cast<int>(size)))
    {
        throw TraceError(path,
                         Where(),
                         "wrong message type: not a GlobalMetadata (a .et file starts with one)");
    }
    if (int field = FindWireTypeMismatch(m_metadata))
    {
        throw TraceError(path,
                         Where(),
                         "wrong message type: field " + std::to_string(field) +
                             " does not match GlobalMetadata (a .et file starts with one)");
    }
    m_messageIndex = 1;
}

const ChakraProtoMsg::GlobalMetadata&
EtReader::GetMetadata() const
{
    return m_metadata;
}

bool
EtReader::ReadNode(ChakraProtoMsg::Node& node)
{
    node.Clear();
    if (m_messageIndex == 1 && !m_buffer.empty())
    {
        // Nodes follow: read ahead in chunks of up to kInitialBufferBytes (ShrinkBuffer gives
        // back what the rest of the file does not need).
        m_buffer.resize(std::max(m_buffer.size(), m_file.BufferSizeFor(kInitialBufferBytes)));
    }
    const char* data = nullptr;
    uint32_t size = 0;
    if (!NextMessage("Node", data, size))
    {
        // The end: a reader whose nodes stay in memory (a feeder's window) keeps no file,
        // zlib state or read buffer for the rest of the run.
        m_file.Close();
        std::vector<char>().swap(m_buffer);
        m_bufferOffset += m_begin; // GetOffset stays the file's length
        m_begin = 0;
        m_end = 0;
        return false;
    }
    if (!ParseNode(data, size, node))
    {
        throw TraceError(m_file.GetPath(), Where(), "not a valid Node message (corrupt data)");
    }
    if (int field = FindWireTypeMismatch(node))
    {
        throw TraceError(m_file.GetPath(),
                         Where(),
                         "wrong message type: field " + std::to_string(field) +
                             " does not match Node (a second GlobalMetadata or foreign data?)");
    }
    ++m_messageIndex;
    // The message is parsed: only the unread bytes matter now. Done here, not before the next
    // read, because a feeder may keep its reader a long time between two reads.
    ShrinkBuffer();
    return true;
}

void
EtReader::DropRepeats(google::protobuf::RepeatedField<uint64_t>& list)
{
    if (list.size() < 2)
    {
        return;
    }
    int kept = 0;
    if (list.size() <= 32)
    {
        // Short lists (nearly all): a scan of the kept prefix beats hashing.
        for (int i = 0; i < list.size(); ++i)
        {
            const uint64_t id = list.Get(i);
            bool seen = false;
            for (int j = 0; j < kept && !seen; ++j)
            {
                seen = list.Get(j) == id;
            }
            if (!seen)
            {
                list.Set(kept++, id);
            }
        }
    }
    else
    {
        std::unordered_set<uint64_t> seen;
        for (int i = 0; i < list.size(); ++i)
        {
            if (seen.insert(list.Get(i)).second)
            {
                list.Set(kept++, list.Get(i));
            }
        }
    }
    m_duplicateDeps += static_cast<uint64_t>(list.size() - kept);
    list.Truncate(kept);
}

bool
EtReader::ParseNode(const char* data, uint32_t size, ChakraProtoMsg::Node& node)
{
    using google::protobuf::internal::WireFormatLite;
    if (size <= m_directParseBytes)
    {
        if (!node.ParseFromArray(data, static_cast<int>(size)))
        {
            return false;
        }
        DropRepeats(*node.mutable_ctrl_deps());
        DropRepeats(*node.mutable_data_deps());
        return true;
    }
    // A large message: protobuf would materialise every repeated id (8 bytes each, from as
    // little as one byte on the wire). The two dependency lists are decoded here, without
    // repeats, and the rest of the message, copied without them, is left to protobuf.
    google::protobuf::io::CodedInputStream in(reinterpret_cast<const uint8_t*>(data),
                                              static_cast<int>(size));
    DistinctIds ctrl;
    DistinctIds parents;
    std::optional<uint64_t> id;
    bool sawDeps = false;
    bool wellFormed = true;
    int keptFrom = 0; // start of the bytes not yet copied to m_rest
    m_rest.clear();
    for (;;)
    {
        const int start = in.CurrentPosition();
        const uint32_t tag = in.ReadTag();
        if (tag == 0)
        {
            // The end of the message, or a malformed tag if bytes remain.
            wellFormed = start == static_cast<int>(size);
            break;
        }
        const int field = WireFormatLite::GetTagFieldNumber(tag);
        const auto wire = WireFormatLite::GetTagWireType(tag);
        const bool isVarint = wire == WireFormatLite::WIRETYPE_VARINT;
        const bool isPacked = wire == WireFormatLite::WIRETYPE_LENGTH_DELIMITED;
        if ((field == kCtrlDepsField || field == kDataDepsField) && (isVarint || isPacked))
        {
            DistinctIds& list = field == kCtrlDepsField ? ctrl : parents;
            m_rest.append(data + keptFrom, static_cast<std::size_t>(start - keptFrom));
            sawDeps = true;
            auto add = [&](uint64_t value) {
                if (!list.Add(value))
                {
                    ++m_duplicateDeps;
                }
                else if (list.Size() > kMaxDepsPerList)
                {
                    throw TraceError(
                        m_file.GetPath(),
                        Where() + (id ? " (node " + std::to_string(*id) + ")" : ""),
                        std::string(field == kCtrlDepsField ? "ctrl_deps" : "data_deps") +
                            " lists more than " + std::to_string(kMaxDepsPerList) +
                            " distinct ids (the readers' bound per node)");
                }
            };
            wellFormed = ReadIdField(in, isPacked, size, add);
            keptFrom = in.CurrentPosition();
        }
        else if (field == kNodeIdField && isVarint)
        {
            uint64_t value = 0;
            wellFormed = in.ReadVarint64(&value);
            id = value; // for errors about the lists that follow
        }
        else
        {
            wellFormed = WireFormatLite::SkipField(&in, tag);
        }
        if (!wellFormed)
        {
            break;
        }
    }
    if (!wellFormed)
    {
        // The same bytes protobuf rejects (bad varint, tag or length, unbalanced group):
        // rejected here without letting it decode the lists first.
        return false;
    }
    if (!sawDeps)
    {
        return node.ParseFromArray(data, static_cast<int>(size));
    }
    m_rest.append(data + keptFrom, size - static_cast<std::size_t>(keptFrom));
    if (!node.ParseFromString(m_rest))
    {
        return false;
    }
    ctrl.CopyTo(*node.mutable_ctrl_deps());
    parents.CopyTo(*node.mutable_data_deps());
    return true;
}

bool
EtReader::NextMessage(const char* what, const char*& data, uint32_t& size)
{
    m_messageOffset = m_bufferOffset + m_begin;
    // Length prefix: a base-128 varint whose value must fit in 32 bits.
    uint64_t length = 0;
    std::size_t used = 0;
    for (;;)
    {
        if (!Fill(used + 1))
        {
            if (used == 0)
            {
                return false;
            }
            throw TraceError(m_file.GetPath(),
                             Where(),
                             std::string("truncated length prefix of a ") + what + " message");
        }
        auto byte = static_cast<uint8_t>(m_buffer[m_begin + used]);
        if (used == 9 && byte > 1)
        {
            throw TraceError(m_file.GetPath(), Where(), "bad varint length prefix (overflow)");
        }
        length |= static_cast<uint64_t>(byte & 0x7f) << (7 * used);
        ++used;
        if ((byte & 0x80) == 0)
        {
            break;
        }
        if (used == 10)
        {
            throw TraceError(m_file.GetPath(), Where(), "bad varint length prefix (over 10 bytes)");
        }
    }
    if (length > kMaxMessageBytes)
    {
        throw TraceError(m_file.GetPath(),
                         Where(),
                         "length prefix " + std::to_string(length) + " exceeds the " +
                             std::to_string(kMaxMessageBytes >> 20) +
                             " MiB message limit (corrupt or not a .et file)");
    }
    if (!Fill(used + length))
    {
        throw TraceError(m_file.GetPath(),
                         Where(),
                         std::string("truncated ") + what + " message: needs " +
                             std::to_string(length) + " bytes, file has " +
                             std::to_string(m_end - m_begin - used));
    }
    data = m_buffer.data() + m_begin + used;
    size = static_cast<uint32_t>(length);
    m_begin += used + length;
    return true;
}

bool
EtReader::Fill(std::size_t bytes)
{
    while (m_end - m_begin < bytes)
    {
        if (m_begin > 0)
        {
            // Move the unread tail to the front so that the buffer never grows for small
            // messages however long the file is.
            std::memmove(m_buffer.data(), m_buffer.data() + m_begin, m_end - m_begin);
            m_bufferOffset += m_begin;
            m_end -= m_begin;
            m_begin = 0;
        }
        if (m_buffer.size() < bytes)
        {
            m_buffer.resize(bytes);
        }
        std::size_t got = m_file.Read(m_buffer.data() + m_end, m_buffer.size() - m_end);
        if (got == 0)
        {
            return false;
        }
        m_end += got;
    }
    return true;
}

void
EtReader::ShrinkBuffer()
{
    // A feeder keeps its reader until the file ends, and a job's ranks hold theirs at once: a
    // generated data-parallel step of 8,192 ranks starts each file with a 50 KB list of the
    // all-reduce group's members, read whole into a 64 KiB buffer that then held 1.5 KB of
    // nodes for the run. What is still ahead: the unread bytes, and the rest of a plain file
    // (of a gzip'd one, up to a buffer's worth: its inflated length is unknown).
    const std::size_t unread = m_end - m_begin;
    const uint64_t fileLeft =
        m_file.IsCompressed() ? kInitialBufferBytes
                              : m_file.GetSize() - std::min(m_file.GetSize(), m_file.GetOffset());
    const std::size_t ahead =
        unread + static_cast<std::size_t>(std::min<uint64_t>(fileLeft, kInitialBufferBytes));
    if (4 * ahead > m_buffer.size())
    {
        return; // the common case, once per node: the buffer is what the rest needs
    }
    std::size_t size = kSmallestBufferBytes;
    while (size < ahead)
    {
        size *= 2;
    }
    if (size * 4 > m_buffer.size())
    {
        return; // not worth a copy
    }
    std::vector<char> smaller(size);
    std::memcpy(smaller.data(), m_buffer.data() + m_begin, unread);
    m_buffer.swap(smaller);
    m_bufferOffset += m_begin;
    m_begin = 0;
    m_end = unread;
}

std::size_t
EtReader::GetBufferSize() const
{
    return m_buffer.size();
}

std::string
EtReader::Where() const
{
    std::string message =
        m_messageIndex == 0 ? "message 0 (metadata)" : "message " + std::to_string(m_messageIndex);
    return message + " at byte " + std::to_string(m_messageOffset);
}

uint64_t
EtReader::GetNodesRead() const
{
    return m_messageIndex == 0 ? 0 : m_messageIndex - 1;
}

const std::string&
EtReader::GetPath() const
{
    return m_file.GetPath();
}

bool
EtReader::IsCompressed() const
{
    return m_file.IsCompressed();
}

uint64_t
EtReader::GetDuplicateDepsDropped() const
{
    return m_duplicateDeps;
}

uint64_t
EtReader::GetOffset() const
{
    return m_bufferOffset + m_begin;
}

} // namespace ns3
