#include "timeline-writer.h"

#include "text-format.h"

#include "ns3/log.h"
#include "ns3/mpi-context.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("ChakraTimelineWriter");

namespace
{

std::string
Quote(const std::string& text)
{
    return nlohmann::json(text).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

/** A rank's records past this many bytes go to the spill file. */
constexpr std::size_t kSpillBytes = 256 * 1024;

} // namespace

TimelineWriter::TimelineWriter(const std::string& path)
{
    NS_LOG_FUNCTION(this << path);
    // In a distributed run only process 0 writes the file.
    if (MpiContext::GetProcessId() == 0)
    {
        m_file = std::make_unique<AtomicOutputFile>(path);
        m_file->Write("{\"displayTimeUnit\": \"ns\", \"traceEvents\": [\n");
    }
}

TimelineWriter::~TimelineWriter()
{
    NS_LOG_FUNCTION(this);
    if (m_spill)
    {
        std::fclose(m_spill);
    }
}

void
TimelineWriter::SetRankProcesses(std::vector<uint32_t> processOfRank)
{
    NS_LOG_FUNCTION(this);
    m_processOfRank = std::move(processOfRank);
}

void
TimelineWriter::SetRankName(uint32_t rank, std::string name)
{
    NS_LOG_FUNCTION(this << rank << name);
    m_rankNames[rank] = std::move(name);
}

void
TimelineWriter::WriteRecord(RankPart& part, const std::string& json)
{
    NS_LOG_FUNCTION(this << json);
    const bool first = part.pending.empty() && part.spilled.empty();
    part.pending += first ? json : ",\n" + json;
    if (part.pending.size() < kSpillBytes)
    {
        return;
    }
    if (!m_spill && !(m_spill = std::tmpfile()))
    {
        throw std::runtime_error("timeline: cannot create a temporary file");
    }
    if (std::fseek(m_spill, 0, SEEK_END) != 0 ||
        std::fwrite(part.pending.data(), 1, part.pending.size(), m_spill) != part.pending.size())
    {
        throw std::runtime_error("timeline: cannot write its temporary file (disk full?)");
    }
    part.spilled.emplace_back(m_spillSize, part.pending.size());
    m_spillSize += part.pending.size();
    part.pending.clear();
}

void
TimelineWriter::ReadPart(const RankPart& part, const std::function<void(const std::string&)>& sink)
{
    NS_LOG_FUNCTION(this);
    std::string piece;
    for (const auto& [offset, size] : part.spilled)
    {
        piece.resize(size);
        if (std::fflush(m_spill) != 0 ||
            std::fseek(m_spill, static_cast<long>(offset), SEEK_SET) != 0 ||
            std::fread(&piece[0], 1, size, m_spill) != size)
        {
            throw std::runtime_error("timeline: cannot read its temporary file back");
        }
        sink(piece);
    }
    if (!part.pending.empty())
    {
        sink(part.pending);
    }
}

void
TimelineWriter::WritePiece(const std::string& piece, bool first)
{
    NS_LOG_FUNCTION(this << piece << first);
    if (first && m_wroteRecord)
    {
        m_file->Write(",\n");
    }
    m_file->Write(piece);
    m_wroteRecord = true;
}

TimelineWriter::Lane&
TimelineWriter::LaneOf(uint32_t rank, RankPart& part, const std::string& lane)
{
    NS_LOG_FUNCTION(this << rank << lane);
    auto it = part.lanes.find(lane);
    if (it != part.lanes.end())
    {
        return it->second;
    }
    if (part.lanes.empty())
    {
        const auto named = m_rankNames.find(rank);
        const std::string name =
            named == m_rankNames.end() ? "rank " + std::to_string(rank) : named->second;
        WriteRecord(part,
                    "{\"name\": \"process_name\", \"ph\": \"M\", \"pid\": " + std::to_string(rank) +
                        ", \"args\": {\"name\": " + Quote(name) + "}}");
        WriteRecord(
            part,
            "{\"name\": \"process_sort_index\", \"ph\": \"M\", \"pid\": " + std::to_string(rank) +
                ", \"args\": {\"sort_index\": " + std::to_string(rank) + "}}");
    }
    Lane& added = part.lanes[lane];
    added.id = static_cast<uint32_t>(part.lanes.size());
    return added;
}

void
TimelineWriter::NameLanes(uint32_t rank, RankPart& part)
{
    NS_LOG_FUNCTION(this << rank);
    // Host threads first, then streams, each by number; a lane of neither kind last.
    auto numberOf = [](const std::string& lane, const std::string& prefix) -> int64_t {
        if (lane.compare(0, prefix.size(), prefix) != 0)
        {
            return -1;
        }
        try
        {
            return std::stoll(lane.substr(prefix.size()));
        }
        catch (const std::exception&)
        {
            return -1;
        }
    };
    std::vector<std::pair<std::pair<int, int64_t>, const std::string*>> order;
    for (const auto& [lane, info] : part.lanes)
    {
        const int64_t thread = numberOf(lane, "cpu thread ");
        const int64_t stream = numberOf(lane, "stream ");
        order.push_back(
            {{thread >= 0 ? 0 : (stream >= 0 ? 1 : 2), std::max(thread, stream)}, &lane});
    }
    std::sort(order.begin(), order.end());
    for (std::size_t place = 0; place < order.size(); ++place)
    {
        const std::string& lane = *order[place].second;
        const Lane& info = part.lanes.at(lane);
        std::string name = lane;
        if (order[place].first.first == 0)
        {
            name = "host thread " + std::to_string(order[place].first.second);
        }
        else if (order[place].first.first == 1)
        {
            name = std::string(info.compute && info.communication ? "compute and communication"
                               : info.communication               ? "communication"
                                                                  : "compute") +
                   " stream " + std::to_string(order[place].first.second);
        }
        const std::string where =
            "\"pid\": " + std::to_string(rank) + ", \"tid\": " + std::to_string(info.id);
        WriteRecord(part,
                    "{\"name\": \"thread_name\", \"ph\": \"M\", " + where +
                        ", \"args\": {\"name\": " + Quote(name) + "}}");
        WriteRecord(part,
                    "{\"name\": \"thread_sort_index\", \"ph\": \"M\", " + where +
                        ", \"args\": {\"sort_index\": " + std::to_string(place) + "}}");
    }
}

void
TimelineWriter::Add(uint32_t rank,
                    const std::string& lane,
                    const std::string& name,
                    const std::string& category,
                    Time start,
                    Time end,
                    uint64_t bytes,
                    const Args& args)
{
    NS_LOG_FUNCTION(this << rank << lane << name << category << start << end << bytes);
    RankPart& part = m_parts[rank];
    Lane& thread = LaneOf(rank, part, lane);
    (category == "compute" ? thread.compute : thread.communication) = true;
    std::string record = "{\"name\": " + Quote(name) + ", \"cat\": " + Quote(category) +
                         ", \"ph\": \"X\", \"ts\": " + FormatMicros(start) +
                         ", \"dur\": " + FormatMicros(end - start) +
                         ", \"pid\": " + std::to_string(rank) +
                         ", \"tid\": " + std::to_string(thread.id);
    std::string values = bytes > 0 ? "\"bytes\": " + std::to_string(bytes) : "";
    for (const auto& [key, value] : args)
    {
        values += (values.empty() ? "" : ", ") + Quote(key) + ": " + Quote(value);
    }
    if (!values.empty())
    {
        record += ", \"args\": {" + values + "}";
    }
    record += "}";
    WriteRecord(part, record);
    ++m_events;
}

void
TimelineWriter::Close()
{
    NS_LOG_FUNCTION(this);
    if (m_closed)
    {
        return;
    }
    m_closed = true;
    for (auto& [rank, part] : m_parts)
    {
        NameLanes(rank, part);
    }
    const uint32_t self = MpiContext::GetProcessId();
    auto writeLocal = [this](const RankPart& part) {
        bool first = true;
        ReadPart(part, [&](const std::string& piece) {
            WritePiece(piece, first);
            first = false;
        });
    };
    if (m_processOfRank.empty() || MpiContext::GetProcessCount() <= 1)
    {
        for (const auto& [rank, part] : m_parts)
        {
            writeLocal(part);
        }
    }
    else if (self != 0)
    {
        // Each of this process's ranks, in rank order, in pieces, then an empty end mark;
        // process 0 takes them in the same order.
        for (uint32_t rank = 0; rank < m_processOfRank.size(); ++rank)
        {
            if (m_processOfRank[rank] != self)
            {
                continue;
            }
            auto it = m_parts.find(rank);
            if (it != m_parts.end())
            {
                ReadPart(it->second, [](const std::string& piece) { MpiContext::Send(0, piece); });
            }
            MpiContext::Send(0, "");
        }
        return;
    }
    else
    {
        for (uint32_t rank = 0; rank < m_processOfRank.size(); ++rank)
        {
            const uint32_t owner = m_processOfRank[rank];
            if (owner == 0)
            {
                auto it = m_parts.find(rank);
                if (it != m_parts.end())
                {
                    writeLocal(it->second);
                }
                continue;
            }
            bool first = true;
            for (std::string piece = MpiContext::Receive(owner); !piece.empty();
                 piece = MpiContext::Receive(owner))
            {
                WritePiece(piece, first);
                first = false;
            }
        }
    }
    m_file->Write("\n]}\n");
    m_file->Commit();
}

void
TimelineWriter::Discard()
{
    NS_LOG_FUNCTION(this);
    m_closed = true;
    m_file.reset(); // removes the temporary file
    m_parts.clear();
}

uint64_t
TimelineWriter::GetEventCount() const
{
    return m_events;
}

} // namespace ns3
