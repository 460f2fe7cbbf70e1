/*
 * ReplayPipeline: from a job's per-rank PyTorch traces to a simulated run with validation
 * against the measured one (the library behind chakra_replay).
 */
#ifndef CHAKRA_REPLAY_PIPELINE_H
#define CHAKRA_REPLAY_PIPELINE_H

#include "cluster-scenario.h"

#include "ns3/chakra-report.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup chakra
 * \brief One rank's input files.
 */
struct RankTraceFiles
{
    uint32_t rank{0};
    std::string host;   //!< host execution trace
    std::string device; //!< Kineto (or legacy profiler) trace; "" for host-only jobs
};

/**
 * Finds the per-rank traces of a job in a directory: every *.json / *.json.gz file is a host
 * execution trace or a device trace (told apart by content), and its rank is the first number
 * in its name, unless patterns are given ("dlrm_eg_{rank}.json.gz"; '*' matches anything).
 * \param directory the directory
 * \param hostPattern pattern of host trace names ("" = detect)
 * \param devicePattern pattern of device trace names ("" = detect)
 * \return the files by rank, ranks 0..n-1 (device empty for a host-only job)
 * \throws TraceError when ranks are missing, duplicated, or only some have a device trace
 */
std::vector<RankTraceFiles> DiscoverRankTraces(const std::string& directory,
                                               const std::string& hostPattern = "",
                                               const std::string& devicePattern = "");

/**
 * \ingroup chakra
 * \brief The simulated run beside the measured one.
 */
struct ReplayValidation
{
    /** Measured iteration (Kineto ProfilerStep span, else the linked ops' span), longest rank. */
    double measuredIterationUs{0};
    std::string measuredIterationName;  //!< "ProfilerStep#10", or "" for the span
    double simulatedIterationUs{0};     //!< latest rank finish
    std::vector<double> measuredRankUs;  //!< measured iteration of each rank (0: unknown)
    std::vector<double> simulatedRankUs; //!< simulated finish of each rank
    /** One collective call: simulated span across ranks vs longest measured kernel. */
    struct Collective
    {
        std::string kind;
        std::string pg;
        uint64_t seq{0};
        uint64_t bytes{0};
        double simulatedUs{0};
        double measuredUs{0}; //!< 0: no measurement (host-only traces)
    };
    std::vector<Collective> collectives;

    /** \return (simulated - measured) / measured for the iteration, or nullopt */
    std::optional<double> IterationError() const;
    /** Prints the comparison. */
    void Print(std::ostream& os, std::size_t maxRows = 20) const;
    /** Writes validation.csv. \throws TraceError on a write error */
    void WriteCsv(const std::string& path) const;
};

/**
 * \ingroup chakra
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
     * Links (when device traces exist) and converts every rank into <out>/et/trace.<r>.et,
     * checks that the ranks agree on their collectives, and records the measured timings.
     * \param ranks the input files
     * \return the .et prefix
     * \throws TraceError on bad input
     */
    std::string Prepare(const std::vector<RankTraceFiles>& ranks);

    /**
     * Simulates <prefix>.<r>.et on the cluster the options describe and writes report.txt,
     * the CSVs, validation.csv and (with options.timeline) the timeline into the output.
     * \return the report
     */
    ChakraReport Simulate(const std::string& prefix, ClusterOptions options);

    /** \return the validation of the last Simulate (measurements from Prepare, if any) */
    const ReplayValidation& GetValidation() const;
    /** \return the rank-consistency summary lines of Prepare */
    const std::vector<std::string>& GetConsistencyNotes() const;

  private:
    void Say(const std::string& line) const;

    std::string m_out;
    std::function<void(const std::string&)> m_progress;
    ReplayValidation m_validation;
    std::vector<std::string> m_consistency;
};

} // namespace ns3

#endif // CHAKRA_REPLAY_PIPELINE_H
