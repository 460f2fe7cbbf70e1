#include "et-reader.h"

#include "trace-error.h"

#include <google/protobuf/unknown_field_set.h>

#include <cstring>

namespace ns3
{

namespace
{
constexpr std::size_t kInitialBufferBytes = 1u << 20;
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
    : m_file(path),
      m_buffer(kInitialBufferBytes)
{
    const char* data = nullptr;
    uint32_t size = 0;
    if (!NextMessage("GlobalMetadata", data, size))
    {
        throw TraceError(path, "", "empty file: a .et file starts with a GlobalMetadata message");
    }
    if (!m_metadata.ParseFromArray(data, static_cast<int>(size)))
    {
        throw TraceError(path, Where(), "wrong message type: not a GlobalMetadata (a .et file starts with one)");
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
    const char* data = nullptr;
    uint32_t size = 0;
    if (!NextMessage("Node", data, size))
    {
        return false;
    }
    if (!node.ParseFromArray(data, static_cast<int>(size)))
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
EtReader::GetOffset() const
{
    return m_bufferOffset + m_begin;
}

} // namespace ns3
