/*
 * The closed forms collective-accuracy-bench prints beside the simulated times (issue 7's
 * accuracy table, doc/collectives.md): a path model per transport (its per-packet overheads
 * restated here on purpose, as the independent check of the models) and the time of each
 * collective and algorithm on one switch and on hosts of several GPUs.
 */
#ifndef CHAKRA_BENCH_COLLECTIVE_CLOSED_FORMS_H
#define CHAKRA_BENCH_COLLECTIVE_CLOSED_FORMS_H

#include "ns3/et-node.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

namespace chakra_bench
{

using ChakraProtoMsg::CollectiveCommType;

/** Bytes one packet adds on a point-to-point link (PPP header). */
constexpr double kPppHeader = 2;
/** IP + TCP header with timestamps: the TCP segment is MTU - 52 bytes. */
constexpr double kIpTcpHeaders = 52;
/** RoCEv2 inside the MTU: IPv4 (20), UDP (8), BTH (12), ICRC (4). */
constexpr double kRoceHeaders = 44;
/** Ethernet around it: header (14), FCS (4), preamble and SFD (8), inter-frame gap (12). */
constexpr double kEthernetFraming = 38;

/**
 * The two parameters of the closed forms for one kind of path (GPU -> switch -> GPU).
 */
struct PathModel
{
    double bandwidth{0}; //!< effective payload bandwidth, bytes/s
    double latency{0};   //!< per-step latency a, seconds
    /**
     * When a send completes after its last byte arrived: 0 for tcp (a send completes when its
     * bytes are in the socket), the ACK's way back for rdma (a send completes when the last
     * packet is acknowledged). Charged once: only the last sends of a schedule wait for it.
     */
    double completion{0};
};

/**
 * \param bitsPerSecond link rate
 * \param linkLatency one link's propagation delay (s)
 * \param mtu link MTU (bytes)
 * \param transport tcp or rdma (their per-packet overheads)
 * \return the model of a two-link path through one store-and-forward switch: payload
 *         bandwidth = rate x payload per packet / wire packet; a = two link delays + one full
 *         packet's serialization at the switch
 */
inline PathModel
TwoHopPath(double bitsPerSecond, double linkLatency, double mtu, const std::string& transport)
{
    PathModel path;
    const bool rdma = transport == "rdma";
    const double wire = mtu + (rdma ? kEthernetFraming : kPppHeader);
    path.bandwidth = bitsPerSecond / 8 * (mtu - (rdma ? kRoceHeaders : kIpTcpHeaders)) / wire;
    path.latency = 2 * linkLatency + wire * 8 / bitsPerSecond;
    // RoCEv2 ACK: IPv4, UDP, BTH, AETH, ICRC (48 bytes) + framing, serialized at both hops.
    path.completion = rdma ? 2 * linkLatency + 2 * (48 + kEthernetFraming) * 8 / bitsPerSecond : 0;
    return path;
}

/** Largest power of two not above n. */
inline uint32_t
FloorPowerOfTwo(uint32_t n)
{
    uint32_t p = 1;
    while (p * 2 <= n)
    {
        p *= 2;
    }
    return p;
}

/** Tree chunks for S bytes with the application's defaults (1 MiB chunks, at most 64). */
inline uint32_t
DefaultTreeChunks(double bytes)
{
    const double chunkSize = 1 << 20;
    const double maxChunks = 64;
    return bytes <= chunkSize
               ? 1u
               : static_cast<uint32_t>(std::min(std::ceil(bytes / chunkSize), maxChunks));
}

/**
 * The double binary tree's shape parameters (derivation: doc/collectives.md, "Tree
 * all-reduce").
 */
struct TreeShape
{
    uint32_t height{0};         //!< h: depth of the deepest position of the heap over n
    uint32_t completeLevels{0}; //!< h_c: levels below the root of the heap's complete part
    uint32_t maxChildren{0};    //!< k: most children of any position
    uint32_t maxDegree{0};      //!< L: most tree neighbours of one rank, both trees together
};

inline TreeShape
ShapeOfDoubleTree(uint32_t n)
{
    TreeShape shape;
    auto children = [n](uint32_t q) {
        return static_cast<uint32_t>((2 * q + 1 < n ? 1 : 0) + (2 * q + 2 < n ? 1 : 0));
    };
    auto depth = [](uint32_t q) {
        uint32_t d = 0;
        for (; q > 0; q = (q - 1) / 2)
        {
            ++d;
        }
        return d;
    };
    shape.height = depth(n - 1);
    // The complete part holds positions 0 .. 2^(h_c + 1) - 2.
    shape.completeLevels = std::max(1u, depth(n) - 1);
    for (uint32_t r = 0; r < n; ++r)
    {
        // Tree 0 places rank r at position r, tree 1 at position n - 1 - r.
        uint32_t degree = 0;
        for (uint32_t q : {r, n - 1 - r})
        {
            degree += children(q) + (q > 0 ? 1 : 0);
            shape.maxChildren = std::max(shape.maxChildren, children(q));
        }
        shape.maxDegree = std::max(shape.maxDegree, degree);
    }
    return shape;
}

/** What FlatClosedForm returns for a case without a closed form. */
const double kNoClosedForm = std::numeric_limits<double>::quiet_NaN();

/**
 * \param type collective
 * \param algorithm algorithm name
 * \param n ranks (one per host: every message crosses one switch)
 * \param bytes S (see the file comment)
 * \param p the path model
 * \return the closed form in seconds, NaN if there is none
 */
inline double
FlatClosedForm(CollectiveCommType type,
               const std::string& algorithm,
               uint32_t n,
               double bytes,
               const PathModel& p)
{
    const double a = p.latency;
    const double b = p.bandwidth;
    const double steps = n - 1;
    const double share = steps / n * bytes / b; // (n-1)/n S/B
    switch (type)
    {
    case ChakraProtoMsg::ALL_REDUCE:
        if (algorithm == "ring" || algorithm == "hierarchical") // hierarchical with g = 1: ring
        {
            return 2 * steps * a + 2 * share;
        }
        if (algorithm == "direct")
        {
            return 2 * a + 2 * share;
        }
        if (algorithm == "halving-doubling")
        {
            const uint32_t q = FloorPowerOfTwo(n);
            const double core = 2 * std::log2(q) * a + 2.0 * (q - 1) / q * bytes / b;
            // Non-powers of two: the hand-off of the whole buffer before and after.
            return q == n ? core : core + 2 * (a + bytes / b);
        }
        if (algorithm == "tree")
        {
            const TreeShape shape = ShapeOfDoubleTree(n);
            const double chunks = DefaultTreeChunks(bytes);
            const double half = bytes / (2 * chunks); // M: one tree's part of one chunk
            // One chunk's critical path, the longer of the deepest path (2h hops of one
            // message) and the complete part's path (2 h_c hops of k messages: siblings share
            // the parent's NIC), then one chunk per L M / B at the busiest NIC.
            const double firstChunk =
                std::max(2.0 * shape.height * (a + half / b),
                         2.0 * shape.completeLevels * (a + shape.maxChildren * half / b));
            return firstChunk + (chunks - 1) * shape.maxDegree * half / b;
        }
        return kNoClosedForm;
    case ChakraProtoMsg::ALL_GATHER:
    case ChakraProtoMsg::REDUCE_SCATTER:
        if (algorithm == "ring" || algorithm == "hierarchical")
        {
            return steps * a + share;
        }
        if (algorithm == "halving-doubling")
        {
            return std::log2(n) * a + share;
        }
        if (algorithm == "direct")
        {
            return a + share;
        }
        return kNoClosedForm;
    case ChakraProtoMsg::ALL_TO_ALL:
        return algorithm == "direct" ? a + share : kNoClosedForm;
    case ChakraProtoMsg::BROADCAST:
        // A chain of n - 1 hops, one chunk by default: store-and-forward of the whole buffer.
        return algorithm == "ring" ? steps * (a + bytes / b) : kNoClosedForm;
    default:
        return kNoClosedForm;
    }
}

/**
 * Hierarchical all-reduce on H hosts of g GPUs (hierarchical-collective.h):
 * 2(g-1)(a_in + S/(g B_in)) + 2(H-1)(a_out + S/(g H B_out)).
 */
inline double
HierarchicalClosedForm(uint32_t hosts,
                       uint32_t g,
                       double bytes,
                       const PathModel& in,
                       const PathModel& out)
{
    return 2.0 * (g - 1) * (in.latency + bytes / g / in.bandwidth) +
           2.0 * (hosts - 1) *
               (out.latency + bytes / (static_cast<double>(g) * hosts) / out.bandwidth);
}

/**
 * Flat ring all-reduce over H hosts of g GPUs (ring order = rank order, so g - 1 NVLink hops
 * then one NIC hop, H times around): the larger of
 *  - throughput: every NIC hop carries all 2(n-1) messages of m = S/n:
 *    2(n-1) m/B_out + a_out;
 *  - latency: the chain of 2(n-1) dependent steps crosses a NIC hop every g steps:
 *    2(n-1)/g (a_out + m/B_out + (g-1)(a_in + m/B_in)).
 * (The plain ring formula with the slowest hop's parameters, 2(n-1)(a_out + m/B_out), charges
 * a_out on every step; it is printed in doc/collectives.md for comparison.)
 */
inline double
TwoLevelRingClosedForm(uint32_t hosts,
                       uint32_t g,
                       double bytes,
                       const PathModel& in,
                       const PathModel& out)
{
    const double n = static_cast<double>(hosts) * g;
    const double m = bytes / n;
    const double steps = 2 * (n - 1);
    const double throughput = steps * m / out.bandwidth + out.latency;
    const double latency =
        steps / g * (out.latency + m / out.bandwidth + (g - 1) * (in.latency + m / in.bandwidth));
    return std::max(throughput, latency);
}

} // namespace chakra_bench

#endif // CHAKRA_BENCH_COLLECTIVE_CLOSED_FORMS_H
