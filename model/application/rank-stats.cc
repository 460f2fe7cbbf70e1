#include "rank-stats.h"

#include "ns3/log.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RankStatsRecorder");

namespace
{

/** Merges intervals into a sorted list of disjoint ones. */
std::vector<std::pair<Time, Time>>
Merge(std::vector<std::pair<Time, Time>> intervals)
{
    std::sort(intervals.begin(), intervals.end());
    std::vector<std::pair<Time, Time>> merged;
    for (const auto& interval : intervals)
    {
        if (!merged.empty() && interval.first <= merged.back().second)
        {
            merged.back().second = std::max(merged.back().second, interval.second);
        }
        else
        {
            merged.push_back(interval);
        }
    }
    return merged;
}

Time
Total(const std::vector<std::pair<Time, Time>>& merged)
{
    Time total;
    for (const auto& [start, end] : merged)
    {
        total += end - start;
    }
    return total;
}

/** Length of a \ b for two merged interval lists. */
Time
Uncovered(const std::vector<std::pair<Time, Time>>& a, const std::vector<std::pair<Time, Time>>& b)
{
    Time covered;
    std::size_t j = 0;
    for (const auto& [start, end] : a)
    {
        while (j < b.size() && b[j].second <= start)
        {
            ++j;
        }
        for (std::size_t k = j; k < b.size() && b[k].first < end; ++k)
        {
            covered += std::min(end, b[k].second) - std::max(start, b[k].first);
        }
    }
    return Total(a) - covered;
}

} // namespace

void
RankStatsRecorder::SetRank(uint32_t rank)
{
    NS_LOG_FUNCTION(this << rank);
    m_stats.rank = rank;
}

void
RankStatsRecorder::SetTrainingStep(double modelFlops, uint64_t tokens, double gpuPeakFlops)
{
    NS_LOG_FUNCTION(this << modelFlops << tokens << gpuPeakFlops);
    m_stats.stepModelFlops = modelFlops;
    m_stats.stepTokens = tokens;
    m_stats.gpuPeakFlops = gpuPeakFlops;
}

namespace
{

/**
 * Appends [start, end] to \p intervals, or widens the last interval when the two overlap or
 * touch. Their union, all the summary reads, is the same; a stream's back-to-back kernels
 * then take one entry instead of one each (a rank of a large LLM step kept ~80 KB of them).
 */
void
AddInterval(std::vector<std::pair<Time, Time>>& intervals, Time start, Time end)
{
    if (!intervals.empty() && start <= intervals.back().second && end >= intervals.back().first)
    {
        intervals.back().first = std::min(intervals.back().first, start);
        intervals.back().second = std::max(intervals.back().second, end);
        return;
    }
    intervals.emplace_back(start, end);
}

} // namespace

void
RankStatsRecorder::AddCompute(Time start, Time end)
{
    NS_LOG_FUNCTION(this << start << end);
    AddInterval(m_computeIntervals, start, end);
}

void
RankStatsRecorder::AddCommunication(Time start, Time end, CommCategory category)
{
    NS_LOG_FUNCTION(this << start << end << category);
    AddInterval(m_commIntervals[static_cast<std::size_t>(category)], start, end);
}

void
RankStatsRecorder::CountNode()
{
    NS_LOG_FUNCTION(this);
    ++m_stats.nodes;
}

void
RankStatsRecorder::AddCommRecord(const CommRecord& record)
{
    NS_LOG_FUNCTION(this << record.nodeId);
    m_commRecords->push_back(record);
}

void
RankStatsRecorder::CountUnrecordedP2p()
{
    NS_LOG_FUNCTION(this);
    ++m_stats.unrecordedP2p;
}

bool
RankStatsRecorder::HasCommunicated() const
{
    return !m_commRecords->empty() || m_stats.unrecordedP2p > 0;
}

const std::vector<CommRecord>&
RankStatsRecorder::GetCommRecords() const
{
    return *m_commRecords;
}

std::shared_ptr<const std::vector<CommRecord>>
RankStatsRecorder::ShareCommRecords() const
{
    return m_commRecords;
}

void
RankStatsRecorder::AddWarning(const std::string& message)
{
    NS_LOG_FUNCTION(this << message);
    m_stats.warnings.push_back(message);
}

void
RankStatsRecorder::SetError(const std::string& message)
{
    NS_LOG_FUNCTION(this << message);
    m_stats.error = message;
}

const std::string&
RankStatsRecorder::GetError() const
{
    return m_stats.error;
}

void
RankStatsRecorder::SetFinished(Time time)
{
    NS_LOG_FUNCTION(this << time);
    m_stats.finished = true;
    m_stats.finishTime = time;
}

void
RankStatsRecorder::AddSizelessNode(uint64_t nodeId)
{
    NS_LOG_FUNCTION(this << nodeId);
    // Named in one warning at the end, with the count: one line per trace, not per node.
    constexpr std::size_t kListed = 10;
    if (m_sizelessIds.size() < kListed)
    {
        m_sizelessIds.push_back(nodeId);
    }
    ++m_sizelessNodes;
}

RankStats
RankStatsRecorder::Summarize(const std::string& tracePath) const
{
    NS_LOG_FUNCTION(this << tracePath);
    RankStats stats = m_stats;
    if (m_sizelessNodes > 0)
    {
        std::string ids;
        for (uint64_t id : m_sizelessIds)
        {
            ids += (ids.empty() ? "" : ", ") + std::to_string(id);
        }
        if (m_sizelessNodes > m_sizelessIds.size())
        {
            ids += " and " + std::to_string(m_sizelessNodes - m_sizelessIds.size()) + " more";
        }
        // First among the warnings: the report shows each rank's first one.
        stats.warnings.insert(
            stats.warnings.begin(),
            tracePath + ": " + std::to_string(m_sizelessNodes) +
                " communication node(s) without comm_size ran as 0 bytes: " + "node(s) " + ids +
                " (MissingCommSize=error, or --strict, makes it an error)");
    }
    auto compute = Merge(m_computeIntervals);
    std::vector<std::pair<Time, Time>> all;
    for (const auto& intervals : m_commIntervals)
    {
        all.insert(all.end(), intervals.begin(), intervals.end());
    }
    auto comm = Merge(all);
    stats.computeBusy = Total(compute);
    stats.commTime = Total(comm);
    stats.exposedComm = Uncovered(comm, compute);
    // Each category gets what no compute and no earlier category covers.
    auto covered = compute;
    for (CommCategory category : kCommCategories)
    {
        const auto index = static_cast<std::size_t>(category);
        if (m_commIntervals[index].empty())
        {
            continue;
        }
        auto mine = Merge(m_commIntervals[index]);
        stats.exposedByCategory[index] = Uncovered(mine, covered);
        covered.insert(covered.end(), mine.begin(), mine.end());
        covered = Merge(std::move(covered));
    }
    return stats;
}

} // namespace ns3
