#include "collnet-schedule.h"

#include "ns3/enum.h"
#include "ns3/log.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("ChakraCollNetSchedule");

void
CollNetLayout::Check(const char* what, uint32_t minGpus, uint64_t chunkBytes, uint32_t window) const
{
    if (hosts < 2 || gpus < std::max(minGpus, 1u) || members.size() != uint64_t{hosts} * gpus ||
        myHost >= hosts || myLocal >= gpus)
    {
        throw std::invalid_argument(
            std::string(what) + ": a layout of " + std::to_string(hosts) + " hosts x " +
            std::to_string(gpus) + " GPUs (it needs 2 hosts or more, at least " +
            std::to_string(minGpus) + " GPU(s) a host, and one entry per GPU)");
    }
    if (chunkBytes == 0 || window == 0)
    {
        throw std::invalid_argument(std::string(what) +
                                    ": the chunk and the window must be positive");
    }
}

SharePieces::SharePieces(uint64_t bytes, uint32_t gpus, uint64_t chunkBytes)
    : m_bytes(bytes),
      m_gpus(gpus),
      m_chunks(CollNetChunks((bytes + gpus - 1) / gpus, chunkBytes))
{
}

Ptr<const AttributeChecker>
MakeSharpSupportChecker()
{
    return MakeEnumChecker(static_cast<int>(SharpSupport::OFF),
                           "off",
                           static_cast<int>(SharpSupport::ON),
                           "on");
}

std::vector<uint32_t>
AddSendsToHeads(ScheduleBuilder& builder,
                const CollNetLayout& layout,
                uint32_t k,
                uint32_t window,
                int64_t tag,
                const std::function<uint64_t(uint32_t head)>& bytesTo,
                uint64_t bytesFrom,
                std::vector<uint32_t>& toHead)
{
    const uint32_t g = layout.gpus;
    const uint32_t h = layout.myHost;
    const uint32_t l = layout.myLocal;
    std::vector<uint32_t> gathered;
    for (uint32_t d = 1; d < g; ++d)
    {
        const uint32_t head = (l + d) % g;
        std::vector<uint32_t> deps;
        if (k >= window)
        {
            // toHead[k' (g - 1) + d - 1]: chunk k''s send to the head d places on.
            deps.push_back(toHead[uint64_t{k - window} * (g - 1) + d - 1]);
        }
        toHead.push_back(builder.Send(layout.MemberAt(h, head), bytesTo(head), tag, deps));
        gathered.push_back(builder.Recv(layout.MemberAt(h, (l + g - d) % g), bytesFrom, tag));
    }
    return gathered;
}

void
AddSendsFromHead(ScheduleBuilder& builder,
                 const CollNetLayout& layout,
                 int64_t tag,
                 uint64_t bytesTo,
                 const std::function<uint64_t(uint32_t from)>& bytesFrom,
                 const std::vector<uint32_t>& deps)
{
    const uint32_t g = layout.gpus;
    const uint32_t h = layout.myHost;
    const uint32_t l = layout.myLocal;
    for (uint32_t d = 1; d < g; ++d)
    {
        const uint32_t from = (l + g - d) % g;
        builder.Send(layout.MemberAt(h, (l + d) % g), bytesTo, tag, deps);
        builder.Recv(layout.MemberAt(h, from), bytesFrom(from), tag);
    }
}

uint32_t
CollNetChunks(uint64_t bytes, uint64_t chunkBytes)
{
    const uint64_t chunks = chunkBytes == 0 ? 1 : (bytes + chunkBytes - 1) / chunkBytes;
    if (chunks >= (uint64_t(1) << 30))
    {
        throw std::invalid_argument("CollNet: " + std::to_string(bytes) +
                                    " bytes need more chunks than a schedule can number");
    }
    return chunks == 0 ? 1 : static_cast<uint32_t>(chunks);
}

std::unique_ptr<CollectiveSchedule>
BuildCollNetDirect(const CollNetLayout& layout,
                   uint64_t bytes,
                   uint64_t chunkBytes,
                   uint32_t window,
                   int64_t tagBase)
{
    NS_LOG_FUNCTION(layout.hosts << layout.gpus << bytes << chunkBytes << window);
    layout.Check("CollNet", 1, chunkBytes, window);
    const uint32_t g = layout.gpus;
    const uint32_t h = layout.myHost;
    const uint32_t l = layout.myLocal;
    const uint32_t hosts = layout.hosts;
    const uint32_t next = layout.MemberAt((h + 1) % hosts, l);
    const uint32_t previous = layout.MemberAt((h + hosts - 1) % hosts, l);
    const SharePieces piece(bytes, g, chunkBytes);
    const uint32_t chunks = piece.Chunks();
    ScheduleBuilder builder;
    std::vector<uint32_t> toHead;
    toHead.reserve(uint64_t{chunks} * (g - 1));
    std::vector<uint32_t> network;
    network.reserve(chunks);
    for (uint32_t k = 0; k < chunks; ++k)
    {
        const int64_t tag = tagBase + int64_t{3} * k;
        std::vector<uint32_t> gathered = AddSendsToHeads(
            builder,
            layout,
            k,
            window,
            tag,
            [&piece, k](uint32_t head) { return piece(head, k); },
            piece(l, k),
            toHead);
        if (g == 1 && k >= window)
        {
            gathered.push_back(network[k - window]);
        }
        network.push_back(builder.Send(next, piece(l, k), tag + 1, gathered));
        const uint32_t reduced = builder.Recv(previous, piece(l, k), tag + 1);
        AddSendsFromHead(builder,
                         layout,
                         tag + 2,
                         piece(l, k),
                         [&piece, k](uint32_t from) { return piece(from, k); },
                         {reduced});
    }
    return builder.Take();
}

std::unique_ptr<CollectiveSchedule>
BuildCollNetChain(const CollNetLayout& layout,
                  uint32_t channel,
                  uint64_t bytes,
                  uint64_t chunkBytes,
                  uint32_t window,
                  int64_t tagBase)
{
    NS_LOG_FUNCTION(layout.hosts << layout.gpus << channel << bytes << chunkBytes << window);
    layout.Check("CollNet", 1, chunkBytes, window);
    const uint32_t g = layout.gpus;
    const uint32_t h = layout.myHost;
    const uint32_t hosts = layout.hosts;
    const uint32_t rail = channel % g;
    // Chain position p holds local GPU (rail + p) mod g; position 0 is the head.
    const uint32_t position = (layout.myLocal + g - rail) % g;
    const auto localAt = [rail, g](uint32_t p) { return (rail + p) % g; };
    const uint32_t parent = position > 0 ? layout.MemberAt(h, localAt(position - 1)) : 0;
    const uint32_t child = position + 1 < g ? layout.MemberAt(h, localAt(position + 1)) : 0;
    const uint32_t nextHead = layout.MemberAt((h + 1) % hosts, rail);
    const uint32_t previousHead = layout.MemberAt((h + hosts - 1) % hosts, rail);
    const uint32_t chunks = CollNetChunks(bytes, chunkBytes);
    ScheduleBuilder builder;
    std::vector<uint32_t> firstSends; // the tail's up sends, or the head's network sends
    firstSends.reserve(chunks);
    for (uint32_t k = 0; k < chunks; ++k)
    {
        const int64_t tag = tagBase + int64_t{3} * k;
        const uint64_t piece = PartBytes(bytes, chunks, k);
        std::vector<uint32_t> ready;
        if (position + 1 < g)
        {
            ready.push_back(builder.Recv(child, piece, tag));
        }
        else if (k >= window)
        {
            ready.push_back(firstSends[k - window]);
        }
        uint32_t down = 0;
        if (position > 0)
        {
            const uint32_t up = builder.Send(parent, piece, tag, ready);
            if (position + 1 == g)
            {
                firstSends.push_back(up);
            }
            down = builder.Recv(parent, piece, tag + 2);
        }
        else
        {
            const uint32_t out = builder.Send(nextHead, piece, tag + 1, ready);
            if (g == 1)
            {
                firstSends.push_back(out);
            }
            down = builder.Recv(previousHead, piece, tag + 1);
        }
        if (position + 1 < g)
        {
            builder.Send(child, piece, tag + 2, {down});
        }
    }
    return builder.Take();
}

} // namespace ns3
