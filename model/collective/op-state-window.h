/*
 * OpStateWindow: what each op of a rank's collective call is doing, kept for the ops between
 * the first one not complete and the last one started, not for the whole schedule.
 */
#ifndef CHAKRA_OP_STATE_WINDOW_H
#define CHAKRA_OP_STATE_WINDOW_H

#include <array>
#include <cstdint>
#include <vector>

namespace ns3
{

/**
 * \ingroup chakra-collective
 * \brief The state of every op of a schedule, in memory proportional to the ops in progress.
 *
 * A rank's ops complete roughly in schedule order (a ring's steps, a tree's chunks), so every
 * op before some index is complete and every op well past the ones running is still waiting.
 * Only the ops between are stored: in a ring buffer that grows to the widest span the call
 * reaches (a few ops for a ring pass, the whole schedule for a direct all-to-all, which starts
 * every op at once). A ring all-reduce over n ranks has 4(n - 1) ops per rank: a byte each in
 * a vector was O(n^2) over a job (268 MB for one all-reduce over 8,192 ranks); this is O(1)
 * per rank for it.
 */
class OpStateWindow
{
  public:
    /** What an op is doing. */
    enum State : uint8_t
    {
        WAITING,  //!< for earlier ops
        ISSUED,   //!< handed to the transport
        COMPLETE, //!< done
    };

    /** \param size the ops of the schedule, all WAITING */
    explicit OpStateWindow(uint32_t size);

    /** \return the state of \p op (< size) */
    State Get(uint32_t op) const
    {
        if (op < m_base)
        {
            return COMPLETE;
        }
        const uint32_t offset = op - m_base;
        return offset < m_count ? Data()[(m_head + offset) & m_mask] : WAITING;
    }

    /** Sets the state of \p op (< size); the window slides past the ops completed at its
     *  start. */
    void Set(uint32_t op, State state);

    /** \return the most ops stored at once (the window's widest span) */
    uint32_t GetPeakSpan() const
    {
        return m_peakSpan;
    }

  private:
    /** Ops the object holds itself: a ring pass's window, without a heap block to miss. */
    static constexpr uint32_t kInline = 16;

    /** Makes room for ops up to \p op (>= m_base) in the window, as WAITING. */
    void Extend(uint32_t op);

    /** \return the ring: the inline one until the window outgrows it */
    State* Data()
    {
        return m_heap.empty() ? m_inline.data() : m_heap.data();
    }

    /** \return the ring */
    const State* Data() const
    {
        return m_heap.empty() ? m_inline.data() : m_heap.data();
    }

    uint32_t m_size;                       //!< ops of the schedule
    uint32_t m_base{0};                    //!< every op before it is complete
    uint32_t m_count{0};                   //!< ops stored, from m_base
    uint32_t m_head{0};                    //!< ring index of m_base
    uint32_t m_mask{kInline - 1};          //!< ring capacity - 1 (a power of two)
    uint32_t m_peakSpan{0};                //!< most ops stored at once
    std::array<State, kInline> m_inline{}; //!< the ring while it has room
    std::vector<State> m_heap;             //!< the ring once it has grown past kInline
};

} // namespace ns3

#endif // CHAKRA_OP_STATE_WINDOW_H
