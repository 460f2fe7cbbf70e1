#include "chakra-report.h"

#include "text-format.h"

#include "ns3/log.h"
#include "ns3/trace-error.h"
#include "ns3/trace-file.h"

#include <algorithm>
#include <iomanip>
#include <map>
#include <sstream>
#include <sys/stat.h>
#include <tuple>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("ChakraReport");

namespace
{

/** CSV field: quoted when it holds a comma, quote or newline. */
std::string
Csv(const std::string& text)
{
    if (text.find_first_of(",\"\n") == std::string::npos)
    {
        return text;
    }
    std::string quoted = "\"";
    for (char c : text)
    {
        quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
    }
    return quoted + "\"";
}

} // namespace

void
ChakraReport::AddRank(const RankStats& stats, const std::vector<CommRecord>& records)
{
    AddRank(stats, std::make_shared<const std::vector<CommRecord>>(records));
}

void
ChakraReport::AddRank(const RankStats& stats,
                      std::shared_ptr<const std::vector<CommRecord>> records)
{
    NS_LOG_FUNCTION(this);
    m_records.Append(std::move(records));
    // Ranks arrive in rank order from ChakraHelper and GatherReport: sorting only when one
    // does not keeps 16,384 AddRank calls linear (a sort per call was quadratic).
    const bool inOrder = m_ranks.empty() || m_ranks.back().rank <= stats.rank;
    m_ranks.push_back(stats);
    if (!inOrder)
    {
        std::stable_sort(m_ranks.begin(),
                         m_ranks.end(),
                         [](const RankStats& a, const RankStats& b) { return a.rank < b.rank; });
    }
}

bool
ChakraReport::AllFinished() const
{
    NS_LOG_FUNCTION(this);
    return std::all_of(m_ranks.begin(), m_ranks.end(), [](const RankStats& r) {
        return r.finished;
    });
}

Time
ChakraReport::GetIterationTime() const
{
    Time latest;
    for (const auto& rank : m_ranks)
    {
        latest = std::max(latest, rank.finishTime);
    }
    return latest;
}

TrainingThroughput
ChakraReport::GetTrainingThroughput() const
{
    TrainingThroughput throughput;
    const double seconds = GetIterationTime().GetSeconds();
    for (const auto& rank : m_ranks)
    {
        if (rank.stepTokens > 0 && seconds > 0)
        {
            const double gpus = static_cast<double>(m_ranks.size());
            throughput.stated = true;
            throughput.tokensPerSecondPerGpu = rank.stepTokens / seconds / gpus;
            throughput.tflopsPerGpu = rank.stepModelFlops / seconds / gpus / 1e12;
            throughput.mfu = throughput.tflopsPerGpu * 1e12 / rank.gpuPeakFlops;
            break;
        }
    }
    return throughput;
}

void
ChakraReport::PrintTrainingStep(std::ostream& os) const
{
    const TrainingThroughput t = GetTrainingThroughput();
    if (!t.stated)
    {
        return;
    }
    os << "training step: " << std::fixed << std::setprecision(1) << t.tokensPerSecondPerGpu
       << " tokens/s per GPU, " << t.tflopsPerGpu << " model TFLOP/s per GPU, MFU " << 100 * t.mfu
       << "% (model FLOPs as Megatron-LM counts them, no recompute, over the "
       << "GPU's peak dense FLOP/s)\n";
    os.unsetf(std::ios::floatfield);
    os << std::setprecision(6);
}

StepTimeSplit
ChakraReport::GetTimeSplit() const
{
    StepTimeSplit split;
    const double iteration = GetIterationTime().GetSeconds();
    if (iteration <= 0 || m_ranks.empty())
    {
        return split;
    }
    const double share = 1.0 / (iteration * static_cast<double>(m_ranks.size()));
    for (const auto& rank : m_ranks)
    {
        split.compute += rank.computeBusy.GetSeconds() * share;
        for (std::size_t c = 0; c < kCommCategoryCount; ++c)
        {
            split.exposed[c] += rank.exposedByCategory[c].GetSeconds() * share;
        }
    }
    split.idle = 1.0 - split.compute;
    for (double exposed : split.exposed)
    {
        split.idle -= exposed;
    }
    split.idle = std::max(0.0, split.idle);
    return split;
}

void
ChakraReport::PrintTimeSplit(std::ostream& os) const
{
    const StepTimeSplit split = GetTimeSplit();
    if (split.compute == 0 && split.idle == 0)
    {
        return;
    }
    auto percent = [](double fraction) { return FormatFixed(100 * fraction, 1) + "%"; };
    os << "time split (mean over ranks, share of the iteration): compute "
       << percent(split.compute);
    for (CommCategory category : kCommCategories)
    {
        const double exposed = split.exposed[static_cast<std::size_t>(category)];
        // Only the kinds this job has; PP goes with the idle time, as the bubble.
        if (category != CommCategory::Pipeline && exposed > 0)
        {
            os << ", exposed " << CommCategoryLabel(category) << " " << percent(exposed);
        }
    }
    const double pipeline = split.exposed[static_cast<std::size_t>(CommCategory::Pipeline)];
    if (pipeline > 0)
    {
        os << ", pipeline bubble " << percent(pipeline + split.idle) << " (waiting on PP send/recv "
           << percent(pipeline) << ", idle " << percent(split.idle) << ")\n";
    }
    else
    {
        os << ", idle " << percent(split.idle) << "\n";
    }
}

const std::vector<RankStats>&
ChakraReport::GetRanks() const
{
    return m_ranks;
}

const CommRecordList&
ChakraReport::GetCommRecords() const
{
    return m_records;
}

double
ChakraReport::BusBandwidthFactor(const std::string& type, uint32_t n)
{
    if (n < 2)
    {
        return 0.0;
    }
    double ratio = static_cast<double>(n - 1) / n;
    if (type == "ALL_REDUCE")
    {
        return 2 * ratio;
    }
    if (type == "BROADCAST" || type == "REDUCE")
    {
        return 1.0;
    }
    return ratio;
}

std::vector<CollectiveSummary>
ChakraReport::GetCollectives() const
{
    std::map<std::tuple<std::string, uint64_t, std::string>, CollectiveSummary> calls;
    for (const auto& record : m_records)
    {
        if (record.kind == "SEND" || record.kind == "RECV")
        {
            continue;
        }
        auto key = std::make_tuple(record.pg, record.seq, record.kind);
        auto [it, inserted] = calls.try_emplace(key);
        CollectiveSummary& call = it->second;
        if (inserted)
        {
            call.kind = record.kind;
            call.pg = record.pg;
            call.seq = record.seq;
            call.bytes = record.bytes;
            call.commSize = record.commSize;
            call.algorithm = record.algorithm;
            call.start = record.start;
            call.end = record.end;
        }
        call.start = std::min(call.start, record.start);
        call.end = std::max(call.end, record.end);
        call.traceMicros = std::max(call.traceMicros, record.traceMicros);
        ++call.ranksSeen;
    }
    std::vector<CollectiveSummary> result;
    for (auto& [key, call] : calls)
    {
        bool gathered = call.kind == "ALL_GATHER" || call.kind == "GATHER";
        call.dataBytes = gathered ? call.bytes * call.commSize : call.bytes;
        double seconds = (call.end - call.start).GetSeconds();
        call.algBwGBps = seconds > 0 ? static_cast<double>(call.dataBytes) / seconds / 1e9 : 0;
        call.busBwGBps = call.algBwGBps * BusBandwidthFactor(call.kind, call.commSize);
        result.push_back(call);
    }
    std::sort(result.begin(), result.end(), [](const auto& a, const auto& b) {
        return std::tie(a.start, a.pg, a.seq) < std::tie(b.start, b.pg, b.seq);
    });
    return result;
}

void
ChakraReport::SetTransportModel(const std::string& model, const std::string& why)
{
    NS_LOG_FUNCTION(this << model << why);
    m_transportModel = model;
    m_transportChoice = why;
}

const std::string&
ChakraReport::GetTransportModel() const
{
    return m_transportModel;
}

void
ChakraReport::AddTable(ReportTable table)
{
    NS_LOG_FUNCTION(this);
    m_tables.push_back(std::move(table));
}

const std::vector<ReportTable>&
ChakraReport::GetTables() const
{
    return m_tables;
}

void
ChakraReport::AddWarning(const std::string& warning)
{
    NS_LOG_FUNCTION(this << warning);
    m_warnings.push_back(warning);
}

const std::vector<std::string>&
ChakraReport::GetWarnings() const
{
    return m_warnings;
}

namespace
{

/**
 * \return where the rows a printed table leaves out are: " in DIR/file.csv", or, when no CSV
 *         files are written, how to get them
 */
std::string
MoreIn(const std::string& file, const std::string& csvDirectory)
{
    if (csvDirectory.empty())
    {
        return ", not shown (the CSV files have every row: " + file +
               ", written with --output DIR)";
    }
    return " in " + csvDirectory + "/" + file;
}

} // namespace

void
PrintReportTable(std::ostream& os,
                 const ReportTable& table,
                 std::size_t maxRows,
                 const std::string& csvDirectory)
{
    std::vector<std::size_t> width;
    for (const auto& column : table.columns)
    {
        width.push_back(column.size());
    }
    for (const auto& row : table.rows)
    {
        for (std::size_t i = 0; i < row.size() && i < width.size(); ++i)
        {
            width[i] = std::max(width[i], row[i].size());
        }
    }
    auto line = [&](const std::vector<std::string>& cells) {
        for (std::size_t i = 0; i < cells.size() && i < width.size(); ++i)
        {
            os << (i == 0 ? "" : "  ") << std::setw(static_cast<int>(width[i]))
               << (i == 0 ? std::left : std::right) << cells[i];
        }
        os << std::right << "\n";
    };
    os << "\n" << table.name << " (" << table.rows.size() << " rows)\n";
    line(table.columns);
    for (std::size_t i = 0; i < table.rows.size(); ++i)
    {
        if (i == maxRows)
        {
            os << "... " << table.rows.size() - maxRows << " more"
               << MoreIn(table.name + ".csv", csvDirectory) << "\n";
            break;
        }
        line(table.rows[i]);
    }
}

void
ChakraReport::Print(std::ostream& os, std::size_t maxRows, const std::string& csvDirectory) const
{
    os << "== chakra simulation report\n";
    if (!m_transportModel.empty())
    {
        os << "transport model: " << m_transportModel
           << (m_transportChoice.empty() ? "" : " (" + m_transportChoice + ")") << "\n";
    }
    PrintBody(os, maxRows, csvDirectory);
}

void
ChakraReport::PrintBody(std::ostream& os,
                        std::size_t maxRows,
                        const std::string& csvDirectory) const
{
    std::size_t finished = std::count_if(m_ranks.begin(), m_ranks.end(), [](const RankStats& r) {
        return r.finished;
    });
    os << "ranks " << m_ranks.size() << ", finished " << finished << "/" << m_ranks.size()
       << ", iteration time " << FormatMicros(GetIterationTime()) << " us (latest rank finish)\n";
    PrintTrainingStep(os);
    PrintTimeSplit(os);
    os << "\n";
    os << std::left << std::setw(6) << "rank" << std::right << std::setw(14) << "finish_us"
       << std::setw(14) << "compute_us" << std::setw(14) << "comm_us" << std::setw(18)
       << "exposed_comm_us" << std::setw(10) << "nodes"
       << "\n";
    for (std::size_t i = 0; i < m_ranks.size(); ++i)
    {
        if (i == maxRows)
        {
            os << "... " << m_ranks.size() - maxRows << " more ranks"
               << MoreIn("ranks.csv", csvDirectory) << "\n";
            break;
        }
        const RankStats& r = m_ranks[i];
        os << std::left << std::setw(6) << r.rank << std::right << std::setw(14)
           << (r.finished ? FormatMicros(r.finishTime) : "unfinished") << std::setw(14)
           << FormatMicros(r.computeBusy) << std::setw(14) << FormatMicros(r.commTime)
           << std::setw(18) << FormatMicros(r.exposedComm) << std::setw(10) << r.nodes << "\n";
    }
    auto collectives = GetCollectives();
    uint64_t p2p = std::count_if(m_records.begin(), m_records.end(), [](const CommRecord& r) {
        return r.kind == "SEND" || r.kind == "RECV";
    });
    uint64_t unrecorded = 0;
    for (const RankStats& rank : m_ranks)
    {
        unrecorded += rank.unrecordedP2p;
    }
    p2p += unrecorded;
    os << "\ncollectives " << collectives.size() << ", point-to-point operations " << p2p << "\n";
    if (!collectives.empty())
    {
        os << std::left << std::setw(16) << "type" << std::setw(6) << "pg" << std::right
           << std::setw(6) << "n"
           << "  " << std::left << std::setw(17) << "algorithm" << std::right << std::setw(14)
           << "bytes" << std::setw(13) << "start_us" << std::setw(13) << "time_us" << std::setw(12)
           << "algbw_GB/s" << std::setw(12) << "busbw_GB/s"
           << "\n";
    }
    for (std::size_t i = 0; i < collectives.size(); ++i)
    {
        if (i == maxRows)
        {
            os << "... " << collectives.size() - maxRows << " more"
               << MoreIn("collectives.csv", csvDirectory) << "\n";
            break;
        }
        const auto& c = collectives[i];
        os << std::left << std::setw(16) << c.kind << std::setw(6)
           << (c.pg.empty() ? "world" : c.pg) << std::right << std::setw(6) << c.commSize << "  "
           << std::left << std::setw(17) << c.algorithm << std::right << std::setw(14) << c.bytes
           << std::setw(13) << FormatMicros(c.start) << std::setw(13)
           << FormatMicros(c.end - c.start) << std::setw(12) << FormatFixed(c.algBwGBps, 2)
           << std::setw(12) << FormatFixed(c.busBwGBps, 2) << "\n";
    }
    for (const auto& table : m_tables)
    {
        PrintReportTable(os, table, maxRows, csvDirectory);
    }
    PrintProblems(os, maxRows);
}

std::string
ChakraReport::DescribeFailure() const
{
    for (const auto& r : m_ranks)
    {
        if (!r.error.empty())
        {
            // Errors name their rank or their trace file; the rank is said once more if not.
            const std::string rank = "rank " + std::to_string(r.rank) + " ";
            return r.error.compare(0, rank.size(), rank) == 0
                       ? r.error
                       : "rank " + std::to_string(r.rank) + ": " + r.error;
        }
    }
    std::size_t unfinished = 0;
    const RankStats* first = nullptr;
    for (const auto& r : m_ranks)
    {
        if (!r.finished)
        {
            ++unfinished;
            first = first ? first : &r;
        }
    }
    if (!first)
    {
        return "";
    }
    return std::to_string(unfinished) + " of " + std::to_string(m_ranks.size()) +
           " ranks did not finish; rank " + std::to_string(first->rank) +
           " waits for: " + (first->stuck.empty() ? std::string("?") : first->stuck.front());
}

void
ChakraReport::PrintProblems(std::ostream& os, std::size_t maxRows) const
{
    for (const auto& r : m_ranks)
    {
        if (!r.error.empty())
        {
            os << "\nrank " << r.rank << " ERROR: " << r.error << "\n";
        }
        if (!r.finished && r.error.empty())
        {
            os << "\nrank " << r.rank << " did not finish; it waits for:\n";
            for (std::size_t i = 0; i < r.stuck.size() && i < maxRows; ++i)
            {
                os << "  " << r.stuck[i] << "\n";
            }
            if (r.stuck.size() > maxRows)
            {
                os << "  ... " << r.stuck.size() - maxRows << " more\n";
            }
        }
    }
    std::size_t warnings = m_warnings.size();
    for (const auto& r : m_ranks)
    {
        warnings += r.warnings.size();
    }
    if (warnings > 0)
    {
        os << "\nwarnings " << warnings << " (first per rank):\n";
        for (const auto& warning : m_warnings)
        {
            os << "  job: " << warning << "\n";
        }
        std::size_t shown = 0;
        for (const auto& r : m_ranks)
        {
            if (!r.warnings.empty() && shown++ < maxRows)
            {
                os << "  rank " << r.rank << ": " << r.warnings.front();
                if (r.warnings.size() > 1)
                {
                    os << " (+" << r.warnings.size() - 1 << " more)";
                }
                os << "\n";
            }
        }
    }
}

void
WriteReportTableCsv(const std::string& directory, const ReportTable& table)
{
    AtomicOutputFile out(directory + "/" + table.name + ".csv");
    std::string header;
    for (const auto& column : table.columns)
    {
        header += (header.empty() ? "" : ",") + Csv(column);
    }
    out.Write(header + "\n");
    for (const auto& row : table.rows)
    {
        std::string line;
        for (std::size_t i = 0; i < row.size(); ++i)
        {
            line += (i == 0 ? "" : ",") + Csv(row[i]);
        }
        out.Write(line + "\n");
    }
    out.Commit();
}

void
ChakraReport::WriteCsv(const std::string& directory) const
{
    NS_LOG_FUNCTION(this << directory);
    mkdir(directory.c_str(), 0777);
    {
        AtomicOutputFile out(directory + "/ranks.csv");
        std::string header = "rank,finished,finish_us,compute_us,comm_us,exposed_comm_us,nodes,";
        for (CommCategory category : kCommCategories)
        {
            std::string label = CommCategoryLabel(category);
            std::transform(label.begin(), label.end(), label.begin(), [](unsigned char c) {
                return static_cast<char>(std::tolower(c));
            });
            header += "exposed_" + label + "_us,";
        }
        out.Write(header + "error\n");
        for (const auto& r : m_ranks)
        {
            std::string split;
            for (const Time& exposed : r.exposedByCategory)
            {
                split += FormatMicros(exposed) + ",";
            }
            out.Write(std::to_string(r.rank) + "," + (r.finished ? "1" : "0") + "," +
                      FormatMicros(r.finishTime) + "," + FormatMicros(r.computeBusy) + "," +
                      FormatMicros(r.commTime) + "," + FormatMicros(r.exposedComm) + "," +
                      std::to_string(r.nodes) + "," + split + Csv(r.error) + "\n");
        }
        out.Commit();
    }
    {
        AtomicOutputFile out(directory + "/collectives.csv");
        out.Write("type,pg,seq,ranks,algorithm,bytes,data_bytes,start_us,end_us,time_us,"
                  "algbw_GBps,busbw_GBps,trace_us\n");
        for (const auto& c : GetCollectives())
        {
            out.Write(c.kind + "," + Csv(c.pg) + "," + std::to_string(c.seq) + "," +
                      std::to_string(c.commSize) + "," + c.algorithm + "," +
                      std::to_string(c.bytes) + "," + std::to_string(c.dataBytes) + "," +
                      FormatMicros(c.start) + "," + FormatMicros(c.end) + "," +
                      FormatMicros(c.end - c.start) + "," + FormatFixed(c.algBwGBps, 3) + "," +
                      FormatFixed(c.busBwGBps, 3) + "," + FormatFixed(c.traceMicros, 3) + "\n");
        }
        out.Commit();
    }
    for (const auto& table : m_tables)
    {
        WriteReportTableCsv(directory, table);
    }
    {
        AtomicOutputFile out(directory + "/comm-ops.csv");
        out.Write("rank,node,name,kind,pg,seq,peer,bytes,algorithm,start_us,end_us,trace_us\n");
        for (const auto& r : m_records)
        {
            out.Write(std::to_string(r.rank) + "," + std::to_string(r.nodeId) + "," + Csv(r.name) +
                      "," + r.kind + "," + Csv(r.pg) + "," + std::to_string(r.seq) + "," +
                      std::to_string(r.peer) + "," + std::to_string(r.bytes) + "," + r.algorithm +
                      "," + FormatMicros(r.start) + "," + FormatMicros(r.end) + "," +
                      FormatFixed(r.traceMicros, 3) + "\n");
        }
        out.Commit();
    }
}

} // namespace ns3
