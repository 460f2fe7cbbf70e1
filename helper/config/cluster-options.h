/*
 * ClusterOptions: the cluster and replay flags of the command-line front ends (chakra-cluster,
 * chakra_replay, scripts/sweep.py through them), written once as a table that maps each flag
 * onto the attribute it sets.
 */
#ifndef CHAKRA_CLUSTER_OPTIONS_H
#define CHAKRA_CLUSTER_OPTIONS_H

#include "ns3/attribute.h"
#include "ns3/gpu-catalog.h"
#include "ns3/ptr.h"
#include "ns3/topology-file.h"

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace ns3
{

class ClusterScenario;
class GpuClusterHelper;
class ToolArgs;

/**
 * \ingroup chakra-config
 * \brief The flags that describe a cluster and a replay, each checked when it is given.
 *
 * One table (cluster-options.cc) holds every flag: its name (kebab-case), the attribute it sets
 * (GpuClusterHelper, ChakraApplication or ComputeModel), the kind of value (a bandwidth or a
 * latency with its unit, a count with bounds, a name of an enumeration...) and its help; the
 * default shown in the help is the attribute's default. Only the flags given are applied, so a
 * --ns3::GpuClusterHelper::Name=value default set elsewhere holds for the others.
 *
 * \code
 *   ToolArgs args("my-tool", "...");
 *   ClusterOptions::AddFlags(args);
 *   ... args.Parse(argc, argv, done) ...
 *   ClusterOptions options;
 *   options.Read(args);                    // throws std::invalid_argument naming a bad flag
 *   ClusterScenario scenario;
 *   options.Apply(scenario, ranks, prefix); // the cluster is checked whole here
 * \endcode
 */
class ClusterOptions
{
  public:
    /** Declares every flag of the table on \p args. */
    static void AddFlags(ToolArgs& args);
    /** \return the flag names of the table, in order */
    static std::vector<std::string> GetFlagNames();

    /**
     * Takes every table flag given on \p args (Set).
     * \throws std::invalid_argument naming the first flag whose value is not valid
     */
    void Read(const ToolArgs& args);
    /**
     * Sets a flag as if given on the command line.
     * \param flag the flag's name without dashes ("nic-bandwidth")
     * \param text its value
     * \throws std::invalid_argument naming the flag: unknown flag (with a near name), a value
     *         without its unit, out of bounds, not one of the valid names (listed)
     */
    void Set(const std::string& flag, const std::string& text);
    /** \return true if \p flag was given (Set) */
    bool Has(const std::string& flag) const;
    /** \return the text given for \p flag, or its default's text */
    std::string GetText(const std::string& flag) const;

    /**
     * Resolves hosts x GPUs per host for \p ranks (a topology file's hosts and gpusPerHost are
     * taken from it; a torus or multi-dim has its own GPU count), sets the given flags' attributes
     * on the scenario's cluster and applications, and checks the cluster whole.
     * \param scenario the scenario
     * \param ranks the traces' rank count
     * \param traces the traces' prefix, named in the error (may be empty)
     * \throws std::invalid_argument when the cluster cannot hold exactly \p ranks ranks, a flag
     *         and the topology file both set one value, or the cluster is not valid
     */
    void Apply(ClusterScenario& scenario, uint32_t ranks, const std::string& traces = "") const;

    /**
     * \return true if \p flag (without dashes) is one of the applications' flags (algorithm,
     *         chunk-size, compute-scale, ...): those a job of several may set for itself
     */
    static bool IsApplicationFlag(const std::string& flag);
    /**
     * \return the ChakraApplication attributes the given application flags set (what Apply
     *         sets on every application), in the table's order
     */
    std::vector<std::pair<std::string, Ptr<AttributeValue>>> GetApplicationAttributes() const;

    /**
     * Sets the given cluster flags on \p cluster alone (no ranks to fit: hosts and GPUs per
     * host as given or their defaults), for a picture or summary of a topology without a run.
     * \throws std::invalid_argument as Apply
     */
    void ApplyToCluster(GpuClusterHelper& cluster) const;

    /**
     * --gpu NAME (not a table flag: a preset of two attributes): the GPU model of every GPU.
     * Sets --nvlink-bandwidth from its data sheet (helper/gpu-catalog.h; an error with
     * --nvlink-bandwidth too) and, in Apply, the NCCL model's GpuGeneration (its tuning rows
     * and NVLS) unless --ns3::NcclCollective::GpuGeneration is given.
     * \throws std::invalid_argument naming --gpu for a name the catalog does not know
     */
    void SetGpu(const std::string& name);
    /** \return the GPU --gpu named, if any */
    const std::optional<GpuLinkSpec>& GetGpu() const;

    std::string timeline; //!< Chrome trace JSON to write ("" = none; not a table flag)

  private:
    /**
     * Sets the cluster's attributes of the given flags (hosts and GPUs per host aside), and
     * checks that no flag also sets a key of the topology file.
     * \return the topology file given (read once here), if any
     */
    std::optional<TopologyFileContents> SetClusterAttributes(GpuClusterHelper& cluster) const;
    /** Throws if a given flag is also a key of the topology \p file. */
    void CheckFileConflicts(const TopologyFileContents& file) const;

    std::map<std::string, std::string> m_text;           //!< given flags, checked
    std::map<std::string, Ptr<AttributeValue>> m_values; //!< their attribute values
    /** Given topology family parameters (leaves-per-pod, ...): set on the chosen family. */
    std::map<std::string, std::string> m_topologyText;
    std::optional<GpuLinkSpec> m_gpu; //!< --gpu
};

} // namespace ns3

#endif // CHAKRA_CLUSTER_OPTIONS_H
