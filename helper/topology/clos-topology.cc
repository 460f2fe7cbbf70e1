/*
 * Three-tier Clos fabrics: leaves (edge switches) grouped in pods with their spines
 * (aggregation switches), pods joined by core switches. Spine j of every pod connects to the
 * cores of plane j, as in a k-ary fat-tree. Two builders share the shape: "fat-tree" (k-ary,
 * k/2 NICs per edge) and "clos" (hosts per leaf, leaves and spines per pod, cores).
 */
#include "cluster-topology-builder.h"
#include "topology-parts.h"

#include "ns3/double.h"
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
 * \brief A k-ary fat-tree: k pods of k/2 edge and k/2 aggregation switches, (k/2)^2 cores,
 * k/2 NICs per edge switch.
 */
class FatTreeTopology : public ClusterTopologyBuilder
{
  public:
    /** \return the TypeId */
    static TypeId GetTypeId()
    {
        static TypeId tid =
            TypeId("ns3::FatTreeTopology")
                .SetParent<ClusterTopologyBuilder>()
                .SetGroupName("Chakra")
                .AddConstructor<FatTreeTopology>()
                .AddAttribute("K",
                              "switch radix k (even; k^3/4 NIC ports); 0: the smallest that "
                              "holds every GPU",
                              UintegerValue(0),
                              MakeUintegerAccessor(&FatTreeTopology::m_k),
                              MakeUintegerChecker<uint32_t>(0, TopologyLimits::kMaxFatTreeK))
                .AddAttribute(
                    "Oversubscription",
                    "an edge switch's downlink capacity over its uplink capacity (1: non-blocking)",
                    DoubleValue(1.0),
                    MakeDoubleAccessor(&FatTreeTopology::m_oversubscription),
                    MakeDoubleChecker<double>(TopologyLimits::kMinOversubscription,
                                              TopologyLimits::kMaxOversubscription))
                .AddAttribute("CoreOversubscription",
                              "an aggregation switch's downlink capacity over its uplink capacity "
                              "to the cores",
                              DoubleValue(1.0),
                              MakeDoubleAccessor(&FatTreeTopology::m_coreOversubscription),
                              MakeDoubleChecker<double>(TopologyLimits::kMinOversubscription,
                                                        TopologyLimits::kMaxOversubscription));
        return tid;
    }

  protected:
    void DoBuild(const TopologySpec& spec, ClusterTopology& topology) const override
    {
        const uint64_t gpus = HostGpus(spec);
        uint64_t k = m_k;
        if (k == 0)
        {
            k = 2;
            while (k * k * k / 4 < gpus)
            {
                k += 2;
            }
        }
        if (k % 2 != 0 || k < 2 || k > 1024)
        {
            throw std::invalid_argument("fat-tree: k = " + std::to_string(k) +
                                        " must be even, from 2 to 1024");
        }
        if (k * k * k / 4 < gpus)
        {
            throw std::invalid_argument(
                "fat-tree: k = " + std::to_string(k) + " has " + std::to_string(k * k * k / 4) +
                " NIC ports, fewer than the " + std::to_string(gpus) + " GPUs");
        }
        const auto half = static_cast<uint32_t>(k / 2);
        // Every switch has k ports: an edge switch k/2 NICs and k/2 uplinks, an aggregation switch
        // k/2 edges and k/2 cores; oversubscription thins the uplinks (capacity by ports, so a
        // partly filled edge keeps the uplinks of a full one).
        const DataRate edgeUp = Share(static_cast<double>(spec.nicBandwidth.GetBitRate()),
                                      m_oversubscription,
                                      "fat-tree edge uplink");
        ThreeTier shape;
        shape.leaves = static_cast<uint32_t>(k * half);
        shape.leavesPerPod = half;
        shape.spinesPerPod = half;
        shape.coresPerPlane = half;
        shape.leafOf = [half](uint32_t rank) { return rank / half; };
        shape.leafUplink = [edgeUp](uint32_t) { return edgeUp; };
        shape.spineUplink = [&](uint32_t, DataRate) {
            return Share(static_cast<double>(edgeUp.GetBitRate()),
                         m_coreOversubscription,
                         "fat-tree aggregation uplink");
        };
        BuildThreeTier(spec, shape, topology);
        std::ostringstream name;
        name << "fat-tree (k = " << k << ": " << k << " pods, " << k * half << " edge, " << k * half
             << " aggregation, " << half * half << " core switches; oversubscription "
             << Number(m_oversubscription) << ":1 edge, " << Number(m_coreOversubscription)
             << ":1 aggregation)";
        topology.SetName(name.str());
    }

  private:
    uint32_t m_k;
    double m_oversubscription;
    double m_coreOversubscription;
};

/**
 * \ingroup chakra-topology
 * \brief Leaf-spine-core: leaves of HostsPerLeaf hosts, LeavesPerPod leaves and Spines spines
 * per pod (every leaf to every spine of its pod), spine j of every pod to the cores of plane j.
 */
class ClosTopology : public ClusterTopologyBuilder
{
  public:
    /** \return the TypeId */
    static TypeId GetTypeId()
    {
        static TypeId tid =
            TypeId("ns3::ClosTopology")
                .SetParent<ClusterTopologyBuilder>()
                .SetGroupName("Chakra")
                .AddConstructor<ClosTopology>()
                .AddAttribute("HostsPerLeaf",
                              "hosts whose NICs share a leaf switch",
                              UintegerValue(1),
                              MakeUintegerAccessor(&ClosTopology::m_hostsPerLeaf),
                              MakeUintegerChecker<uint32_t>(1, TopologyLimits::kMaxHostsPerLeaf))
                .AddAttribute("LeavesPerPod",
                              "leaves of a pod (each linked to every spine of its pod)",
                              UintegerValue(2),
                              MakeUintegerAccessor(&ClosTopology::m_leavesPerPod),
                              MakeUintegerChecker<uint32_t>(1, TopologyLimits::kMaxLeavesPerPod))
                .AddAttribute("Spines",
                              "spines per pod",
                              UintegerValue(2),
                              MakeUintegerAccessor(&ClosTopology::m_spines),
                              MakeUintegerChecker<uint32_t>(1, TopologyLimits::kMaxSpines))
                .AddAttribute("CoreSwitches",
                              "core switches, a multiple of Spines (spine j of every pod links "
                              "to the cores of plane j); 0: one per plane",
                              UintegerValue(0),
                              MakeUintegerAccessor(&ClosTopology::m_coreSwitches),
                              MakeUintegerChecker<uint32_t>(0, TopologyLimits::kMaxCoreSwitches))
                .AddAttribute(
                    "Oversubscription",
                    "a leaf's downlink capacity over its uplink capacity (1: non-blocking)",
                    DoubleValue(1.0),
                    MakeDoubleAccessor(&ClosTopology::m_oversubscription),
                    MakeDoubleChecker<double>(TopologyLimits::kMinOversubscription,
                                              TopologyLimits::kMaxOversubscription))
                .AddAttribute("CoreOversubscription",
                              "a spine's downlink capacity over its uplink capacity to the cores",
                              DoubleValue(1.0),
                              MakeDoubleAccessor(&ClosTopology::m_coreOversubscription),
                              MakeDoubleChecker<double>(TopologyLimits::kMinOversubscription,
                                                        TopologyLimits::kMaxOversubscription));
        return tid;
    }

  protected:
    void DoBuild(const TopologySpec& spec, ClusterTopology& topology) const override
    {
        if (m_spines == 0 || m_leavesPerPod == 0)
        {
            throw std::invalid_argument(
                "clos needs at least one spine per pod and one leaf per pod");
        }
        ThreeTier shape;
        shape.leaves = (spec.hosts + m_hostsPerLeaf - 1) / m_hostsPerLeaf;
        shape.leavesPerPod = std::min(m_leavesPerPod, shape.leaves);
        shape.spinesPerPod = m_spines;
        const uint32_t pods = Pods(shape);
        if (pods > 1)
        {
            const uint32_t cores = m_coreSwitches == 0 ? m_spines : m_coreSwitches;
            if (cores % m_spines != 0)
            {
                throw std::invalid_argument(
                    "clos: coreSwitches " + std::to_string(cores) +
                    " must be a multiple of the spines per pod (" + std::to_string(m_spines) +
                    "): spine j of every pod connects to the cores of plane j");
            }
            shape.coresPerPlane = cores / m_spines;
        }
        const uint32_t g = spec.gpusPerHost;
        shape.leafOf = [this, &spec, g](uint32_t rank) { return rank / g / m_hostsPerLeaf; };
        shape.leafUplink = [this, &spec, g](uint32_t leaf) {
            const uint32_t hostsHere = std::min(m_hostsPerLeaf, spec.hosts - leaf * m_hostsPerLeaf);
            const double down = static_cast<double>(spec.nicBandwidth.GetBitRate()) * hostsHere * g;
            return Share(down, m_spines * m_oversubscription, "clos leaf uplink");
        };
        shape.spineUplink = [this, &shape](uint32_t, DataRate down) {
            // down: the pod's leaf uplinks into one spine (every leaf has one link to each spine)
            return Share(static_cast<double>(down.GetBitRate()),
                         shape.coresPerPlane * m_coreOversubscription,
                         "clos spine uplink");
        };
        BuildThreeTier(spec, shape, topology);
        std::ostringstream name;
        name << "clos (" << shape.leaves << " leaves in " << pods << " pod(s) of "
             << shape.leavesPerPod << ", " << m_spines << " spines per pod, "
             << shape.coresPerPlane * m_spines << " cores; oversubscription "
             << Number(m_oversubscription) << ":1 leaf, " << Number(m_coreOversubscription)
             << ":1 spine)";
        topology.SetName(name.str());
    }

  private:
    uint32_t m_hostsPerLeaf;
    uint32_t m_leavesPerPod;
    uint32_t m_spines;
    uint32_t m_coreSwitches;
    double m_oversubscription;
    double m_coreOversubscription;
};

NS_OBJECT_ENSURE_REGISTERED(FatTreeTopology);
NS_OBJECT_ENSURE_REGISTERED(ClosTopology);

} // namespace topology
} // namespace ns3
