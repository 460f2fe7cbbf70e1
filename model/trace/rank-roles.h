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
 * \brief One digit of a rank id that the ranks of a role differ in: d = (x / stride) % period.
 *
 * In Megatron-LM's rank order (tp fastest, then cp, dp, pp) the tensor-parallel index is the
 * digit of stride 1 and period tp, the context-parallel one of stride tp and period cp, the
 * data-parallel one of stride tp x cp and period dp. A rank whose program is another's with
 * such a digit rotated reads that rank's trace (RankShift).
 */
struct RankDigit
{
    uint32_t stride{1}; //!< the digit's place value
    uint32_t period{1}; //!< the digit's range
    /**
     * Group name prefix -> what a group's trailing number grows by when this digit grows by
     * one (see RankShift::Name); a prefix absent here keeps its number.
     */
    std::shared_ptr<const std::map<std::string, uint32_t>> groupStrides;
};

/**
 * \ingroup chakra-trace
 * \brief A permutation of a job's ranks that rotates some digits of the rank id.
 *
 * Each turn rotates one digit (RankDigit) by its shift k: the digit d of x becomes
 * (d + k) % period and the other digits stay. The digits of one shift are disjoint, so the turns
 * commute. No turn (the default) is the identity.
 */
struct RankShift
{
    /** One digit rotated by \c shift. */
    struct Turn
    {
        RankDigit digit;   //!< which digit
        uint32_t shift{0}; //!< by how much
    };

    std::vector<Turn> turns; //!< the rotated digits

    /** \return the shift that rotates one digit (no group renamed unless \p groupStrides) */
    static RankShift One(
        uint32_t shift,
        uint32_t stride,
        uint32_t period,
        std::shared_ptr<const std::map<std::string, uint32_t>> groupStrides = nullptr);

    /** \return true if Map is the identity */
    bool IsIdentity() const;
    /** \return the rank \p rank of the trace stands for */
    uint32_t Map(uint32_t rank) const;
    /**
     * \return the name a process group of the trace has for the shifted rank: a name
     *         "<prefix><n>" becomes "<prefix><n + sum of stride x shift>" over the turns whose
     *         digit gives the prefix a stride; any other name is kept
     */
    std::string Name(const std::string& group) const;

    /**
     * \return the shift as text, turns separated by ';', each "shift,stride,period" followed by
     *         ",prefix:stride" per renamed group (ChakraApplication's RankShift attribute);
     *         "" for no turn
     */
    std::string ToText() const;
    /**
     * \param text what ToText writes
     * \param[out] error why \p text is not a shift ("" if it is)
     * \return the shift (the identity when \p error is set)
     */
    static RankShift FromText(const std::string& text, std::string& error);
};

/**
 * \ingroup chakra-trace
 * \brief A job whose ranks read traces per role (<prefix>.roles.json).
 *
 * The file is a JSON object:
 * \code
 * {"format": "chakra-rank-roles", "version": 2, "ranks": 32,
 *  "digits": [{"stride": 1, "period": 2, "group_strides": {"cp": 1, "pp": 1}},
 *             {"stride": 2, "period": 8, "group_strides": {"tp": 1, "pp": 2}}],
 *  "roles": {"0": "step.role.0.et", "16": "step.role.16.et"}}
 * \endcode
 * A role is a rank whose every digit is 0; rank r reads the role of the rank r has with its
 * digits zeroed, shifted by its digits (ShiftOf). The digits must be disjoint (each stride a
 * multiple of the one below times its period) and divide the ranks; "group_strides" may be
 * absent (no group renamed). Version 1, still read, has one digit as the keys "shift_stride",
 * "shift_period" and "group_strides".
 */
struct RankRoles
{
    std::string path;                      //!< the manifest
    uint32_t ranks{0};                     //!< ranks of the job
    std::vector<RankDigit> digits;         //!< the digits roles differ in, by stride
    std::map<uint32_t, std::string> roles; //!< canonical rank -> trace (as resolved)

    /** \return the shift of \p rank: each digit by its value in \p rank */
    RankShift ShiftOf(uint32_t rank) const;
    /** \return the rank whose trace \p rank reads (\p rank with every digit 0) */
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
 * Writes a manifest, version 2 (role paths as given: relative to the manifest's directory).
 * \param path where
 * \param roles the job (path ignored)
 * \throws TraceError if it cannot be written
 */
void WriteRankRoles(const std::string& path, const RankRoles& roles);

} // namespace ns3

#endif // CHAKRA_RANK_ROLES_H
