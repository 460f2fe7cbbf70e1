#include "pat-schedule.h"

#include "ns3/log.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("ChakraPatSchedule");

namespace
{

/** NCCL_STEPS: the steps a connection has in flight (and PAT's depth of aggregation). */
constexpr uint32_t kNcclSteps = 8;

/** \return the index of the lowest set bit of \p s (> 0) */
uint32_t
LowestBit(uint32_t s)
{
    uint32_t d = 0;
    while ((s & 1u) == 0)
    {
        s >>= 1;
        ++d;
    }
    return d;
}

/** \return the passes a share of \p channelBytes takes in chunks of \p chunkBytes */
uint64_t
Passes(uint64_t channelBytes, uint64_t chunkBytes)
{
    return (channelBytes + chunkBytes - 1) / chunkBytes;
}

} // namespace

PatShape
PatShape::Make(uint32_t ranks, uint64_t chunkBytes, uint64_t channelBytes)
{
    NS_LOG_FUNCTION(ranks << chunkBytes << channelBytes);
    if (ranks < 2 || chunkBytes == 0 || channelBytes == 0)
    {
        throw std::invalid_argument("PAT: needs 2 ranks or more and a positive chunk and share "
                                    "(ranks " +
                                    std::to_string(ranks) + ", chunk " +
                                    std::to_string(chunkBytes) + " B, share " +
                                    std::to_string(channelBytes) + " B)");
    }
    PatShape shape;
    shape.ranks = ranks;
    shape.pow2 = 1;
    while (shape.pow2 < ranks)
    {
        shape.pow2 *= 2;
    }
    shape.aggFactor = 1;
    shape.aggDelta = shape.pow2;
    // Aggregate small shares: two slices of aggFactor ranks still fit in a step.
    while (chunkBytes / (channelBytes * shape.aggFactor) >= 2 && shape.aggFactor < ranks / 2)
    {
        shape.aggFactor *= 2;
        shape.aggDelta /= 2;
    }
    shape.postFreq = shape.aggFactor;
    // Then deepen by the steps in flight (NCCL_STEPS halved down to 1).
    for (uint32_t depth = kNcclSteps; depth > 1 && shape.aggFactor < ranks / 2; depth /= 2)
    {
        shape.aggFactor *= 2;
        shape.aggDelta /= 2;
    }
    return shape;
}

std::vector<PatMessage>
PatMessages(const PatShape& shape)
{
    std::vector<PatMessage> messages;
    // Cuts a group's offsets (in the order given) into messages of postFreq, dropping s >= n.
    auto addGroup = [&shape, &messages](const std::vector<uint32_t>& group, uint32_t dim) {
        for (std::size_t first = 0; first < group.size(); first += shape.postFreq)
        {
            PatMessage message;
            message.dim = dim;
            const std::size_t last = std::min(group.size(), first + shape.postFreq);
            for (std::size_t i = first; i < last; ++i)
            {
                if (group[i] < shape.ranks)
                {
                    message.offsets.push_back(group[i]);
                }
            }
            if (!message.offsets.empty())
            {
                messages.push_back(std::move(message));
            }
        }
    };
    // Multiples of aggDelta, s = (2a + 1) x scale x aggDelta, the far dimensions first: each
    // forwards what the larger scale brought (or the sender's own data).
    for (uint32_t scale = shape.aggFactor / 2; scale >= 1; scale /= 2)
    {
        std::vector<uint32_t> group;
        for (uint32_t a = 0; a < shape.aggFactor / (2 * scale); ++a)
        {
            group.push_back((2 * a + 1) * scale * shape.aggDelta);
        }
        addGroup(group, LowestBit(scale * shape.aggDelta));
    }
    // The rest by residue: s = a x aggDelta + r forwards s - 2^lowbit(r), whose residue is
    // smaller.
    for (uint32_t r = 1; r < shape.aggDelta; ++r)
    {
        std::vector<uint32_t> group;
        for (uint32_t a = 0; a < shape.aggFactor; ++a)
        {
            group.push_back(a * shape.aggDelta + r);
        }
        addGroup(group, LowestBit(r));
    }
    return messages;
}

int64_t
PatTags(const PatShape& shape, uint64_t channelBytes, uint64_t chunkBytes)
{
    return static_cast<int64_t>(Passes(channelBytes, chunkBytes)) *
           static_cast<int64_t>(PatMessages(shape).size());
}

uint64_t
PatChunkBytes(PatKind kind, uint64_t stepBytes, uint32_t channels, uint64_t bytes)
{
    const uint64_t factor = kind == PatKind::ALL_GATHER ? 32 : 16;
    uint64_t chunk = stepBytes;
    while (chunk * channels * factor > bytes && chunk > 65536)
    {
        chunk /= 2;
    }
    return chunk;
}

std::unique_ptr<CollectiveSchedule>
BuildPat(PatKind kind,
         const PatShape& shape,
         const std::vector<uint32_t>& members,
         uint32_t me,
         uint64_t channelBytes,
         uint64_t chunkBytes,
         uint32_t window,
         int64_t tagBase)
{
    NS_LOG_FUNCTION(static_cast<int>(kind)
                    << shape.ranks << me << channelBytes << chunkBytes << window << tagBase);
    const uint32_t n = shape.ranks;
    if (members.size() != n || me >= n || channelBytes == 0 || chunkBytes == 0 || window == 0)
    {
        throw std::invalid_argument("PAT: " + std::to_string(members.size()) + " members for " +
                                    std::to_string(n) + " ranks, position " + std::to_string(me) +
                                    " (the members must be one per rank, the share, chunk and "
                                    "window positive)");
    }
    const bool gather = kind == PatKind::ALL_GATHER;
    std::vector<PatMessage> messages = PatMessages(shape);
    const auto count = static_cast<uint32_t>(messages.size());
    // messageOf[s]: the message (in the all-gather's order) that carries offset s.
    std::vector<uint32_t> messageOf(n, 0);
    for (uint32_t m = 0; m < count; ++m)
    {
        for (uint32_t s : messages[m].offsets)
        {
            messageOf[s] = m;
        }
    }
    // What each message's send waits for, as messages of the same pass whose receives it needs.
    std::vector<std::vector<uint32_t>> needs(count);
    for (uint32_t m = 0; m < count; ++m)
    {
        const uint32_t d = messages[m].dim;
        for (uint32_t s : messages[m].offsets)
        {
            if (gather)
            {
                // The data of offset s - 2^d reached this rank first (unless it is its own).
                if (s != (1u << d))
                {
                    needs[m].push_back(messageOf[s - (1u << d)]);
                }
                continue;
            }
            // The partial sums of s + 2^e, e < d, from the ranks 2^e behind.
            for (uint32_t e = 0; e < d; ++e)
            {
                if (s + (1u << e) < n)
                {
                    needs[m].push_back(messageOf[s + (1u << e)]);
                }
            }
        }
        std::sort(needs[m].begin(), needs[m].end());
        needs[m].erase(std::unique(needs[m].begin(), needs[m].end()), needs[m].end());
    }
    // The order this rank runs the messages in.
    std::vector<uint32_t> order(count);
    for (uint32_t i = 0; i < count; ++i)
    {
        order[i] = gather ? i : count - 1 - i;
    }

    ScheduleBuilder builder;
    const uint64_t passes = Passes(channelBytes, chunkBytes);
    std::vector<std::vector<uint32_t>> sendsByDim(32);
    std::vector<uint32_t> previousWaits;
    std::vector<uint32_t> received(count, CollectiveSchedule::kNone);
    for (uint64_t pass = 0; pass < passes; ++pass)
    {
        const uint64_t slice = std::min(chunkBytes, channelBytes - pass * chunkBytes);
        for (uint32_t i = 0; i < count; ++i)
        {
            const uint32_t m = order[i];
            const uint32_t d = messages[m].dim;
            const uint32_t hop = (1u << d) % n;
            const uint32_t to = gather ? (me + n - hop) % n : (me + hop) % n;
            const uint32_t from = gather ? (me + hop) % n : (me + n - hop) % n;
            const uint64_t bytes = slice * messages[m].offsets.size();
            const int64_t tag = tagBase + static_cast<int64_t>(pass) * count + m;
            std::vector<uint32_t> waits;
            for (uint32_t need : needs[m])
            {
                waits.push_back(received[need]);
            }
            // In order: what the previous step waited for, this one waits for too.
            std::vector<uint32_t> deps = waits;
            deps.insert(deps.end(), previousWaits.begin(), previousWaits.end());
            std::vector<uint32_t>& dimSends = sendsByDim[d];
            if (dimSends.size() >= window)
            {
                deps.push_back(dimSends[dimSends.size() - window]);
            }
            std::sort(deps.begin(), deps.end());
            deps.erase(std::unique(deps.begin(), deps.end()), deps.end());
            dimSends.push_back(builder.Send(members[to], bytes, tag, deps));
            received[m] = builder.Recv(members[from], bytes, tag);
            previousWaits = std::move(waits);
        }
    }
    return builder.Take();
}

} // namespace ns3
