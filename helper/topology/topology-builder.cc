#include "topology-builder.h"

#include "topology-parts.h"

#include "ns3/enum.h"
#include "ns3/name-suggestion.h"
#include "ns3/quantity-parser.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <functional>
#include <iomanip>
#include <limits>
#include <sstream>
#include <stdexcept>

namespace ns3
{

namespace topology
{

uint32_t
HostGpus(const TopologySpec& spec)
{
    const uint64_t gpus = uint64_t(spec.hosts) * spec.gpusPerHost;
    if (gpus > std::numeric_limits<uint32_t>::max() / 2)
    {
        throw std::invalid_argument("hosts x gpusPerHost = " + std::to_string(gpus) +
                                    " GPUs is too many");
    }
    return static_cast<uint32_t>(gpus);
}

uint32_t
DomainSize(const TopologySpec& spec)
{
    if (spec.scaleUpDomain == 0)
    {
        return spec.gpusPerHost;
    }
    if (spec.scaleUpDomain % spec.gpusPerHost != 0 || HostGpus(spec) % spec.scaleUpDomain != 0)
    {
        throw std::invalid_argument("scaleUpDomain " + std::to_string(spec.scaleUpDomain) +
                                    " must be a multiple of gpusPerHost (" +
                                    std::to_string(spec.gpusPerHost) + ") and divide the " +
                                    std::to_string(HostGpus(spec)) + " GPUs");
    }
    return spec.scaleUpDomain;
}

uint32_t
AddGpuNodes(const TopologySpec& spec, ClusterTopology& topology)
{
    const uint32_t gpus = HostGpus(spec);
    const uint32_t domain = DomainSize(spec);
    for (uint32_t rank = 0; rank < gpus; ++rank)
    {
        topology.AddGpu(rank / domain);
    }
    if (domain > 1)
    {
        for (uint32_t d = 0; d < gpus / domain; ++d)
        {
            topology.AddSwitch(ClusterTopology::NVSWITCH, d, "nvswitch" + std::to_string(d));
        }
    }
    return static_cast<uint32_t>(topology.GetNodes().size());
}

void
AddGpuLinks(const TopologySpec& spec,
            ClusterTopology& topology,
            const std::function<uint32_t(uint32_t rank)>& edgeOf)
{
    const uint32_t gpus = HostGpus(spec);
    const uint32_t domain = DomainSize(spec);
    for (uint32_t rank = 0; rank < gpus; ++rank)
    {
        if (domain > 1)
        {
            topology.AddLink(rank,
                             gpus + rank / domain,
                             spec.nvLinkBandwidth,
                             spec.nvLinkLatency,
                             spec.nvLinkMtu,
                             ClusterTopology::SCALE_UP);
        }
        topology.AddLink(rank,
                         edgeOf(rank),
                         spec.nicBandwidth,
                         spec.nicLatency,
                         spec.mtu,
                         ClusterTopology::SCALE_OUT);
    }
}

void
AddFabricLink(const TopologySpec& spec,
              ClusterTopology& topology,
              uint32_t a,
              uint32_t b,
              DataRate rate)
{
    topology.AddLink(a, b, rate, spec.fabricLatency, spec.mtu, ClusterTopology::SCALE_OUT);
}

/** \return the number of pods */
uint32_t
Pods(const ThreeTier& shape)
{
    return (shape.leaves + shape.leavesPerPod - 1) / shape.leavesPerPod;
}

void
BuildThreeTier(const TopologySpec& spec, const ThreeTier& shape, ClusterTopology& topology)
{
    const uint32_t pods = Pods(shape);
    const uint32_t firstLeaf = AddGpuNodes(spec, topology);
    for (uint32_t leaf = 0; leaf < shape.leaves; ++leaf)
    {
        topology.AddSwitch(ClusterTopology::SWITCH,
                           0,
                           shape.leafName ? shape.leafName(leaf) : "leaf" + std::to_string(leaf));
    }
    const uint32_t firstSpine = firstLeaf + shape.leaves;
    for (uint32_t pod = 0; pod < pods; ++pod)
    {
        for (uint32_t spine = 0; spine < shape.spinesPerPod; ++spine)
        {
            topology.AddSwitch(ClusterTopology::SWITCH,
                               1,
                               "spine" + std::to_string(pod) + "." + std::to_string(spine));
        }
    }
    const uint32_t firstCore = firstSpine + pods * shape.spinesPerPod;
    for (uint32_t core = 0; core < shape.coresPerPlane * shape.spinesPerPod; ++core)
    {
        topology.AddSwitch(ClusterTopology::SWITCH, 2, "core" + std::to_string(core));
    }
    AddGpuLinks(spec, topology, [&](uint32_t rank) { return firstLeaf + shape.leafOf(rank); });
    std::vector<uint64_t> spineDown(pods, 0); // capacity from the leaves into each spine
    for (uint32_t leaf = 0; leaf < shape.leaves; ++leaf)
    {
        const uint32_t pod = leaf / shape.leavesPerPod;
        const DataRate up = shape.leafUplink(leaf);
        spineDown[pod] += up.GetBitRate();
        for (uint32_t spine = 0; spine < shape.spinesPerPod; ++spine)
        {
            AddFabricLink(spec,
                          topology,
                          firstLeaf + leaf,
                          firstSpine + pod * shape.spinesPerPod + spine,
                          up);
        }
    }
    for (uint32_t pod = 0; pod < pods && shape.coresPerPlane > 0; ++pod)
    {
        const DataRate up = shape.spineUplink(pod, DataRate(spineDown[pod]));
        for (uint32_t spine = 0; spine < shape.spinesPerPod; ++spine)
        {
            for (uint32_t core = 0; core < shape.coresPerPlane; ++core)
            {
                AddFabricLink(spec,
                              topology,
                              firstSpine + pod * shape.spinesPerPod + spine,
                              firstCore + spine * shape.coresPerPlane + core,
                              up);
            }
        }
    }
}

DataRate
Share(double rate, double divisor, const std::string& what)
{
    const double share = rate / divisor;
    if (!(share >= 1.0) || share > 1e18)
    {
        throw std::invalid_argument(what + ": a link rate of " + Number(share) +
                                    " bit/s cannot be built");
    }
    // Truncated, as the leaf-spine builder always did: the same attributes, the same rates.
    return DataRate(static_cast<uint64_t>(share));
}

std::string
Number(double value)
{
    std::ostringstream text;
    text << std::setprecision(6) << value;
    return text.str();
}

} // namespace topology

namespace
{

using namespace topology;

/** \return the text lower-cased without '-' and '_' */
std::string
Folded(const std::string& text)
{
    std::string folded;
    for (char c : text)
    {
        if (c != '-' && c != '_')
        {
            folded += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        }
    }
    return folded;
}

} // namespace

std::string
DimensionSpec::ShapeName() const
{
    switch (shape)
    {
    case RING:
        return "Ring";
    case FULLY_CONNECTED:
        return "FullyConnected";
    case SWITCH:
        return "Switch";
    }
    return "?";
}

bool
DimensionSpec::ParseShape(const std::string& name, Shape& shape)
{
    const std::string folded = Folded(name);
    if (folded == "ring")
    {
        shape = RING;
    }
    else if (folded == "fullyconnected")
    {
        shape = FULLY_CONNECTED;
    }
    else if (folded == "switch")
    {
        shape = SWITCH;
    }
    else
    {
        return false;
    }
    return true;
}

namespace
{

void
CheckCount(uint64_t value, uint64_t low, uint64_t high, const std::string& field)
{
    if (value < low || value > high)
    {
        throw std::invalid_argument(field + " = " + std::to_string(value) + " is outside " +
                                    std::to_string(low) + " .. " + std::to_string(high));
    }
}

} // namespace

void
ValidateTopologySpec(const TopologySpec& spec, uint32_t fixedRanks)
{
    CheckBandwidth(spec.nicBandwidth, "nicBandwidth");
    CheckBandwidth(spec.nvLinkBandwidth, "nvLinkBandwidth");
    CheckLatency(spec.nicLatency, "nicLatency");
    CheckLatency(spec.nvLinkLatency, "nvLinkLatency");
    CheckLatency(spec.fabricLatency, "fabricLatency");
    CheckCount(spec.mtu, TopologyLimits::kMinMtu, TopologyLimits::kMaxMtu, "mtu");
    CheckCount(spec.nvLinkMtu, TopologyLimits::kMinMtu, TopologyLimits::kMaxMtu, "nvLinkMtu");
    if (fixedRanks == 0)
    {
        CheckCount(spec.hosts, 1, TopologyLimits::kMaxHosts, "hosts");
        CheckCount(spec.gpusPerHost, 1, TopologyLimits::kMaxGpusPerHost, "gpusPerHost");
        CheckCount(spec.scaleUpDomain, 0, TopologyLimits::kMaxGpus, "scaleUpDomain");
    }
    const uint64_t gpus = fixedRanks > 0 ? fixedRanks : uint64_t(spec.hosts) * spec.gpusPerHost;
    if (gpus > TopologyLimits::kMaxGpus)
    {
        throw std::invalid_argument(std::to_string(gpus) + " GPUs is more than the " +
                                    std::to_string(TopologyLimits::kMaxGpus) +
                                    " a cluster may have");
    }
}

std::vector<uint32_t>
ParseTorusDims(const std::string& text)
{
    std::vector<uint32_t> dims;
    std::string normalised = text;
    std::replace(normalised.begin(), normalised.end(), ',', 'x');
    std::string item;
    std::istringstream items(normalised);
    while (std::getline(items, item, 'x'))
    {
        item = TrimBlanks(item);
        char* end = nullptr;
        const unsigned long long size = std::strtoull(item.c_str(), &end, 10);
        if (item.empty() || *end != '\0' || size == 0 || size > 65535 || item[0] == '-')
        {
            throw std::invalid_argument("torus dimensions '" + text +
                                        "': each must be a size from 1 to 65535, as in 4x4x4");
        }
        dims.push_back(static_cast<uint32_t>(size));
    }
    if (dims.empty())
    {
        throw std::invalid_argument("torus dimensions '" + text + "': none given (e.g. 4x4x4)");
    }
    return dims;
}

std::vector<DimensionSpec>
ParseDimensions(const std::string& text)
{
    std::vector<DimensionSpec> dimensions;
    std::string item;
    std::istringstream items(text);
    while (std::getline(items, item, ','))
    {
        const std::string what =
            "dimension " + std::to_string(dimensions.size()) + " '" + TrimBlanks(item) + "'";
        std::vector<std::string> fields;
        std::string field;
        std::istringstream parts(item);
        while (std::getline(parts, field, ':'))
        {
            fields.push_back(TrimBlanks(field));
        }
        if (fields.size() != 4)
        {
            throw std::invalid_argument(what + ": expected Shape:size:bandwidth:latency, e.g. "
                                               "Ring:8:3600Gbps:250ns");
        }
        DimensionSpec dimension;
        if (!DimensionSpec::ParseShape(fields[0], dimension.shape))
        {
            throw std::invalid_argument(what + ": unknown shape '" + fields[0] +
                                        "' (Ring, FullyConnected, Switch)");
        }
        char* end = nullptr;
        const unsigned long long size = std::strtoull(fields[1].c_str(), &end, 10);
        if (fields[1].empty() || *end != '\0' || size < 1 || size > 65535 || fields[1][0] == '-')
        {
            throw std::invalid_argument(what + ": size '" + fields[1] + "' is not 1 to 65535");
        }
        dimension.size = static_cast<uint32_t>(size);
        dimension.bandwidth = ParseBandwidth(fields[2], what + ": bandwidth");
        dimension.latency = ParseLatency(fields[3], what + ": latency");
        dimensions.push_back(dimension);
    }
    if (dimensions.empty())
    {
        throw std::invalid_argument("multi-dim: no dimensions given (e.g. "
                                    "Ring:8:3600Gbps:250ns,Switch:4:400Gbps:500ns)");
    }
    return dimensions;
}

std::string
FormatDimensions(const std::vector<DimensionSpec>& dimensions)
{
    std::string text;
    for (const auto& dimension : dimensions)
    {
        const uint64_t bps = dimension.bandwidth.GetBitRate();
        const std::string rate = bps % 1000000000 == 0 ? std::to_string(bps / 1000000000) + "Gbps"
                                                       : std::to_string(bps) + "bps";
        text += (text.empty() ? "" : ",") + dimension.ShapeName() + ":" +
                std::to_string(dimension.size) + ":" + rate + ":" +
                std::to_string(dimension.latency.GetNanoSeconds()) + "ns";
    }
    return text;
}

} // namespace ns3
