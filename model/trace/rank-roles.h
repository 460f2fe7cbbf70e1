/*
 * Traces written per role: ranks that run the same program share one trace, read with their
 * rank ids shifted (chakra_generator --trace-per-role, <prefix>.roles.json).
 */
#ifndef CHAKRA_RANK_ROLES_H
#define CHAKRA_RANK_ROLES_H

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup chakra-trace
 * \brief A permutation of a job's ranks that rotates one digit of the rank id.
 *
 * A rank id x has the digit d = (x / stride) % period; shifting by k replaces it by
 * (d + k) % period and leaves the other digits: Map(x) = x + ((d + k) % period - d) x stride.
 * In Megatron-LM's rank order (tp fastest, then cp, dp, pp), stride tp x cp and period dp
 * rotate the data-parallel index: the replicas of one model-parallel position run the same
 * program with these ids. Shift 0 (the default) is the identity.
 */
struct RankShift
{
    uint32_t shift{0};  //!< k
    uint32_t stride{1}; //!< the digit's place value
    uint32_t period{1}; //!< the digit's range
    /** Group name prefix -> what its trailing number grows by per unit of shift (see Name). */
    std::shared_ptr<const std::map<std::string, uint32_t>> groupStrides;

    /** \return true if Map is the identity */
    bool IsIdentity() const;
    /** \return the rank \p rank of the trace stands for */
    uint32_t Map(uint32_t rank) const;
    /**
     * \return the name a process group of the trace has for the shifted rank: a name
     *         "<prefix><n>" whose prefix has a stride s in groupStrides becomes
     *         "<prefix><n + s x shift>"; any other name is kept
     */
    std::string Name(const std::string& group) const;
};

/**
 * \ingroup chakra-trace
 * \brief A job whose ranks read traces per role (<prefix>.roles.json).
 *
 * The file is a JSON object:
 * \code
 * {"format": "chakra-rank-roles", "version": 1, "ranks": 32, "shift_stride": 2,
 *  "shift_period": 8, "roles": {"0": "step.role.0.et", "1": "step.role.1.et", ...},
 *  "group_strides": {"tp": 1, "pp": 2}}
 * \endcode
 * Rank r has the digit k = (r / shift_stride) % shift_period; it reads the role of rank
 * c = r - k x shift_stride (whose digit is 0) with RankShift{k, shift_stride, shift_period}.
 * "roles" lists a file for every such c (paths relative to the manifest's directory);
 * "group_strides" may be absent (no group renamed).
 */
struct RankRoles
{
    std::string path;                      //!< the manifest
    uint32_t ranks{0};                     //!< ranks of the job
    uint32_t stride{1};                    //!< shift_stride
    uint32_t period{1};                    //!< shift_period
    std::map<uint32_t, std::string> roles; //!< canonical rank -> trace (as resolved)
    std::shared_ptr<const std::map<std::string, uint32_t>> groupStrides; //!< group_strides

    /** \return the shift of \p rank (its group strides included) */
    RankShift ShiftOf(uint32_t rank) const;
    /** \return the rank whose trace \p rank reads */
    uint32_t RoleOf(uint32_t rank) const;
    /** \return the trace \p rank reads */
    const std::string& TraceOf(uint32_t rank) const;
};

/** \return the manifest path of a trace prefix: <prefix>.roles.json */
std::string RankRolesPath(const std::string& prefix);

/** \return true if \p prefix has a manifest (<prefix>.roles.json exists) */
bool HasRankRoles(const std::string& prefix);

/**
 * Reads and checks a manifest.
 * \param path the manifest
 * \return the job (role paths resolved against the manifest's directory)
 * \throws TraceError naming the file and the key at fault (a missing or bad key, a role
 *         missing for a canonical rank or given for another rank, a role file that does not
 *         exist)
 */
RankRoles ReadRankRoles(const std::string& path);

/**
 * Writes a manifest (role paths as given: relative to the manifest's directory).
 * \param path where
 * \param roles the job (path ignored)
 * \throws TraceError if it cannot be written
 */
void WriteRankRoles(const std::string& path, const RankRoles& roles);

} // namespace ns3

#endif // CHAKRA_RANK_ROLES_H
