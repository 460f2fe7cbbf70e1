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

void
MultiJobReport::Print(std::ostream& os, std::size_t maxRows, const std::string& csvDirectory) const
{
    os << "== chakra simulation report: " << m_jobs.size() << " jobs on one cluster\n";
    if (!m_transportModel.empty())
    {
        os << "transport model: " << m_transportModel
           << (m_transportChoice.empty() ? "" : " (" + m_transportChoice + ")") << "\n";
    }
    ReportTable jobs;
    jobs.name = "jobs";
    jobs.columns = {"job", "traces", "ranks", "hosts", "start_us", "iteration_us"};
    const bool alone = std::any_of(m_jobs.begin(), m_jobs.end(), [](const Job& job) {
        return job.alone.has_value();
    });
    if (alone)
    {
        jobs.columns.insert(jobs.columns.end(), {"alone_us", "slowdown"});
    }
    for (std::size_t k = 0; k < m_jobs.size(); ++k)
    {
        const Job& job = m_jobs[k];
        std::vector<std::string> row{
            job.name,
            job.tracePrefix,
            std::to_string(job.gpus.size()),
            ShortHostList(job.hosts),
            FormatMicros(job.start),
            job.report.AllFinished() ? FormatMicros(job.report.GetIterationTime()) : "unfinished"};
        if (alone)
        {
            row.push_back(job.alone ? FormatMicros(*job.alone) : "-");
            row.push_back(GetSlowdown(k) > 0 ? FormatFixed(GetSlowdown(k), 3) : "-");
        }
        jobs.rows.push_back(std::move(row));
    }
    // Every job, whatever --rows says of the long tables: this is the run's summary.
    PrintReportTable(os, jobs, jobs.rows.size(), csvDirectory);
    for (const Job& job : m_jobs)
    {
        os << "\n== job " << job.name << ": " << job.tracePrefix << ", " << job.gpus.size()
           << " ranks on host(s) " << ShortHostList(job.hosts) << ", start "
           << FormatMicros(job.start) << " us\n";
        job.report.Print(os,
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
    ReportTable jobs;
    jobs.name = "jobs";
    jobs.columns = {"job",
                    "traces",
                    "ranks",
                    "hosts",
                    "start_us",
                    "finished",
                    "iteration_us",
                    "alone_us",
                    "slowdown"};
    for (std::size_t k = 0; k < m_jobs.size(); ++k)
    {
        const Job& job = m_jobs[k];
        jobs.rows.push_back({job.name,
                             job.tracePrefix,
                             std::to_string(job.gpus.size()),
                             FormatHostList(job.hosts),
                             FormatMicros(job.start),
                             job.report.AllFinished() ? "1" : "0",
                             FormatMicros(job.report.GetIterationTime()),
                             job.alone ? FormatMicros(*job.alone) : "",
                             GetSlowdown(k) > 0 ? FormatFixed(GetSlowdown(k), 6) : ""});
        job.report.WriteCsv(directory + "/job-" + job.name);
    }
    WriteReportTableCsv(directory, jobs);
    for (const ReportTable& table : m_fabric)
    {
        WriteReportTableCsv(directory, table);
    }
}

} // namespace ns3
