#include "nccl-collective.h"

#include "collnet-schedule.h"
#include "delayed-schedule.h"
#include "nvls-schedule.h"
#include "pat-schedule.h"
#include "ring-schedule.h"

#include "ns3/abort.h"
#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/enum.h"
#include "ns3/log.h"
#include "ns3/string.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("ChakraNcclCollective");

NS_OBJECT_ENSURE_REGISTERED(NcclCollective);

namespace
{

/*
 * NCCL's buffer and step facts (NCCL 2.30.7, src/include/device.h, src/include/collectives.h,
 * src/init.cc, src/enqueue.cc calcCollChunking): NCCL_STEPS = 8 slots per connection; buffers
 * LL = 8 lines per thread x 512 threads x 8 steps x 16 bytes = 512 KiB, LL128 = 120 elements
 * per thread x 640 threads x 8 steps x 8 bytes = 4,915,200 bytes, Simple = 4 MiB; one step is
 * buffer / NCCL_STEPS. Ring all-reduce, all-gather and reduce-scatter on Simple take 4 steps
 * per chunk (NCCL_STEPS / 2) in slices of 2 steps (NCCL_STEPS / 4); every other pattern and
 * protocol one step per chunk and per slice. LL carries 8 bytes of payload per 16-byte line,
 * LL128 120 per 128-byte line.
 */
constexpr uint64_t kSteps = 8;
constexpr uint64_t kLlBuffer = 8 * 512 * kSteps * 16;
constexpr uint64_t kLl128Buffer = 120 * 640 * kSteps * 8;
constexpr uint64_t kSimpleBuffer = uint64_t(1) << 22;

/** The most ops the list schedules of one call may hold over all its ranks (about 40 GB). */
constexpr uint64_t kMaxListOps = uint64_t(1) << 30;

/**
 * Checks a schedule held as a list (CollNet, NVLSTree, NVLS with SHARP) before the call
 * runs: every rank of the call holds its own at once, so one whose lists would not fit is
 * refused rather than run out of memory.
 * \throws std::invalid_argument naming the algorithm, the counts and NCCL_ALGO
 */
void
CheckListSize(const CollectiveSchedule& schedule, uint32_t ranks, NcclAlgorithm algorithm)
{
    const uint64_t total = uint64_t{schedule.Size()} * ranks;
    if (total > kMaxListOps)
    {
        const std::string name = NcclAlgorithmName(algorithm);
        throw std::invalid_argument(
            "nccl: " + name + " over " + std::to_string(ranks) + " ranks would hold " +
            std::to_string(total) + " ops at once (its schedules are lists, " +
            std::to_string(schedule.Size()) + " ops a rank): more than this model holds (" +
            std::to_string(kMaxListOps) + "); exclude it with NCCL_ALGO (e.g. ^" + name + ")");
    }
}

/**
 * \return \p units as a count of pipeline units, each of \p opsPerUnit messages or more
 * \throws std::invalid_argument when their messages could not be numbered (2^31 and up): an
 *         absurd size, refused naming it (the application stops with the node), not an abort
 */
uint32_t
CheckedUnits(uint64_t units, uint64_t opsPerUnit, uint64_t bytes)
{
    if (units > (uint64_t(1) << 31) / std::max<uint64_t>(opsPerUnit, 1))
    {
        throw std::invalid_argument("nccl: " + std::to_string(bytes) +
                                    " bytes on a channel need more messages than a schedule "
                                    "can number");
    }
    return static_cast<uint32_t>(units);
}

/*
 * NCCL's channel reduction for small sizes (src/enqueue.cc, Ring/Tree channel tuning): while
 * bytes < channels x threads x threshold, one channel less (down to 1). Threads per channel:
 * LL 512, LL128 640, Simple 512 (NCCL_*_MAX_NTHREADS, on NVLink systems); thresholds (comm.h,
 * tuning.cc): LL 8 (x ranks for Ring), LL128 8, Simple 64.
 */
uint32_t
ChannelsFor(uint32_t channels,
            NcclAlgorithm algorithm,
            NcclProtocol protocol,
            uint64_t bytes,
            uint32_t ranks)
{
    uint64_t perChannel = 0;
    switch (protocol)
    {
    case NcclProtocol::LL:
        perChannel = 512 * 8 * (algorithm == NcclAlgorithm::RING ? uint64_t{ranks} : 1);
        break;
    case NcclProtocol::LL128:
        perChannel = 640 * 8;
        break;
    case NcclProtocol::SIMPLE:
        perChannel = 512 * 64;
        break;
    }
    uint32_t nc = channels;
    while (nc >= 2 && bytes < nc * perChannel)
    {
        --nc;
    }
    return nc;
}

uint64_t
DivUp(uint64_t a, uint64_t b)
{
    return (a + b - 1) / b;
}

/** The members of a communicator by host (members[h * g + l] is host h's local GPU l): the
 *  layout the CollNet and NVLS schedules take, so that every schedule here reads one. */
using HostLayout = CollNetLayout;

/** \return the layout, or nullopt when the hosts do not have equal member counts */
std::optional<HostLayout>
MakeLayout(const CollectiveRequest& request)
{
    const uint32_t n = request.size;
    HostLayout layout;
    layout.members.resize(n);
    if (!request.hostOf || request.hostOf->size() != n)
    {
        layout.hosts = 1;
        layout.gpus = n;
        for (uint32_t i = 0; i < n; ++i)
        {
            layout.members[i] = i;
        }
        layout.myLocal = request.me;
        return layout;
    }
    const std::vector<uint32_t>& hostOf = *request.hostOf;
    std::vector<uint32_t> order(n);
    for (uint32_t i = 0; i < n; ++i)
    {
        order[i] = i;
    }
    std::stable_sort(order.begin(), order.end(), [&hostOf](uint32_t a, uint32_t b) {
        return hostOf[a] < hostOf[b];
    });
    uint32_t hosts = 1;
    for (uint32_t k = 1; k < n; ++k)
    {
        hosts += hostOf[order[k]] != hostOf[order[k - 1]] ? 1 : 0;
    }
    if (n % hosts != 0)
    {
        return std::nullopt;
    }
    layout.hosts = hosts;
    layout.gpus = n / hosts;
    for (uint32_t k = 0; k < n; ++k)
    {
        // Every host must hold exactly g consecutive entries of the sorted order.
        if (hostOf[order[k]] != hostOf[order[k - k % layout.gpus]])
        {
            return std::nullopt;
        }
        layout.members[k] = order[k];
        if (order[k] == request.me)
        {
            layout.myHost = k / layout.gpus;
            layout.myLocal = k % layout.gpus;
        }
    }
    return layout;
}

/** One channel's ring as seen from one rank. */
struct ChannelRing
{
    uint32_t position{0}; //!< this rank's position in the channel's ring
    uint32_t left{0};     //!< receives from (a relay for a host's first GPU)
    uint32_t right{0};    //!< sends to (its own host's relay for a host's last GPU)
    bool relays{false};   //!< this rank relays its host's outgoing data
    uint32_t relayFrom{0};
    uint32_t relayTo{0};
    uint32_t tailPosition{0}; //!< ring position of the GPU whose data the relay forwards
};

/** \return the member at a ring position of the channel on \p rail (before relays) */

uint32_t
RankAt(const HostLayout& layout, uint32_t rail, uint32_t position)
{
    const uint32_t g = layout.gpus;
    const uint32_t host = position / g;
    const uint32_t local = (position % g + rail) % g;
    return layout.members[host * g + local];
}

ChannelRing
MakeChannelRing(const HostLayout& layout, uint32_t channel)
{
    const uint32_t g = layout.gpus;
    const uint32_t hosts = layout.hosts;
    const uint32_t n = g * hosts;
    const uint32_t rail = channel % g;
    ChannelRing ring;
    ring.position = layout.myHost * g + (layout.myLocal + g - rail) % g;
    ring.left = RankAt(layout, rail, (ring.position + n - 1) % n);
    ring.right = RankAt(layout, rail, (ring.position + 1) % n);
    if (hosts >= 2 && g >= 2)
    {
        const uint32_t head = rail;
        const uint32_t tail = (rail + g - 1) % g;
        if (layout.myLocal == tail)
        {
            ring.right = layout.members[layout.myHost * g + head];
        }
        if (layout.myLocal == head)
        {
            ring.left = layout.members[((layout.myHost + hosts - 1) % hosts) * g + head];
            ring.relays = true;
            ring.relayFrom = layout.members[layout.myHost * g + tail];
            ring.relayTo = layout.members[((layout.myHost + 1) % hosts) * g + head];
            ring.tailPosition = layout.myHost * g + g - 1;
        }
    }
    return ring;
}

/** One node's neighbours in a binary tree over nodes (-1: none). */
struct TreeLinks
{
    int up{-1};
    int down0{-1};
    int down1{-1};
};

/**
 * NCCL's binary tree over \p nodes with node 0 at the root (src/graph/trees.cc, restated):
 * with b the lowest set bit of r (for r = 0 the first power of two >= nodes), r's parent is
 * (r xor b) or 2b, or r xor b when that is out of range; its children r - b/2 and r + l, l the
 * largest power of two <= b/2 that keeps it in range; node 0 has the one child b/2.
 */
TreeLinks
BinaryTree(int nodes, int r)
{
    TreeLinks links;
    int bit = 1;
    while (bit < nodes && (bit & r) == 0)
    {
        bit <<= 1;
    }
    if (r == 0)
    {
        links.down1 = nodes > 1 ? bit >> 1 : -1;
        return links;
    }
    links.up = (r ^ bit) | (bit << 1);
    if (links.up >= nodes)
    {
        links.up = r ^ bit;
    }
    int low = bit >> 1;
    links.down0 = low == 0 ? -1 : r - low;
    links.down1 = low == 0 ? -1 : r + low;
    while (links.down1 >= nodes)
    {
        low >>= 1;
        links.down1 = low == 0 ? -1 : r + low;
    }
    return links;
}

/**
 * NCCL's double binary tree: tree 0 the binary tree; tree 1 its mirror (node r -> nodes-1-r)
 * for an even node count, else the tree shifted by one node.
 */
TreeLinks
DoubleTree(int nodes, int r, int tree)
{
    if (tree == 0)
    {
        return BinaryTree(nodes, r);
    }
    const bool mirror = nodes % 2 == 0;
    auto to = [&](int x) { return mirror ? nodes - 1 - x : (x + 1) % nodes; };
    const TreeLinks image = BinaryTree(nodes, mirror ? nodes - 1 - r : (r - 1 + nodes) % nodes);
    TreeLinks links;
    links.up = image.up == -1 ? -1 : to(image.up);
    links.down0 = image.down0 == -1 ? -1 : to(image.down0);
    links.down1 = image.down1 == -1 ? -1 : to(image.down1);
    return links;
}

/**
 * One channel of NCCL's tree all-reduce: the double binary tree over hosts (channels in the
 * first half on tree 0, the rest on tree 1), each host a chain of its GPUs under the GPU on the
 * channel's rail, which carries all of the host's network traffic (NCCL's TREE pattern). Per
 * chunk: receive from every child, send the sum up; the root then sends down, every rank
 * receiving from its parent and sending to its children. Chunks are independent pipelines.
 */
std::unique_ptr<CollectiveSchedule>
BuildTreeChannel(const HostLayout& layout,
                 uint32_t channel,
                 uint32_t channels,
                 uint64_t bytes,
                 uint32_t units,
                 int64_t tagBase)
{
    const uint32_t g = layout.gpus;
    const uint32_t rail = channel % g;
    const int tree = channel < (channels + 1) / 2 ? 0 : 1;
    const uint32_t index = (layout.myLocal + g - rail) % g; // position in the host's chain
    auto member = [&](uint32_t host, uint32_t chainIndex) {
        return layout.members[host * g + (chainIndex + rail) % g];
    };
    int parent = -1;
    std::vector<uint32_t> children;
    if (index > 0)
    {
        parent = static_cast<int>(member(layout.myHost, index - 1));
    }
    if (index + 1 < g)
    {
        children.push_back(member(layout.myHost, index + 1));
    }
    if (index == 0)
    {
        const TreeLinks links =
            DoubleTree(static_cast<int>(layout.hosts), static_cast<int>(layout.myHost), tree);
        if (links.up != -1)
        {
            parent = static_cast<int>(member(static_cast<uint32_t>(links.up), 0));
        }
        for (int down : {links.down0, links.down1})
        {
            if (down != -1)
            {
                children.push_back(member(static_cast<uint32_t>(down), 0));
            }
        }
    }
    ScheduleBuilder builder;
    for (uint32_t u = 0; u < units; ++u)
    {
        const uint64_t unitBytes = PartBytes(bytes, units, u);
        const int64_t up = tagBase + 2 * int64_t{u};
        std::vector<uint32_t> reduced;
        for (uint32_t child : children)
        {
            reduced.push_back(builder.Recv(child, unitBytes, up));
        }
        std::vector<uint32_t> ready = reduced;
        if (parent != -1)
        {
            builder.Send(static_cast<uint32_t>(parent), unitBytes, up, reduced);
            ready = {builder.Recv(static_cast<uint32_t>(parent), unitBytes, up + 1)};
        }
        for (uint32_t child : children)
        {
            builder.Send(child, unitBytes, up + 1, ready);
        }
    }
    return builder.Take();
}

/**
 * The relay of one channel's ring pass: every message the host's last GPU sends on the ring
 * is received and sent on to the next host's first GPU, with the same tag (op 2i receives
 * message i, op 2i+1 sends it on). Messages in RingSchedule's order: unit by unit, step by
 * step; bytes by RingSchedule's formula for the last GPU's position.
 */
class RelaySchedule : public CollectiveSchedule
{
  public:
    RelaySchedule(uint32_t from,
                  uint32_t to,
                  uint32_t n,
                  uint32_t tailPosition,
                  uint64_t bytes,
                  uint32_t units,
                  uint32_t steps,
                  int64_t tagBase)
        : m_from(from),
          m_to(to),
          m_n(n),
          m_tailPosition(tailPosition),
          m_bytes(bytes),
          m_units(units),
          m_steps(steps),
          m_tagBase(tagBase)
    {
    }

    uint32_t Size() const override
    {
        return 2 * m_units * m_steps;
    }

    MessageOp Op(uint32_t op) const override
    {
        const uint32_t message = op / 2;
        const uint32_t unit = message / m_steps;
        const uint32_t k = message % m_steps;
        const uint32_t segment = (m_tailPosition + 2 * m_n - k % m_n) % m_n;
        MessageOp o;
        o.send = op % 2 == 1;
        o.peer = o.send ? m_to : m_from;
        o.bytes = PartBytes(PartBytes(m_bytes, m_units, unit), m_n, segment);
        o.tag = m_tagBase + static_cast<int64_t>(unit) * 2 * m_n + k;
        return o;
    }

    uint32_t DepCount(uint32_t op) const override
    {
        return op % 2;
    }

    uint32_t Dep(uint32_t op, uint32_t /* j */) const override
    {
        return op - 1;
    }

    uint32_t DependentCount(uint32_t op) const override
    {
        return 1 - op % 2;
    }

    uint32_t Dependent(uint32_t op, uint32_t /* j */) const override
    {
        return op + 1;
    }

    uint32_t NextRecv(uint32_t peer, int64_t tag, uint32_t after) const override
    {
        const int64_t perUnit = int64_t{2} * m_n;
        if (peer != m_from || tag < m_tagBase || tag >= m_tagBase + perUnit * m_units)
        {
            return kNone;
        }
        const auto unit = static_cast<uint32_t>((tag - m_tagBase) / perUnit);
        const auto k = static_cast<uint32_t>((tag - m_tagBase) % perUnit);
        if (k >= m_steps)
        {
            return kNone;
        }
        const uint32_t op = 2 * (unit * m_steps + k);
        return after == kNone || op > after ? op : kNone;
    }

    bool InitialSends(std::vector<uint32_t>& /* sends */) const override
    {
        return Size() > 0;
    }

  private:
    uint32_t m_from;
    uint32_t m_to;
    uint32_t m_n;
    uint32_t m_tailPosition;
    uint64_t m_bytes;
    uint32_t m_units;
    uint32_t m_steps;
    int64_t m_tagBase;
};

/**
 * Channels side by side: the parts' ops one after the other (indices offset), each part an
 * independent schedule with its own tags; message bytes become the protocol's wire bytes.
 * O(parts) state: a channel's ring stays a RingSchedule.
 */
class ChannelsSchedule : public CollectiveSchedule
{
  public:
    /**
     * \param plan the call's plan (protocol, NVLink efficiency, latencies)
     * \param hostOf the members' hosts (null: one host)
     * \param me this rank's member index
     */
    ChannelsSchedule(const NcclPlan& plan,
                     std::shared_ptr<const std::vector<uint32_t>> hostOf,
                     uint32_t me)
        : m_protocol(plan.choice.protocol),
          m_nvLinkEfficiency(plan.nvLinkEfficiency),
          m_wireFactor(plan.wireFactor),
          m_intraNs(static_cast<int64_t>(std::llround(plan.latency.intra * 1000))),
          m_interNs(static_cast<int64_t>(std::llround(plan.latency.inter * 1000))),
          m_baseNs(static_cast<int64_t>(std::llround(plan.latency.base * 1000))),
          m_streamCeiling(plan.streamCeiling),
          m_hostOf(std::move(hostOf)),
          m_me(me)
    {
    }

    /**
     * \param part one channel's ops (or a relay's)
     * \param handOffPeer the relay this rank hands its host's data to (kNone: none): that
     *        send is the first half of a network step and pays no step latency of its own
     */
    void Add(std::unique_ptr<CollectiveSchedule> part, uint32_t handOffPeer = kNone)
    {
        if (part->Size() == 0)
        {
            return;
        }
        if (uint64_t{m_size} + part->Size() >= kNone)
        {
            throw std::invalid_argument("nccl: the call needs more messages than a schedule "
                                        "can number (2^32)");
        }
        m_first.push_back(m_size);
        m_size += part->Size();
        m_parts.push_back(std::move(part));
        m_handOff.push_back(handOffPeer);
        if (m_streamCeiling > 0)
        {
            m_streams.emplace_back();
        }
    }

    int64_t SendDelayNs(uint32_t op, const MessageOp& message, int64_t nowNs) const override
    {
        const std::size_t p = PartOf(op);
        const uint32_t local = op - m_first[p];
        int64_t delay = m_parts[p]->DepCount(local) == 0 ? m_baseNs : 0;
        if (message.peer != m_handOff[p])
        {
            delay += SameHost(message.peer) ? m_intraNs : m_interNs;
        }
        if (m_streamCeiling <= 0)
        {
            return delay;
        }
        // The protocol's ceiling: this channel's stream to the peer takes the payload at most
        // at that rate (GB/s = bytes/ns), so a send leaves no earlier than the stream has
        // taken the one before it. The data streams out as it is written (LL's and LL128's
        // lines): pacing the starts caps the rate without adding a store-and-forward delay.
        int64_t& freeAt = StreamFreeAt(p, message.peer);
        const int64_t leave = std::max(nowNs + delay, freeAt);
        const double payload = static_cast<double>(m_parts[p]->Op(local).bytes);
        freeAt = leave + static_cast<int64_t>(std::llround(payload / m_streamCeiling));
        return leave - nowNs;
    }

    uint32_t Size() const override
    {
        return m_size;
    }

    MessageOp Op(uint32_t op) const override
    {
        const std::size_t p = PartOf(op);
        MessageOp o = m_parts[p]->Op(op - m_first[p]);
        o.bytes = NcclCollective::WireBytes(m_protocol, o.bytes);
        if (m_wireFactor != 1)
        {
            o.bytes = static_cast<uint64_t>(std::ceil(static_cast<double>(o.bytes) * m_wireFactor));
        }
        if (m_nvLinkEfficiency < 1 && SameHost(o.peer))
        {
            o.bytes =
                static_cast<uint64_t>(std::ceil(static_cast<double>(o.bytes) / m_nvLinkEfficiency));
        }
        return o;
    }

    uint32_t DepCount(uint32_t op) const override
    {
        const std::size_t p = PartOf(op);
        return m_parts[p]->DepCount(op - m_first[p]);
    }

    uint32_t Dep(uint32_t op, uint32_t j) const override
    {
        const std::size_t p = PartOf(op);
        return m_first[p] + m_parts[p]->Dep(op - m_first[p], j);
    }

    uint32_t DependentCount(uint32_t op) const override
    {
        const std::size_t p = PartOf(op);
        return m_parts[p]->DependentCount(op - m_first[p]);
    }

    uint32_t Dependent(uint32_t op, uint32_t j) const override
    {
        const std::size_t p = PartOf(op);
        return m_first[p] + m_parts[p]->Dependent(op - m_first[p], j);
    }

    uint32_t NextRecv(uint32_t peer, int64_t tag, uint32_t after) const override
    {
        // Parts use disjoint tags or disjoint peers: at most one part has receives of (peer,
        // tag), so its first one after `after` is the schedule's.
        const std::size_t start = after == kNone ? 0 : PartOf(after);
        for (std::size_t p = start; p < m_parts.size(); ++p)
        {
            const uint32_t local =
                after == kNone || after < m_first[p] ? kNone : after - m_first[p];
            const uint32_t op = m_parts[p]->NextRecv(peer, tag, local);
            if (op != kNone)
            {
                return m_first[p] + op;
            }
        }
        return kNone;
    }

    bool InitialSends(std::vector<uint32_t>& sends) const override
    {
        bool armed = false;
        for (std::size_t p = 0; p < m_parts.size(); ++p)
        {
            const std::size_t before = sends.size();
            armed = m_parts[p]->InitialSends(sends) || armed;
            for (std::size_t i = before; i < sends.size(); ++i)
            {
                sends[i] += m_first[p];
            }
        }
        return armed;
    }

  private:
    std::size_t PartOf(uint32_t op) const
    {
        return static_cast<std::size_t>(std::upper_bound(m_first.begin(), m_first.end(), op) -
                                        m_first.begin()) -
               1;
    }

    /** \return when part \p part's stream to \p peer has taken its last send (ns) */
    int64_t& StreamFreeAt(std::size_t part, uint32_t peer) const
    {
        // A ring's part has one peer, a tree's its parent and children: a short list.
        std::vector<std::pair<uint32_t, int64_t>>& streams = m_streams[part];
        for (auto& stream : streams)
        {
            if (stream.first == peer)
            {
                return stream.second;
            }
        }
        streams.emplace_back(peer, std::numeric_limits<int64_t>::min());
        return streams.back().second;
    }

    /** \return true if member \p peer is on this rank's host (an NVLink hop) */
    bool SameHost(uint32_t peer) const
    {
        return !m_hostOf || (*m_hostOf)[peer] == (*m_hostOf)[m_me];
    }

    NcclProtocol m_protocol;
    double m_nvLinkEfficiency;
    double m_wireFactor; //!< wire bytes per byte of the protocol's (PAT's efficiency)
    int64_t m_intraNs;
    int64_t m_interNs;
    int64_t m_baseNs;
    double m_streamCeiling; //!< payload GB/s of a stream (a part's sends to one peer); 0: none
    /** Per part (when paced): each peer's stream and when it has taken its last send. */
    mutable std::vector<std::vector<std::pair<uint32_t, int64_t>>> m_streams;
    std::shared_ptr<const std::vector<uint32_t>> m_hostOf;
    uint32_t m_me;
    std::vector<std::unique_ptr<CollectiveSchedule>> m_parts;
    std::vector<uint32_t> m_first;
    std::vector<uint32_t> m_handOff; //!< per part
    uint32_t m_size{0};
};

/**
 * A string attribute whose value NCCL's parser must accept (NcclCollective::CheckSetting):
 * SetAttribute / Config::SetDefault refuse a bad value where it is given.
 */
class NcclListChecker : public AttributeChecker
{
  public:
    explicit NcclListChecker(std::string attribute)
        : m_attribute(std::move(attribute))
    {
    }

    bool Check(const AttributeValue& value) const override
    {
        const auto* text = dynamic_cast<const StringValue*>(&value);
        if (text == nullptr)
        {
            return false;
        }
        try
        {
            NcclCollective::CheckSetting(m_attribute, text->Get());
        }
        catch (const std::invalid_argument& e)
        {
            NS_LOG_WARN(e.what());
            return false;
        }
        return true;
    }

    std::string GetValueTypeName() const override
    {
        return "ns3::StringValue";
    }

    bool HasUnderlyingTypeInformation() const override
    {
        return true;
    }

    std::string GetUnderlyingTypeInformation() const override
    {
        return "an NCCL_" + std::string(m_attribute == "NcclAlgo" ? "ALGO" : "PROTO") + " value";
    }

    Ptr<AttributeValue> Create() const override
    {
        return ns3::Create<StringValue>();
    }

    bool Copy(const AttributeValue& source, AttributeValue& destination) const override
    {
        const auto* from = dynamic_cast<const StringValue*>(&source);
        auto* to = dynamic_cast<StringValue*>(&destination);
        if (from == nullptr || to == nullptr)
        {
            return false;
        }
        *to = *from;
        return true;
    }

  private:
    std::string m_attribute;
};

NcclFunction
FunctionOf(ChakraProtoMsg::CollectiveCommType type)
{
    switch (type)
    {
    case ChakraProtoMsg::BROADCAST:
        return NcclFunction::BROADCAST;
    case ChakraProtoMsg::REDUCE:
        return NcclFunction::REDUCE;
    case ChakraProtoMsg::ALL_GATHER:
        return NcclFunction::ALL_GATHER;
    case ChakraProtoMsg::REDUCE_SCATTER:
    case ChakraProtoMsg::REDUCE_SCATTER_BLOCK:
        return NcclFunction::REDUCE_SCATTER;
    default:
        return NcclFunction::ALL_REDUCE;
    }
}

} // namespace

TypeId
NcclCollective::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::NcclCollective")
            .SetParent<CollectiveAlgorithm>()
            .SetGroupName("Chakra")
            .AddConstructor<NcclCollective>()
            .AddAttribute("Channels",
                          "NCCL's channels (nChannels): rings side by side, channel c on rail "
                          "c mod GPUs-per-host. 16: what NCCL's topology search gives rings on "
                          "an 8-GPU NVSwitch host with one NIC per GPU (H100); fewer are used "
                          "for small sizes, as NCCL does.",
                          UintegerValue(16),
                          MakeUintegerAccessor(&NcclCollective::m_channels),
                          MakeUintegerChecker<uint32_t>(1, 64))
            .AddAttribute("GpuGeneration",
                          "The row of NCCL's per-architecture tuning tables.",
                          EnumValue(static_cast<int>(NcclGpuGeneration::HOPPER)),
                          MakeEnumAccessor(&NcclCollective::m_generation),
                          MakeEnumChecker(static_cast<int>(NcclGpuGeneration::VOLTA),
                                          NcclGenerationName(NcclGpuGeneration::VOLTA),
                                          static_cast<int>(NcclGpuGeneration::AMPERE),
                                          NcclGenerationName(NcclGpuGeneration::AMPERE),
                                          static_cast<int>(NcclGpuGeneration::HOPPER),
                                          NcclGenerationName(NcclGpuGeneration::HOPPER),
                                          static_cast<int>(NcclGpuGeneration::BLACKWELL),
                                          NcclGenerationName(NcclGpuGeneration::BLACKWELL)))
            .AddAttribute("NvLinkEfficiency",
                          "The share of the NVLink line rate NCCL moves data at: messages between "
                          "GPUs of one host carry their bytes over it. 0: NCCL's own figure for "
                          "GpuGeneration (its per-link bandwidth over the line rate: Volta and "
                          "Ampere 0.8, Hopper 0.824, Blackwell 0.802).",
                          DoubleValue(0),
                          MakeDoubleAccessor(&NcclCollective::m_nvLinkEfficiency),
                          MakeDoubleChecker<double>(0, 1))
            .AddAttribute("StepLatency",
                          "Each send waits NCCL's per-step latency of the chosen algorithm and "
                          "protocol (intra-node or network), the first sends of a call also its "
                          "base latency (NCCL's tuning constants). false: the network's own "
                          "latency alone.",
                          BooleanValue(true),
                          MakeBooleanAccessor(&NcclCollective::m_stepLatency),
                          MakeBooleanChecker())
            .AddAttribute("ProtocolCeiling",
                          "Each stream of a ring or tree channel (a rank's sends to one peer) "
                          "carries its payload at most at the rate NCCL's tuning model allows "
                          "the algorithm and protocol whatever the links: LL's llMax, LL128's and "
                          "the tree's per-channel caps (GPU-side limits). false: only the links "
                          "limit it (the protocol's wire bytes still count).",
                          BooleanValue(true),
                          MakeBooleanAccessor(&NcclCollective::m_protocolCeiling),
                          MakeBooleanChecker())
            .AddAttribute("Nvls",
                          "Whether the GPUs' NVSwitch reduces (NVLink SHARP, NCCL's NVLS): auto "
                          "by GpuGeneration (Hopper and later), on (refused before Hopper), off. "
                          "A ClusterScenario run "
                          "takes its cluster's NvlsSupport unless this is set. NVLS runs "
                          "all-reduce, all-gather and reduce-scatter on communicators inside "
                          "one host only.",
                          EnumValue(static_cast<int>(NvlsSupport::AUTO)),
                          MakeEnumAccessor(&NcclCollective::m_nvls),
                          MakeNvlsSupportChecker())
            .AddAttribute("Sharp",
                          "Whether the network's switches reduce (SHARP) and NCCL's CollNet is "
                          "enabled (NCCL_COLLNET_ENABLE=1 with a SHARP plugin): then NCCL's "
                          "tuning may pick CollNetDirect or CollNetChain for all-reduces across "
                          "2 hosts or more of at most 8 GPUs each: on, off. A ClusterScenario run "
                          "takes its cluster's SharpSupport unless this is set.",
                          EnumValue(static_cast<int>(SharpSupport::OFF)),
                          MakeEnumAccessor(&NcclCollective::m_sharp),
                          MakeSharpSupportChecker())
            .AddAttribute("NcclAlgo",
                          "NCCL_ALGO's text (NCCL's syntax: \"Ring\", \"^Tree\", "
                          "\"allreduce:tree;allgather:ring\"); empty: NCCL's choice.",
                          StringValue(""),
                          MakeStringAccessor(&NcclCollective::SetAlgo, &NcclCollective::GetAlgo),
                          Create<NcclListChecker>("NcclAlgo"))
            .AddAttribute("NcclProto",
                          "NCCL_PROTO's text (NCCL's syntax: \"Simple\", \"^LL128\"); empty: "
                          "NCCL's choice.",
                          StringValue(""),
                          MakeStringAccessor(&NcclCollective::SetProto, &NcclCollective::GetProto),
                          Create<NcclListChecker>("NcclProto"))
            .AddAttribute("NvLinkBandwidth",
                          "A GPU's NVLink bandwidth per direction, for the tuning model (H100: "
                          "450 GB/s).",
                          DataRateValue(DataRate("3600Gbps")),
                          MakeDataRateAccessor(&NcclCollective::m_nvLinkBandwidth),
                          MakeDataRateChecker())
            .AddAttribute("NicBandwidth",
                          "A GPU's NIC bandwidth, for the tuning model (a node's network "
                          "bandwidth is this x GPUs per host).",
                          DataRateValue(DataRate("400Gbps")),
                          MakeDataRateAccessor(&NcclCollective::m_nicBandwidth),
                          MakeDataRateChecker());
    return tid;
}

NcclCollective::NcclCollective()
    : m_channels(16),
      m_generation(static_cast<int>(NcclGpuGeneration::HOPPER)),
      m_nvLinkEfficiency(0),
      m_stepLatency(true),
      m_protocolCeiling(true),
      m_nvls(static_cast<int>(NvlsSupport::AUTO)),
      m_sharp(static_cast<int>(SharpSupport::OFF))
{
    NS_LOG_FUNCTION(this);
}

NcclCollective::~NcclCollective() = default;

void
NcclCollective::SetAlgo(std::string value)
{
    m_algo = std::move(value);
    m_tuning.clear();
}

std::string
NcclCollective::GetAlgo() const
{
    return m_algo;
}

void
NcclCollective::SetProto(std::string value)
{
    m_proto = std::move(value);
    m_tuning.clear();
}

std::string
NcclCollective::GetProto() const
{
    return m_proto;
}

void
NcclCollective::CheckSetting(const std::string& attribute, const std::string& value)
{
    const bool algo = attribute == "NcclAlgo";
    const std::string variable = algo ? "NCCL_ALGO" : "NCCL_PROTO";
    try
    {
        for (int f = 0; f <= static_cast<int>(NcclFunction::ALL_REDUCE); ++f)
        {
            ParseNcclList(variable,
                          value,
                          algo ? NcclAlgoNames() : NcclProtoNames(),
                          static_cast<NcclFunction>(f));
        }
    }
    catch (const std::invalid_argument& e)
    {
        throw std::invalid_argument("ns3::NcclCollective::" + attribute + ": " + e.what());
    }
}

uint64_t
NcclCollective::WireBytes(NcclProtocol protocol, uint64_t payload)
{
    switch (protocol)
    {
    case NcclProtocol::LL:
        return DivUp(payload, 8) * 16;
    case NcclProtocol::LL128:
        return DivUp(payload, 120) * 128;
    default:
        return payload;
    }
}

uint64_t
NcclCollective::ChunkBytes(NcclProtocol protocol, bool pipeline)
{
    switch (protocol)
    {
    case NcclProtocol::LL:
        return kLlBuffer / kSteps / 2;
    case NcclProtocol::LL128:
        return kLl128Buffer / kSteps / 128 * 120;
    default:
        return kSimpleBuffer / kSteps * (pipeline ? 1 : kSteps / 2);
    }
}

uint32_t
NcclCollective::SlicesPerChunk(NcclProtocol protocol, bool pipeline)
{
    return protocol == NcclProtocol::SIMPLE && !pipeline ? 2 : 1;
}

double
NcclCollective::NvLinkEfficiencyOf(NcclGpuGeneration generation)
{
    switch (generation)
    {
    case NcclGpuGeneration::HOPPER:
        return 20.6 / 25.0;
    case NcclGpuGeneration::BLACKWELL:
        return 40.1 / 50.0;
    default:
        return 20.0 / 25.0;
    }
}

double
NcclCollective::GetNvLinkEfficiency() const
{
    return m_nvLinkEfficiency > 0
               ? m_nvLinkEfficiency
               : NvLinkEfficiencyOf(static_cast<NcclGpuGeneration>(m_generation));
}

NcclTuningConfig
NcclCollective::GetTuningConfig(uint32_t nodes, uint32_t gpus) const
{
    NcclTuningConfig config;
    config.nodes = nodes;
    config.ranksPerNode = gpus;
    config.generation = static_cast<NcclGpuGeneration>(m_generation);
    config.channels = m_channels;
    // NCCL's bwIntra is its per-link figure times the links: the line rate x efficiency.
    config.intraBandwidth = m_nvLinkBandwidth.GetBitRate() / 8e9 * GetNvLinkEfficiency();
    config.interBandwidth = m_nicBandwidth.GetBitRate() / 8e9 * gpus;
    config.nvls = NvlsAvailable(static_cast<NvlsSupport>(m_nvls),
                                config.generation,
                                nodes,
                                gpus,
                                config.nvlsWhy);
    // NVLSTree: NVLS inside every host (NvlsAvailable as for one host), trees across them.
    config.nvlsTree = nodes >= 2 && NvlsAvailable(static_cast<NvlsSupport>(m_nvls),
                                                  config.generation,
                                                  1,
                                                  gpus,
                                                  config.nvlsTreeWhy);
    config.nicBandwidth = m_nicBandwidth.GetBitRate() / 8e9;
    config.collNet = m_sharp == static_cast<int>(SharpSupport::ON);
    config.collNetWhy = "the network's switches do not reduce (ns3::NcclCollective::Sharp is "
                        "off: --sharp off)";
    return config;
}

const NcclTuningModel&
NcclCollective::Tuning(uint32_t nodes, uint32_t gpus) const
{
    const auto generation = static_cast<NcclGpuGeneration>(m_generation);
    const double intra = m_nvLinkBandwidth.GetBitRate() / 8e9 * GetNvLinkEfficiency();
    const double inter = m_nicBandwidth.GetBitRate() / 8e9 * gpus;
    // Attributes may change between calls (a test, a scenario that reconfigures): the cached
    // model holds while its inputs are the same, compared as numbers first (the whole config
    // costs more: NvlsAvailable writes its reason as text).
    TuningSlot& slot = m_tuning[{nodes, gpus}];
    if (slot.model && slot.nvls == m_nvls &&
        slot.model->GetConfig().collNet == (m_sharp == static_cast<int>(SharpSupport::ON)))
    {
        const NcclTuningConfig& built = slot.model->GetConfig();
        if (built.generation == generation && built.channels == m_channels &&
            built.intraBandwidth == intra && built.interBandwidth == inter)
        {
            return *slot.model;
        }
    }
    slot.model = std::make_unique<NcclTuningModel>(GetTuningConfig(nodes, gpus), m_algo, m_proto);
    slot.nvls = m_nvls;
    return *slot.model;
}

std::shared_ptr<const PatPlan>
NcclCollective::PatPlanFor(PatKind kind, const PatShape& shape) const
{
    // One plan per shape, shared by every rank and call of that shape (O(n) each).
    std::shared_ptr<const PatPlan>& plan =
        m_patPlans[{static_cast<int>(kind), shape.ranks, shape.aggFactor, shape.postFreq}];
    if (!plan)
    {
        plan = MakePatPlan(kind, shape);
    }
    return plan;
}

bool
NcclCollective::Supports(const CollectiveRequest& request) const
{
    NS_LOG_FUNCTION(this);
    switch (request.type)
    {
    case ChakraProtoMsg::ALL_REDUCE:
    case ChakraProtoMsg::REDUCE_SCATTER:
    case ChakraProtoMsg::REDUCE_SCATTER_BLOCK:
    case ChakraProtoMsg::ALL_GATHER:
    case ChakraProtoMsg::BROADCAST:
    case ChakraProtoMsg::REDUCE:
    case ChakraProtoMsg::BARRIER:
        break;
    default:
        return false;
    }
    if (request.size < 2 || request.type == ChakraProtoMsg::BARRIER)
    {
        return true;
    }
    // Hosts with different numbers of the communicator's members are outside the model: the
    // default algorithm runs them. Everything else is the model's to run or to refuse: a call
    // that NCCL_ALGO / NCCL_PROTO or the machine's NVLS leave no pair for is an error from
    // Build (NCCL refuses it too), not a quiet change of algorithm.
    return MakeLayout(request).has_value();
}

NcclPlan
NcclCollective::Plan(const CollectiveRequest& request) const
{
    NS_LOG_FUNCTION(this << request.type << request.bytes << request.size);
    const auto layout = MakeLayout(request);
    if (!layout)
    {
        throw std::invalid_argument("nccl: the communicator's hosts hold different numbers of "
                                    "its members");
    }
    NcclPlan plan;
    plan.function = FunctionOf(request.type);
    plan.nodes = layout->hosts;
    plan.gpusPerNode = layout->gpus;
    // NCCL counts all-gather's bytes over all ranks (request: one rank's contribution).
    plan.nbytes = plan.function == NcclFunction::ALL_GATHER
                      ? request.bytes * static_cast<uint64_t>(request.size)
                      : request.bytes;
    plan.choice = Tuning(plan.nodes, plan.gpusPerNode).Choose(plan.function, plan.nbytes);
    plan.ran = plan.choice.algorithm;
    plan.channels = ChannelsFor(m_channels,
                                plan.choice.algorithm,
                                plan.choice.protocol,
                                plan.nbytes,
                                request.size);
    // Trees (and broadcast, reduce) take one step a chunk and a slice.
    const bool pipeline = plan.function == NcclFunction::BROADCAST ||
                          plan.function == NcclFunction::REDUCE || plan.ran == NcclAlgorithm::TREE;
    plan.chunkBytes = ChunkBytes(plan.choice.protocol, pipeline);
    plan.slicesPerChunk = SlicesPerChunk(plan.choice.protocol, pipeline);
    plan.nvLinkEfficiency = GetNvLinkEfficiency();
    if (m_stepLatency)
    {
        plan.latency = Tuning(plan.nodes, plan.gpusPerNode)
                           .StepLatencies(plan.function, plan.ran, plan.choice.protocol);
    }
    if (m_protocolCeiling)
    {
        plan.streamCeiling = Tuning(plan.nodes, plan.gpusPerNode)
                                 .StreamCeiling(plan.function, plan.ran, plan.choice.protocol);
    }
    if (plan.ran == NcclAlgorithm::COLLNET_DIRECT || plan.ran == NcclAlgorithm::COLLNET_CHAIN)
    {
        // One NCCL step a chunk (Simple's 512 KiB); Direct has one part per head (every GPU),
        // Chain NCCL's channels.
        plan.chunkBytes = ChunkBytes(NcclProtocol::SIMPLE, true);
        plan.slicesPerChunk = 1;
        if (plan.ran == NcclAlgorithm::COLLNET_DIRECT)
        {
            plan.channels = plan.gpusPerNode;
        }
    }
    const bool nvlsSharp = plan.ran == NcclAlgorithm::NVLS && plan.nodes > 1;
    if (plan.ran == NcclAlgorithm::NVLS_TREE || nvlsSharp)
    {
        // One head (channel) per GPU; NVLS's chunk rule; NVLink hops at NCCL's NVLS
        // efficiency on top of its NVLink one.
        const auto generation = static_cast<NcclGpuGeneration>(m_generation);
        plan.channels = plan.gpusPerNode;
        plan.chunkBytes =
            NvlsChunkBytes(plan.nbytes, NvlsChannels(generation, plan.nodes), plan.gpusPerNode);
        // NVLS across hosts: NCCL caps the chunk at 32 KiB when its NVLS bandwidth is under
        // 150 GB/s.
        if (nvlsSharp && Tuning(plan.nodes, plan.gpusPerNode)
                                 .Bandwidth(plan.function, plan.ran, plan.choice.protocol) < 150)
        {
            plan.chunkBytes = std::min<uint64_t>(plan.chunkBytes, 32768);
        }
        plan.slicesPerChunk = 1;
        plan.nvLinkEfficiency *= NvlsEfficiency(generation);
    }
    if (plan.ran == NcclAlgorithm::PAT)
    {
        // One NCCL step a pass, NCCL's PAT chunk rule.
        plan.chunkBytes =
            PatChunkBytes(plan.function == NcclFunction::ALL_GATHER ? PatKind::ALL_GATHER
                                                                    : PatKind::REDUCE_SCATTER,
                          kSimpleBuffer / kSteps,
                          plan.channels,
                          plan.nbytes);
        plan.slicesPerChunk = 1;
        // NCCL's PAT efficiency (its tuning's busBw x 0.75: the kernel's steps run in order,
        // a few at a time), as extra bytes on the wire, as NVLS's efficiency below.
        plan.wireFactor = 1.0 / kNcclPatEfficiency;
    }
    if (plan.ran == NcclAlgorithm::NVLS && !nvlsSharp)
    {
        const auto generation = static_cast<NcclGpuGeneration>(m_generation);
        plan.channels = NvlsChannels(generation, plan.nodes);
        plan.chunkBytes = NvlsChunkBytes(plan.nbytes, plan.channels, plan.gpusPerNode);
        plan.slicesPerChunk = 1;
        // NCCL's NVLS efficiency on top of its NVLink one, as extra bytes on the wire (as every
        // NVLink hop of the model carries wire bytes / NVLink efficiency).
        plan.wireFactor = 1.0 / (NvlsEfficiency(generation) * plan.nvLinkEfficiency);
    }
    return plan;
}

std::unique_ptr<CollectiveSchedule>
NcclCollective::DoBuild(const CollectiveRequest& request) const
{
    NS_LOG_FUNCTION(this);
    const NcclPlan plan = Plan(request);
    const HostLayout layout = *MakeLayout(request);
    const uint32_t n = request.size;
    const bool nvlsSharp = plan.ran == NcclAlgorithm::NVLS && plan.nodes > 1;
    if (plan.ran == NcclAlgorithm::NVLS && !nvlsSharp)
    {
        std::vector<uint32_t> peers;
        for (uint32_t i = 0; i < n; ++i)
        {
            if (i != request.me)
            {
                peers.push_back(i);
            }
        }
        auto nvls =
            std::make_unique<NvlsSchedule>(std::move(peers),
                                           NvlsSchedule::PairBytes(plan.nbytes, n, plan.function),
                                           plan.chunkBytes,
                                           static_cast<uint32_t>(kSteps),
                                           plan.wireFactor,
                                           0);
        if (plan.latency.intra <= 0)
        {
            return nvls;
        }
        // NCCL's NVLS latency (its tuning's, 25 us on NVLink, no base) before the sends of the
        // first window, which wait for nothing: the call's data moves 25 us late.
        const uint32_t firstWindow = nvls->WindowOps();
        const auto latencyNs = static_cast<int64_t>(std::llround(plan.latency.intra * 1000.0));
        return std::make_unique<DelayedSchedule>(
            std::move(nvls),
            [firstWindow, latencyNs](uint32_t op, const MessageOp&) {
                return op < firstWindow ? latencyNs : int64_t{0};
            });
    }
    auto schedule = std::make_unique<ChannelsSchedule>(plan, request.hostOf, request.me);
    if (plan.ran == NcclAlgorithm::PAT)
    {
        // One GPU a node: the hosts' order is the ranks'. Each channel moves its part of every
        // rank's share.
        const PatKind kind = plan.function == NcclFunction::ALL_GATHER ? PatKind::ALL_GATHER
                                                                       : PatKind::REDUCE_SCATTER;
        const uint64_t share = DivUp(plan.nbytes, n);
        // Positions are hosts in order; the members there are usually the ranks in order too
        // (then no table: O(1) a rank), else this rank keeps a copy of the order (O(n)).
        std::shared_ptr<const std::vector<uint32_t>> members;
        for (uint32_t p = 0; p < n && !members; ++p)
        {
            if (layout.members[p] != p)
            {
                members = std::make_shared<const std::vector<uint32_t>>(layout.members);
            }
        }
        int64_t tagBase = 0;
        for (uint32_t c = 0; c < plan.channels; ++c)
        {
            const uint64_t bytes = PartBytes(share, plan.channels, c);
            if (bytes == 0)
            {
                continue;
            }
            const std::shared_ptr<const PatPlan> pat =
                PatPlanFor(kind, PatShape::Make(n, plan.chunkBytes, bytes));
            const int64_t tags = PatTags(*pat, bytes, plan.chunkBytes);
            schedule->Add(BuildPat(pat,
                                   members,
                                   layout.myHost,
                                   bytes,
                                   plan.chunkBytes,
                                   static_cast<uint32_t>(kSteps),
                                   tagBase));
            tagBase += tags;
        }
        return schedule;
    }
    if (plan.ran == NcclAlgorithm::COLLNET_DIRECT || plan.ran == NcclAlgorithm::COLLNET_CHAIN ||
        plan.ran == NcclAlgorithm::NVLS_TREE || nvlsSharp)
    {
        const auto window = static_cast<uint32_t>(kSteps);
        if (nvlsSharp)
        {
            schedule->Add(BuildNvlsSharp(layout, plan.nbytes, plan.chunkBytes, window, 0));
        }
        else if (plan.ran == NcclAlgorithm::NVLS_TREE)
        {
            NvlsTreeLinks links;
            for (int tree = 0; tree < 2; ++tree)
            {
                const TreeLinks t = DoubleTree(static_cast<int>(layout.hosts),
                                               static_cast<int>(layout.myHost),
                                               tree);
                links.up[tree] = t.up;
                for (int down : {t.down0, t.down1})
                {
                    if (down != -1)
                    {
                        links.down[tree].push_back(static_cast<uint32_t>(down));
                    }
                }
            }
            schedule->Add(BuildNvlsTree(layout, links, plan.nbytes, plan.chunkBytes, window, 0));
        }
        else if (plan.ran == NcclAlgorithm::COLLNET_DIRECT)
        {
            schedule->Add(BuildCollNetDirect(layout, plan.nbytes, plan.chunkBytes, window, 0));
        }
        else
        {
            int64_t tagBase = 0;
            for (uint32_t c = 0; c < plan.channels; ++c)
            {
                const uint64_t bytes = PartBytes(plan.nbytes, plan.channels, c);
                if (bytes == 0)
                {
                    continue;
                }
                schedule->Add(
                    BuildCollNetChain(layout, c, bytes, plan.chunkBytes, window, tagBase));
                tagBase += int64_t{3} * CollNetChunks(bytes, plan.chunkBytes);
            }
        }
        CheckListSize(*schedule, n, plan.ran);
        return schedule;
    }
    int64_t tagBase = 0;
    const bool pipeline =
        plan.function == NcclFunction::BROADCAST || plan.function == NcclFunction::REDUCE;
    for (uint32_t c = 0; c < plan.channels; ++c)
    {
        const uint64_t bytes = PartBytes(plan.nbytes, plan.channels, c);
        if (bytes == 0)
        {
            continue;
        }
        if (plan.ran == NcclAlgorithm::TREE)
        {
            const uint32_t units = CheckedUnits(DivUp(bytes, plan.chunkBytes), 2, bytes);
            schedule->Add(BuildTreeChannel(layout, c, plan.channels, bytes, units, tagBase));
            tagBase += int64_t{2} * units;
            continue;
        }
        const ChannelRing ring = MakeChannelRing(layout, c);
        // A host's last GPU on this channel hands its data to the relay (its own host's GPU on
        // the rail), which sends it on: one network step, whose latency the relay pays.
        const uint32_t g = layout.gpus;
        const bool handsOff = layout.hosts >= 2 && g >= 2 && layout.myLocal == (c % g + g - 1) % g;
        const uint32_t handOff = handsOff ? ring.right : CollectiveSchedule::kNone;
        if (!pipeline)
        {
            // Loops of n chunks; each chunk in slices: one pipeline unit per slice, each
            // unit's n segments at most a slice.
            const uint64_t loops = DivUp(bytes, n * plan.chunkBytes);
            const uint64_t units64 = loops * plan.slicesPerChunk;
            const uint32_t units = CheckedUnits(units64, 2 * n, bytes);
            const RingMode mode = plan.function == NcclFunction::ALL_REDUCE ? RingMode::ALL_REDUCE
                                  : plan.function == NcclFunction::ALL_GATHER
                                      ? RingMode::ALL_GATHER
                                      : RingMode::REDUCE_SCATTER;
            const uint32_t steps = mode == RingMode::ALL_REDUCE ? 2 * (n - 1) : n - 1;
            auto part = std::make_unique<RingSchedule>();
            part->AddPassWithPeers(mode,
                                   n,
                                   ring.position,
                                   ring.left,
                                   ring.right,
                                   bytes,
                                   units,
                                   tagBase);
            schedule->Add(std::move(part), handOff);
            if (ring.relays)
            {
                schedule->Add(std::make_unique<RelaySchedule>(ring.relayFrom,
                                                              ring.relayTo,
                                                              n,
                                                              ring.tailPosition,
                                                              bytes,
                                                              units,
                                                              steps,
                                                              tagBase));
            }
            tagBase += static_cast<int64_t>(units) * 2 * n;
            continue;
        }
        // Broadcast and reduce: a chain along the ring from the root (broadcast) or ending at
        // it (reduce), one message per chunk; O(chunks) ops, held as a list.
        const uint32_t units = CheckedUnits(DivUp(bytes, plan.chunkBytes), 2, bytes);
        const uint32_t rail = c % g;
        uint32_t rootPosition = 0;
        for (uint32_t k = 0; k < n; ++k)
        {
            if (layout.members[k] == request.root)
            {
                rootPosition = (k / g) * g + (k % g + g - rail) % g;
            }
        }
        const uint32_t start =
            plan.function == NcclFunction::BROADCAST ? rootPosition : (rootPosition + 1) % n;
        const uint32_t index = (ring.position + n - start) % n;
        ScheduleBuilder builder;
        for (uint32_t u = 0; u < units; ++u)
        {
            const uint64_t unitBytes = PartBytes(bytes, units, u);
            const int64_t tag = tagBase + u;
            std::vector<uint32_t> deps;
            if (index > 0)
            {
                deps = {builder.Recv(ring.left, unitBytes, tag)};
            }
            if (index + 1 < n)
            {
                builder.Send(ring.right, unitBytes, tag, deps);
            }
            // The relay forwards unless the chain ends at its host's last GPU.
            if (ring.relays && (ring.tailPosition + 1) % n != start)
            {
                const uint32_t received = builder.Recv(ring.relayFrom, unitBytes, tag);
                builder.Send(ring.relayTo, unitBytes, tag, {received});
            }
        }
        schedule->Add(builder.Take(), handOff);
        tagBase += units;
    }
    return schedule;
}

} // namespace ns3
