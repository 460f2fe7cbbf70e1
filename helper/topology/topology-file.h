/*
 * Topology files: a cluster's topology in YAML or JSON, in this module's format (every
 * TopologySpec field) or in ASTRA-sim's analytical network format (network.yml), read with
 * yaml-cpp (YAML is a superset of JSON, so one parser reads both).
 */
#ifndef CHAKRA_TOPOLOGY_FILE_H
#define CHAKRA_TOPOLOGY_FILE_H

#include "cluster-topology-builder.h"
#include "topology-builder.h"

#include "ns3/attribute.h"
#include "ns3/ptr.h"

#include <set>
#include <string>
#include <utility>
#include <vector>

namespace ns3
{

/**
 * \ingroup chakra-topology
 * \brief What a topology file held.
 */
struct TopologyFileContents
{
    TopologySpec spec; //!< the defaults given, with the file's values over them
    std::string kind;  //!< the topology family ("kind")
    /** The family's parameters the file set: attribute name and value. */
    std::vector<std::pair<std::string, Ptr<AttributeValue>>> parameters;
    std::set<std::string> keys; //!< what the file set: TopologySpec fields, kind, and family
                                //!< parameters by their short names (leaves-per-pod)
    bool astraSim{false};       //!< the file was in ASTRA-sim's format

    /**
     * \param base parameters set elsewhere (GpuClusterHelper::SetTopologyAttribute): used when
     *        it makes the file's family, the file's parameters set over them
     * \return the family, its parameters set as the file sets them
     */
    Ptr<ClusterTopologyBuilder> CreateTopology(const ObjectFactory& base = ObjectFactory()) const;
};

/**
 * Reads a topology file.
 *
 * ASTRA-sim's analytical format (recognised by its "npus_count" key): "topology" (a list of
 * Ring, FullyConnected, Switch), "npus_count" (GPUs per dimension), "bandwidth" (GB/s per link
 * and direction, 1 GB = 2^30 bytes as ASTRA-sim's analytical backend counts it) and "latency"
 * (ns per link), one entry per dimension, dimension 0 first: a "multi-dim" topology. Other
 * keys are ignored, as ASTRA-sim ignores them.
 *
 * This module's format: a mapping with "kind" (a family's short name, or its TypeId name),
 * any of the TopologySpec fields under their names (hosts, gpusPerHost, nicBandwidth, ...; see
 * doc/chakra.md), and the family's parameters by their short names in any spelling
 * (leavesPerPod, leaves-per-pod, LeavesPerPod: TopologyParameterNames). Rates are ns-3 DataRate
 * text ("400Gbps") or a number of bit/s; times are ns-3 Time text ("500ns") or a number of
 * nanoseconds; torusDims is a list of sizes or "4x4x4"; dimensions is a list of mappings with
 * shape (Ring, FullyConnected, Switch), size, bandwidth and latency. An unknown key is an
 * error (a misspelt key would otherwise be silently ignored).
 *
 * \param path the file
 * \param defaults the values of the fields the file does not set
 * \return the spec and what the file set
 * \throws std::invalid_argument naming the file, the line and the key for a file that cannot
 *         be read or holds a bad value
 */
TopologyFileContents ReadTopologyFile(const std::string& path, const TopologySpec& defaults);

} // namespace ns3

#endif // CHAKRA_TOPOLOGY_FILE_H
