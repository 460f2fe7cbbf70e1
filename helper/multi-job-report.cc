#include "multi-job-report.h"

#include "job-placement.h"

#include "ns3/text-format.h"
#include "ns3/trace-file.h"

#include <algorithm>
#include <iomanip>
#include <sys/stat.h>

namespace ns3
{

namespace
{

/** \return the hosts as FormatHostList writes them, cut after about 40 characters (a spread
 *  job of 128 hosts is a line of 500): the CSV files have the whole list */
std::string
ShortHostList(const std::vector<uint32_t>& hosts)
{
    const std::string all = FormatHostList(hosts);
    if (all.size() <= 48)
    {
        return all;
    }
    const auto cut = all.rfind('+', 40);
    return all.substr(0, cut) + "+... (" + std::to_string(hosts.size()) + " hosts)";
}

} // namespace

void
MultiJobReport::AddJob(Job job)
{
    m_jobs.push_back(std::move(job));
}

void
MultiJobReport::AddFabricTable(ReportTable table)
{
    m_fabric.push_back(std::move(table));
}

void
MultiJobReport::SetTransportModel(const std::string& model, const std::string& why)
{
    m_transportModel = model;
    m_transportChoice = why;
}

void
MultiJobReport::SetAlone(std::size_t index, Time iteration)
{
    m_jobs.at(index).alone = iteration;
}

const std::vector<MultiJobReport::Job>&
MultiJobReport::GetJobs() const
{
    return m_jobs;
}

const std::vector<ReportTable>&
MultiJobReport::GetFabricTables() const
{
    return m_fabric;
}

bool
MultiJobReport::AllFinished() const
{
    for (const Job& job : m_jobs)
    {
        if (!job.report.AllFinished())
        {
            return false;
        }
    }
    return true;
}

std::string
MultiJobReport::DescribeFailure() const
{
    for (const Job& job : m_jobs)
    {
        if (!job.report.AllFinished())
        {
            return "job " + job.name + ": " + job.report.DescribeFailure();
        }
    }
    return "";
}

double
MultiJobReport::GetSlowdown(std::size_t index) const
{
    const Job& job = m_jobs.at(index);
    if (!job.alone || !job.alone->IsStrictlyPositive())
    {
        return 0;
    }
    return job.report.GetIterationTime().GetSeconds() / job.alone->GetSeconds();
}

ReportTable
MultiJobReport::JobsTable(bool forCsv) const
{
    ReportTable jobs;
    jobs.name = "jobs";
    jobs.columns = {"job", "traces", "ranks", "hosts", "start_us"};
    if (forCsv)
    {
        jobs.columns.push_back("finished");
    }
    jobs.columns.push_back("iteration_us");
    const bool alone = forCsv || std::any_of(m_jobs.begin(), m_jobs.end(), [](const Job& job) {
                           return job.alone.has_value();
                       });
    if (alone)
    {
        jobs.columns.insert(jobs.columns.end(), {"alone_us", "slowdown"});
    }
    const std::string none = forCsv ? "" : "-";
    for (std::size_t k = 0; k < m_jobs.size(); ++k)
    {
        const Job& job = m_jobs[k];
        const bool finished = job.report.AllFinished();
        std::vector<std::string> row{job.name,
                                     job.tracePrefix,
                                     std::to_string(job.gpus.size()),
                                     forCsv ? FormatHostList(job.hosts) : ShortHostList(job.hosts),
                                     FormatMicros(job.start)};
        if (forCsv)
        {
            row.push_back(finished ? "1" : "0");
        }
        row.push_back(finished || forCsv ? FormatMicros(job.report.GetIterationTime())
                                         : "unfinished");
        if (alone)
        {
            row.push_back(job.alone ? FormatMicros(*job.alone) : none);
            row.push_back(GetSlowdown(k) > 0 ? FormatFixed(GetSlowdown(k), forCsv ? 6 : 3) : none);
        }
        jobs.rows.push_back(std::move(row));
    }
    return jobs;
}

void
MultiJobReport::Print(std::ostream& os, std::size_t maxRows, const std::string& csvDirectory) const
{
    os << "== chakra simulation report: " << m_jobs.size() << " jobs on one cluster\n";
    if (!m_transportModel.empty())
    {
        os << "transport model: " << m_transportModel
           << (m_transportChoice.empty() ? "" : " (" + m_transportChoice + ")") << "\n";
    }
    const ReportTable jobs = JobsTable(false);
    // Every job, whatever --rows says of the long tables: this is the run's summary.
    PrintReportTable(os, jobs, jobs.rows.size(), csvDirectory);
    for (const Job& job : m_jobs)
    {
        os << "\n== job " << job.name << ": " << job.tracePrefix << ", " << job.gpus.size()
           << " ranks on host(s) " << ShortHostList(job.hosts) << ", start "
           << FormatMicros(job.start) << " us\n";
        job.report.PrintBody(os,
                             maxRows,
                             csvDirectory.empty() ? "" : csvDirectory + "/job-" + job.name);
    }
    for (const ReportTable& table : m_fabric)
    {
        PrintReportTable(os, table, maxRows, csvDirectory);
    }
}

void
MultiJobReport::WriteCsv(const std::string& directory) const
{
    mkdir(directory.c_str(), 0777);
    for (const Job& job : m_jobs)
    {
        job.report.WriteCsv(directory + "/job-" + job.name);
    }
    const ReportTable jobs = JobsTable(true);
    WriteReportTableCsv(directory, jobs);
    for (const ReportTable& table : m_fabric)
    {
        WriteReportTableCsv(directory, table);
    }
}

} // namespace ns3
