/*
 * TimelineWriter: a Chrome trace JSON of the simulated run (opens in Perfetto, chrome://tracing).
 */
#ifndef CHAKRA_TIMELINE_WRITER_H
#define CHAKRA_TIMELINE_WRITER_H

#include "ns3/nstime.h"
#include "ns3/trace-file.h"

#include <cstdint>
#include <cstdio>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace ns3
{

/**
 * \ingroup chakra-application
 * \brief Streams complete events ("ph": "X") to a Chrome trace JSON file.
 *
 * Ranks are processes, in rank order; each rank's GPU streams, CPU threads and communication
 * are its threads ("lanes", numbered per rank in the order of their first event), named by what
 * ran on them ("host thread 3", "compute stream 7", "communication stream 20", "compute and
 * communication stream 0", "communication" for calls on no stream or thread) and shown in that
 * order (host threads, then streams by number). The file lists each rank's events in the order
 * they happened, so that it does not depend on how the ranks' events interleave, nor, in a
 * distributed (MPI) run, on which process ran a rank. Events are kept per rank until Close();
 * past 256 KiB a rank's events go to an unnamed temporary file (memory stays bounded). The file
 * appears when Close() is called.
 */
class TimelineWriter
{
  public:
    /** \param path the JSON file (gzip'd if it ends in .gz) */
    explicit TimelineWriter(const std::string& path);

    /** Named values shown with an event (its "args"), in order. */
    using Args = std::vector<std::pair<std::string, std::string>>;

    /**
     * Adds a complete event.
     * \param rank the process
     * \param lane the thread ("stream 7", "cpu thread 1", "communication")
     * \param name event name
     * \param category event category (compute, collective, p2p)
     * \param start start
     * \param end end
     * \param bytes bytes moved (0: none), shown in the event's args
     * \param args more of the event's args (a collective's type, communicator, ...)
     */
    void Add(uint32_t rank,
             const std::string& lane,
             const std::string& name,
             const std::string& category,
             Time start,
             Time end,
             uint64_t bytes = 0,
             const Args& args = {});

    /**
     * Distributed runs (MPI): the process that runs each rank. Close() is then collective:
     * process 0 writes the file with every rank's events (those of other processes' ranks are
     * sent to it); the other processes write nothing.
     */
    void SetRankProcesses(std::vector<uint32_t> processOfRank);

    /**
     * Names a rank's process in the viewer (default "rank N"): several jobs on one timeline
     * go under their GPUs, named "job NAME rank r". Call on the process that runs the rank,
     * before its first event.
     */
    void SetRankName(uint32_t rank, std::string name);

    /** Finishes the document and moves the file into place. */
    void Close();
    /**
     * Drops the timeline of a run that failed: no file appears (a half-true timeline would be
     * read as the run's). In a distributed run every process calls it instead of Close().
     */
    void Discard();

    ~TimelineWriter();
    TimelineWriter(const TimelineWriter&) = delete;
    TimelineWriter& operator=(const TimelineWriter&) = delete;

    /** \return events written */
    uint64_t GetEventCount() const;

  private:
    /** What ran on a lane: names it. */
    struct Lane
    {
        uint32_t id{0};            //!< thread id
        bool compute{false};       //!< a compute event ran on it
        bool communication{false}; //!< a communication event ran on it
    };

    /** One rank's records, in the order they were added (joined by ",\n"). */
    struct RankPart
    {
        std::map<std::string, Lane> lanes;                  //!< lane -> its thread
        std::string pending;                                //!< records not yet spilled
        std::vector<std::pair<uint64_t, uint64_t>> spilled; //!< (offset, size) in m_spill
    };

    /** \return the thread of a lane (the rank's metadata is written with its first lane) */
    Lane& LaneOf(uint32_t rank, RankPart& part, const std::string& lane);
    /** Writes each lane's name and place (after the rank's events: known only then). */
    void NameLanes(uint32_t rank, RankPart& part);
    void WriteRecord(RankPart& part, const std::string& json);
    /** Calls \p sink with a rank's records, in non-empty pieces. */
    void ReadPart(const RankPart& part, const std::function<void(const std::string&)>& sink);
    /** Writes a piece of a rank's records into the file (\p first: the rank's first piece). */
    void WritePiece(const std::string& piece, bool first);

    std::unique_ptr<AtomicOutputFile> m_file; //!< null on processes other than 0
    std::map<uint32_t, RankPart> m_parts;
    std::FILE* m_spill{nullptr};
    uint64_t m_spillSize{0};
    std::vector<uint32_t> m_processOfRank;
    std::map<uint32_t, std::string> m_rankNames; //!< SetRankName's
    bool m_wroteRecord{false};
    bool m_closed{false};
    uint64_t m_events{0};
};

} // namespace ns3

#endif // CHAKRA_TIMELINE_WRITER_H
