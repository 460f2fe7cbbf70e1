#include "gradient-bucketer.h"

#include <limits>
#include <stdexcept>
#include <utility>

namespace ns3
{

GradientBucketer::GradientBucketer(RankTraceBuilder& trace,
                                   std::string pg,
                                   std::string namePrefix,
                                   uint64_t bucketBytes,
                                   uint64_t firstBucketBytes,
                                   int64_t stream,
                                   ChakraProtoMsg::CollectiveCommType type)
    : m_trace(trace),
      m_pg(std::move(pg)),
      m_namePrefix(std::move(namePrefix)),
      m_bucketBytes(bucketBytes),
      m_firstBucketBytes(firstBucketBytes == 0 ? bucketBytes : firstBucketBytes),
      m_stream(stream),
      m_type(type)
{
}

void
GradientBucketer::Add(uint64_t bytes, uint64_t ready)
{
    if (bytes > std::numeric_limits<uint64_t>::max() - m_open)
    {
        throw std::invalid_argument("gradient bucket '" + m_namePrefix +
                                    std::to_string(m_sizes.size()) + "' is larger than 2^64 bytes");
    }
    m_open += bytes;
    ++m_openGradients;
    m_lastReady = ready;
    const uint64_t limit = m_sizes.empty() ? m_firstBucketBytes : m_bucketBytes;
    if (m_open >= limit)
    {
        Close();
    }
}

void
GradientBucketer::Flush()
{
    if (m_openGradients > 0)
    {
        Close();
    }
}

void
GradientBucketer::Close()
{
    std::vector<uint64_t> deps = {m_lastReady};
    if (m_last)
    {
        deps.push_back(*m_last); // buckets are reduced in order on one stream
    }
    m_last = m_trace.Collective(m_namePrefix + std::to_string(m_sizes.size()),
                                m_type,
                                m_open,
                                deps,
                                m_pg,
                                m_stream);
    m_sizes.push_back(m_open);
    m_open = 0;
    m_openGradients = 0;
}

std::optional<uint64_t>
GradientBucketer::GetLast() const
{
    return m_last;
}

const std::vector<uint64_t>&
GradientBucketer::GetBucketSizes() const
{
    return m_sizes;
}

} // namespace ns3
