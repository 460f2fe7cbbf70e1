/*
 * HostOpMatching: the linker's first step, which host op is which Kineto CPU op (private to
 * helper/trace-link).
 */
#ifndef CHAKRA_HOST_OP_MATCHING_H
#define CHAKRA_HOST_OP_MATCHING_H

#include "op-alignment.h"
#include "trace-linker.h"

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

namespace ns3
{

/**
 * \ingroup chakra-linker
 * \brief Host ops matched to Kineto CPU ops, which puts the host ops on the device trace's
 * clock.
 *
 * Match() pairs them by rf_id when the Kineto trace has those ids (and they match at least
 * half the host ops), else by order and name per thread (OpAligner). The result answers the
 * later steps' questions: which CPU op a host op is, its nearest linked ancestor, the span of
 * the linked ops, and which linked op encloses or follows a time on a device thread.
 */
class HostOpMatching
{
  public:
    /**
     * Indexes the Kineto CPU ops by "External id" when the trace's ids name launching ops.
     * \param options the linker's options (the alignment window and thread threshold)
     * \param host the host trace
     * \param device the Kineto trace
     */
    HostOpMatching(const TraceLinker::Options& options,
                   const HostTrace& host,
                   const KinetoTrace& device);

    /**
     * Matches the host ops, then finds each linked op's nearest linked ancestor.
     * \param hostOps the number of operator nodes of the host trace
     */
    void Match(uint64_t hostOps);

    /** \return "rf_id" or "order" */
    const std::string& GetMethod() const;
    /** \return what the user should know about the choice of method (maybe empty) */
    const std::vector<std::string>& GetWarnings() const;
    /** \return the thread mapping lines */
    const std::vector<std::string>& GetThreadLines() const;
    /** \return the number of host ops matched */
    uint64_t GetLinkedCount() const;

    /** \return the Kineto CPU op host op \p host matched, or -1 */
    int32_t GetCpuOp(std::size_t host) const;
    /** \return the host op Kineto CPU op \p cpu matched, or -1 */
    int32_t GetHostOp(std::size_t cpu) const;
    /** \return the Kineto CPU op a linked host op matched */
    const KinetoCpuOp& GetLinkedCpuOp(uint32_t host) const;
    /** \return the reason code of an unmatched host op ("" when matched) */
    const std::string& GetReasonCode(std::size_t host) const;
    /** \return the reason of an unmatched host op, in words */
    const std::string& GetReason(std::size_t host) const;
    /** \return the nearest linked ancestor of a linked host op, or -1 */
    int32_t GetLinkedParent(std::size_t host) const;
    /** \return the linked host ops whose nearest linked ancestor is \p host */
    const std::vector<int32_t>& GetLinkedChildren(std::size_t host) const;

    /** \return whether any host op is linked */
    bool HasSpan() const;
    /** \return the first linked start */
    TimeNs GetSpanStart() const;
    /** \return the last linked end */
    TimeNs GetSpanEnd() const;

    /**
     * \param thread a device thread
     * \param t a time on it
     * \param externalId the "External id" of a launcher at \p t (kKinetoNone if none)
     * \return the innermost Kineto CPU op of a linked host op enclosing \p t, or -1
     */
    int32_t EnclosingLinkedOp(uint32_t thread, TimeNs t, int64_t externalId) const;
    /** \return the first Kineto CPU op of a linked host op starting at or after \p t, or -1 */
    int32_t NextLinkedOp(uint32_t thread, TimeNs t) const;

  private:
    /** What one matching method found. */
    struct MethodResult
    {
        std::vector<int32_t> hostToCpu;      //!< per host op: Kineto CPU op or -1
        std::vector<std::string> reasonCode; //!< per unmatched host op
        std::vector<std::string> reason;     //!< per unmatched host op
        std::vector<std::string> threads;    //!< thread mapping lines
        uint64_t linked{0};                  //!< matched host ops
    };

    /** Where the ops of one host thread run in the device trace: its best alignment. */
    struct ThreadPlacement
    {
        bool found{false};    //!< some device thread matched at least one op
        uint32_t thread{0};   //!< the device thread
        AlignmentScore score; //!< the alignment (offset, matched, skipped, ...)
        TimeNs distance{0};   //!< gap to the span of the threads placed before
        TimeNs start{0};      //!< start of the first matched device op
        TimeNs end{0};        //!< end of the matched device ops
    };

    /** \return a result with every host op unmatched */
    MethodResult EmptyResult() const;
    MethodResult MatchByRecordFunctionId() const;
    MethodResult MatchByOrder() const;
    /** \return per device thread, its host operators in start order (names, seq, ids) */
    std::vector<OpSequence> DeviceSequences() const;
    /**
     * Best (thread, offset) for one host thread among the device threads not \p taken: most
     * matches, then agreeing sequence numbers, then closest in time to the threads already
     * placed (the reference span), then fewest skipped ops, then agreeing ids, then earliest.
     */
    ThreadPlacement PlaceHostThread(const OpSequence& hostSeq,
                                    const std::vector<OpSequence>& deviceSeqs,
                                    const std::vector<bool>& taken,
                                    bool haveReference,
                                    TimeNs refStart,
                                    TimeNs refEnd) const;
    /**
     * Links the host ops \p ops to the device thread of \p best, and gives each op left
     * unmatched its reason.
     * \return the number of ops linked
     */
    uint64_t ApplyThreadMatch(MethodResult& result,
                              const std::vector<uint32_t>& ops,
                              const OpSequence& hostSeq,
                              const std::vector<OpSequence>& deviceSeqs,
                              const ThreadPlacement& best) const;
    void MatchAcrossThreads(MethodResult& result,
                            bool haveSpan,
                            TimeNs spanStart,
                            TimeNs spanEnd) const;
    /** Keeps \p result: the reverse index and the span of the linked ops. */
    void Apply(MethodResult result);
    void ComputeLinkedParents();

    const TraceLinker::Options& m_options;
    const HostTrace& m_host;
    const KinetoTrace& m_device;
    const std::vector<HostOp>& m_ops;
    const std::vector<KinetoCpuOp>& m_cpu;

    std::unordered_map<int64_t, int32_t> m_cpuByExternalId; //!< External id -> Kineto CPU op
    std::string m_method;                                   //!< "rf_id" or "order"
    std::vector<std::string> m_warnings;                    //!< about the method
    MethodResult m_result;                                  //!< host op -> Kineto CPU op
    std::vector<int32_t> m_cpuToHost;                       //!< Kineto CPU op -> host op or -1
    std::vector<int32_t> m_linkedParent;                //!< nearest linked ancestor of a host op
    std::vector<std::vector<int32_t>> m_linkedChildren; //!< host ops whose m_linkedParent is it
    bool m_hasSpan{false};                              //!< any host op linked
    TimeNs m_spanStart{0};                              //!< first linked start
    TimeNs m_spanEnd{0};                                //!< last linked end
};

} // namespace ns3

#endif // CHAKRA_HOST_OP_MATCHING_H
