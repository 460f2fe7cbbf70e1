/*
 * The routed diameter of a usual cluster by its GPUs' attachments, without a search per
 * destination GPU (which is O(GPUs x (nodes + links)): a quarter of an hour at 131,072 GPUs).
 */
#ifndef CHAKRA_ATTACHMENT_DIAMETER_H
#define CHAKRA_ATTACHMENT_DIAMETER_H

#include "ns3/cluster-topology.h"

#include <cstdint>
#include <optional>

namespace ns3
{

/**
 * \ingroup chakra-topology
 * The most links on a least-cost route between two GPUs (what RoutedDiameter gives for a
 * topology routed on least costs), computed from the switches the GPUs attach to.
 *
 * When GPUs do not forward, a route is a GPU's link to a switch, switches, and a link to the
 * other GPU, so its cost and length depend only on the two GPUs' attachments. The switches
 * split into connected parts: a part few GPUs attach to (an NVSwitch: at most kSmallPart,
 * and not the part most GPUs are on) has its GPU pairs evaluated one by one; a large part
 * (the fabric) by classes of GPUs with the same links into it, one pair of classes at a time,
 * from least costs and lengths between its attachment switches.
 *
 * \return the diameter; nullopt when the topology is not of that shape (a route function,
 *         GPUs that forward, a GPU-to-GPU link, a GPU on two small or two large parts, a large
 *         part with more than kMaxAttachments attachment switches): the caller searches per
 *         destination then
 */
std::optional<uint32_t> LeastCostDiameterByAttachment(const ClusterTopology& topology);

/** The most GPUs attached to a part of the switches that is evaluated pair by pair. */
constexpr uint32_t kSmallPart = 576;
/** The most attachment switches of a large part (its table is their number squared). */
constexpr uint32_t kMaxAttachments = 4096;

} // namespace ns3

#endif // CHAKRA_ATTACHMENT_DIAMETER_H
