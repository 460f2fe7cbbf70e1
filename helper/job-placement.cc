#include "job-placement.h"

#include "ns3/cluster-topology.h"
#include "ns3/topology-builder.h"

#include <algorithm>
#include <limits>
#include <map>
#include <random>
#include <set>
#include <stdexcept>

namespace ns3
{

JobPlacementPolicy
ParseJobPlacementPolicy(const std::string& name)
{
    for (JobPlacementPolicy policy :
         {JobPlacementPolicy::CONTIGUOUS, JobPlacementPolicy::SPREAD, JobPlacementPolicy::RANDOM})
    {
        if (JobPlacementPolicyName(policy) == name)
        {
            return policy;
        }
    }
    throw std::invalid_argument("placement '" + name +
                                "' is not one of: contiguous, spread, random");
}

std::string
JobPlacementPolicyName(JobPlacementPolicy policy)
{
    switch (policy)
    {
    case JobPlacementPolicy::CONTIGUOUS:
        return "contiguous";
    case JobPlacementPolicy::SPREAD:
        return "spread";
    case JobPlacementPolicy::RANDOM:
        return "random";
    }
    return "?";
}

namespace
{

/** The ports of a host without GPUs (none): bound by reference like GetPorts's. */
const std::vector<ClusterTopology::Port> kNoPorts;

} // namespace

ClusterHosts
ClusterHosts::Of(const ClusterTopology& topology)
{
    ClusterHosts hosts;
    const std::vector<uint32_t> hostOf = topology.GetHostOf();
    for (uint32_t rank = 0; rank < hostOf.size(); ++rank)
    {
        if (hostOf[rank] >= hosts.gpus.size())
        {
            hosts.gpus.resize(hostOf[rank] + 1);
        }
        hosts.gpus[hostOf[rank]].push_back(rank);
    }
    // A host's group: the leaf its first GPU's NIC meets (GPU nodes are numbered as ranks),
    // numbered in order of first sight.
    std::map<uint32_t, uint32_t> groupOfSwitch;
    const auto& nodes = topology.GetNodes();
    for (const auto& gpus : hosts.gpus)
    {
        uint32_t group = 0;
        for (const ClusterTopology::Port& port :
             gpus.empty() ? kNoPorts : topology.GetPorts(gpus[0]))
        {
            if (nodes[port.peer].kind == ClusterTopology::SWITCH)
            {
                const auto next = static_cast<uint32_t>(groupOfSwitch.size());
                group = groupOfSwitch.emplace(port.peer, next).first->second;
                break;
            }
        }
        hosts.group.push_back(group);
    }
    return hosts;
}

namespace
{

/** \return "job NAME" for errors */
std::string
JobLabel(const JobRequest& job)
{
    return "job " + job.name;
}

/** A host no job has taken (PlaceJobs's owner of a host). */
constexpr std::size_t kFree = std::numeric_limits<std::size_t>::max();

/**
 * \return the free hosts in the order \p policy takes them (spread: from group
 *         \p firstGroup on)
 */
std::vector<uint32_t>
PolicyOrder(const ClusterHosts& hosts,
            const std::vector<std::size_t>& owner,
            JobPlacementPolicy policy,
            std::mt19937& random,
            std::size_t firstGroup)
{
    std::vector<uint32_t> order;
    for (uint32_t host = 0; host < hosts.gpus.size(); ++host)
    {
        if (owner[host] == kFree)
        {
            order.push_back(host);
        }
    }
    if (policy == JobPlacementPolicy::SPREAD)
    {
        // Round robin over the groups, from firstGroup: the lowest free host of each group in
        // turn.
        std::vector<std::vector<uint32_t>> byGroup;
        for (uint32_t host : order)
        {
            const uint32_t group = hosts.group[host];
            byGroup.resize(std::max<std::size_t>(byGroup.size(), group + 1));
            byGroup[group].push_back(host);
        }
        order.clear();
        for (std::size_t round = 0;; ++round)
        {
            bool any = false;
            for (std::size_t k = 0; k < byGroup.size(); ++k)
            {
                const auto& group = byGroup[(firstGroup + k) % byGroup.size()];
                if (round < group.size())
                {
                    order.push_back(group[round]);
                    any = true;
                }
            }
            if (!any)
            {
                break;
            }
        }
    }
    else if (policy == JobPlacementPolicy::RANDOM)
    {
        // Fisher-Yates on the generator's raw draws (std::shuffle's use of them is the
        // library's own): the same seed gives the same placement everywhere.
        for (std::size_t k = order.size(); k > 1; --k)
        {
            const auto j = static_cast<std::size_t>((static_cast<uint64_t>(random()) * k) >> 32);
            std::swap(order[k - 1], order[j]);
        }
    }
    return order;
}

} // namespace

std::vector<std::vector<uint32_t>>
PlaceJobs(const std::vector<JobRequest>& jobs,
          const ClusterHosts& hosts,
          JobPlacementPolicy policy,
          uint32_t seed)
{
    const uint32_t hostCount = static_cast<uint32_t>(hosts.gpus.size());
    std::vector<std::size_t> owner(hostCount, kFree); // the job that took each host
    std::vector<std::vector<uint32_t>> jobHosts(jobs.size());
    const auto gpusOf = [&hosts](uint32_t host) {
        return static_cast<uint32_t>(hosts.gpus[host].size());
    };
    // Explicit hosts first: they are the user's, whatever the policy does with the rest.
    for (std::size_t j = 0; j < jobs.size(); ++j)
    {
        const JobRequest& job = jobs[j];
        if (job.hosts.empty())
        {
            continue;
        }
        uint64_t capacity = 0;
        for (uint32_t host : job.hosts)
        {
            if (host >= hostCount)
            {
                throw std::invalid_argument(JobLabel(job) + ": host " + std::to_string(host) +
                                            " does not exist (the cluster has " +
                                            std::to_string(hostCount) + " hosts, 0 to " +
                                            std::to_string(hostCount - 1) + ")");
            }
            if (owner[host] != kFree)
            {
                throw std::invalid_argument(JobLabel(job) + ": host " + std::to_string(host) +
                                            " is also " + JobLabel(jobs[owner[host]]) +
                                            "'s (a host runs one job)");
            }
            owner[host] = j;
            capacity += gpusOf(host);
        }
        if (capacity < job.ranks)
        {
            throw std::invalid_argument(JobLabel(job) + " has " + std::to_string(job.ranks) +
                                        " ranks but its hosts " + FormatHostList(job.hosts) +
                                        " hold " + std::to_string(capacity) + " GPUs");
        }
        jobHosts[j] = job.hosts;
    }
    std::mt19937 random(seed);
    // Spread: each job goes on from the group after the one where the job before it ended,
    // so that jobs do not all crowd the first groups.
    std::size_t nextGroup = 0;
    for (std::size_t j = 0; j < jobs.size(); ++j)
    {
        const JobRequest& job = jobs[j];
        if (!job.hosts.empty())
        {
            continue;
        }
        uint64_t capacity = 0;
        for (uint32_t host : PolicyOrder(hosts, owner, policy, random, nextGroup))
        {
            if (capacity >= job.ranks)
            {
                break;
            }
            owner[host] = j;
            jobHosts[j].push_back(host);
            capacity += gpusOf(host);
            nextGroup = hosts.group[host] + 1;
        }
        if (capacity < job.ranks || job.ranks == 0)
        {
            // Short of room, the job took every host left free.
            const std::size_t free = jobHosts[j].size();
            throw std::invalid_argument(
                JobLabel(job) + " has " + std::to_string(job.ranks) + " ranks but " +
                (job.ranks == 0 ? std::string("a job needs at least one")
                                : "the " + std::to_string(free) + " host(s) the jobs before it " +
                                      "left free hold " + std::to_string(capacity) +
                                      " GPUs (give more --hosts, or fewer jobs)"));
        }
    }
    // Rank k of a job: its hosts' GPUs in order.
    std::vector<std::vector<uint32_t>> placement(jobs.size());
    for (std::size_t j = 0; j < jobs.size(); ++j)
    {
        for (uint32_t host : jobHosts[j])
        {
            for (uint32_t gpu : hosts.gpus[host])
            {
                if (placement[j].size() < jobs[j].ranks)
                {
                    placement[j].push_back(gpu);
                }
            }
        }
    }
    return placement;
}

std::vector<uint32_t>
ParseHostList(const std::string& text)
{
    std::vector<uint32_t> hosts;
    std::set<uint32_t> seen;
    const auto number = [&text](const std::string& word) -> uint32_t {
        if (word.empty() || word.size() > 9 ||
            word.find_first_not_of("0123456789") != std::string::npos)
        {
            throw std::invalid_argument("hosts '" + text +
                                        "': give host numbers and ranges joined by '+', "
                                        "e.g. 0-3+8");
        }
        const auto host = std::stoul(word);
        if (host >= TopologyLimits::kMaxHosts)
        {
            throw std::invalid_argument("hosts '" + text + "': host " + word +
                                        " is past any cluster (at most " +
                                        std::to_string(TopologyLimits::kMaxHosts) + " hosts)");
        }
        return static_cast<uint32_t>(host);
    };
    std::size_t start = 0;
    while (start <= text.size())
    {
        const std::size_t end = std::min(text.find('+', start), text.size());
        const std::string part = text.substr(start, end - start);
        const std::size_t dash = part.find('-');
        const uint32_t first = number(part.substr(0, dash));
        const uint32_t last = dash == std::string::npos ? first : number(part.substr(dash + 1));
        if (last < first)
        {
            throw std::invalid_argument("hosts '" + text + "': the range " + part +
                                        " runs backwards");
        }
        for (uint64_t host = first; host <= last; ++host)
        {
            if (!seen.insert(static_cast<uint32_t>(host)).second)
            {
                throw std::invalid_argument("hosts '" + text + "': host " + std::to_string(host) +
                                            " is named twice");
            }
            hosts.push_back(static_cast<uint32_t>(host));
        }
        start = end + 1;
    }
    return hosts;
}

std::string
FormatHostList(const std::vector<uint32_t>& hosts)
{
    std::string text;
    for (std::size_t k = 0; k < hosts.size();)
    {
        std::size_t run = k;
        while (run + 1 < hosts.size() && hosts[run + 1] == hosts[run] + 1)
        {
            ++run;
        }
        text += (text.empty() ? "" : "+") + std::to_string(hosts[k]);
        if (run > k)
        {
            text += "-" + std::to_string(hosts[run]);
        }
        k = run + 1;
    }
    return text;
}

} // namespace ns3
