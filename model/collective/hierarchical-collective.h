/*
 * Hierarchical algorithms: inside each host first, then across hosts, then inside again.
 */
#ifndef CHAKRA_HIERARCHICAL_COLLECTIVE_H
#define CHAKRA_HIERARCHICAL_COLLECTIVE_H

#include "collective-algorithm.h"

namespace ns3
{

/**
 * \ingroup chakra-collective
 * \brief Two-level collectives for communicators spread evenly over several hosts.
 *
 * With g members per host and H hosts: all-reduce = ring reduce-scatter inside each host (over
 * the NVSwitch), ring all-reduce of the 1/g share across hosts among the members with the same
 * local position, ring all-gather inside the host. All-gather = across hosts, then inside;
 * reduce-scatter = inside, then across hosts. Only 1/g of the data crosses the slower
 * scale-out network, which is why it beats a flat ring when that network is the bottleneck.
 * Closed form (all-reduce): 2(g-1)(a_in + S/(g B_in)) + 2(H-1)(a_out + S/(g H B_out)).
 */
class HierarchicalCollective : public CollectiveAlgorithm
{
  public:
    /** \return the TypeId */
    static TypeId GetTypeId();
    bool Supports(const CollectiveRequest& request) const override;

  protected:
    std::unique_ptr<CollectiveSchedule> DoBuild(const CollectiveRequest& request) const override;
};

} // namespace ns3

#endif // CHAKRA_HIERARCHICAL_COLLECTIVE_H
