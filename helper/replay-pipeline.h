/*
 * ReplayPipeline: from a job's per-rank PyTorch traces to a simulated run with validation
 * against the measured one (the library behind chakra_replay).
 */
#ifndef CHAKRA_REPLAY_PIPELINE_H
#define CHAKRA_REPLAY_PIPELINE_H

#include "cluster-job.h"
#include "cluster-scenario.h"
#include "multi-job-report.h"
#include "rank-trace-discovery.h"
#include "replay-validation.h"

#include "ns3/chakra-report.h"
#include "ns3/cluster-options.h"
#include "ns3/compute-profile-extract.h"
#include "ns3/job-options.h"

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace ns3
{

struct CollectiveCostFit;

/**
 * \ingroup chakra-helper
 * \brief Links and converts a job's traces, simulates it, and compares with the measurement.
 */
class ReplayPipeline
{
  public:
    /** \param outputDirectory where everything is written (created if needed) */
    explicit ReplayPipeline(std::string outputDirectory);

    /** Receives progress lines (default: none). */
    void SetProgress(std::function<void(const std::string&)> progress);
    /**
     * During Simulate, sends a line about every \p seconds of wall-clock time to the progress
     * receiver: ClusterScenario's wall-clock progress (simulated time, nodes done, events/s).
     * 0 (the default): none.
     */
    void SetWallClockProgress(double seconds);
    /** When each rank begins its replay. */
    enum class RankStart
    {
        /**
         * At its measured offset when every rank has a measured iteration and the ranks'
         * clocks are one (shared, or aligned by their collectives: MeasuredRun::HasCommonClock),
         * so that the replay and the measurement answer the same question; together otherwise.
         */
        AUTO,
        /**
         * At its measured offset (its iteration start minus the earliest rank's, on the clock
         * MeasuredRun aligns): ChakraApplication's StartOffset. Simulate refuses traces without
         * every rank's measured iteration.
         */
        MEASURED_OFFSETS,
        /** All together: the job without the measured start skew (a what-if). */
        TOGETHER,
    };
    /** Sets when the ranks begin (default: RankStart::AUTO). */
    void SetRankStart(RankStart start);
    /** SetRankStart(MEASURED_OFFSETS) if \p enable, else SetRankStart(TOGETHER). */
    void SetMeasuredOffsets(bool enable);
    /**
     * Strict (default: off): what would only be a warning about the input is an error. Prepare
     * refuses the ranks' warnings (CheckRankConsistency: communication without comm_size, a job
     * size the traces cannot confirm, different GPU models), and Simulate runs with
     * ChakraApplication::MissingCommSize = error.
     */
    void SetStrict(bool strict);
    /**
     * Replays what the measurement shows beyond the models (default: on). When the traces
     * carry measured collective calls, Simulate:
     * - adds each rank's measured rank-local delay after the calls whose members complete
     *   together (MeasuredRun::GetCallDelaysUs);
     * - runs once without software cost for the collectives, fits what the measured calls took
     *   beyond the simulated transfers (FitCollectiveCost), and reports the run with that cost
     *   (ChakraApplication's CollectiveOverhead and CollectiveOverheadRate). The validation
     *   shows the errors without it too.
     * Off: one run of the models alone.
     */
    void SetCalibration(bool enable);
    /**
     * Lets Simulate choose the NVLink bandwidth from the GPU the traces name (the .et
     * metadata "gpu_name", from Kineto's deviceProperties), see LookUpGpuLinks. For a GPU
     * it does not know, the options' bandwidth stays. Default: off (the options decide).
     */
    void SetNvLinkFromTrace(bool enable);

    /**
     * Links (when device traces exist) and converts every rank into <out>/et/trace.<r>.et,
     * checks that the ranks agree on their collectives, and records the measured iterations.
     * The job's size is what the traces say (Kineto's distributedInfo world_size, carried by
     * the linked trace, or the largest process group): a job of 8 ranks with 7 ranks' files
     * is an error naming the missing ranks. Traces that communicate without saying their
     * job's size get a warning (GetWarnings) that missing ranks could go unnoticed.
     * When ranks are linked (device traces given), writes <out>/profile.csv: the median
     * measured time of each GEMM op and shape over every linked rank (ComputeProfileExtractor),
     * the profile chakra_generator --workload llm --profile reads.
     * \param ranks the input files
     * \return the .et prefix
     * \throws TraceError on bad input, a job size other than the ranks found, or when the
     *         ranks disagree on their collectives or messages (the first mismatch in the
     *         message, all of them in <out>/consistency.txt)
     */
    std::string Prepare(const std::vector<RankTraceFiles>& ranks);

    /**
     * Simulates <prefix>.<r>.et on the cluster the options describe and, if every rank
     * finished without an error, writes report.txt, the CSVs, validation.csv and (with
     * options.timeline) the timeline into the output; a failed run writes none of them.
     * Measured collective times come from the .et files' start times and durations; measured
     * iterations from Prepare (none with ready .et files).
     * \return the report
     * \throws TraceError on bad input; std::invalid_argument when measured offsets are asked
     *         for without measured iterations
     */
    ChakraReport Simulate(const std::string& prefix, ClusterOptions options);

    /**
     * Runs the job of the last Simulate again, as its reported run (the same calibration,
     * measured start offsets and delays), beside other jobs on one cluster, and alone on the
     * same hosts for its slowdown (the others alone too with \p others.interference). The
     * cluster is the options Simulate used, with as many hosts as the jobs take (or the
     * options' hosts). If every job finished, writes <out>/jobs/: report.txt, jobs.csv, each
     * job's CSVs in job-NAME/, the fabric's tables (and timeline.json, every job's on one
     * clock, when Simulate wrote a timeline).
     * \param others the other jobs and their placement (chakra_replay --job)
     * \param name the replayed job's name in the report
     * \return the report of the shared run (alone times set)
     * \throws std::logic_error before a Simulate whose every rank finished;
     *         std::invalid_argument for jobs that do not fit or another job of this name;
     *         TraceError for a job without traces
     */
    MultiJobReport SimulateBeside(const JobOptions& others, const std::string& name = "replay");

    /**
     * Removes everything this pipeline wrote (the linked and converted traces, the reports)
     * and the directories it created, after an error: a failed run leaves no half of its
     * output. A consistency listing that an error names (Prepare) is kept.
     */
    void Discard();

    /**
     * Discards what the pipeline wrote when it goes out of scope, unless Keep() was called
     * first: a tool whose run ends in an error (an exception, a failed simulation) leaves no
     * half of its output.
     */
    class DiscardUnlessKept
    {
      public:
        /** \param pipeline the pipeline whose outputs are guarded */
        explicit DiscardUnlessKept(ReplayPipeline& pipeline);
        ~DiscardUnlessKept();
        DiscardUnlessKept(const DiscardUnlessKept&) = delete;
        DiscardUnlessKept& operator=(const DiscardUnlessKept&) = delete;
        /** The run succeeded: its outputs stay. */
        void Keep();

      private:
        ReplayPipeline& m_pipeline;
        bool m_keep{false};
    };

    /** \return the validation of the last Simulate (measurements from Prepare, if any) */
    const ReplayValidation& GetValidation() const;
    /** \return the compute profile Prepare wrote, or "" (no rank was linked) */
    const std::string& GetProfilePath() const;
    /** \return the rank-consistency summary lines of Prepare */
    const std::vector<std::string>& GetConsistencyNotes() const;
    /** \return what Simulate chose for the hardware and why (NVLink from the GPU, ...) */
    const std::vector<std::string>& GetHardwareNotes() const;
    /**
     * \return what may make the replay answer another question than the user's, found by
     *         Prepare and Simulate (a job size the traces do not give, ...): tools print them
     *         whatever the progress setting
     */
    const std::vector<std::string>& GetWarnings() const;

  private:
    void Say(const std::string& line) const;
    /** Creates \p path and its missing parents, remembering what it created (Discard). */
    void MakeDirectory(const std::string& path);
    /** Sets options.nvLinkBandwidth from the traces' GPU (if enabled) and notes why. */
    void ChooseNvLink(const std::string& prefix, ClusterOptions& options);

    // Prepare's steps.
    /**
     * Links (with a device trace) and converts one rank, and checks what the simulator would
     * refuse later.
     * \return the rank's .et file
     */
    std::string PrepareRank(const RankTraceFiles& files,
                            int64_t jobRanks,
                            const std::string& prefix);
    /** Links one rank's traces into <out>/linked and records its measured iteration. */
    std::string LinkRank(const RankTraceFiles& files, const std::string& where);
    /** Checks that the ranks agree on their communication (consistency.txt if they do not). */
    void CheckRanksAgree(const std::vector<std::string>& etFiles,
                         const std::string& prefix,
                         const std::vector<RankTraceFiles>& ranks);

    // Simulate's steps.
    struct RunPlan;
    /** The measured run: Prepare's iterations and the .et files' calls, on one clock. */
    MeasuredRun Measure(const std::string& prefix, uint32_t ranks) const;
    /** When the ranks begin (RankStart), and why. */
    void PlanRankStart(const MeasuredRun& measured, RunPlan& plan) const;
    /** The measured rank-local delays after collectives (none without calibration). */
    void PlanCallDelays(const MeasuredRun& measured, RunPlan& plan) const;
    /**
     * One simulation of the job alone (MakeReplayJob: its traces, attributes, per-rank
     * settings).
     * \param ranks its ranks
     * \param[out] describedCluster the cluster it ran on, in words
     */
    ChakraReport RunScenario(const ClusterJob& job,
                             ClusterOptions options,
                             uint32_t ranks,
                             std::string& describedCluster) const;
    /**
     * \return the replayed job as a ClusterJob: its traces, the application attributes and
     *         the per-rank settings (offsets, call delays) of a run with software cost \p cost
     */
    ClusterJob MakeReplayJob(const std::string& prefix,
                             const RunPlan& plan,
                             const CollectiveCostFit& cost) const;
    /** Writes a finished run's report.txt, CSVs and validation.csv into the output. */
    void WriteOutputs(const ChakraReport& report,
                      const ClusterOptions& options,
                      const std::string& describedCluster);

    std::string m_out;
    std::function<void(const std::string&)> m_progress;
    double m_wallProgress{0}; //!< seconds between wall-clock progress lines; 0: none
    RankStart m_rankStart{RankStart::AUTO};
    bool m_strict{false};
    bool m_nvLinkFromTrace{false};
    bool m_calibrate{true};
    std::map<uint32_t, MeasuredIteration> m_iterations; //!< from Prepare, by rank
    ComputeProfileExtractor m_profile;                  //!< GEMM times of the linked ranks
    std::string m_profilePath;                          //!< profile.csv, once written
    ReplayValidation m_validation;
    std::vector<std::string> m_consistency;
    std::vector<std::string> m_hardware;
    std::vector<std::string> m_warnings;
    std::optional<ClusterJob> m_replayJob; //!< the last Simulate's job, if every rank finished
    uint32_t m_replayRanks{0};             //!< its ranks
    ClusterOptions m_replayOptions;        //!< the options it ran with (NVLink chosen)
    std::vector<std::string> m_written;    //!< files and directories this pipeline made, in order
    std::string m_kept;                    //!< a file Discard keeps (the consistency listing)
};

} // namespace ns3

#endif // CHAKRA_REPLAY_PIPELINE_H
