#include "simulation-util.h"

#include "chakra-test-data.h"

#include "ns3/chakra-module.h"

namespace chakra_test
{

using namespace ns3;

ChakraReport
RunCluster(const std::string& prefix, const ClusterConfig& config)
{
    Ptr<GpuClusterHelper> cluster = CreateObject<GpuClusterHelper>();
    cluster->SetAttribute("Hosts", UintegerValue(config.hosts));
    cluster->SetAttribute("GpusPerHost", UintegerValue(config.gpusPerHost));
    cluster->SetAttribute("Topology", StringValue(config.topology));
    cluster->SetAttribute("NicBandwidth", StringValue(config.nicBandwidth));
    cluster->SetAttribute("NicLatency", StringValue(config.nicLatency));
    cluster->SetAttribute("NvLinkBandwidth", StringValue(config.nvLinkBandwidth));
    cluster->SetAttribute("NvLinkLatency", StringValue(config.nvLinkLatency));
    cluster->SetAttribute("Mtu", UintegerValue(config.mtu));
    cluster->SetAttribute("Spines", UintegerValue(config.spines));
    cluster->SetAttribute("HostsPerLeaf", UintegerValue(config.hostsPerLeaf));
    cluster->SetAttribute("Oversubscription", DoubleValue(config.oversubscription));
    cluster->Build();
    ChakraHelper chakra(prefix);
    chakra.SetRankAddresses(cluster->GetRankAddresses());
    chakra.SetHostOf(cluster->GetHostOf());
    for (const auto& [name, value] : config.appAttributes)
    {
        chakra.SetAttribute(name, StringValue(value));
    }
    if (!config.timeline.empty())
    {
        chakra.EnableTimeline(config.timeline);
    }
    chakra.Install(cluster->GetRankNodes());
    if (config.beforeRun)
    {
        config.beforeRun(chakra.GetApplications());
    }
    Simulator::Run();
    ChakraReport report = chakra.GetReport();
    Simulator::Destroy();
    return report;
}

void
WriteJsonTrace(const std::string& path, const std::string& nodesJson)
{
    std::string json = path + ".json";
    WriteFileBytes(json, "{\"metadata\": {\"version\": \"0.0.4\"}, \"nodes\": [" + nodesJson + "]}");
    ConvertJsonToEt(json, path);
}

std::string
Attr(const std::string& name, const std::string& type, const std::string& value)
{
    return "{\"name\": \"" + name + "\", \"type\": \"" + type + "\", \"value\": " + value + "}";
}

double
Us(Time t)
{
    return static_cast<double>(t.GetNanoSeconds()) / 1e3;
}

} // namespace chakra_test
