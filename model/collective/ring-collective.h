/*
 * Ring algorithms: all-reduce, reduce-scatter, all-gather (NCCL's default inside a host) and
 * pipelined chains for broadcast and reduce.
 */
#ifndef CHAKRA_RING_COLLECTIVE_H
#define CHAKRA_RING_COLLECTIVE_H

#include "collective-algorithm.h"
#include "ring-schedule.h"

namespace ns3
{

/**
 * \ingroup chakra-collective
 * \brief Ring all-reduce, reduce-scatter, all-gather; chain broadcast and reduce; barrier.
 *
 * Closed form on a non-blocking switch (per-step latency a, bandwidth B, n ranks, S bytes):
 * all-reduce 2(n-1)a + 2(n-1)/n S/B; reduce-scatter (S = input) and all-gather (S = output)
 * (n-1)a + (n-1)/n S/B; chain broadcast/reduce with C chunks (n-1+C-1)(a + S/(C B)).
 */
class RingCollective : public CollectiveAlgorithm
{
  public:
    /** \return the TypeId */
    static TypeId GetTypeId();
    bool Supports(const CollectiveRequest& request) const override;

  protected:
    std::unique_ptr<CollectiveSchedule> DoBuild(const CollectiveRequest& request) const override;
};

} // namespace ns3

#endif // CHAKRA_RING_COLLECTIVE_H
