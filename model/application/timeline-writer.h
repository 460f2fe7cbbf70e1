/*
 * TimelineWriter: a Chrome trace JSON of the simulated run (opens in Perfetto, chrome://tracing).
 */
#ifndef CHAKRA_TIMELINE_WRITER_H
#define CHAKRA_TIMELINE_WRITER_H

#include "ns3/trace-file.h"

#include "ns3/nstime.h"

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <utility>

namespace ns3
{

/**
 * \ingroup chakra
 * \brief Streams complete events ("ph": "X") to a Chrome trace JSON file.
 *
 * Ranks are processes; each rank's GPU streams, CPU threads and communication are its threads
 * ("lanes"). Events are written as they happen (not kept in memory); the file appears when
 * Close() is called.
 */
class TimelineWriter
{
  public:
    /** \param path the JSON file (gzip'd if it ends in .gz) */
    explicit TimelineWriter(const std::string& path);

    /**
     * Adds a complete event.
     * \param rank the process
     * \param lane the thread ("stream 7", "cpu thread 1", "communication")
     * \param name event name
     * \param category event category (compute, collective, p2p)
     * \param start start
     * \param end end
     * \param bytes bytes moved (0: none), shown in the event's args
     */
    void Add(uint32_t rank,
             const std::string& lane,
             const std::string& name,
             const std::string& category,
             Time start,
             Time end,
             uint64_t bytes = 0);

    /** Finishes the document and moves the file into place. */
    void Close();

    /** \return events written */
    uint64_t GetEventCount() const;

  private:
    /** \return the thread id of a lane, writing its metadata the first time */
    uint32_t LaneId(uint32_t rank, const std::string& lane);
    void WriteRecord(const std::string& json);

    AtomicOutputFile m_file;
    std::map<std::pair<uint32_t, std::string>, uint32_t> m_lanes;
    std::set<uint32_t> m_ranks;
    bool m_first{true};
    bool m_closed{false};
    uint64_t m_events{0};
};

} // namespace ns3

#endif // CHAKRA_TIMELINE_WRITER_H
