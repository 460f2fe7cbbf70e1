#include "direct-collective.h"

#include "ns3/abort.h"
#include "ns3/log.h"

#include <limits>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("ChakraDirectCollective");

NS_OBJECT_ENSURE_REGISTERED(DirectCollective);

TypeId
DirectCollective::GetTypeId()
{
    static TypeId tid = TypeId("ns3::DirectCollective")
                            .SetParent<CollectiveAlgorithm>()
                            .SetGroupName("Chakra")
                            .AddConstructor<DirectCollective>();
    return tid;
}

bool
DirectCollective::Supports(const CollectiveRequest& /* request */) const
{
    NS_LOG_FUNCTION(this);
    return true;
}

std::unique_ptr<CollectiveSchedule>
DirectCollective::DoBuild(const CollectiveRequest& request) const
{
    NS_LOG_FUNCTION(this);
    return std::make_unique<DirectSchedule>(request);
}

DirectSchedule::DirectSchedule(const CollectiveRequest& request)
    : m_type(request.type),
      m_n(request.size),
      m_me(request.me),
      m_root(request.root),
      m_bytes(request.bytes),
      m_chunks(request.chunks)
{
    const uint32_t others = m_n - 1;
    switch (m_type)
    {
    case ChakraProtoMsg::ALL_TO_ALL:
    case ChakraProtoMsg::REDUCE_SCATTER:
    case ChakraProtoMsg::REDUCE_SCATTER_BLOCK:
    case ChakraProtoMsg::ALL_GATHER:
        m_shape = Shape::EXCHANGE;
        break;
    case ChakraProtoMsg::ALL_REDUCE:
        m_shape = Shape::ALL_REDUCE;
        break;
    case ChakraProtoMsg::BROADCAST:
    case ChakraProtoMsg::SCATTER:
        m_shape = m_me == m_root ? Shape::SENDS : Shape::ONE_RECV;
        break;
    case ChakraProtoMsg::REDUCE:
    case ChakraProtoMsg::GATHER:
        m_shape = m_me == m_root ? Shape::RECVS : Shape::ONE_SEND;
        break;
    default:
        m_shape = Shape::NONE;
        break;
    }
    uint64_t perChunk = 0;
    switch (m_shape)
    {
    case Shape::EXCHANGE:
        perChunk = uint64_t(2) * others;
        break;
    case Shape::ALL_REDUCE:
        perChunk = uint64_t(4) * others;
        break;
    case Shape::SENDS:
    case Shape::RECVS:
        perChunk = others;
        break;
    case Shape::ONE_SEND:
    case Shape::ONE_RECV:
        perChunk = 1;
        break;
    case Shape::NONE:
        break;
    }
    NS_ABORT_MSG_IF(perChunk * m_chunks >= std::numeric_limits<uint32_t>::max(),
                    "a direct collective over " << m_n << " ranks in " << m_chunks
                                                << " chunks has more ops than a schedule can "
                                                   "number");
    m_perChunk = static_cast<uint32_t>(perChunk);
}

uint32_t
DirectSchedule::PeerAfter(uint32_t i) const
{
    return static_cast<uint32_t>((static_cast<uint64_t>(m_me) + i) % m_n);
}

uint64_t
DirectSchedule::Block(uint32_t chunk, uint32_t block) const
{
    return PartBytes(PartBytes(m_bytes, m_chunks, chunk), m_n, block);
}

bool
DirectSchedule::IsFirstHalfRecv(uint32_t local) const
{
    return m_shape == Shape::ALL_REDUCE && local % 2 == 1 && local < 2 * (m_n - 1);
}

uint32_t
DirectSchedule::Size() const
{
    return m_perChunk * m_chunks;
}

MessageOp
DirectSchedule::Op(uint32_t op) const
{
    const uint32_t chunk = op / m_perChunk;
    uint32_t local = op % m_perChunk;
    const int64_t tag = static_cast<int64_t>(chunk) * 2;
    const uint32_t others = m_n - 1;
    MessageOp message;
    message.tag = tag;
    switch (m_shape)
    {
    case Shape::ALL_REDUCE:
    case Shape::EXCHANGE: {
        const bool secondHalf = local >= 2 * others;
        if (secondHalf)
        {
            local -= 2 * others;
            message.tag = tag + 1;
        }
        const uint32_t i = local / 2 + 1;
        message.send = local % 2 == 0;
        message.peer = message.send ? PeerAfter(i) : PeerAfter(m_n - i);
        if (m_type == ChakraProtoMsg::ALL_GATHER)
        {
            message.bytes = PartBytes(m_bytes, m_chunks, chunk);
        }
        else if (!secondHalf)
        {
            // Block j of every rank's buffer goes to rank j.
            message.bytes = Block(chunk, message.send ? message.peer : m_me);
        }
        else
        {
            // The reduced block goes to everybody.
            message.bytes = Block(chunk, message.send ? m_me : message.peer);
        }
        break;
    }
    case Shape::SENDS:
        message.send = true;
        message.peer = PeerAfter(local + 1);
        message.bytes = m_type == ChakraProtoMsg::SCATTER ? Block(chunk, message.peer)
                                                          : PartBytes(m_bytes, m_chunks, chunk);
        break;
    case Shape::RECVS:
        message.send = false;
        message.peer = PeerAfter(local + 1);
        message.bytes = PartBytes(m_bytes, m_chunks, chunk);
        break;
    case Shape::ONE_SEND:
        message.send = true;
        message.peer = m_root;
        message.bytes = PartBytes(m_bytes, m_chunks, chunk);
        break;
    case Shape::ONE_RECV:
        message.send = false;
        message.peer = m_root;
        message.bytes = m_type == ChakraProtoMsg::SCATTER ? Block(chunk, m_me)
                                                          : PartBytes(m_bytes, m_chunks, chunk);
        break;
    case Shape::NONE:
        break;
    }
    return message;
}

uint32_t
DirectSchedule::DepCount(uint32_t op) const
{
    if (m_shape != Shape::ALL_REDUCE)
    {
        return 0;
    }
    const uint32_t local = op % m_perChunk;
    // A send of the second half waits for every receive of the first.
    return local >= 2 * (m_n - 1) && local % 2 == 0 ? m_n - 1 : 0;
}

uint32_t
DirectSchedule::Dep(uint32_t op, uint32_t j) const
{
    return op / m_perChunk * m_perChunk + 2 * j + 1;
}

uint32_t
DirectSchedule::DependentCount(uint32_t op) const
{
    return IsFirstHalfRecv(op % m_perChunk) ? m_n - 1 : 0;
}

uint32_t
DirectSchedule::Dependent(uint32_t op, uint32_t j) const
{
    return op / m_perChunk * m_perChunk + 2 * (m_n - 1) + 2 * j;
}

uint32_t
DirectSchedule::NextRecv(uint32_t peer, int64_t tag, uint32_t after) const
{
    if (tag < 0 || tag / 2 >= static_cast<int64_t>(m_chunks))
    {
        return kNone;
    }
    const auto chunk = static_cast<uint32_t>(tag / 2);
    const bool secondHalf = tag % 2 == 1;
    const bool member = peer < m_n && peer != m_me;
    uint32_t local = kNone;
    switch (m_shape)
    {
    case Shape::ALL_REDUCE:
    case Shape::EXCHANGE:
        if (member && (!secondHalf || m_shape == Shape::ALL_REDUCE))
        {
            // The receive from me - i is the i-th pair's second op.
            const auto i = static_cast<uint32_t>((static_cast<uint64_t>(m_me) + m_n - peer) % m_n);
            local = 2 * (i - 1) + 1 + (secondHalf ? 2 * (m_n - 1) : 0);
        }
        break;
    case Shape::RECVS:
        if (member && !secondHalf)
        {
            local = static_cast<uint32_t>((static_cast<uint64_t>(peer) + m_n - m_me) % m_n) - 1;
        }
        break;
    case Shape::ONE_RECV:
        if (peer == m_root && !secondHalf)
        {
            local = 0;
        }
        break;
    default:
        break;
    }
    if (local == kNone)
    {
        return kNone;
    }
    const uint32_t op = chunk * m_perChunk + local;
    return after == kNone || op > after ? op : kNone;
}

} // namespace ns3
