/*
 * Job placement: which GPUs of a cluster each of several jobs gets (issue 28).
 */
#ifndef CHAKRA_JOB_PLACEMENT_H
#define CHAKRA_JOB_PLACEMENT_H

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

class ClusterTopology;

/**
 * \ingroup chakra-helper
 * How jobs without an explicit host list are laid out on the cluster's free hosts.
 */
enum class JobPlacementPolicy : int
{
    CONTIGUOUS, //!< the lowest free hosts, in index order
    SPREAD,     //!< one host from each leaf (rail group) in turn, each job from the leaf
                //!< after the one where the job before it ended
    RANDOM,     //!< free hosts in an order drawn from the seed
};

/**
 * \param name "contiguous", "spread" or "random"
 * \return the policy
 * \throws std::invalid_argument naming the valid names
 */
JobPlacementPolicy ParseJobPlacementPolicy(const std::string& name);
/** \return the policy's name */
std::string JobPlacementPolicyName(JobPlacementPolicy policy);

/** What one job asks of the cluster. */
struct JobRequest
{
    std::string name;            //!< named in errors ("job 2 (traces/moe)")
    uint32_t ranks{0};           //!< one GPU each
    std::vector<uint32_t> hosts; //!< explicit hosts, in rank order (empty: the policy places it)
};

/**
 * The hosts of a cluster as placement sees them: each host's GPUs (ranks, in order) and its
 * group, the first fabric switch its first GPU's NIC reaches (its leaf; its rail group's
 * switch on a rail-optimized fabric). Hosts without a fabric switch are all group 0.
 */
struct ClusterHosts
{
    std::vector<std::vector<uint32_t>> gpus; //!< by host
    std::vector<uint32_t> group;             //!< by host

    /**
     * \param topology the cluster's graph
     * \return its hosts (GPUs grouped by ClusterTopology::GetHostOf)
     */
    static ClusterHosts Of(const ClusterTopology& topology);
};

/**
 * Places jobs on whole hosts: a job of r ranks gets ceil(r / G) hosts of G GPUs, its rank k on
 * host k / G, GPU k % G of it (the GPUs it leaves on its last host stay idle: a host belongs to
 * one job, as schedulers give whole nodes to training jobs). Jobs with explicit hosts are
 * placed first, then the others in order by \p policy on the hosts left.
 * \param jobs the jobs
 * \param hosts the cluster's hosts
 * \param policy the layout of jobs without explicit hosts
 * \param seed the draw of RANDOM
 * \return each job's GPUs (fabric ranks), by job rank
 * \throws std::invalid_argument naming the job: a host that does not exist or that two jobs
 *         name, explicit hosts too few for the ranks, more ranks than the free hosts hold
 */
std::vector<std::vector<uint32_t>> PlaceJobs(const std::vector<JobRequest>& jobs,
                                             const ClusterHosts& hosts,
                                             JobPlacementPolicy policy,
                                             uint32_t seed);

/**
 * \param text host numbers and ranges separated by '+': "0-3+8" (hosts 0, 1, 2, 3 and 8)
 * \return the hosts, in the order given
 * \throws std::invalid_argument on anything else (a range backwards, a host twice)
 */
std::vector<uint32_t> ParseHostList(const std::string& text);
/** \return \p hosts as ranges: "0-3+8" */
std::string FormatHostList(const std::vector<uint32_t>& hosts);

} // namespace ns3

#endif // CHAKRA_JOB_PLACEMENT_H
