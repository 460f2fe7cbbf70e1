/*
 * JobOptions: the several-jobs flags (--job, --jobs-file, --placement, --placement-seed,
 * --interference) that chakra-cluster and chakra_replay share (issue 28).
 */
#ifndef CHAKRA_JOB_OPTIONS_H
#define CHAKRA_JOB_OPTIONS_H

#include "cluster-options.h"
#include "tool-args.h"

#include "ns3/cluster-job.h"
#include "ns3/job-placement.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup chakra-config
 * \brief The jobs a tool runs together on one cluster, read from its flags, each value checked
 * where it enters (errors name the flag, the file or the job).
 */
class JobOptions
{
  public:
    /**
     * Declares the flags.
     * \param args the tool's flags
     * \param jobHelp what --job adds (chakra-cluster: the jobs; chakra_replay: jobs beside the
     *        replayed one)
     */
    static void AddFlags(ToolArgs& args, const std::string& jobHelp);

    /**
     * Reads them: the jobs of --jobs-file, then each --job, the placement and its seed.
     * \throws std::invalid_argument naming the flag (a placement flag without any job, an
     *         unknown policy, a bad seed), the file or the job spec
     */
    void Read(const ToolArgs& args);

    /** \return whether any job was given (--job or --jobs-file) */
    bool HasJobs() const;

    /**
     * \return the GPUs of a cluster for these jobs and \p extraRanks more ranks (a job the
     *         tool adds, e.g. chakra_replay's): hosts of --gpus-per-host GPUs (or the
     *         topology file's, or 8), as many as the jobs take in whole hosts and at least up
     *         to the highest host one names; --hosts, or the topology file's hosts, when given
     * \throws TraceError for a job without traces; std::invalid_argument for a cluster larger
     *         than one can be
     */
    uint32_t ClusterGpus(const ClusterOptions& options, uint32_t extraRanks = 0) const;

    std::vector<ClusterJob> jobs;                                 //!< in the order given
    JobPlacementPolicy placement{JobPlacementPolicy::CONTIGUOUS}; //!< --placement
    uint32_t placementSeed{1};                                    //!< --placement-seed
    bool interference{false};                                     //!< --interference
};

} // namespace ns3

#endif // CHAKRA_JOB_OPTIONS_H
