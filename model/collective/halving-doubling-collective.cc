#include "halving-doubling-collective.h"

#include "ns3/log.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("ChakraHalvingDoublingCollective");

namespace
{

bool
IsPowerOfTwo(uint32_t n)
{
    return n != 0 && (n & (n - 1)) == 0;
}

uint32_t
LargestPowerOfTwoAtMost(uint32_t n)
{
    uint32_t p = 1;
    while (p * 2 <= n)
    {
        p *= 2;
    }
    return p;
}

/** Bytes of blocks [lo, hi) when \p total is cut into \p parts blocks. */
uint64_t
RangeBytes(uint64_t total, uint32_t parts, uint32_t lo, uint32_t hi)
{
    uint64_t sum = 0;
    for (uint32_t b = lo; b < hi; ++b)
    {
        sum += PartBytes(total, parts, b);
    }
    return sum;
}

enum Phase
{
    PRE = 0,
    HALVING = 1,
    DOUBLING = 2,
    POST = 3
};

} // namespace

NS_OBJECT_ENSURE_REGISTERED(HalvingDoublingCollective);

TypeId
HalvingDoublingCollective::GetTypeId()
{
    static TypeId tid = TypeId("ns3::HalvingDoublingCollective")
                            .SetParent<CollectiveAlgorithm>()
                            .SetGroupName("Chakra")
                            .AddConstructor<HalvingDoublingCollective>();
    return tid;
}

bool
HalvingDoublingCollective::Supports(const CollectiveRequest& request) const
{
    NS_LOG_FUNCTION(this);
    switch (request.type)
    {
    case ChakraProtoMsg::ALL_REDUCE:
    case ChakraProtoMsg::BARRIER:
        return true;
    case ChakraProtoMsg::REDUCE_SCATTER:
    case ChakraProtoMsg::REDUCE_SCATTER_BLOCK:
    case ChakraProtoMsg::ALL_GATHER:
        return IsPowerOfTwo(request.size);
    default:
        return false;
    }
}

std::unique_ptr<CollectiveSchedule>
HalvingDoublingCollective::DoBuild(const CollectiveRequest& request) const
{
    NS_LOG_FUNCTION(this);
    const uint32_t n = request.size;
    const bool allReduce = request.type == ChakraProtoMsg::ALL_REDUCE;
    const bool halving = request.type != ChakraProtoMsg::ALL_GATHER;
    const bool doubling = request.type != ChakraProtoMsg::REDUCE_SCATTER &&
                          request.type != ChakraProtoMsg::REDUCE_SCATTER_BLOCK;
    const uint32_t p = LargestPowerOfTwoAtMost(n);
    const uint32_t extra = n - p;
    const uint32_t me = request.me;
    // Virtual rank among the p participants; the even member of each of the first `extra`
    // pairs sits out.
    const bool sitsOut = me < 2 * extra && me % 2 == 0;
    const uint32_t v = me < 2 * extra ? me / 2 : me - extra;
    auto real = [&](uint32_t virtualRank) {
        return virtualRank < extra ? 2 * virtualRank + 1 : virtualRank + extra;
    };
    uint32_t log2p = 0;
    while ((1u << log2p) < p)
    {
        ++log2p;
    }

    ScheduleBuilder builder;
    for (uint32_t c = 0; c < request.chunks; ++c)
    {
        auto tag = [&](Phase phase, uint32_t step) {
            return (static_cast<int64_t>(c) * 4 + phase) * 64 + step;
        };
        // All-gather's buffer is the n contributions; the others cut the input.
        const uint64_t chunk = PartBytes(request.bytes, request.chunks, c);
        const uint64_t buffer = halving ? chunk : chunk * n;
        std::vector<uint32_t> deps;
        if (me < 2 * extra)
        {
            if (sitsOut)
            {
                builder.Send(me + 1, buffer, tag(PRE, 0));
                builder.Recv(me + 1, buffer, tag(POST, 0));
                continue;
            }
            deps = {builder.Recv(me - 1, buffer, tag(PRE, 0))};
        }
        uint32_t lo = 0;
        uint32_t hi = p;
        if (halving)
        {
            for (uint32_t step = 0; step < log2p; ++step)
            {
                uint32_t distance = p >> (step + 1);
                uint32_t partner = real(v ^ distance);
                uint32_t mid = lo + (hi - lo) / 2;
                bool keepLower = (v & distance) == 0;
                uint64_t sendBytes =
                    keepLower ? RangeBytes(buffer, p, mid, hi) : RangeBytes(buffer, p, lo, mid);
                (keepLower ? hi : lo) = mid;
                builder.Send(partner, sendBytes, tag(HALVING, step), deps);
                deps = {builder.Recv(partner, RangeBytes(buffer, p, lo, hi), tag(HALVING, step))};
            }
        }
        else
        {
            lo = v;
            hi = v + 1;
        }
        if (doubling)
        {
            for (uint32_t step = 0; step < log2p; ++step)
            {
                uint32_t distance = 1u << step;
                uint32_t partner = real(v ^ distance);
                uint32_t length = hi - lo;
                bool lower = (v & distance) == 0;
                uint32_t otherLo = lower ? hi : lo - length;
                builder.Send(partner, RangeBytes(buffer, p, lo, hi), tag(DOUBLING, step), deps);
                deps = {builder.Recv(partner,
                                     RangeBytes(buffer, p, otherLo, otherLo + length),
                                     tag(DOUBLING, step))};
                lo = lower ? lo : otherLo;
                hi = lo + 2 * length;
            }
        }
        if (allReduce && me < 2 * extra)
        {
            builder.Send(me - 1, buffer, tag(POST, 0), deps);
        }
    }
    return builder.Take();
}

} // namespace ns3
