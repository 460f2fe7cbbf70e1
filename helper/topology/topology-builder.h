/*
 * Topology builders: the parameters of a cluster (hosts, GPUs, links, fabric shape) -> its
 * ClusterTopology graph. GpuClusterHelper turns its attributes into a TopologySpec and builds
 * the graph here, then a fabric (one per transport family) builds the ns-3 network on it.
 */
#ifndef CHAKRA_TOPOLOGY_BUILDER_H
#define CHAKRA_TOPOLOGY_BUILDER_H

#include "ns3/attribute.h"
#include "ns3/cluster-topology.h"
#include "ns3/data-rate.h"
#include "ns3/nstime.h"

#include <memory>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup chakra-topology
 * \brief One dimension of a dimensional topology (ASTRA-sim's building blocks).
 */
struct DimensionSpec
{
    /** How the GPUs of one line of this dimension are joined. */
    enum Shape : uint8_t
    {
        RING,            //!< each GPU to its two neighbours (bidirectional ring)
        FULLY_CONNECTED, //!< a direct link between every pair
        SWITCH,          //!< every GPU to one switch of the line
    };

    Shape shape{RING};
    uint32_t size{2};               //!< GPUs along this dimension
    DataRate bandwidth{"400Gbps"};  //!< per link and direction
    Time latency{NanoSeconds(500)}; //!< per link

    /** \return "Ring", "FullyConnected" or "Switch" (ASTRA-sim's names) */
    std::string ShapeName() const;
    /**
     * \param name Ring, FullyConnected or Switch (ASTRA-sim's names; case-insensitive, '-' and
     *        '_' ignored, so "fully-connected" is accepted)
     * \param[out] shape the shape
     * \return false for an unknown name
     */
    static bool ParseShape(const std::string& name, Shape& shape);
};

/**
 * \ingroup chakra-topology
 * \brief What every topology family shares (GpuClusterHelper's attributes; see there): the
 * GPUs, their NVLink domains and NIC links, and the fabric's link latency. What a family has
 * alone (spines, torus dimensions, ...) is its own attributes (ClusterTopologyBuilder).
 *
 * Host-based families (single-switch, leaf-spine, ring, rail-optimized, fat-tree, clos) have
 * hosts x gpusPerHost GPUs, rank = host x gpusPerHost + gpu, an NVLink domain per host (or per
 * scaleUpDomain GPUs) and one NIC per GPU. Dimensional families (torus, multi-dim) have the
 * product of their dimension sizes as GPUs and no hosts in that sense.
 */
struct TopologySpec
{
    uint32_t hosts{2};
    uint32_t gpusPerHost{8};
    DataRate nvLinkBandwidth{"3600Gbps"};
    Time nvLinkLatency{NanoSeconds(250)};
    uint32_t nvLinkMtu{65000};
    DataRate nicBandwidth{"400Gbps"};
    Time nicLatency{NanoSeconds(500)};
    uint32_t mtu{9000};
    Time fabricLatency{NanoSeconds(500)};
    uint32_t scaleUpDomain{0}; //!< GPUs per NVLink domain (0: one host)
};

/**
 * \ingroup chakra-topology
 * \brief Bounds on a cluster's counts: far above any cluster built, far below what would make
 * a run hang or exhaust memory (a "-1" read as 4294967295 spines).
 */
struct TopologyLimits
{
    static constexpr uint32_t kMaxHosts = 1u << 20;
    static constexpr uint32_t kMaxGpusPerHost = 1024;
    static constexpr uint32_t kMaxGpus = 1u << 21; //!< every GPU of the cluster
    static constexpr uint32_t kMaxSpines = 4096;   //!< spines (per pod in clos)
    static constexpr uint32_t kMaxLeavesPerPod = 4096;
    static constexpr uint32_t kMaxCoreSwitches = 65536;
    static constexpr uint32_t kMaxHostsPerLeaf = 65536;
    static constexpr uint32_t kMaxFatTreeK = 1024;
    static constexpr uint32_t kMinMtu = 576; //!< IPv4's minimum datagram
    static constexpr uint32_t kMaxMtu = 65535;
    static constexpr double kMinOversubscription = 0.01;
    static constexpr double kMaxOversubscription = 1000;
    static constexpr uint32_t kMaxDimensionSize = 65535; //!< torus and multi-dim dimensions
};

/**
 * Checks every field of a cluster against TopologyLimits and QuantityLimits (rates 1 Mbps to
 * 100 Tbps, latencies 0 to 1 s): the last line of defence for values that came from attributes
 * set in a script (flags and topology files check theirs where they are read).
 * \param spec the cluster
 * \param fixedRanks the GPUs a dimensional family fixes (then hosts and gpusPerHost are not
 *        used), or 0
 * \throws std::invalid_argument naming the field (as TopologySpec, attributes and topology
 *         files spell it: nicBandwidth, hosts, ...) and its bounds
 */
void ValidateTopologySpec(const TopologySpec& spec, uint32_t fixedRanks = 0);

/**
 * \param text "4x4x4" (or "4,4,4")
 * \return the sizes
 * \throws std::invalid_argument naming the text if it is not a list of positive integers
 */
std::vector<uint32_t> ParseTorusDims(const std::string& text);

/**
 * \param text dimensions "Shape:size:bandwidth:latency" separated by commas, e.g.
 *        "Ring:8:3600Gbps:250ns,Switch:4:400Gbps:1us" (ns-3 DataRate and Time syntax)
 * \return the dimensions
 * \throws std::invalid_argument naming the dimension that does not parse
 */
std::vector<DimensionSpec> ParseDimensions(const std::string& text);

/** \return dimensions in the ParseDimensions syntax */
std::string FormatDimensions(const std::vector<DimensionSpec>& dimensions);

} // namespace ns3

#endif // CHAKRA_TOPOLOGY_BUILDER_H
