#include "et-writer.h"

#include "et-reader.h"
#include "trace-error.h"

#include <unordered_set>

namespace ns3
{

EtWriter::EtWriter(const std::string& path, const ChakraProtoMsg::GlobalMetadata& metadata)
    : m_file(path)
{
    WriteMessage(metadata, nullptr);
}

void
EtWriter::WriteNode(const ChakraProtoMsg::Node& node)
{
    // The readers' bound on distinct dependencies: a list longer than the bound may still be
    // within it once repeats are dropped, so only then are they counted.
    for (const auto* list : {&node.ctrl_deps(), &node.data_deps()})
    {
        if (static_cast<uint64_t>(list->size()) > EtReader::kMaxDepsPerList &&
            std::unordered_set<uint64_t>(list->begin(), list->end()).size() >
                EtReader::kMaxDepsPerList)
        {
            throw TraceError(m_file.GetPath(),
                             "node " + std::to_string(node.id()),
                             std::string(list == &node.ctrl_deps() ? "ctrl_deps" : "data_deps") +
                                 " lists more than " + std::to_string(EtReader::kMaxDepsPerList) +
                                 " distinct ids (the readers' bound per node)");
        }
    }
    WriteMessage(node, &node);
    ++m_nodes;
}

void
EtWriter::WriteMessage(const google::protobuf::MessageLite& message,
                       const ChakraProtoMsg::Node* node)
{
    std::size_t size = message.ByteSizeLong();
    if (size > EtReader::kMaxMessageBytes)
    {
        // A file no reader accepts is not written at all.
        throw TraceError(m_file.GetPath(),
                         node == nullptr ? "metadata" : "node " + std::to_string(node->id()),
                         "message of " + std::to_string(size) + " bytes exceeds the " +
                             std::to_string(EtReader::kMaxMessageBytes >> 20) +
                             " MiB limit of .et readers");
    }
    // Length prefix and message in one buffer: one write per message.
    m_scratch.resize(5 + size);
    auto* out = reinterpret_cast<uint8_t*>(&m_scratch[0]);
    std::size_t prefix = 0;
    auto length = static_cast<uint32_t>(size);
    while (length >= 0x80)
    {
        out[prefix++] = static_cast<uint8_t>(length | 0x80);
        length >>= 7;
    }
    out[prefix++] = static_cast<uint8_t>(length);
    message.SerializeWithCachedSizesToArray(out + prefix);
    m_file.Write(m_scratch.data(), prefix + size);
}

void
EtWriter::Commit()
{
    m_file.Commit();
}

uint64_t
EtWriter::GetNodesWritten() const
{
    return m_nodes;
}

} // namespace ns3
