#include "ring-collective.h"

namespace ns3
{

std::vector<uint32_t>
AppendRingPass(ScheduleBuilder& builder,
               RingMode mode,
               const std::vector<uint32_t>& members,
               uint32_t position,
               uint64_t bytes,
               uint32_t chunks,
               int64_t tagBase,
               const std::vector<uint32_t>& startDeps,
               uint32_t stepOffset)
{
    const auto n = static_cast<uint32_t>(members.size());
    std::vector<uint32_t> last;
    if (n < 2)
    {
        return startDeps;
    }
    const uint32_t right = members[(position + 1) % n];
    const uint32_t left = members[(position + n - 1) % n];
    const uint32_t steps = mode == RingMode::ALL_REDUCE ? 2 * (n - 1) : n - 1;
    builder.Reserve(builder.Size() + static_cast<std::size_t>(2) * steps * chunks);
    for (uint32_t c = 0; c < chunks; ++c)
    {
        const uint64_t chunkBytes = PartBytes(bytes, chunks, c);
        std::vector<uint32_t> deps = startDeps;
        uint32_t previousRecv = 0;
        for (uint32_t k = stepOffset; k < stepOffset + steps; ++k)
        {
            const uint32_t sendSegment = (position + 2 * n - k % n) % n;
            const uint32_t recvSegment = (position + 2 * n - k % n - 1) % n;
            const int64_t tag = tagBase + static_cast<int64_t>(c) * 2 * n + k;
            if (k > stepOffset)
            {
                deps = {previousRecv};
            }
            builder.Send(right, PartBytes(chunkBytes, n, sendSegment), tag, deps);
            previousRecv = builder.Recv(left, PartBytes(chunkBytes, n, recvSegment), tag);
        }
        last.push_back(previousRecv);
    }
    return last;
}

std::string
RingCollective::GetName() const
{
    return "ring";
}

bool
RingCollective::Supports(const CollectiveRequest& request) const
{
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

CollectiveSchedule
RingCollective::DoBuild(const CollectiveRequest& request) const
{
    const uint32_t n = request.size;
    ScheduleBuilder builder;
    std::vector<uint32_t> ring(n);
    for (uint32_t i = 0; i < n; ++i)
    {
        ring[i] = i;
    }
    switch (request.type)
    {
    case ChakraProtoMsg::ALL_REDUCE:
        AppendRingPass(builder, RingMode::ALL_REDUCE, ring, request.me, request.bytes,
                       request.chunks, 0, {});
        break;
    case ChakraProtoMsg::REDUCE_SCATTER:
    case ChakraProtoMsg::REDUCE_SCATTER_BLOCK:
        AppendRingPass(builder, RingMode::REDUCE_SCATTER, ring, request.me, request.bytes,
                       request.chunks, 0, {});
        break;
    case ChakraProtoMsg::ALL_GATHER:
        // The gathered buffer is n contributions of request.bytes each.
        AppendRingPass(builder, RingMode::ALL_GATHER, ring, request.me,
                       request.bytes * static_cast<uint64_t>(n), request.chunks, 0, {});
        break;
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
