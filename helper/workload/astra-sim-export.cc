#include "astra-sim-export.h"

#include "rank-trace-builder.h"

#include "ns3/communicator.h"
#include "ns3/et-reader.h"
#include "ns3/et-writer.h"
#include "ns3/temporary-file-guard.h"
#include "ns3/trace-error.h"
#include "ns3/trace-file.h"

#include <algorithm>
#include <cstdio>
#include <memory>
#include <set>
#include <stdexcept>

namespace ns3
{

namespace
{

/** \return true for the collectives ASTRA-sim's workload layer simulates */
bool
AstraSimRuns(int64_t type)
{
    return ChakraProtoMsg::CollectiveCommType_IsValid(static_cast<int>(type)) &&
           AstraSimRunsCollective(static_cast<ChakraProtoMsg::CollectiveCommType>(type));
}

/** \return the integer value of an attribute, whatever integer oneof holds it */
bool
IntegerOf(const ChakraProtoMsg::AttributeProto& attribute, int64_t& value)
{
    using A = ChakraProtoMsg::AttributeProto;
    switch (attribute.value_case())
    {
    case A::kInt32Val:
        value = attribute.int32_val();
        return true;
    case A::kInt64Val:
        value = attribute.int64_val();
        return true;
    case A::kUint32Val:
        value = attribute.uint32_val();
        return true;
    case A::kUint64Val:
        value = static_cast<int64_t>(attribute.uint64_val());
        return true;
    case A::kSint32Val:
        value = attribute.sint32_val();
        return true;
    case A::kSint64Val:
        value = attribute.sint64_val();
        return true;
    default:
        return false;
    }
}

/** \return true if the text is a non-negative decimal integer (what ASTRA-sim's stoi takes) */
bool
IsCommunicatorId(const std::string& text)
{
    return !text.empty() && text.size() < 10 &&
           std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
}

bool
IsCommunication(ChakraProtoMsg::NodeType type)
{
    return type == ChakraProtoMsg::COMM_COLL_NODE || type == ChakraProtoMsg::COMM_SEND_NODE ||
           type == ChakraProtoMsg::COMM_RECV_NODE;
}

} // namespace

bool
AstraSimRunsCollective(ChakraProtoMsg::CollectiveCommType type)
{
    return type == ChakraProtoMsg::ALL_REDUCE || type == ChakraProtoMsg::ALL_GATHER ||
           type == ChakraProtoMsg::REDUCE_SCATTER || type == ChakraProtoMsg::ALL_TO_ALL;
}

void
AddAstraSimGroups(const std::string& values,
                  std::vector<ProcessGroupSpec>& declared,
                  const std::string& path,
                  uint64_t node)
{
    std::string error;
    std::vector<ProcessGroupSpec> groups = ParseProcessGroups(values, error);
    if (!error.empty())
    {
        throw TraceError(path, "node " + std::to_string(node), error);
    }
    for (auto& group : groups)
    {
        if (group.ranks.empty())
        {
            for (uint32_t r = 0; r < group.size; ++r)
            {
                group.ranks.push_back(r);
            }
        }
        auto same = std::find_if(declared.begin(), declared.end(), [&](const auto& g) {
            return g.name == group.name;
        });
        if (same == declared.end())
        {
            declared.push_back(group);
        }
        else if (same->ranks != group.ranks)
        {
            throw TraceError(path,
                             "node " + std::to_string(node),
                             "process group '" + group.name +
                                 "' has other members than on an earlier rank");
        }
    }
}

AstraSimExport
PlanAstraSimGroups(const std::vector<ProcessGroupSpec>& declared, uint32_t ranks)
{
    AstraSimExport plan;
    std::vector<uint32_t> world;
    for (uint32_t r = 0; r < ranks; ++r)
    {
        world.push_back(r);
    }
    uint32_t next = 1;
    bool defaultTaken = false;
    for (const auto& group : declared)
    {
        if (group.ranks == world && !defaultTaken)
        {
            plan.groupIds[group.name] = "0"; // ASTRA-sim's default communicator: every NPU
            defaultTaken = true;
            continue;
        }
        const std::string id = std::to_string(next++);
        plan.groupIds[group.name] = id;
        std::vector<uint32_t> members = group.ranks;
        std::sort(members.begin(), members.end());
        plan.groups[id] = members;
    }
    return plan;
}

void
RewriteForAstraSim(ChakraProtoMsg::Node& node,
                   const AstraSimExport& plan,
                   const std::set<uint64_t>& dropped,
                   const std::string& path)
{
    const std::string where = "node " + std::to_string(node.id()) + " (" + node.name() + ")";
    auto keep = [&](google::protobuf::RepeatedField<uint64_t>* deps) {
        auto end = std::remove_if(deps->begin(), deps->end(), [&](uint64_t dep) {
            return dropped.count(dep) > 0;
        });
        deps->Truncate(static_cast<int>(end - deps->begin()));
    };
    keep(node.mutable_data_deps());
    keep(node.mutable_ctrl_deps());
    if (!IsCommunication(node.type()))
    {
        return;
    }
    bool cpu = false;
    for (auto& attribute : *node.mutable_attr())
    {
        int64_t value = 0;
        if (attribute.name() == "is_cpu_op")
        {
            // ASTRA-sim refuses communication on the CPU ("Comm node should not be on CPU").
            attribute.set_bool_val(false);
            cpu = true;
        }
        else if (attribute.name() == "comm_type" && node.type() == ChakraProtoMsg::COMM_COLL_NODE &&
                 IntegerOf(attribute, value) && !AstraSimRuns(value))
        {
            const std::string name =
                ChakraProtoMsg::CollectiveCommType_IsValid(static_cast<int>(value))
                    ? ChakraProtoMsg::CollectiveCommType_Name(
                          static_cast<ChakraProtoMsg::CollectiveCommType>(value))
                    : std::to_string(value);
            throw TraceError(path,
                             where,
                             "collective type " + name +
                                 ": ASTRA-sim runs all-reduce, all-gather, reduce-scatter and "
                                 "all-to-all only");
        }
        else if (attribute.name() == "pg_name")
        {
            const std::string pg = attribute.string_val();
            auto id = plan.groupIds.find(pg);
            if (id != plan.groupIds.end())
            {
                attribute.set_string_val(id->second);
            }
            else if (!pg.empty() && !IsCommunicatorId(pg))
            {
                throw TraceError(path,
                                 where,
                                 "pg_name '" + pg +
                                     "' is not a declared process group, and ASTRA-sim needs a "
                                     "number");
            }
        }
    }
    if (!cpu)
    {
        auto* attribute = node.add_attr();
        attribute->set_name("is_cpu_op");
        attribute->set_bool_val(false);
    }
}

std::string
AstraSimCommGroupsJson(const AstraSimExport& plan)
{
    std::string json = "{";
    for (const auto& [id, members] : plan.groups)
    {
        json += std::string(json.size() > 1 ? ",\n " : "\n ") + "\"" + id + "\": [";
        for (std::size_t i = 0; i < members.size(); ++i)
        {
            json += (i > 0 ? ", " : "") + std::to_string(members[i]);
        }
        json += "]";
    }
    json += plan.groups.empty() ? "}\n" : "\n}\n";
    return json;
}

AstraSimExport
ExportForAstraSim(const std::string& prefix, uint32_t ranks)
{
    // Pass 1: the process groups every rank declares, ids in the order of declaration.
    std::vector<ProcessGroupSpec> declared;
    for (uint32_t rank = 0; rank < ranks; ++rank)
    {
        const std::string path = RankTraceBuilder::Path(prefix, rank);
        EtReader reader(path);
        ChakraProtoMsg::Node node;
        while (reader.ReadNode(node))
        {
            if (node.type() == ChakraProtoMsg::METADATA_NODE)
            {
                AddAstraSimGroups(node.inputs().values(), declared, path, node.id());
            }
        }
    }
    AstraSimExport result = PlanAstraSimGroups(declared, ranks);

    // Pass 2: every file rewritten under a temporary name; renamed only when all succeeded.
    std::vector<std::string> written;
    // The staged files are whole traces under another name: a signal before they are renamed
    // into place removes them (armed before each is created).
    std::vector<TemporaryFileGuard> stagedGuards;
    auto discard = [&]() {
        for (const auto& file : written)
        {
            std::remove(file.c_str());
        }
    };
    try
    {
        for (uint32_t rank = 0; rank < ranks; ++rank)
        {
            const std::string path = RankTraceBuilder::Path(prefix, rank);
            EtReader reader(path);
            const std::string staged = path + ".astra-sim";
            stagedGuards.emplace_back(staged);
            EtWriter writer(staged, reader.GetMetadata());
            std::set<uint64_t> dropped;
            ChakraProtoMsg::Node node;
            while (reader.ReadNode(node))
            {
                if (node.type() == ChakraProtoMsg::METADATA_NODE)
                {
                    dropped.insert(node.id());
                    continue;
                }
                RewriteForAstraSim(node, result, dropped, path);
                writer.WriteNode(node);
            }
            writer.Commit();
            written.push_back(staged);
        }
        result.commGroupFile = prefix + ".comm-groups.json";
        AtomicOutputFile groups(result.commGroupFile);
        groups.Write(AstraSimCommGroupsJson(result));
        groups.Commit();
    }
    catch (...)
    {
        discard();
        throw;
    }
    for (uint32_t rank = 0; rank < ranks; ++rank)
    {
        const std::string path = RankTraceBuilder::Path(prefix, rank);
        if (std::rename(written[rank].c_str(), path.c_str()) != 0)
        {
            throw TraceError(path, "", "cannot replace it with its ASTRA-sim version");
        }
    }
    return result;
}

} // namespace ns3
