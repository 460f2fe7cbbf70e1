/*
 * FlowTransport: the "flow" transport model: one rank's endpoint on a FlowNetwork. Messages are
 * fluid flows on the routed topology (no packets), for simulations of thousands of GPUs.
 */
#ifndef CHAKRA_FLOW_TRANSPORT_H
#define CHAKRA_FLOW_TRANSPORT_H

#include "flow-network.h"

#include "ns3/comm-transport.h"

#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup chakra-transport
 * \brief The "flow" model of CommTransport: each message is a flow on a FlowNetwork.
 *
 * A message is its payload plus the MessageHeader (MessageHeader::kSize bytes), appended to the
 * byte stream of the ordered pair (this rank, destination), which the network carries as one
 * max-min fair flow on the pair's routed path (see FlowNetwork for the timing). The message is
 * delivered to the destination's transport when its last byte has arrived; the send completes
 * locally when at most the network's send buffer of it remains unsent. FlowFabric wires one to
 * each rank; on its own (no network) a send is a fatal error.
 */
class FlowTransport : public CommTransport
{
  public:
    /** \return the TypeId */
    static TypeId GetTypeId();
    FlowTransport();
    ~FlowTransport() override;

    std::string GetModelName() const override;

    /**
     * Wires this transport to a network as rank \p rank's endpoint (FlowFabric does this).
     * \param network the network
     * \param rank the rank whose messages this transport receives
     */
    void Attach(Ptr<FlowNetwork> network, uint32_t rank);

    /** The network hands over a message whose last byte has arrived here. */
    void Arrive(const MessageHeader& header);

  protected:
    void DoDispose() override;
    void DoSend(uint32_t dst, const MessageHeader& header, Done done) override;
    void DoSendCounted(uint32_t dst, const MessageHeader& header, DoneAt done) override;
    void DescribeModelPending(std::vector<std::string>& lines) const override;

  private:
    /**
     * \param dst destination rank
     * \param to set to its place in the fabric
     * \return false after a fatal error (no network, no such rank)
     */
    bool CheckReachable(uint32_t dst, uint32_t& to);
    /** Reports a failed send to \p dst (no route). */
    void NoRoute(uint32_t dst);

    Ptr<FlowNetwork> m_network;
    uint32_t m_attachedRank{0};
};

} // namespace ns3

#endif // CHAKRA_FLOW_TRANSPORT_H
