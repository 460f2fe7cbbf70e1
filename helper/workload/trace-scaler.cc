#include "trace-scaler.h"

#include "ns3/communicator.h"
#include "ns3/et-attribute.h"
#include "ns3/et-reader.h"
#include "ns3/et-writer.h"
#include "ns3/log.h"
#include "ns3/name-suggestion.h"
#include "ns3/rank-traces.h"
#include "ns3/scaled-process-groups.h"
#include "ns3/trace-error.h"
#include "ns3/trace-set-output.h"
#include "ns3/workload-spec-check.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("TraceScaler");

namespace
{

/** The recorded job, as the first pass over its files found it. */
struct RecordedJob
{
    std::vector<std::string> files;       //!< by rank
    std::vector<ProcessGroupSpec> groups; //!< declared groups, first declaration order
    std::vector<int64_t> highestPeer;     //!< by rank: highest comm_src/comm_dst (-1: none)
};

/** What rewriting the nodes of one output rank needs. */
struct CopyContext
{
    uint32_t rank{0};                                   //!< r'
    uint32_t copy{0};                                   //!< r' / N
    uint32_t recordedRanks{0};                          //!< N
    const ScaledProcessGroups* plan{nullptr};           //!< the groups
    AllToAllScaling allToAll{AllToAllScaling::PerRank}; //!< all-to-all sizes
    std::string groupsJson;                             //!< the process_group:init text
};

/** \return true for a node that declares process groups */
bool
IsGroupDeclaration(const ChakraProtoMsg::Node& node)
{
    return node.type() == ChakraProtoMsg::METADATA_NODE &&
           node.name().find("process_group:init") != std::string::npos;
}

/** \return true for a communication node (collective, send, receive) */
bool
IsCommunication(const ChakraProtoMsg::Node& node)
{
    return node.type() == ChakraProtoMsg::COMM_COLL_NODE ||
           node.type() == ChakraProtoMsg::COMM_SEND_NODE ||
           node.type() == ChakraProtoMsg::COMM_RECV_NODE;
}

/** \return "node <id> (<name>)" */
std::string
Where(const ChakraProtoMsg::Node& node)
{
    return "node " + std::to_string(node.id()) + " (" + node.name() + ")";
}

/** \return the integer of \p attribute; throws TraceError naming the file and node */
int64_t
IntegerOf(const ChakraProtoMsg::AttributeProto& attribute,
          const ChakraProtoMsg::Node& node,
          const std::string& file)
{
    int64_t value = 0;
    std::string why;
    if (!AttributeToInt64(attribute, value, why))
    {
        throw TraceError(file, Where(node), attribute.name() + " " + why);
    }
    return value;
}

/**
 * Sets an integer attribute, keeping the oneof it was written with (the reference writers'
 * comm_src is an int32_val, comm_size an int64_val) so that the file reads as before.
 */
void
SetInteger(ChakraProtoMsg::AttributeProto& attribute, int64_t value)
{
    using A = ChakraProtoMsg::AttributeProto;
    switch (attribute.value_case())
    {
    case A::kInt32Val:
        attribute.set_int32_val(static_cast<int32_t>(value));
        break;
    case A::kUint32Val:
        attribute.set_uint32_val(static_cast<uint32_t>(value));
        break;
    case A::kUint64Val:
        attribute.set_uint64_val(static_cast<uint64_t>(value));
        break;
    case A::kSint32Val:
        attribute.set_sint32_val(static_cast<int32_t>(value));
        break;
    case A::kSint64Val:
        attribute.set_sint64_val(value);
        break;
    default:
        attribute.set_int64_val(value);
        break;
    }
}

/** Adds the groups of one process_group:init node to \p job, checking them against it. */
void
AddDeclaredGroups(const ChakraProtoMsg::Node& node, const std::string& file, RecordedJob& job)
{
    std::string error;
    const std::vector<ProcessGroupSpec> groups = ParseProcessGroups(node.inputs().values(), error);
    if (!error.empty())
    {
        throw TraceError(file, Where(node), "process_group:init: " + error);
    }
    for (const auto& group : groups)
    {
        auto same = std::find_if(job.groups.begin(), job.groups.end(), [&](const auto& known) {
            return known.name == group.name;
        });
        if (same == job.groups.end())
        {
            job.groups.push_back(group);
        }
        else if (same->ranks != group.ranks || same->size != group.size)
        {
            throw TraceError(file,
                             Where(node),
                             "process group '" + group.name +
                                 "' lists other ranks than an earlier declaration of it");
        }
    }
}

/** Reads every recorded rank once: the groups declared, the point-to-point peers. */
RecordedJob
ReadRecordedJob(const std::string& prefix)
{
    RecordedJob job;
    job.files = FindRankTraces(prefix);
    if (job.files.empty())
    {
        throw std::invalid_argument("--input " + prefix + ": no trace " + prefix +
                                    ".0.et (or .et.gz)");
    }
    for (const auto& file : job.files)
    {
        EtReader reader(file);
        int64_t highest = -1;
        ChakraProtoMsg::Node node;
        while (reader.ReadNode(node))
        {
            if (IsGroupDeclaration(node))
            {
                AddDeclaredGroups(node, file, job);
            }
            if (!IsCommunication(node))
            {
                continue;
            }
            for (const auto& attribute : node.attr())
            {
                if (attribute.name() == "comm_src" || attribute.name() == "comm_dst")
                {
                    const int64_t peer = IntegerOf(attribute, node, file);
                    if (peer < 0 || peer >= static_cast<int64_t>(job.files.size()))
                    {
                        throw TraceError(file,
                                         Where(node),
                                         attribute.name() + " " + std::to_string(peer) +
                                             " is not a rank of the " +
                                             std::to_string(job.files.size()) + "-rank job");
                    }
                    highest = std::max(highest, peer);
                }
            }
        }
        job.highestPeer.push_back(highest);
    }
    return job;
}

/**
 * Checks that every clone's point-to-point peer is a rank of the scaled job: with M not a
 * multiple of N the last copy is partial, and a message across replicas may leave it.
 */
void
CheckPeersFit(const RecordedJob& job, uint32_t ranks)
{
    const uint32_t n = static_cast<uint32_t>(job.files.size());
    for (uint32_t rank = 0; rank < n; ++rank)
    {
        const uint64_t lastCopy = (ranks - 1 - rank) / n;
        if (job.highestPeer[rank] >= 0 && lastCopy * n + job.highestPeer[rank] >= ranks)
        {
            throw std::invalid_argument(
                "--ranks " + std::to_string(ranks) + ": rank " +
                std::to_string(lastCopy * n + rank) + " (a copy of rank " + std::to_string(rank) +
                ") would exchange messages with rank " +
                std::to_string(lastCopy * n + job.highestPeer[rank]) +
                ", past the job: give a multiple of the " + std::to_string(n) + " recorded ranks");
        }
    }
}

/** \return the JSON list of groups a process_group:init node holds (RankTraceBuilder's form) */
std::string
GroupsJson(const std::vector<ProcessGroupSpec>& groups)
{
    nlohmann::json list = nlohmann::json::array();
    for (const auto& group : groups)
    {
        list.push_back(
            {{"pg_name", group.name}, {"ranks", group.ranks}, {"group_size", group.ranks.size()}});
    }
    return list.dump();
}

/** \return the name of a communication node's group ("" when it has no pg_name) */
std::string
GroupOf(const ChakraProtoMsg::Node& node)
{
    for (const auto& attribute : node.attr())
    {
        if (attribute.name() == "pg_name" && attribute.has_string_val())
        {
            return attribute.string_val();
        }
    }
    return "";
}

/** \return the comm_type of a collective node, or -1 */
int64_t
CommTypeOf(const ChakraProtoMsg::Node& node, const std::string& file)
{
    for (const auto& attribute : node.attr())
    {
        if (attribute.name() == "comm_type")
        {
            return IntegerOf(attribute, node, file);
        }
    }
    return -1;
}

/** \return \p size x \p factor, rounded; throws TraceError if it does not fit comm_size */
int64_t
ScaledSize(int64_t size, double factor, const ChakraProtoMsg::Node& node, const std::string& file)
{
    const double scaled = std::round(static_cast<double>(size) * factor);
    if (scaled >= static_cast<double>(std::numeric_limits<int64_t>::max()))
    {
        throw TraceError(file, Where(node), "comm_size x the group's growth overflows int64");
    }
    return static_cast<int64_t>(scaled);
}

/** Rewrites the attributes of a communication node for the copy (see ScaleTraceSet). */
void
ScaleCommunication(ChakraProtoMsg::Node& node, const CopyContext& context, const std::string& file)
{
    const std::string group = GroupOf(node);
    const bool dp = context.plan->IsDataParallel(group);
    const bool perPeer = context.allToAll == AllToAllScaling::PerPeer &&
                         node.type() == ChakraProtoMsg::COMM_COLL_NODE && dp &&
                         CommTypeOf(node, file) == ChakraProtoMsg::ALL_TO_ALL;
    const int64_t shift = static_cast<int64_t>(context.copy) * context.recordedRanks;
    for (auto& attribute : *node.mutable_attr())
    {
        const std::string& name = attribute.name();
        if (name == "pg_name" && attribute.has_string_val())
        {
            attribute.set_string_val(context.plan->ScaledName(group, context.copy));
        }
        else if (name == "comm_src" || name == "comm_dst" || (name == "root_rank" && !dp))
        {
            SetInteger(attribute, IntegerOf(attribute, node, file) + shift);
        }
        else if (name == "comm_size" && perPeer)
        {
            SetInteger(attribute,
                       ScaledSize(IntegerOf(attribute, node, file),
                                  context.plan->WideningFactor(group),
                                  node,
                                  file));
        }
    }
}

/** \return the recorded metadata with rank and world_size of output rank \p rank of \p ranks */
ChakraProtoMsg::GlobalMetadata
ScaledMetadata(ChakraProtoMsg::GlobalMetadata metadata, uint32_t rank, uint32_t ranks)
{
    bool hasRank = false;
    bool hasWorld = false;
    for (auto& attribute : *metadata.mutable_attr())
    {
        if (attribute.name() == "rank")
        {
            SetInteger(attribute, rank);
            hasRank = true;
        }
        else if (attribute.name() == "world_size")
        {
            SetInteger(attribute, ranks);
            hasWorld = true;
        }
    }
    // world_size is what tells FindRankTraces a set of M files from M files of two jobs.
    if (!hasWorld)
    {
        auto* attribute = metadata.add_attr();
        attribute->set_name("world_size");
        attribute->set_int64_val(ranks);
    }
    if (!hasRank)
    {
        auto* attribute = metadata.add_attr();
        attribute->set_name("rank");
        attribute->set_int64_val(rank);
    }
    return metadata;
}

/** Writes output rank context.rank from its recorded file to \p path. */
void
WriteRank(const std::string& recorded,
          const std::string& path,
          uint32_t ranks,
          const CopyContext& context)
{
    EtReader reader(recorded);
    EtWriter writer(path, ScaledMetadata(reader.GetMetadata(), context.rank, ranks));
    ChakraProtoMsg::Node node;
    while (reader.ReadNode(node))
    {
        if (IsGroupDeclaration(node))
        {
            node.mutable_inputs()->set_values(context.groupsJson);
        }
        else if (IsCommunication(node))
        {
            ScaleCommunication(node, context, recorded);
        }
        writer.WriteNode(node);
    }
    writer.Commit();
}

} // namespace

const std::vector<std::string>&
AllToAllScalingNames()
{
    static const std::vector<std::string> names = {"per-rank", "per-peer"};
    return names;
}

AllToAllScaling
ParseAllToAllScaling(const std::string& text)
{
    if (text == "per-rank")
    {
        return AllToAllScaling::PerRank;
    }
    if (text == "per-peer")
    {
        return AllToAllScaling::PerPeer;
    }
    throw std::invalid_argument("--alltoall-scaling '" + text +
                                "' is not one of per-rank, per-peer" +
                                DidYouMean(text, AllToAllScalingNames()));
}

TraceScaleResult
ScaleTraceSet(const TraceScaleSpec& spec)
{
    NS_LOG_FUNCTION(spec.input << spec.output << spec.ranks);
    if (spec.ranks == 0 || spec.ranks > workload::MaxRanks)
    {
        throw std::invalid_argument("--ranks must be between 1 and " +
                                    std::to_string(workload::MaxRanks) + ", got " +
                                    std::to_string(spec.ranks));
    }
    const RecordedJob job = ReadRecordedJob(spec.input);
    const auto n = static_cast<uint32_t>(job.files.size());
    ScaledProcessGroups plan(job.groups, n, spec.dpOnly);
    plan.SetScaledRanks(spec.ranks);
    CheckPeersFit(job, spec.ranks);

    TraceScaleResult result;
    result.recordedRanks = n;
    result.replicaSize = plan.GetReplicaSize();
    result.replicaGroups = plan.GetReplicaGroupNames();
    result.groups = plan.ScaledGroups();
    CopyContext context;
    context.recordedRanks = n;
    context.plan = &plan;
    context.allToAll = spec.allToAll;
    context.groupsJson = GroupsJson(result.groups);

    TraceSetOutput output(spec.output);
    for (uint32_t rank = 0; rank < spec.ranks; ++rank)
    {
        output.Expect("." + std::to_string(rank) + ".et");
    }
    for (uint32_t rank = 0; rank < spec.ranks; ++rank)
    {
        context.rank = rank;
        context.copy = rank / n;
        WriteRank(job.files[rank % n],
                  output.GetStagingPrefix() + "." + std::to_string(rank) + ".et",
                  spec.ranks,
                  context);
    }
    output.Commit();
    for (uint32_t rank = 0; rank < spec.ranks; ++rank)
    {
        result.files.push_back(spec.output + "." + std::to_string(rank) + ".et");
    }
    return result;
}

} // namespace ns3
