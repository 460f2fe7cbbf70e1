#include "chakra-application.h"

#include "timeline-writer.h"
#include "ns3/trace-error.h"

#include "trace-limits.h"

#include "ns3/boolean.h"
#include "ns3/enum.h"
#include "ns3/et-attribute.h"
#include "ns3/data-rate.h"
#include "ns3/log.h"
#include "ns3/pointer.h"
#include "ns3/schedule-moved.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/text-format.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cstring>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("ChakraApplication");
NS_OBJECT_ENSURE_REGISTERED(ChakraApplication);

namespace
{

/** Merges intervals into a sorted list of disjoint ones. */
std::vector<std::pair<Time, Time>>
Merge(std::vector<std::pair<Time, Time>> intervals)
{
    std::sort(intervals.begin(), intervals.end());
    std::vector<std::pair<Time, Time>> merged;
    for (const auto& interval : intervals)
    {
        if (!merged.empty() && interval.first <= merged.back().second)
        {
            merged.back().second = std::max(merged.back().second, interval.second);
        }
        else
        {
            merged.push_back(interval);
        }
    }
    return merged;
}

Time
Total(const std::vector<std::pair<Time, Time>>& merged)
{
    Time total;
    for (const auto& [start, end] : merged)
    {
        total += end - start;
    }
    return total;
}

/** Length of a \ b for two merged interval lists. */
Time
Uncovered(const std::vector<std::pair<Time, Time>>& a, const std::vector<std::pair<Time, Time>>& b)
{
    Time covered;
    std::size_t j = 0;
    for (const auto& [start, end] : a)
    {
        while (j < b.size() && b[j].second <= start)
        {
            ++j;
        }
        for (std::size_t k = j; k < b.size() && b[k].first < end; ++k)
        {
            covered += std::min(end, b[k].second) - std::max(start, b[k].first);
        }
    }
    return Total(a) - covered;
}

/** The trace's duration, with the sub-microsecond part when the converter kept it. */
double
RecordedMicros(const EtNode& node)
{
    const double micros =
        node.GetDouble("duration_exact_micros", static_cast<double>(node.GetDurationMicros()));
    NodeDuration(node, "duration_exact_micros", micros); // checked: it is reported
    return micros;
}

std::string
AlgorithmAttributeHelp(const char* collective)
{
    std::string names;
    for (const std::string& name : CollectiveAlgorithmNames())
    {
        names += ", " + name;
    }
    return std::string("Algorithm for ") + collective + ": auto" + names +
           " (an algorithm that cannot run a call falls back to the default; the report's "
           "collective table names the one that ran).";
}

} // namespace

TypeId
ChakraApplication::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::ChakraApplication")
            .SetParent<Application>()
            .SetGroupName("Chakra")
            .AddConstructor<ChakraApplication>()
            .AddAttribute("TracePath",
                          "This rank's .et trace.",
                          StringValue(""),
                          MakeStringAccessor(&ChakraApplication::m_tracePath),
                          MakeStringChecker())
            .AddAttribute("ComputeModel",
                          "How compute node durations are obtained.",
                          PointerValue(),
                          MakePointerAccessor(&ChakraApplication::m_computeModel),
                          MakePointerChecker<ComputeModel>())
            .AddAttribute("Transport",
                          "Transport model used when no transport object was set "
                          "(SetTransport): tcp (see CommTransport::ListModels).",
                          EnumValue(CommTransport::TCP),
                          MakeEnumAccessor(&ChakraApplication::m_transportModel),
                          CommTransport::MakeModelChecker(false))
            .AddAttribute("CallOrder",
                          "How the calls of one communicator wait for each other on a rank, in "
                          "program order: 'posted' (a call starts once every earlier call has "
                          "started: one queue per communicator, as NCCL enqueues) or 'serial' "
                          "(a call starts once every earlier call has completed: one call at "
                          "a time, as NCCL's kernels of one communicator run).",
                          EnumValue(POSTED),
                          MakeEnumAccessor(&ChakraApplication::m_callOrder),
                          MakeEnumChecker(POSTED, "posted", SERIAL, "serial"))
            .AddAttribute("ReplayDelay",
                          "Time between the application's start and the replay of the trace "
                          "(lets TCP connections open); reported times start here.",
                          TimeValue(MicroSeconds(100)),
                          MakeTimeAccessor(&ChakraApplication::m_replayDelay),
                          MakeTimeChecker())
            .AddAttribute("StartOffset",
                          "This rank begins its replay this much after the common replay start "
                          "(ReplayDelay), e.g. its measured offset in the real run; reported "
                          "times stay relative to the common start.",
                          TimeValue(Seconds(0)),
                          MakeTimeAccessor(&ChakraApplication::m_startOffset),
                          MakeTimeChecker(Seconds(0)))
            .AddAttribute("CtrlDeps",
                          "Whether a node waits for its ctrl_deps: 'honour', 'ignore', or 'auto' "
                          "(honour, except in traces of the reference Chakra converter, whose "
                          "ctrl_deps are call-tree links with cycles: ignored there, with a "
                          "warning).",
                          EnumValue(CTRL_AUTO),
                          MakeEnumAccessor(&ChakraApplication::m_ctrlDeps),
                          MakeEnumChecker(CTRL_AUTO,
                                          "auto",
                                          CTRL_HONOUR,
                                          "honour",
                                          CTRL_IGNORE,
                                          "ignore"))
            .AddAttribute("HonourDataDeps",
                          "A node waits for its data_deps.",
                          BooleanValue(true),
                          MakeBooleanAccessor(&ChakraApplication::m_honourDataDeps),
                          MakeBooleanChecker())
            .AddAttribute("DanglingDeps",
                          "A dependency on an id not in the trace: 'warn' (satisfied, with a "
                          "warning) or 'error' (the nodes waiting for it are reported stuck).",
                          EnumValue(DANGLING_WARN),
                          MakeEnumAccessor(&ChakraApplication::m_danglingDeps),
                          MakeEnumChecker(DANGLING_WARN, "warn", DANGLING_ERROR, "error"))
            .AddAttribute("MissingCommSize",
                          "A communication node without comm_size (ASTRA-sim's traces have "
                          "collectives written without it): 'warn' (it runs as 0 bytes, and one "
                          "warning per trace gives their number and first ids) or 'error' (the "
                          "rank fails on the first one, naming it; --strict in chakra_replay and "
                          "chakra-cluster). Barriers carry no data and need none.",
                          EnumValue(MISSING_SIZE_WARN),
                          MakeEnumAccessor(&ChakraApplication::m_missingCommSize),
                          MakeEnumChecker(MISSING_SIZE_WARN, "warn", MISSING_SIZE_ERROR, "error"))
            .AddAttribute("WindowSize",
                          "Nodes the feeder holds in memory (and looks ahead for ready nodes).",
                          UintegerValue(65536),
                          MakeUintegerAccessor(&ChakraApplication::m_windowSize),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("AllReduceAlgorithm",
                          AlgorithmAttributeHelp("all-reduce"),
                          EnumValue(CollectiveAlgorithmKind::AUTO),
                          MakeEnumAccessor(&ChakraApplication::m_allReduceAlgorithm),
                          MakeCollectiveAlgorithmChecker())
            .AddAttribute("AllGatherAlgorithm",
                          AlgorithmAttributeHelp("all-gather"),
                          EnumValue(CollectiveAlgorithmKind::AUTO),
                          MakeEnumAccessor(&ChakraApplication::m_allGatherAlgorithm),
                          MakeCollectiveAlgorithmChecker())
            .AddAttribute("ReduceScatterAlgorithm",
                          AlgorithmAttributeHelp("reduce-scatter"),
                          EnumValue(CollectiveAlgorithmKind::AUTO),
                          MakeEnumAccessor(&ChakraApplication::m_reduceScatterAlgorithm),
                          MakeCollectiveAlgorithmChecker())
            .AddAttribute("AllToAllAlgorithm",
                          AlgorithmAttributeHelp("all-to-all"),
                          EnumValue(CollectiveAlgorithmKind::AUTO),
                          MakeEnumAccessor(&ChakraApplication::m_allToAllAlgorithm),
                          MakeCollectiveAlgorithmChecker())
            .AddAttribute("BroadcastAlgorithm",
                          AlgorithmAttributeHelp("broadcast"),
                          EnumValue(CollectiveAlgorithmKind::AUTO),
                          MakeEnumAccessor(&ChakraApplication::m_broadcastAlgorithm),
                          MakeCollectiveAlgorithmChecker())
            .AddAttribute("ReduceAlgorithm",
                          AlgorithmAttributeHelp("reduce"),
                          EnumValue(CollectiveAlgorithmKind::AUTO),
                          MakeEnumAccessor(&ChakraApplication::m_reduceAlgorithm),
                          MakeCollectiveAlgorithmChecker())
            .AddAttribute("GatherAlgorithm",
                          AlgorithmAttributeHelp("gather"),
                          EnumValue(CollectiveAlgorithmKind::AUTO),
                          MakeEnumAccessor(&ChakraApplication::m_gatherAlgorithm),
                          MakeCollectiveAlgorithmChecker())
            .AddAttribute("ScatterAlgorithm",
                          AlgorithmAttributeHelp("scatter"),
                          EnumValue(CollectiveAlgorithmKind::AUTO),
                          MakeEnumAccessor(&ChakraApplication::m_scatterAlgorithm),
                          MakeCollectiveAlgorithmChecker())
            .AddAttribute("ChunkSize",
                          "Pipeline chunk size in bytes: a collective is split into "
                          "ceil(size / ChunkSize) chunks (at most MaxChunks). 0: the "
                          "algorithm's default (1 MiB chunks for tree, one chunk otherwise).",
                          UintegerValue(0),
                          MakeUintegerAccessor(&ChakraApplication::m_chunkSize),
                          MakeUintegerChecker<uint64_t>())
            .AddAttribute("MaxChunks",
                          "Upper bound on pipeline chunks per collective.",
                          UintegerValue(64),
                          MakeUintegerAccessor(&ChakraApplication::m_maxChunks),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("CollectiveOverhead",
                          "Software cost of one collective call beyond its network transfer "
                          "(NCCL's kernel launch and protocol setup, gloo's CPU work): a call "
                          "ends on each rank this long after its last message. chakra_replay "
                          "calibrates it from the measured calls (doc/validation.md).",
                          TimeValue(Time()),
                          MakeTimeAccessor(&ChakraApplication::m_collectiveOverhead),
                          MakeTimeChecker(Time()))
            .AddAttribute("CollectiveOverheadRate",
                          "Size-dependent part of the software cost of a collective call: a "
                          "call of B bytes ends B / rate later on each rank (0: none).",
                          DataRateValue(DataRate(0)),
                          MakeDataRateAccessor(&ChakraApplication::m_collectiveOverheadRate),
                          MakeDataRateChecker())
            .AddTraceSource("NodeIssued",
                            "A node was handed to its engine (rank, node).",
                            MakeTraceSourceAccessor(&ChakraApplication::m_nodeIssued),
                            "ns3::ChakraApplication::NodeIssuedCallback")
            .AddTraceSource("NodeFinished",
                            "A node finished (rank, node, start, end; times from replay start).",
                            MakeTraceSourceAccessor(&ChakraApplication::m_nodeFinished),
                            "ns3::ChakraApplication::NodeFinishedCallback")
            .AddTraceSource("CollectiveFinished",
                            "A communication node finished on this rank.",
                            MakeTraceSourceAccessor(&ChakraApplication::m_collectiveFinished),
                            "ns3::ChakraApplication::CollectiveFinishedCallback");
    return tid;
}

ChakraApplication::ChakraApplication() = default;

ChakraApplication::~ChakraApplication() = default;

void
ChakraApplication::DoDispose()
{
    m_activeCollectives.clear();
    m_callOrders.clear();
    if (m_transport)
    {
        // Pending receives hold callbacks into collectives that hold the transport: dropping
        // the pointer alone leaks that cycle when a run stops before every message arrived.
        m_transport->Dispose();
    }
    m_transport = nullptr;
    m_computeModel = nullptr;
    m_feeder.reset();
    Application::DoDispose();
}

void
ChakraApplication::Configure(uint32_t rank,
                             std::shared_ptr<const std::vector<Address>> peers,
                             SharedRankList hostOf)
{
    m_rank = rank;
    m_peers = peers ? std::move(peers) : std::make_shared<const std::vector<Address>>();
    m_hostOf = std::move(hostOf);
    m_stats.rank = rank;
}

void
ChakraApplication::Configure(uint32_t rank,
                             const std::vector<Address>& peers,
                             const std::vector<uint32_t>& hostOf)
{
    Configure(rank,
              std::make_shared<const std::vector<Address>>(peers),
              ShareRankList(hostOf));
}

uint32_t
ChakraApplication::PeerCount() const
{
    return m_peers ? static_cast<uint32_t>(m_peers->size()) : 0;
}

uint32_t
ChakraApplication::HostOf(uint32_t rank) const
{
    return m_hostOf && rank < m_hostOf->size() ? (*m_hostOf)[rank] : rank;
}

void
ChakraApplication::SetTimeline(std::shared_ptr<TimelineWriter> timeline)
{
    m_timeline = std::move(timeline);
}

uint32_t
ChakraApplication::GetRank() const
{
    return m_rank;
}

int64_t
ChakraApplication::GetHighestNamedRank() const
{
    return m_highestNamed;
}

bool
ChakraApplication::HasWorldSize() const
{
    return m_worldSizeKnown;
}

void
ChakraApplication::NameRank(int64_t rank)
{
    m_highestNamed = std::max(m_highestNamed, rank);
}

void
ChakraApplication::SetTransport(Ptr<CommTransport> transport)
{
    m_transport = transport;
}

Ptr<CommTransport>
ChakraApplication::GetTransport()
{
    if (!m_transport)
    {
        ObjectFactory factory(
            CommTransport::LookupModel(CommTransport::GetModelName(m_transportModel)).GetName());
        m_transport = factory.Create<CommTransport>();
    }
    return m_transport;
}

bool
ChakraApplication::IsFinished() const
{
    return m_finished;
}

const std::vector<CommRecord>&
ChakraApplication::GetCommRecords() const
{
    return m_commRecords;
}

void
ChakraApplication::StartApplication()
{
    if (!m_computeModel)
    {
        m_computeModel = CreateObject<ComputeModel>();
    }
    try
    {
        EtFeederOptions options;
        options.windowSize = m_windowSize;
        options.honourCtrlDeps = m_ctrlDeps != CTRL_IGNORE;
        options.honourDataDeps = m_honourDataDeps;
        options.danglingAsSatisfied = m_danglingDeps == DANGLING_WARN;
        options.warn = [this](const std::string& message) { Warn(message); };
        options.onRead = [this](const EtNode& node) { NumberCall(node); };
        GetTransport();
        m_feeder = std::make_unique<EtFeeder>(m_tracePath, options);
        m_worldSizeKnown = FindAttribute(m_feeder->GetMetadata().attr(), "world_size") != nullptr;
        if (m_ctrlDeps == CTRL_AUTO && HasCallTreeCtrlDeps(m_feeder->GetMetadata()))
        {
            m_feeder->SetHonourCtrlDeps(false);
            Warn(m_tracePath +
                 ": written by the reference Chakra converter (its metadata has the host trace's "
                 "pid and timestamps): its ctrl_deps are call-tree links, not dependencies, and "
                 "are ignored (CtrlDeps=honour to use them)");
        }
    }
    catch (const TraceError& e)
    {
        Fail(e.what());
        return;
    }
    catch (const std::invalid_argument& e)
    {
        Fail(e.what());
        return;
    }
    m_transport->Setup(GetNode(), m_rank, m_peers);
    m_transport->SetFatalHandler([this](const std::string& message) { FailRun(message); });
    m_transport->Start();
    m_replayStart = Simulator::Now() + m_replayDelay;
    m_replayStarted = false;
    Simulator::Schedule(m_replayDelay + m_startOffset, &ChakraApplication::BeginReplay, this);
}

void
ChakraApplication::StopApplication()
{
}

void
ChakraApplication::BeginReplay()
{
    m_replayStarted = true;
    Pump();
}

void
ChakraApplication::Fail(const std::string& message)
{
    if (m_failed)
    {
        return;
    }
    m_failed = true;
    // Every error names the trace it comes from (node descriptions do not).
    const bool named = m_tracePath.empty() || message.find(m_tracePath) != std::string::npos;
    m_stats.error = named ? message : m_tracePath + ": " + message;
    NS_LOG_ERROR("rank " << m_rank << ": " << m_stats.error);
}

void
ChakraApplication::FailOnTrace(const TraceError& error)
{
    Fail(error.GetFile().empty() ? m_tracePath + ": " + error.what() : error.what());
}

void
ChakraApplication::FailRun(const std::string& message)
{
    Fail(message);
    // The other ranks cannot finish meaningfully either: the run ends here.
    Simulator::Stop();
}

void
ChakraApplication::Warn(const std::string& message)
{
    m_stats.warnings.push_back(message);
    NS_LOG_WARN("rank " << m_rank << ": " << message);
}

void
ChakraApplication::Pump()
{
    if (m_pumping)
    {
        m_pumpAgain = true;
        return;
    }
    if (m_failed || m_finished || !m_feeder)
    {
        return;
    }
    m_pumping = true;
    try
    {
        do
        {
            m_pumpAgain = false;
            while (!m_failed && m_feeder->HasNodesToIssue())
            {
                Issue(m_feeder->GetNextIssuableNode());
            }
        } while (m_pumpAgain && !m_failed);
        if (!m_failed && m_running == 0 && m_feeder->IsDone())
        {
            m_finished = true;
            m_stats.finished = true;
            m_stats.finishTime = Simulator::Now() - m_replayStart;
        }
    }
    catch (const TraceError& e)
    {
        FailOnTrace(e);
    }
    m_pumping = false;
}

std::string
ChakraApplication::ResourceOf(const EtNode& node) const
{
    switch (node.GetType())
    {
    case ChakraProtoMsg::COMP_NODE:
    case ChakraProtoMsg::MEM_LOAD_NODE:
    case ChakraProtoMsg::MEM_STORE_NODE:
        if (node.IsCpuOp())
        {
            return "cpu thread " + std::to_string(node.GetTid().value_or(0));
        }
        return "stream " + std::to_string(node.GetStream().value_or(0));
    case ChakraProtoMsg::COMM_COLL_NODE:
    case ChakraProtoMsg::COMM_SEND_NODE:
    case ChakraProtoMsg::COMM_RECV_NODE:
        if (node.IsCpuOp() && node.GetTid())
        {
            return "cpu thread " + std::to_string(*node.GetTid());
        }
        if (!node.IsCpuOp() && node.GetStream())
        {
            return "stream " + std::to_string(*node.GetStream());
        }
        return "";
    default:
        return "";
    }
}

void
ChakraApplication::NumberCall(const EtNode& node)
{
    if (node.GetType() != ChakraProtoMsg::COMM_COLL_NODE || !node.GetCommType())
    {
        return;
    }
    m_callNumbers[node.GetId()] = m_callOrders[node.GetPgName()].read++;
}

std::optional<uint64_t>
ChakraApplication::CallNumberOf(const EtNode& node) const
{
    auto it = m_callNumbers.find(node.GetId());
    if (it == m_callNumbers.end())
    {
        return std::nullopt;
    }
    return it->second;
}

bool
ChakraApplication::IsCallsTurn(const std::string& pg, uint64_t seq)
{
    const CallOrderState& order = m_callOrders[pg];
    return seq == order.started && (m_callOrder != SERIAL || order.completed == order.started);
}

void
ChakraApplication::Issue(std::shared_ptr<const EtNode> node)
{
    auto seq = CallNumberOf(*node);
    if (!seq)
    {
        IssueToResource(std::move(node));
        return;
    }
    const std::string pg = node->GetPgName();
    if (!IsCallsTurn(pg, *seq))
    {
        m_callOrders[pg].parked[*seq] = std::move(node);
        return;
    }
    ++m_callOrders[pg].started;
    IssueToResource(std::move(node));
    StartParkedCalls(pg);
}

void
ChakraApplication::StartParkedCalls(const std::string& pg)
{
    CallOrderState& order = m_callOrders[pg];
    while (!order.parked.empty() && IsCallsTurn(pg, order.parked.begin()->first))
    {
        auto node = std::move(order.parked.begin()->second);
        order.parked.erase(order.parked.begin());
        ++order.started;
        IssueToResource(std::move(node));
    }
}

void
ChakraApplication::IssueToResource(std::shared_ptr<const EtNode> node)
{
    m_nodeIssued(m_rank, node);
    std::string resource = ResourceOf(*node);
    if (!resource.empty())
    {
        if (m_resourceBusy[resource])
        {
            m_resourceQueue[resource].push_back(std::move(node));
            return;
        }
        m_resourceBusy[resource] = true;
    }
    Run(std::move(node));
}

void
ChakraApplication::Run(std::shared_ptr<const EtNode> node)
{
    ++m_running;
    // A bad number in a node (a size or a duration no trace can have) is found while running
    // it: the rank fails with the file and the node named, whatever called Run.
    try
    {
        RunByType(node);
    }
    catch (const TraceError& e)
    {
        FailOnTrace(e);
    }
}

void
ChakraApplication::RunByType(std::shared_ptr<const EtNode> node)
{
    switch (node->GetType())
    {
    case ChakraProtoMsg::COMP_NODE:
    case ChakraProtoMsg::MEM_LOAD_NODE:
    case ChakraProtoMsg::MEM_STORE_NODE:
        RunCompute(std::move(node));
        break;
    case ChakraProtoMsg::COMM_COLL_NODE:
        RunCollective(std::move(node));
        break;
    case ChakraProtoMsg::COMM_SEND_NODE:
    case ChakraProtoMsg::COMM_RECV_NODE:
        RunPointToPoint(std::move(node));
        break;
    case ChakraProtoMsg::METADATA_NODE:
        RunMetadata(std::move(node));
        break;
    default:
        if (!m_warnedOnce["invalid"])
        {
            m_warnedOnce["invalid"] = true;
            Warn(node->Describe() + ": node type " + NodeTypeName(node->GetType()) +
                 " has nothing to simulate: it completes at once (further ones silently)");
        }
        Complete(std::move(node), Simulator::Now(), "");
        break;
    }
}

void
ChakraApplication::Complete(std::shared_ptr<const EtNode> node,
                            Time start,
                            const std::string& lane,
                            const std::vector<std::pair<std::string, std::string>>& args)
{
    --m_running;
    const Time end = Simulator::Now();
    const Time relStart = start - m_replayStart;
    const Time relEnd = end - m_replayStart;
    const bool compute = node->GetType() == ChakraProtoMsg::COMP_NODE ||
                         node->GetType() == ChakraProtoMsg::MEM_LOAD_NODE ||
                         node->GetType() == ChakraProtoMsg::MEM_STORE_NODE;
    const bool comm = node->GetType() == ChakraProtoMsg::COMM_COLL_NODE ||
                      node->GetType() == ChakraProtoMsg::COMM_SEND_NODE ||
                      node->GetType() == ChakraProtoMsg::COMM_RECV_NODE;
    if (end > start)
    {
        if (compute)
        {
            m_computeIntervals.emplace_back(relStart, relEnd);
        }
        else if (comm)
        {
            m_commIntervals.emplace_back(relStart, relEnd);
        }
        if (m_timeline && !lane.empty())
        {
            m_timeline->Add(m_rank, lane, node->GetName(),
                            compute ? "compute" : (comm ? "communication" : "other"), relStart,
                            relEnd, comm ? node->GetCommSize() : 0, args);
        }
    }
    m_nodeFinished(m_rank, node, relStart, relEnd);
    ++m_stats.nodes;

    std::string resource = ResourceOf(*node);
    if (!resource.empty())
    {
        auto& queue = m_resourceQueue[resource];
        if (queue.empty())
        {
            m_resourceBusy[resource] = false;
        }
        else
        {
            auto next = std::move(queue.front());
            queue.pop_front();
            Run(std::move(next));
        }
    }
    try
    {
        m_feeder->FreeChildrenNodes(node->GetId());
        m_feeder->RemoveNode(node->GetId());
    }
    catch (const std::exception& e)
    {
        Fail(e.what());
        return;
    }
    Pump();
}

void
ChakraApplication::RunCompute(std::shared_ptr<const EtNode> node)
{
    Time start = Simulator::Now();
    Time duration = m_computeModel->GetDuration(*node);
    std::string lane = ResourceOf(*node);
    // Always an event, even for zero durations: completing inline would recurse through a
    // stream's queue of waiting nodes.
    Simulator::Schedule(duration, [this, node, start, lane]() { Complete(node, start, lane); });
}

Communicator&
ChakraApplication::World()
{
    auto it = m_communicators.find("");
    if (it != m_communicators.end())
    {
        return it->second;
    }
    Communicator world;
    world.name = "";
    world.id = CommunicatorId("");
    std::vector<uint32_t> ranks;
    std::vector<uint32_t> hostOf;
    for (uint32_t r = 0; r < PeerCount(); ++r)
    {
        ranks.push_back(r);
        hostOf.push_back(HostOf(r));
    }
    world.ranks = ShareRankList(std::move(ranks));
    world.hostOf = ShareRankList(std::move(hostOf));
    world.myIndex = m_rank;
    return m_communicators[""] = world;
}

Communicator&
ChakraApplication::CommunicatorOf(const EtNode& node)
{
    std::string pg = node.GetPgName();
    auto it = m_communicators.find(pg);
    if (it != m_communicators.end())
    {
        return it->second;
    }
    if (pg.empty())
    {
        return World();
    }
    if (const std::vector<uint32_t>* members = m_commGroups ? m_commGroups->Find(pg) : nullptr)
    {
        // RunCollective has checked that this rank is a member.
        return m_communicators[pg] = MakeCommunicator(pg, *members);
    }
    // ASTRA-sim's default communicator, "0" (not listed in its file), is every rank.
    const bool numbered = pg.find_first_not_of("0123456789") == std::string::npos;
    if (m_declaredGroups)
    {
        Warn("process group '" + pg + "' (first named by " + node.Describe() +
             ") is not declared by a process_group:init node: using every rank");
    }
    else if (m_commGroups && pg != "0")
    {
        Warn("process group '" + pg + "' (first named by " + node.Describe() + ") is not in " +
             m_commGroups->path + ": using every rank");
    }
    else if (!m_commGroups && numbered && pg != "0")
    {
        // ASTRA-sim's traces name their communicators by number and list the members in a
        // separate file: without it a subgroup would wait for ranks that never call it.
        std::string prefix = m_tracePath;
        for (const char* suffix : {".gz", ".et"})
        {
            if (prefix.size() > std::strlen(suffix) &&
                prefix.compare(prefix.size() - std::strlen(suffix), std::string::npos, suffix) == 0)
            {
                prefix.erase(prefix.size() - std::strlen(suffix));
            }
        }
        prefix.erase(std::min(prefix.size(), prefix.find_last_of('.')));
        Warn("process group '" + pg + "' (first named by " + node.Describe() +
             ") is a communicator number, as in ASTRA-sim's traces, but neither a "
             "process_group:init node nor a comm-groups file (" + prefix +
             ".comm-groups.json, ASTRA-sim's --comm-group-configuration) lists its members: "
             "using every rank");
    }
    // An undeclared group spans every rank, but keeps its own name: its calls are numbered
    // apart from the world's, as they are on every rank.
    Communicator comm = World();
    comm.name = pg;
    comm.id = CommunicatorId(pg);
    return m_communicators[pg] = comm;
}

Communicator
ChakraApplication::MakeCommunicator(const std::string& name, std::vector<uint32_t> members) const
{
    Communicator comm;
    comm.name = name;
    comm.id = CommunicatorId(name);
    comm.myIndex = static_cast<uint32_t>(std::find(members.begin(), members.end(), m_rank) -
                                         members.begin());
    std::vector<uint32_t> hostOf;
    for (uint32_t r : members)
    {
        hostOf.push_back(HostOf(r));
    }
    comm.ranks = ShareRankList(std::move(members));
    comm.hostOf = ShareRankList(std::move(hostOf));
    return comm;
}

std::string
ChakraApplication::CommunicatorLabel(uint64_t id) const
{
    for (const auto& [name, comm] : m_communicators)
    {
        if (comm.id == id)
        {
            return name.empty() ? "the world communicator" : "communicator '" + name + "'";
        }
    }
    if (m_commGroups)
    {
        for (const auto& [name, members] : m_commGroups->groups)
        {
            if (CommunicatorId(name) == id)
            {
                return "communicator '" + name + "'";
            }
        }
    }
    if (id == CommunicatorId(""))
    {
        return "the world communicator";
    }
    // A group this rank never used: its name is only on the sender's side.
    return "a communicator this rank never used (id " + std::to_string(id) + ")";
}

std::string
ChakraApplication::DescribeUnreceived(const CommTransport::UnreceivedMessage& message) const
{
    const std::string sender = "rank " + std::to_string(message.src);
    const std::string node =
        message.call.IsKnown() ? "node " + std::to_string(message.call.node) + ", " : "";
    if (message.key.kind == MessageKey::P2P)
    {
        return sender + " sent " + std::to_string(message.bytes) + " bytes with tag " +
               std::to_string(message.key.tag) + " (" + node + "a send) and rank " +
               std::to_string(m_rank) + " has no receive from rank " +
               std::to_string(message.src) + " with that tag";
    }
    return sender + "'s message (tag " + std::to_string(message.key.tag) +
           ") of collective call #" + std::to_string(message.key.seq) + " of " +
           CommunicatorLabel(message.key.comm) + " (" + message.call.ToString() +
           " on rank " + std::to_string(message.src) + "): rank " + std::to_string(m_rank) +
           " never made that call";
}

CollectiveAlgorithmKind::Kind
ChakraApplication::AlgorithmFor(ChakraProtoMsg::CollectiveCommType type) const
{
    switch (type)
    {
    case ChakraProtoMsg::ALL_REDUCE:
        return m_allReduceAlgorithm;
    case ChakraProtoMsg::ALL_GATHER:
        return m_allGatherAlgorithm;
    case ChakraProtoMsg::REDUCE_SCATTER:
    case ChakraProtoMsg::REDUCE_SCATTER_BLOCK:
        return m_reduceScatterAlgorithm;
    case ChakraProtoMsg::ALL_TO_ALL:
        return m_allToAllAlgorithm;
    case ChakraProtoMsg::BROADCAST:
        return m_broadcastAlgorithm;
    case ChakraProtoMsg::REDUCE:
        return m_reduceAlgorithm;
    case ChakraProtoMsg::GATHER:
        return m_gatherAlgorithm;
    case ChakraProtoMsg::SCATTER:
        return m_scatterAlgorithm;
    default:
        return CollectiveAlgorithmKind::AUTO;
    }
}

uint32_t
ChakraApplication::ChunksFor(const std::string& algorithm, uint64_t bytes) const
{
    uint64_t chunkSize = m_chunkSize;
    if (chunkSize == 0)
    {
        chunkSize = algorithm == "tree" ? (1u << 20) : 0;
    }
    if (chunkSize == 0 || bytes <= chunkSize)
    {
        return 1;
    }
    uint64_t chunks = (bytes + chunkSize - 1) / chunkSize;
    return static_cast<uint32_t>(std::min<uint64_t>(chunks, m_maxChunks));
}

void
ChakraApplication::RunCollective(std::shared_ptr<const EtNode> node)
{
    const Time start = Simulator::Now();
    const std::string lane = ResourceOf(*node).empty() ? "communication" : ResourceOf(*node);
    std::optional<ChakraProtoMsg::CollectiveCommType> type;
    try
    {
        type = node->GetCommType();
    }
    catch (const TraceError& e)
    {
        FailOnTrace(e);
        return;
    }
    if (!type)
    {
        // Some reference-converter traces have collectives without comm_type: replay the
        // recorded duration rather than guess.
        if (!m_warnedOnce["no-comm-type"])
        {
            m_warnedOnce["no-comm-type"] = true;
            Warn(node->Describe() + ": COMM_COLL without comm_type: its recorded duration (" +
                 std::to_string(node->GetDurationMicros()) +
                 " us) is replayed (further ones silently)");
        }
        Time duration = NodeDuration(*node, "duration_micros", node->GetDurationMicros());
        Simulator::Schedule(duration, [this, node, start, lane]() { Complete(node, start, lane); });
        return;
    }
    // PyTorch returns from a collective on a group without the calling rank before the call
    // reaches the process group, so a real trace never has such a node: a trace set in which it
    // appears is inconsistent (for example rank files swapped or copied).
    if (m_communicators.count(node->GetPgName()) == 0 &&
        std::binary_search(m_foreignGroups.begin(),
                           m_foreignGroups.end(),
                           CommunicatorId(node->GetPgName())))
    {
        Fail(node->Describe() + ": rank " + std::to_string(m_rank) + " is not in process group '" +
             node->GetPgName() + "' (process_group:init), so it cannot call the group's collectives");
        return;
    }
    if (m_communicators.count(node->GetPgName()) == 0 && m_commGroups)
    {
        const std::vector<uint32_t>* members = m_commGroups->Find(node->GetPgName());
        if (members && std::find(members->begin(), members->end(), m_rank) == members->end())
        {
            Fail(node->Describe() + ": rank " + std::to_string(m_rank) + " is not in communicator '" +
                 node->GetPgName() + "' (" + m_commGroups->path +
                 "), so it cannot call its collectives");
            return;
        }
    }
    Communicator& comm = CommunicatorOf(*node);
    CollectiveRequest request;
    request.type = *type;
    if (!CheckCommSize(*node))
    {
        return;
    }
    request.bytes = NodeCommBytes(*node);
    request.size = comm.Size();
    request.me = comm.myIndex;
    request.hostOf = comm.hostOf;
    if (node->HasAttr("root_rank"))
    {
        auto rootRank = static_cast<uint32_t>(node->GetUint("root_rank"));
        NameRank(rootRank);
        auto it = std::find(comm.ranks->begin(), comm.ranks->end(), rootRank);
        if (it == comm.ranks->end())
        {
            Fail(node->Describe() + ": root_rank " + std::to_string(rootRank) +
                 " is not in process group '" + comm.name + "'");
            return;
        }
        request.root = static_cast<uint32_t>(it - comm.ranks->begin());
    }
    Time afterTransfer;
    try
    {
        afterTransfer = TimeAfterTransfer(*node, request.bytes);
    }
    catch (const TraceError& e)
    {
        FailOnTrace(e);
        return;
    }
    auto algorithm = ChooseCollectiveAlgorithm(AlgorithmFor(*type), request);
    request.chunks = ChunksFor(algorithm->GetName(), request.bytes);

    CommRecord record;
    record.rank = m_rank;
    record.nodeId = node->GetId();
    record.name = node->GetName();
    record.kind = CommTypeName(*type);
    record.bytes = request.bytes;
    record.pg = comm.name;
    record.commSize = comm.Size();
    record.algorithm = algorithm->GetName();
    record.seq = CallNumberOf(*node).value_or(0);
    record.start = start - m_replayStart;
    record.traceMicros = RecordedMicros(*node);

    CallSignature call;
    call.node = node->GetId();
    call.type = static_cast<uint8_t>(*type);
    call.bytes = request.bytes;
    call.root = request.root;

    const uint64_t id = node->GetId();
    const std::string pg = node->GetPgName();
    auto collective = std::make_shared<Collective>(
        m_transport, comm, record.seq, call, algorithm->Build(request),
        [this, node, start, lane, record, id, pg, afterTransfer]() mutable {
            // The messages are through; the call ends on this rank after its software cost
            // and this rank's own delay (both zero unless set).
            m_activeCollectives.erase(id);
            auto finish = [this, node, start, lane, record, id, pg]() mutable {
                record.end = Simulator::Now() - m_replayStart;
                m_commRecords.push_back(record);
                m_collectiveFinished(record);
                m_callNumbers.erase(id);
                m_finishingCollectives.erase(id);
                ++m_callOrders[pg].completed;
                StartParkedCalls(pg);
                // What the timeline shows with the call: which call of which communicator.
                Complete(node, start, lane,
                         {{"collective", record.kind},
                          {"communicator", record.pg.empty() ? "world" : record.pg},
                          {"call", std::to_string(record.seq)},
                          {"ranks", std::to_string(record.commSize)},
                          {"algorithm", record.algorithm}});
            };
            if (afterTransfer.IsZero())
            {
                finish();
            }
            else
            {
                m_finishingCollectives[id] = Simulator::Now() + afterTransfer;
                ScheduleMoved(afterTransfer, std::move(finish));
            }
        });
    m_activeCollectives[id] = collective;
    collective->Start();
}

Time
ChakraApplication::TimeAfterTransfer(const EtNode& node, uint64_t bytes) const
{
    double micros = m_collectiveOverhead.GetSeconds() * 1e6;
    if (m_collectiveOverheadRate.GetBitRate() > 0)
    {
        micros += static_cast<double>(bytes) * 8e6 /
                  static_cast<double>(m_collectiveOverheadRate.GetBitRate());
    }
    auto delay = m_callDelays.find(node.GetId());
    if (delay != m_callDelays.end())
    {
        micros += delay->second.GetSeconds() * 1e6;
    }
    // Bounded like any duration a trace hands over (a rate of a few bit/s would overflow Time).
    return micros > 0 ? NodeDuration(node, "collective overhead and call delay", micros) : Time();
}

bool
ChakraApplication::CheckCommSize(const EtNode& node)
{
    if (node.HasAttr("comm_size") || (node.GetType() == ChakraProtoMsg::COMM_COLL_NODE &&
                                      node.GetCommType() == ChakraProtoMsg::BARRIER))
    {
        return true;
    }
    NS_LOG_FUNCTION(this << node.GetId());
    if (m_missingCommSize == MISSING_SIZE_ERROR)
    {
        Fail(node.Describe() + ": no comm_size, so the size of the call is unknown "
                               "(MissingCommSize=error; 'warn' runs it as 0 bytes)");
        return false;
    }
    // Named in one warning at the end, with the count: one line per trace, not per node.
    constexpr std::size_t kListed = 10;
    if (m_sizelessIds.size() < kListed)
    {
        m_sizelessIds.push_back(node.GetId());
    }
    ++m_sizelessNodes;
    return true;
}

void
ChakraApplication::SetCallDelays(std::unordered_map<uint64_t, Time> delays)
{
    m_callDelays = std::move(delays);
}

void
ChakraApplication::SetCommGroups(std::shared_ptr<const CommGroupFile> groups)
{
    NS_LOG_FUNCTION(this << (groups ? groups->path : std::string()));
    m_commGroups = std::move(groups);
}

void
ChakraApplication::RunPointToPoint(std::shared_ptr<const EtNode> node)
{
    const Time start = Simulator::Now();
    const std::string lane = ResourceOf(*node).empty() ? "communication" : ResourceOf(*node);
    const bool send = node->GetType() == ChakraProtoMsg::COMM_SEND_NODE;
    std::optional<int64_t> peer;
    int64_t tag = 0;
    uint64_t bytes = 0;
    peer = send ? node->GetCommDst() : node->GetCommSrc();
    tag = node->GetCommTag().value_or(0);
    if (!CheckCommSize(*node))
    {
        return;
    }
    bytes = NodeCommBytes(*node);
    if (peer)
    {
        NameRank(*peer);
    }
    if (!peer || *peer < 0 || static_cast<uint64_t>(*peer) >= PeerCount())
    {
        Fail(node->Describe() + ": " + (send ? "comm_dst" : "comm_src") +
             (peer ? " " + std::to_string(*peer) + " is not a rank of this job (0.." +
                         std::to_string(PeerCount() - 1) + (*peer >= 0 ? "; a rank's trace missing?)" : ")")
                   : " is missing"));
        return;
    }
    MessageKey key;
    key.kind = MessageKey::P2P;
    key.tag = tag;

    CommRecord record;
    record.rank = m_rank;
    record.nodeId = node->GetId();
    record.name = node->GetName();
    record.kind = send ? "SEND" : "RECV";
    record.bytes = bytes;
    record.pg = node->GetPgName();
    record.commSize = 2;
    record.peer = *peer;
    record.start = start - m_replayStart;
    record.traceMicros = RecordedMicros(*node);

    const uint64_t id = node->GetId();
    m_activeP2p[id] = node->Describe() + ": " +
                      (send ? "send to rank " : "waits for a message from rank ") +
                      std::to_string(*peer) + " with tag " + std::to_string(tag) + " (" +
                      std::to_string(bytes) + " bytes)";
    auto done = [this, node, start, lane, record, id, tag]() mutable {
        record.end = Simulator::Now() - m_replayStart;
        m_commRecords.push_back(record);
        m_collectiveFinished(record);
        m_activeP2p.erase(id);
        Complete(node, start, lane,
                 {{record.kind == "SEND" ? "to" : "from", "rank " + std::to_string(record.peer)},
                  {"tag", std::to_string(tag)}});
    };
    CallSignature call;
    call.node = id;
    call.type = CallSignature::kPointToPoint;
    call.bytes = bytes;
    if (send)
    {
        m_transport->Send(static_cast<uint32_t>(*peer), key, bytes, done, call);
    }
    else
    {
        m_transport->Recv(static_cast<uint32_t>(*peer), key, bytes, done, call);
    }
}

void
ChakraApplication::RunMetadata(std::shared_ptr<const EtNode> node)
{
    if (node->GetName().find("process_group:init") != std::string::npos)
    {
        std::string error;
        auto groups = ParseProcessGroups(node->GetProto().inputs().values(), error);
        if (!error.empty())
        {
            Fail(node->Describe() + ": " + error);
            return;
        }
        m_declaredGroups = m_declaredGroups || !groups.empty();
        for (const auto& group : groups)
        {
            for (uint32_t r : group.ranks)
            {
                NameRank(r);
            }
            Communicator comm;
            comm.name = group.name;
            comm.id = CommunicatorId(group.name);
            std::vector<uint32_t> ranks = group.ranks;
            if (ranks.empty())
            {
                uint32_t size = group.size > 0 ? group.size : PeerCount();
                for (uint32_t r = 0; r < size; ++r)
                {
                    ranks.push_back(r);
                }
            }
            auto me = std::find(ranks.begin(), ranks.end(), m_rank);
            if (me == ranks.end())
            {
                // A group this rank is not part of: remembered, so that a collective on it
                // is an error rather than a call over every rank.
                auto at = std::lower_bound(m_foreignGroups.begin(), m_foreignGroups.end(), comm.id);
                if (at == m_foreignGroups.end() || *at != comm.id)
                {
                    m_foreignGroups.insert(at, comm.id);
                }
                continue;
            }
            comm.myIndex = static_cast<uint32_t>(me - ranks.begin());
            bool valid = true;
            std::vector<uint32_t> hostOf;
            for (uint32_t r : ranks)
            {
                valid = valid && r < PeerCount();
                hostOf.push_back(HostOf(r));
            }
            comm.ranks = ShareRankList(std::move(ranks));
            comm.hostOf = ShareRankList(std::move(hostOf));
            if (!valid)
            {
                Fail(node->Describe() + ": process group '" + group.name +
                     "' names a rank beyond the " + std::to_string(PeerCount()) +
                     " ranks of this job (a rank's trace missing?)");
                return;
            }
            m_communicators[comm.name] = comm;
        }
    }
    Complete(std::move(node), Simulator::Now(), "");
}

RankStats
ChakraApplication::GetStats()
{
    RankStats stats = m_stats;
    if (m_sizelessNodes > 0)
    {
        std::string ids;
        for (uint64_t id : m_sizelessIds)
        {
            ids += (ids.empty() ? "" : ", ") + std::to_string(id);
        }
        if (m_sizelessNodes > m_sizelessIds.size())
        {
            ids += " and " + std::to_string(m_sizelessNodes - m_sizelessIds.size()) + " more";
        }
        // First among the warnings: the report shows each rank's first one.
        stats.warnings.insert(stats.warnings.begin(),
                              m_tracePath + ": " + std::to_string(m_sizelessNodes) +
                                  " communication node(s) without comm_size ran as 0 bytes: " +
                                  "node(s) " + ids +
                                  " (MissingCommSize=error, or --strict, makes it an error)");
    }
    auto compute = Merge(m_computeIntervals);
    auto comm = Merge(m_commIntervals);
    stats.computeBusy = Total(compute);
    stats.commTime = Total(comm);
    stats.exposedComm = Uncovered(comm, compute);
    if (!stats.finished && stats.error.empty() && m_feeder)
    {
        // What holds the rank first (the calls and messages it waits for), then the nodes
        // that wait behind them: a report cut after its first lines still names the cause.
        for (const auto& [id, collective] : m_activeCollectives)
        {
            auto node = m_feeder->LookupNode(id);
            std::string prefix = node ? node->Describe() : "node " + std::to_string(id);
            const auto waiting = collective->DescribeWaiting();
            stats.stuck.push_back(prefix + ": " + collective->Describe() + ": " +
                                  std::to_string(waiting.size()) + " of its " +
                                  std::to_string(collective->GetStepCount()) +
                                  " steps not done; the first " +
                                  (waiting.empty() ? std::string("?") : waiting.front()));
        }
        for (const auto& [id, until] : m_finishingCollectives)
        {
            auto node = m_feeder->LookupNode(id);
            std::string prefix = node ? node->Describe() : "node " + std::to_string(id);
            stats.stuck.push_back(prefix + ": collective's messages are through; it ends at " +
                                  FormatMicros(until - m_replayStart) +
                                  " us, after its software cost and this rank's call delay");
        }
        for (const auto& [id, line] : m_activeP2p)
        {
            stats.stuck.push_back(line);
        }
        for (const auto& [resource, queue] : m_resourceQueue)
        {
            for (const auto& node : queue)
            {
                stats.stuck.push_back(node->Describe() + " queued behind " + resource);
            }
        }
        for (const auto& [pg, order] : m_callOrders)
        {
            for (const auto& [seq, node] : order.parked)
            {
                stats.stuck.push_back(
                    node->Describe() + ": call #" + std::to_string(seq) + " of " +
                    (pg.empty() ? std::string("the world communicator")
                                : "communicator '" + pg + "'") +
                    " waits for call #" +
                    (order.started < seq ? std::to_string(order.started) + " to start"
                                         : std::to_string(seq - 1) + " to complete") +
                    " (calls of a communicator run in program order)");
            }
        }
        if (m_transport)
        {
            // Messages of calls this rank has not reached yet wait here too: a few name them.
            const auto unreceived = m_transport->GetUnreceived();
            constexpr std::size_t kNamed = 3;
            for (std::size_t i = 0; i < unreceived.size() && i < kNamed; ++i)
            {
                stats.stuck.push_back("a message arrived that no receive has taken: " +
                                      DescribeUnreceived(unreceived[i]));
            }
            if (unreceived.size() > kNamed)
            {
                stats.stuck.push_back(std::to_string(unreceived.size() - kNamed) +
                                      " more messages arrived that no receive has taken");
            }
        }
        try
        {
            for (const auto& waiting : m_feeder->GetStuckNodes())
            {
                std::string line = "node " + std::to_string(waiting.id) + " (" + waiting.name +
                                   ") waits for parent node(s)";
                for (uint64_t parent : waiting.waitingFor)
                {
                    line += " " + std::to_string(parent);
                }
                stats.stuck.push_back(line);
            }
        }
        catch (const TraceError& e)
        {
            stats.stuck.push_back(e.what());
        }
        if (stats.stuck.empty())
        {
            stats.stuck.push_back(!m_replayStarted || !m_feeder
                                      ? "never started"
                                      : "no node waiting (the simulation stopped early?)");
        }
    }
    if (stats.finished && m_transport)
    {
        // Every model delivers a message whether a receive waits for it or not (an eager send
        // completes without one): once this rank has run its whole trace, a message still
        // waiting is one that nobody receives, which the job could not have run.
        const auto unreceived = m_transport->GetUnreceived();
        if (!unreceived.empty())
        {
            stats.finished = false;
            stats.error = "rank " + std::to_string(m_rank) + " ran its whole trace, but " +
                          std::to_string(unreceived.size()) +
                          " message(s) sent to it were never received: " +
                          DescribeUnreceived(unreceived.front());
            constexpr std::size_t kNamed = 3;
            for (std::size_t i = 1; i < unreceived.size() && i < kNamed; ++i)
            {
                stats.error += "; " + DescribeUnreceived(unreceived[i]);
            }
            if (unreceived.size() > kNamed)
            {
                stats.error += "; and " + std::to_string(unreceived.size() - kNamed) + " more";
            }
        }
    }
    if (m_transport)
    {
        for (const auto& error : m_transport->GetErrors())
        {
            stats.warnings.push_back(error);
        }
    }
    return stats;
}

} // namespace ns3
