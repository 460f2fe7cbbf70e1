#include "chakra-application.h"

#include "node-trim.h"
#include "timeline-writer.h"
#include "trace-limits.h"

#include "ns3/et-attribute.h"
#include "ns3/log.h"
#include "ns3/schedule-moved.h"
#include "ns3/simulator.h"
#include "ns3/text-format.h"
#include "ns3/trace-error.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("ChakraApplication");
NS_OBJECT_ENSURE_REGISTERED(ChakraApplication);

namespace
{

/** The trace's duration, with the sub-microsecond part when the converter kept it. */
double
RecordedMicros(const EtNode& node)
{
    const double micros =
        node.GetDouble("duration_exact_micros", static_cast<double>(node.GetDurationMicros()));
    NodeDuration(node, "duration_exact_micros", micros); // checked: it is reported
    return micros;
}

/**
 * Reads the training step a generated trace states (model_flops_per_step, tokens_per_step,
 * gpu_peak_flops), so that the report can give throughput and MFU.
 * \return false if the metadata does not state one
 * \throws TraceError naming the trace and key when a value is not a positive number
 */
bool
ReadTrainingStep(const std::string& tracePath,
                 const EtAttributeList& metadata,
                 double& flops,
                 uint64_t& tokens,
                 double& peak)
{
    const auto* flopsAttr = FindAttribute(metadata, "model_flops_per_step");
    const auto* tokensAttr = FindAttribute(metadata, "tokens_per_step");
    const auto* peakAttr = FindAttribute(metadata, "gpu_peak_flops");
    if (flopsAttr == nullptr && tokensAttr == nullptr && peakAttr == nullptr)
    {
        return false;
    }
    std::string why;
    auto bad = [&](const std::string& key) {
        return TraceError(tracePath,
                          "metadata '" + key + "'",
                          why.empty() ? std::string("must be a positive number") : why);
    };
    if (flopsAttr == nullptr || !AttributeToDouble(*flopsAttr, flops, why) || !(flops > 0) ||
        !std::isfinite(flops))
    {
        throw bad("model_flops_per_step");
    }
    if (tokensAttr == nullptr || !AttributeToUint64(*tokensAttr, tokens, why) || tokens == 0)
    {
        throw bad("tokens_per_step");
    }
    if (peakAttr == nullptr || !AttributeToDouble(*peakAttr, peak, why) || !(peak > 0) ||
        !std::isfinite(peak))
    {
        throw bad("gpu_peak_flops");
    }
    return true;
}

} // namespace

TypeId
ChakraApplication::GetTypeId()
{
    static TypeId tid =
        AddCollectiveAttributes(AddReplayAttributes(TypeId("ns3::ChakraApplication")
                                                        .SetParent<Application>()
                                                        .SetGroupName("Chakra")
                                                        .AddConstructor<ChakraApplication>()))
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
    NS_LOG_FUNCTION(this);
    m_activeCollectives.clear();
    m_callOrder.Clear();
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
    NS_LOG_FUNCTION(this << rank);
    m_rank = rank;
    m_peers = peers ? std::move(peers) : std::make_shared<const std::vector<Address>>();
    m_communicators.Configure(rank, PeerCount(), std::move(hostOf));
    m_stats.SetRank(rank);
}

void
ChakraApplication::SetTimeline(std::shared_ptr<TimelineWriter> timeline, uint32_t timelineRank)
{
    NS_LOG_FUNCTION(this << timeline.get() << timelineRank);
    m_timeline = std::move(timeline);
    m_timelineRank = timelineRank;
}

void
ChakraApplication::SetTransport(Ptr<CommTransport> transport)
{
    NS_LOG_FUNCTION(this << transport);
    m_transport = transport;
}

void
ChakraApplication::StartApplication()
{
    NS_LOG_FUNCTION(this << m_rank);
    if (!m_computeModel)
    {
        m_computeModel = CreateObject<ComputeModel>();
    }
    m_callOrder.SetMode(m_callOrderMode);
    m_communicators.SetWarnings(m_tracePath, [this](const std::string& message) { Warn(message); });
    if (!ConfigureRankShift() || !OpenTrace())
    {
        return;
    }
    m_transport->Setup(GetNode(), m_rank, m_peers);
    m_transport->SetFatalHandler([this](const std::string& message) { FailRun(message); });
    m_transport->Start();
    m_replayStart = Simulator::Now() + m_replayDelay;
    m_replayStarted = false;
    // A timeline of several jobs shows them on one clock: a job that starts later is later.
    m_timelineOrigin = m_timelineRank == kOwnRank ? Time(0) : Simulator::Now();
    NS_LOG_INFO("rank " << m_rank << " starts: trace " << m_tracePath << ", "
                        << m_transport->GetInstanceTypeId().GetName() << ", replay in "
                        << (m_replayDelay + m_startOffset).As(Time::US));
    Simulator::Schedule(m_replayDelay + m_startOffset, &ChakraApplication::BeginReplay, this);
}

bool
ChakraApplication::OpenTrace()
{
    NS_LOG_FUNCTION(this << m_tracePath);
    try
    {
        EtFeederOptions options;
        options.windowSize = m_windowSize;
        options.honourCtrlDeps = m_ctrlDeps != CTRL_IGNORE;
        options.honourDataDeps = m_honourDataDeps;
        options.danglingAsSatisfied = m_danglingDeps == DANGLING_WARN;
        options.warn = [this](const std::string& message) { Warn(message); };
        options.onRead = [this](const EtNode& node) { m_callOrder.Number(node); };
        if (m_trimNodes)
        {
            // Every rank's window (WindowSize: 65,536 nodes) holds the whole trace on most jobs:
            // what a held node keeps is paid per node per rank (doc/workloads.md, the DLRM job
            // scaled).
            options.trim = DropUnsimulatedFields;
        }
        GetTransport();
        if (m_sharedNodes)
        {
            // Ranks that read the same file (a role's trace) share its parsed nodes.
            m_feeder = std::make_unique<EtFeeder>(
                EtNodeStore::Shared(m_tracePath,
                                    m_trimNodes ? "DropUnsimulatedFields" : "",
                                    m_trimNodes ? options.trim : EtNodeStore::TrimFn()),
                options);
        }
        else
        {
            m_feeder = std::make_unique<EtFeeder>(m_tracePath, options);
        }
        m_worldSizeKnown = FindAttribute(m_feeder->GetMetadata().attr(), "world_size") != nullptr;
        double stepFlops = 0;
        uint64_t stepTokens = 0;
        double gpuPeak = 0;
        if (ReadTrainingStep(m_tracePath,
                             m_feeder->GetMetadata().attr(),
                             stepFlops,
                             stepTokens,
                             gpuPeak))
        {
            m_stats.SetTrainingStep(stepFlops, stepTokens, gpuPeak);
        }
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
        return false;
    }
    catch (const std::invalid_argument& e)
    {
        Fail(e.what());
        return false;
    }
    return true;
}

void
ChakraApplication::StopApplication()
{
    NS_LOG_FUNCTION(this << m_rank);
}

void
ChakraApplication::BeginReplay()
{
    NS_LOG_FUNCTION(this << m_rank);
    NS_LOG_INFO("rank " << m_rank << " begins its replay");
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
    NS_LOG_FUNCTION(this << m_rank);
    m_failed = true;
    // Every error names the trace it comes from (node descriptions do not).
    const bool named = m_tracePath.empty() || message.find(m_tracePath) != std::string::npos;
    m_stats.SetError(named ? message : m_tracePath + ": " + message);
    NS_LOG_ERROR("rank " << m_rank << ": " << m_stats.GetError());
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
    m_stats.AddWarning(message);
    NS_LOG_WARN("rank " << m_rank << ": " << message);
}

void
ChakraApplication::WarnOnce(const std::string& key, const std::string& message)
{
    if (!m_warnedOnce[key])
    {
        m_warnedOnce[key] = true;
        Warn(message);
    }
}

void
ChakraApplication::Pump()
{
    NS_LOG_FUNCTION(this << m_rank);
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
            m_stats.SetFinished(Simulator::Now() - m_replayStart);
            NS_LOG_INFO("rank " << m_rank << " finished its trace at "
                                << (Simulator::Now() - m_replayStart).As(Time::US)
                                << " after the replay start");
        }
    }
    catch (const TraceError& e)
    {
        FailOnTrace(e);
    }
    m_pumping = false;
}

void
ChakraApplication::Issue(std::shared_ptr<const EtNode> node)
{
    NS_LOG_FUNCTION(this << node->GetId());
    // Only collective calls are numbered: the others skip the lookup (a cache miss per node).
    auto seq = node->GetType() == ChakraProtoMsg::COMM_COLL_NODE
                   ? m_callOrder.NumberOf(node->GetId())
                   : std::nullopt;
    if (!seq)
    {
        IssueToResource(std::move(node));
        return;
    }
    // A copy: the node may be parked, and the call order may drop it before StartParked.
    const std::string pg = node->GetPgName();
    if (!m_callOrder.TryStart(node, *seq))
    {
        return;
    }
    IssueToResource(std::move(node));
    m_callOrder.StartParked(pg, [this](std::shared_ptr<const EtNode> next) {
        IssueToResource(std::move(next));
    });
}

void
ChakraApplication::IssueToResource(std::shared_ptr<const EtNode> node)
{
    NS_LOG_FUNCTION(this << node->GetId());
    NS_LOG_INFO("rank " << m_rank << " issues " << node->Describe());
    m_nodeIssued(m_rank, node);
    if (m_resources.Acquire(node))
    {
        Run(std::move(node));
    }
}

void
ChakraApplication::Run(std::shared_ptr<const EtNode> node)
{
    NS_LOG_FUNCTION(this << node->GetId());
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
        WarnOnce("invalid",
                 node->Describe() + ": node type " + NodeTypeName(node->GetType()) +
                     " has nothing to simulate: it completes at once (further ones silently)");
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
    NS_LOG_FUNCTION(this << node->GetId() << start);
    NS_LOG_LOGIC("rank " << m_rank << ": node " << node->GetId() << " done after "
                         << (Simulator::Now() - start).As(Time::US));
    --m_running;
    if (Simulator::Now() > start)
    {
        RecordInterval(*node, start, lane, args);
    }
    m_nodeFinished(m_rank, node, start - m_replayStart, Simulator::Now() - m_replayStart);
    m_stats.CountNode();
    if (auto next = m_resources.Release(*node))
    {
        Run(std::move(next));
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
ChakraApplication::RecordInterval(const EtNode& node,
                                  Time start,
                                  const std::string& lane,
                                  const std::vector<std::pair<std::string, std::string>>& args)
{
    const Time relStart = start - m_replayStart;
    const Time relEnd = Simulator::Now() - m_replayStart;
    const bool compute = node.GetType() == ChakraProtoMsg::COMP_NODE ||
                         node.GetType() == ChakraProtoMsg::MEM_LOAD_NODE ||
                         node.GetType() == ChakraProtoMsg::MEM_STORE_NODE;
    const bool comm = node.GetType() == ChakraProtoMsg::COMM_COLL_NODE ||
                      node.GetType() == ChakraProtoMsg::COMM_SEND_NODE ||
                      node.GetType() == ChakraProtoMsg::COMM_RECV_NODE;
    if (compute)
    {
        m_stats.AddCompute(relStart, relEnd);
    }
    else if (comm)
    {
        m_stats.AddCommunication(
            relStart,
            relEnd,
            ClassifyCommunication(node.GetPgName(),
                                  node.GetType() != ChakraProtoMsg::COMM_COLL_NODE));
    }
    if (m_timeline && !lane.empty())
    {
        m_timeline->Add(m_timelineRank == kOwnRank ? m_rank : m_timelineRank,
                        lane,
                        node.GetName(),
                        compute ? "compute" : (comm ? "communication" : "other"),
                        m_timelineOrigin + relStart,
                        m_timelineOrigin + relEnd,
                        comm ? node.GetCommSize() : 0,
                        args);
    }
}

void
ChakraApplication::RunCompute(std::shared_ptr<const EtNode> node)
{
    NS_LOG_FUNCTION(this << node->GetId());
    Time start = Simulator::Now();
    Time duration = m_computeModel->GetDuration(*node);
    NS_LOG_LOGIC("rank " << m_rank << ": " << node->Describe() << " computes for "
                         << duration.As(Time::US));
    // The lane names the node's stream or thread on the timeline: without one, no name is built.
    std::string lane = m_timeline ? ResourceQueues::ResourceOf(*node) : std::string();
    // Always an event, even for zero durations: completing inline would recurse through a
    // stream's queue of waiting nodes.
    Simulator::Schedule(duration, [this, node, start, lane]() { Complete(node, start, lane); });
}

std::string
ChakraApplication::CommunicationLane(const EtNode& node) const
{
    if (!m_timeline)
    {
        return ""; // only the timeline shows lanes
    }
    const std::string resource = ResourceQueues::ResourceOf(node);
    return resource.empty() ? "communication" : resource;
}

void
ChakraApplication::RunUntypedCollective(std::shared_ptr<const EtNode> node,
                                        Time start,
                                        const std::string& lane)
{
    NS_LOG_FUNCTION(this << node->GetId());
    // Some reference-converter traces have collectives without comm_type: replay the
    // recorded duration rather than guess.
    WarnOnce("no-comm-type",
             node->Describe() + ": COMM_COLL without comm_type: its recorded duration (" +
                 std::to_string(node->GetDurationMicros()) +
                 " us) is replayed (further ones silently)");
    Time duration = NodeDuration(*node, "duration_micros", node->GetDurationMicros());
    Simulator::Schedule(duration, [this, node, start, lane]() { Complete(node, start, lane); });
}

bool
ChakraApplication::CheckMembership(const EtNode& node)
{
    // PyTorch returns from a collective on a group without the calling rank before the call
    // reaches the process group, so a real trace never has such a node: a trace set in which it
    // appears is inconsistent (for example rank files swapped or copied).
    if (m_communicators.IsForeign(node.GetPgName()))
    {
        Fail(node.Describe() + ": rank " + std::to_string(m_rank) + " is not in process group '" +
             node.GetPgName() +
             "' (process_group:init), so it cannot call the group's collectives");
        return false;
    }
    const CommGroupFile* groups = m_communicators.GetCommGroups();
    if (!m_communicators.Has(node.GetPgName()) && groups)
    {
        const std::vector<uint32_t>* members = groups->Find(node.GetPgName());
        if (members && std::find(members->begin(), members->end(), m_rank) == members->end())
        {
            Fail(node.Describe() + ": rank " + std::to_string(m_rank) +
                 " is not in communicator '" + node.GetPgName() + "' (" + groups->path +
                 "), so it cannot call its collectives");
            return false;
        }
    }
    return true;
}

void
ChakraApplication::RunCollective(std::shared_ptr<const EtNode> node)
{
    NS_LOG_FUNCTION(this << node->GetId());
    const Time start = Simulator::Now();
    const std::string lane = CommunicationLane(*node);
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
        RunUntypedCollective(std::move(node), start, lane);
        return;
    }
    if (!CheckMembership(*node))
    {
        return;
    }
    Communicator& comm = m_communicators.Of(*node);
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
        auto rootRank = static_cast<uint32_t>(MapRank(node->GetUint("root_rank")));
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
    record.seq = m_callOrder.NumberOf(node->GetId()).value_or(0);
    record.start = start - m_replayStart;
    record.traceMicros = RecordedMicros(*node);

    CallSignature call;
    call.node = node->GetId();
    call.type = static_cast<uint8_t>(*type);
    call.bytes = request.bytes;
    call.root = request.root;

    std::unique_ptr<CollectiveSchedule> schedule;
    try
    {
        schedule = algorithm->Build(request);
    }
    catch (const std::invalid_argument& e)
    {
        // The algorithm takes calls of this kind but not this one as configured (NCCL_ALGO
        // leaving it no algorithm, NVLS asked of GPUs without it): the user's setting. The
        // other ranks would wait for this one's messages: the run ends here.
        FailRun(node->Describe() + ": the " + algorithm->GetName() +
                " algorithm cannot run this call: " + e.what());
        return;
    }
    const uint64_t id = node->GetId();
    auto collective = std::make_shared<Collective>(
        m_transport,
        comm,
        record.seq,
        call,
        std::move(schedule),
        [this, node, start, lane, record, id, afterTransfer]() mutable {
            // The messages are through; the call ends on this rank after its software cost
            // and this rank's own delay (both zero unless set).
            m_activeCollectives.erase(id);
            if (afterTransfer.IsZero())
            {
                FinishCollective(node, start, lane, std::move(record));
                return;
            }
            m_finishingCollectives[id] = Simulator::Now() + afterTransfer;
            ScheduleMoved(afterTransfer,
                          [this, node, start, lane, record = std::move(record)]() mutable {
                              FinishCollective(node, start, lane, std::move(record));
                          });
        });
    NS_LOG_LOGIC("rank " << m_rank << ": " << record.kind << " call #" << record.seq << " of pg '"
                         << record.pg << "' (" << record.bytes << " bytes, " << record.algorithm
                         << ", " << request.chunks << " chunk(s)) starts");
    m_activeCollectives[id] = collective;
    collective->Start();
}

void
ChakraApplication::FinishCollective(std::shared_ptr<const EtNode> node,
                                    Time start,
                                    const std::string& lane,
                                    CommRecord record)
{
    NS_LOG_FUNCTION(this << node->GetId());
    const uint64_t id = node->GetId();
    record.end = Simulator::Now() - m_replayStart;
    NS_LOG_INFO("rank " << m_rank << ": " << record.kind << " call #" << record.seq << " of "
                        << (record.pg.empty() ? "the world" : "pg '" + record.pg + "'") << " ("
                        << record.bytes << " bytes, " << record.algorithm << ") completed in "
                        << (record.end - record.start).As(Time::US));
    m_stats.AddCommRecord(record);
    m_collectiveFinished(record);
    m_finishingCollectives.erase(id);
    m_callOrder.Completed(node->GetPgName(), id);
    m_callOrder.StartParked(node->GetPgName(), [this](std::shared_ptr<const EtNode> next) {
        IssueToResource(std::move(next));
    });
    if (!m_timeline)
    {
        Complete(std::move(node), start, lane);
        return;
    }
    // What the timeline shows with the call: which call of which communicator.
    Complete(std::move(node),
             start,
             lane,
             {{"collective", record.kind},
              {"communicator", record.pg.empty() ? "world" : record.pg},
              {"call", std::to_string(record.seq)},
              {"ranks", std::to_string(record.commSize)},
              {"algorithm", record.algorithm}});
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
    m_stats.AddSizelessNode(node.GetId());
    return true;
}

void
ChakraApplication::SetCallDelays(std::unordered_map<uint64_t, Time> delays)
{
    NS_LOG_FUNCTION(this << delays.size());
    m_callDelays = std::move(delays);
}

void
ChakraApplication::SetCommGroups(std::shared_ptr<const CommGroupFile> groups)
{
    NS_LOG_FUNCTION(this << (groups ? groups->path : std::string()));
    m_communicators.SetCommGroups(std::move(groups));
}

void
ChakraApplication::RunPointToPoint(std::shared_ptr<const EtNode> node)
{
    NS_LOG_FUNCTION(this << node->GetId());
    const Time start = Simulator::Now();
    const std::string lane = CommunicationLane(*node);
    const bool send = node->GetType() == ChakraProtoMsg::COMM_SEND_NODE;
    std::optional<int64_t> peer;
    int64_t tag = 0;
    uint64_t bytes = 0;
    peer = send ? node->GetCommDst() : node->GetCommSrc();
    if (peer)
    {
        peer = MapRank(*peer);
    }
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
                         std::to_string(PeerCount() - 1) +
                         (*peer >= 0 ? "; a rank's trace missing?)" : ")")
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
    record.pg = m_communicators.NameOf(node->GetPgName());
    record.commSize = 2;
    record.peer = *peer;
    record.start = start - m_replayStart;
    record.traceMicros = RecordedMicros(*node);

    const uint64_t id = node->GetId();
    // Described only if the rank is reported stuck (DescribeStuck).
    m_activeP2p[id] = ActiveP2p{node, send, *peer, tag, bytes};
    auto done = [this, node, start, lane, record, id, tag, send]() mutable {
        record.end = Simulator::Now() - m_replayStart;
        NS_LOG_INFO("rank " << m_rank << ": " << record.kind << (send ? " to" : " from") << " rank "
                            << record.peer << " (tag " << tag << ", " << record.bytes
                            << " bytes) completed in " << (record.end - record.start).As(Time::US));
        if (m_commRecords == COMM_RECORDS_ALL)
        {
            m_stats.AddCommRecord(record);
        }
        else
        {
            m_stats.CountUnrecordedP2p();
        }
        m_collectiveFinished(record);
        m_activeP2p.erase(id);
        if (!m_timeline)
        {
            Complete(node, start, lane);
            return;
        }
        Complete(node,
                 start,
                 lane,
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

int64_t
ChakraApplication::MapRank(int64_t rank) const
{
    return rank >= 0 && rank < static_cast<int64_t>(PeerCount())
               ? m_shift.Map(static_cast<uint32_t>(rank))
               : rank;
}

void
ChakraApplication::RunMetadata(std::shared_ptr<const EtNode> node)
{
    NS_LOG_FUNCTION(this << node->GetId());
    if (node->GetName().find("process_group:init") != std::string::npos)
    {
        // Every rank of a job usually declares the same groups, in the same text of O(ranks)
        // members: the last text read is parsed once for all of them (parsing it on each
        // rank was O(ranks^2) over the job, 5% of a 1,024-rank ring's run).
        static std::string lastText;
        static std::vector<ProcessGroupSpec> lastGroups;
        static std::string lastError;
        const std::string& text = node->GetProto().inputs().values();
        if (text != lastText || lastText.empty())
        {
            lastError.clear();
            lastGroups = ParseProcessGroups(text, lastError);
            lastText = text;
        }
        std::string error = lastError;
        const std::vector<ProcessGroupSpec>& groups = lastGroups;
        if (!error.empty())
        {
            Fail(node->Describe() + ": " + error);
            return;
        }
        NS_LOG_INFO("rank " << m_rank << ": " << groups.size() << " process group(s) declared");
        m_communicators.NoteDeclared(!groups.empty());
        for (const auto& group : groups)
        {
            for (uint32_t r : group.ranks)
            {
                NameRank(MapRank(r));
            }
            error = m_communicators.Declare(group);
            if (!error.empty())
            {
                Fail(node->Describe() + ": " + error);
                return;
            }
        }
    }
    Complete(std::move(node), Simulator::Now(), "");
}

} // namespace ns3
