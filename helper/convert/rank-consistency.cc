#include "rank-consistency.h"

#include "ns3/communicator.h"
#include "ns3/et-node.h"
#include "ns3/et-reader.h"
#include "ns3/trace-error.h"

#include <algorithm>
#include <optional>
#include <regex>
#include <set>
#include <sys/stat.h>
#include <tuple>

namespace ns3
{

namespace
{

/** Entries kept in each list of the report. */
constexpr std::size_t kMaxListed = 100;

/** One collective as a rank's trace records it. */
struct CollectiveEntry
{
    uint64_t id{0};        //!< node id
    std::string name;      //!< node name
    int64_t type{-1};      //!< comm_type (-1: missing)
    uint64_t size{0};      //!< comm_size
    int64_t root{-1};      //!< root_rank (-1: none)
};

/** One send or receive. */
struct MessageEntry
{
    int64_t rank{0};  //!< the file's rank
    uint64_t id{0};   //!< node id
    uint64_t size{0}; //!< comm_size
};

/** (pg_name, src, dst, tag) */
using MessageKey = std::tuple<std::string, int64_t, int64_t, int64_t>;

/** What one rank's file holds. */
struct RankTrace
{
    std::string path;                                              //!< the file
    std::map<std::string, std::vector<CollectiveEntry>> groups;    //!< collectives per pg
    std::map<std::string, std::vector<int64_t>> groupRanks;        //!< from process_group:init
};

bool
FileExists(const std::string& path)
{
    struct stat info{};
    return stat(path.c_str(), &info) == 0 && S_ISREG(info.st_mode);
}

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

class Checker
{
  public:
    explicit Checker(RankConsistencyReport& report)
        : m_report(report)
    {
    }

    void Run(const std::vector<std::string>& paths)
    {
        for (std::size_t k = 0; k < paths.size(); ++k)
        {
            Read(paths[k], static_cast<int64_t>(k));
        }
        CompareCollectives();
        MatchMessages();
    }

  private:
    void Mismatch(const std::string& what)
    {
        ++m_report.mismatchCount;
        if (m_report.mismatches.size() < kMaxListed)
        {
            m_report.mismatches.push_back(what);
        }
    }

    void Note(const std::string& what)
    {
        ++m_report.noteCount;
        if (m_report.notes.size() < kMaxListed)
        {
            m_report.notes.push_back(what);
        }
    }

    /** \return the rank a file claims: metadata, else its name, else \p position */
    static int64_t RankOf(const std::string& path,
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

    void ReadGroups(const EtNode& node, RankTrace& trace)
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
            trace.groupRanks[group.name] = ranks;
        }
    }

    void Read(const std::string& path, int64_t position)
    {
        EtReader reader(path);
        int64_t rank = RankOf(path, reader.GetMetadata(), position);
        if (m_traces.count(rank) != 0)
        {
            throw TraceError(path, "", "rank " + std::to_string(rank) + " is also " +
                                           m_traces[rank].path +
                                           "'s: give one file per rank");
        }
        RankTrace& trace = m_traces[rank];
        trace.path = path;
        m_report.files[rank] = path;
        ChakraProtoMsg::Node proto;
        while (reader.ReadNode(proto))
        {
            EtNode node(proto);
            switch (node.GetType())
            {
            case ChakraProtoMsg::METADATA_NODE:
                if (node.GetName().find("process_group:init") != std::string::npos)
                {
                    ReadGroups(node, trace);
                }
                break;
            case ChakraProtoMsg::COMM_COLL_NODE: {
                CollectiveEntry entry;
                entry.id = node.GetId();
                entry.name = node.GetName();
                auto type = node.GetCommType();
                entry.type = type ? static_cast<int64_t>(*type) : -1;
                entry.size = node.GetCommSize();
                entry.root = node.GetInt("root_rank", -1);
                if (!type)
                {
                    Mismatch(Describe(path, entry.id, entry.name) +
                             ": COMM_COLL node without comm_type");
                }
                trace.groups[node.GetPgName()].push_back(std::move(entry));
                break;
            }
            case ChakraProtoMsg::COMM_SEND_NODE:
            case ChakraProtoMsg::COMM_RECV_NODE: {
                const bool send = node.GetType() == ChakraProtoMsg::COMM_SEND_NODE;
                auto src = node.GetCommSrc();
                auto dst = node.GetCommDst();
                auto tag = node.GetCommTag();
                const std::string where = Describe(path, node.GetId(), node.GetName());
                if (!src || !dst)
                {
                    Mismatch(where + ": " + (send ? "send" : "receive") +
                             " without comm_src or comm_dst");
                    break;
                }
                if ((send ? *src : *dst) != rank)
                {
                    Mismatch(where + ": " + (send ? "send from rank " : "receive at rank ") +
                             std::to_string(send ? *src : *dst) + " in the file of rank " +
                             std::to_string(rank));
                }
                MessageKey key{node.GetPgName(), *src, *dst, tag.value_or(0)};
                auto& table = send ? m_sends : m_recvs;
                if (!table.emplace(key, MessageEntry{rank, node.GetId(), node.GetCommSize()})
                         .second)
                {
                    Mismatch(where + ": a second " + (send ? "send" : "receive") +
                             " with the same (pg_name, comm_src, comm_dst, comm_tag)");
                }
                break;
            }
            default:
                break;
            }
        }
    }

    /** \return the member ranks of a group, as the files describe it */
    std::vector<int64_t> Members(const std::string& pg)
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

    void CompareCollectives()
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
            const RankTrace& ref = m_traces[*reference];
            auto refIt = ref.groups.find(pg);
            const auto& expected = refIt == ref.groups.end() ? none : refIt->second;
            m_report.collectivesPerGroup[pg] = expected.size();
            for (int64_t rank : members)
            {
                if (rank == *reference || m_traces.count(rank) == 0)
                {
                    continue;
                }
                const RankTrace& other = m_traces[rank];
                auto it = other.groups.find(pg);
                const auto& actual = it == other.groups.end() ? none : it->second;
                if (actual.size() != expected.size())
                {
                    Mismatch(group + ": rank " + std::to_string(rank) + " has " +
                             std::to_string(actual.size()) + " collectives, rank " +
                             std::to_string(*reference) + " has " +
                             std::to_string(expected.size()));
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
                             CommTypeName(static_cast<int>(a.type)) + ") is " +
                             std::to_string(a.size) + " bytes on rank " + std::to_string(rank) +
                             ", " + std::to_string(e.size) + " on rank " +
                             std::to_string(*reference));
                    }
                    if (field.empty())
                    {
                        continue;
                    }
                    // Every disagreement counts; the first few of each rank are spelled out.
                    const std::string what =
                        group + ": call #" + std::to_string(k) +
                        " (program order) differs in " + field + ": rank " +
                        std::to_string(rank) + " has " + DescribeCall(a) + " (" +
                        Describe(other.path, a.id, a.name) + "), rank " +
                        std::to_string(*reference) + " has " + DescribeCall(e) + " (" +
                        Describe(ref.path, e.id, e.name) + ")";
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

    void MatchMessages()
    {
        auto keyText = [](const MessageKey& key) {
            return "(pg \"" + std::get<0>(key) + "\", src " + std::to_string(std::get<1>(key)) +
                   ", dst " + std::to_string(std::get<2>(key)) + ", tag " +
                   std::to_string(std::get<3>(key)) + ")";
        };
        for (const auto& [key, send] : m_sends)
        {
            auto it = m_recvs.find(key);
            const std::string& path = m_traces[send.rank].path;
            if (it == m_recvs.end())
            {
                int64_t dst = std::get<2>(key);
                Mismatch(path + ": node " + std::to_string(send.id) + ": send " + keyText(key) +
                         (m_traces.count(dst) == 0 ? ": rank " + std::to_string(dst) +
                                                         " has no trace"
                                                   : ": no matching receive on rank " +
                                                         std::to_string(dst)));
                continue;
            }
            if (it->second.size != send.size)
            {
                Mismatch(path + ": node " + std::to_string(send.id) + ": send " + keyText(key) +
                         " of " + std::to_string(send.size) + " bytes, the receive (" +
                         m_traces[it->second.rank].path + ": node " +
                         std::to_string(it->second.id) + ") expects " +
                         std::to_string(it->second.size));
                continue;
            }
            ++m_report.messages;
        }
        for (const auto& [key, recv] : m_recvs)
        {
            if (m_sends.count(key) == 0)
            {
                int64_t src = std::get<1>(key);
                Mismatch(m_traces[recv.rank].path + ": node " + std::to_string(recv.id) +
                         ": receive " + keyText(key) +
                         (m_traces.count(src) == 0
                              ? ": rank " + std::to_string(src) + " has no trace"
                              : ": no matching send on rank " + std::to_string(src)));
            }
        }
    }

    RankConsistencyReport& m_report;          //!< the outcome
    std::map<int64_t, RankTrace> m_traces;    //!< by rank
    std::map<MessageKey, MessageEntry> m_sends; //!< every send
    std::map<MessageKey, MessageEntry> m_recvs; //!< every receive
};

} // namespace

bool
RankConsistencyReport::IsConsistent() const
{
    return mismatchCount == 0;
}

std::ostream&
operator<<(std::ostream& os, const RankConsistencyReport& report)
{
    os << "ranks: " << report.files.size() << "; collectives per process group:";
    for (const auto& [pg, count] : report.collectivesPerGroup)
    {
        os << " \"" << pg << "\" " << count;
    }
    os << (report.collectivesPerGroup.empty() ? " none" : "") << "; send/recv pairs matched: "
       << report.messages << "\n";
    os << (report.IsConsistent() ? "consistent" : "INCONSISTENT") << ": "
       << report.mismatchCount << " mismatches, " << report.noteCount << " notes\n";
    for (const auto& mismatch : report.mismatches)
    {
        os << "  mismatch: " << mismatch << "\n";
    }
    if (report.mismatchCount > report.mismatches.size())
    {
        os << "  ... " << report.mismatchCount - report.mismatches.size() << " more mismatches\n";
    }
    for (const auto& note : report.notes)
    {
        os << "  note: " << note << "\n";
    }
    if (report.noteCount > report.notes.size())
    {
        os << "  ... " << report.noteCount - report.notes.size() << " more notes\n";
    }
    return os;
}

std::vector<std::string>
FindRankFiles(const std::string& prefix)
{
    std::vector<std::string> files;
    for (int64_t rank = 0;; ++rank)
    {
        std::string plain = prefix + "." + std::to_string(rank) + ".et";
        if (FileExists(plain))
        {
            files.push_back(plain);
        }
        else if (FileExists(plain + ".gz"))
        {
            files.push_back(plain + ".gz");
        }
        else
        {
            return files;
        }
    }
}

RankConsistencyReport
CheckRankConsistency(const std::vector<std::string>& paths)
{
    RankConsistencyReport report;
    Checker(report).Run(paths);
    return report;
}

} // namespace ns3
