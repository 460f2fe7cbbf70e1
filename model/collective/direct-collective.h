/*
 * Direct algorithms: every rank exchanges with every other rank at once.
 */
#ifndef CHAKRA_DIRECT_COLLECTIVE_H
#define CHAKRA_DIRECT_COLLECTIVE_H

#include "collective-algorithm.h"

namespace ns3
{

/**
 * \ingroup chakra-collective
 * \brief Direct (one-hop) collectives: all-to-all, gather, scatter, broadcast and reduce from or
 * to the root, all-gather, reduce-scatter, and all-reduce as direct reduce-scatter then direct
 * all-gather; barrier.
 *
 * Closed form on a non-blocking switch: all-to-all ~ a + (n-1)/n S/B (each NIC sends and
 * receives (n-1)/n S at once); all-reduce ~ 2a + 2(n-1)/n S/B.
 *
 * The schedule is a DirectSchedule: computed op by op, O(1) memory whatever the group size.
 */
class DirectCollective : public CollectiveAlgorithm
{
  public:
    /** \return the TypeId */
    static TypeId GetTypeId();
    bool Supports(const CollectiveRequest& request) const override;

  protected:
    std::unique_ptr<CollectiveSchedule> DoBuild(const CollectiveRequest& request) const override;
};

/**
 * \ingroup chakra-collective
 * \brief One rank's direct schedule, computed op by op from the request (no list of ops).
 *
 * A direct all-to-all over n ranks gives each rank 2(n-1) ops per call, all posted at once:
 * held as a list (ExplicitSchedule), that is about 130 bytes per ordered pair of ranks for as
 * long as the call runs, 2 GiB over a 4,096-rank job.
 *
 * Peers are visited in the order me+1, me+2, ... (mod n): every rank starts with a different
 * peer, so that no receiver is the first target of everybody. Chunk c uses tag 2c (and 2c + 1
 * for the all-gather half of an all-reduce). For each chunk, in this order:
 * - all-to-all, reduce-scatter: for i = 1 .. n-1, send block (me+i) of the chunk to me+i, then
 *   receive block me of the chunk from me-i (block j of a buffer: PartBytes(chunk, n, j));
 * - all-gather: the same with the whole chunk both ways;
 * - all-reduce: the reduce-scatter above, then for i = 1 .. n-1 send the reduced block me to
 *   me+i (after every receive of the reduce-scatter of the chunk) and receive block (me-i)
 *   from me-i;
 * - broadcast, scatter: the root sends the chunk (scatter: block me+i) to me+i for i = 1 ..
 *   n-1; any other rank receives it (scatter: its block) from the root;
 * - reduce, gather: the root receives the chunk from me+i for i = 1 .. n-1; any other rank
 *   sends it to the root.
 * Other types have no ops.
 */
class DirectSchedule : public CollectiveSchedule
{
  public:
    /** \param request the call (size >= 2) */
    explicit DirectSchedule(const CollectiveRequest& request);

    uint32_t Size() const override;
    MessageOp Op(uint32_t op) const override;
    uint32_t DepCount(uint32_t op) const override;
    uint32_t Dep(uint32_t op, uint32_t j) const override;
    uint32_t DependentCount(uint32_t op) const override;
    uint32_t Dependent(uint32_t op, uint32_t j) const override;
    uint32_t NextRecv(uint32_t peer, int64_t tag, uint32_t after) const override;

  private:
    /** What a chunk's ops are. */
    enum class Shape : uint8_t
    {
        NONE,       //!< no ops
        EXCHANGE,   //!< n-1 (send, receive) pairs: all-to-all, reduce-scatter, all-gather
        ALL_REDUCE, //!< an exchange, then another whose sends wait for the first's receives
        SENDS,      //!< n-1 sends (root of broadcast, scatter)
        RECVS,      //!< n-1 receives (root of reduce, gather)
        ONE_SEND,   //!< one send to the root (reduce, gather)
        ONE_RECV,   //!< one receive from the root (broadcast, scatter)
    };

    /** \return the communicator index i steps after this rank */
    uint32_t PeerAfter(uint32_t i) const;
    /** \return block \p block of chunk \p chunk */
    uint64_t Block(uint32_t chunk, uint32_t block) const;
    /** \return true if op \p local of a chunk is a receive of the all-reduce's first half */
    bool IsFirstHalfRecv(uint32_t local) const;

    ChakraProtoMsg::CollectiveCommType m_type;
    Shape m_shape{Shape::NONE};
    uint32_t m_n;
    uint32_t m_me;
    uint32_t m_root;
    uint64_t m_bytes;
    uint32_t m_chunks;
    uint32_t m_perChunk{0}; //!< ops per chunk
};

} // namespace ns3

#endif // CHAKRA_DIRECT_COLLECTIVE_H
