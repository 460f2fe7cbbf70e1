#include "ring-schedule.h"

#include "ns3/abort.h"

#include <limits>

namespace ns3
{

void
RingSchedule::AddPass(RingMode mode,
                      const std::vector<uint32_t>& members,
                      uint32_t position,
                      uint64_t bytes,
                      uint32_t chunks,
                      int64_t tagBase,
                      uint32_t stepOffset)
{
    const auto n = static_cast<uint32_t>(members.size());
    if (n < 2)
    {
        return; // nothing to move: the next pass waits for the one before this
    }
    AddPassWithPeers(mode,
                     n,
                     position,
                     members[(position + n - 1) % n],
                     members[(position + 1) % n],
                     bytes,
                     chunks,
                     tagBase,
                     stepOffset);
}

void
RingSchedule::AddPassWithPeers(RingMode mode,
                               uint32_t n,
                               uint32_t position,
                               uint32_t left,
                               uint32_t right,
                               uint64_t bytes,
                               uint32_t chunks,
                               int64_t tagBase,
                               uint32_t stepOffset)
{
    if (n < 2)
    {
        return;
    }
    Pass pass;
    pass.n = n;
    pass.position = position;
    pass.right = right;
    pass.left = left;
    pass.bytes = bytes;
    pass.chunks = chunks == 0 ? 1 : chunks;
    pass.steps = mode == RingMode::ALL_REDUCE ? 2 * (n - 1) : n - 1;
    pass.stepOffset = stepOffset;
    pass.tagBase = tagBase;
    pass.firstOp = m_size;
    const uint64_t ops = uint64_t(2) * pass.steps * pass.chunks;
    NS_ABORT_MSG_IF(m_size + ops >= std::numeric_limits<uint32_t>::max(),
                    "a ring pass over " << n << " ranks in " << pass.chunks
                                        << " chunks has more ops than a schedule can number");
    m_size += static_cast<uint32_t>(ops);
    m_passes.push_back(pass);
}

uint32_t
RingSchedule::Size() const
{
    return m_size;
}

RingSchedule::Place
RingSchedule::Locate(uint32_t op) const
{
    if (op == m_placedOp)
    {
        return m_placed;
    }
    uint32_t p = 0;
    while (p + 1 < m_passes.size() && m_passes[p + 1].firstOp <= op)
    {
        ++p;
    }
    const Pass& pass = m_passes[p];
    const uint32_t local = op - pass.firstOp;
    const uint32_t pair = local / 2;
    m_placed = Place{p, pair / pass.steps, pair % pass.steps, local % 2 == 1};
    m_placedOp = op;
    return m_placed;
}

uint32_t
RingSchedule::IndexOf(uint32_t pass, uint32_t chunk, uint32_t step, bool recv) const
{
    const Pass& p = m_passes[pass];
    return p.firstOp + (chunk * p.steps + step) * 2 + (recv ? 1 : 0);
}

MessageOp
RingSchedule::Op(uint32_t op) const
{
    const Place place = Locate(op);
    const Pass& pass = m_passes[place.pass];
    const uint32_t n = pass.n;
    const uint32_t k = pass.stepOffset + place.step;
    // Step k: send segment (p - k), receive segment (p - k - 1) (mod n).
    const uint32_t segment =
        place.recv ? (pass.position + 2 * n - k % n - 1) % n : (pass.position + 2 * n - k % n) % n;
    MessageOp message;
    message.send = !place.recv;
    message.peer = place.recv ? pass.left : pass.right;
    message.bytes = PartBytes(PartBytes(pass.bytes, pass.chunks, place.chunk), n, segment);
    message.tag = pass.tagBase + static_cast<int64_t>(place.chunk) * 2 * n + k;
    return message;
}

uint32_t
RingSchedule::DepCount(uint32_t op) const
{
    const Place place = Locate(op);
    if (place.recv)
    {
        return 0;
    }
    if (place.step > 0)
    {
        return 1;
    }
    return place.pass > 0 ? m_passes[place.pass - 1].chunks : 0;
}

uint32_t
RingSchedule::Dep(uint32_t op, uint32_t j) const
{
    const Place place = Locate(op);
    if (place.step > 0)
    {
        return IndexOf(place.pass, place.chunk, place.step - 1, true);
    }
    const Pass& previous = m_passes[place.pass - 1];
    return IndexOf(place.pass - 1, j, previous.steps - 1, true);
}

uint32_t
RingSchedule::DependentCount(uint32_t op) const
{
    const Place place = Locate(op);
    if (!place.recv)
    {
        return 0;
    }
    if (place.step + 1 < m_passes[place.pass].steps)
    {
        return 1;
    }
    return place.pass + 1 < m_passes.size() ? m_passes[place.pass + 1].chunks : 0;
}

uint32_t
RingSchedule::Dependent(uint32_t op, uint32_t j) const
{
    const Place place = Locate(op);
    if (place.step + 1 < m_passes[place.pass].steps)
    {
        return IndexOf(place.pass, place.chunk, place.step + 1, false);
    }
    return IndexOf(place.pass + 1, j, 0, false);
}

uint32_t
RingSchedule::NextRecv(uint32_t peer, int64_t tag, uint32_t after) const
{
    for (uint32_t p = 0; p < m_passes.size(); ++p)
    {
        const Pass& pass = m_passes[p];
        const int64_t perChunk = int64_t(2) * pass.n;
        if (peer != pass.left || tag < pass.tagBase || tag >= pass.tagBase + perChunk * pass.chunks)
        {
            continue;
        }
        const auto chunk = static_cast<uint32_t>((tag - pass.tagBase) / perChunk);
        const auto k = static_cast<uint32_t>((tag - pass.tagBase) % perChunk);
        if (k < pass.stepOffset || k >= pass.stepOffset + pass.steps)
        {
            continue;
        }
        const uint32_t op = IndexOf(p, chunk, k - pass.stepOffset, true);
        if (after == kNone || op > after)
        {
            return op;
        }
    }
    return kNone;
}

bool
RingSchedule::InitialSends(std::vector<uint32_t>& sends) const
{
    if (m_passes.empty())
    {
        return false;
    }
    // Receives wait for nothing (DepCount); a send waits for the receive of the step before,
    // or at step 0 for the previous pass: only the first pass's step-0 sends are free.
    const Pass& first = m_passes.front();
    for (uint32_t chunk = 0; chunk < first.chunks; ++chunk)
    {
        sends.push_back(IndexOf(0, chunk, 0, false));
    }
    return true;
}

} // namespace ns3
