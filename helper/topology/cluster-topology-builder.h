/*
 * ClusterTopologyBuilder: the base of the topology families (single-switch, leaf-spine, clos,
 * torus, ...). Each family is an ns-3 Object with a TypeId and its own parameters as typed
 * attributes (ns3::ClosTopology::LeavesPerPod); GpuClusterHelper::SetTopology picks one through
 * an ObjectFactory, as WifiHelper::SetRemoteStationManager picks a rate control.
 */
#ifndef CHAKRA_CLUSTER_TOPOLOGY_BUILDER_H
#define CHAKRA_CLUSTER_TOPOLOGY_BUILDER_H

#include "topology-builder.h"

#include "ns3/object-factory.h"
#include "ns3/object.h"

#include <memory>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup chakra-topology
 * \brief A family of cluster topologies: its parameters (attributes) and how it builds the
 * graph of a cluster.
 *
 * What every family shares (hosts, GPUs per host, NVLink and NIC links, MTUs, the fabric's
 * latency) comes from GpuClusterHelper as a TopologySpec; what only this family has (spines,
 * leaves per pod, torus dimensions, ...) is its own attributes. To add a family: a class
 * derived from this one in its own file (its attributes, CheckParameters, DoBuild) and a line
 * in the table of TopologyKindNames (cluster-topology-builder.cc) that gives it a short name
 * for --topology and topology files (doc/extending.md).
 */
class ClusterTopologyBuilder : public Object
{
  public:
    /** \return the TypeId */
    static TypeId GetTypeId();
    ~ClusterTopologyBuilder() override;

    /**
     * Checks the cluster and this family's parameters, then builds the graph.
     * \param cluster what every family shares
     * \return the graph
     * \throws std::invalid_argument naming the parameter for values that make no cluster
     */
    std::shared_ptr<ClusterTopology> Build(const TopologySpec& cluster) const;

    /**
     * Checks \p cluster (ValidateTopologySpec) and this family's parameters (CheckParameters),
     * without building.
     * \param cluster what every family shares
     * \throws std::invalid_argument naming the parameter
     */
    void Validate(const TopologySpec& cluster) const;

    /**
     * Checks the family's own parameters alone (their syntax and the combinations the family
     * refuses whatever the cluster): what a flag or a file key can be checked against when it
     * is read.
     * \throws std::invalid_argument naming the attribute
     */
    virtual void CheckParameters() const;

    /**
     * \return the number of GPUs the parameters fix (a torus's or a multi-dim's dimensions
     *         make its GPUs), or 0 for a family of Hosts x GpusPerHost GPUs
     */
    virtual uint32_t GetFixedRankCount() const;

    /**
     * \param cluster what every family shares
     * \return what a one-line description of the cluster says after the family's name (" (4
     *         leaves, 2 spines, ...)"), or ""
     */
    virtual std::string DescribeShape(const TopologySpec& cluster) const;

    /** \return the family's short name ("clos"; the TypeId's name for a family not listed) */
    std::string GetKind() const;

  protected:
    /**
     * Adds the family's GPUs, switches and links to \p topology (empty) and names it.
     * \param cluster what every family shares, checked
     * \param topology the graph to fill
     * \throws std::invalid_argument for parameters the family cannot build for this cluster
     */
    virtual void DoBuild(const TopologySpec& cluster, ClusterTopology& topology) const = 0;
};

/**
 * \ingroup chakra-topology
 * \return the short names of the topology families (--topology, a topology file's "kind"),
 *         in the order help texts list them
 */
std::vector<std::string> TopologyKindNames();

/** \return TopologyKindNames(), comma separated */
std::string ListTopologyKinds();

/**
 * \param kind a short name ("fat-tree") or a TypeId name ("ns3::FatTreeTopology")
 * \return the family's TypeId
 * \throws std::invalid_argument for a name that is neither, with the valid names and a near one
 */
TypeId TopologyTypeIdOf(const std::string& kind);

/**
 * \return the checker of an attribute naming a topology family by its short name
 *         (GpuClusterHelper::Topology): the value is the index in TopologyKindNames()
 */
Ptr<const AttributeChecker> MakeTopologyKindChecker();

/**
 * \param kind a family's short name or TypeId name
 * \param args attribute name and value pairs, as ObjectFactory::Set takes them
 * \return the family with these parameters
 * \throws std::invalid_argument for an unknown family
 */
template <typename... Args>
Ptr<ClusterTopologyBuilder>
CreateTopologyBuilder(const std::string& kind, Args&&... args)
{
    ObjectFactory factory;
    factory.SetTypeId(TopologyTypeIdOf(kind));
    factory.Set(std::forward<Args>(args)...);
    return factory.Create<ClusterTopologyBuilder>();
}

/**
 * \ingroup chakra-topology
 * \brief A family parameter's short name (a tool flag, a topology file key) and the attribute it
 * sets.
 */
struct TopologyParameterName
{
    std::string flag;      //!< kebab-case, as the tools take it ("leaves-per-pod")
    std::string attribute; //!< the attribute's name ("LeavesPerPod")
    std::string help;      //!< the attribute's help, with the families that have it
};

/**
 * The short names of every listed family's parameters: an attribute's name in kebab-case
 * ("LeavesPerPod": leaves-per-pod), or the name the table of aliases gives it where that would
 * be ambiguous or unclear (FatTreeTopology::K: fat-tree-k; the Bandwidth of ring and of torus:
 * ring-bandwidth, torus-bandwidth). A name shared by families (spines) is one entry.
 * \return the names, in the order of the families
 */
const std::vector<TopologyParameterName>& TopologyParameterNames();

/**
 * \param tid a topology family
 * \param name a short name in any case and spelling ("leaves-per-pod", "leavesPerPod",
 *        "LeavesPerPod")
 * \return the attribute of \p tid it names, or "" if \p tid has none by that name
 */
std::string FindTopologyParameter(TypeId tid, const std::string& name);

/**
 * \param tid a topology family
 * \param attribute one of its attributes
 * \return the attribute's short name ("leaves-per-pod")
 */
std::string TopologyParameterFlag(TypeId tid, const std::string& attribute);

/**
 * \param tid a topology family
 * \return its parameters' short names, comma separated with "--" ("--spines, --hosts-per-leaf")
 */
std::string ListTopologyParameters(TypeId tid);

} // namespace ns3

#endif // CHAKRA_CLUSTER_TOPOLOGY_BUILDER_H
