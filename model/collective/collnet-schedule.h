/*
 * CollNet (SHARP: the network's switches reduce) all-reduce in the NCCL model (issue 27):
 * NCCL's CollNetDirect and CollNetChain as one rank's ops. The network has no reducing switch:
 * a schedule puts SHARP's loads on the NICs (each head sends its share up once and receives
 * the reduced share once) as an exchange with the same rail's GPU of the next host. See
 * doc/collectives.md, "CollNet (SHARP)".
 */
#ifndef CHAKRA_COLLNET_SCHEDULE_H
#define CHAKRA_COLLNET_SCHEDULE_H

#include "collective-schedule.h"

#include "ns3/attribute.h"
#include "ns3/ptr.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

namespace ns3
{

/** Whether the network's switches reduce (SHARP, NCCL's CollNet): an attribute's values. */
enum class SharpSupport
{
    OFF, //!< no in-network reduction (NCCL's default: NCCL_COLLNET_ENABLE=0)
    ON,  //!< the switches reduce and NCCL's CollNet is enabled (a SHARP plugin,
         //!< NCCL_COLLNET_ENABLE=1)
};

/** \return the checker of a SharpSupport attribute: off, on (lowercase, as flags are) */
Ptr<const AttributeChecker> MakeSharpSupportChecker();

/** A communicator by host, as the CollNet and NVLSTree schedules see it. */
struct CollNetLayout
{
    uint32_t hosts{2}; //!< H, at least 2
    uint32_t gpus{1};  //!< g, the communicator's GPUs on each host
    /** members[h * g + l]: the communicator index of host h's local GPU l (H x g entries). */
    std::vector<uint32_t> members;
    uint32_t myHost{0};  //!< this rank's host
    uint32_t myLocal{0}; //!< this rank's local index

    /** \return the communicator index of host \p host's local GPU \p local */
    uint32_t MemberAt(uint32_t host, uint32_t local) const
    {
        return members[uint64_t{host} * gpus + local];
    }

    /**
     * Checks a schedule's arguments.
     * \param what the schedule, for the error ("CollNet", "NVLSTree")
     * \param minGpus the fewest GPUs a host may have
     * \param chunkBytes the chunk (> 0)
     * \param window the window (> 0)
     * \throws std::invalid_argument for fewer than 2 hosts or \p minGpus GPUs a host, a layout of
     *         the wrong size, a zero chunk or window
     */
    void Check(const char* what, uint32_t minGpus, uint64_t chunkBytes, uint32_t window) const;
};

/**
 * A buffer of N bytes in g shares (share j headed by local GPU j), each share in the same
 * number of chunks: the pieces CollNetDirect and NVLSTree move.
 */
class SharePieces
{
  public:
    /** \param bytes N \param gpus g \param chunkBytes a chunk of a share, at most (> 0) */
    SharePieces(uint64_t bytes, uint32_t gpus, uint64_t chunkBytes);

    /** \return the chunks of every share */
    uint32_t Chunks() const
    {
        return m_chunks;
    }

    /** \return the bytes of chunk \p k of share \p share */
    uint64_t operator()(uint32_t share, uint32_t k) const
    {
        return PartBytes(PartBytes(m_bytes, m_gpus, share), m_chunks, k);
    }

  private:
    uint64_t m_bytes;
    uint32_t m_gpus;
    uint32_t m_chunks;
};

/**
 * NCCL's CollNetDirect all-reduce (src/device/all_reduce.h), every GPU a head on its own NIC:
 * the buffer in g shares, share l headed by local GPU l; per chunk of a share, every GPU sends
 * it to its head over NVLink (g - 1 sends), the head sends its reduced share to the network and
 * gets the result back, then sends it to the host's other GPUs. In the network, SHARP reduces
 * in the switches; here the head sends its share to the same local GPU of the next host and
 * receives the previous host's: each NIC carries N / g each way, as with SHARP (on a fat tree
 * the exchange crosses the spines where SHARP's tree would reduce at the leaves: the NIC loads
 * are right, the upper tiers' are not).
 *
 * Chunk k of a share: the tags tagBase + 3k (to the head), 3k + 1 (the network), 3k + 2 (from
 * the head); a GPU's sends of chunk k to a head wait for its send of chunk k - window to that
 * head (NCCL_STEPS slots), the head's network send for all its g - 1 receives of the chunk, its
 * sends of the result for the network's answer.
 *
 * \param layout the communicator by host
 * \param bytes the buffer (N)
 * \param chunkBytes a chunk of a share, at most (> 0)
 * \param window chunks in flight to each head (> 0)
 * \param tagBase the first tag
 * \return the rank's ops, as a list (O(chunks x g))
 * \throws std::invalid_argument for fewer than 2 hosts, a layout of the wrong size, a zero
 *         chunk or window
 */
std::unique_ptr<CollectiveSchedule> BuildCollNetDirect(const CollNetLayout& layout,
                                                       uint64_t bytes,
                                                       uint64_t chunkBytes,
                                                       uint32_t window,
                                                       int64_t tagBase);

/**
 * One channel of NCCL's CollNetChain all-reduce (src/device/all_reduce.h): on each host a chain
 * of its GPUs from the head, local GPU (channel mod g), through head + 1, ..., head - 1 (mod
 * g); per chunk the data is reduced up the chain to the head, which sends it to the network and
 * gets the result back, then passed down the chain. The network as in BuildCollNetDirect: the
 * head exchanges with the next host's head of the channel. Tags tagBase + 3k (up), 3k + 1 (the
 * network), 3k + 2 (down); the chain's tail sends chunk k after chunk k - window.
 *
 * \param layout the communicator by host
 * \param channel the channel (its head: local GPU channel mod g)
 * \param bytes the channel's bytes
 * \param chunkBytes a chunk, at most (> 0)
 * \param window chunks in flight from the tail (> 0)
 * \param tagBase the first tag
 * \return the rank's ops, as a list (O(chunks))
 * \throws std::invalid_argument as BuildCollNetDirect
 */
std::unique_ptr<CollectiveSchedule> BuildCollNetChain(const CollNetLayout& layout,
                                                      uint32_t channel,
                                                      uint64_t bytes,
                                                      uint64_t chunkBytes,
                                                      uint32_t window,
                                                      int64_t tagBase);

/**
 * The gathering step of the schedules whose every GPU heads a share of the buffer (CollNetDirect,
 * NVLSTree): for chunk \p k, this GPU sends each other GPU of its host (the head d places
 * after it, d = 1 .. g-1) its part of that head's share, each send after its send to the same
 * head \p window chunks before, and receives its own share's part from each.
 * \param builder the schedule being built
 * \param layout the communicator by host
 * \param k the chunk
 * \param window chunks in flight to each head
 * \param tag the step's tag
 * \param bytesTo the bytes sent to a head (by its local index) for chunk \p k
 * \param bytesFrom the bytes received from each GPU
 * \param toHead the sends so far, chunk by chunk (appended to)
 * \return the receives' indices
 */
std::vector<uint32_t> AddSendsToHeads(ScheduleBuilder& builder,
                                      const CollNetLayout& layout,
                                      uint32_t k,
                                      uint32_t window,
                                      int64_t tag,
                                      const std::function<uint64_t(uint32_t head)>& bytesTo,
                                      uint64_t bytesFrom,
                                      std::vector<uint32_t>& toHead);

/**
 * The returning step, AddSendsToHeads's mirror: this GPU, the head of its share, sends each other
 * GPU of its host (d places after it) the share's result for a chunk once \p deps are complete,
 * and receives from each the result of the share it heads.
 * \param builder the schedule being built
 * \param layout the communicator by host
 * \param tag the step's tag
 * \param bytesTo the bytes sent to each GPU
 * \param bytesFrom the bytes received from a GPU (by its local index)
 * \param deps what the sends wait for
 */
void AddSendsFromHead(ScheduleBuilder& builder,
                      const CollNetLayout& layout,
                      int64_t tag,
                      uint64_t bytesTo,
                      const std::function<uint64_t(uint32_t from)>& bytesFrom,
                      const std::vector<uint32_t>& deps);

/** \return the chunks a CollNet schedule cuts \p bytes into: ceil(bytes / chunkBytes), >= 1 */
uint32_t CollNetChunks(uint64_t bytes, uint64_t chunkBytes);

} // namespace ns3

#endif // CHAKRA_COLLNET_SCHEDULE_H
