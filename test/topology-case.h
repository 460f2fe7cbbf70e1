/*
 * TopologyCase: a cluster and a topology family's parameters in one struct, as the tests write
 * them compactly (spec.kind = "clos"; spec.leavesPerPod = 2). BuildTopology(TopologyCase)
 * builds it through the module's own path: the family by its short name through an
 * ObjectFactory, each parameter the family has set as its attribute (checked, so that a value
 * the family refuses is a std::invalid_argument), then ClusterTopologyBuilder::Build.
 */
#ifndef CHAKRA_TEST_TOPOLOGY_CASE_H
#define CHAKRA_TEST_TOPOLOGY_CASE_H

#include "ns3/cluster-topology-builder.h"
#include "ns3/topology-builder.h"

#include <memory>
#include <string>
#include <vector>

namespace ns3
{

/** A cluster (TopologySpec) with a family and its parameters under the old field names. */
struct TopologyCase : TopologySpec
{
    std::string kind{"single-switch"};
    uint32_t hostsPerLeaf{1};
    uint32_t spines{2};
    double oversubscription{1.0};
    DataRate ringBandwidth{0};
    uint32_t hostsPerRailGroup{0};
    uint32_t leavesPerPod{2};
    uint32_t coreSwitches{0};
    double coreOversubscription{1.0};
    std::string pxn{"off"}; //!< rail-optimized: PXN between rails (off, on)
    uint32_t fatTreeK{0};
    std::vector<uint32_t> torusDims;
    DataRate torusBandwidth{0};
    std::vector<DimensionSpec> dimensions;
};

/**
 * \return the family of \p topology with every parameter it has set from the case
 * \throws std::invalid_argument for a value the family refuses
 */
Ptr<ClusterTopologyBuilder> CreateBuilder(const TopologyCase& topology);

/** \return CreateBuilder(topology)->Build(topology) */
std::shared_ptr<ClusterTopology> BuildTopology(const TopologyCase& topology);

/** \return CreateBuilder(topology)->GetFixedRankCount() */
uint32_t FixedRankCount(const TopologyCase& topology);

} // namespace ns3

#endif // CHAKRA_TEST_TOPOLOGY_CASE_H
