/*
 * Matching two sequences of operator names in order: the host execution trace's operators of
 * one thread against the device trace's host operators of one thread, when no shared id exists.
 */
#ifndef CHAKRA_OP_ALIGNMENT_H
#define CHAKRA_OP_ALIGNMENT_H

#include <cstdint>
#include <limits>
#include <unordered_map>
#include <vector>

namespace ns3
{

/**
 * \ingroup chakra-linker
 * \brief One thread's operators in start order, as names (small integers) and optional ids.
 */
struct OpSequence
{
    /** Name of each op; kNoMatch for a name the other side never uses. */
    std::vector<uint32_t> names;
    /** Autograd sequence number of each op, or kNone. */
    std::vector<int64_t> sequenceNumbers;
    /** Host rf_id / device "External id" of each op, or kNone. */
    std::vector<int64_t> ids;

    /** A name that matches nothing. */
    static constexpr uint32_t kNoMatch = std::numeric_limits<uint32_t>::max();
    /** An absent number. */
    static constexpr int64_t kNone = std::numeric_limits<int64_t>::min();
};

/** \ingroup chakra-linker \brief How well a host sequence matches a device sequence at one offset.
 */
struct AlignmentScore
{
    int64_t offset{0};      //!< device index expected for host op 0
    uint32_t matched{0};    //!< host ops matched to a device op of the same name
    uint32_t skipped{0};    //!< device ops jumped over (extra ops)
    uint32_t seqAgree{0};   //!< matched pairs whose sequence numbers are equal
    uint32_t idAgree{0};    //!< matched pairs whose ids are equal
    int64_t firstMatch{-1}; //!< device index of the first match (-1 if none)
    int64_t lastMatch{-1};  //!< device index of the last match (-1 if none)
};

/**
 * \ingroup chakra-linker
 * \brief Aligns a host sequence to a device sequence "by order and name".
 *
 * For an offset o, host op i is expected at device index o + i, shifted by the extra and missing
 * ops met so far: the scan looks for the same name at the expected index and up to `window`
 * positions after it (extra device ops), then up to `window` positions before it (ops whose
 * equal start times were ordered differently). A host op not found there is left unmatched
 * (missing on the device side) without moving the expectation. Cost: O(host ops x window) per
 * offset.
 *
 * Candidate offsets put one of the first host ops on a device op of the same name; several
 * iterations of the same program give equally good offsets, which the caller tells apart
 * (sequence numbers, ids, time).
 */
class OpAligner
{
  public:
    /**
     * \param host the host thread's ops
     * \param device the device thread's ops
     * \param window how far around the expected index to look
     */
    OpAligner(const OpSequence& host, const OpSequence& device, uint32_t window);

    /**
     * \param leadOps how many of the first host ops whose names occur on the device side may
     * anchor an offset
     * \return candidate offsets, ascending
     */
    std::vector<int64_t> CandidateOffsets(uint32_t leadOps) const;

    /**
     * Scores one offset.
     * \param offset device index expected for host op 0 (may be negative)
     * \param limit score only the first \p limit host ops
     * \param[out] match if not null: device index of each host op, or -1 (size = host ops)
     * \return the score
     */
    AlignmentScore Score(int64_t offset, std::size_t limit, std::vector<int32_t>* match);

    /**
     * Scores every candidate offset on a prefix, then the most promising ones in full.
     * \param leadOps see CandidateOffsets()
     * \param prefix host ops scored in the first round
     * \param keep how many offsets are scored in full
     * \return the full scores of the kept offsets (best prefix first)
     */
    std::vector<AlignmentScore> Search(uint32_t leadOps, std::size_t prefix, std::size_t keep);

  private:
    const OpSequence& m_host;     //!< host side
    const OpSequence& m_device;   //!< device side
    uint32_t m_window;            //!< search radius
    std::vector<uint32_t> m_used; //!< device op used in the current scan iff == m_stamp
    uint32_t m_stamp{0};          //!< current scan
    std::unordered_map<uint32_t, std::vector<uint32_t>> m_positions; //!< name -> device indices
};

} // namespace ns3

#endif // CHAKRA_OP_ALIGNMENT_H
