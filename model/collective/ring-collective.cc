#include "ring-collective.h"

#include "ns3/log.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("ChakraRingCollective");

NS_OBJECT_ENSURE_REGISTERED(RingCollective);

TypeId
RingCollective::GetTypeId()
{
    static TypeId tid = TypeId("ns3::RingCollective")
                            .SetParent<CollectiveAlgorithm>()
                            .SetGroupName("Chakra")
                            .AddConstructor<RingCollective>();
    return tid;
}

bool
RingCollective::Supports(const CollectiveRequest& request) const
{
    NS_LOG_FUNCTION(this);
    switch (request.type)
    {
    case ChakraProtoMsg::ALL_REDUCE:
    case ChakraProtoMsg::REDUCE_SCATTER:
    case ChakraProtoMsg::REDUCE_SCATTER_BLOCK:
    case ChakraProtoMsg::ALL_GATHER:
    case ChakraProtoMsg::BROADCAST:
    case ChakraProtoMsg::REDUCE:
    case ChakraProtoMsg::BARRIER:
        return true;
    default:
        return false;
    }
}

std::unique_ptr<CollectiveSchedule>
RingCollective::DoBuild(const CollectiveRequest& request) const
{
    NS_LOG_FUNCTION(this);
    const uint32_t n = request.size;
    std::vector<uint32_t> ring(n);
    for (uint32_t i = 0; i < n; ++i)
    {
        ring[i] = i;
    }
    auto passes = std::make_unique<RingSchedule>();
    switch (request.type)
    {
    case ChakraProtoMsg::ALL_REDUCE:
        passes->AddPass(RingMode::ALL_REDUCE, ring, request.me, request.bytes, request.chunks, 0);
        return passes;
    case ChakraProtoMsg::REDUCE_SCATTER:
    case ChakraProtoMsg::REDUCE_SCATTER_BLOCK:
        passes
            ->AddPass(RingMode::REDUCE_SCATTER, ring, request.me, request.bytes, request.chunks, 0);
        return passes;
    case ChakraProtoMsg::ALL_GATHER:
        // The gathered buffer is n contributions of request.bytes each.
        passes->AddPass(RingMode::ALL_GATHER,
                        ring,
                        request.me,
                        request.bytes * static_cast<uint64_t>(n),
                        request.chunks,
                        0);
        return passes;
    default:
        break;
    }
    // Broadcast and reduce: O(chunks) ops per rank, held as a list.
    ScheduleBuilder builder;
    switch (request.type)
    {
    case ChakraProtoMsg::BROADCAST:
    case ChakraProtoMsg::REDUCE: {
        // A chain through the ring: broadcast flows from the root, reduce flows into it.
        bool toRoot = request.type == ChakraProtoMsg::REDUCE;
        uint32_t start = toRoot ? (request.root + 1) % n : request.root;
        uint32_t position = (request.me + n - start) % n;
        uint32_t next = (request.me + 1) % n;
        uint32_t previous = (request.me + n - 1) % n;
        for (uint32_t c = 0; c < request.chunks; ++c)
        {
            uint64_t chunkBytes = PartBytes(request.bytes, request.chunks, c);
            std::vector<uint32_t> deps;
            if (position > 0)
            {
                deps = {builder.Recv(previous, chunkBytes, c)};
            }
            if (position + 1 < n)
            {
                builder.Send(next, chunkBytes, c, deps);
            }
        }
        break;
    }
    default:
        break;
    }
    return builder.Take();
}

} // namespace ns3
