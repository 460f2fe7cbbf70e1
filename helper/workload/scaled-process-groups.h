/*
 * ScaledProcessGroups: how the process groups of a recorded job become the groups of the same
 * job with more data-parallel replicas (chakra_scale).
 */
#ifndef CHAKRA_SCALED_PROCESS_GROUPS_H
#define CHAKRA_SCALED_PROCESS_GROUPS_H

#include "ns3/process-group-spec.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup chakra-workload
 * \brief The process groups of a recorded N-rank job and of its M-rank scaled copy.
 *
 * The scaled job is the recorded job repeated: output rank r' is recorded rank r' mod N of
 * copy r' / N ("in rotation"). The recorded job is R-rank replicas side by side (R divides N;
 * replica b holds ranks b*R .. b*R+R-1, as Megatron and torchrun place a DP x TP job), and each
 * recorded group is one of:
 * - data-parallel: the whole job (or a name no process_group:init declares, "" included, which
 *   the simulator runs over every rank), or one rank of every replica at the same offset (the
 *   DP groups of a DP x TP job). It is widened: every copy's clones of its members join it
 *   (ranks s + c*N below M, copy-major, recorded order within a copy), under its own name;
 * - within a replica (a TP or PP group): kept as it is, one clone per copy, renamed
 *   "<name>@<copy>" from copy 1 on (copy 0 keeps the recorded name, so M = N is the job as
 *   recorded).
 * R is the smallest divisor of N (below N, unless N is 1) for which every group is one of
 * these; a group that is none for any R is an error naming it. With dpOnly every group is
 * data-parallel and R is 1.
 */
class ScaledProcessGroups
{
  public:
    /**
     * Classifies the recorded groups.
     * \param recorded the groups the recorded job declares (an empty rank list: 0 .. size-1)
     * \param recordedRanks N
     * \param dpOnly every group is data-parallel (--dp-only)
     * \throws std::invalid_argument naming a group that is neither (suggesting --dp-only), or
     *         a member that is not a rank of the job
     */
    ScaledProcessGroups(const std::vector<ProcessGroupSpec>& recorded,
                        uint32_t recordedRanks,
                        bool dpOnly);

    /**
     * Sets M.
     * \param ranks M
     * \throws std::invalid_argument naming --ranks if M < N (that would drop recorded ranks,
     *         not scale the job) or M is not a multiple of the replica size
     */
    void SetScaledRanks(uint32_t ranks);

    /** \return R, the recorded replica size */
    uint32_t GetReplicaSize() const;
    /** \return true if the group \p name is data-parallel (widened) */
    bool IsDataParallel(const std::string& name) const;
    /** \return the names of the recorded groups within a replica (kept per copy), sorted */
    std::vector<std::string> GetReplicaGroupNames() const;
    /**
     * \param name a recorded pg_name
     * \param copy a copy (output rank / N)
     * \return its name on the ranks of that copy
     */
    std::string ScaledName(const std::string& name, uint32_t copy) const;
    /**
     * \param name a recorded pg_name of a data-parallel group
     * \return its size in the scaled job over its recorded size (1 for a replica group)
     */
    double WideningFactor(const std::string& name) const;
    /** \return every group of the scaled job, the recorded order, copies of a group in order */
    std::vector<ProcessGroupSpec> ScaledGroups() const;

  private:
    /**
     * \param size a replica size
     * \param[out] misfit the first group that fits no kind (see the class)
     * \param[out] dp recorded name -> data-parallel, when every group fits
     * \return true if every group fits replicas of \p size
     */
    bool Fits(uint32_t size, std::string& misfit, std::map<std::string, bool>& dp) const;
    /** \return the widened member list of a data-parallel group */
    std::vector<uint32_t> Widen(const std::vector<uint32_t>& ranks) const;

    std::vector<ProcessGroupSpec> m_recorded; //!< the recorded groups, rank lists filled in
    std::map<std::string, bool> m_dp;         //!< recorded name -> data-parallel
    uint32_t m_recordedRanks;                 //!< N
    uint32_t m_replicaSize{1};                //!< R
    uint32_t m_ranks{0};                      //!< M
};

} // namespace ns3

#endif // CHAKRA_SCALED_PROCESS_GROUPS_H
