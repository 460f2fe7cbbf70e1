/*
 * ChakraApplication: replays one rank's Chakra trace on an ns-3 node.
 */
#ifndef CHAKRA_APPLICATION_H
#define CHAKRA_APPLICATION_H

#include "ns3/collective-algorithm.h"
#include "ns3/collective.h"
#include "comm-group-file.h"
#include "communicator.h"
#include "compute-model.h"
#include "ns3/et-feeder.h"
#include "ns3/comm-transport.h"

#include "ns3/application.h"
#include "ns3/data-rate.h"
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
 * \ingroup chakra
 * \brief One communication operation as this rank saw it (for the report).
 */
struct CommRecord
{
    uint32_t rank{0};         //!< this rank
    uint64_t nodeId{0};       //!< trace node
    std::string name;         //!< node name
    std::string kind;         //!< ALL_REDUCE, ..., SEND, RECV
    uint64_t bytes{0};        //!< comm_size
    std::string pg;           //!< process group ("" = world)
    uint32_t commSize{1};     //!< members of the communicator
    std::string algorithm;    //!< algorithm used (collectives)
    uint64_t seq{0};          //!< call number on the communicator (collectives)
    int64_t peer{-1};         //!< peer rank (send/recv)
    Time start;               //!< issued (relative to replay start)
    Time end;                 //!< completed (relative to replay start)
    double traceMicros{0};    //!< duration recorded in the trace (measured, if any)
};

/**
 * \ingroup chakra
 * \brief Per-rank totals (for the report).
 */
struct RankStats
{
    uint32_t rank{0};
    bool finished{false};           //!< every node ran
    Time finishTime;                //!< last node's end (relative to replay start)
    Time computeBusy;               //!< union of compute intervals
    Time commTime;                  //!< union of communication intervals
    Time exposedComm;               //!< communication not overlapped by compute
    uint64_t nodes{0};              //!< nodes run
    std::vector<std::string> stuck; //!< what an unfinished rank waits for
    std::string error;              //!< a fatal trace error, if any
    std::vector<std::string> warnings;
};

/**
 * \ingroup chakra
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

    /** \param timeline where to log events (may be null) */
    void SetTimeline(std::shared_ptr<TimelineWriter> timeline);

    /**
     * \return this rank's totals, and for an unfinished rank what it waits for; call after
     *         Simulator::Run
     */
    RankStats GetStats();
    /** \return this rank's communication operations, in completion order */
    const std::vector<CommRecord>& GetCommRecords() const;
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

  protected:
    void DoDispose() override;

  private:
    void StartApplication() override;
    void StopApplication() override;

    /** Starts replaying the trace. */
    void BeginReplay();
    /** Issues every node the feeder has ready. */
    void Pump();
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
    void RunCompute(std::shared_ptr<const EtNode> node);
    void RunCollective(std::shared_ptr<const EtNode> node);
    void RunPointToPoint(std::shared_ptr<const EtNode> node);
    void RunMetadata(std::shared_ptr<const EtNode> node);
    /** \return the communicator a node names (the world if unknown) */
    Communicator& CommunicatorOf(const EtNode& node);
    /** Records that the trace names \p rank (GetHighestNamedRank). */
    void NameRank(int64_t rank);
    /** \return a communicator of this rank made of \p members (global ranks, with this rank) */
    Communicator MakeCommunicator(const std::string& name, std::vector<uint32_t> members) const;
    /** \return how to name a communicator id in messages ("communicator 'tp0'") */
    std::string CommunicatorLabel(uint64_t id) const;
    /** \return one line on a message that arrived and that no receive took */
    std::string DescribeUnreceived(const CommTransport::UnreceivedMessage& message) const;
    /** \return the resource (stream or thread) a node occupies, or "" */
    std::string ResourceOf(const EtNode& node) const;
    /** Stops the replay with a fatal error. */
    void Fail(const std::string& message);
    /** Fails with a trace error, naming this rank's trace file if the error does not. */
    void FailOnTrace(const TraceError& error);
    /** A problem that makes the whole run meaningless: fails and stops the simulation. */
    void FailRun(const std::string& message);
    /** Gives collective nodes their number on their communicator, as they are read. */
    void NumberCall(const EtNode& node);
    /** \return the call number of a numbered collective node, if it is one */
    std::optional<uint64_t> CallNumberOf(const EtNode& node) const;
    /**
     * Hands a node to its stream or thread, unless it is a collective call whose turn on its
     * communicator has not come (CallOrder): then it waits in the communicator's queue.
     */
    void Issue(std::shared_ptr<const EtNode> node);
    /** Starts the parked calls of a communicator whose turn has come. */
    void StartParkedCalls(const std::string& pg);
    /** \return true if call \p seq may start under CallOrder */
    bool IsCallsTurn(const std::string& pg, uint64_t seq);
    void Warn(const std::string& message);
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

    // Attributes.
    std::string m_tracePath;
    Ptr<ComputeModel> m_computeModel;
    /** How the calls of one communicator wait for each other (the CallOrder attribute). */
    enum CallOrder : int
    {
        POSTED, //!< a call starts once every earlier call has started
        SERIAL, //!< a call starts once every earlier call has completed
    };
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

    CommTransport::Model m_transportModel;
    CallOrder m_callOrder;
    Time m_replayDelay;
    Time m_startOffset;
    CtrlDepsMode m_ctrlDeps;
    bool m_honourDataDeps;
    DanglingDepsMode m_danglingDeps;
    uint32_t m_windowSize;
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
    /** What a communication node without comm_size does (the MissingCommSize attribute). */
    enum MissingCommSizeMode : int
    {
        MISSING_SIZE_WARN,  //!< it runs as 0 bytes; one warning per trace, with count and ids
        MISSING_SIZE_ERROR, //!< the rank fails on the first one
    };
    MissingCommSizeMode m_missingCommSize{MISSING_SIZE_WARN};
    uint64_t m_sizelessNodes{0};         //!< communication nodes run without comm_size
    std::vector<uint64_t> m_sizelessIds; //!< the first of them (for the warning)
    std::shared_ptr<const CommGroupFile> m_commGroups; //!< numbered communicators (or null)

    // Wiring.
    uint32_t m_rank{0};
    std::shared_ptr<const std::vector<Address>> m_peers; //!< shared by every rank of the job
    SharedRankList m_hostOf;                             //!< shared by every rank of the job
    Ptr<CommTransport> m_transport;
    std::shared_ptr<TimelineWriter> m_timeline;

    // Replay state.
    std::unique_ptr<EtFeeder> m_feeder;
    Time m_replayStart;         //!< the common replay start (reported times are relative to it)
    bool m_replayStarted{false}; //!< this rank began replaying (after its StartOffset)
    bool m_pumping{false};
    bool m_pumpAgain{false};
    bool m_failed{false};
    bool m_finished{false};
    uint64_t m_running{0};
    std::map<std::string, bool> m_resourceBusy;
    std::map<std::string, std::deque<std::shared_ptr<const EtNode>>> m_resourceQueue;
    std::map<std::string, Communicator> m_communicators; //!< by pg name
    bool m_declaredGroups{false}; //!< a process_group:init node declared some groups
    int64_t m_highestNamed{-1};   //!< see GetHighestNamedRank
    bool m_worldSizeKnown{false}; //!< the metadata has world_size
    /** Ids (CommunicatorId) of the groups process_group:init declared without this rank, sorted:
     *  a collective on one of them is a trace error (8 bytes a group, not its member list). */
    std::vector<uint64_t> m_foreignGroups;
    std::map<uint64_t, std::shared_ptr<Collective>> m_activeCollectives; //!< by node id
    /** Collectives whose messages are through, in their software cost and call delay: node
     *  id -> when they end (the stuck report lists them). */
    std::map<uint64_t, Time> m_finishingCollectives;
    /**
     * Program order of one communicator's calls on this rank. Calls start strictly in their
     * order (both CallOrder modes), and in "serial" mode also complete in it, so counters
     * suffice.
     */
    struct CallOrderState
    {
        uint64_t read{0};      //!< calls numbered so far (the next call's number)
        uint64_t started{0};   //!< calls 0 .. started-1 have started (been posted)
        uint64_t completed{0}; //!< calls completed
        std::map<uint64_t, std::shared_ptr<const EtNode>> parked; //!< ready, waiting their turn
    };
    std::map<std::string, CallOrderState> m_callOrders;  //!< by pg name
    std::unordered_map<uint64_t, uint64_t> m_callNumbers; //!< node id -> call number
    std::map<uint64_t, std::string> m_activeP2p;          //!< node id -> description
    std::vector<std::pair<Time, Time>> m_computeIntervals;
    std::vector<std::pair<Time, Time>> m_commIntervals;
    std::vector<CommRecord> m_commRecords;
    RankStats m_stats;
    std::map<std::string, bool> m_warnedOnce;

    /** The world communicator (every rank), created on first use. */
    Communicator& World();
    /** \return the number of ranks in the job */
    uint32_t PeerCount() const;
    /** \return the host of \p rank (the rank itself when no host map was given) */
    uint32_t HostOf(uint32_t rank) const;

    TracedCallback<uint32_t, std::shared_ptr<const EtNode>> m_nodeIssued;
    TracedCallback<uint32_t, std::shared_ptr<const EtNode>, Time, Time> m_nodeFinished;
    TracedCallback<const CommRecord&> m_collectiveFinished;
};

} // namespace ns3

#endif // CHAKRA_APPLICATION_H
