/*
 * ClusterScenario: the whole "build a cluster, install the ranks, run, report" sequence that
 * scenario scripts, tools, tests and benchmarks share.
 */
#ifndef CHAKRA_CLUSTER_SCENARIO_H
#define CHAKRA_CLUSTER_SCENARIO_H

#include "chakra-helper.h"
#include "gpu-cluster-helper.h"

#include "ns3/chakra-report.h"
#include "ns3/nstime.h"

#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace ns3
{

/**
 * \ingroup chakra
 * \brief Runs one simulation of per-rank traces on a GpuClusterHelper cluster.
 *
 * \code
 *   ClusterScenario scenario;
 *   scenario.GetCluster()->SetAttribute("Hosts", UintegerValue(2));
 *   scenario.SetAppAttribute("AllReduceAlgorithm", StringValue("ring"));
 *   ChakraReport report = scenario.Run("traces/step");
 * \endcode
 * Run() builds the cluster, installs one ChakraApplication per rank, runs the simulator to
 * the end (or StopTime), gathers the report and destroys the simulator, so a process can run
 * several scenarios one after the other.
 */
class ClusterScenario
{
  public:
    ClusterScenario();

    /** \return the cluster to configure (attributes) before Run() */
    Ptr<GpuClusterHelper> GetCluster() const;
    /** Sets an attribute of every ChakraApplication. */
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
        Time simulated;           //!< simulated time now
        uint64_t nodesDone{0};    //!< trace nodes finished, all ranks (this process's)
        uint64_t events{0};       //!< simulator events processed so far
        double wallSeconds{0};    //!< wall-clock seconds since the simulation started
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
     * \return a progress line: "simulated 1.234 ms, 1024 nodes done, 5000000 events, 2.51 M
     *         events/s, wall 2.0 s"
     */
    static std::string FormatProgress(const WallProgress& progress);

    /**
     * Runs the traces <prefix>.<rank>.et, one rank per GPU.
     * \return the report
     * \throws TraceError if a trace is missing; std::invalid_argument on a bad configuration
     */
    ChakraReport Run(const std::string& tracePrefix);

    /** \return the simulator events processed by the last Run */
    uint64_t GetEventCount() const;
    /** \return the wall-clock seconds of the last Run */
    double GetWallSeconds() const;

  private:
    void Progress();
    /** The wall-clock check: calls the hook when its interval has passed, then re-arms. */
    void WallProbe();

    Ptr<GpuClusterHelper> m_cluster;
    std::vector<std::pair<std::string, Ptr<AttributeValue>>> m_appAttributes;
    std::string m_timeline;
    Time m_stop;
    std::function<void(const std::vector<Ptr<ChakraApplication>>&)> m_beforeRun;
    Time m_progressInterval;
    Time m_nextProgress; //!< next simulated-time progress line (when WallProbe prints them)
    std::function<void(Time)> m_progress;
    double m_wallInterval{0};
    std::function<void(const WallProgress&)> m_wallHook;
    Time m_probeStep;           //!< simulated time between wall-clock checks (adapted)
    double m_runStart{0};       //!< wall-clock seconds (steady clock) at Simulator::Run
    double m_lastProbe{0};      //!< wall-clock seconds of the previous check
    double m_lastLine{0};       //!< wall-clock seconds of the previous progress line
    uint64_t m_lastLineEvents{0};
    uint64_t m_nodesDone{0};
    uint64_t m_events{0};
    double m_wallSeconds{0};
};

/**
 * \ingroup chakra
 * \brief The cluster and replay settings that command-line front ends expose, as strings and
 * numbers (defaults read from the attributes' defaults), applied to a ClusterScenario.
 */
struct ClusterOptions
{
    ClusterOptions();

    uint32_t hosts{0};       //!< 0: derived from the rank count
    uint32_t gpusPerHost{0}; //!< 0: 8 when the rank count is a multiple of 8, else all on one host
    std::string transport;   //!< transport model (tcp, ...)
    std::string topology;
    std::string nicBandwidth;
    std::string nicLatency;
    std::string nvLinkBandwidth;
    std::string nvLinkLatency;
    uint32_t spines{0};
    uint32_t hostsPerLeaf{0};
    double oversubscription{1.0};
    std::string topologyFile;     //!< YAML/JSON topology ("" = none): its values win
    std::string topologyDot;      //!< write the topology's Graphviz picture here ("" = no)
    uint32_t scaleUpDomain{0};    //!< GPUs per NVLink domain (0: a host)
    uint32_t hostsPerRailGroup{0};
    uint32_t leavesPerPod{0};
    uint32_t coreSwitches{0};
    double coreOversubscription{1.0};
    uint32_t fatTreeK{0};
    std::string torusDims;        //!< torus: "4x4x4"
    std::string torusBandwidth;
    std::string dimensions;       //!< multi-dim: "Ring:8:3600Gbps:250ns,..."
    uint32_t mtu{0};
    std::string algorithm{"auto"}; //!< for every collective type
    uint64_t chunkSize{0};
    double computeScale{1.0};
    std::string ctrlDeps{"auto"}; //!< auto, honour or ignore (ChakraApplication::CtrlDeps)
    std::string danglingDeps{"warn"};
    std::string timeline;   //!< "" = none
    double stopSeconds{0};  //!< 0 = run to the end

    /**
     * Resolves hosts x gpusPerHost for \p ranks (hosts or GPUs per host a topology file sets
     * are taken from it; a torus or multi-dim topology has its own GPU count) and configures
     * the scenario.
     * \param traces the traces' prefix, named in the error (may be empty)
     * \throws std::invalid_argument when the cluster cannot hold exactly \p ranks ranks
     */
    void Apply(ClusterScenario& scenario, uint32_t ranks, const std::string& traces = "");
};

/**
 * \return the number of ranks with a trace <prefix>.<rank>.et(.gz): 0 if there is none
 * \throws TraceError naming the missing ranks when the numbering has gaps or disagrees with the
 *         traces' world_size (see FindRankTraces)
 */
uint32_t CountTraceRanks(const std::string& prefix);

} // namespace ns3

#endif // CHAKRA_CLUSTER_SCENARIO_H
