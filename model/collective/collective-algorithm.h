/*
 * Collective algorithms as per-rank schedules: what this rank sends and receives, and in which
 * order, for one collective call.
 */
#ifndef CHAKRA_COLLECTIVE_ALGORITHM_H
#define CHAKRA_COLLECTIVE_ALGORITHM_H

#include "et_def.pb.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup chakra
 * \brief One message this rank sends or receives in a collective, and what must finish first.
 */
struct CollectiveOp
{
    bool send{true};             //!< send (true) or receive
    uint32_t peer{0};            //!< peer index in the communicator
    uint64_t bytes{0};           //!< payload
    int64_t tag{0};              //!< message tag, identical on the sending and receiving side
    std::vector<uint32_t> deps;  //!< indices of ops of this schedule that must complete first
};

/** The ops of one rank for one collective call. */
using CollectiveSchedule = std::vector<CollectiveOp>;

/**
 * \ingroup chakra
 * \brief Everything an algorithm needs to build one rank's schedule. No global view: only this
 * rank's index, the communicator's size and which host each member is on.
 */
struct CollectiveRequest
{
    ChakraProtoMsg::CollectiveCommType type{ChakraProtoMsg::ALL_REDUCE};
    /**
     * comm_size: this rank's input bytes. All-reduce, reduce, broadcast: the buffer; all-gather
     * and gather: this rank's contribution (the output is size x bytes); reduce-scatter: the
     * whole input (each rank keeps bytes / size); all-to-all: the whole input (bytes / size to
     * each peer); scatter: the root's whole buffer (bytes / size to each rank).
     */
    uint64_t bytes{0};
    uint32_t size{1};              //!< communicator size
    uint32_t me{0};                //!< this rank's index in the communicator
    uint32_t root{0};              //!< root index (broadcast, reduce, gather, scatter)
    uint32_t chunks{1};            //!< pipeline chunks
    std::vector<uint32_t> hostOf;  //!< host id of each member (for hierarchical algorithms)
};

/**
 * \ingroup chakra
 * \brief A collective algorithm: builds one rank's schedule.
 */
class CollectiveAlgorithm
{
  public:
    virtual ~CollectiveAlgorithm() = default;
    /** \return the name used in attributes and reports ("ring", ...) */
    virtual std::string GetName() const = 0;
    /** \param request the call \return true if this algorithm implements it */
    virtual bool Supports(const CollectiveRequest& request) const = 0;
    /**
     * \param request the call
     * \return this rank's schedule: empty on a communicator of one, the dissemination barrier
     *         for a barrier, DoBuild() otherwise
     */
    CollectiveSchedule Build(const CollectiveRequest& request) const;

  protected:
    /** \param request a call on two or more ranks, not a barrier \return the schedule */
    virtual CollectiveSchedule DoBuild(const CollectiveRequest& request) const = 0;
};

/**
 * \param name "ring", "direct", "halving-doubling", "tree", "hierarchical"
 * \return the algorithm, or nullptr for an unknown name
 */
std::unique_ptr<CollectiveAlgorithm> CreateCollectiveAlgorithm(const std::string& name);

/** \return the names CreateCollectiveAlgorithm accepts */
std::vector<std::string> CollectiveAlgorithmNames();

/**
 * Picks the algorithm for a call: \p requested if it supports the call, else the default for
 * the collective type (like NCCL's): hierarchical for all-reduce, all-gather and
 * reduce-scatter when members span several hosts evenly, ring otherwise for those and for
 * broadcast and reduce; direct for all-to-all, gather and scatter; barrier is a dissemination
 * barrier (direct).
 * \param requested "auto" or an algorithm name
 * \param request the call
 * \return the algorithm (never nullptr)
 */
std::unique_ptr<CollectiveAlgorithm> ChooseCollectiveAlgorithm(const std::string& requested,
                                                                const CollectiveRequest& request);

/**
 * \return byte count of part \p index when \p total bytes are split into \p parts nearly equal
 * parts (the first parts are the smaller ones); exact for 64-bit totals
 */
uint64_t PartBytes(uint64_t total, uint32_t parts, uint32_t index);

/**
 * \ingroup chakra
 * \brief Helper to append ops to a schedule.
 */
class ScheduleBuilder
{
  public:
    /** Appends a send. \return its index */
    uint32_t Send(uint32_t peer, uint64_t bytes, int64_t tag, std::vector<uint32_t> deps = {});
    /** Appends a receive. \return its index */
    uint32_t Recv(uint32_t peer, uint64_t bytes, int64_t tag, std::vector<uint32_t> deps = {});
    /** Adds a dependency to an existing op. */
    void AddDep(uint32_t op, uint32_t dep);
    /** \return the number of ops so far */
    uint32_t Size() const;
    /** Makes room for \p ops ops in all (a ring over n ranks appends O(n) of them). */
    void Reserve(std::size_t ops);
    /** \return the schedule */
    CollectiveSchedule Take();

  private:
    CollectiveSchedule m_ops; //!< ops so far
};

/**
 * \return the algorithm-independent dissemination barrier: ceil(log2 n) rounds of empty
 * messages (round k: send to me + 2^k, receive from me - 2^k)
 */
CollectiveSchedule BuildDisseminationBarrier(const CollectiveRequest& request);

} // namespace ns3

#endif // CHAKRA_COLLECTIVE_ALGORITHM_H
