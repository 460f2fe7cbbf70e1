#include "hierarchical-collective.h"

#include "ring-schedule.h"

#include "ns3/log.h"

#include <algorithm>
#include <memory>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("ChakraHierarchicalCollective");

namespace
{

/**
 * How a communicator's members spread over hosts: the same for every member, so it is computed
 * once per host list (a call on n ranks would otherwise group n members on each of them).
 */
struct HostGroups
{
    bool even{false};                    //!< >= 2 hosts, each with the same number of members
    uint32_t perHost{0};                 //!< members per host (when even)
    std::vector<uint32_t> byHost;        //!< members host by host (ascending), in index order
    std::vector<uint32_t> hostPosition;  //!< per member: its host's position among the hosts
    std::vector<uint32_t> localPosition; //!< per member: its position on its host
};

std::shared_ptr<const HostGroups>
GroupHosts(const std::vector<uint32_t>& hostOf)
{
    auto groups = std::make_shared<HostGroups>();
    const auto n = static_cast<uint32_t>(hostOf.size());
    std::vector<uint32_t> order(n);
    for (uint32_t i = 0; i < n; ++i)
    {
        order[i] = i;
    }
    std::stable_sort(order.begin(), order.end(), [&hostOf](uint32_t a, uint32_t b) {
        return hostOf[a] < hostOf[b];
    });
    groups->hostPosition.resize(n);
    groups->localPosition.resize(n);
    uint32_t hosts = 0;
    uint32_t first = 0; // first member of the current host in order
    for (uint32_t k = 0; k < n; ++k)
    {
        if (k > 0 && hostOf[order[k]] != hostOf[order[k - 1]])
        {
            ++hosts;
            first = k;
        }
        groups->hostPosition[order[k]] = hosts;
        groups->localPosition[order[k]] = k - first;
    }
    hosts = n == 0 ? 0 : hosts + 1;
    groups->perHost = hosts == 0 ? 0 : n / hosts;
    groups->even = hosts >= 2 && n % hosts == 0;
    for (uint32_t k = 0; k < n && groups->even; ++k)
    {
        // Even: host h holds exactly order[h * perHost .. (h + 1) * perHost).
        groups->even = groups->hostPosition[order[k]] == k / groups->perHost;
    }
    groups->byHost = std::move(order);
    return groups;
}

/** \return the grouping of a shared host list, computed once while the list lives */
std::shared_ptr<const HostGroups>
GroupsOf(const std::shared_ptr<const std::vector<uint32_t>>& hostOf)
{
    // A job has a few distinct groups (the world, tensor-, pipeline-, data-parallel groups):
    // a short list, most recent first.
    struct Entry
    {
        std::weak_ptr<const std::vector<uint32_t>> list;
        std::shared_ptr<const HostGroups> groups;
    };

    static std::vector<Entry> recent;
    for (std::size_t i = 0; i < recent.size(); ++i)
    {
        if (recent[i].list.lock() == hostOf)
        {
            std::rotate(recent.begin(),
                        recent.begin() + static_cast<std::ptrdiff_t>(i),
                        recent.begin() + static_cast<std::ptrdiff_t>(i) + 1);
            return recent.front().groups;
        }
    }
    constexpr std::size_t kKept = 64;
    if (recent.size() == kKept)
    {
        recent.pop_back();
    }
    recent.insert(recent.begin(), Entry{hostOf, GroupHosts(*hostOf)});
    return recent.front().groups;
}

/** The two-level layout of a communicator as seen from one member. */
struct Layout
{
    std::vector<uint32_t> local;  //!< members on my host, by communicator index
    std::vector<uint32_t> across; //!< members with my local position, one per host
    uint32_t localPosition{0};    //!< my position in local
    uint32_t hostPosition{0};     //!< my position in across
    bool even{false};             //!< every host has the same number of members, >= 2 hosts
};

/** \return whether the members spread evenly over two or more hosts */
bool
IsEven(const CollectiveRequest& request)
{
    return request.hostOf && request.hostOf->size() == request.size &&
           GroupsOf(request.hostOf)->even;
}

Layout
MakeLayout(const CollectiveRequest& request)
{
    Layout layout;
    if (!IsEven(request))
    {
        return layout;
    }
    const HostGroups& groups = *GroupsOf(request.hostOf);
    layout.even = true;
    layout.hostPosition = groups.hostPosition[request.me];
    layout.localPosition = groups.localPosition[request.me];
    const uint32_t g = groups.perHost;
    const auto hosts = static_cast<uint32_t>(groups.byHost.size() / g);
    const auto firstLocal = static_cast<std::ptrdiff_t>(layout.hostPosition) * g;
    layout.local.assign(groups.byHost.begin() + firstLocal, groups.byHost.begin() + firstLocal + g);
    layout.across.reserve(hosts);
    for (uint32_t h = 0; h < hosts; ++h)
    {
        layout.across.push_back(groups.byHost[h * g + layout.localPosition]);
    }
    return layout;
}

/** Tag bases of the three phases (each phase uses fewer than 2^24 tags). */
constexpr int64_t kPhaseTags = int64_t(1) << 24;

} // namespace

NS_OBJECT_ENSURE_REGISTERED(HierarchicalCollective);

TypeId
HierarchicalCollective::GetTypeId()
{
    static TypeId tid = TypeId("ns3::HierarchicalCollective")
                            .SetParent<CollectiveAlgorithm>()
                            .SetGroupName("Chakra")
                            .AddConstructor<HierarchicalCollective>();
    return tid;
}

bool
HierarchicalCollective::Supports(const CollectiveRequest& request) const
{
    NS_LOG_FUNCTION(this);
    switch (request.type)
    {
    case ChakraProtoMsg::ALL_REDUCE:
    case ChakraProtoMsg::ALL_GATHER:
    case ChakraProtoMsg::REDUCE_SCATTER:
    case ChakraProtoMsg::REDUCE_SCATTER_BLOCK:
        return IsEven(request);
    default:
        return false;
    }
}

std::unique_ptr<CollectiveSchedule>
HierarchicalCollective::DoBuild(const CollectiveRequest& request) const
{
    NS_LOG_FUNCTION(this);
    Layout layout = MakeLayout(request);
    if (!layout.even)
    {
        return ScheduleBuilder().Take();
    }
    const auto g = static_cast<uint32_t>(layout.local.size());
    const auto hosts = static_cast<uint64_t>(layout.across.size());
    const uint32_t chunks = request.chunks;
    // Each phase starts when the one before has ended on this rank (a phase over one member,
    // such as the host phases with one GPU per host, has no ops).
    auto passes = std::make_unique<RingSchedule>();
    switch (request.type)
    {
    case ChakraProtoMsg::ALL_REDUCE: {
        passes->AddPass(RingMode::REDUCE_SCATTER,
                        layout.local,
                        layout.localPosition,
                        request.bytes,
                        chunks,
                        0);
        // After the reduce-scatter, local position p owns segment p + 1 of the buffer.
        uint64_t share = PartBytes(request.bytes, g, (layout.localPosition + 1) % g);
        passes->AddPass(RingMode::ALL_REDUCE,
                        layout.across,
                        layout.hostPosition,
                        share,
                        chunks,
                        kPhaseTags);
        passes->AddPass(RingMode::ALL_GATHER,
                        layout.local,
                        layout.localPosition,
                        request.bytes,
                        chunks,
                        2 * kPhaseTags,
                        g - 1);
        break;
    }
    case ChakraProtoMsg::ALL_GATHER: {
        passes->AddPass(RingMode::ALL_GATHER,
                        layout.across,
                        layout.hostPosition,
                        request.bytes * hosts,
                        chunks,
                        0);
        passes->AddPass(RingMode::ALL_GATHER,
                        layout.local,
                        layout.localPosition,
                        request.bytes * hosts * g,
                        chunks,
                        kPhaseTags);
        break;
    }
    default: { // reduce-scatter
        passes->AddPass(RingMode::REDUCE_SCATTER,
                        layout.local,
                        layout.localPosition,
                        request.bytes,
                        chunks,
                        0);
        uint64_t share = PartBytes(request.bytes, g, (layout.localPosition + 1) % g);
        passes->AddPass(RingMode::REDUCE_SCATTER,
                        layout.across,
                        layout.hostPosition,
                        share,
                        chunks,
                        kPhaseTags);
        break;
    }
    }
    return passes;
}

} // namespace ns3
