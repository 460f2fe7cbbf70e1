#include "op-alignment.h"

#include <algorithm>
#include <tuple>

namespace ns3
{

OpAligner::OpAligner(const OpSequence& host, const OpSequence& device, uint32_t window)
    : m_host(host),
      m_device(device),
      m_window(window),
      m_used(device.names.size(), 0)
{
    for (uint32_t k = 0; k < device.names.size(); ++k)
    {
        m_positions[device.names[k]].push_back(k);
    }
}

std::vector<int64_t>
OpAligner::CandidateOffsets(uint32_t leadOps) const
{
    std::vector<int64_t> offsets;
    uint32_t anchors = 0;
    for (std::size_t m = 0; m < m_host.names.size() && anchors < leadOps; ++m)
    {
        auto it = m_positions.find(m_host.names[m]);
        if (m_host.names[m] == OpSequence::kNoMatch || it == m_positions.end())
        {
            continue;
        }
        ++anchors;
        for (uint32_t k : it->second)
        {
            offsets.push_back(static_cast<int64_t>(k) - static_cast<int64_t>(m));
        }
    }
    std::sort(offsets.begin(), offsets.end());
    offsets.erase(std::unique(offsets.begin(), offsets.end()), offsets.end());
    return offsets;
}

AlignmentScore
OpAligner::Score(int64_t offset, std::size_t limit, std::vector<int32_t>* match)
{
    if (++m_stamp == 0)
    {
        std::fill(m_used.begin(), m_used.end(), 0);
        m_stamp = 1;
    }
    AlignmentScore score;
    score.offset = offset;
    const std::size_t hostOps = std::min(limit, m_host.names.size());
    const int64_t deviceOps = static_cast<int64_t>(m_device.names.size());
    if (match != nullptr)
    {
        match->assign(m_host.names.size(), -1);
    }
    int64_t expected = offset;
    for (std::size_t i = 0; i < hostOps; ++i)
    {
        const uint32_t name = m_host.names[i];
        if (expected < 0)
        {
            // The offset says this op precedes the device trace's first op.
            ++expected;
            continue;
        }
        if (name == OpSequence::kNoMatch || expected >= deviceOps + m_window)
        {
            continue;
        }
        // The nearest op of that name around the expected index (ahead on a tie).
        int64_t found = -1;
        const int64_t last = std::min<int64_t>(expected + m_window, deviceOps - 1);
        for (int64_t k = expected; k <= last; ++k)
        {
            if (m_device.names[k] == name && m_used[k] != m_stamp)
            {
                found = k;
                break;
            }
        }
        const int64_t ahead = found < 0 ? m_window + 1 : found - expected;
        const int64_t first =
            std::max<int64_t>(expected - std::min<int64_t>(ahead - 1, m_window), 0);
        for (int64_t k = std::min(expected, deviceOps) - 1; k >= first; --k)
        {
            if (m_device.names[k] == name && m_used[k] != m_stamp)
            {
                found = k;
                break;
            }
        }
        if (found < 0)
        {
            continue; // missing on the device side: keep expecting the same position
        }
        m_used[found] = m_stamp;
        ++score.matched;
        if (score.firstMatch < 0 || found < score.firstMatch)
        {
            score.firstMatch = found;
        }
        score.lastMatch = std::max(score.lastMatch, found);
        if (found >= expected)
        {
            score.skipped += static_cast<uint32_t>(found - expected);
            expected = found + 1;
        }
        const int64_t hostSeq = m_host.sequenceNumbers[i];
        if (hostSeq != OpSequence::kNone && hostSeq >= 0 &&
            m_device.sequenceNumbers[found] == hostSeq)
        {
            ++score.seqAgree;
        }
        const int64_t hostId = m_host.ids[i];
        if (hostId != OpSequence::kNone && hostId > 0 && m_device.ids[found] == hostId)
        {
            ++score.idAgree;
        }
        if (match != nullptr)
        {
            (*match)[i] = static_cast<int32_t>(found);
        }
    }
    return score;
}

std::vector<AlignmentScore>
OpAligner::Search(uint32_t leadOps, std::size_t prefix, std::size_t keep)
{
    std::vector<AlignmentScore> firstRound;
    for (int64_t offset : CandidateOffsets(leadOps))
    {
        firstRound.push_back(Score(offset, prefix, nullptr));
    }
    auto better = [](const AlignmentScore& a, const AlignmentScore& b) {
        return std::make_tuple(a.matched, a.seqAgree, a.idAgree, b.skipped, b.offset) >
               std::make_tuple(b.matched, b.seqAgree, b.idAgree, a.skipped, a.offset);
    };
    std::sort(firstRound.begin(), firstRound.end(), better);
    if (firstRound.size() > keep)
    {
        firstRound.resize(keep);
    }
    std::vector<AlignmentScore> full;
    full.reserve(firstRound.size());
    for (const auto& candidate : firstRound)
    {
        full.push_back(Score(candidate.offset, m_host.names.size(), nullptr));
    }
    return full;
}

} // namespace ns3
