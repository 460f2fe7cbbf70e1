#include "report-gather.h"

#include "ns3/mpi-context.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <stdexcept>
#include <utility>

namespace ns3
{

namespace
{

/** Appends fixed-size values and length-prefixed strings. */
class Writer
{
  public:
    void U64(uint64_t value)
    {
        m_bytes.append(reinterpret_cast<const char*>(&value), sizeof(value));
    }

    void I64(int64_t value)
    {
        U64(static_cast<uint64_t>(value));
    }

    void F64(double value)
    {
        uint64_t bits = 0;
        std::memcpy(&bits, &value, sizeof(bits));
        U64(bits);
    }

    void Str(const std::string& text)
    {
        U64(text.size());
        m_bytes += text;
    }

    void Stamp(Time t)
    {
        I64(t.GetTimeStep());
    }

    std::string& Bytes()
    {
        return m_bytes;
    }

  private:
    std::string m_bytes;
};

/** Reads what Writer wrote; every read is bounds-checked. */
class Reader
{
  public:
    explicit Reader(const std::string& bytes)
        : m_bytes(bytes)
    {
    }

    bool AtEnd() const
    {
        return m_offset == m_bytes.size();
    }

    uint64_t U64()
    {
        Need(sizeof(uint64_t));
        uint64_t value = 0;
        std::memcpy(&value, m_bytes.data() + m_offset, sizeof(value));
        m_offset += sizeof(value);
        return value;
    }

    int64_t I64()
    {
        return static_cast<int64_t>(U64());
    }

    double F64()
    {
        const uint64_t bits = U64();
        double value = 0;
        std::memcpy(&value, &bits, sizeof(value));
        return value;
    }

    std::string Str()
    {
        const uint64_t size = U64();
        Need(size);
        std::string text = m_bytes.substr(m_offset, size);
        m_offset += size;
        return text;
    }

    Time Stamp()
    {
        return Time(static_cast<long long>(I64()));
    }

  private:
    void Need(uint64_t size) const
    {
        if (size > m_bytes.size() - m_offset)
        {
            throw std::runtime_error("rank results from another process are truncated at byte " +
                                     std::to_string(m_offset) + " of " +
                                     std::to_string(m_bytes.size()));
        }
    }

    const std::string& m_bytes;
    std::size_t m_offset{0};
};

void
WriteStrings(Writer& out, const std::vector<std::string>& texts)
{
    out.U64(texts.size());
    for (const auto& text : texts)
    {
        out.Str(text);
    }
}

} // namespace

std::string
SerializeRankResults(const ChakraReport& report)
{
    std::map<uint32_t, std::vector<const CommRecord*>> recordsOf;
    for (const auto& record : report.GetCommRecords())
    {
        recordsOf[record.rank].push_back(&record);
    }
    Writer out;
    for (const RankStats& r : report.GetRanks())
    {
        out.U64(r.rank);
        out.U64(r.finished ? 1 : 0);
        out.Stamp(r.finishTime);
        out.Stamp(r.computeBusy);
        out.Stamp(r.commTime);
        out.Stamp(r.exposedComm);
        for (const Time& exposed : r.exposedByCategory)
        {
            out.Stamp(exposed);
        }
        out.F64(r.stepModelFlops);
        out.U64(r.stepTokens);
        out.F64(r.gpuPeakFlops);
        out.U64(r.nodes);
        out.U64(r.unrecordedP2p);
        WriteStrings(out, r.stuck);
        out.Str(r.error);
        WriteStrings(out, r.warnings);
        const auto& records = recordsOf[r.rank];
        out.U64(records.size());
        for (const CommRecord* c : records)
        {
            out.U64(c->rank);
            out.U64(c->nodeId);
            out.Str(c->name);
            out.Str(c->kind);
            out.U64(c->bytes);
            out.Str(c->pg);
            out.U64(c->commSize);
            out.Str(c->algorithm);
            out.U64(c->seq);
            out.I64(c->peer);
            out.Stamp(c->start);
            out.Stamp(c->end);
            out.F64(c->traceMicros);
        }
    }
    return std::move(out.Bytes());
}

namespace
{

std::vector<std::string>
ReadStringList(Reader& in)
{
    const uint64_t count = in.U64();
    std::vector<std::string> texts;
    for (uint64_t i = 0; i < count; ++i)
    {
        texts.push_back(in.Str());
    }
    return texts;
}

/** One rank's results, as AddRank takes them. */
using RankResults = std::pair<RankStats, std::vector<CommRecord>>;

void
ReadRankResults(const std::string& bytes, std::vector<RankResults>& ranks)
{
    Reader in(bytes);
    while (!in.AtEnd())
    {
        RankResults results;
        RankStats& r = results.first;
        r.rank = static_cast<uint32_t>(in.U64());
        r.finished = in.U64() != 0;
        r.finishTime = in.Stamp();
        r.computeBusy = in.Stamp();
        r.commTime = in.Stamp();
        r.exposedComm = in.Stamp();
        for (Time& exposed : r.exposedByCategory)
        {
            exposed = in.Stamp();
        }
        r.stepModelFlops = in.F64();
        r.stepTokens = in.U64();
        r.gpuPeakFlops = in.F64();
        r.nodes = in.U64();
        r.unrecordedP2p = in.U64();
        r.stuck = ReadStringList(in);
        r.error = in.Str();
        r.warnings = ReadStringList(in);
        const uint64_t records = in.U64();
        for (uint64_t i = 0; i < records; ++i)
        {
            CommRecord c;
            c.rank = static_cast<uint32_t>(in.U64());
            c.nodeId = in.U64();
            c.name = in.Str();
            c.kind = in.Str();
            c.bytes = in.U64();
            c.pg = in.Str();
            c.commSize = static_cast<uint32_t>(in.U64());
            c.algorithm = in.Str();
            c.seq = in.U64();
            c.peer = in.I64();
            c.start = in.Stamp();
            c.end = in.Stamp();
            c.traceMicros = in.F64();
            results.second.push_back(std::move(c));
        }
        ranks.push_back(std::move(results));
    }
}

} // namespace

void
AddRankResults(ChakraReport& report, const std::string& bytes)
{
    std::vector<RankResults> ranks;
    ReadRankResults(bytes, ranks);
    for (const auto& [stats, records] : ranks)
    {
        report.AddRank(stats, records);
    }
}

ChakraReport
GatherReport(ChakraReport local)
{
    if (MpiContext::GetProcessCount() <= 1)
    {
        return local;
    }
    const std::vector<std::string> parts = MpiContext::GatherToFirst(SerializeRankResults(local));
    if (MpiContext::GetProcessId() != 0)
    {
        return local;
    }
    // Every rank, then added in rank order: a one-process run adds them so (one application
    // per rank, in rank order), and the records' order in the report follows.
    std::vector<RankResults> ranks;
    for (const auto& part : parts)
    {
        ReadRankResults(part, ranks);
    }
    std::stable_sort(ranks.begin(), ranks.end(), [](const RankResults& a, const RankResults& b) {
        return a.first.rank < b.first.rank;
    });
    ChakraReport report;
    for (const auto& [stats, records] : ranks)
    {
        report.AddRank(stats, records);
    }
    report.SetTransportModel(local.GetTransportModel());
    for (const auto& table : local.GetTables())
    {
        report.AddTable(table);
    }
    for (const auto& warning : local.GetWarnings())
    {
        report.AddWarning(warning); // found by process 0 (ChakraHelper::GetReport)
    }
    return report;
}

} // namespace ns3
