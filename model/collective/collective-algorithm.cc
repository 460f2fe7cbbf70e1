#include "collective-algorithm.h"

#include "direct-collective.h"
#include "halving-doubling-collective.h"
#include "hierarchical-collective.h"
#include "ring-collective.h"
#include "tree-collective.h"

namespace ns3
{

uint64_t
PartBytes(uint64_t total, uint32_t parts, uint32_t index)
{
    // floor(total * i / parts) without overflow for totals near 2^64: with total = q parts + r,
    // it is q i + floor(r i / parts), and r i < 2^64 because r < parts < 2^32.
    const uint64_t q = total / parts;
    const uint64_t r = total % parts;
    auto boundary = [&](uint64_t i) { return q * i + r * i / parts; };
    return boundary(index + 1) - boundary(index);
}

uint32_t
ScheduleBuilder::Send(uint32_t peer, uint64_t bytes, int64_t tag, std::vector<uint32_t> deps)
{
    m_ops.push_back(CollectiveOp{true, peer, bytes, tag, std::move(deps)});
    return static_cast<uint32_t>(m_ops.size() - 1);
}

uint32_t
ScheduleBuilder::Recv(uint32_t peer, uint64_t bytes, int64_t tag, std::vector<uint32_t> deps)
{
    m_ops.push_back(CollectiveOp{false, peer, bytes, tag, std::move(deps)});
    return static_cast<uint32_t>(m_ops.size() - 1);
}

void
ScheduleBuilder::AddDep(uint32_t op, uint32_t dep)
{
    m_ops.at(op).deps.push_back(dep);
}

void
ScheduleBuilder::Reserve(std::size_t ops)
{
    m_ops.reserve(ops);
}

uint32_t
ScheduleBuilder::Size() const
{
    return static_cast<uint32_t>(m_ops.size());
}

CollectiveSchedule
ScheduleBuilder::Take()
{
    return std::move(m_ops);
}

CollectiveSchedule
CollectiveAlgorithm::Build(const CollectiveRequest& request) const
{
    if (request.size < 2)
    {
        return {};
    }
    if (request.type == ChakraProtoMsg::BARRIER)
    {
        return BuildDisseminationBarrier(request);
    }
    return DoBuild(request);
}

CollectiveSchedule
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
