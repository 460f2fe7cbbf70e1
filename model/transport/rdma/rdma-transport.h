/*
 * RdmaTransport: the "rdma" transport model: RoCEv2 queue pairs with DCQCN over the RDMA
 * fabric's devices (ECN, PFC).
 */
#ifndef CHAKRA_RDMA_TRANSPORT_H
#define CHAKRA_RDMA_TRANSPORT_H

#include "ns3/comm-transport.h"
#include "ns3/rdma-net-device.h"
#include "ns3/rocev2-header.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

class RdmaNic;

/**
 * \ingroup chakra-transport
 * \brief The "rdma" model of CommTransport: messages over the rank's RdmaNic.
 *
 * The model (doc/chakra.md, "Transport: rdma"):
 * - one reliable-connected queue pair per ordered pair of ranks (RdmaQueuePair), opened on
 *   first use (no handshake: RDMA connections are set up out of band);
 * - a message is its MessageHeader (kSize bytes) followed by its payload, cut into packets of
 *   PayloadPerPacket(mtu) bytes, each carried with kPacketOverhead bytes of headers and
 *   framing: IPv4, UDP, BTH, ICRC (RoceV2Header::kDataOverhead) and Ethernet framing
 *   (RdmaNetDevice::kFramingBytes);
 * - a send completes when the peer acknowledges its last packet; a receive when its last
 *   packet has arrived; messages of a pair arrive in order (one queue pair, one path);
 * - every queue pair starts at line rate; its congestion control (RdmaNic CongestionControl:
 *   dcqcn or none) sets its rate from then on;
 * - flows are routed on ClusterTopology with FlowHash (the flow model uses the same function,
 *   so both take the same paths).
 * The transport needs the node's RdmaNic: build the cluster with GpuClusterHelper Transport
 * "rdma" (RdmaFabric), or install RdmaFabric on your own topology.
 */
class RdmaTransport : public CommTransport
{
  public:
    /** Bytes a data packet carries beyond its share of the message: headers and framing. */
    static constexpr uint32_t kPacketOverhead =
        RoceV2Header::kDataOverhead + RdmaNetDevice::kFramingBytes;

    /** \return the TypeId */
    static TypeId GetTypeId();
    RdmaTransport();
    ~RdmaTransport() override;

    /**
     * \param mtu the link MTU (largest IP packet)
     * \return message bytes (header and payload) one packet carries: mtu - 44
     */
    static uint32_t PayloadPerPacket(uint32_t mtu);
    /**
     * \param payload a message's payload bytes
     * \param mtu the link MTU
     * \return the bytes the message occupies on a link: header, payload and per-packet
     *         overhead (what a flow model charges for it)
     */
    static uint64_t WireBytes(uint64_t payload, uint32_t mtu);
    /**
     * \param queuePair the queue pair's index between the two ranks (0: the only one)
     * \return the UDP source port its packets carry (49152 + index)
     */
    static uint16_t SourcePort(uint32_t queuePair);
    /**
     * The ECMP hash of a queue pair's packets from \p srcRank to \p dstRank:
     * RoceV2Header::FlowHash(srcRank, dstRank, SourcePort(queuePair)); pass it to
     * ClusterTopology::SelectNextHop / GetPath to follow the packets' path.
     */
    static uint64_t FlowHash(uint32_t srcRank, uint32_t dstRank, uint32_t queuePair = 0);

    /** Finds the node's RdmaNic. */
    void Start() override;
    std::string GetModelName() const override;

  protected:
    void DoDispose() override;
    void DoSend(uint32_t dst, const MessageHeader& header, Done done) override;
    void DescribeModelPending(std::vector<std::string>& lines) const override;

  private:
    /** \return the NIC, or null after reporting its absence */
    Ptr<RdmaNic> Nic();

    Ptr<RdmaNic> m_nic;
    bool m_missingReported{false};
};

} // namespace ns3

#endif // CHAKRA_RDMA_TRANSPORT_H
