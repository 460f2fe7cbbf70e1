#include "collective-algorithm.h"

#include "direct-collective.h"
#include "halving-doubling-collective.h"
#include "hierarchical-collective.h"
#include "ring-collective.h"
#include "tree-collective.h"

#include "ns3/enum.h"

namespace ns3
{

std::unique_ptr<CollectiveSchedule>
CollectiveAlgorithm::Build(const CollectiveRequest& request) const
{
    if (request.size < 2)
    {
        return ScheduleBuilder().Take();
    }
    if (request.type == ChakraProtoMsg::BARRIER)
    {
        return BuildDisseminationBarrier(request);
    }
    return DoBuild(request);
}

std::unique_ptr<CollectiveSchedule>
BuildDisseminationBarrier(const CollectiveRequest& request)
{
    ScheduleBuilder builder;
    uint32_t n = request.size;
    std::vector<uint32_t> previous;
    int64_t round = 0;
    for (uint32_t distance = 1; distance < n; distance *= 2, ++round)
    {
        uint32_t to = (request.me + distance) % n;
        uint32_t from = (request.me + n - distance) % n;
        // Round k's message goes out once round k-1's message has arrived.
        uint32_t send = builder.Send(to, 0, round, previous);
        uint32_t recv = builder.Recv(from, 0, round);
        (void)send;
        previous = {recv};
    }
    return builder.Take();
}

namespace
{

/** One entry per algorithm: the one table of names (attributes, flags, help texts). */
struct AlgorithmEntry
{
    CollectiveAlgorithmKind::Kind kind;
    const char* name;
    std::unique_ptr<CollectiveAlgorithm> (*create)();
};

template <typename T>
std::unique_ptr<CollectiveAlgorithm>
Make()
{
    return std::make_unique<T>();
}

const std::vector<AlgorithmEntry>&
Algorithms()
{
    static const std::vector<AlgorithmEntry> table = {
        {CollectiveAlgorithmKind::RING, "ring", &Make<RingCollective>},
        {CollectiveAlgorithmKind::DIRECT, "direct", &Make<DirectCollective>},
        {CollectiveAlgorithmKind::HALVING_DOUBLING,
         "halving-doubling",
         &Make<HalvingDoublingCollective>},
        {CollectiveAlgorithmKind::TREE, "tree", &Make<TreeCollective>},
        {CollectiveAlgorithmKind::HIERARCHICAL, "hierarchical", &Make<HierarchicalCollective>},
    };
    return table;
}

} // namespace

Ptr<const AttributeChecker>
MakeCollectiveAlgorithmChecker()
{
    Ptr<EnumChecker> checker = Create<EnumChecker>();
    checker->AddDefault(static_cast<int>(CollectiveAlgorithmKind::AUTO), "auto");
    for (const AlgorithmEntry& entry : Algorithms())
    {
        checker->Add(static_cast<int>(entry.kind), entry.name);
    }
    return checker;
}

std::string
CollectiveAlgorithmName(CollectiveAlgorithmKind::Kind kind)
{
    for (const AlgorithmEntry& entry : Algorithms())
    {
        if (entry.kind == kind)
        {
            return entry.name;
        }
    }
    return "auto";
}

std::unique_ptr<CollectiveAlgorithm>
CreateCollectiveAlgorithm(const std::string& name)
{
    for (const AlgorithmEntry& entry : Algorithms())
    {
        if (name == entry.name)
        {
            return entry.create();
        }
    }
    return nullptr;
}

std::vector<std::string>
CollectiveAlgorithmNames()
{
    std::vector<std::string> names;
    for (const AlgorithmEntry& entry : Algorithms())
    {
        names.emplace_back(entry.name);
    }
    return names;
}

std::unique_ptr<CollectiveAlgorithm>
ChooseCollectiveAlgorithm(CollectiveAlgorithmKind::Kind requested, const CollectiveRequest& request)
{
    if (requested != CollectiveAlgorithmKind::AUTO)
    {
        auto algorithm = CreateCollectiveAlgorithm(CollectiveAlgorithmName(requested));
        if (algorithm && algorithm->Supports(request))
        {
            return algorithm;
        }
    }
    using ChakraProtoMsg::CollectiveCommType;
    switch (request.type)
    {
    case ChakraProtoMsg::ALL_REDUCE:
    case ChakraProtoMsg::ALL_GATHER:
    case ChakraProtoMsg::REDUCE_SCATTER:
    case ChakraProtoMsg::REDUCE_SCATTER_BLOCK: {
        auto hierarchical = std::make_unique<HierarchicalCollective>();
        if (hierarchical->Supports(request))
        {
            return hierarchical;
        }
        return std::make_unique<RingCollective>();
    }
    case ChakraProtoMsg::BROADCAST:
    case ChakraProtoMsg::REDUCE:
        return std::make_unique<RingCollective>();
    default:
        return std::make_unique<DirectCollective>();
    }
}

} // namespace ns3
