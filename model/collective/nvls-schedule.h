/*
 * NVLS (NVLink SHARP) all-reduce, all-gather and reduce-scatter in the NCCL model (issue 27):
 * where NCCL can run it, its constants (NCCL 2.30.7: src/graph/tuning.cc, src/transport/nvls.cc,
 * src/enqueue.cc), and a schedule that puts NVLS's bytes on every GPU's NVLink port. The network
 * has no in-switch reduction or multicast: the schedule emulates NVLS's link loads, not the
 * switch's work. See doc/collectives.md, "NVLS".
 */
#ifndef CHAKRA_NVLS_SCHEDULE_H
#define CHAKRA_NVLS_SCHEDULE_H

#include "collective-schedule.h"
#include "collnet-schedule.h"
#include "nccl-tuning.h"

#include "ns3/attribute.h"
#include "ns3/ptr.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/** Whether the scale-up domain's NVSwitch reduces (NVLink SHARP): an attribute's values. */
enum class NvlsSupport
{
    AUTO, //!< by the GPU generation: Hopper and later
    ON,   //!< the NVSwitch reduces (the GPUs must still be Hopper or later: NCCL needs sm90)
    OFF,  //!< no NVLS (no NVSwitch, or one that does not reduce)
};

/** \return the checker of an NvlsSupport attribute: auto, on, off (lowercase, as flags are) */
Ptr<const AttributeChecker> MakeNvlsSupportChecker();

/**
 * \param setting the machine's NvlsSupport
 * \param generation the GPUs' generation
 * \param nodes the communicator's hosts (NCCL's nNodes)
 * \param gpusPerNode its GPUs per host
 * \param[out] why when not available: the reason, for errors
 * \return true when NCCL would run NVLS on the communicator's one host: a reducing NVSwitch,
 *         Hopper or later, all its GPUs on one host, at least 2 GPUs (across hosts NCCL also
 *         needs CollNet: NVLS with SHARP, which the tuning model decides from this for one
 *         host and NcclTuningConfig::collNet)
 * \throws std::invalid_argument for ON with a generation before Hopper (naming both)
 */
bool NvlsAvailable(NvlsSupport setting,
                   NcclGpuGeneration generation,
                   uint32_t nodes,
                   uint32_t gpusPerNode,
                   std::string& why);

/** \return NCCL's NVLS efficiency (tuning.cc nvlsEfficiency): Hopper 0.85, Blackwell 0.74,
 *          0 before Hopper */
double NvlsEfficiency(NcclGpuGeneration generation);

/**
 * \return the bandwidth per channel NCCL's topology search settles on for an NVLS graph: the
 *         fastest speed of its table for the generation (sm90: 60, 50, 40, 30, 24, 20, 15, 12,
 *         11, 6, 3 GB/s; sm100: 90, 80, 70, 60, 50, 45, 40, 30, 24, 20, 19, 18) not above
 *         \p maxPerChannel, the table's slowest when none fits (src/graph/search.cc)
 * \param generation Hopper or Blackwell (before Hopper: NCCL's older table)
 * \param maxPerChannel GB/s one channel can have: the GPU's NVLink bandwidth / (GPUs + 1)
 */
double NvlsGraphSpeed(NcclGpuGeneration generation, double maxPerChannel);

/** \return NCCL's NVLS channels (CTAs, src/transport/nvls.cc): 16 (sm90), 24 on one node of
 *          sm100 (32 on several) */
uint32_t NvlsChannels(NcclGpuGeneration generation, uint32_t nodes);

/**
 * NCCL's NVLS chunk for a single-node all-reduce (src/enqueue.cc): NCCL_NVLS_CHUNKSIZE's
 * default 128 KiB, halved to 64 KiB, 32 KiB, 16 KiB below 64, 8, 2 x concurrent ops x chunk
 * bytes, concurrent ops = NVLS channels x heads.
 * \param bytes the call's bytes \param channels NVLS channels \param heads NVLS heads (the
 *        node's GPUs) \return the chunk (bytes)
 */
uint64_t NvlsChunkBytes(uint64_t bytes, uint32_t channels, uint32_t heads);

/**
 * \ingroup chakra-collective
 * \brief One rank's ops of the NVLS emulation, by formula (not held).
 *
 * Every ordered pair of the n ranks exchanges the same bytes (PairBytes) in chunks. All-reduce:
 * ceil(N (n+1) / (n (n-1))), so that each GPU sends and receives N (n+1) / n: NVLS's reduce
 * phase (out N, in N/n) plus its broadcast phase (out N/n, in N), which NCCL pipelines.
 * All-gather and reduce-scatter: one of the two phases, N in the busier direction. Up to `window`
 * chunks to a peer are in flight: chunk k leaves once chunk k - window to the same peer has
 * completed (NCCL keeps NCCL_STEPS = 8 slots per connection in flight); receives wait for nothing.
 * Each message carries its payload times a wire factor (1 / NCCL's NVLS efficiency, and the NVLink
 * one). Op 2 (k (n-1) + p) sends chunk k to the p-th other rank, the next op receives chunk k from
 * it; tags tagBase + k.
 */
class NvlsSchedule : public CollectiveSchedule
{
  public:
    /**
     * \param peers the other ranks (communicator indices), n - 1 of them
     * \param pairBytes payload each ordered pair exchanges
     * \param chunkBytes payload of one chunk (> 0)
     * \param window chunks in flight to each peer (> 0)
     * \param wireFactor wire bytes per payload byte (>= 1)
     * \param tagBase first tag
     */
    NvlsSchedule(std::vector<uint32_t> peers,
                 uint64_t pairBytes,
                 uint64_t chunkBytes,
                 uint32_t window,
                 double wireFactor,
                 int64_t tagBase);

    /** \return the wire bytes of \p payload bytes: round(payload x factor) */
    static uint64_t WireBytes(uint64_t payload, double wireFactor);

    /**
     * \param bytes the call's bytes as NCCL counts them (N: all-gather's and reduce-scatter's
     *        over all ranks)
     * \param ranks the GPUs (n)
     * \param function all-reduce, all-gather or reduce-scatter
     * \return the bytes each ordered pair exchanges so that every port carries, in its busier
     *         direction, what NVLS moves through it: all-reduce ceil(N(n+1)/(n(n-1))) (out N +
     *         N/n, in N/n + N); all-gather (out N/n, in N) and reduce-scatter (out N, in N/n)
     *         ceil(N/(n-1)): N both ways, the idle direction's extra load costs nothing on a
     *         full-duplex NVSwitch port
     */
    static uint64_t PairBytes(uint64_t bytes,
                              uint32_t ranks,
                              NcclFunction function = NcclFunction::ALL_REDUCE);

    uint32_t Size() const override;
    MessageOp Op(uint32_t op) const override;
    uint32_t DepCount(uint32_t op) const override;
    uint32_t Dep(uint32_t op, uint32_t j) const override;
    uint32_t DependentCount(uint32_t op) const override;
    uint32_t Dependent(uint32_t op, uint32_t j) const override;
    uint32_t NextRecv(uint32_t peer, int64_t tag, uint32_t after) const override;
    bool InitialSends(std::vector<uint32_t>& sends) const override;

    /** \return the ops of the first window: every send among them waits for nothing */
    uint32_t WindowOps() const;

  private:
    std::vector<uint32_t> m_peers;
    uint64_t m_pairBytes;
    uint32_t m_chunks;
    uint32_t m_window;
    double m_wireFactor;
    int64_t m_tagBase;
};

/** One host's place in the two trees of NCCL's double binary tree over hosts. */
struct NvlsTreeLinks
{
    int up[2]{-1, -1};               //!< the parent host in tree 0 and 1 (-1: the root)
    std::vector<uint32_t> down[2]{}; //!< the child hosts in tree 0 and 1
};

/**
 * NCCL's NVLSTree all-reduce (NVLS inside each host, a double binary tree across hosts):
 * every GPU heads the slice l of the buffer that its NIC carries. Per chunk of a slice: the
 * NVLS reduce (every GPU's part of the slice to its head), the head's tree exchange with the
 * same local GPU of its parent and child hosts (reduce up, result down; chunks alternate
 * between the two trees, so a NIC is an inner node for half its chunks), then the NVLS
 * multicast of the result to the host's GPUs. Inside the host the two phases' loads (out N +
 * N/g, in N/g + N a GPU) are spread evenly over its peers, as NvlsSchedule does: each phase
 * sends every peer ceil(piece (g+1) / (2 (g-1))) per chunk. Tags tagBase + 4k + 0 (reduce),
 * 1 (up), 2 (down), 3 (multicast); a reduce send waits for the one to the same head
 * `window` chunks before.
 * \param layout the communicator by host (2 hosts or more, 2 GPUs a host or more)
 * \param links this rank's host in the two trees
 * \param bytes the buffer (N)
 * \param chunkBytes a chunk of a slice, at most (> 0)
 * \param window chunks in flight to each head (> 0)
 * \param tagBase the first tag
 * \return the rank's ops, as a list (O(chunks x g))
 * \throws std::invalid_argument as BuildCollNetDirect, or for one GPU a host
 */
std::unique_ptr<CollectiveSchedule> BuildNvlsTree(const CollNetLayout& layout,
                                                  const NvlsTreeLinks& links,
                                                  uint64_t bytes,
                                                  uint64_t chunkBytes,
                                                  uint32_t window,
                                                  int64_t tagBase);

/**
 * NCCL's NVLS all-reduce across hosts, with SHARP (CollNet) in the network's switches: as
 * BuildNvlsTree inside each host (NVLS reduce to each slice's head, then the multicast of the
 * result), the network step being SHARP's: the head sends its reduced slice up and gets the
 * result back, simulated as BuildCollNetDirect's network step (an exchange with the same local
 * GPU of the next and previous hosts: each NIC carries the slice once each way whatever the
 * host count). Tags tagBase + 4k + 0 (reduce), 1 (network), 3 (multicast).
 * \param layout the communicator by host (2 hosts or more, 2 GPUs a host or more)
 * \param bytes the buffer (N)
 * \param chunkBytes a chunk of a slice, at most (> 0)
 * \param window chunks in flight to each head (> 0)
 * \param tagBase the first tag
 * \return the rank's ops, as a list (O(chunks x g))
 * \throws std::invalid_argument as BuildNvlsTree
 */
std::unique_ptr<CollectiveSchedule> BuildNvlsSharp(const CollNetLayout& layout,
                                                   uint64_t bytes,
                                                   uint64_t chunkBytes,
                                                   uint32_t window,
                                                   int64_t tagBase);

} // namespace ns3

#endif // CHAKRA_NVLS_SCHEDULE_H
