/*
 * Grouped point-to-point collectives, as NCCL runs all-to-all, gather and scatter: one step per
 * peer in a fixed order, a bounded window of steps in flight, messages in chunks.
 */
#ifndef CHAKRA_GROUPED_P2P_COLLECTIVE_H
#define CHAKRA_GROUPED_P2P_COLLECTIVE_H

#include "collective-algorithm.h"

namespace ns3
{

/**
 * \ingroup chakra-collective
 * \brief All-to-all, gather and scatter as NCCL runs them: grouped send/receive (short name
 * "grouped-p2p").
 *
 * NCCL (src/enqueue.cc, src/init.cc, src/graph/paths.cc) turns these calls into a group of
 * point-to-point operations and runs them in rounds: in round i a rank sends to (me + i) mod n
 * and receives from (me - i) mod n (round 0 is the copy to itself, no network). A round is
 * placed on one of the p2p channels, and each channel runs up to
 * NCCL_MAX_DEV_WORK_P2P_PER_BATCH (8) operations at once, so that at most
 * p2pnChannels / p2pnChannelsPerPeer x 8 peers are in flight (with many peers NCCL lowers
 * p2pnChannelsPerPeer to 1: 32 p2p channels x 8 = 256 on an 8-GPU H100 host). A message
 * moves in pieces of the p2p chunk size (NCCL_P2P_NET_CHUNKSIZE, 128 KiB, when the
 * communicator spans hosts; NCCL_P2P_NVL_CHUNKSIZE, 512 KiB, on one all-NVLink host).
 *
 * Model (GroupedP2pSchedule): steps i = 1 .. n-1 in that order, a sliding window of Window
 * steps (the sends of step i wait until step i - Window's last send has been handed over and
 * its last receive has arrived), each message cut in ChunkBytes pieces. Not modelled: the
 * split of a large message over several channels of one peer (the same NIC: it changes no
 * rate in the flow or packet models), NCCL's batch boundaries (a window that slides instead of
 * one that advances 8 rounds at a time), and the quadratic round order NCCL 2.19+ uses across
 * nodes (the linear order above is what the brief, and NCCL before it, use).
 *
 * The request's pipeline chunks (ChunkSize) are not used: ChunkBytes cuts the messages.
 */
class GroupedP2pCollective : public CollectiveAlgorithm
{
  public:
    /** \return the TypeId */
    static TypeId GetTypeId();
    /** \return true for all-to-all, gather and scatter */
    bool Supports(const CollectiveRequest& request) const override;

  protected:
    std::unique_ptr<CollectiveSchedule> DoBuild(const CollectiveRequest& request) const override;

  private:
    uint32_t m_window;     //!< steps in flight at once
    uint64_t m_chunkBytes; //!< largest message
};

/**
 * \ingroup chakra-collective
 * \brief One rank's grouped point-to-point schedule, computed op by op (O(1) state).
 *
 * A rank has S steps of C chunks; each chunk slot holds P ops: the send (if any) then the
 * receive (if any). Op index = ((step - 1) x C + chunk) x P + slot.
 * - all-to-all: S = n - 1, P = 2; step i sends block (me + i) of the buffer to me + i and
 *   receives block me from me - i (block j: PartBytes(bytes, n, j));
 * - scatter root: S = n - 1, P = 1, step i sends block (me + i) to me + i; another rank: S = 1,
 *   P = 1, receives its block from the root;
 * - gather root: S = n - 1, P = 1, step i receives the bytes of me - i; another rank: S = 1,
 *   P = 1, sends its bytes to the root.
 * C = ceil(largest message / chunk) for every step; chunk k of a message of b bytes has
 * min(chunk, b - k x chunk) bytes (0 when the message is shorter: blocks differ by a byte at
 * most). Chunk k has tag k. Every send of step i > W depends on the last chunk's send and
 * receive of step i - W.
 */
class GroupedP2pSchedule : public CollectiveSchedule
{
  public:
    /**
     * \param request the call (all-to-all, gather or scatter; size >= 2)
     * \param window steps in flight (>= 1)
     * \param chunkBytes largest message (>= 1)
     */
    GroupedP2pSchedule(const CollectiveRequest& request, uint32_t window, uint64_t chunkBytes);

    uint32_t Size() const override;
    MessageOp Op(uint32_t op) const override;
    uint32_t DepCount(uint32_t op) const override;
    uint32_t Dep(uint32_t op, uint32_t j) const override;
    uint32_t DependentCount(uint32_t op) const override;
    uint32_t Dependent(uint32_t op, uint32_t j) const override;
    uint32_t NextRecv(uint32_t peer, int64_t tag, uint32_t after) const override;

    /** \return the chunks per message (C) */
    uint32_t GetChunks() const;

  private:
    /** \return the peer this rank sends to in step \p step (1-based) */
    uint32_t SendPeer(uint32_t step) const;
    /** \return the peer this rank receives from in step \p step */
    uint32_t RecvPeer(uint32_t step) const;
    /** \return the bytes of the message to (\p send) or from \p peer */
    uint64_t MessageBytes(bool send, uint32_t peer) const;

    ChakraProtoMsg::CollectiveCommType m_type;
    uint32_t m_n;
    uint32_t m_me;
    uint32_t m_root;
    uint64_t m_bytes;
    uint32_t m_window;
    uint64_t m_chunkBytes;
    bool m_hasSend{false};
    bool m_hasRecv{false};
    bool m_toRoot{false}; //!< the one peer is the root (a non-root rank of gather or scatter)
    uint32_t m_steps{0};  //!< S
    uint32_t m_chunks{1}; //!< C
    uint32_t m_slots{1};  //!< P
};

} // namespace ns3

#endif // CHAKRA_GROUPED_P2P_COLLECTIVE_H
