/*
 * ChakraApplication: replays one rank's Chakra trace on an ns-3 node.
 */
#ifndef CHAKRA_APPLICATION_H
#define CHAKRA_APPLICATION_H

#include "collective-call-order.h"
#include "comm-group-file.h"
#include "communicator-table.h"
#include "communicator.h"
#include "compute-model.h"
#include "rank-stats.h"
#include "resource-queues.h"

#include "ns3/application.h"
#include "ns3/collective-algorithm.h"
#include "ns3/collective.h"
#include "ns3/comm-transport.h"
#include "ns3/data-rate.h"
#include "ns3/et-feeder.h"
#include "ns3/nstime.h"
#include "ns3/traced-callback.h"

#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace ns3
{

class TimelineWriter;
class TraceError;

/**
 * \ingroup chakra-application
 * \brief Replays one rank's .et trace: compute nodes as timed events, communication nodes as
 * messages over the simulated network.
 *
 * - COMP: GPU ops run in order on their stream ("stream" attribute, default 0); different
 *   streams overlap. CPU ops run in order on their host thread ("tid", default 0). Durations
 *   come from the ComputeModel.
 * - COMM_COLL: this rank's side of the collective on its communicator (pg_name), with the
 *   algorithm chosen by the <Type>Algorithm attributes. A node without comm_type replays its
 *   recorded duration (with a warning). A call's number on its communicator is its position in
 *   the trace's program order (file order), given when the node is read; CallOrder says how
 *   calls of one communicator wait for each other on a rank (see doc/chakra.md). Ranks that
 *   disagree on a call stop the simulation with an error.
 * - COMM_SEND / COMM_RECV: one message to / from comm_dst / comm_src with comm_tag; repeated
 *   tags match in posting order.
 * - METADATA (process_group:init): defines the communicators; without it, every pg_name is the
 *   world.
 * - A communication node with a stream (GPU) or thread (CPU) occupies it while it runs, as an
 *   NCCL kernel occupies its stream.
 *
 * The rank replays its trace from ReplayDelay (+ StartOffset) after the application starts, so
 * that TCP connections are up; all reported times are relative to ReplayDelay after the start.
 */
class ChakraApplication : public Application
{
  public:
    /** \return the TypeId */
    static TypeId GetTypeId();
    ChakraApplication();
    ~ChakraApplication() override;

    /**
     * Wiring done by ChakraHelper before the simulation starts.
     * \param rank this rank
     * \param peers every rank's address (index = rank)
     * \param hostOf host id of every rank (for hierarchical algorithms)
     */
    void Configure(uint32_t rank,
                   std::shared_ptr<const std::vector<Address>> peers,
                   SharedRankList hostOf);
    /** Configure() with lists of its own (a helper that installs many ranks shares them). */
    void Configure(uint32_t rank,
                   const std::vector<Address>& peers,
                   const std::vector<uint32_t>& hostOf);

    /**
     * \param timeline where to log events (may be null)
     * \param timelineRank the process this rank's events go under (several jobs share one
     *        timeline: each rank by its GPU); kOwnRank: its rank. With one shared by several
     *        jobs, times are the simulation's (from 0, not from this job's start).
     */
    void SetTimeline(std::shared_ptr<TimelineWriter> timeline, uint32_t timelineRank = kOwnRank);
    /** SetTimeline's default: the events go under the application's own rank. */
    static constexpr uint32_t kOwnRank = UINT32_MAX;

    /**
     * \return this rank's totals, and for an unfinished rank what it waits for; call after
     *         Simulator::Run
     */
    RankStats GetStats();
    /** \return this rank's communication operations, in completion order */
    const std::vector<CommRecord>& GetCommRecords() const;
    /** \return true if a communication operation completed (kept as a record or counted) */
    bool HasCommunicated() const;
    /** \return the same, shared (ChakraHelper::GetReport keeps them without a copy) */
    std::shared_ptr<const std::vector<CommRecord>> ShareCommRecords() const;
    /** \return true once every node has run */
    bool IsFinished() const;
    /** \return this rank */
    uint32_t GetRank() const;
    /**
     * \return the highest rank this rank's trace has named so far (a process group member, a
     *         send or receive peer, a collective's root), -1 if none: with HasWorldSize, what
     *         the job's size can be checked against (ChakraHelper::GetReport)
     */
    int64_t GetHighestNamedRank() const;
    /** \return true if this rank's trace metadata gives the job's size (world_size) */
    bool HasWorldSize() const;
    /**
     * Uses this transport instead of creating one of the Transport attribute's model (helpers
     * that configure the transport call this before the simulation starts).
     */
    void SetTransport(Ptr<CommTransport> transport);
    /** \return this rank's transport (created on first use from the Transport attribute) */
    Ptr<CommTransport> GetTransport();
    /**
     * Time this rank spends in some collective calls after they complete (by node id): a
     * replay of measured rank-local delays (a worker thread descheduled after the data
     * arrived), added after the CollectiveOverhead. Set before the simulation starts.
     */
    void SetCallDelays(std::unordered_map<uint64_t, Time> delays);
    /**
     * The members of the communicators that the trace names by number and does not declare
     * with a process_group:init node (ASTRA-sim's traces; see CommGroupFile). Set before the
     * simulation starts; the same object for every rank of the job.
     */
    void SetCommGroups(std::shared_ptr<const CommGroupFile> groups);

    /**
     * Signature of the NodeIssued trace source.
     * \param rank this rank
     * \param node the node handed to its stream, thread or engine
     */
    typedef void (*NodeIssuedCallback)(uint32_t rank, std::shared_ptr<const EtNode> node);
    /**
     * Signature of the NodeFinished trace source.
     * \param rank this rank
     * \param node the node
     * \param start when it started, from the replay start
     * \param end when it finished, from the replay start
     */
    typedef void (*NodeFinishedCallback)(uint32_t rank,
                                         std::shared_ptr<const EtNode> node,
                                         Time start,
                                         Time end);
    /**
     * Signature of the CollectiveFinished trace source (collectives and sends/receives alike).
     * \param record the operation as the report lists it
     */
    typedef void (*CollectiveFinishedCallback)(const CommRecord& record);

  protected:
    void DoDispose() override;

  private:
    void StartApplication() override;
    void StopApplication() override;

    /** Adds the attributes of replay (trace, dependencies, timing) to \p tid. */
    static TypeId AddReplayAttributes(TypeId tid);
    /** Adds the attributes of collectives (algorithms, chunks, software cost) to \p tid. */
    static TypeId AddCollectiveAttributes(TypeId tid);

    /** Reads the RankShift attributes; false if the rank failed on them. */
    bool ConfigureRankShift();
    /** \return the job's rank a rank id of the trace stands for (RankShift; in range only) */
    int64_t MapRank(int64_t rank) const;
    /** Opens the trace (the feeder); false if the rank failed on it. */
    bool OpenTrace();
    /** Starts replaying the trace. */
    void BeginReplay();
    /** Issues every node the feeder has ready. */
    void Pump();
    /**
     * Hands a node to its stream or thread, unless it is a collective call whose turn on its
     * communicator has not come (CallOrder): then the call order keeps it.
     */
    void Issue(std::shared_ptr<const EtNode> node);
    /** Starts one node (or queues it behind its stream/thread). */
    void IssueToResource(std::shared_ptr<const EtNode> node);
    /** Runs a node whose resource is free. */
    void Run(std::shared_ptr<const EtNode> node);
    /** Run's dispatch by node type (may throw TraceError for a bad node). */
    void RunByType(std::shared_ptr<const EtNode> node);
    /**
     * A node finished.
     * \param node the node
     * \param start when it started
     * \param lane the timeline's lane ("" for none)
     * \param args what the timeline shows with the event (a call's type, communicator, ...)
     */
    void Complete(std::shared_ptr<const EtNode> node,
                  Time start,
                  const std::string& lane,
                  const std::vector<std::pair<std::string, std::string>>& args = {});
    /** Records a finished node's interval and shows it on the timeline. */
    void RecordInterval(const EtNode& node,
                        Time start,
                        const std::string& lane,
                        const std::vector<std::pair<std::string, std::string>>& args);
    void RunCompute(std::shared_ptr<const EtNode> node);
    void RunCollective(std::shared_ptr<const EtNode> node);
    /** Replays the recorded duration of a collective without comm_type. */
    void RunUntypedCollective(std::shared_ptr<const EtNode> node,
                              Time start,
                              const std::string& lane);
    /** \return false (and fails) if this rank may not call a collective of the node's group */
    bool CheckMembership(const EtNode& node);
    /** A collective's messages are through and its software cost spent: it completes. */
    void FinishCollective(std::shared_ptr<const EtNode> node,
                          Time start,
                          const std::string& lane,
                          CommRecord record);
    void RunPointToPoint(std::shared_ptr<const EtNode> node);
    void RunMetadata(std::shared_ptr<const EtNode> node);
    /** Records that the trace names \p rank (GetHighestNamedRank). */
    void NameRank(int64_t rank);
    /** \return one line on a message that arrived and that no receive took */
    std::string DescribeUnreceived(const CommTransport::UnreceivedMessage& message) const;
    /** \return what an unfinished rank waits for, the cause first */
    std::vector<std::string> DescribeStuck() const;
    /** A finished rank with messages nobody received did not finish: says so in \p stats. */
    void CheckUnreceived(RankStats& stats) const;
    /**
     * \return the lane a communication node shows on (its resource, or "communication"); ""
     *         without a timeline
     */
    std::string CommunicationLane(const EtNode& node) const;
    /** Stops the replay with a fatal error. */
    void Fail(const std::string& message);
    /** Fails with a trace error, naming this rank's trace file if the error does not. */
    void FailOnTrace(const TraceError& error);
    /** A problem that makes the whole run meaningless: fails and stops the simulation. */
    void FailRun(const std::string& message);
    void Warn(const std::string& message);
    /** Warns once per \p key in this rank's run. */
    void WarnOnce(const std::string& key, const std::string& message);
    /** \return the algorithm attribute for a collective type */
    CollectiveAlgorithmKind::Kind AlgorithmFor(ChakraProtoMsg::CollectiveCommType type) const;
    /**
     * \return the time a collective node ends after its last message on this rank:
     *         CollectiveOverhead + bytes / CollectiveOverheadRate + its call delay
     * \throws TraceError if that is beyond the bounds of a node's duration
     */
    Time TimeAfterTransfer(const EtNode& node, uint64_t bytes) const;
    /**
     * Applies MissingCommSize to a communication node without comm_size (barriers carry no
     * data and need none).
     * \return false if the rank failed on it
     */
    bool CheckCommSize(const EtNode& node);
    /** \return pipeline chunks for a call */
    uint32_t ChunksFor(const std::string& algorithm, uint64_t bytes) const;
    /** \return the number of ranks in the job */
    uint32_t PeerCount() const;

    // Attributes.
    std::string m_tracePath;
    Ptr<ComputeModel> m_computeModel;

    /** Whether nodes wait for their ctrl_deps (the CtrlDeps attribute). */
    enum CtrlDepsMode : int
    {
        CTRL_AUTO,   //!< honour, except in the reference converter's traces
        CTRL_HONOUR, //!< honour
        CTRL_IGNORE, //!< ignore
    };

    /** What a dependency on an id not in the trace does (the DanglingDeps attribute). */
    enum DanglingDepsMode : int
    {
        DANGLING_WARN,  //!< satisfied, with a warning
        DANGLING_ERROR, //!< the nodes waiting for it are stuck
    };

    /** What a communication node without comm_size does (the MissingCommSize attribute). */
    enum MissingCommSizeMode : int
    {
        MISSING_SIZE_WARN,  //!< it runs as 0 bytes; one warning per trace, with count and ids
        MISSING_SIZE_ERROR, //!< the rank fails on the first one
    };

    /** Which completed operations a rank keeps a CommRecord of (the CommRecords attribute). */
    enum CommRecordsMode : int
    {
        COMM_RECORDS_ALL,         //!< every collective and point-to-point operation
        COMM_RECORDS_COLLECTIVES, //!< collectives; point-to-point operations only counted
    };

    CommTransport::Model m_transportModel;
    CollectiveCallOrder::Mode m_callOrderMode;
    Time m_replayDelay;
    Time m_startOffset;
    CtrlDepsMode m_ctrlDeps;
    bool m_honourDataDeps;
    DanglingDepsMode m_danglingDeps;
    MissingCommSizeMode m_missingCommSize{MISSING_SIZE_WARN};
    CommRecordsMode m_commRecords{COMM_RECORDS_ALL}; //!< CommRecords
    uint32_t m_windowSize;
    bool m_trimNodes; //!< drop the fields no part of the simulation reads (DropUnsimulatedFields)
    std::string m_rankShiftText; //!< RankShift
    bool m_sharedNodes{false};   //!< SharedNodes
    RankShift m_shift;           //!< RankShift, read
    CollectiveAlgorithmKind::Kind m_allReduceAlgorithm;
    CollectiveAlgorithmKind::Kind m_allGatherAlgorithm;
    CollectiveAlgorithmKind::Kind m_reduceScatterAlgorithm;
    CollectiveAlgorithmKind::Kind m_allToAllAlgorithm;
    CollectiveAlgorithmKind::Kind m_broadcastAlgorithm;
    CollectiveAlgorithmKind::Kind m_reduceAlgorithm;
    CollectiveAlgorithmKind::Kind m_gatherAlgorithm;
    CollectiveAlgorithmKind::Kind m_scatterAlgorithm;
    uint64_t m_chunkSize;
    uint32_t m_maxChunks;
    Time m_collectiveOverhead;
    DataRate m_collectiveOverheadRate;
    std::unordered_map<uint64_t, Time> m_callDelays; //!< node id -> rank-local delay

    // Wiring.
    uint32_t m_rank{0};
    std::shared_ptr<const std::vector<Address>> m_peers; //!< shared by every rank of the job
    Ptr<CommTransport> m_transport;
    std::shared_ptr<TimelineWriter> m_timeline;
    uint32_t m_timelineRank{kOwnRank}; //!< SetTimeline's
    Time m_timelineOrigin;             //!< added to the events' times (a shared timeline's)

    // Collaborators.
    std::unique_ptr<EtFeeder> m_feeder; //!< the trace, node by node as they become ready
    CollectiveCallOrder m_callOrder;    //!< collective calls in program order
    ResourceQueues m_resources;         //!< streams and host threads
    CommunicatorTable m_communicators;  //!< process groups
    RankStatsRecorder m_stats;          //!< what the report says of this rank

    // Replay state.
    Time m_replayStart;          //!< the common replay start (reported times are relative to it)
    bool m_replayStarted{false}; //!< this rank began replaying (after its StartOffset)
    bool m_pumping{false};
    bool m_pumpAgain{false};
    bool m_failed{false};
    bool m_finished{false};
    uint64_t m_running{0};
    int64_t m_highestNamed{-1};   //!< see GetHighestNamedRank
    bool m_worldSizeKnown{false}; //!< the metadata has world_size
    std::map<uint64_t, std::shared_ptr<Collective>> m_activeCollectives; //!< by node id
    /** Collectives whose messages are through, in their software cost and call delay: node
     *  id -> when they end (the stuck report lists them). */
    std::map<uint64_t, Time> m_finishingCollectives;

    /** A send or receive under way (what the stuck report says of it). */
    struct ActiveP2p
    {
        std::shared_ptr<const EtNode> node; //!< the node
        bool send;                          //!< a send (else a receive)
        int64_t peer;                       //!< the other rank
        int64_t tag;                        //!< the message's tag
        uint64_t bytes;                     //!< its size
    };

    std::map<uint64_t, ActiveP2p> m_activeP2p; //!< by node id
    std::map<std::string, bool> m_warnedOnce;

    TracedCallback<uint32_t, std::shared_ptr<const EtNode>> m_nodeIssued;
    TracedCallback<uint32_t, std::shared_ptr<const EtNode>, Time, Time> m_nodeFinished;
    TracedCallback<const CommRecord&> m_collectiveFinished;
};

} // namespace ns3

#endif // CHAKRA_APPLICATION_H
