#include "nvls-schedule.h"

#include "ns3/enum.h"
#include "ns3/log.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("ChakraNvlsSchedule");

Ptr<const AttributeChecker>
MakeNvlsSupportChecker()
{
    return MakeEnumChecker(static_cast<int>(NvlsSupport::AUTO),
                           "auto",
                           static_cast<int>(NvlsSupport::ON),
                           "on",
                           static_cast<int>(NvlsSupport::OFF),
                           "off");
}

bool
NvlsAvailable(NvlsSupport setting,
              NcclGpuGeneration generation,
              uint32_t nodes,
              uint32_t gpusPerNode,
              std::string& why)
{
    NS_LOG_FUNCTION(static_cast<int>(setting) << nodes << gpusPerNode);
    const bool hopperOrLater = NvlsEfficiency(generation) > 0;
    if (setting == NvlsSupport::ON && !hopperOrLater)
    {
        throw std::invalid_argument(
            std::string("NVLS on (--nvls, GpuClusterHelper::NvlsSupport, NcclCollective::Nvls) "
                        "with ") +
            NcclGenerationName(generation) +
            " GPUs: NVLink SHARP needs Hopper or later (NCCL: sm90)");
    }
    if (setting == NvlsSupport::OFF)
    {
        why = "the cluster's NvlsSupport is off (no NVSwitch that reduces)";
        return false;
    }
    if (!hopperOrLater)
    {
        why = NcclGenerationName(generation) +
              " GPUs have no NVLink SHARP (NCCL's NVLS efficiency is 0 before Hopper)";
        return false;
    }
    if (nodes > 1)
    {
        why = "the communicator spans " + std::to_string(nodes) +
              " hosts: NCCL runs NVLS across hosts only with CollNet (NVLS with SHARP: the "
              "network's switches must reduce, --sharp on); without it NVLSTree";
        return false;
    }
    if (gpusPerNode < 2)
    {
        why = "one GPU: no NVSwitch";
        return false;
    }
    why.clear();
    return true;
}

double
NvlsEfficiency(NcclGpuGeneration generation)
{
    switch (generation)
    {
    case NcclGpuGeneration::HOPPER:
        return 0.85;
    case NcclGpuGeneration::BLACKWELL:
        return 0.74;
    default:
        return 0;
    }
}

double
NvlsGraphSpeed(NcclGpuGeneration generation, double maxPerChannel)
{
    static const std::vector<double> older{40, 30, 20, 18, 15, 12, 10, 9, 7, 6, 5, 4, 3};
    static const std::vector<double> sm90{60, 50, 40, 30, 24, 20, 15, 12, 11, 6, 3};
    static const std::vector<double> sm100{90, 80, 70, 60, 50, 45, 40, 30, 24, 20, 19, 18};
    const std::vector<double>& speeds = generation == NcclGpuGeneration::BLACKWELL ? sm100
                                        : generation == NcclGpuGeneration::HOPPER  ? sm90
                                                                                   : older;
    for (double speed : speeds)
    {
        if (speed <= maxPerChannel)
        {
            return speed;
        }
    }
    return speeds.back();
}

uint32_t
NvlsChannels(NcclGpuGeneration generation, uint32_t nodes)
{
    if (generation == NcclGpuGeneration::BLACKWELL)
    {
        return nodes > 1 ? 32 : 24;
    }
    return 16;
}

uint64_t
NvlsChunkBytes(uint64_t bytes, uint32_t channels, uint32_t heads)
{
    uint64_t chunk = 128 * 1024;
    const uint64_t concurrentOps = uint64_t{channels} * heads;
    if (bytes < 64 * concurrentOps * chunk && chunk > 65536)
    {
        chunk = 65536;
    }
    if (bytes < 8 * concurrentOps * chunk && chunk > 32768)
    {
        chunk = 32768;
    }
    if (bytes < 2 * concurrentOps * chunk && chunk > 16384)
    {
        chunk = 16384;
    }
    return chunk;
}

NvlsSchedule::NvlsSchedule(std::vector<uint32_t> peers,
                           uint64_t pairBytes,
                           uint64_t chunkBytes,
                           uint32_t window,
                           double wireFactor,
                           int64_t tagBase)
    : m_peers(std::move(peers)),
      m_pairBytes(pairBytes),
      m_chunks(0),
      m_window(window),
      m_wireFactor(wireFactor),
      m_tagBase(tagBase)
{
    NS_LOG_FUNCTION(this << pairBytes << chunkBytes << window << wireFactor);
    if (chunkBytes == 0 || window == 0 || !(wireFactor >= 1))
    {
        throw std::invalid_argument("NvlsSchedule: the chunk and the window must be positive "
                                    "and the wire factor at least 1");
    }
    const uint64_t chunks = (pairBytes + chunkBytes - 1) / chunkBytes;
    if (chunks * 2 * std::max<uint64_t>(m_peers.size(), 1) >= kNone)
    {
        throw std::invalid_argument("NvlsSchedule: " + std::to_string(pairBytes) +
                                    " bytes per pair need more ops than a schedule can number");
    }
    m_chunks = static_cast<uint32_t>(chunks);
}

uint64_t
NvlsSchedule::WireBytes(uint64_t payload, double wireFactor)
{
    return static_cast<uint64_t>(std::llround(static_cast<double>(payload) * wireFactor));
}

uint64_t
NvlsSchedule::PairBytes(uint64_t bytes, uint32_t ranks, NcclFunction function)
{
    if (ranks < 2)
    {
        return 0;
    }
    const uint64_t n = ranks;
    if (function == NcclFunction::ALL_GATHER || function == NcclFunction::REDUCE_SCATTER)
    {
        // The busier direction of a port carries N: a reduce-scatter's reads of all n slices
        // (out), an all-gather's multicast of all n slices, its own echoed (in).
        return (bytes + n - 2) / (n - 1);
    }
    return (bytes * (n + 1) + n * (n - 1) - 1) / (n * (n - 1));
}

uint32_t
NvlsSchedule::Size() const
{
    return m_chunks * 2 * static_cast<uint32_t>(m_peers.size());
}

MessageOp
NvlsSchedule::Op(uint32_t op) const
{
    const uint32_t peers = static_cast<uint32_t>(m_peers.size());
    const uint32_t pair = op / 2;
    const uint32_t chunk = pair / peers;
    MessageOp o;
    o.send = op % 2 == 0;
    o.peer = m_peers[pair % peers];
    o.bytes = WireBytes(PartBytes(m_pairBytes, m_chunks, chunk), m_wireFactor);
    o.tag = m_tagBase + chunk;
    return o;
}

uint32_t
NvlsSchedule::WindowOps() const
{
    // The ops of `window` chunks to every peer (a send and a receive each).
    return 2 * static_cast<uint32_t>(m_peers.size()) * std::min(m_window, m_chunks);
}

uint32_t
NvlsSchedule::DepCount(uint32_t op) const
{
    // Chunk k to a peer waits until chunk k - window to it has completed; receives wait for
    // nothing.
    return op % 2 == 0 && op >= WindowOps() ? 1 : 0;
}

uint32_t
NvlsSchedule::Dep(uint32_t op, uint32_t /* j */) const
{
    return op - WindowOps();
}

uint32_t
NvlsSchedule::DependentCount(uint32_t op) const
{
    return op % 2 == 0 && uint64_t{op} + WindowOps() < Size() ? 1 : 0;
}

uint32_t
NvlsSchedule::Dependent(uint32_t op, uint32_t /* j */) const
{
    return op + WindowOps();
}

uint32_t
NvlsSchedule::NextRecv(uint32_t peer, int64_t tag, uint32_t after) const
{
    if (tag < m_tagBase || tag >= m_tagBase + m_chunks)
    {
        return kNone;
    }
    const auto it = std::find(m_peers.begin(), m_peers.end(), peer);
    if (it == m_peers.end())
    {
        return kNone;
    }
    const auto p = static_cast<uint32_t>(it - m_peers.begin());
    const auto chunk = static_cast<uint32_t>(tag - m_tagBase);
    const uint32_t op = 2 * (chunk * static_cast<uint32_t>(m_peers.size()) + p) + 1;
    return after == kNone || op > after ? op : kNone;
}

bool
NvlsSchedule::InitialSends(std::vector<uint32_t>& sends) const
{
    if (m_chunks == 0)
    {
        return false;
    }
    for (uint32_t op = 0; op < WindowOps(); op += 2)
    {
        sends.push_back(op);
    }
    return true;
}

namespace
{

/**
 * NVLS inside each host around a network step per chunk: \p links, NCCL's double binary tree
 * (NVLSTree), or none, SHARP in the network's switches (an exchange with the same local GPU of
 * the next and previous hosts, as BuildCollNetDirect's network step).
 */
std::unique_ptr<CollectiveSchedule>
BuildNvlsAcrossHosts(const char* what,
                     const CollNetLayout& layout,
                     const NvlsTreeLinks* links,
                     uint64_t bytes,
                     uint64_t chunkBytes,
                     uint32_t window,
                     int64_t tagBase)
{
    layout.Check(what, 2, chunkBytes, window);
    const uint32_t g = layout.gpus;
    const uint32_t l = layout.myLocal;
    const uint32_t hosts = layout.hosts;
    const SharePieces piece(bytes, g, chunkBytes);
    const uint32_t chunks = piece.Chunks();
    // Either NVLS phase's bytes to one peer for a chunk of \p slice.
    auto phase = [g](uint64_t sliceBytes) {
        return (sliceBytes * (g + 1) + 2 * (g - 1) - 1) / (2 * (g - 1));
    };
    ScheduleBuilder builder;
    std::vector<uint32_t> toHead;
    toHead.reserve(uint64_t{chunks} * (g - 1));
    for (uint32_t k = 0; k < chunks; ++k)
    {
        const int64_t tag = tagBase + int64_t{4} * k;
        // The NVLS reduce: every GPU's part of each slice to its head.
        std::vector<uint32_t> gathered = AddSendsToHeads(
            builder,
            layout,
            k,
            window,
            tag,
            [&piece, &phase, k](uint32_t head) { return phase(piece(head, k)); },
            phase(piece(l, k)),
            toHead);
        std::vector<uint32_t> ready;
        if (links == nullptr)
        {
            // SHARP: the head's reduced share up to the switches and the result back: each NIC
            // carries the share once each way.
            const uint32_t h = layout.myHost;
            builder.Send(layout.MemberAt((h + 1) % hosts, l), piece(l, k), tag + 1, gathered);
            ready = {
                builder.Recv(layout.MemberAt((h + hosts - 1) % hosts, l), piece(l, k), tag + 1)};
        }
        else
        {
            const int tree = static_cast<int>(k % 2);
            // Up the tree: the children's sums, then this host's to the parent.
            for (uint32_t child : links->down[tree])
            {
                gathered.push_back(builder.Recv(layout.MemberAt(child, l), piece(l, k), tag + 1));
            }
            ready = gathered;
            if (links->up[tree] >= 0)
            {
                const auto parent = layout.MemberAt(static_cast<uint32_t>(links->up[tree]), l);
                builder.Send(parent, piece(l, k), tag + 1, gathered);
                ready = {builder.Recv(parent, piece(l, k), tag + 2)};
            }
            for (uint32_t child : links->down[tree])
            {
                builder.Send(layout.MemberAt(child, l), piece(l, k), tag + 2, ready);
            }
        }
        // The multicast of the result inside the host.
        AddSendsFromHead(
            builder,
            layout,
            tag + 3,
            phase(piece(l, k)),
            [&piece, &phase, k](uint32_t from) { return phase(piece(from, k)); },
            ready);
    }
    return builder.Take();
}

} // namespace

std::unique_ptr<CollectiveSchedule>
BuildNvlsTree(const CollNetLayout& layout,
              const NvlsTreeLinks& links,
              uint64_t bytes,
              uint64_t chunkBytes,
              uint32_t window,
              int64_t tagBase)
{
    NS_LOG_FUNCTION(layout.hosts << layout.gpus << bytes << chunkBytes << window);
    return BuildNvlsAcrossHosts("NVLSTree", layout, &links, bytes, chunkBytes, window, tagBase);
}

std::unique_ptr<CollectiveSchedule>
BuildNvlsSharp(const CollNetLayout& layout,
               uint64_t bytes,
               uint64_t chunkBytes,
               uint32_t window,
               int64_t tagBase)
{
    NS_LOG_FUNCTION(layout.hosts << layout.gpus << bytes << chunkBytes << window);
    return BuildNvlsAcrossHosts("NVLS with SHARP",
                                layout,
                                nullptr,
                                bytes,
                                chunkBytes,
                                window,
                                tagBase);
}

} // namespace ns3
