#include "job-spec.h"

#include "cluster-options.h"
#include "name-suggestion.h"
#include "quantity-parser.h"
#include "yaml-error.h"

#include "ns3/job-placement.h"

#include <set>
#include <stdexcept>
#include <yaml-cpp/yaml.h>

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

/** A job's keys, read one at a time from --job or a jobs file. */
class JobKeys
{
  public:
    /** Sets \p key of the job; throws std::invalid_argument saying what is wrong. */
    void Set(const std::string& key, const std::string& value)
    {
        if (!m_seen.insert(key).second)
        {
            throw std::invalid_argument("key '" + key + "' is given twice");
        }
        // Each parser names its key in its message (start, hosts, --compute-scale, ...).
        if (key == "name")
        {
            if (value.empty() || value.find_first_of(" /\\") != std::string::npos)
            {
                throw std::invalid_argument("name: a name without blanks or slashes (it names "
                                            "the job's CSV folder)");
            }
            m_job.name = value;
        }
        else if (key == "start")
        {
            m_job.start = ParseDuration(value, "start", Seconds(1e7), true);
        }
        else if (key == "hosts")
        {
            m_job.hosts = ParseHostList(value);
        }
        else if (ClusterOptions::IsApplicationFlag(key))
        {
            m_options.Set(key, value);
        }
        else
        {
            throw std::invalid_argument(key + ": unknown key" + DidYouMean(key, Keys(), "") +
                                        " (a job's keys: " + KeyList() + ")");
        }
    }

    /** \return the job read, its trace prefix \p prefix */
    ClusterJob Finish(const std::string& prefix)
    {
        m_job.tracePrefix = prefix;
        m_job.appAttributes = m_options.GetApplicationAttributes();
        return m_job;
    }

    /** \return every key a job may have, but the trace */
    static std::vector<std::string> Keys()
    {
        std::vector<std::string> keys{"name", "start", "hosts"};
        for (const std::string& flag : ClusterOptions::GetFlagNames())
        {
            if (ClusterOptions::IsApplicationFlag(flag))
            {
                keys.push_back(flag);
            }
        }
        return keys;
    }

  private:
    static std::string KeyList()
    {
        std::string list;
        for (const std::string& k : Keys())
        {
            list += (list.empty() ? "" : ", ") + k;
        }
        return list;
    }

    ClusterJob m_job;
    ClusterOptions m_options; //!< this job's application flags, checked as on the command line
    std::set<std::string> m_seen;
};

} // namespace

ClusterJob
ParseJobSpec(const std::string& text)
{
    const std::string where = "--job " + text + ": ";
    const auto colon = PairsStart(text);
    const std::string prefix = TrimBlanks(text.substr(0, colon));
    if (prefix.empty())
    {
        throw std::invalid_argument(where + "give the job's trace prefix first "
                                            "(PREFIX[:key=value,...])");
    }
    JobKeys keys;
    const std::string pairs = colon == std::string::npos ? "" : text.substr(colon + 1);
    for (std::size_t start = 0; colon != std::string::npos && start <= pairs.size();)
    {
        const std::size_t end = std::min(pairs.find(',', start), pairs.size());
        const std::string pair = pairs.substr(start, end - start);
        start = end + 1;
        const auto eq = pair.find('=');
        if (eq == std::string::npos || eq == 0 || eq + 1 == pair.size())
        {
            throw std::invalid_argument(where + "'" + pair + "' is not key=value");
        }
        try
        {
            keys.Set(TrimBlanks(pair.substr(0, eq)), TrimBlanks(pair.substr(eq + 1)));
        }
        catch (const std::invalid_argument& e)
        {
            throw std::invalid_argument(where + e.what());
        }
    }
    return keys.Finish(prefix);
}

std::vector<ClusterJob>
ReadJobsFile(const std::string& path)
{
    const auto fail = [&path](const YAML::Node& node, const std::string& what) {
        std::string where = path;
        if (node.Mark().line >= 0)
        {
            where += ": line " + std::to_string(node.Mark().line + 1);
        }
        throw std::invalid_argument(where + ": " + what);
    };
    std::vector<ClusterJob> jobs;
    try
    {
        const YAML::Node root = YAML::LoadFile(path);
        const YAML::Node list = root.IsMap() ? root["jobs"] : root;
        if (!list || !list.IsSequence() || list.size() == 0)
        {
            fail(root, "a jobs file is a list of jobs, or a mapping with one: jobs: [...]");
        }
        if (root.IsMap() && root.size() != 1)
        {
            fail(root, "the only key at the top is 'jobs'");
        }
        for (std::size_t k = 0; k < list.size(); ++k)
        {
            const YAML::Node& entry = list[k];
            const std::string label = "job " + std::to_string(k + 1) + ": ";
            if (!entry.IsMap())
            {
                fail(entry, label + "a job is a mapping (trace: PREFIX, name: ..., ...)");
            }
            JobKeys keys;
            std::string prefix;
            for (const auto& field : entry)
            {
                const std::string key = field.first.Scalar();
                const YAML::Node& value = field.second;
                std::string text;
                if (key == "hosts" && value.IsSequence())
                {
                    // A list of hosts, each a number or a range: [0, 1, "4-5"].
                    for (const auto& host : value)
                    {
                        text += (text.empty() ? "" : "+") + host.Scalar();
                    }
                }
                else if (value.IsScalar())
                {
                    text = value.Scalar();
                }
                else
                {
                    fail(value, label + "'" + key + "' must be a single value");
                }
                try
                {
                    if (key == "trace")
                    {
                        prefix = TrimBlanks(text);
                    }
                    else
                    {
                        keys.Set(key, text);
                    }
                }
                catch (const std::invalid_argument& e)
                {
                    fail(field.first, label + e.what());
                }
            }
            if (prefix.empty())
            {
                fail(entry, label + "no 'trace' (the job's trace prefix)");
            }
            jobs.push_back(keys.Finish(prefix));
        }
    }
    catch (const YAML::BadFile&)
    {
        throw std::invalid_argument(path + ": cannot read the jobs file");
    }
    catch (const YAML::Exception& e)
    {
        throw std::invalid_argument(YamlErrorText(path, e.mark.line, e.msg));
    }
    return jobs;
}

} // namespace ns3
