#include "simulation-util.h"

#include "chakra-test-data.h"

#include "ns3/chakra-module.h"

namespace chakra_test
{

using namespace ns3;

ChakraReport
RunCluster(const std::string& prefix, const ClusterConfig& config)
{
    ClusterScenario scenario;
    Ptr<GpuClusterHelper> cluster = scenario.GetCluster();
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
    for (const auto& [name, value] : config.appAttributes)
    {
        scenario.SetAppAttribute(name, StringValue(value));
    }
    if (!config.timeline.empty())
    {
        scenario.SetTimeline(config.timeline);
    }
    if (config.beforeRun)
    {
        scenario.SetBeforeRun(config.beforeRun);
    }
    return scenario.Run(prefix);
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
