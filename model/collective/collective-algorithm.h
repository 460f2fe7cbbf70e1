/*
 * Collective algorithms: each builds one rank's schedule (collective-schedule.h) for one call.
 */
#ifndef CHAKRA_COLLECTIVE_ALGORITHM_H
#define CHAKRA_COLLECTIVE_ALGORITHM_H

#include "collective-schedule.h"
#include "et_def.pb.h"

#include "ns3/attribute.h"
#include "ns3/object.h"
#include "ns3/ptr.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup chakra-collective
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
    uint32_t size{1};   //!< communicator size
    uint32_t me{0};     //!< this rank's index in the communicator
    uint32_t root{0};   //!< root index (broadcast, reduce, gather, scatter)
    uint32_t chunks{1}; //!< pipeline chunks
    /** Host id of each member (for hierarchical algorithms): one list shared by the members. */
    std::shared_ptr<const std::vector<uint32_t>> hostOf;
};

/**
 * \ingroup chakra-collective
 * \brief A collective algorithm: builds one rank's schedule.
 *
 * Each algorithm is an ns-3 Object with a TypeId (ns3::RingCollective, ...), so that it is
 * made by an ObjectFactory and can take its own parameters as attributes; the short names the
 * <Type>Algorithm attributes take ("ring") are one table (collective-algorithm.cc).
 */
class CollectiveAlgorithm : public Object
{
  public:
    /** \return the TypeId */
    static TypeId GetTypeId();
    /** \return the short name used in attributes and reports ("ring", ...) */
    std::string GetName() const;
    /** \param request the call \return true if this algorithm implements it */
    virtual bool Supports(const CollectiveRequest& request) const = 0;
    /**
     * \param request the call
     * \return this rank's schedule: empty on a communicator of one, the dissemination barrier
     *         for a barrier, DoBuild() otherwise
     */
    std::unique_ptr<CollectiveSchedule> Build(const CollectiveRequest& request) const;

  protected:
    /** \param request a call on two or more ranks, not a barrier \return the schedule */
    virtual std::unique_ptr<CollectiveSchedule> DoBuild(const CollectiveRequest& request) const = 0;
};

/**
 * \ingroup chakra-collective
 * \brief The value of a <Type>Algorithm attribute (EnumValue): AUTO lets the call choose
 * (ChooseCollectiveAlgorithm); an algorithm's value is 1 + its position in the table of
 * collective-algorithm.cc, so that adding one is a line there.
 */
struct CollectiveAlgorithmKind
{
    /** The algorithm (an unscoped enum with an int base: ns-3's EnumValue holds an int). */
    enum Kind : int
    {
        AUTO = 0,
    };
};

/**
 * \return the checker of the <Type>Algorithm attributes: auto and every algorithm's name, so
 *         that a misspelt name is refused where it is given, with the valid ones
 */
Ptr<const AttributeChecker> MakeCollectiveAlgorithmChecker();

/** \return the name of \p kind ("auto", "ring", ...) */
std::string CollectiveAlgorithmName(CollectiveAlgorithmKind::Kind kind);

/**
 * \param name "ring", "direct", "halving-doubling", "tree", "hierarchical", "grouped-p2p"
 * \return the algorithm (made by an ObjectFactory from its TypeId, so with the attribute
 *         defaults set by Config::SetDefault), or nullptr for an unknown name (and for "auto")
 */
Ptr<CollectiveAlgorithm> CreateCollectiveAlgorithm(const std::string& name);

/** \return the names CreateCollectiveAlgorithm accepts (without "auto") */
std::vector<std::string> CollectiveAlgorithmNames();

/**
 * Picks the algorithm for a call: \p requested if it supports the call, else the default for
 * the collective type (like NCCL's): hierarchical for all-reduce, all-gather and
 * reduce-scatter when members span several hosts evenly, ring otherwise for those and for
 * broadcast and reduce; direct for all-to-all, gather and scatter; barrier is a dissemination
 * barrier (direct). The algorithm that runs is what the report's collective table names.
 * \param requested AUTO or an algorithm
 * \param request the call
 * \return the algorithm (never nullptr)
 */
Ptr<CollectiveAlgorithm> ChooseCollectiveAlgorithm(CollectiveAlgorithmKind::Kind requested,
                                                   const CollectiveRequest& request);

/**
 * \return the algorithm-independent dissemination barrier: ceil(log2 n) rounds of empty
 * messages (round k: send to me + 2^k, receive from me - 2^k)
 */
std::unique_ptr<CollectiveSchedule> BuildDisseminationBarrier(const CollectiveRequest& request);

} // namespace ns3

#endif // CHAKRA_COLLECTIVE_ALGORITHM_H
