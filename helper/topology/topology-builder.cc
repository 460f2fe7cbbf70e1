#include "topology-builder.h"

#include <algorithm>
#include <functional>
#include <sstream>
#include <stdexcept>

namespace ns3
{

namespace
{

using Builder = std::function<void(const TopologySpec&, ClusterTopology&)>;

/**
 * GPUs and their hosts' NVSwitches: every GPU gets its NVLink link (hosts with more than one
 * GPU) and then \p attach is called for its NIC. Returns nothing: the NIC links are the
 * builder's.
 */
void
AddHosts(const TopologySpec& spec,
         ClusterTopology& topology,
         const std::function<uint32_t(uint32_t host)>& edgeOf)
{
    const uint32_t firstNvSwitch = spec.hosts * spec.gpusPerHost;
    for (uint32_t h = 0; h < spec.hosts; ++h)
    {
        for (uint32_t g = 0; g < spec.gpusPerHost; ++g)
        {
            const uint32_t rank = h * spec.gpusPerHost + g;
            if (spec.gpusPerHost > 1)
            {
                topology.AddLink(rank,
                                 firstNvSwitch + h,
                                 spec.nvLinkBandwidth,
                                 spec.nvLinkLatency,
                                 spec.nvLinkMtu,
                                 ClusterTopology::SCALE_UP);
            }
            topology.AddLink(rank,
                             edgeOf(h),
                             spec.nicBandwidth,
                             spec.nicLatency,
                             spec.mtu,
                             ClusterTopology::SCALE_OUT);
        }
    }
}

/** Adds the GPUs and the NVSwitches (nodes only). \return the first fabric switch index */
uint32_t
AddGpuNodes(const TopologySpec& spec, ClusterTopology& topology)
{
    for (uint32_t h = 0; h < spec.hosts; ++h)
    {
        for (uint32_t g = 0; g < spec.gpusPerHost; ++g)
        {
            topology.AddGpu(h);
        }
    }
    if (spec.gpusPerHost > 1)
    {
        for (uint32_t h = 0; h < spec.hosts; ++h)
        {
            topology.AddSwitch(ClusterTopology::NVSWITCH, h, "nvswitch" + std::to_string(h));
        }
    }
    return static_cast<uint32_t>(topology.GetNodes().size());
}

void
BuildSingleSwitch(const TopologySpec& spec, ClusterTopology& topology)
{
    const uint32_t fabric = AddGpuNodes(spec, topology);
    topology.AddSwitch(ClusterTopology::SWITCH, 0, "switch");
    AddHosts(spec, topology, [fabric](uint32_t) { return fabric; });
    topology.SetName("single-switch");
}

void
BuildLeafSpine(const TopologySpec& spec, ClusterTopology& topology)
{
    const uint32_t firstLeaf = AddGpuNodes(spec, topology);
    const uint32_t leaves = (spec.hosts + spec.hostsPerLeaf - 1) / spec.hostsPerLeaf;
    for (uint32_t leaf = 0; leaf < leaves; ++leaf)
    {
        topology.AddSwitch(ClusterTopology::SWITCH, 0, "leaf" + std::to_string(leaf));
    }
    const uint32_t firstSpine = firstLeaf + leaves;
    for (uint32_t spine = 0; spine < spec.spines; ++spine)
    {
        topology.AddSwitch(ClusterTopology::SWITCH, 1, "spine" + std::to_string(spine));
    }
    AddHosts(spec, topology, [&](uint32_t h) { return firstLeaf + h / spec.hostsPerLeaf; });
    for (uint32_t leaf = 0; leaf < leaves; ++leaf)
    {
        const uint32_t hostsHere = std::min(spec.hostsPerLeaf, spec.hosts - leaf * spec.hostsPerLeaf);
        const double down =
            static_cast<double>(spec.nicBandwidth.GetBitRate()) * hostsHere * spec.gpusPerHost;
        const auto up = static_cast<uint64_t>(down / (spec.spines * spec.oversubscription));
        for (uint32_t spine = 0; spine < spec.spines; ++spine)
        {
            topology.AddLink(firstLeaf + leaf,
                             firstSpine + spine,
                             DataRate(up),
                             spec.fabricLatency,
                             spec.mtu,
                             ClusterTopology::SCALE_OUT);
        }
    }
    std::ostringstream name;
    name << "leaf-spine (" << leaves << " leaves, " << spec.spines
         << " spines, oversubscription " << spec.oversubscription << ":1)";
    topology.SetName(name.str());
}

void
BuildRing(const TopologySpec& spec, ClusterTopology& topology)
{
    const uint32_t firstSwitch = AddGpuNodes(spec, topology);
    for (uint32_t h = 0; h < spec.hosts; ++h)
    {
        topology.AddSwitch(ClusterTopology::SWITCH, 0, "hostswitch" + std::to_string(h));
    }
    AddHosts(spec, topology, [firstSwitch](uint32_t h) { return firstSwitch + h; });
    if (spec.hosts > 1)
    {
        const DataRate rate = spec.ringBandwidth.GetBitRate() > 0
                                  ? spec.ringBandwidth
                                  : DataRate(spec.nicBandwidth.GetBitRate() * spec.gpusPerHost);
        const uint32_t links = spec.hosts == 2 ? 1 : spec.hosts;
        for (uint32_t h = 0; h < links; ++h)
        {
            topology.AddLink(firstSwitch + h,
                             firstSwitch + (h + 1) % spec.hosts,
                             rate,
                             spec.fabricLatency,
                             spec.mtu,
                             ClusterTopology::SCALE_OUT);
        }
    }
    topology.SetName("ring");
}

const std::vector<std::pair<std::string, Builder>>&
Builders()
{
    static const std::vector<std::pair<std::string, Builder>> builders = {
        {"single-switch", BuildSingleSwitch},
        {"leaf-spine", BuildLeafSpine},
        {"ring", BuildRing},
    };
    return builders;
}

} // namespace

std::string
ListTopologyKinds()
{
    std::string list;
    for (const auto& [name, builder] : Builders())
    {
        list += (list.empty() ? "" : ", ") + name;
    }
    return list;
}

std::shared_ptr<ClusterTopology>
BuildTopology(const TopologySpec& spec)
{
    auto builder = std::find_if(Builders().begin(), Builders().end(), [&](const auto& entry) {
        return entry.first == spec.kind;
    });
    if (builder == Builders().end())
    {
        throw std::invalid_argument("unknown topology '" + spec.kind + "' (" +
                                    ListTopologyKinds() + ")");
    }
    if (spec.hosts == 0 || spec.gpusPerHost == 0)
    {
        throw std::invalid_argument("a cluster needs at least one host and one GPU per host");
    }
    auto topology = std::make_shared<ClusterTopology>();
    builder->second(spec, *topology);
    return topology;
}

} // namespace ns3
