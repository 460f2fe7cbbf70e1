/*
 * The one- and two-tier families: single-switch, leaf-spine, and a ring of host switches.
 */
#include "cluster-topology-builder.h"
#include "topology-parts.h"

#include "ns3/data-rate.h"
#include "ns3/double.h"
#include "ns3/quantity-parser.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <sstream>
#include <stdexcept>

namespace ns3
{
namespace topology
{

/**
 * \ingroup chakra-topology
 * \brief Every NIC on one switch: a non-blocking fabric.
 */
class SingleSwitchTopology : public ClusterTopologyBuilder
{
  public:
    /** \return the TypeId */
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::SingleSwitchTopology")
                                .SetParent<ClusterTopologyBuilder>()
                                .SetGroupName("Chakra")
                                .AddConstructor<SingleSwitchTopology>();
        return tid;
    }

  protected:
    void DoBuild(const TopologySpec& spec, ClusterTopology& topology) const override
    {
        const uint32_t fabric = AddGpuNodes(spec, topology);
        topology.AddSwitch(ClusterTopology::SWITCH, 0, "switch");
        AddGpuLinks(spec, topology, [fabric](uint32_t) { return fabric; });
        topology.SetName("single-switch");
    }
};

/**
 * \ingroup chakra-topology
 * \brief Leaves (HostsPerLeaf hosts' NICs each) joined by Spines spines, every leaf to every
 * spine; Oversubscription thins the leaves' uplinks.
 */
class LeafSpineTopology : public ClusterTopologyBuilder
{
  public:
    /** \return the TypeId */
    static TypeId GetTypeId()
    {
        static TypeId tid =
            TypeId("ns3::LeafSpineTopology")
                .SetParent<ClusterTopologyBuilder>()
                .SetGroupName("Chakra")
                .AddConstructor<LeafSpineTopology>()
                .AddAttribute("HostsPerLeaf",
                              "hosts whose NICs share a leaf switch",
                              UintegerValue(1),
                              MakeUintegerAccessor(&LeafSpineTopology::m_hostsPerLeaf),
                              MakeUintegerChecker<uint32_t>(1, TopologyLimits::kMaxHostsPerLeaf))
                .AddAttribute("Spines",
                              "spine switches",
                              UintegerValue(2),
                              MakeUintegerAccessor(&LeafSpineTopology::m_spines),
                              MakeUintegerChecker<uint32_t>(1, TopologyLimits::kMaxSpines))
                .AddAttribute("Oversubscription",
                              "a leaf's downlink capacity over its uplink capacity (1: "
                              "non-blocking)",
                              DoubleValue(1.0),
                              MakeDoubleAccessor(&LeafSpineTopology::m_oversubscription),
                              MakeDoubleChecker<double>(TopologyLimits::kMinOversubscription,
                                                        TopologyLimits::kMaxOversubscription));
        return tid;
    }

    std::string DescribeShape(const TopologySpec& spec) const override
    {
        std::ostringstream text;
        text << " (" << (spec.hosts + m_hostsPerLeaf - 1) / m_hostsPerLeaf << " leaves, "
             << m_spines << " spines, oversubscription " << m_oversubscription << ":1)";
        return text.str();
    }

  protected:
    void DoBuild(const TopologySpec& spec, ClusterTopology& topology) const override
    {
        const uint32_t firstLeaf = AddGpuNodes(spec, topology);
        const uint32_t leaves = (spec.hosts + m_hostsPerLeaf - 1) / m_hostsPerLeaf;
        for (uint32_t leaf = 0; leaf < leaves; ++leaf)
        {
            topology.AddSwitch(ClusterTopology::SWITCH, 0, "leaf" + std::to_string(leaf));
        }
        const uint32_t firstSpine = firstLeaf + leaves;
        for (uint32_t spine = 0; spine < m_spines; ++spine)
        {
            topology.AddSwitch(ClusterTopology::SWITCH, 1, "spine" + std::to_string(spine));
        }
        AddGpuLinks(spec, topology, [&](uint32_t rank) {
            return firstLeaf + rank / spec.gpusPerHost / m_hostsPerLeaf;
        });
        for (uint32_t leaf = 0; leaf < leaves; ++leaf)
        {
            const uint32_t hostsHere = std::min(m_hostsPerLeaf, spec.hosts - leaf * m_hostsPerLeaf);
            const double down =
                static_cast<double>(spec.nicBandwidth.GetBitRate()) * hostsHere * spec.gpusPerHost;
            const DataRate up = Share(down, m_spines * m_oversubscription, "leaf-spine uplink");
            for (uint32_t spine = 0; spine < m_spines; ++spine)
            {
                AddFabricLink(spec, topology, firstLeaf + leaf, firstSpine + spine, up);
            }
        }
        std::ostringstream name;
        name << "leaf-spine (" << leaves << " leaves, " << m_spines << " spines, oversubscription "
             << m_oversubscription << ":1)";
        topology.SetName(name.str());
    }

  private:
    uint32_t m_hostsPerLeaf;
    uint32_t m_spines;
    double m_oversubscription;
};

/**
 * \ingroup chakra-topology
 * \brief One switch per host (its GPUs' NICs), the host switches in a bidirectional ring.
 */
class RingTopology : public ClusterTopologyBuilder
{
  public:
    /** \return the TypeId */
    static TypeId GetTypeId()
    {
        static TypeId tid =
            TypeId("ns3::RingTopology")
                .SetParent<ClusterTopologyBuilder>()
                .SetGroupName("Chakra")
                .AddConstructor<RingTopology>()
                .AddAttribute("Bandwidth",
                              "bandwidth of each link between neighbouring hosts' switches (0: "
                              "GpusPerHost x NicBandwidth)",
                              DataRateValue(DataRate(0)),
                              MakeDataRateAccessor(&RingTopology::m_bandwidth),
                              MakeDataRateChecker());
        return tid;
    }

    void CheckParameters() const override
    {
        CheckBandwidth(m_bandwidth, "ns3::RingTopology::Bandwidth", true);
    }

  protected:
    void DoBuild(const TopologySpec& spec, ClusterTopology& topology) const override
    {
        const uint32_t firstSwitch = AddGpuNodes(spec, topology);
        for (uint32_t h = 0; h < spec.hosts; ++h)
        {
            topology.AddSwitch(ClusterTopology::SWITCH, 0, "hostswitch" + std::to_string(h));
        }
        AddGpuLinks(spec, topology, [&](uint32_t rank) {
            return firstSwitch + rank / spec.gpusPerHost;
        });
        if (spec.hosts > 1)
        {
            const DataRate rate = m_bandwidth.GetBitRate() > 0
                                      ? m_bandwidth
                                      : DataRate(spec.nicBandwidth.GetBitRate() * spec.gpusPerHost);
            const uint32_t links = spec.hosts == 2 ? 1 : spec.hosts;
            for (uint32_t h = 0; h < links; ++h)
            {
                AddFabricLink(spec,
                              topology,
                              firstSwitch + h,
                              firstSwitch + (h + 1) % spec.hosts,
                              rate);
            }
        }
        topology.SetName("ring");
    }

  private:
    DataRate m_bandwidth;
};

NS_OBJECT_ENSURE_REGISTERED(SingleSwitchTopology);
NS_OBJECT_ENSURE_REGISTERED(LeafSpineTopology);
NS_OBJECT_ENSURE_REGISTERED(RingTopology);

} // namespace topology
} // namespace ns3
