/*
 * MultiJobReport: the results of several jobs run together on one cluster (issue 28).
 */
#ifndef CHAKRA_MULTI_JOB_REPORT_H
#define CHAKRA_MULTI_JOB_REPORT_H

#include "ns3/chakra-report.h"
#include "ns3/nstime.h"

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup chakra-helper
 * \brief Each job's own report (iteration, exposed communication, collectives), where it
 * ran, and the fabric's tables, which the jobs share.
 */
class MultiJobReport
{
  public:
    /** One job's part. */
    struct Job
    {
        std::string name;            //!< as given, or its number
        std::string tracePrefix;     //!< its traces
        Time start;                  //!< when its ranks started
        std::vector<uint32_t> hosts; //!< its hosts, in rank order
        std::vector<uint32_t> gpus;  //!< its ranks' GPUs (the fabric's ranks)
        ChakraReport report;         //!< its ranks only
        /** Its iteration time alone on the same hosts (SetAlone; --interference). */
        std::optional<Time> alone;
    };

    /** Adds a job's part. */
    void AddJob(Job job);
    /** Adds a table of the fabric (shared by the jobs). */
    void AddFabricTable(ReportTable table);
    /** Names the transport model that ran. */
    void SetTransportModel(const std::string& model, const std::string& why);
    /** Records job \p index's iteration time when it ran alone on the same hosts. */
    void SetAlone(std::size_t index, Time iteration);

    /** \return the jobs, in the order they were given */
    const std::vector<Job>& GetJobs() const;
    /** \return the fabric's tables */
    const std::vector<ReportTable>& GetFabricTables() const;
    /** \return true if every rank of every job ran its whole trace */
    bool AllFinished() const;
    /** \return the first job's failure line ("job NAME: ..."), "" if every job finished */
    std::string DescribeFailure() const;
    /**
     * \return the slowdown of job \p index next to the others: its iteration time here over
     *         its time alone (0 when it was not run alone or took no time)
     */
    double GetSlowdown(std::size_t index) const;

    /**
     * Prints the jobs and their placement, then each job's report under "== job NAME", then
     * the fabric's tables.
     */
    void Print(std::ostream& os,
               std::size_t maxRows = 20,
               const std::string& csvDirectory = "") const;
    /**
     * Writes jobs.csv (one row per job), each job's CSV files into \p directory/job-NAME/ and
     * the fabric's tables into \p directory.
     * \throws TraceError if a file cannot be written
     */
    void WriteCsv(const std::string& directory) const;

  private:
    /**
     * \return the jobs table: for print (short host lists, "unfinished", the alone columns
     *         only when a job has one), or for jobs.csv (every host, a finished column, every
     *         column always, slowdowns to 6 digits)
     */
    ReportTable JobsTable(bool forCsv) const;

    std::vector<Job> m_jobs;
    std::vector<ReportTable> m_fabric;
    std::string m_transportModel;
    std::string m_transportChoice;
};

} // namespace ns3

#endif // CHAKRA_MULTI_JOB_REPORT_H
