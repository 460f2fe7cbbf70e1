/*
 * Checks shared by the workload generators: one clear error per spec that makes no sense,
 * overflow-checked products, rank lists of process groups.
 */
#ifndef CHAKRA_WORKLOAD_SPEC_CHECK_H
#define CHAKRA_WORKLOAD_SPEC_CHECK_H

#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

namespace ns3
{
namespace workload
{

/** Most ranks a generated job may have. */
constexpr uint64_t MaxRanks = 1000000;

/**
 * \param condition what must hold
 * \param family the workload name, e.g. "moe" (start of the message)
 * \param message what is wrong
 * \throws std::invalid_argument "<family>: <message>" unless \p condition
 */
inline void
Require(bool condition, const std::string& family, const std::string& message)
{
    if (!condition)
    {
        throw std::invalid_argument(family + ": " + message);
    }
}

/**
 * \return a x b
 * \throws std::invalid_argument "<family>: <what> overflows" if it does not fit 64 bits
 */
inline uint64_t
CheckedProduct(uint64_t a, uint64_t b, const std::string& family, const std::string& what)
{
    Require(b == 0 || a <= std::numeric_limits<uint64_t>::max() / b,
            family,
            what + " (" + std::to_string(a) + " x " + std::to_string(b) + ") overflows 64 bits");
    return a * b;
}

/**
 * \return the number of ranks a x b of a job
 * \throws std::invalid_argument if it is 0 or above MaxRanks
 */
inline uint32_t
JobRanks(uint64_t a, uint64_t b, const std::string& family, const std::string& what)
{
    Require(a >= 1 && b >= 1, family, what + " must be at least 1");
    Require(a <= MaxRanks && b <= MaxRanks && a * b <= MaxRanks,
            family,
            what + " = " + std::to_string(a) + " x " + std::to_string(b) + " ranks is over " +
                std::to_string(MaxRanks));
    return static_cast<uint32_t>(a * b);
}

/** \return {first, first + stride, ..., first + (count - 1) * stride} */
inline std::vector<uint32_t>
RankRange(uint32_t first, uint32_t count, uint32_t stride)
{
    std::vector<uint32_t> ranks;
    ranks.reserve(count);
    for (uint32_t i = 0; i < count; ++i)
    {
        ranks.push_back(first + i * stride);
    }
    return ranks;
}

} // namespace workload
} // namespace ns3

#endif // CHAKRA_WORKLOAD_SPEC_CHECK_H
