/*
 * Rail-optimized fabrics (NVIDIA DGX SuperPOD style): GPU i of every host of a rail group
 * connects to that group's rail switch i; rail switches joined by spines, or none (rail-only:
 * traffic between rails crosses NVLink inside the source's NVLink domain, as NCCL's PXN does).
 */
#include "cluster-topology-builder.h"
#include "topology-parts.h"

#include "ns3/double.h"
#include "ns3/enum.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <memory>
#include <sstream>
#include <stdexcept>

namespace ns3
{
namespace topology
{

namespace
{

/** What the rail route rules need to know about the graph. */
struct RailLayout
{
    uint32_t gpusPerHost{1};
    uint32_t domain{1};    //!< GPUs per NVLink domain
    uint32_t firstRail{0}; //!< node index of rail switch 0 (rail-only)
};

/**
 * The PXN rule at a GPU or an NVSwitch, shared by rail-only and by rail-optimized with PXN: a
 * GPU sends inside its NVLink domain over NVLink, to a GPU of its own rail over its NIC, and to
 * any other GPU first over NVLink to the GPU of the destination's rail in its own domain, which
 * forwards over its NIC; an NVSwitch forwards to the destination, or to the GPUs of the
 * destination's rail in its domain.
 */
void
RouteInsideDomain(const RailLayout& layout,
                  const ClusterTopology& topology,
                  uint32_t node,
                  uint32_t dst,
                  std::vector<uint32_t>& ports)
{
    const uint32_t g = layout.gpusPerHost;
    const std::vector<ClusterTopology::Port>& mine = topology.GetPorts(node);
    if (topology.GetNodes()[node].kind == ClusterTopology::NVSWITCH)
    {
        for (uint32_t i = 0; i < mine.size(); ++i)
        {
            if (mine[i].peer == dst)
            {
                ports.assign(1, i);
                return;
            }
            if (mine[i].peer < topology.GetRankCount() && mine[i].peer % g == dst % g)
            {
                ports.push_back(i);
            }
        }
        return;
    }
    // A GPU: NVLink inside its domain and towards another rail, else its NIC.
    const auto& links = topology.GetLinks();
    const bool sameDomain = node / layout.domain == dst / layout.domain;
    const bool nvLink = layout.domain > 1 && (sameDomain || node % g != dst % g);
    for (uint32_t i = 0; i < mine.size(); ++i)
    {
        const bool scaleUp = links[mine[i].link].kind == ClusterTopology::SCALE_UP;
        if (scaleUp == nvLink)
        {
            ports.push_back(i);
        }
    }
}

/**
 * Rail-only routing: the PXN rule at GPUs and NVSwitches (RouteInsideDomain); only GPUs on the
 * destination's rail ever forward, so every path is at most GPU - NVSwitch - GPU - rail switch
 * - GPU.
 */
void
RouteRailOnly(const RailLayout& layout,
              const ClusterTopology& topology,
              uint32_t node,
              uint32_t dst,
              std::vector<uint32_t>& ports)
{
    if (node < layout.firstRail)
    {
        RouteInsideDomain(layout, topology, node, dst, ports);
        return;
    }
    // A rail switch (the only group): port h leads to GPU h * g + rail.
    const uint32_t g = layout.gpusPerHost;
    const uint32_t rail = node - layout.firstRail;
    const uint32_t host = dst / g;
    if (dst % g == rail || layout.domain > 1)
    {
        ports.push_back(host);
    }
}

/** Whether traffic between rails takes NCCL's PXN path: an attribute's values. */
enum PxnRouting
{
    PXN_OFF, //!< a GPU's traffic leaves on its own NIC (the fabric's least-cost path)
    PXN_ON,  //!< to another host's GPU on another rail: over NVLink to the GPU of that rail
};

/**
 * PXN on a rail-optimized fabric (NCCL's default for point-to-point: NCCL_P2P_PXN_LEVEL 2): the
 * PXN rule at GPUs and NVSwitches (RouteInsideDomain); the fabric's switches route by least
 * cost.
 */
void
RoutePxn(const RailLayout& layout,
         const ClusterTopology& topology,
         uint32_t node,
         uint32_t dst,
         std::vector<uint32_t>& ports)
{
    if (topology.GetNodes()[node].kind == ClusterTopology::SWITCH)
    {
        topology.GetSwitchNextHops(node, dst, ports);
        return;
    }
    RouteInsideDomain(layout, topology, node, dst, ports);
}

} // namespace

namespace
{

/**
 * Builds rail groups as pods of a three-tier Clos: GPU i of the hosts of a rail group on rail
 * switch i of the group, every rail switch of a group to each of the group's \p spines spines,
 * and spine j of every group to the \p cores / spines cores of plane j.
 */
void
BuildRailPods(const TopologySpec& spec,
              uint32_t hostsPerRailGroup,
              uint32_t spines,
              uint32_t cores,
              double oversubscription,
              double coreOversubscription,
              ClusterTopology& topology)
{
    const uint32_t g = spec.gpusPerHost;
    const uint32_t groupHosts =
        hostsPerRailGroup == 0 ? spec.hosts : std::min(hostsPerRailGroup, spec.hosts);
    if (spines == 0 || cores % spines != 0)
    {
        throw std::invalid_argument(
            "rail-optimized: coreSwitches " + std::to_string(cores) +
            " must be a multiple of the spines per rail group (" + std::to_string(spines) +
            ", at least 1): spine j of every rail group connects to the cores of plane j");
    }
    ThreeTier shape;
    const uint32_t groups = (spec.hosts + groupHosts - 1) / groupHosts;
    shape.leaves = groups * g;
    shape.leavesPerPod = g;
    shape.spinesPerPod = spines;
    shape.coresPerPlane = groups > 1 ? cores / spines : 0; // one group: no core tier
    shape.leafOf = [g, groupHosts](uint32_t rank) {
        return (rank / g / groupHosts) * g + rank % g;
    };
    shape.leafName = [g](uint32_t leaf) {
        return "rail" + std::to_string(leaf / g) + "." + std::to_string(leaf % g);
    };
    shape.leafUplink = [&spec, g, groupHosts, spines, oversubscription](uint32_t leaf) {
        const uint32_t group = leaf / g;
        const uint32_t hostsHere = std::min(groupHosts, spec.hosts - group * groupHosts);
        const double down = static_cast<double>(spec.nicBandwidth.GetBitRate()) * hostsHere;
        return Share(down, spines * oversubscription, "rail-optimized uplink");
    };
    shape.spineUplink = [&shape, coreOversubscription](uint32_t, DataRate down) {
        return Share(static_cast<double>(down.GetBitRate()),
                     shape.coresPerPlane * coreOversubscription,
                     "rail-optimized spine uplink");
    };
    BuildThreeTier(spec, shape, topology);
    std::ostringstream name;
    name << "rail-optimized (" << g << " rails x " << groups << " group(s) of " << groupHosts
         << " hosts, " << spines << " spines per group, " << shape.coresPerPlane * spines
         << " cores; oversubscription " << Number(oversubscription) << ":1 rail, "
         << Number(coreOversubscription) << ":1 spine)";
    topology.SetName(name.str());
}

/**
 * Builds rails: GPU i of the hosts of a rail group on rail switch i of the group, the rails
 * joined by \p spines spines (none: rail-only, PXN over NVLink between rails).
 */
void
BuildRails(const TopologySpec& spec,
           uint32_t hostsPerRailGroup,
           uint32_t spines,
           double oversubscription,
           ClusterTopology& topology)
{
    const uint32_t g = spec.gpusPerHost;
    const uint32_t groupHosts =
        hostsPerRailGroup == 0 ? spec.hosts : std::min(hostsPerRailGroup, spec.hosts);
    const uint32_t groups = (spec.hosts + groupHosts - 1) / groupHosts;
    if (spines == 0 && groups > 1)
    {
        throw std::invalid_argument(
            "rail-only (spines = 0) needs one rail group: hostsPerRailGroup " +
            std::to_string(hostsPerRailGroup) + " splits " + std::to_string(spec.hosts) +
            " hosts into " + std::to_string(groups) + " groups with nothing joining them");
    }
    const uint32_t firstRail = AddGpuNodes(spec, topology);
    for (uint32_t group = 0; group < groups; ++group)
    {
        for (uint32_t rail = 0; rail < g; ++rail)
        {
            topology.AddSwitch(ClusterTopology::SWITCH,
                               0,
                               groups == 1
                                   ? "rail" + std::to_string(rail)
                                   : "rail" + std::to_string(group) + "." + std::to_string(rail));
        }
    }
    const uint32_t firstSpine = firstRail + groups * g;
    for (uint32_t spine = 0; spine < spines; ++spine)
    {
        topology.AddSwitch(ClusterTopology::SWITCH, 1, "spine" + std::to_string(spine));
    }
    AddGpuLinks(spec, topology, [&](uint32_t rank) {
        return firstRail + (rank / g / groupHosts) * g + rank % g;
    });
    for (uint32_t group = 0; group < groups && spines > 0; ++group)
    {
        const uint32_t hostsHere = std::min(groupHosts, spec.hosts - group * groupHosts);
        const double down = static_cast<double>(spec.nicBandwidth.GetBitRate()) * hostsHere;
        const DataRate up = Share(down, spines * oversubscription, "rail-optimized uplink");
        for (uint32_t rail = 0; rail < g; ++rail)
        {
            for (uint32_t spine = 0; spine < spines; ++spine)
            {
                AddFabricLink(spec, topology, firstRail + group * g + rail, firstSpine + spine, up);
            }
        }
    }
    std::ostringstream name;
    if (spines == 0)
    {
        auto layout = std::make_shared<RailLayout>();
        layout->gpusPerHost = g;
        layout->domain = DomainSize(spec);
        layout->firstRail = firstRail;
        topology.SetGpuTransit(true);
        topology.SetRouteFunction([layout](const ClusterTopology& graph,
                                           uint32_t node,
                                           uint32_t dst,
                                           std::vector<uint32_t>& ports) {
            RouteRailOnly(*layout, graph, node, dst, ports);
        });
        name << "rail-only (" << g << " rails of " << spec.hosts
             << " hosts, no spine: PXN over NVLink between rails)";
    }
    else
    {
        name << "rail-optimized (" << g << " rails x " << groups << " group(s) of " << groupHosts
             << " hosts, " << spines << " spines, oversubscription " << Number(oversubscription)
             << ":1)";
    }
    topology.SetName(name.str());
}

} // namespace

/**
 * \ingroup chakra-topology
 * \brief Rail-optimized: GPU i of every host of a rail group on rail switch i of the group,
 * the rails joined by Spines spines (0: rail-only).
 */
class RailOptimizedTopology : public ClusterTopologyBuilder
{
  public:
    /** \return the TypeId */
    static TypeId GetTypeId()
    {
        static TypeId tid =
            TypeId("ns3::RailOptimizedTopology")
                .SetParent<ClusterTopologyBuilder>()
                .SetGroupName("Chakra")
                .AddConstructor<RailOptimizedTopology>()
                .AddAttribute("HostsPerRailGroup",
                              "hosts of one rail group (GPU i of each on rail switch i of the "
                              "group); 0: all hosts in one group",
                              UintegerValue(0),
                              MakeUintegerAccessor(&RailOptimizedTopology::m_hostsPerRailGroup),
                              MakeUintegerChecker<uint32_t>(0, TopologyLimits::kMaxHosts))
                .AddAttribute("Spines",
                              "spines joining the rails (0: rail-only)",
                              UintegerValue(2),
                              MakeUintegerAccessor(&RailOptimizedTopology::m_spines),
                              MakeUintegerChecker<uint32_t>(0, TopologyLimits::kMaxSpines))
                .AddAttribute("Oversubscription",
                              "a rail switch's downlink capacity over its uplink capacity (1: "
                              "non-blocking)",
                              DoubleValue(1.0),
                              MakeDoubleAccessor(&RailOptimizedTopology::m_oversubscription),
                              MakeDoubleChecker<double>(TopologyLimits::kMinOversubscription,
                                                        TopologyLimits::kMaxOversubscription))
                .AddAttribute("CoreSwitches",
                              "a third tier: 0 joins every rail switch to the same Spines "
                              "spines; N > 0 makes each rail group a pod with Spines spines of "
                              "its own, spine j of every group linked to the N / Spines cores "
                              "of plane j (N a multiple of Spines)",
                              UintegerValue(0),
                              MakeUintegerAccessor(&RailOptimizedTopology::m_coreSwitches),
                              MakeUintegerChecker<uint32_t>(0, TopologyLimits::kMaxCoreSwitches))
                .AddAttribute("CoreOversubscription",
                              "with CoreSwitches: a spine's downlink capacity over its uplink "
                              "capacity to the cores",
                              DoubleValue(1.0),
                              MakeDoubleAccessor(&RailOptimizedTopology::m_coreOversubscription),
                              MakeDoubleChecker<double>(TopologyLimits::kMinOversubscription,
                                                        TopologyLimits::kMaxOversubscription))
                .AddAttribute("Pxn",
                              "traffic to another host's GPU on another rail: off, from the "
                              "GPU's own NIC across the spines; on, NCCL's PXN (its default for "
                              "point-to-point): over NVLink to the GPU of the destination's "
                              "rail, then on that rail (rail-only always routes so)",
                              EnumValue(PXN_OFF),
                              MakeEnumAccessor(&RailOptimizedTopology::m_pxn),
                              MakeEnumChecker(PXN_OFF, "off", PXN_ON, "on"));
        return tid;
    }

  protected:
    void DoBuild(const TopologySpec& spec, ClusterTopology& topology) const override
    {
        if (m_coreSwitches > 0)
        {
            BuildRailPods(spec,
                          m_hostsPerRailGroup,
                          m_spines,
                          m_coreSwitches,
                          m_oversubscription,
                          m_coreOversubscription,
                          topology);
        }
        else
        {
            BuildRails(spec, m_hostsPerRailGroup, m_spines, m_oversubscription, topology);
        }
        // Rail-only routes by PXN already; without NVLink there is nothing to cross.
        if (m_pxn == PXN_ON && m_spines > 0 && DomainSize(spec) > 1)
        {
            RailLayout layout;
            layout.gpusPerHost = spec.gpusPerHost;
            layout.domain = DomainSize(spec);
            topology.SetGpuTransit(true);
            topology.SetRouteFunction([layout](const ClusterTopology& graph,
                                               uint32_t node,
                                               uint32_t dst,
                                               std::vector<uint32_t>& ports) {
                RoutePxn(layout, graph, node, dst, ports);
            });
            topology.SetName(topology.GetName() + ", PXN between rails");
        }
    }

  private:
    uint32_t m_hostsPerRailGroup;
    uint32_t m_spines;
    double m_oversubscription;
    uint32_t m_coreSwitches;
    double m_coreOversubscription;
    int m_pxn{PXN_OFF}; //!< a PxnRouting (EnumValue holds an int)
};

/**
 * \ingroup chakra-topology
 * \brief Rail-only: the rails of rail-optimized without the spine tier; traffic between rails
 * crosses NVLink first (PXN).
 */
class RailOnlyTopology : public ClusterTopologyBuilder
{
  public:
    /** \return the TypeId */
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::RailOnlyTopology")
                                .SetParent<ClusterTopologyBuilder>()
                                .SetGroupName("Chakra")
                                .AddConstructor<RailOnlyTopology>();
        return tid;
    }

  protected:
    void DoBuild(const TopologySpec& spec, ClusterTopology& topology) const override
    {
        BuildRails(spec, 0, 0, 1.0, topology);
    }
};

NS_OBJECT_ENSURE_REGISTERED(RailOptimizedTopology);
NS_OBJECT_ENSURE_REGISTERED(RailOnlyTopology);

} // namespace topology
} // namespace ns3
