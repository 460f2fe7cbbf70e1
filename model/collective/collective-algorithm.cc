#include "collective-algorithm.h"

#include "direct-collective.h"
#include "halving-doubling-collective.h"
#include "hierarchical-collective.h"
#include "ring-collective.h"
#include "tree-collective.h"

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

std::unique_ptr<CollectiveAlgorithm>
CreateCollectiveAlgorithm(const std::string& name)
{
    if (name == "ring")
    {
        return std::make_unique<RingCollective>();
    }
    if (name == "direct")
    {
        return std::make_unique<DirectCollective>();
    }
    if (name == "halving-doubling")
    {
        return std::make_unique<HalvingDoublingCollective>();
    }
    if (name == "tree")
    {
        return std::make_unique<TreeCollective>();
    }
    if (name == "hierarchical")
    {
        return std::make_unique<HierarchicalCollective>();
    }
    return nullptr;
}

std::vector<std::string>
CollectiveAlgorithmNames()
{
    return {"ring", "direct", "halving-doubling", "tree", "hierarchical"};
}

std::unique_ptr<CollectiveAlgorithm>
ChooseCollectiveAlgorithm(const std::string& requested, const CollectiveRequest& request)
{
    if (requested != "auto")
    {
        auto algorithm = CreateCollectiveAlgorithm(requested);
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
