#include "hierarchical-collective.h"

#include "ring-collective.h"

#include <algorithm>
#include <map>

namespace ns3
{

namespace
{

/** The two-level layout of a communicator as seen from one member. */
struct Layout
{
    std::vector<uint32_t> local;  //!< members on my host, by communicator index
    std::vector<uint32_t> across; //!< members with my local position, one per host
    uint32_t localPosition{0};    //!< my position in local
    uint32_t hostPosition{0};     //!< my position in across
    bool even{false};             //!< every host has the same number of members, >= 2 hosts
};

Layout
MakeLayout(const CollectiveRequest& request)
{
    Layout layout;
    if (request.hostOf.size() != request.size)
    {
        return layout;
    }
    std::map<uint32_t, std::vector<uint32_t>> byHost; // sorted hosts, members in index order
    for (uint32_t i = 0; i < request.size; ++i)
    {
        byHost[request.hostOf[i]].push_back(i);
    }
    std::size_t perHost = byHost.begin()->second.size();
    layout.even = byHost.size() >= 2;
    for (const auto& [host, members] : byHost)
    {
        layout.even = layout.even && members.size() == perHost;
    }
    if (!layout.even)
    {
        return layout;
    }
    layout.local = byHost.at(request.hostOf[request.me]);
    layout.localPosition = static_cast<uint32_t>(
        std::find(layout.local.begin(), layout.local.end(), request.me) - layout.local.begin());
    for (const auto& [host, members] : byHost)
    {
        if (host == request.hostOf[request.me])
        {
            layout.hostPosition = static_cast<uint32_t>(layout.across.size());
        }
        layout.across.push_back(members[layout.localPosition]);
    }
    return layout;
}

/** Tag bases of the three phases (each phase uses fewer than 2^24 tags). */
constexpr int64_t kPhaseTags = int64_t(1) << 24;

} // namespace

std::string
HierarchicalCollective::GetName() const
{
    return "hierarchical";
}

bool
HierarchicalCollective::Supports(const CollectiveRequest& request) const
{
    switch (request.type)
    {
    case ChakraProtoMsg::ALL_REDUCE:
    case ChakraProtoMsg::ALL_GATHER:
    case ChakraProtoMsg::REDUCE_SCATTER:
    case ChakraProtoMsg::REDUCE_SCATTER_BLOCK:
        return MakeLayout(request).even;
    default:
        return false;
    }
}

CollectiveSchedule
HierarchicalCollective::DoBuild(const CollectiveRequest& request) const
{
    Layout layout = MakeLayout(request);
    if (!layout.even)
    {
        return {};
    }
    const auto g = static_cast<uint32_t>(layout.local.size());
    const auto hosts = static_cast<uint64_t>(layout.across.size());
    ScheduleBuilder builder;
    const uint32_t chunks = request.chunks;
    switch (request.type)
    {
    case ChakraProtoMsg::ALL_REDUCE: {
        auto inside = AppendRingPass(builder, RingMode::REDUCE_SCATTER, layout.local,
                                     layout.localPosition, request.bytes, chunks, 0, {});
        // After the reduce-scatter, local position p owns segment p + 1 of the buffer.
        uint64_t share = PartBytes(request.bytes, g, (layout.localPosition + 1) % g);
        auto across = AppendRingPass(builder, RingMode::ALL_REDUCE, layout.across,
                                     layout.hostPosition, share, chunks, kPhaseTags, inside);
        AppendRingPass(builder, RingMode::ALL_GATHER, layout.local, layout.localPosition,
                       request.bytes, chunks, 2 * kPhaseTags, across, g - 1);
        break;
    }
    case ChakraProtoMsg::ALL_GATHER: {
        auto across = AppendRingPass(builder, RingMode::ALL_GATHER, layout.across,
                                     layout.hostPosition, request.bytes * hosts, chunks, 0, {});
        AppendRingPass(builder, RingMode::ALL_GATHER, layout.local, layout.localPosition,
                       request.bytes * hosts * g, chunks, kPhaseTags, across);
        break;
    }
    default: { // reduce-scatter
        auto inside = AppendRingPass(builder, RingMode::REDUCE_SCATTER, layout.local,
                                     layout.localPosition, request.bytes, chunks, 0, {});
        uint64_t share = PartBytes(request.bytes, g, (layout.localPosition + 1) % g);
        AppendRingPass(builder, RingMode::REDUCE_SCATTER, layout.across, layout.hostPosition,
                       share, chunks, kPhaseTags, inside);
        break;
    }
    }
    return builder.Take();
}

} // namespace ns3
