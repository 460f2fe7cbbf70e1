#include "timeline-writer.h"

#include "text-format.h"

#include <nlohmann/json.hpp>


namespace ns3
{

namespace
{

std::string
Quote(const std::string& text)
{
    return nlohmann::json(text).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

} // namespace

TimelineWriter::TimelineWriter(const std::string& path)
    : m_file(path)
{
    m_file.Write("{\"displayTimeUnit\": \"ns\", \"traceEvents\": [\n");
}

void
TimelineWriter::WriteRecord(const std::string& json)
{
    m_file.Write(m_first ? json : ",\n" + json);
    m_first = false;
}

uint32_t
TimelineWriter::LaneId(uint32_t rank, const std::string& lane)
{
    auto key = std::make_pair(rank, lane);
    auto it = m_lanes.find(key);
    if (it != m_lanes.end())
    {
        return it->second;
    }
    if (m_ranks.insert(rank).second)
    {
        WriteRecord("{\"name\": \"process_name\", \"ph\": \"M\", \"pid\": " + std::to_string(rank) +
                    ", \"args\": {\"name\": \"rank " + std::to_string(rank) + "\"}}");
        WriteRecord("{\"name\": \"process_sort_index\", \"ph\": \"M\", \"pid\": " +
                    std::to_string(rank) + ", \"args\": {\"sort_index\": " +
                    std::to_string(rank) + "}}");
    }
    uint32_t id = static_cast<uint32_t>(m_lanes.size()) + 1;
    m_lanes[key] = id;
    WriteRecord("{\"name\": \"thread_name\", \"ph\": \"M\", \"pid\": " + std::to_string(rank) +
                ", \"tid\": " + std::to_string(id) + ", \"args\": {\"name\": " + Quote(lane) + "}}");
    return id;
}

void
TimelineWriter::Add(uint32_t rank,
                    const std::string& lane,
                    const std::string& name,
                    const std::string& category,
                    Time start,
                    Time end,
                    uint64_t bytes)
{
    uint32_t tid = LaneId(rank, lane);
    std::string record = "{\"name\": " + Quote(name) + ", \"cat\": " + Quote(category) +
                         ", \"ph\": \"X\", \"ts\": " + FormatMicros(start) +
                         ", \"dur\": " + FormatMicros(end - start) + ", \"pid\": " +
                         std::to_string(rank) + ", \"tid\": " + std::to_string(tid);
    if (bytes > 0)
    {
        record += ", \"args\": {\"bytes\": " + std::to_string(bytes) + "}";
    }
    record += "}";
    WriteRecord(record);
    ++m_events;
}

void
TimelineWriter::Close()
{
    if (m_closed)
    {
        return;
    }
    m_closed = true;
    m_file.Write("\n]}\n");
    m_file.Commit();
}

uint64_t
TimelineWriter::GetEventCount() const
{
    return m_events;
}

} // namespace ns3
