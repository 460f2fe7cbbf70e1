/*
 * ClusterTopology: the modeled cluster as a graph (GPUs, NVSwitches, switches, links) with its
 * routing. Every transport model works on it: the packet models build ns-3 devices on its links
 * and route packets with its next hops; the flow model routes flows on the same paths.
 */
#ifndef CHAKRA_CLUSTER_TOPOLOGY_H
#define CHAKRA_CLUSTER_TOPOLOGY_H

#include "ns3/data-rate.h"
#include "ns3/nstime.h"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup chakra-network
 * \brief A cluster's nodes and links, and the routes between its GPUs.
 *
 * Nodes: GPUs first (node index == rank), then switches (NVSwitches and fabric switches).
 * Links are full duplex; a directed link (what a flow or a queue occupies) is
 * 2 * link + (0 for a -> b, 1 for b -> a).
 *
 * Routing is by destination GPU: the next hops from a node towards a rank are the ports on
 * least-cost paths (link cost: 1 inside a scale-up domain, 10 outside, so that a path stays on
 * NVLink when it can), through transit nodes only (switches; GPUs only in direct-connect
 * topologies, see SetGpuTransit). Equal-cost next hops are listed in port order (the order the
 * links were added). A topology may replace shortest paths with its own rule (SetRouteFunction,
 * e.g. dimension-order routing on a torus).
 *
 * Distances are computed on first use. When GPUs do not forward, a path's inner nodes are all
 * switches, so the cost from a switch to a GPU is the least, over the GPU's links, of the
 * switch-to-switch cost to the link's switch plus the link: one table per destination
 * *switch*, over switches only (2 bytes per switch; sparse when few switches reach it, as for
 * an NVSwitch). Per destination GPU and over every node, as a transit topology still needs,
 * that would be O(GPUs^2): 9.8 GB at 65,536 GPUs.
 */
class ClusterTopology
{
  public:
    /** What a node is. */
    enum NodeKind : uint8_t
    {
        GPU,      //!< a GPU (a rank)
        NVSWITCH, //!< the switch of a scale-up (NVLink) domain
        SWITCH,   //!< a scale-out fabric switch
    };

    /** Which network a link belongs to. */
    enum LinkKind : uint8_t
    {
        SCALE_UP,  //!< NVLink (inside a host or an NVLink domain)
        SCALE_OUT, //!< NIC and fabric links
    };

    /** A node. */
    struct Node
    {
        NodeKind kind{GPU};
        uint32_t group{0}; //!< GPU: its host; NVSWITCH: its domain; SWITCH: its tier (0 = leaf)
        std::string label; //!< for summaries and pictures ("gpu3", "leaf1", ...)
    };

    /** A full-duplex link. */
    struct Link
    {
        uint32_t a{0};
        uint32_t b{0};
        DataRate rate;      //!< per direction
        Time delay;         //!< propagation delay
        uint32_t mtu{1500}; //!< largest packet (bytes)
        LinkKind kind{SCALE_OUT};
        uint32_t cost{10}; //!< routing cost
    };

    /** One end of a link seen from a node. */
    struct Port
    {
        uint32_t link{0}; //!< link index
        uint32_t peer{0}; //!< the node at the other end
    };

    /**
     * A topology-specific routing rule: fills \p ports with the next hops (indices into
     * GetPorts(node)) from \p node towards \p dstRank; empty when unreachable.
     */
    using RouteFunction = std::function<void(const ClusterTopology& topology,
                                             uint32_t node,
                                             uint32_t dstRank,
                                             std::vector<uint32_t>& ports)>;

    /** Routing cost of a scale-up link. */
    static constexpr uint32_t kScaleUpCost = 1;
    /** Routing cost of a scale-out link. */
    static constexpr uint32_t kScaleOutCost = 10;

    /**
     * Adds a GPU (GPUs must all be added before any switch). Its rank is the number of GPUs
     * added before it.
     * \param host the host (or scale-up domain) it belongs to
     * \param label its label ("" = "gpu<rank>")
     * \return its node index (== its rank)
     */
    uint32_t AddGpu(uint32_t host, const std::string& label = "");
    /**
     * Adds a switch.
     * \param kind NVSWITCH or SWITCH
     * \param group NVSWITCH: its domain; SWITCH: its tier
     * \param label its label
     * \return its node index
     */
    uint32_t AddSwitch(NodeKind kind, uint32_t group, const std::string& label);
    /**
     * Adds a link; its cost follows its kind (kScaleUpCost, kScaleOutCost).
     * \return its index
     * \throws std::invalid_argument for a node that does not exist or a link to itself
     */
    uint32_t AddLink(uint32_t a,
                     uint32_t b,
                     DataRate rate,
                     Time delay,
                     uint32_t mtu,
                     LinkKind kind);

    /** GPUs forward traffic between other GPUs (direct-connect topologies: torus, ring). */
    void SetGpuTransit(bool transit);
    /** Replaces shortest-path routing (before the first route is asked for). */
    void SetRouteFunction(RouteFunction route);
    /** A one-line name of the topology, for summaries ("leaf-spine (4 leaves, 2 spines)"). */
    void SetName(const std::string& name);

    /** \return the name set by SetName */
    const std::string& GetName() const;
    /** \return the number of GPUs */
    uint32_t GetRankCount() const;
    /** \return all nodes */
    const std::vector<Node>& GetNodes() const;
    /** \return all links */
    const std::vector<Link>& GetLinks() const;
    /** \return the ports of a node, in the order its links were added */
    const std::vector<Port>& GetPorts(uint32_t node) const;
    /** \return the host (or domain) of every rank */
    std::vector<uint32_t> GetHostOf() const;
    /** \return true if GPUs forward traffic */
    bool IsGpuTransit() const;
    /** \return true if SetRouteFunction replaced shortest-path routing */
    bool HasRouteFunction() const;

    /**
     * The next hops from a node towards a rank.
     * \param node a node (not the destination's)
     * \param dstRank the destination
     * \param[out] ports indices into GetPorts(node), in port order; empty if unreachable
     */
    void GetNextHops(uint32_t node, uint32_t dstRank, std::vector<uint32_t>& ports) const;

    /**
     * The next hop a flow takes: among the equal-cost next hops, the one a hash of the flow
     * salted with the node picks (so successive switches do not all pick the same index). The
     * packet models' switches and the flow model use this same rule.
     * \return an index into GetPorts(node); GetPorts(node).size() if unreachable
     */
    uint32_t SelectNextHop(uint32_t node, uint32_t dstRank, uint64_t flowHash) const;

    /**
     * The route of a flow.
     * \param srcRank source
     * \param dstRank destination (!= source)
     * \param flowHash the flow's hash (see SelectNextHop)
     * \param[out] directedLinks the directed links crossed, in order
     * \return false if the destination is unreachable
     */
    bool GetPath(uint32_t srcRank,
                 uint32_t dstRank,
                 uint64_t flowHash,
                 std::vector<uint32_t>& directedLinks) const;

    /** \return the least cost from \p node to \p dstRank (UINT16_MAX: unreachable) */
    uint16_t GetDistance(uint32_t node, uint32_t dstRank) const;

    /**
     * The next hops from a switch towards a rank by least cost through switches only, the rule
     * of a topology whose GPUs do not forward, whatever SetGpuTransit says: for a route
     * function that decides at GPUs and NVSwitches (PXN on rail-optimized fabrics) and keeps
     * least-cost routing in the fabric.
     * \param node a switch
     * \param dstRank the destination
     * \param[out] ports indices into GetPorts(node), in port order; empty if unreachable
     */
    void GetSwitchNextHops(uint32_t node, uint32_t dstRank, std::vector<uint32_t>& ports) const;

    /** \return the bit-mixing hash step used for flow hashes (splitmix64 finaliser) */
    static uint64_t Mix(uint64_t hash, uint64_t value);

  private:
    /** Least costs from every switch to one switch, through switches only. */
    struct SwitchTable
    {
        bool computed{false};
        std::vector<uint16_t> dense; //!< by switch index (node - GPUs), or empty when sparse
        std::vector<std::pair<uint32_t, uint16_t>> sparse; //!< (switch index, cost), sorted
    };

    /** Transit topologies: computes the distances of every node towards a rank (once). */
    const std::vector<uint16_t>& DistancesTo(uint32_t dstRank) const;
    /** \return the least cost from switch \p from to switch \p to through switches only */
    uint32_t SwitchCost(uint32_t from, uint32_t to) const;
    /** \return the least cost from \p node to \p dstRank (kNoPath if none) */
    uint32_t CostTo(uint32_t node, uint32_t dstRank) const;
    /** \return the least cost from switch \p node to \p dstRank through switches only, then
     *  one of the destination's links (kNoPath if none) */
    uint32_t SwitchPathCost(uint32_t node, uint32_t dstRank) const;
    /**
     * Appends the ports of \p node on least-cost paths to \p dstRank by \p costTo (a node's
     * cost to the rank): the links to a peer that forwards (a switch, the destination, any GPU
     * when \p gpusForward) whose cost plus the peer's is the node's.
     */
    template <typename CostFunction>
    void PortsOnLeastCostPaths(uint32_t node,
                               uint32_t dstRank,
                               bool gpusForward,
                               CostFunction costTo,
                               std::vector<uint32_t>& ports) const;

    std::string m_name;
    std::vector<Node> m_nodes;
    std::vector<Link> m_links;
    std::vector<std::vector<Port>> m_ports;
    uint32_t m_gpus{0};
    bool m_gpuTransit{false};
    RouteFunction m_route;
    /** Transit topologies: per destination rank, every node's least cost to it (lazily). */
    mutable std::vector<std::vector<uint16_t>> m_distances;
    /** Otherwise: per destination switch (node - GPUs), every switch's least cost to it. */
    mutable std::vector<SwitchTable> m_switchTables;
    mutable std::vector<uint32_t> m_scratch;
};

} // namespace ns3

#endif // CHAKRA_CLUSTER_TOPOLOGY_H
