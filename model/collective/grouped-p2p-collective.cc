#include "grouped-p2p-collective.h"

#include "ns3/abort.h"
#include "ns3/log.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <limits>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("ChakraGroupedP2pCollective");

NS_OBJECT_ENSURE_REGISTERED(GroupedP2pCollective);

TypeId
GroupedP2pCollective::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::GroupedP2pCollective")
            .SetParent<CollectiveAlgorithm>()
            .SetGroupName("Chakra")
            .AddConstructor<GroupedP2pCollective>()
            .AddAttribute("Window",
                          "Steps (peers) in flight at once: the sends of step i wait until step "
                          "i - Window has completed (its last send handed over, its last "
                          "receive arrived). Default 256: NCCL's p2pnChannels / "
                          "p2pnChannelsPerPeer x NCCL_MAX_DEV_WORK_P2P_PER_BATCH = 32 / 1 x 8 "
                          "on an 8-GPU H100 host of a multi-host communicator. At least 1.",
                          UintegerValue(256),
                          MakeUintegerAccessor(&GroupedP2pCollective::m_window),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("ChunkBytes",
                          "Largest message: a peer's bytes go as ceil(bytes / ChunkBytes) "
                          "messages of ChunkBytes (the last shorter). Default 131072: NCCL's "
                          "NCCL_P2P_NET_CHUNKSIZE for a communicator spanning hosts (524288, "
                          "NCCL_P2P_NVL_CHUNKSIZE, on one all-NVLink host). At least 1.",
                          UintegerValue(131072),
                          MakeUintegerAccessor(&GroupedP2pCollective::m_chunkBytes),
                          MakeUintegerChecker<uint64_t>(1));
    return tid;
}

bool
GroupedP2pCollective::Supports(const CollectiveRequest& request) const
{
    NS_LOG_FUNCTION(this << request.type);
    return request.type == ChakraProtoMsg::ALL_TO_ALL || request.type == ChakraProtoMsg::GATHER ||
           request.type == ChakraProtoMsg::SCATTER;
}

std::unique_ptr<CollectiveSchedule>
GroupedP2pCollective::DoBuild(const CollectiveRequest& request) const
{
    NS_LOG_FUNCTION(this);
    return std::make_unique<GroupedP2pSchedule>(request, m_window, m_chunkBytes);
}

GroupedP2pSchedule::GroupedP2pSchedule(const CollectiveRequest& request,
                                       uint32_t window,
                                       uint64_t chunkBytes)
    : m_type(request.type),
      m_n(request.size),
      m_me(request.me),
      m_root(request.root),
      m_bytes(request.bytes),
      m_window(window),
      m_chunkBytes(chunkBytes)
{
    NS_LOG_FUNCTION(this << m_type << m_n << m_me << window << chunkBytes);
    NS_ABORT_MSG_IF(window == 0, "ns3::GroupedP2pCollective::Window must be at least 1");
    NS_ABORT_MSG_IF(chunkBytes == 0, "ns3::GroupedP2pCollective::ChunkBytes must be at least 1");
    const bool root = m_me == m_root;
    uint64_t largest = 0; // the largest message of the call (the same on every rank)
    switch (m_type)
    {
    case ChakraProtoMsg::ALL_TO_ALL:
        m_hasSend = true;
        m_hasRecv = true;
        m_steps = m_n - 1;
        largest = PartBytes(m_bytes, m_n, m_n - 1);
        break;
    case ChakraProtoMsg::SCATTER:
        m_hasSend = root;
        m_hasRecv = !root;
        m_toRoot = !root;
        m_steps = root ? m_n - 1 : 1;
        largest = PartBytes(m_bytes, m_n, m_n - 1);
        break;
    case ChakraProtoMsg::GATHER:
        m_hasSend = !root;
        m_hasRecv = root;
        m_toRoot = !root;
        m_steps = root ? m_n - 1 : 1;
        largest = m_bytes;
        break;
    default:
        m_steps = 0;
        break;
    }
    m_slots = (m_hasSend ? 1 : 0) + (m_hasRecv ? 1 : 0);
    const uint64_t chunks = std::max<uint64_t>(1, (largest + chunkBytes - 1) / chunkBytes);
    NS_ABORT_MSG_IF(uint64_t(m_steps) * chunks * m_slots >= std::numeric_limits<uint32_t>::max(),
                    "a grouped-p2p collective over " << m_n << " ranks of " << m_bytes
                                                     << " bytes in chunks of " << chunkBytes
                                                     << " bytes has more ops than a schedule "
                                                        "can number: raise "
                                                        "ns3::GroupedP2pCollective::ChunkBytes");
    m_chunks = static_cast<uint32_t>(chunks);
}

uint32_t
GroupedP2pSchedule::GetChunks() const
{
    return m_chunks;
}

uint32_t
GroupedP2pSchedule::SendPeer(uint32_t step) const
{
    return m_toRoot ? m_root : static_cast<uint32_t>((uint64_t(m_me) + step) % m_n);
}

uint32_t
GroupedP2pSchedule::RecvPeer(uint32_t step) const
{
    return m_toRoot ? m_root : static_cast<uint32_t>((uint64_t(m_me) + m_n - step) % m_n);
}

uint64_t
GroupedP2pSchedule::MessageBytes(bool send, uint32_t peer) const
{
    switch (m_type)
    {
    case ChakraProtoMsg::ALL_TO_ALL:
    case ChakraProtoMsg::SCATTER:
        // Block j of the sender's buffer goes to rank j.
        return PartBytes(m_bytes, m_n, send ? peer : m_me);
    case ChakraProtoMsg::GATHER:
        return m_bytes;
    default:
        return 0;
    }
}

uint32_t
GroupedP2pSchedule::Size() const
{
    return m_steps * m_chunks * m_slots;
}

MessageOp
GroupedP2pSchedule::Op(uint32_t op) const
{
    const uint32_t slot = op % m_slots;
    const uint32_t unit = op / m_slots; // (step - 1) x C + chunk
    const uint32_t chunk = unit % m_chunks;
    const uint32_t step = unit / m_chunks + 1;
    MessageOp message;
    message.send = m_hasSend && slot == 0;
    message.peer = message.send ? SendPeer(step) : RecvPeer(step);
    const uint64_t bytes = MessageBytes(message.send, message.peer);
    const uint64_t offset = uint64_t(chunk) * m_chunkBytes;
    message.bytes = offset >= bytes ? 0 : std::min(m_chunkBytes, bytes - offset);
    message.tag = chunk;
    return message;
}

uint32_t
GroupedP2pSchedule::DepCount(uint32_t op) const
{
    const bool send = m_hasSend && op % m_slots == 0;
    const uint32_t step = op / m_slots / m_chunks + 1;
    return send && step > m_window ? m_slots : 0;
}

uint32_t
GroupedP2pSchedule::Dep(uint32_t op, uint32_t j) const
{
    const uint32_t step = op / m_slots / m_chunks + 1;
    const uint32_t earlier = step - m_window;
    // The last chunk's ops of step i - W.
    return ((earlier - 1) * m_chunks + m_chunks - 1) * m_slots + j;
}

uint32_t
GroupedP2pSchedule::DependentCount(uint32_t op) const
{
    if (!m_hasSend)
    {
        return 0;
    }
    const uint32_t unit = op / m_slots;
    const uint32_t step = unit / m_chunks + 1;
    const bool last = unit % m_chunks == m_chunks - 1;
    return last && uint64_t(step) + m_window <= m_steps ? m_chunks : 0;
}

uint32_t
GroupedP2pSchedule::Dependent(uint32_t op, uint32_t j) const
{
    const uint32_t step = op / m_slots / m_chunks + 1;
    // Chunk j's send of step i + W (the send is slot 0).
    return ((step + m_window - 1) * m_chunks + j) * m_slots;
}

uint32_t
GroupedP2pSchedule::NextRecv(uint32_t peer, int64_t tag, uint32_t after) const
{
    if (!m_hasRecv || tag < 0 || tag >= static_cast<int64_t>(m_chunks) || peer >= m_n ||
        peer == m_me)
    {
        return kNone;
    }
    uint32_t step;
    if (m_toRoot)
    {
        if (peer != m_root)
        {
            return kNone;
        }
        step = 1;
    }
    else
    {
        step = static_cast<uint32_t>((uint64_t(m_me) + m_n - peer) % m_n);
    }
    const uint32_t op =
        ((step - 1) * m_chunks + static_cast<uint32_t>(tag)) * m_slots + (m_slots - 1);
    return after == kNone || op > after ? op : kNone;
}

} // namespace ns3
