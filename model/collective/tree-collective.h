/*
 * Tree algorithms: double binary tree all-reduce (as NCCL), binary tree broadcast and reduce.
 */
#ifndef CHAKRA_TREE_COLLECTIVE_H
#define CHAKRA_TREE_COLLECTIVE_H

#include "collective-algorithm.h"

namespace ns3
{

/**
 * \ingroup chakra-collective
 * \brief Binary-tree collectives, pipelined in chunks.
 *
 * All-reduce uses two binary trees, each carrying half the data: tree 0 is the heap-shaped
 * tree over ranks 0..n-1 (parent of position q is (q-1)/2), tree 1 the same shape over the
 * ranks in reverse order, so that most leaves of one tree are inner nodes of the other and
 * both directions of every link carry data. Each chunk is reduced up to the root and
 * broadcast down; chunks pipeline. Broadcast and reduce use one tree rooted at the root.
 * With M = S / (2C) per half-chunk message, h the tree height, h_c the longest path through
 * a rank that is inner in both trees, k its messages per pipeline stage and L the most tree
 * neighbours of one rank in both trees together (4 for n > 4), an all-reduce takes about
 * max(2h(a + M/B), 2h_c(a + kM/B)) + (C - 1) L M / B: the busiest NIC carries L half-chunk
 * messages per chunk (derivation in doc/collectives.md).
 */
class TreeCollective : public CollectiveAlgorithm
{
  public:
    /** \return the TypeId */
    static TypeId GetTypeId();
    bool Supports(const CollectiveRequest& request) const override;

  protected:
    std::unique_ptr<CollectiveSchedule> DoBuild(const CollectiveRequest& request) const override;
};

} // namespace ns3

#endif // CHAKRA_TREE_COLLECTIVE_H
