#include "collective-algorithm.h"

#include "direct-collective.h"
#include "grouped-p2p-collective.h"
#include "halving-doubling-collective.h"
#include "hierarchical-collective.h"
#include "nccl-collective.h"
#include "ring-collective.h"
#include "tree-collective.h"

#include "ns3/enum.h"
#include "ns3/log.h"
#include "ns3/object-factory.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("ChakraCollectiveAlgorithm");

NS_OBJECT_ENSURE_REGISTERED(CollectiveAlgorithm);

TypeId
CollectiveAlgorithm::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::CollectiveAlgorithm").SetParent<Object>().SetGroupName("Chakra");
    return tid;
}

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

/**
 * One entry per algorithm: the one table of names (attributes, flags, help texts, reports).
 * Adding an algorithm: its class (a CollectiveAlgorithm with a TypeId) and a line here.
 */
struct AlgorithmEntry
{
    const char* name;   //!< the short name
    TypeId (*typeId)(); //!< the class
};

const std::vector<AlgorithmEntry>&
Algorithms()
{
    static const std::vector<AlgorithmEntry> table = {
        {"ring", &RingCollective::GetTypeId},
        {"direct", &DirectCollective::GetTypeId},
        {"halving-doubling", &HalvingDoublingCollective::GetTypeId},
        {"tree", &TreeCollective::GetTypeId},
        {"hierarchical", &HierarchicalCollective::GetTypeId},
        {"nccl", &NcclCollective::GetTypeId},
        {"grouped-p2p", &GroupedP2pCollective::GetTypeId},
    };
    return table;
}

Ptr<CollectiveAlgorithm>
Create(TypeId tid)
{
    ObjectFactory factory;
    factory.SetTypeId(tid);
    return factory.Create<CollectiveAlgorithm>();
}

} // namespace

Ptr<const AttributeChecker>
MakeCollectiveAlgorithmChecker()
{
    Ptr<EnumChecker> checker = Create<EnumChecker>();
    checker->AddDefault(static_cast<int>(CollectiveAlgorithmKind::AUTO), "auto");
    for (std::size_t i = 0; i < Algorithms().size(); ++i)
    {
        checker->Add(static_cast<int>(i + 1), Algorithms()[i].name);
    }
    return checker;
}

std::string
CollectiveAlgorithmName(CollectiveAlgorithmKind::Kind kind)
{
    const auto index = static_cast<std::size_t>(kind);
    return index >= 1 && index <= Algorithms().size() ? Algorithms()[index - 1].name : "auto";
}

std::string
CollectiveAlgorithm::GetName() const
{
    const TypeId tid = GetInstanceTypeId();
    for (const AlgorithmEntry& entry : Algorithms())
    {
        if (entry.typeId() == tid)
        {
            return entry.name;
        }
    }
    // An algorithm made outside the table (a script's own subclass): its TypeId names it.
    return tid.GetName();
}

Ptr<CollectiveAlgorithm>
CreateCollectiveAlgorithm(const std::string& name)
{
    for (const AlgorithmEntry& entry : Algorithms())
    {
        if (name == entry.name)
        {
            return Create(entry.typeId());
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

Ptr<CollectiveAlgorithm>
ChooseCollectiveAlgorithm(CollectiveAlgorithmKind::Kind requested, const CollectiveRequest& request)
{
    NS_LOG_FUNCTION(requested << request.type << request.bytes << request.size);
    if (requested != CollectiveAlgorithmKind::AUTO)
    {
        // The enum value is 1 + the table position: no detour through the name.
        const auto index = static_cast<std::size_t>(requested);
        Ptr<CollectiveAlgorithm> algorithm = index >= 1 && index <= Algorithms().size()
                                                 ? Create(Algorithms()[index - 1].typeId())
                                                 : nullptr;
        if (algorithm && algorithm->Supports(request))
        {
            return algorithm;
        }
        NS_LOG_LOGIC(CollectiveAlgorithmName(requested)
                     << " does not implement this call: the default for its type runs");
    }
    switch (request.type)
    {
    case ChakraProtoMsg::ALL_REDUCE:
    case ChakraProtoMsg::ALL_GATHER:
    case ChakraProtoMsg::REDUCE_SCATTER:
    case ChakraProtoMsg::REDUCE_SCATTER_BLOCK: {
        Ptr<CollectiveAlgorithm> hierarchical = Create(HierarchicalCollective::GetTypeId());
        if (hierarchical->Supports(request))
        {
            return hierarchical;
        }
        return Create(RingCollective::GetTypeId());
    }
    case ChakraProtoMsg::BROADCAST:
    case ChakraProtoMsg::REDUCE:
        return Create(RingCollective::GetTypeId());
    default:
        return Create(DirectCollective::GetTypeId());
    }
}

} // namespace ns3
