/*
 * ChakraReport: what a simulated run tells its user (text and CSV).
 */
#ifndef CHAKRA_REPORT_H
#define CHAKRA_REPORT_H

#include "chakra-application.h"

#include <ostream>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup chakra-application
 * \brief One collective call across the ranks that took part.
 */
struct CollectiveSummary
{
    std::string kind;      //!< ALL_REDUCE, ...
    std::string pg;        //!< process group
    uint64_t seq{0};       //!< call number on the process group
    uint64_t bytes{0};     //!< comm_size (per-rank input, see CollectiveRequest)
    uint64_t dataBytes{0}; //!< the size bandwidths are computed from (nccl-tests convention)
    uint32_t commSize{1};  //!< members
    uint32_t ranksSeen{0}; //!< members that reported it
    std::string algorithm; //!< algorithm used
    Time start;            //!< first member starts
    Time end;              //!< last member ends
    double algBwGBps{0};   //!< dataBytes / (end - start), GB/s (10^9 bytes/s)
    double busBwGBps{0};   //!< algbw x 2(n-1)/n (all-reduce) or (n-1)/n (others)
    double traceMicros{0}; //!< longest duration recorded in the traces (measured), 0 if none
};

/**
 * \ingroup chakra-application
 * \brief A table a part of the simulation adds to the report (e.g. the fabric's queues, pauses
 * and drops): printed after the collectives and written as <name>.csv.
 */
struct ReportTable
{
    std::string name;                           //!< file name stem and title ("fabric")
    std::vector<std::string> columns;           //!< column names
    std::vector<std::vector<std::string>> rows; //!< one cell per column
};

/**
 * Prints \p table with right-aligned columns as wide as their widest cell, at most \p maxRows
 * rows (the rest are named as in \p csvDirectory/<name>.csv, or how to get them when "").
 */
void PrintReportTable(std::ostream& os,
                      const ReportTable& table,
                      std::size_t maxRows,
                      const std::string& csvDirectory);
/**
 * Writes \p table as \p directory/<name>.csv (whole or not at all).
 * \throws TraceError if the file cannot be written
 */
void WriteReportTableCsv(const std::string& directory, const ReportTable& table);

/**
 * \ingroup chakra-application
 * \brief Per-rank totals and per-collective bandwidths of a run.
 */
/**
 * \ingroup chakra-application
 * \brief A training step's throughput: what the step's traces state (model FLOPs, tokens, the
 * GPU's peak) over the simulated iteration time.
 */
struct TrainingThroughput
{
    bool stated{false};              //!< the traces state a training step
    double tokensPerSecondPerGpu{0}; //!< tokens / iteration time / GPUs
    double tflopsPerGpu{0};          //!< model FLOPs / iteration time / GPUs, 10^12
    double mfu{0};                   //!< model FLOPs utilization: tflopsPerGpu / peak
};

/**
 * \ingroup chakra-application
 * \brief Where a step's time went, as fractions of the iteration time, averaged over the ranks.
 *
 * For each rank: its compute busy time, its exposed communication split by category
 * (RankStats::exposedByCategory), and the rest of the iteration, when it neither computed nor
 * communicated (waiting to start, or done before the slowest rank). A pipeline stage's bubble is
 * its exposed PP send/recv (waiting on its neighbour) plus such idle time.
 */
struct StepTimeSplit
{
    double compute{0};                                //!< compute busy / iteration
    std::array<double, kCommCategoryCount> exposed{}; //!< exposed, by CommCategory / iteration
    double idle{0};                                   //!< neither / iteration
};

class ChakraReport
{
  public:
    /** \return the mean time split over the ranks (all zero when the iteration took no time) */
    StepTimeSplit GetTimeSplit() const;
    /**
     * \return the step's throughput and MFU (Megatron-LM's convention: model FLOPs, no
     *         recompute, over the peak dense FLOP/s), when the traces state a training step
     */
    TrainingThroughput GetTrainingThroughput() const;
    /** Adds one rank's results (its records copied). */
    void AddRank(const RankStats& stats, const std::vector<CommRecord>& records);
    /**
     * Adds one rank's results, its records shared with the rank (no copy: a large run's
     * records are most of its memory at the end).
     */
    void AddRank(const RankStats& stats, std::shared_ptr<const std::vector<CommRecord>> records);

    /**
     * Names the transport model that ran (printed in the report's first lines).
     * \param model the model
     * \param why how it was chosen, when it was not named by the user ("" otherwise)
     */
    void SetTransportModel(const std::string& model, const std::string& why = "");
    /** \return the transport model that ran ("" if not set) */
    const std::string& GetTransportModel() const;
    /** Adds a table (printed and written as CSV). */
    void AddTable(ReportTable table);
    /** Adds a warning about the whole job (printed with the ranks' warnings). */
    void AddWarning(const std::string& warning);
    /** \return the warnings about the whole job */
    const std::vector<std::string>& GetWarnings() const;
    /** \return the tables added */
    const std::vector<ReportTable>& GetTables() const;

    /** \return true if every rank ran every node */
    bool AllFinished() const;
    /** \return the latest rank finish time (the simulated iteration time) */
    Time GetIterationTime() const;
    /** \return per-rank results, by rank */
    const std::vector<RankStats>& GetRanks() const;
    /** \return the collective calls, in start order */
    std::vector<CollectiveSummary> GetCollectives() const;
    /** \return every communication record of every rank, rank by rank */
    const CommRecordList& GetCommRecords() const;
    /**
     * \return one line on why the run failed (a tool's error line): the first rank's error,
     *         or how many ranks did not finish and what the first one waits for; "" if every
     *         rank finished
     */
    std::string DescribeFailure() const;
    /**
     * Prints what went wrong, the end of Print: each rank's error, what each unfinished rank
     * waits for, and the warnings.
     */
    void PrintProblems(std::ostream& os, std::size_t maxRows = 20) const;

    /**
     * Prints the report.
     * \param os where
     * \param maxRows at most this many rows per table (the CSV files have every row)
     * \param csvDirectory where the CSV files are written, named where rows are left out ("":
     *        none are, and the report says how to get them)
     */
    void Print(std::ostream& os,
               std::size_t maxRows = 20,
               const std::string& csvDirectory = "") const;
    /**
     * Prints the report without its heading and transport line (Print's first lines): a
     * job's part of a report of several (MultiJobReport), which says them once.
     */
    void PrintBody(std::ostream& os,
                   std::size_t maxRows = 20,
                   const std::string& csvDirectory = "") const;
    /**
     * Writes ranks.csv, collectives.csv and comm-ops.csv into \p directory (created if needed).
     * \throws TraceError if a file cannot be written
     */
    void WriteCsv(const std::string& directory) const;

    /** \param type collective name \param n members \return the bus-bandwidth factor */
    static double BusBandwidthFactor(const std::string& type, uint32_t n);

  private:
    /** Prints the training step's throughput line, when the traces state one. */
    void PrintTrainingStep(std::ostream& os) const;
    /** Prints the time split line. */
    void PrintTimeSplit(std::ostream& os) const;

    std::vector<RankStats> m_ranks;
    CommRecordList m_records;
    std::string m_transportModel;
    std::string m_transportChoice; //!< how the model was chosen (transport "auto")
    std::vector<ReportTable> m_tables;
    std::vector<std::string> m_warnings; //!< about the whole job
};

} // namespace ns3

#endif // CHAKRA_REPORT_H
