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

} // namespace ns3

#endif // CHAKRA_DIRECT_COLLECTIVE_H
