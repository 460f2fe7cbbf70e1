#include "cluster-fabric.h"

#include "ns3/object-factory.h"

#include <stdexcept>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(ClusterFabric);

TypeId
ClusterFabric::GetTypeId()
{
    static TypeId tid = TypeId("ns3::ClusterFabric").SetParent<Object>().SetGroupName("Chakra");
    return tid;
}

Ptr<ClusterFabric>
ClusterFabric::ForTransport(const std::string& model)
{
    // The fabric each model runs on (packet models build devices; flow builds none).
    static const std::vector<std::pair<std::string, std::string>> fabrics = {
        {"tcp", "ns3::IpFabric"},
        {"rdma", "ns3::RdmaFabric"},
        {"flow", "ns3::FlowFabric"},
    };
    CommTransport::LookupModel(model); // an unknown model is reported with the known ones
    for (const auto& [name, typeName] : fabrics)
    {
        TypeId tid;
        if (name == model && TypeId::LookupByNameFailSafe(typeName, &tid))
        {
            ObjectFactory factory(typeName);
            return factory.Create<ClusterFabric>();
        }
    }
    throw std::invalid_argument("no fabric for transport model '" + model + "'");
}

std::vector<ReportTable>
ClusterFabric::GetReportTables() const
{
    return {};
}

} // namespace ns3
