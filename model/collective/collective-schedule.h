/*
 * A collective schedule: what one rank sends and receives in one collective call, in which order
 * and after what. Read op by op, so that an algorithm whose schedule grows with the communicator
 * (a ring: 4(n-1) ops per rank, O(n^2) over the job) can describe it by formula instead of
 * holding it (see RingSchedule); small schedules are held as a list (ExplicitSchedule).
 */
#ifndef CHAKRA_COLLECTIVE_SCHEDULE_H
#define CHAKRA_COLLECTIVE_SCHEDULE_H

#include <cstdint>
#include <limits>
#include <memory>
#include <vector>

namespace ns3
{

/**
 * \ingroup chakra-collective
 * \brief One message this rank sends or receives in a collective.
 */
struct MessageOp
{
    bool send{true};   //!< send (true) or receive
    uint32_t peer{0};  //!< peer index in the communicator
    uint64_t bytes{0}; //!< payload
    int64_t tag{0};    //!< message tag, identical on the sending and receiving side
};

/**
 * \ingroup chakra-collective
 * \brief A message and the ops of the same schedule that must complete first (always earlier
 * ones).
 */
struct CollectiveOp : MessageOp
{
    std::vector<uint32_t> deps; //!< indices of earlier ops
};

/**
 * \ingroup chakra-collective
 * \brief One rank's ops for one collective call, read by index.
 *
 * Ops are numbered 0 .. Size()-1; an op depends only on earlier ops. The engine (Collective)
 * keeps one byte of state per op and asks the schedule for everything else when it needs it.
 */
class CollectiveSchedule
{
  public:
    /** "No op" for NextRecv. */
    static constexpr uint32_t kNone = std::numeric_limits<uint32_t>::max();

    virtual ~CollectiveSchedule() = default;
    /** \return the number of ops */
    virtual uint32_t Size() const = 0;
    /** \param op an index \return the message of that op */
    virtual MessageOp Op(uint32_t op) const = 0;
    /** \param op an index \return how many ops must complete before it */
    virtual uint32_t DepCount(uint32_t op) const = 0;
    /** \param op an index \param j < DepCount(op) \return the j-th op it waits for */
    virtual uint32_t Dep(uint32_t op, uint32_t j) const = 0;
    /** \param op an index \return how many ops wait for it */
    virtual uint32_t DependentCount(uint32_t op) const = 0;
    /**
     * \param op an index \param j < DependentCount(op)
     * \return the j-th op waiting for it (in increasing index order over j)
     */
    virtual uint32_t Dependent(uint32_t op, uint32_t j) const = 0;
    /**
     * Matching of arriving messages (non-overtaking: the earliest receive of that peer and tag
     * in schedule order takes the earliest message).
     * \param peer peer index \param tag message tag
     * \param after kNone to search from the start, else an op index
     * \return the first receive from \p peer with \p tag after \p after, or kNone
     */
    virtual uint32_t NextRecv(uint32_t peer, int64_t tag, uint32_t after) const = 0;
    /**
     * What a call starts with: the sends that wait for no op, and whether some receive does
     * (the engine arms those receives). The default reads every op; a schedule that knows them
     * (RingSchedule: O(chunks), where a rank's ring has 4(n - 1) ops) overrides it.
     * \param[out] sends appended: the sends with DepCount 0, in increasing order
     * \return true if a receive has DepCount 0
     */
    virtual bool InitialSends(std::vector<uint32_t>& sends) const;
    /**
     * How long a send waits, once its dependencies have completed, before it is handed to the
     * transport: a fixed cost of the library that runs the collective (NCCL's per-step
     * latency of its protocol), which the network does not model. It delays the message, it
     * does not occupy a link. The default is 0 (the textbook algorithms have none).
     * A schedule may also pace its sends (NCCL's protocols: a stream carries at most so many
     * bytes a second whatever the links), which needs the time and keeps state: the engine
     * asks once per send, when it issues it, in the order it issues them.
     * \param op the index of a send
     * \param message Op(op), which the engine has computed already (lazy schedules compute
     *        it per call)
     * \param nowNs the simulated time of the issue, in nanoseconds
     * \return the delay in nanoseconds (0 or more)
     */
    virtual int64_t SendDelayNs(uint32_t op, const MessageOp& message, int64_t nowNs) const;
};

/**
 * \ingroup chakra-collective
 * \brief A schedule held as a list of ops (with the reverse dependencies in one array).
 */
class ExplicitSchedule : public CollectiveSchedule
{
  public:
    /** \param ops the ops; each op's deps are earlier indices */
    explicit ExplicitSchedule(std::vector<CollectiveOp> ops);

    uint32_t Size() const override;
    MessageOp Op(uint32_t op) const override;
    uint32_t DepCount(uint32_t op) const override;
    uint32_t Dep(uint32_t op, uint32_t j) const override;
    uint32_t DependentCount(uint32_t op) const override;
    uint32_t Dependent(uint32_t op, uint32_t j) const override;
    uint32_t NextRecv(uint32_t peer, int64_t tag, uint32_t after) const override;

  private:
    /** A receive in (peer, tag, op) order, for NextRecv. */
    struct RecvEntry
    {
        uint32_t peer;
        int64_t tag;
        uint32_t op;
    };

    std::vector<CollectiveOp> m_ops;
    /** Ops waiting for op i: m_dependents[m_dependentsStart[i] .. m_dependentsStart[i + 1]). */
    std::vector<uint32_t> m_dependentsStart;
    std::vector<uint32_t> m_dependents;
    std::vector<RecvEntry> m_recvs; //!< sorted by (peer, tag, op)
};

/**
 * \ingroup chakra-collective
 * \brief Helper to append ops to an explicit schedule.
 */
class ScheduleBuilder
{
  public:
    /** Appends a send. \return its index */
    uint32_t Send(uint32_t peer, uint64_t bytes, int64_t tag, std::vector<uint32_t> deps = {});
    /** Appends a receive. \return its index */
    uint32_t Recv(uint32_t peer, uint64_t bytes, int64_t tag, std::vector<uint32_t> deps = {});
    /** \return the number of ops so far */
    uint32_t Size() const;
    /** \return the schedule */
    std::unique_ptr<CollectiveSchedule> Take();

  private:
    std::vector<CollectiveOp> m_ops; //!< ops so far
};

/**
 * \return byte count of part \p index when \p total bytes are split into \p parts nearly equal
 * parts: part i is floor(total (i + 1) / parts) - floor(total i / parts), so the larger parts
 * are spread over the range, not grouped first or last; exact for 64-bit totals
 */
inline uint64_t
PartBytes(uint64_t total, uint32_t parts, uint32_t index)
{
    // floor(total * i / parts) without overflow for totals near 2^64: with total = q parts + r,
    // it is q i + floor(r i / parts), and r i < 2^64 because r < parts < 2^32. Inline, with
    // the even split first: a flow-level ring asks for two parts per message, and the two
    // divisions of the general case were 4% of a 1,024-rank run.
    const uint64_t q = total / parts;
    const uint64_t r = total % parts;
    if (r == 0)
    {
        return q;
    }
    const uint64_t i = index;
    return q + (r * (i + 1) / parts - r * i / parts);
}

/**
 * \param schedule a schedule
 * \return its ops with their dependencies, as a list (for tests and tools: this holds the whole
 *         schedule, which the engine avoids)
 */
std::vector<CollectiveOp> ListOps(const CollectiveSchedule& schedule);

} // namespace ns3

#endif // CHAKRA_COLLECTIVE_SCHEDULE_H
