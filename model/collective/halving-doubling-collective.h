/*
 * Recursive halving-doubling (Rabenseifner) all-reduce, reduce-scatter and all-gather.
 */
#ifndef CHAKRA_HALVING_DOUBLING_COLLECTIVE_H
#define CHAKRA_HALVING_DOUBLING_COLLECTIVE_H

#include "collective-algorithm.h"

namespace ns3
{

/**
 * \ingroup chakra-collective
 * \brief Recursive halving reduce-scatter then recursive doubling all-gather.
 *
 * log2(n) steps each way, exchanging S/2, S/4, ... with the partner at distance n/2, n/4, ...
 * Closed form: 2 log2(n) a + 2(n-1)/n S/B. For n not a power of two (all-reduce only), the
 * usual fix-up: with p the largest power of two below n, the first 2(n-p) ranks pair up, the
 * even one of each pair hands its buffer to the odd one before and gets the result after
 * (two extra steps of S). Reduce-scatter and all-gather need n a power of two.
 */
class HalvingDoublingCollective : public CollectiveAlgorithm
{
  public:
    /** \return the TypeId */
    static TypeId GetTypeId();
    bool Supports(const CollectiveRequest& request) const override;

  protected:
    std::unique_ptr<CollectiveSchedule> DoBuild(const CollectiveRequest& request) const override;
};

} // namespace ns3

#endif // CHAKRA_HALVING_DOUBLING_COLLECTIVE_H
