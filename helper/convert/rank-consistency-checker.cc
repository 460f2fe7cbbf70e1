/*
 * RankConsistencyChecker: reads each rank's .et (its process groups, collectives and messages)
 * and compares them across the ranks.
 */
#include "rank-consistency-checker.h"

#include "ns3/communicator.h"
#include "ns3/compact-id-set.h"
#include "ns3/et-reader.h"
#include "ns3/trace-error.h"

#include <algorithm>
#include <regex>

namespace ns3
{

namespace
{

/** Entries kept in each list of the report. */
constexpr std::size_t kMaxListed = 100;

std::string
Describe(const std::string& path, uint64_t id, const std::string& name)
{
    return path + ": node " + std::to_string(id) + " (" + name + ")";
}

/** "ALL_REDUCE of 4 bytes" (", root 2" for rooted calls) */
std::string
DescribeCall(const CollectiveEntry& entry)
{
    std::string text = (entry.type < 0 ? std::string("no comm_type")
                                       : CommTypeName(static_cast<int>(entry.type))) +
                       " of " + std::to_string(entry.size) + " bytes";
    if (entry.root >= 0)
    {
        text += ", root " + std::to_string(entry.root);
    }
    return text;
}

/** Sizes of these collectives may differ between ranks. */
bool
SizeMayDiffer(int64_t type)
{
    return type == ChakraProtoMsg::ALL_TO_ALL || type == ChakraProtoMsg::GATHER ||
           type == ChakraProtoMsg::SCATTER;
}

} // namespace

RankConsistencyChecker::RankConsistencyChecker(RankConsistencyReport& report,
                                               const RankConsistencyOptions& options)
    : m_report(report),
      m_options(options)
{
}

void
RankConsistencyChecker::Run(const std::vector<std::string>& paths)
{
    for (std::size_t k = 0; k < paths.size(); ++k)
    {
        Read(paths[k], static_cast<int64_t>(k));
    }
    CompareCollectives();
    MatchMessages();
    CheckJobSize();
    CheckGpus();
}

void
RankConsistencyChecker::Mismatch(const std::string& what)
{
    ++m_report.mismatchCount;
    if (m_report.mismatches.size() < kMaxListed)
    {
        m_report.mismatches.push_back(what);
    }
}

void
RankConsistencyChecker::Warning(const std::string& what)
{
    ++m_report.warningCount;
    if (m_report.warnings.size() < kMaxListed)
    {
        m_report.warnings.push_back(what);
    }
}

void
RankConsistencyChecker::Note(const std::string& what)
{
    ++m_report.noteCount;
    if (m_report.notes.size() < kMaxListed)
    {
        m_report.notes.push_back(what);
    }
}

int64_t
RankConsistencyChecker::RankOf(const std::string& path,
                               const ChakraProtoMsg::GlobalMetadata& metadata,
                               int64_t position)
{
    for (const auto& attr : metadata.attr())
    {
        if (attr.name() == "rank")
        {
            int64_t value = 0;
            std::string why;
            if (AttributeToInt64(attr, value, why) && value >= 0)
            {
                return value;
            }
        }
    }
    static const std::regex pattern(R"(\.([0-9]+)\.et(\.gz)?$)");
    std::smatch match;
    if (std::regex_search(path, match, pattern))
    {
        return std::stoll(match[1].str());
    }
    return position;
}

void
RankConsistencyChecker::ReadGroups(const EtNode& node, RankFile& trace)
{
    // The simulator's own reader: JSON as this converter writes it, or the Python text the
    // reference converter writes; a group listing no ranks spans 0 .. its size - 1, as the
    // simulator takes it (an unknown size: every rank given).
    std::string error;
    std::vector<ProcessGroupSpec> groups =
        ParseProcessGroups(node.GetProto().inputs().values(), error);
    if (!error.empty())
    {
        throw TraceError(trace.path, node.Describe(), "process_group:init: " + error);
    }
    for (const ProcessGroupSpec& group : groups)
    {
        std::vector<int64_t> ranks(group.ranks.begin(), group.ranks.end());
        if (ranks.empty())
        {
            for (uint32_t r = 0; r < group.size; ++r)
            {
                ranks.push_back(r);
            }
        }
        m_named.insert(ranks.begin(), ranks.end());
        trace.groupRanks[group.name] = ranks;
    }
}

void
RankConsistencyChecker::Read(const std::string& path, int64_t position)
{
    EtReader reader(path);
    int64_t rank = RankOf(path, reader.GetMetadata(), position);
    if (m_traces.count(rank) != 0)
    {
        throw TraceError(path,
                         "",
                         "rank " + std::to_string(rank) + " is also " + m_traces[rank].path +
                             "'s: give one file per rank");
    }
    RankFile& trace = m_traces[rank];
    trace.path = path;
    m_report.files[rank] = path;
    ReadMetadata(reader.GetMetadata(), trace);
    // Every id read, about a bit each for dense ids (the feeder's structure): a duplicate
    // is caught wherever its first occurrence is, in bounded memory.
    CompactIdSet ids;
    ChakraProtoMsg::Node proto;
    while (reader.ReadNode(proto))
    {
        EtNode node(proto);
        if (!ids.Insert(node.GetId()))
        {
            Mismatch(path + ": node " + std::to_string(node.GetId()) + " (" + node.GetName() +
                     ", message " + std::to_string(reader.GetNodesRead()) +
                     "): duplicate node id (the simulator refuses the file)");
        }
        ReadNode(node, rank, trace);
    }
    ReportSizeless(trace);
}

void
RankConsistencyChecker::ReadMetadata(const ChakraProtoMsg::GlobalMetadata& metadata,
                                     RankFile& trace)
{
    for (const auto& attr : metadata.attr())
    {
        int64_t value = 0;
        std::string why;
        if (attr.name() == "world_size")
        {
            if (!AttributeToInt64(attr, value, why) || value <= 0)
            {
                throw TraceError(trace.path,
                                 "metadata",
                                 "attribute 'world_size' is not a positive integer" +
                                     (why.empty() ? "" : ": " + why));
            }
            trace.worldSize = value;
        }
        else if (attr.name() == "gpu_name" && attr.has_string_val())
        {
            trace.gpuName = attr.string_val();
        }
    }
}

void
RankConsistencyChecker::ReadNode(const EtNode& node, int64_t rank, RankFile& trace)
{
    const auto nodeType = node.GetType();
    const bool comm = nodeType == ChakraProtoMsg::COMM_COLL_NODE ||
                      nodeType == ChakraProtoMsg::COMM_SEND_NODE ||
                      nodeType == ChakraProtoMsg::COMM_RECV_NODE;
    // A barrier carries no data: it has no size to miss.
    if (comm && !node.HasAttr("comm_size") &&
        !(nodeType == ChakraProtoMsg::COMM_COLL_NODE &&
          node.GetCommType() == ChakraProtoMsg::BARRIER))
    {
        if (trace.sizeless++ < kIdsListed)
        {
            trace.sizelessIds.push_back(node.GetId());
        }
    }
    switch (nodeType)
    {
    case ChakraProtoMsg::METADATA_NODE:
        if (node.GetName().find("process_group:init") != std::string::npos)
        {
            ReadGroups(node, trace);
        }
        break;
    case ChakraProtoMsg::COMM_COLL_NODE:
        ReadCollective(node, trace);
        break;
    case ChakraProtoMsg::COMM_SEND_NODE:
    case ChakraProtoMsg::COMM_RECV_NODE:
        ReadMessage(node, rank, trace.path);
        break;
    default:
        break;
    }
}

void
RankConsistencyChecker::ReadCollective(const EtNode& node, RankFile& trace)
{
    CollectiveEntry entry;
    entry.id = node.GetId();
    entry.name = node.GetName();
    auto type = node.GetCommType();
    entry.type = type ? static_cast<int64_t>(*type) : -1;
    entry.size = node.GetCommSize();
    entry.root = node.GetInt("root_rank", -1);
    if (!type)
    {
        Mismatch(Describe(trace.path, entry.id, entry.name) + ": COMM_COLL node without comm_type");
    }
    trace.groups[node.GetPgName()].push_back(std::move(entry));
}

void
RankConsistencyChecker::ReadMessage(const EtNode& node, int64_t rank, const std::string& path)
{
    // As the simulator reads it: the peer (a send's comm_dst, a receive's comm_src) is
    // required; the other end is the file's rank, so the field naming it may be absent
    // (the ASTRA-sim convention, and what the workload generator writes), but when present
    // it must be that rank.
    const bool send = node.GetType() == ChakraProtoMsg::COMM_SEND_NODE;
    auto peer = send ? node.GetCommDst() : node.GetCommSrc();
    auto self = send ? node.GetCommSrc() : node.GetCommDst();
    const std::string where = Describe(path, node.GetId(), node.GetName());
    if (!peer)
    {
        Mismatch(where + ": " + (send ? "send without comm_dst" : "receive without comm_src"));
        return;
    }
    if (self && *self != rank)
    {
        Mismatch(where + ": " + (send ? "send from rank " : "receive at rank ") +
                 std::to_string(*self) + " in the file of rank " + std::to_string(rank) + " (its " +
                 (send ? "comm_src" : "comm_dst") + ")");
    }
    m_named.insert(*peer);
    MessageKey key{send ? rank : *peer, send ? *peer : rank, node.GetCommTag().value_or(0)};
    // Repeated keys pair in posting order (MPI's non-overtaking rule), which is file order
    // here.
    (send ? m_sends : m_recvs)[key].push_back(MessageEntry{rank, node.GetId(), node.GetCommSize()});
}

void
RankConsistencyChecker::ReportSizeless(const RankFile& trace)
{
    if (trace.sizeless == 0)
    {
        return;
    }
    std::string listed;
    for (uint64_t id : trace.sizelessIds)
    {
        listed += (listed.empty() ? "" : ", ") + std::to_string(id);
    }
    if (trace.sizeless > trace.sizelessIds.size())
    {
        listed += " and " + std::to_string(trace.sizeless - trace.sizelessIds.size()) + " more";
    }
    const std::string what = trace.path + ": " + std::to_string(trace.sizeless) +
                             " communication node" + (trace.sizeless == 1 ? "" : "s") +
                             " without comm_size, which the simulator " + "runs as 0 bytes: node" +
                             (trace.sizeless == 1 ? " " : "s ") + listed;
    if (m_options.strict)
    {
        Mismatch(what);
    }
    else
    {
        Warning(what + " (--strict: an error)");
    }
}

std::vector<int64_t>
RankConsistencyChecker::Members(const std::string& pg)
{
    std::optional<std::vector<int64_t>> members;
    for (const auto& [rank, trace] : m_traces)
    {
        auto it = trace.groupRanks.find(pg);
        if (it == trace.groupRanks.end() || it->second.empty())
        {
            continue;
        }
        if (!members)
        {
            members = it->second;
        }
        else if (*members != it->second)
        {
            Mismatch(trace.path + ": process group \"" + pg +
                     "\" has other ranks than in another rank's trace");
        }
    }
    if (members)
    {
        return *members;
    }
    std::vector<int64_t> all;
    for (const auto& [rank, trace] : m_traces)
    {
        all.push_back(rank);
    }
    return all;
}

void
RankConsistencyChecker::CompareCollectives()
{
    std::set<std::string> names;
    for (const auto& [rank, trace] : m_traces)
    {
        for (const auto& [pg, entries] : trace.groups)
        {
            names.insert(pg);
        }
    }
    static const std::vector<CollectiveEntry> none;
    for (const std::string& pg : names)
    {
        const std::string group = "process group \"" + pg + "\"";
        std::vector<int64_t> members = Members(pg);
        std::optional<int64_t> reference;
        for (int64_t rank : members)
        {
            if (m_traces.count(rank) == 0)
            {
                Mismatch(group + ": rank " + std::to_string(rank) + " has no trace");
            }
            else if (!reference)
            {
                reference = rank;
            }
        }
        if (!reference)
        {
            continue;
        }
        const RankFile& ref = m_traces[*reference];
        auto refIt = ref.groups.find(pg);
        const auto& expected = refIt == ref.groups.end() ? none : refIt->second;
        m_report.collectivesPerGroup[pg] = expected.size();
        for (int64_t rank : members)
        {
            if (rank == *reference || m_traces.count(rank) == 0)
            {
                continue;
            }
            const RankFile& other = m_traces[rank];
            auto it = other.groups.find(pg);
            const auto& actual = it == other.groups.end() ? none : it->second;
            if (actual.size() != expected.size())
            {
                Mismatch(group + ": rank " + std::to_string(rank) + " has " +
                         std::to_string(actual.size()) + " collectives, rank " +
                         std::to_string(*reference) + " has " + std::to_string(expected.size()));
            }
            std::size_t reported = 0;
            for (std::size_t k = 0; k < std::min(actual.size(), expected.size()); ++k)
            {
                const CollectiveEntry& a = actual[k];
                const CollectiveEntry& e = expected[k];
                std::string field;
                if (a.type != e.type)
                {
                    field = "comm_type";
                }
                else if (a.root != e.root)
                {
                    field = "root_rank";
                }
                else if (a.size != e.size && !SizeMayDiffer(a.type))
                {
                    field = "comm_size";
                }
                else if (a.size != e.size)
                {
                    Note(group + ": collective #" + std::to_string(k) + " (" +
                         CommTypeName(static_cast<int>(a.type)) + ") is " + std::to_string(a.size) +
                         " bytes on rank " + std::to_string(rank) + ", " + std::to_string(e.size) +
                         " on rank " + std::to_string(*reference));
                }
                if (field.empty())
                {
                    continue;
                }
                // Every disagreement counts; the first few of each rank are spelled out.
                const std::string what =
                    group + ": call #" + std::to_string(k) + " (program order) differs in " +
                    field + ": rank " + std::to_string(rank) + " has " + DescribeCall(a) + " (" +
                    Describe(other.path, a.id, a.name) + "), rank " + std::to_string(*reference) +
                    " has " + DescribeCall(e) + " (" + Describe(ref.path, e.id, e.name) + ")";
                if (reported++ < 5)
                {
                    Mismatch(what);
                }
                else
                {
                    ++m_report.mismatchCount;
                }
            }
        }
    }
}

std::string
RankConsistencyChecker::RankList(int64_t first, int64_t last)
{
    std::string text;
    for (int64_t r = first; r <= last && r < first + 10; ++r)
    {
        text += (text.empty() ? "" : ", ") + std::to_string(r);
    }
    if (last >= first + 10)
    {
        text += " .. " + std::to_string(last);
    }
    return text;
}

void
RankConsistencyChecker::CheckJobSize()
{
    const auto files = static_cast<int64_t>(m_traces.size());
    std::vector<int64_t> absent;
    for (int64_t r = 0; r < files; ++r)
    {
        if (m_traces.count(r) == 0)
        {
            absent.push_back(r);
        }
    }
    if (!absent.empty())
    {
        std::string list;
        for (std::size_t i = 0; i < absent.size() && i < 10; ++i)
        {
            list += (i > 0 ? ", " : "") + std::to_string(absent[i]);
        }
        Mismatch("the " + std::to_string(files) + " files are not ranks 0 .. " +
                 std::to_string(files - 1) + ": no file of rank" +
                 (absent.size() == 1 ? " " : "s ") + list + (absent.size() > 10 ? " ..." : "") +
                 " (highest rank " + std::to_string(m_traces.rbegin()->first) + ", " +
                 m_traces.rbegin()->second.path + ")");
    }
    bool anyWorldSize = false;
    for (const auto& [rank, trace] : m_traces)
    {
        if (!trace.worldSize)
        {
            continue;
        }
        anyWorldSize = true;
        if (*trace.worldSize != files)
        {
            Mismatch(trace.path + ": metadata world_size is " + std::to_string(*trace.worldSize) +
                     " but " + std::to_string(files) + " rank file" +
                     (files == 1 ? " was" : "s were") + " given" +
                     (*trace.worldSize > files
                          ? ": missing ranks " + RankList(files, *trace.worldSize - 1)
                          : ": files of another job mixed in?"));
            return; // one is enough: the others say the same or disagree among themselves
        }
    }
    if (anyWorldSize || files == 0)
    {
        return;
    }
    // No world size (ASTRA-sim's traces): only the ranks the traces name can tell. Named
    // ranks without a file are mismatches already (group members, peers).
    if (m_named.empty())
    {
        Warning("no world_size in the metadata, and no process group or send/recv names a "
                "rank: whether these " +
                std::to_string(files) +
                " files are the whole job cannot be checked (a missing or an extra rank "
                "file would go unnoticed)");
        return;
    }
    const int64_t highest = *m_named.rbegin();
    if (highest < files - 1)
    {
        Warning("no world_size in the metadata, and no process group or send/recv names "
                "rank" +
                std::string(files - 1 > highest + 1 ? "s " : " ") +
                RankList(highest + 1, files - 1) + " (the highest rank named is " +
                std::to_string(highest) + "): files of another job mixed in?");
    }
}

void
RankConsistencyChecker::CheckGpus()
{
    std::map<std::string, std::vector<int64_t>> byGpu;
    for (const auto& [rank, trace] : m_traces)
    {
        if (!trace.gpuName.empty())
        {
            byGpu[trace.gpuName].push_back(rank);
        }
    }
    if (byGpu.size() < 2)
    {
        return;
    }
    std::string text;
    for (const auto& [gpu, ranks] : byGpu)
    {
        text += std::string(text.empty() ? "" : "; ") + gpu + " on rank" +
                (ranks.size() == 1 ? " " : "s ");
        for (std::size_t i = 0; i < ranks.size() && i < 10; ++i)
        {
            text += (i > 0 ? ", " : "") + std::to_string(ranks[i]);
        }
        text += ranks.size() > 10 ? " ..." : "";
        if (ranks.size() == 1)
        {
            text += " (" + m_traces[ranks[0]].path + ")";
        }
    }
    Warning("the ranks ran on different GPUs (metadata gpu_name, from Kineto's "
            "deviceProperties): " +
            text + ": traces of another machine mixed in? One GPU's NVLink is used for every host");
}

void
RankConsistencyChecker::MatchMessages()
{
    auto keyText = [](const MessageKey& key) {
        return "(src " + std::to_string(std::get<0>(key)) + ", dst " +
               std::to_string(std::get<1>(key)) + ", tag " + std::to_string(std::get<2>(key)) + ")";
    };
    auto nth = [](std::size_t k, std::size_t count) {
        return count == 1 ? std::string() : " #" + std::to_string(k);
    };
    for (const auto& [key, sends] : m_sends)
    {
        auto it = m_recvs.find(key);
        const std::size_t recvCount = it == m_recvs.end() ? 0 : it->second.size();
        for (std::size_t k = 0; k < sends.size(); ++k)
        {
            const MessageEntry& send = sends[k];
            const std::string what = m_traces[send.rank].path + ": node " +
                                     std::to_string(send.id) + ": send" + nth(k, sends.size()) +
                                     " " + keyText(key);
            if (k >= recvCount)
            {
                int64_t dst = std::get<1>(key);
                Mismatch(what + (m_traces.count(dst) == 0
                                     ? ": rank " + std::to_string(dst) + " has no trace"
                                     : ": no matching receive on rank " + std::to_string(dst)));
                continue;
            }
            const MessageEntry& recv = it->second[k];
            if (recv.size != send.size)
            {
                Mismatch(what + " of " + std::to_string(send.size) + " bytes, the receive (" +
                         m_traces[recv.rank].path + ": node " + std::to_string(recv.id) +
                         ") expects " + std::to_string(recv.size));
                continue;
            }
            ++m_report.messages;
        }
    }
    for (const auto& [key, recvs] : m_recvs)
    {
        auto it = m_sends.find(key);
        const std::size_t sendCount = it == m_sends.end() ? 0 : it->second.size();
        for (std::size_t k = sendCount; k < recvs.size(); ++k)
        {
            const MessageEntry& recv = recvs[k];
            int64_t src = std::get<0>(key);
            Mismatch(m_traces[recv.rank].path + ": node " + std::to_string(recv.id) + ": receive" +
                     nth(k, recvs.size()) + " " + keyText(key) +
                     (m_traces.count(src) == 0
                          ? ": rank " + std::to_string(src) + " has no trace"
                          : ": no matching send on rank " + std::to_string(src)));
        }
    }
}

} // namespace ns3
