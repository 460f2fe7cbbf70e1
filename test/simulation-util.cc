#include "simulation-util.h"

#include "chakra-test-data.h"

#include "ns3/chakra-module.h"

#include <stdexcept>

namespace chakra_test
{

using namespace ns3;

void
ConfigureScenario(ClusterScenario& scenario, const ClusterConfig& config)
{
    Ptr<GpuClusterHelper> cluster = scenario.GetCluster();
    // Through the checked path scripts and tools use: a bad name is an std::invalid_argument
    // that lists the valid ones (SetAttribute alone would abort the test program).
    auto set = [&](const std::string& name, const AttributeValue& value) {
        cluster->SetAttribute(name,
                              *CheckAttributeValue(GpuClusterHelper::GetTypeId(), name, value));
    };
    set("Hosts", UintegerValue(config.hosts));
    set("GpusPerHost", UintegerValue(config.gpusPerHost));
    set("Transport", StringValue(config.transport));
    set("Topology", StringValue(config.topology));
    set("NicBandwidth", StringValue(config.nicBandwidth));
    set("NicLatency", StringValue(config.nicLatency));
    set("NvLinkBandwidth", StringValue(config.nvLinkBandwidth));
    set("NvLinkLatency", StringValue(config.nvLinkLatency));
    set("Mtu", UintegerValue(config.mtu));
    // The family's parameters, where the chosen family has them.
    auto setTopology = [&](const std::string& name, const AttributeValue& value) {
        if (cluster->HasTopologyParameter(name))
        {
            cluster->SetTopologyAttribute(name, value);
        }
    };
    setTopology("Spines", UintegerValue(config.spines));
    setTopology("HostsPerLeaf", UintegerValue(config.hostsPerLeaf));
    setTopology("Oversubscription", DoubleValue(config.oversubscription));
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
}

ChakraReport
RunCluster(const std::string& prefix, const ClusterConfig& config)
{
    ClusterScenario scenario;
    ConfigureScenario(scenario, config);
    return scenario.Run(prefix);
}

void
WriteJsonTrace(const std::string& path, const std::string& nodesJson)
{
    std::string json = path + ".json";
    WriteFileBytes(json,
                   "{\"metadata\": {\"version\": \"0.0.4\"}, \"nodes\": [" + nodesJson + "]}");
    ConvertJsonToEt(json, path);
}

std::string
Attr(const std::string& name, const std::string& type, const std::string& value)
{
    return "{\"name\": \"" + name + "\", \"type\": \"" + type + "\", \"value\": " + value + "}";
}

std::string
TraceNode(uint64_t id,
          const std::string& name,
          const std::string& type,
          const std::string& attrs,
          const std::vector<uint64_t>& deps,
          uint64_t micros)
{
    std::string depList;
    for (uint64_t d : deps)
    {
        depList += (depList.empty() ? "" : ", ") + std::to_string(d);
    }
    return "{\"id\": " + std::to_string(id) + ", \"name\": \"" + name + "\", \"type\": \"" + type +
           "\", \"data_deps\": [" + depList + "], \"duration_micros\": " + std::to_string(micros) +
           ", \"attr\": [" + attrs + "]}";
}

std::string
Gpu(int stream)
{
    return Attr("is_cpu_op", "bool_val", "false") + ", " +
           Attr("stream", "int64_val", std::to_string(stream));
}

std::string
Cpu(int tid)
{
    return Attr("is_cpu_op", "bool_val", "true") + ", " +
           Attr("tid", "int64_val", std::to_string(tid));
}

std::string
P2p(const std::string& peerKey, int peer, uint64_t bytes, int tag)
{
    return Attr(peerKey, "int32_val", std::to_string(peer)) + ", " +
           Attr("comm_size", "int64_val", std::to_string(bytes)) + ", " +
           Attr("comm_tag", "int32_val", std::to_string(tag));
}

std::string
AllReduce(uint64_t bytes, const std::string& pg)
{
    return Attr("comm_type", "int64_val", "0") + ", " +
           Attr("comm_size", "int64_val", std::to_string(bytes)) + ", " +
           Attr("pg_name", "string_val", "\"" + pg + "\"");
}

double
Us(Time t)
{
    return static_cast<double>(t.GetNanoSeconds()) / 1e3;
}

uint64_t
FlowRow(const ns3::ChakraReport& report, const std::string& metric)
{
    for (const ns3::ReportTable& table : report.GetTables())
    {
        if (table.name != "flow")
        {
            continue;
        }
        for (const auto& row : table.rows)
        {
            if (row.at(0) == metric)
            {
                return std::stoull(row.at(1));
            }
        }
    }
    throw std::runtime_error("the report has no flow row '" + metric + "'");
}

} // namespace chakra_test
