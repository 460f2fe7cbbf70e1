/*
 * RankConsistencyChecker: the checks behind CheckRankConsistency (private to helper/convert).
 */
#ifndef CHAKRA_RANK_CONSISTENCY_CHECKER_H
#define CHAKRA_RANK_CONSISTENCY_CHECKER_H

#include "rank-consistency.h"

#include "ns3/et-node.h"

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <vector>

namespace ns3
{

/** Node ids spelled out in a per-file count (communication nodes without comm_size). */
constexpr std::size_t kIdsListed = 10;

/** \ingroup chakra-converter \brief One collective as a rank's trace records it. */
struct CollectiveEntry
{
    uint64_t id{0};   //!< node id
    std::string name; //!< node name
    int64_t type{-1}; //!< comm_type (-1: missing)
    uint64_t size{0}; //!< comm_size
    int64_t root{-1}; //!< root_rank (-1: none)
};

/** \ingroup chakra-converter \brief One send or receive. */
struct MessageEntry
{
    int64_t rank{0};  //!< the file's rank
    uint64_t id{0};   //!< node id
    uint64_t size{0}; //!< comm_size
};

/**
 * (src, dst, tag): what the simulator matches a message by. A send goes from its file's rank
 * to comm_dst, a receive waits at its file's rank for comm_src, a missing comm_tag is 0, and
 * pg_name takes no part (ChakraApplication::RunPointToPoint).
 */
using MessageKey = std::tuple<int64_t, int64_t, int64_t>;

/** \ingroup chakra-converter \brief What one rank's file holds. */
struct RankFile
{
    std::string path;                                           //!< the file
    std::map<std::string, std::vector<CollectiveEntry>> groups; //!< collectives per pg
    std::map<std::string, std::vector<int64_t>> groupRanks;     //!< from process_group:init
    std::optional<int64_t> worldSize;                           //!< metadata world_size
    std::string gpuName;  //!< metadata gpu_name (Kineto's deviceProperties; "" if unknown)
    uint64_t sizeless{0}; //!< communication nodes without comm_size
    std::vector<uint64_t> sizelessIds; //!< the first kIdsListed of them
};

/**
 * \ingroup chakra-converter
 * \brief Reads the .et files of a job, one per rank, and checks that they agree: the
 * collectives of each process group, the point-to-point messages, the job's size and GPUs.
 */
class RankConsistencyChecker
{
  public:
    /**
     * \param report where the outcome goes
     * \param options settings
     */
    RankConsistencyChecker(RankConsistencyReport& report, const RankConsistencyOptions& options);

    /** Reads every file (\p paths, one per rank) and runs every check. */
    void Run(const std::vector<std::string>& paths);

  private:
    /** Counts a mismatch, and lists it while fewer than kMaxListed are. */
    void Mismatch(const std::string& what);
    /** Counts a warning, and lists it while fewer than kMaxListed are. */
    void Warning(const std::string& what);
    /** Counts a note, and lists it while fewer than kMaxListed are. */
    void Note(const std::string& what);
    /** \return the rank a file claims: metadata, else its name, else \p position */
    static int64_t RankOf(const std::string& path,
                          const ChakraProtoMsg::GlobalMetadata& metadata,
                          int64_t position);
    /** Reads the process groups of a process_group:init node of \p trace's file. */
    void ReadGroups(const EtNode& node, RankFile& trace);
    /** Reads the file of one rank. \param position its place among the files given */
    void Read(const std::string& path, int64_t position);
    /** Reads the world size and GPU a file's metadata gives. */
    void ReadMetadata(const ChakraProtoMsg::GlobalMetadata& metadata, RankFile& trace);
    /** Reads one node of the file of \p rank: its groups, collective or message. */
    void ReadNode(const EtNode& node, int64_t rank, RankFile& trace);
    /** Files a COMM_COLL node under its process group. */
    void ReadCollective(const EtNode& node, RankFile& trace);
    /** Files a send or receive of the file of \p rank under its (src, dst, tag). */
    void ReadMessage(const EtNode& node, int64_t rank, const std::string& path);
    /** Reports the communication nodes of a file without comm_size (an error with --strict). */
    void ReportSizeless(const RankFile& trace);
    /** \return the member ranks of a group, as the files describe it */
    std::vector<int64_t> Members(const std::string& pg);
    /** Compares the collectives of each process group across its member ranks. */
    void CompareCollectives();
    /** \return "3, 5, 7" for the ranks from \p first to \p last (at most 10 spelled out) */
    static std::string RankList(int64_t first, int64_t last);
    /** Do the files make the whole job (world_size, or the ranks the traces name)? */
    void CheckJobSize();
    /**
     * Did every rank run on the same GPU model? A warning, not a mismatch: each rank replays
     * its own measured durations, so the run stays meaningful, but one GPU model decides the
     * NVLink of every host (chakra_replay --nvlink-from-trace reads rank 0's), and in a
     * synchronous job one odd GPU most often means a trace of another machine or job.
     */
    void CheckGpus();
    /** Pairs every send with a receive by (src, dst, tag), and their sizes. */
    void MatchMessages();

    RankConsistencyReport& m_report;      //!< the outcome
    RankConsistencyOptions m_options;     //!< settings
    std::set<int64_t> m_named;            //!< ranks named by group members and peers
    std::map<int64_t, RankFile> m_traces; //!< by rank
    std::map<MessageKey, std::vector<MessageEntry>> m_sends; //!< every send, in file order
    std::map<MessageKey, std::vector<MessageEntry>> m_recvs; //!< every receive, in file order
};

} // namespace ns3

#endif // CHAKRA_RANK_CONSISTENCY_CHECKER_H
