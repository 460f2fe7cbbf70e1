/*
 * ChakraHelper: installs one ChakraApplication per rank and gathers the report.
 */
#ifndef CHAKRA_HELPER_H
#define CHAKRA_HELPER_H

#include "ns3/application-container.h"
#include "ns3/chakra-application.h"
#include "ns3/chakra-report.h"
#include "ns3/ipv4-address.h"
#include "ns3/node-container.h"
#include "ns3/object-factory.h"
#include "ns3/rank-roles.h"

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace ns3
{

class TimelineWriter;

/**
 * \ingroup chakra-helper
 * \brief Installs ChakraApplications: rank r runs on nodes.Get(r) and reads
 * "<prefix>.<r>.et" (or "<prefix>.<r>.et.gz").
 *
 * On the GPU nodes of a GpuClusterHelper cluster, each rank gets the cluster's transport
 * (wired to the fabric it built), addresses and hosts without further calls:
 * \code
 *   Ptr<GpuClusterHelper> cluster = CreateObject<GpuClusterHelper>();
 *   cluster->SetAttribute("Hosts", UintegerValue(2));  // 2 x 8 GPUs: traces step.0 .. step.15
 *   cluster->Build();
 *   ChakraHelper chakra("traces/step");              // step.0.et, step.1.et, ...
 *   chakra.SetAttribute("AllReduceAlgorithm", StringValue("ring"));
 *   chakra.Install(cluster->GetRankNodes());
 *   Simulator::Run();
 *   ChakraReport report = chakra.GetReport();
 *   Simulator::Destroy();
 *   report.Print(std::cout);
 * \endcode
 * On nodes a script built itself (ns-3's own helpers, an IPv4 stack), each application creates
 * a transport of its Transport attribute's model (tcp); SetRankAddresses, SetHostOf and
 * SetTransportFactory override what is found. ClusterScenario runs the cluster, the
 * applications and the report in one call (the simplest path; see there).
 */
class ChakraHelper
{
  public:
    /** \param tracePrefix the per-rank trace prefix */
    explicit ChakraHelper(std::string tracePrefix);

    /**
     * Sets an attribute of the applications to install.
     * \throws std::invalid_argument for an unknown attribute or a value it refuses (with the
     *         valid values)
     */
    void SetAttribute(const std::string& name, const AttributeValue& value);
    /** Each rank's address (default: the first non-loopback IPv4 address of its node). */
    void SetRankAddresses(std::vector<Ipv4Address> addresses);
    /** Each rank's host (default: one host per rank); used by hierarchical algorithms. */
    void SetHostOf(std::vector<uint32_t> hostOf);
    /**
     * Gives each rank the transport this function makes (e.g. GpuClusterHelper::CreateTransport,
     * wired to its fabric); without one, each application creates a transport of its Transport
     * attribute's model.
     */
    void SetTransportFactory(std::function<Ptr<CommTransport>(uint32_t rank)> factory);
    /**
     * Writes a Chrome trace JSON timeline of the run to \p path (by GetReport(), and only if
     * every rank finished without an error).
     */
    void EnableTimeline(const std::string& path);
    /**
     * Puts this job's events on a timeline several jobs share (ClusterScenario::RunJobs): rank
     * r's under process \p timelineRanks[r] (its GPU), named "job NAME rank r", on the
     * simulation's clock. The owner closes it (GetReport does not) and sets its processes.
     */
    void ShareTimeline(std::shared_ptr<TimelineWriter> timeline,
                       std::vector<uint32_t> timelineRanks,
                       const std::string& jobName);
    /**
     * Reads the members of numbered communicators from \p path (ASTRA-sim's
     * --comm-group-configuration format, see CommGroupFile). Default: <prefix>.comm-groups.json
     * when it exists beside the traces; "" reads none.
     */
    void SetCommGroupFile(const std::string& path);

    /**
     * Installs one application per node (rank = index in \p nodes); in a distributed (MPI)
     * run, on the nodes this process simulates only (their system id).
     * \throws TraceError if a rank's trace does not exist, or the comm-groups file is wrong
     */
    ApplicationContainer Install(NodeContainer nodes);

    /**
     * \return the trace path of a rank ("<prefix>.<rank>.et", or .et.gz if only that exists;
     *         with a manifest <prefix>.roles.json, after Install, its role's trace)
     */
    std::string GetTracePath(uint32_t rank) const;

    /** \return the applications, by rank (in a distributed run: this process's ranks) */
    const std::vector<Ptr<ChakraApplication>>& GetApplications() const;

    /**
     * Gathers every rank's results (call after Simulator::Run) and closes the timeline: it is
     * written if every rank of the job finished without an error, dropped otherwise.
     * \return the report
     */
    ChakraReport GetReport();

    /** \return the comm-groups file the applications use ("" if none) */
    std::string GetCommGroupFile() const;

    /**
     * Without a world_size in any trace's metadata (ASTRA-sim's traces have none), is the
     * number of trace files the job's? The ranks the traces named while they ran (process
     * group and comm-groups file members, send and receive peers, roots) are the evidence:
     * a named rank without a trace is an error the run already stopped on; ranks past the
     * highest named get a warning (files of another job?), and a job that communicates
     * without naming any rank gets a warning that the check could not be made. The warning
     * goes to \p report (ChakraReport::AddWarning; in a distributed run, on process 0).
     */
    void CheckJobSize(ChakraReport& report) const;

  private:
    std::string m_prefix;
    ObjectFactory m_factory;
    std::vector<Ipv4Address> m_addresses;
    std::vector<uint32_t> m_hostOf;
    std::function<Ptr<CommTransport>(uint32_t)> m_transportFactory;
    std::shared_ptr<TimelineWriter> m_timeline;
    bool m_timelineShared{false};               //!< ShareTimeline's: closed by its owner
    std::vector<uint32_t> m_timelineRanks;      //!< ShareTimeline's: per rank
    std::string m_jobName;                      //!< ShareTimeline's
    std::optional<std::string> m_commGroupFile; //!< as set (unset: look beside the traces)
    std::shared_ptr<const CommGroupFile> m_commGroups;
    uint32_t m_ranks{0};              //!< the job's ranks (Install)
    std::optional<RankRoles> m_roles; //!< traces per role (<prefix>.roles.json), if any
    std::vector<Ptr<ChakraApplication>> m_apps;
};

} // namespace ns3

#endif // CHAKRA_HELPER_H
