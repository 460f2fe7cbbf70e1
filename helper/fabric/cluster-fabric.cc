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
    // The transport models' table (comm-transport.cc) names each model's fabric.
    ObjectFactory factory(CommTransport::GetFabricTypeName(model));
    return factory.Create<ClusterFabric>();
}

std::vector<ReportTable>
ClusterFabric::GetReportTables() const
{
    return {};
}

std::vector<ReportTable>
ClusterFabric::GetJobTables(const std::vector<JobGpus>& /* jobs */) const
{
    return {};
}

void
ClusterFabric::SetJobs(const std::vector<JobGpus>& /* jobs */)
{
}

} // namespace ns3
