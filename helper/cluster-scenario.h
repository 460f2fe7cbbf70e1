/*
 * ClusterScenario: the whole "build a cluster, install the ranks, run, report" sequence that
 * scenario scripts, tools, tests and benchmarks share.
 */
#ifndef CHAKRA_CLUSTER_SCENARIO_H
#define CHAKRA_CLUSTER_SCENARIO_H

#include "chakra-helper.h"
#include "cluster-job.h"
#include "gpu-cluster-helper.h"
#include "job-placement.h"
#include "multi-job-report.h"

#include "ns3/chakra-report.h"
#include "ns3/nstime.h"

#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace ns3
{

/**
 * Sets the default of \p attribute of \p typeName to \p value unless the user changed it
 * (Config::SetDefault, a --ns3::Type::Attribute flag): its initial value is still the one the
 * TypeId was registered with, or the one an earlier call of this process set (a later scenario
 * of a sweep or a test takes its own cluster's value). Unknown names: nothing.
 */
void SetDefaultUnlessGiven(const std::string& typeName,
                           const std::string& attribute,
                           const AttributeValue& value);

/**
 * Gives the NCCL model (ns3::NcclCollective) the cluster's machine, unless the user set it:
 * NicBandwidth, NvLinkBandwidth, Nvls (the cluster's NvlsSupport), Sharp (its SharpSupport),
 * each through SetDefaultUnlessGiven. A ClusterScenario does it when it builds its cluster.
 */
void SetNcclDefaultsFromCluster(const GpuClusterHelper& cluster);

/**
 * \ingroup chakra-helper
 * \brief Runs one simulation of per-rank traces on a GpuClusterHelper cluster.
 *
 * \code
 *   ClusterScenario scenario;
 *   scenario.SetClusterAttribute("Hosts", UintegerValue(2));            // 2 x 8 GPUs: a
 *   scenario.SetAppAttribute("AllReduceAlgorithm", StringValue("ring")); // 16-rank job
 *   try
 *   {
 *       ChakraReport report = scenario.Run("traces/step");
 *       report.Print(std::cout);
 *       return report.AllFinished() ? 0 : 1;
 *   }
 *   catch (const std::exception& e) // a configuration that cannot run: what to change
 *   {
 *       std::cerr << "error: " << e.what() << std::endl;
 *       return 1;
 *   }
 * \endcode
 * Run() builds the cluster, installs one ChakraApplication per rank, runs the simulator to
 * the end (or StopTime), gathers the report and destroys the simulator, so a process can run
 * several scenarios one after the other. Use it for ready traces on a GpuClusterHelper
 * cluster; use ChakraHelper directly on nodes a script builds itself (doc/chakra.md, "Quick
 * start").
 */
class ClusterScenario
{
  public:
    ClusterScenario();

    /** \return the cluster to configure (attributes) before Run() */
    Ptr<GpuClusterHelper> GetCluster() const;
    /**
     * Sets an attribute of the cluster, or a parameter of its chosen topology family (Spines,
     * LeavesPerPod: GpuClusterHelper::SetTopologyAttribute; choose the family first), checked
     * as SetAppAttribute checks (ns-3's own SetAttribute ends the program with NS_FATAL_ERROR
     * on a value it refuses).
     * \throws std::invalid_argument for an unknown attribute or a value it refuses (with the
     *         valid values)
     */
    void SetClusterAttribute(const std::string& name, const AttributeValue& value);
    /**
     * Sets an attribute of every ChakraApplication.
     * \throws std::invalid_argument for an unknown attribute or a value it refuses (with the
     *         valid values)
     */
    void SetAppAttribute(const std::string& name, const AttributeValue& value);
    /** Writes a Chrome trace JSON timeline. */
    void SetTimeline(const std::string& path);
    /** Stops the simulation at this simulated time (zero: run to the end). */
    void SetStopTime(Time stop);
    /** Called with the applications after installation, before the simulation runs. */
    void SetBeforeRun(std::function<void(const std::vector<Ptr<ChakraApplication>>&)> hook);
    /** Called every \p interval of simulated time during the run (progress display). */
    void SetProgress(Time interval, std::function<void(Time)> hook);

    /** Where a run stands, for progress lines. */
    struct WallProgress
    {
        Time simulated;         //!< simulated time now
        uint64_t nodesDone{0};  //!< trace nodes finished, all ranks (this process's)
        uint64_t nodesTotal{0}; //!< nodes of those ranks' traces (counted before the run)
        /** Wall-clock seconds left, estimated from the nodes done so far at the speed so far;
         *  negative: no estimate yet. */
        double secondsLeft{-1};
        uint64_t events{0};        //!< simulator events processed so far
        double wallSeconds{0};     //!< wall-clock seconds since the simulation started
        double eventsPerSecond{0}; //!< events per wall-clock second since the previous line
    };

    /**
     * Calls \p hook about every \p seconds of wall-clock time while the simulation runs (long
     * runs' progress display); 0 or no hook: never. The check is an event on simulated time
     * whose spacing adapts to the simulation's speed (ns-3 has no wall-clock events): it reads
     * nothing and changes nothing in the model, so simulated results do not depend on it.
     */
    void SetWallClockProgress(double seconds, std::function<void(const WallProgress&)> hook);
    /**
     * \return a progress line: "simulated 1.234 ms, 1024/4096 nodes done (25%), 5000000 events,
     *         2.51 M events/s, wall 2.0 s, about 6 s left"
     */
    static std::string FormatProgress(const WallProgress& progress);

    /**
     * Runs the traces <prefix>.<rank>.et, one rank per GPU.
     * \return the report
     * \throws TraceError if a trace is missing; std::invalid_argument on a bad configuration
     *         (one that cannot run: the message says what to change), e.g. a cluster with
     *         another number of GPUs than the traces have ranks
     */
    ChakraReport Run(const std::string& tracePrefix);

    /**
     * Adds a job to run with the others on this cluster (RunJobs): several jobs share the
     * links and switches, each on its own hosts with its own ranks, communicators and report.
     * \throws std::invalid_argument for a job without traces' prefix, a name another job has,
     *         a negative start, or an application attribute it refuses (with the valid values)
     */
    void AddJob(ClusterJob job);
    /**
     * How jobs without explicit hosts are placed (default: contiguous), and the seed of the
     * random policy.
     */
    void SetPlacement(JobPlacementPolicy policy, uint32_t seed = 1);
    /**
     * \return each job's GPUs (the fabric's ranks, by job rank) on the cluster as configured:
     *         where RunJobs will run them (a check before the run, or a picture)
     * \throws TraceError for a job without traces; std::invalid_argument naming the job when
     *         they do not fit (see PlaceJobs)
     */
    std::vector<std::vector<uint32_t>> GetPlacement() const;
    /**
     * Runs every job added (AddJob) together: places them on whole hosts (PlaceJobs), installs
     * each job's ranks on its GPUs, runs the simulation once and reports each job apart.
     * With a timeline (SetTimeline), one file of every job's ranks, each under its GPU. In a
     * distributed (MPI) run, every process places the jobs alike and runs the ranks its nodes
     * hold; the jobs' reports are complete on process 0 (GatherReport).
     * \return the report
     * \throws TraceError if a trace is missing; std::invalid_argument on a bad configuration
     *         (no jobs, a job that does not fit: before anything runs; a second simulation in
     *         an MPI process)
     */
    MultiJobReport RunJobs();

    /** \return the simulator events processed by the last Run */
    uint64_t GetEventCount() const;
    /** \return the wall-clock seconds of the last Run */
    double GetWallSeconds() const;

  private:
    /**
     * Refuses a second simulation in a process of a distributed (MPI) run, which ns-3 3.37
     * cannot run (its MPI interface frees its buffers when the first ends).
     * \throws std::invalid_argument on the second call while MPI is enabled
     */
    static void CheckOneDistributedSimulation();
    // Run's steps.
    /** Refuses a cluster with another number of GPUs than the traces have ranks. */
    void CheckRankCount(const std::string& tracePrefix) const;
    /** Builds the cluster on a fresh simulator (PurgingRadixScheduler unless --SchedulerType
     *  names another event list). */
    void BuildCluster();
    /** Installs one ChakraApplication per rank, with the applications' attributes. */
    void InstallApplications(ChakraHelper& chakra);
    /** Schedules the simulated-time or wall-clock progress events (none under MPI). */
    void ScheduleProgress(const std::vector<Ptr<ChakraApplication>>& apps);
    /** Counts the traces' nodes (the progress lines' total) and follows the nodes done. */
    void CountNodes(const std::vector<Ptr<ChakraApplication>>& apps);
    /** \return what each job asks of the cluster (its traces counted) */
    std::vector<JobRequest> GetJobRequests() const;
    /** The run itself, after installation: the hooks, the stop time, Simulator::Run. */
    void Simulate(const std::vector<Ptr<ChakraApplication>>& apps);

    void Progress();
    /** The wall-clock check: calls the hook when its interval has passed, then re-arms. */
    void WallProbe();

    Ptr<GpuClusterHelper> m_cluster;
    std::vector<ClusterJob> m_jobs; //!< AddJob
    JobPlacementPolicy m_placement{JobPlacementPolicy::CONTIGUOUS};
    uint32_t m_placementSeed{1};
    std::vector<std::pair<std::string, Ptr<AttributeValue>>> m_appAttributes;
    std::string m_timeline;
    Time m_stop;
    std::function<void(const std::vector<Ptr<ChakraApplication>>&)> m_beforeRun;
    Time m_progressInterval;
    Time m_nextProgress; //!< next simulated-time progress line (when WallProbe prints them)
    std::function<void(Time)> m_progress;
    double m_wallInterval{0};
    std::function<void(const WallProgress&)> m_wallHook;
    Time m_probeStep;      //!< simulated time between wall-clock checks (adapted)
    double m_runStart{0};  //!< wall-clock seconds (steady clock) at Simulator::Run
    double m_lastProbe{0}; //!< wall-clock seconds of the previous check
    double m_lastLine{0};  //!< wall-clock seconds of the previous progress line
    uint64_t m_lastLineEvents{0};
    uint64_t m_nodesDone{0};
    uint64_t m_nodesTotal{0}; //!< nodes of the traces this process runs (wall-clock progress)
    uint64_t m_events{0};
    double m_wallSeconds{0};
};

/**
 * \return the number of ranks with a trace <prefix>.<rank>.et(.gz): 0 if there is none
 * \throws TraceError naming the missing ranks when the numbering has gaps or disagrees with the
 *         traces' world_size (see FindRankTraces)
 */
uint32_t CountTraceRanks(const std::string& prefix);

} // namespace ns3

#endif // CHAKRA_CLUSTER_SCENARIO_H
