#include "topology-case.h"

#include "ns3/attribute-text.h"
#include "ns3/double.h"
#include "ns3/object-factory.h"
#include "ns3/string.h"
#include "ns3/uinteger.h"

namespace ns3
{

Ptr<ClusterTopologyBuilder>
CreateBuilder(const TopologyCase& topology)
{
    std::string dims;
    for (uint32_t size : topology.torusDims)
    {
        dims += (dims.empty() ? "" : "x") + std::to_string(size);
    }
    const std::vector<std::pair<std::string, Ptr<AttributeValue>>> parameters = {
        {"hosts-per-leaf", Create<UintegerValue>(topology.hostsPerLeaf)},
        {"spines", Create<UintegerValue>(topology.spines)},
        {"oversubscription", Create<DoubleValue>(topology.oversubscription)},
        {"ring-bandwidth", Create<DataRateValue>(topology.ringBandwidth)},
        {"hosts-per-rail-group", Create<UintegerValue>(topology.hostsPerRailGroup)},
        {"leaves-per-pod", Create<UintegerValue>(topology.leavesPerPod)},
        {"core-switches", Create<UintegerValue>(topology.coreSwitches)},
        {"core-oversubscription", Create<DoubleValue>(topology.coreOversubscription)},
        {"pxn", Create<StringValue>(topology.pxn)},
        {"fat-tree-k", Create<UintegerValue>(topology.fatTreeK)},
        {"torus-dims", Create<StringValue>(dims)},
        {"torus-bandwidth", Create<DataRateValue>(topology.torusBandwidth)},
        {"dimensions",
         Create<StringValue>(topology.dimensions.empty() ? ""
                                                         : FormatDimensions(topology.dimensions))},
    };
    const TypeId tid = TopologyTypeIdOf(topology.kind);
    ObjectFactory factory(tid.GetName());
    for (const auto& [name, value] : parameters)
    {
        const std::string attribute = FindTopologyParameter(tid, name);
        if (!attribute.empty())
        {
            factory.Set(attribute, *CheckAttributeValue(tid, attribute, *value));
        }
    }
    return factory.Create<ClusterTopologyBuilder>();
}

std::shared_ptr<ClusterTopology>
BuildTopology(const TopologyCase& topology)
{
    return CreateBuilder(topology)->Build(topology);
}

uint32_t
FixedRankCount(const TopologyCase& topology)
{
    return CreateBuilder(topology)->GetFixedRankCount();
}

} // namespace ns3
