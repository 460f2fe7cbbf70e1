#include "message-key.h"

#include "et_def.pb.h"

namespace ns3
{

namespace
{

void
Put(uint8_t*& out, uint64_t value, int bytes)
{
    for (int i = 0; i < bytes; ++i)
    {
        *out++ = static_cast<uint8_t>(value >> (8 * i));
    }
}

uint64_t
Get(const uint8_t*& in, int bytes)
{
    uint64_t value = 0;
    for (int i = 0; i < bytes; ++i)
    {
        value |= static_cast<uint64_t>(*in++) << (8 * i);
    }
    return value;
}

} // namespace

std::string
MessageKey::ToString() const
{
    if (kind == P2P)
    {
        return "tag " + std::to_string(tag);
    }
    return "collective #" + std::to_string(seq) + " of communicator " + std::to_string(comm) +
           ", message " + std::to_string(tag);
}

std::string
CallSignature::ToString() const
{
    std::string what;
    if (type == kPointToPoint)
    {
        what = "a point-to-point message";
    }
    else if (type == kUnknown)
    {
        what = "an undeclared call";
    }
    else if (ChakraProtoMsg::CollectiveCommType_IsValid(type))
    {
        what = ChakraProtoMsg::CollectiveCommType_Name(
            static_cast<ChakraProtoMsg::CollectiveCommType>(type));
    }
    else
    {
        what = "collective type " + std::to_string(type);
    }
    what += " of " + std::to_string(bytes) + " bytes";
    if (type == ChakraProtoMsg::BROADCAST || type == ChakraProtoMsg::REDUCE ||
        type == ChakraProtoMsg::GATHER || type == ChakraProtoMsg::SCATTER)
    {
        what += " with root index " + std::to_string(root);
    }
    return what + " (node " + std::to_string(node) + ")";
}

void
MessageHeader::Serialize(uint8_t* out) const
{
    Put(out, kMagic, 4);
    Put(out, src, 4);
    Put(out, key.kind, 1);
    Put(out, key.comm, 8);
    Put(out, key.seq, 8);
    Put(out, static_cast<uint64_t>(key.tag), 8);
    Put(out, payload, 8);
    Put(out, call.node, 8);
    Put(out, call.type, 1);
    Put(out, call.bytes, 8);
    Put(out, call.root, 4);
}

bool
MessageHeader::Deserialize(const uint8_t* in)
{
    if (Get(in, 4) != kMagic)
    {
        return false;
    }
    src = static_cast<uint32_t>(Get(in, 4));
    key.kind = static_cast<uint8_t>(Get(in, 1));
    key.comm = Get(in, 8);
    key.seq = Get(in, 8);
    key.tag = static_cast<int64_t>(Get(in, 8));
    payload = Get(in, 8);
    call.node = Get(in, 8);
    call.type = static_cast<uint8_t>(Get(in, 1));
    call.bytes = Get(in, 8);
    call.root = static_cast<uint32_t>(Get(in, 4));
    return true;
}

} // namespace ns3
