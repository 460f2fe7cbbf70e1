/*
 * The RDMA fabric's counters gathered to process 0 in a distributed (MPI) run.
 */
#ifndef CHAKRA_RDMA_STATS_GATHER_H
#define CHAKRA_RDMA_STATS_GATHER_H

#include "ns3/rdma-net-device.h"
#include "ns3/rdma-nic.h"

#include <vector>

namespace ns3
{

/**
 * \ingroup chakra-distributed
 * \brief Every port's counters, each from the process that ran its node.
 *
 * One process: each device's GetStats. Several (MPI): each process counted only what its own
 * nodes did (the other ports stayed idle there); process 0 gets every port's counters from the
 * port's owner, the others get their own view. Collective: every process calls it, with the
 * same devices in the same order.
 */
std::vector<RdmaNetDevice::Stats> GatherPortStats(const std::vector<Ptr<RdmaNetDevice>>& devices);

/**
 * \ingroup chakra-distributed
 * \brief Every NIC's counters, each from the process that ran its rank (as GatherPortStats).
 */
std::vector<RdmaNic::Stats> GatherNicStats(const std::vector<Ptr<RdmaNic>>& nics);

} // namespace ns3

#endif // CHAKRA_RDMA_STATS_GATHER_H
