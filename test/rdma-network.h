/*
 * Small RDMA fabrics for the tests: a topology built into an RdmaFabric, a star of GPUs on one
 * switch, a point-to-point message header.
 */
#ifndef CHAKRA_TEST_RDMA_NETWORK_H
#define CHAKRA_TEST_RDMA_NETWORK_H

#include "ns3/cluster-topology.h"
#include "ns3/message-key.h"
#include "ns3/node-container.h"
#include "ns3/nstime.h"
#include "ns3/packet.h"
#include "ns3/rdma-fabric.h"

#include <cstdint>
#include <map>
#include <memory>
#include <string>

namespace rdmatest
{

/** Tears the simulator and the defaults down after every test case. */
struct Fresh
{
    ~Fresh();
};

/** A built fabric and its nodes. */
struct Network
{
    std::shared_ptr<ns3::ClusterTopology> topology;
    ns3::NodeContainer nodes;
    ns3::Ptr<ns3::RdmaFabric> fabric;
};

/** \return \p topology built into an RdmaFabric (with the attribute defaults of now) */
Network Install(std::shared_ptr<ns3::ClusterTopology> topology);

/**
 * \return \p gpus GPUs (one per host) on one switch, every link \p rate and \p delay, MTU 9000;
 *         link i joins GPU i (its device 2i) to the switch (device 2i + 1)
 */
std::shared_ptr<ns3::ClusterTopology> Star(uint32_t gpus, const std::string& rate, ns3::Time delay);

/**
 * Counts the data bytes a device sends or receives (connect Count to its MacTx or MacRx trace
 * source), per source rank, between \p from and \p to.
 */
struct BytesBySource
{
    ns3::Time from{ns3::Seconds(0)};
    ns3::Time to{ns3::Seconds(1e9)};
    std::map<uint32_t, double> bytes;

    void Count(ns3::Ptr<const ns3::Packet> packet);
};

/** \return the header of a point-to-point message of \p payload bytes from rank \p src */
ns3::MessageHeader Message(uint32_t src, uint64_t payload, int64_t tag = 0);

} // namespace rdmatest

#endif // CHAKRA_TEST_RDMA_NETWORK_H
