/*
 * FlowFabric: the fabric of the "flow" transport model: no devices, no stacks; a FlowNetwork
 * made from the ClusterTopology, and one FlowTransport per rank attached to it.
 */
#ifndef CHAKRA_FLOW_FABRIC_H
#define CHAKRA_FLOW_FABRIC_H

#include "cluster-fabric.h"

#include "ns3/comm-transport.h"
#include "ns3/flow-network.h"

#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup chakra-fabric
 * \brief Max-min fair flows on a ClusterTopology's routed paths, in place of packets.
 *
 * Install builds no ns-3 devices (the nodes stay empty); it makes the FlowNetwork, whose links
 * are the topology's links (rate, delay, MTU) and whose paths are the topology's routes. The
 * packet model the flows stand for (PacketModel) sets the per-packet framing, so that an
 * uncontended flow's goodput equals that model's: tcp = IPv4 + TCP with timestamps (52 bytes of
 * each MTU) and a 2-byte point-to-point header, as IpFabric's links carry them; rdma = IPv4 +
 * UDP + BTH + ICRC (44 bytes of each MTU) and 38 bytes of Ethernet framing, as RdmaFabric's.
 */
class FlowFabric : public ClusterFabric
{
  public:
    /** \return the TypeId */
    static TypeId GetTypeId();
    FlowFabric();

    void Install(std::shared_ptr<const ClusterTopology> topology,
                 const NodeContainer& nodes) override;
    Ptr<CommTransport> CreateTransport(uint32_t rank) override;
    std::vector<Ipv4Address> GetRankAddresses() const override;
    /** \return the "flow" table: messages, flows, rate recomputations */
    std::vector<ReportTable> GetReportTables() const override;
    /**
     * \return the "fabric-jobs" table: each job's messages and bytes, and what they carried
     *         over NVLink, NIC-to-switch and switch-to-switch links (FlowNetwork::SourceTraffic;
     *         every byte belongs to the job that sent it, the switch links included)
     */
    std::vector<ReportTable> GetJobTables(const std::vector<JobGpus>& jobs) const override;

    /** \return the network (after Install) */
    Ptr<FlowNetwork> GetNetwork() const;

    /**
     * \param packetModel a packet model name
     * \param[out] framing its per-packet framing
     * \return false if the model is not one the flow model knows
     */
    static bool FramingOf(const std::string& packetModel, FlowNetwork::Framing& framing);

  protected:
    void DoDispose() override;

  private:
    CommTransport::Model m_packetModel; //!< PacketModel: tcp or rdma
    uint64_t m_sendBuffer;
    bool m_fifoAtSource;
    bool m_releaseIdleChannels; //!< FlowNetwork::Settings::releaseIdleChannels
    Ptr<FlowNetwork> m_network;
    uint32_t m_ranks{0};
};

} // namespace ns3

#endif // CHAKRA_FLOW_FABRIC_H
