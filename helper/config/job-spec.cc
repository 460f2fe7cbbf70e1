#include "job-spec.h"

#include "cluster-options.h"
#include "name-suggestion.h"
#include "quantity-parser.h"

#include "ns3/job-placement.h"

#include <set>
#include <stdexcept>

namespace ns3
{

namespace
{

/** \return where the key=value pairs start in \p text (npos: none) */
std::string::size_type
PairsStart(const std::string& text)
{
    for (auto colon = text.find(':'); colon != std::string::npos; colon = text.find(':', colon + 1))
    {
        const auto eq = text.find('=', colon);
        const std::string key =
            eq == std::string::npos ? "" : text.substr(colon + 1, eq - colon - 1);
        if (!key.empty() &&
            key.find_first_not_of("abcdefghijklmnopqrstuvwxyz-") == std::string::npos)
        {
            return colon;
        }
    }
    return std::string::npos;
}

} // namespace

ClusterJob
ParseJobSpec(const std::string& text)
{
    const std::string where = "--job " + text + ": ";
    ClusterJob job;
    const auto colon = PairsStart(text);
    job.tracePrefix = TrimBlanks(text.substr(0, colon));
    if (job.tracePrefix.empty())
    {
        throw std::invalid_argument(where + "give the job's trace prefix first "
                                            "(PREFIX[:key=value,...])");
    }
    if (colon == std::string::npos)
    {
        return job;
    }
    ClusterOptions options; // this job's application flags, checked as on the command line
    std::set<std::string> seen;
    const std::string pairs = text.substr(colon + 1);
    std::size_t start = 0;
    while (start <= pairs.size())
    {
        const std::size_t end = std::min(pairs.find(',', start), pairs.size());
        const std::string pair = pairs.substr(start, end - start);
        start = end + 1;
        const auto eq = pair.find('=');
        if (eq == std::string::npos || eq == 0 || eq + 1 == pair.size())
        {
            throw std::invalid_argument(where + "'" + pair + "' is not key=value");
        }
        const std::string key = TrimBlanks(pair.substr(0, eq));
        const std::string value = TrimBlanks(pair.substr(eq + 1));
        if (!seen.insert(key).second)
        {
            throw std::invalid_argument(where + "key '" + key + "' is given twice");
        }
        try
        {
            if (key == "name")
            {
                if (value.find_first_of(" /\\") != std::string::npos)
                {
                    throw std::invalid_argument("a name without blanks or slashes (it names "
                                                "the job's CSV folder)");
                }
                job.name = value;
            }
            else if (key == "start")
            {
                job.start = ParseDuration(value, "start", Seconds(1e7), true);
            }
            else if (key == "hosts")
            {
                job.hosts = ParseHostList(value);
            }
            else if (ClusterOptions::IsApplicationFlag(key))
            {
                options.Set(key, value);
            }
            else
            {
                std::vector<std::string> keys{"name", "start", "hosts"};
                for (const std::string& flag : ClusterOptions::GetFlagNames())
                {
                    if (ClusterOptions::IsApplicationFlag(flag))
                    {
                        keys.push_back(flag);
                    }
                }
                std::string list;
                for (const std::string& k : keys)
                {
                    list += (list.empty() ? "" : ", ") + k;
                }
                throw std::invalid_argument("unknown key" + DidYouMean(key, keys, "") +
                                            " (a job's keys: " + list + ")");
            }
        }
        catch (const std::invalid_argument& e)
        {
            throw std::invalid_argument(where + key + ": " + e.what());
        }
    }
    job.appAttributes = options.GetApplicationAttributes();
    return job;
}

} // namespace ns3
