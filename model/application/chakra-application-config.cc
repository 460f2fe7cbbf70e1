/*
 * ChakraApplication's configuration: its attributes and what they make of a collective call
 * (its algorithm, chunks and software cost), and the plain accessors a helper uses before and
 * after the run. The replay itself is in chakra-application.cc.
 */
#include "chakra-application.h"
#include "trace-limits.h"

#include "ns3/boolean.h"
#include "ns3/data-rate.h"
#include "ns3/enum.h"
#include "ns3/object-factory.h"
#include "ns3/pointer.h"
#include "ns3/string.h"
#include "ns3/uinteger.h"

#include <algorithm>

namespace ns3
{

namespace
{

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
ChakraApplication::AddReplayAttributes(TypeId tid)
{
    return tid
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
                      EnumValue(CollectiveCallOrder::POSTED),
                      MakeEnumAccessor(&ChakraApplication::m_callOrderMode),
                      MakeEnumChecker(CollectiveCallOrder::POSTED,
                                      "posted",
                                      CollectiveCallOrder::SERIAL,
                                      "serial"))
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
        .AddAttribute(
            "CtrlDeps",
            "Whether a node waits for its ctrl_deps: 'honour', 'ignore', or 'auto' "
            "(honour, except in traces of the reference Chakra converter, whose "
            "ctrl_deps are call-tree links with cycles: ignored there, with a "
            "warning).",
            EnumValue(CTRL_AUTO),
            MakeEnumAccessor(&ChakraApplication::m_ctrlDeps),
            MakeEnumChecker(CTRL_AUTO, "auto", CTRL_HONOUR, "honour", CTRL_IGNORE, "ignore"))
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
        .AddAttribute(
            "CommRecords",
            "Which completed operations the rank keeps a record of for the report "
            "(comm-ops.csv, collectives.csv): 'all' (every collective and "
            "point-to-point operation) or 'collectives' (point-to-point operations "
            "are counted, not kept: a record is about 100 bytes, and a step with "
            "tensor ring exchanges or context-parallel rings has tens of thousands of "
            "sends and receives a rank). The CollectiveFinished trace source fires "
            "for every operation either way.",
            EnumValue(COMM_RECORDS_ALL),
            MakeEnumAccessor(&ChakraApplication::m_commRecords),
            MakeEnumChecker(COMM_RECORDS_ALL, "all", COMM_RECORDS_COLLECTIVES, "collectives"))
        .AddAttribute("WindowSize",
                      "Nodes the feeder holds in memory (and looks ahead for ready nodes).",
                      UintegerValue(65536),
                      MakeUintegerAccessor(&ChakraApplication::m_windowSize),
                      MakeUintegerChecker<uint32_t>(1))
        .AddAttribute("TrimNodes",
                      "Drop from each node as it is read the fields no part of the simulation "
                      "reads (the host trace's provenance attributes, and the tensor inputs and "
                      "outputs of all but METADATA nodes: DropUnsimulatedFields), so that the "
                      "nodes a rank holds cost less; false: NodeIssued sees the nodes whole.",
                      BooleanValue(true),
                      MakeBooleanAccessor(&ChakraApplication::m_trimNodes),
                      MakeBooleanChecker())
        .AddAttribute("RankShift",
                      "The trace is a role's (<prefix>.roles.json): the rank ids it names (send "
                      "and receive peers, process group members, roots) are rotated, and its "
                      "group names renumbered, as this text says: turns separated by ';', each "
                      "'k,stride,period' (the digit d = (x / stride) % period of a rank x becomes "
                      "(d + k) % period) then ',prefix:s' per group name '<prefix><n>' that "
                      "becomes '<prefix><n + s x k>'. '': the ids as written (RankShift::ToText).",
                      StringValue(""),
                      MakeStringAccessor(&ChakraApplication::m_rankShiftText),
                      MakeStringChecker())
        .AddAttribute("SharedNodes",
                      "Read the trace's nodes from a store shared with every rank that reads "
                      "the same file (traces per role), parsed once, instead of a copy per "
                      "rank; the file is read whole when the first rank opens it.",
                      BooleanValue(false),
                      MakeBooleanAccessor(&ChakraApplication::m_sharedNodes),
                      MakeBooleanChecker());
}

bool
ChakraApplication::ConfigureRankShift()
{
    std::string error;
    RankShift shift = RankShift::FromText(m_rankShiftText, error);
    if (!error.empty())
    {
        Fail("RankShift '" + m_rankShiftText + "': " + error);
        return false;
    }
    m_shift = shift;
    m_communicators.SetRankShift(std::move(shift));
    return true;
}

TypeId
ChakraApplication::AddCollectiveAttributes(TypeId tid)
{
    return tid
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
                      MakeDataRateChecker());
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

void
ChakraApplication::Configure(uint32_t rank,
                             const std::vector<Address>& peers,
                             const std::vector<uint32_t>& hostOf)
{
    Configure(rank, std::make_shared<const std::vector<Address>>(peers), ShareRankList(hostOf));
}

uint32_t
ChakraApplication::PeerCount() const
{
    return m_peers ? static_cast<uint32_t>(m_peers->size()) : 0;
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
    return m_stats.GetCommRecords();
}

bool
ChakraApplication::HasCommunicated() const
{
    return m_stats.HasCommunicated();
}

std::shared_ptr<const std::vector<CommRecord>>
ChakraApplication::ShareCommRecords() const
{
    return m_stats.ShareCommRecords();
}

} // namespace ns3
