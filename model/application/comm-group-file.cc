#include "comm-group-file.h"

#include "ns3/json-document.h"
#include "ns3/trace-error.h"

#include <nlohmann/json.hpp>
#include <set>
#include <sys/stat.h>

namespace ns3
{

const std::vector<uint32_t>*
CommGroupFile::Find(const std::string& id) const
{
    auto it = groups.find(id);
    return it == groups.end() ? nullptr : &it->second;
}

std::string
FindCommGroupFile(const std::string& tracePrefix)
{
    const std::string path = tracePrefix + ".comm-groups.json";
    struct stat info;
    return stat(path.c_str(), &info) == 0 ? path : "";
}

std::shared_ptr<const CommGroupFile>
ReadCommGroupFile(const std::string& path, uint32_t ranks)
{
    const nlohmann::json document = ReadJsonDocument(path);
    if (!document.is_object())
    {
        throw TraceError(path,
                         "top level",
                         "not a communicator group file: expected a JSON object of "
                         "communicator ids and their ranks, e.g. {\"1\": [0, 1], \"2\": [2, 3]}");
    }
    auto file = std::make_shared<CommGroupFile>();
    file->path = path;
    for (const auto& [id, members] : document.items())
    {
        const std::string where = "communicator '" + id + "'";
        // ASTRA-sim reads the id as a number and the nodes name it by that number.
        if (id.empty() || id.size() > 9 || id.find_first_not_of("0123456789") != std::string::npos)
        {
            throw TraceError(path,
                             where,
                             "the id is not a non-negative number (the pg_name "
                             "of the nodes that use it)");
        }
        // "01" and "1" would be one communicator to ASTRA-sim but two names here.
        if (id.size() > 1 && id[0] == '0')
        {
            throw TraceError(path,
                             where,
                             "the id has a leading zero: write it as the nodes' "
                             "pg_name, without one");
        }
        if (!members.is_array() || members.empty())
        {
            throw TraceError(path, where, "expected a non-empty list of ranks");
        }
        std::vector<uint32_t> list;
        std::set<uint32_t> seen;
        for (const auto& member : members)
        {
            if (!member.is_number_integer() || member.get<int64_t>() < 0)
            {
                throw TraceError(path, where, "member " + member.dump() + " is not a rank");
            }
            const int64_t rank = member.get<int64_t>();
            if (rank >= static_cast<int64_t>(ranks))
            {
                throw TraceError(path,
                                 where,
                                 "names rank " + std::to_string(rank) +
                                     ", but the job has traces "
                                     "of ranks 0.." +
                                     std::to_string(ranks - 1) + " only (a rank's trace missing?)");
            }
            if (!seen.insert(static_cast<uint32_t>(rank)).second)
            {
                throw TraceError(path, where, "names rank " + std::to_string(rank) + " twice");
            }
            list.push_back(static_cast<uint32_t>(rank));
        }
        file->groups[id] = std::move(list);
    }
    return file;
}

} // namespace ns3
