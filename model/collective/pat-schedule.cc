#include "pat-schedule.h"

#include "ns3/log.h"

#include <algorithm>
#include <array>
#include <stdexcept>
#include <string>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("ChakraPatSchedule");

namespace
{

/** NCCL_STEPS: the steps a connection has in flight (and PAT's depth of aggregation). */
constexpr uint32_t kNcclSteps = 8;

/** \return the index of the lowest set bit of \p s (> 0) */
uint32_t
LowestBit(uint32_t s)
{
    uint32_t d = 0;
    while ((s & 1u) == 0)
    {
        s >>= 1;
        ++d;
    }
    return d;
}

/** \return the passes a share of \p channelBytes takes in chunks of \p chunkBytes */
uint64_t
Passes(uint64_t channelBytes, uint64_t chunkBytes)
{
    return (channelBytes + chunkBytes - 1) / chunkBytes;
}

} // namespace

PatShape
PatShape::Make(uint32_t ranks, uint64_t chunkBytes, uint64_t channelBytes)
{
    NS_LOG_FUNCTION(ranks << chunkBytes << channelBytes);
    if (ranks < 2 || chunkBytes == 0 || channelBytes == 0)
    {
        throw std::invalid_argument("PAT: needs 2 ranks or more and a positive chunk and share "
                                    "(ranks " +
                                    std::to_string(ranks) + ", chunk " +
                                    std::to_string(chunkBytes) + " B, share " +
                                    std::to_string(channelBytes) + " B)");
    }
    PatShape shape;
    shape.ranks = ranks;
    shape.pow2 = 1;
    while (shape.pow2 < ranks)
    {
        shape.pow2 *= 2;
    }
    shape.aggFactor = 1;
    shape.aggDelta = shape.pow2;
    // Aggregate small shares: two slices of aggFactor ranks still fit in a step.
    while (chunkBytes / (channelBytes * shape.aggFactor) >= 2 && shape.aggFactor < ranks / 2)
    {
        shape.aggFactor *= 2;
        shape.aggDelta /= 2;
    }
    shape.postFreq = shape.aggFactor;
    // Then deepen by the steps in flight (NCCL_STEPS halved down to 1).
    for (uint32_t depth = kNcclSteps; depth > 1 && shape.aggFactor < ranks / 2; depth /= 2)
    {
        shape.aggFactor *= 2;
        shape.aggDelta /= 2;
    }
    return shape;
}

std::vector<PatMessage>
PatMessages(const PatShape& shape)
{
    std::vector<PatMessage> messages;
    // Cuts a group's offsets (in the order given) into messages of postFreq, dropping s >= n.
    auto addGroup = [&shape, &messages](const std::vector<uint32_t>& group, uint32_t dim) {
        for (std::size_t first = 0; first < group.size(); first += shape.postFreq)
        {
            PatMessage message;
            message.dim = dim;
            const std::size_t last = std::min(group.size(), first + shape.postFreq);
            for (std::size_t i = first; i < last; ++i)
            {
                if (group[i] < shape.ranks)
                {
                    message.offsets.push_back(group[i]);
                }
            }
            if (!message.offsets.empty())
            {
                messages.push_back(std::move(message));
            }
        }
    };
    // Multiples of aggDelta, s = (2a + 1) x scale x aggDelta, the far dimensions first: each
    // forwards what the larger scale brought (or the sender's own data).
    for (uint32_t scale = shape.aggFactor / 2; scale >= 1; scale /= 2)
    {
        std::vector<uint32_t> group;
        for (uint32_t a = 0; a < shape.aggFactor / (2 * scale); ++a)
        {
            group.push_back((2 * a + 1) * scale * shape.aggDelta);
        }
        addGroup(group, LowestBit(scale * shape.aggDelta));
    }
    // The rest by residue: s = a x aggDelta + r forwards s - 2^lowbit(r), whose residue is
    // smaller.
    for (uint32_t r = 1; r < shape.aggDelta; ++r)
    {
        std::vector<uint32_t> group;
        for (uint32_t a = 0; a < shape.aggFactor; ++a)
        {
            group.push_back(a * shape.aggDelta + r);
        }
        addGroup(group, LowestBit(r));
    }
    return messages;
}

uint64_t
PatChunkBytes(PatKind kind, uint64_t stepBytes, uint32_t channels, uint64_t bytes)
{
    const uint64_t factor = kind == PatKind::ALL_GATHER ? 32 : 16;
    uint64_t chunk = stepBytes;
    while (chunk * channels * factor > bytes && chunk > 65536)
    {
        chunk /= 2;
    }
    return chunk;
}

/** What a shape's ranks share (pat-schedule.h): per position of a rank's order. */
struct PatPlan
{
    /** One message of a pass, at its position in the order a rank runs them. */
    struct Step
    {
        uint32_t message{0};   //!< its index in the all-gather's order (its tag's)
        uint32_t dim{0};       //!< hop distance 2^dim
        uint32_t offsets{0};   //!< offsets it carries (one slice each)
        uint32_t rankInDim{0}; //!< the pass's earlier messages of the same dimension
    };

    PatKind kind{PatKind::ALL_GATHER};
    uint32_t ranks{2};
    std::vector<Step> steps; //!< a pass, in the rank's order
    /** Per position: the earlier positions whose receives its send waits for (ascending). */
    std::vector<std::vector<uint32_t>> needs;
    /** Per position: the later positions whose sends wait for its receive (ascending). */
    std::vector<std::vector<uint32_t>> neededBy;
    std::vector<uint32_t> positionOf;               //!< per message index: its position
    std::array<std::vector<uint32_t>, 32> dimSteps; //!< per dimension: its positions in order
    /**
     * The positions whose send may wait for nothing (it and the send before it need no
     * receive), ascending: a superset of a pass's first sends, O(log n) of the n - 1.
     */
    std::vector<uint32_t> open;
};

std::shared_ptr<const PatPlan>
MakePatPlan(PatKind kind, const PatShape& shape)
{
    NS_LOG_FUNCTION(static_cast<int>(kind) << shape.ranks << shape.aggFactor << shape.postFreq);
    auto plan = std::make_shared<PatPlan>();
    plan->kind = kind;
    plan->ranks = shape.ranks;
    const uint32_t n = shape.ranks;
    const bool gather = kind == PatKind::ALL_GATHER;
    const std::vector<PatMessage> messages = PatMessages(shape);
    const auto count = static_cast<uint32_t>(messages.size());
    // messageOf[s]: the message (in the all-gather's order) that carries offset s.
    std::vector<uint32_t> messageOf(n, 0);
    for (uint32_t m = 0; m < count; ++m)
    {
        for (uint32_t s : messages[m].offsets)
        {
            messageOf[s] = m;
        }
    }
    // The order a rank runs the messages in: the all-gather's, or backwards.
    plan->positionOf.resize(count);
    for (uint32_t i = 0; i < count; ++i)
    {
        const uint32_t m = gather ? i : count - 1 - i;
        plan->positionOf[m] = i;
        PatPlan::Step step;
        step.message = m;
        step.dim = messages[m].dim;
        step.offsets = static_cast<uint32_t>(messages[m].offsets.size());
        step.rankInDim = static_cast<uint32_t>(plan->dimSteps[step.dim].size());
        plan->dimSteps[step.dim].push_back(i);
        plan->steps.push_back(step);
    }
    // What each send waits for: the receives (of the same pass) that bring its offsets' data
    // (all-gather: s - 2^d, unless s = 2^d, the sender's own) or partial sums (reduce-scatter:
    // s + 2^e for e < d).
    plan->needs.resize(count);
    plan->neededBy.resize(count);
    for (uint32_t i = 0; i < count; ++i)
    {
        const PatMessage& message = messages[plan->steps[i].message];
        const uint32_t d = message.dim;
        std::vector<uint32_t>& needs = plan->needs[i];
        for (uint32_t s : message.offsets)
        {
            if (gather)
            {
                if (s != (1u << d))
                {
                    needs.push_back(plan->positionOf[messageOf[s - (1u << d)]]);
                }
                continue;
            }
            for (uint32_t e = 0; e < d; ++e)
            {
                if (s + (1u << e) < n)
                {
                    needs.push_back(plan->positionOf[messageOf[s + (1u << e)]]);
                }
            }
        }
        std::sort(needs.begin(), needs.end());
        needs.erase(std::unique(needs.begin(), needs.end()), needs.end());
        for (uint32_t q : needs)
        {
            plan->neededBy[q].push_back(i); // i ascending: each list stays sorted
        }
        if (needs.empty() && (i == 0 || plan->needs[i - 1].empty()))
        {
            plan->open.push_back(i);
        }
    }
    return plan;
}

int64_t
PatTags(const PatPlan& plan, uint64_t channelBytes, uint64_t chunkBytes)
{
    return static_cast<int64_t>(Passes(channelBytes, chunkBytes)) *
           static_cast<int64_t>(plan.steps.size());
}

namespace
{

/**
 * One rank's ops of one channel of PAT, by formula over the shared plan. Op 2 (P c + i) is the
 * send of pass P's i-th message (c a pass's messages), op 2 (P c + i) + 1 its receive. A send
 * waits for the receives its data needs (waits(P, i)), for what the previous send waited for
 * (in order; across passes too) and for the send `window` earlier in its dimension.
 */
class PatSchedule : public CollectiveSchedule
{
  public:
    PatSchedule(std::shared_ptr<const PatPlan> plan,
                std::shared_ptr<const std::vector<uint32_t>> members,
                uint32_t me,
                uint64_t channelBytes,
                uint64_t chunkBytes,
                uint32_t window,
                int64_t tagBase)
        : m_plan(std::move(plan)),
          m_members(std::move(members)),
          m_me(me),
          m_count(static_cast<uint32_t>(m_plan->steps.size())),
          m_passes(Passes(channelBytes, chunkBytes)),
          m_channelBytes(channelBytes),
          m_chunkBytes(chunkBytes),
          m_window(window),
          m_tagBase(tagBase)
    {
        if (2 * m_passes * m_count >= kNone)
        {
            throw std::invalid_argument("PAT: a channel needs more ops than a schedule can number "
                                        "(2^32)");
        }
    }

    uint32_t Size() const override
    {
        return static_cast<uint32_t>(2 * m_passes * m_count);
    }

    MessageOp Op(uint32_t op) const override
    {
        const uint64_t pass = op / 2 / m_count;
        const PatPlan::Step& step = m_plan->steps[op / 2 % m_count];
        const uint32_t n = m_plan->ranks;
        const uint32_t hop = (1u << step.dim) % n;
        const bool gather = m_plan->kind == PatKind::ALL_GATHER;
        MessageOp o;
        o.send = op % 2 == 0;
        // All-gather sends towards me - 2^d and receives from me + 2^d; reduce-scatter the
        // other way round.
        const bool down = o.send == gather;
        const uint32_t position = down ? (m_me + n - hop) % n : (m_me + hop) % n;
        o.peer = m_members ? (*m_members)[position] : position;
        o.bytes = std::min(m_chunkBytes, m_channelBytes - pass * m_chunkBytes) * step.offsets;
        o.tag = m_tagBase + static_cast<int64_t>(pass * m_count + step.message);
        return o;
    }

    uint32_t DepCount(uint32_t op) const override
    {
        return static_cast<uint32_t>(Deps(op).size());
    }

    uint32_t Dep(uint32_t op, uint32_t j) const override
    {
        return Deps(op)[j];
    }

    uint32_t DependentCount(uint32_t op) const override
    {
        return static_cast<uint32_t>(Dependents(op).size());
    }

    uint32_t Dependent(uint32_t op, uint32_t j) const override
    {
        return Dependents(op)[j];
    }

    uint32_t NextRecv(uint32_t peer, int64_t tag, uint32_t after) const override
    {
        const int64_t index = tag - m_tagBase;
        if (index < 0 || static_cast<uint64_t>(index) >= m_passes * m_count)
        {
            return kNone;
        }
        const uint64_t pass = static_cast<uint64_t>(index) / m_count;
        const uint32_t position = m_plan->positionOf[static_cast<uint64_t>(index) % m_count];
        const auto op = static_cast<uint32_t>(2 * (pass * m_count + position) + 1);
        if (Op(op).peer != peer)
        {
            return kNone;
        }
        return after == kNone || op > after ? op : kNone;
    }

    bool InitialSends(std::vector<uint32_t>& sends) const override
    {
        // A send waits for nothing only if it and the send before it need no receive (the
        // plan's open positions) and its dimension has window slots free: in the first
        // `window` passes at most. Deps decides for each candidate.
        const uint64_t passes = std::min<uint64_t>(m_passes, m_window);
        for (uint64_t pass = 0; pass < passes; ++pass)
        {
            for (uint32_t i : m_plan->open)
            {
                if (Deps(SendOp(pass, i)).empty())
                {
                    sends.push_back(SendOp(pass, i));
                }
            }
        }
        return Size() > 0; // every receive waits for nothing
    }

  private:
    /** \return the op of pass \p pass, position \p i (its send; + 1 its receive) */
    uint32_t SendOp(uint64_t pass, uint32_t i) const
    {
        return static_cast<uint32_t>(2 * (pass * m_count + i));
    }

    /** Appends the receives the send of (pass, i) needs. */
    void AppendWaits(uint64_t pass, uint32_t i, std::vector<uint32_t>& out) const
    {
        for (uint32_t q : m_plan->needs[i])
        {
            out.push_back(SendOp(pass, q) + 1);
        }
    }

    /** \return the ops \p op waits for, ascending (cached: the engine asks op by op) */
    const std::vector<uint32_t>& Deps(uint32_t op) const
    {
        if (m_depsOf == op)
        {
            return m_deps;
        }
        m_depsOf = op;
        m_deps.clear();
        if (op % 2 == 1)
        {
            return m_deps; // a receive waits for nothing
        }
        const uint64_t pass = op / 2 / m_count;
        const uint32_t i = op / 2 % m_count;
        AppendWaits(pass, i, m_deps);
        // In order: the previous send's waits (the previous pass's last one for a first).
        if (i > 0)
        {
            AppendWaits(pass, i - 1, m_deps);
        }
        else if (pass > 0)
        {
            AppendWaits(pass - 1, m_count - 1, m_deps);
        }
        // The dimension's buffer slots: the send `window` earlier in it.
        const PatPlan::Step& step = m_plan->steps[i];
        const std::vector<uint32_t>& dimSteps = m_plan->dimSteps[step.dim];
        const uint64_t k = pass * dimSteps.size() + step.rankInDim;
        if (k >= m_window)
        {
            const uint64_t earlier = k - m_window;
            m_deps.push_back(
                SendOp(earlier / dimSteps.size(), dimSteps[earlier % dimSteps.size()]));
        }
        std::sort(m_deps.begin(), m_deps.end());
        m_deps.erase(std::unique(m_deps.begin(), m_deps.end()), m_deps.end());
        return m_deps;
    }

    /** \return the ops waiting for \p op, ascending (cached as Deps) */
    const std::vector<uint32_t>& Dependents(uint32_t op) const
    {
        if (m_dependentsOf == op)
        {
            return m_dependents;
        }
        m_dependentsOf = op;
        m_dependents.clear();
        const uint64_t pass = op / 2 / m_count;
        const uint32_t i = op / 2 % m_count;
        if (op % 2 == 1)
        {
            // The sends that need this receive, and the sends after them (which wait for what
            // their predecessor waited for).
            for (uint32_t j : m_plan->neededBy[i])
            {
                m_dependents.push_back(SendOp(pass, j));
                if (j + 1 < m_count)
                {
                    m_dependents.push_back(SendOp(pass, j + 1));
                }
                else if (pass + 1 < m_passes)
                {
                    m_dependents.push_back(SendOp(pass + 1, 0));
                }
            }
        }
        else
        {
            // The send `window` later in its dimension.
            const PatPlan::Step& step = m_plan->steps[i];
            const std::vector<uint32_t>& dimSteps = m_plan->dimSteps[step.dim];
            const uint64_t later = pass * dimSteps.size() + step.rankInDim + m_window;
            if (later / dimSteps.size() < m_passes)
            {
                m_dependents.push_back(
                    SendOp(later / dimSteps.size(), dimSteps[later % dimSteps.size()]));
            }
        }
        std::sort(m_dependents.begin(), m_dependents.end());
        m_dependents.erase(std::unique(m_dependents.begin(), m_dependents.end()),
                           m_dependents.end());
        return m_dependents;
    }

    std::shared_ptr<const PatPlan> m_plan;
    std::shared_ptr<const std::vector<uint32_t>> m_members;
    uint32_t m_me;
    uint32_t m_count;
    uint64_t m_passes;
    uint64_t m_channelBytes;
    uint64_t m_chunkBytes;
    uint32_t m_window;
    int64_t m_tagBase;
    mutable uint32_t m_depsOf{kNone};
    mutable std::vector<uint32_t> m_deps;
    mutable uint32_t m_dependentsOf{kNone};
    mutable std::vector<uint32_t> m_dependents;
};

/** Throws for arguments no PAT schedule takes. */
void
CheckPatArguments(uint32_t n,
                  std::size_t members,
                  uint32_t me,
                  uint64_t channelBytes,
                  uint64_t chunkBytes,
                  uint32_t window)
{
    if (members != n || me >= n || channelBytes == 0 || chunkBytes == 0 || window == 0)
    {
        throw std::invalid_argument("PAT: " + std::to_string(members) + " members for " +
                                    std::to_string(n) + " ranks, position " + std::to_string(me) +
                                    " (the members must be one per rank, the share, chunk and "
                                    "window positive)");
    }
}

} // namespace

std::unique_ptr<CollectiveSchedule>
BuildPat(std::shared_ptr<const PatPlan> plan,
         std::shared_ptr<const std::vector<uint32_t>> members,
         uint32_t me,
         uint64_t channelBytes,
         uint64_t chunkBytes,
         uint32_t window,
         int64_t tagBase)
{
    NS_LOG_FUNCTION(me << channelBytes << chunkBytes << window << tagBase);
    if (!plan)
    {
        throw std::invalid_argument("PAT: no plan (MakePatPlan)");
    }
    CheckPatArguments(plan->ranks,
                      members ? members->size() : plan->ranks,
                      me,
                      channelBytes,
                      chunkBytes,
                      window);
    return std::make_unique<PatSchedule>(std::move(plan),
                                         std::move(members),
                                         me,
                                         channelBytes,
                                         chunkBytes,
                                         window,
                                         tagBase);
}

std::unique_ptr<CollectiveSchedule>
BuildPatList(PatKind kind,
             const PatShape& shape,
             const std::vector<uint32_t>& members,
             uint32_t me,
             uint64_t channelBytes,
             uint64_t chunkBytes,
             uint32_t window,
             int64_t tagBase)
{
    NS_LOG_FUNCTION(static_cast<int>(kind)
                    << shape.ranks << me << channelBytes << chunkBytes << window << tagBase);
    const uint32_t n = shape.ranks;
    CheckPatArguments(n, members.size(), me, channelBytes, chunkBytes, window);
    const bool gather = kind == PatKind::ALL_GATHER;
    const std::shared_ptr<const PatPlan> plan = MakePatPlan(kind, shape);
    const auto count = static_cast<uint32_t>(plan->steps.size());
    ScheduleBuilder builder;
    const uint64_t passes = Passes(channelBytes, chunkBytes);
    std::vector<std::vector<uint32_t>> sendsByDim(32);
    std::vector<uint32_t> previousWaits;
    std::vector<uint32_t> received(count, CollectiveSchedule::kNone);
    for (uint64_t pass = 0; pass < passes; ++pass)
    {
        const uint64_t slice = std::min(chunkBytes, channelBytes - pass * chunkBytes);
        for (uint32_t i = 0; i < count; ++i)
        {
            const PatPlan::Step& step = plan->steps[i];
            const uint32_t hop = (1u << step.dim) % n;
            const uint32_t to = gather ? (me + n - hop) % n : (me + hop) % n;
            const uint32_t from = gather ? (me + hop) % n : (me + n - hop) % n;
            const uint64_t bytes = slice * step.offsets;
            const int64_t tag = tagBase + static_cast<int64_t>(pass) * count + step.message;
            std::vector<uint32_t> waits;
            for (uint32_t need : plan->needs[i])
            {
                waits.push_back(received[need]);
            }
            // In order: what the previous step waited for, this one waits for too.
            std::vector<uint32_t> deps = waits;
            deps.insert(deps.end(), previousWaits.begin(), previousWaits.end());
            std::vector<uint32_t>& dimSends = sendsByDim[step.dim];
            if (dimSends.size() >= window)
            {
                deps.push_back(dimSends[dimSends.size() - window]);
            }
            std::sort(deps.begin(), deps.end());
            deps.erase(std::unique(deps.begin(), deps.end()), deps.end());
            dimSends.push_back(builder.Send(members[to], bytes, tag, deps));
            received[i] = builder.Recv(members[from], bytes, tag);
            previousWaits = std::move(waits);
        }
    }
    return builder.Take();
}

} // namespace ns3
