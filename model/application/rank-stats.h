/*
 * RankStats and RankStatsRecorder: what one rank's replay reports.
 */
#ifndef CHAKRA_RANK_STATS_H
#define CHAKRA_RANK_STATS_H

#include "comm-category.h"
#include "comm-record.h"

#include "ns3/nstime.h"

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace ns3
{

/**
 * \ingroup chakra-application
 * \brief Per-rank totals (for the report).
 */
struct RankStats
{
    uint32_t rank{0};
    bool finished{false}; //!< every node ran
    Time finishTime;      //!< last node's end (relative to replay start)
    Time computeBusy;     //!< union of compute intervals
    Time commTime;        //!< union of communication intervals
    Time exposedComm;     //!< communication not overlapped by compute
    /**
     * exposedComm split by what the communication serves (indexed by CommCategory): each
     * instant of exposed communication counted once, for the first category in CommCategory's
     * order that was communicating then; the entries sum to exposedComm.
     */
    std::array<Time, kCommCategoryCount> exposedByCategory{};
    uint64_t nodes{0}; //!< nodes run
    /**
     * Point-to-point operations that completed without a CommRecord kept for them
     * (ChakraApplication's CommRecords = collectives): counted, so that the report's total
     * stays whole.
     */
    uint64_t unrecordedP2p{0};
    std::vector<std::string> stuck; //!< what an unfinished rank waits for
    std::string error;              //!< a fatal trace error, if any
    std::vector<std::string> warnings;
    /**
     * The training step the trace states in its metadata (chakra_generator --workload llm):
     * model FLOPs and tokens of the whole step, the GPU's peak FLOP/s; 0 when not stated.
     */
    double stepModelFlops{0};
    uint64_t stepTokens{0}; //!< tokens of the whole step
    double gpuPeakFlops{0}; //!< peak FLOP/s of one GPU at the step's precision
};

/**
 * \ingroup chakra-application
 * \brief Collects what a rank's replay reports as it runs: busy intervals, communication
 * records, warnings, its error, its finish; and sums them up into RankStats.
 *
 * Compute and communication time are unions of intervals (overlapping kernels on two streams
 * count once), and exposed communication is the part of the communication union that no
 * compute interval covers. The exposed part is split by category: an instant when, say, a
 * tensor-parallel all-reduce and a data-parallel reduce-scatter both run with no compute is
 * tensor-parallel time, since the compute stream waits on that one.
 */
class RankStatsRecorder
{
  public:
    /** \param rank the rank reported */
    void SetRank(uint32_t rank);
    /**
     * The training step the trace's metadata states (see RankStats::stepModelFlops).
     * \param modelFlops model FLOPs of the step
     * \param tokens tokens of the step
     * \param gpuPeakFlops peak FLOP/s of one GPU
     */
    void SetTrainingStep(double modelFlops, uint64_t tokens, double gpuPeakFlops);
    /** A node ran from \p start to \p end (relative to the replay start). */
    void AddCompute(Time start, Time end);
    /**
     * A communication node ran from \p start to \p end (relative to the replay start).
     * \param start issued
     * \param end completed
     * \param category what it serves (ClassifyCommunication)
     */
    void AddCommunication(Time start, Time end, CommCategory category);
    /** One more node ran. */
    void CountNode();
    /** A communication operation completed on this rank. */
    void AddCommRecord(const CommRecord& record);
    /** Counts a point-to-point operation whose record is not kept (RankStats::unrecordedP2p). */
    void CountUnrecordedP2p();
    /** \return true if a communication operation completed (recorded or counted) */
    bool HasCommunicated() const;
    /** \return the communication operations, in completion order */
    const std::vector<CommRecord>& GetCommRecords() const;
    /**
     * \return the same records, shared (a report keeps them without a copy; they are final
     *         once the simulation has ended)
     */
    std::shared_ptr<const std::vector<CommRecord>> ShareCommRecords() const;
    /** \param message a warning, in the order given */
    void AddWarning(const std::string& message);
    /** \param message the rank's fatal error */
    void SetError(const std::string& message);
    /** \return the rank's fatal error ("" if none) */
    const std::string& GetError() const;
    /** Every node ran; the last ended at \p time (relative to the replay start). */
    void SetFinished(Time time);
    /**
     * A communication node ran without comm_size (as 0 bytes): counted, and the first few
     * named, for one warning per trace.
     */
    void AddSizelessNode(uint64_t nodeId);

    /**
     * \param tracePath the trace named in the warning on nodes without comm_size
     * \return the totals so far (stuck lines are the caller's)
     */
    RankStats Summarize(const std::string& tracePath) const;

  private:
    RankStats m_stats;
    std::vector<std::pair<Time, Time>> m_computeIntervals;
    /** Communication intervals, by CommCategory. */
    std::array<std::vector<std::pair<Time, Time>>, kCommCategoryCount> m_commIntervals;
    /** Shared with the report (ShareCommRecords). */
    std::shared_ptr<std::vector<CommRecord>> m_commRecords{
        std::make_shared<std::vector<CommRecord>>()};
    uint64_t m_sizelessNodes{0};         //!< communication nodes run without comm_size
    std::vector<uint64_t> m_sizelessIds; //!< the first of them (for the warning)
};

} // namespace ns3

#endif // CHAKRA_RANK_STATS_H
