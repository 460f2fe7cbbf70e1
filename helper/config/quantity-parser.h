/*
 * Quantities as users type them (flags, topology files, attribute values on the command line):
 * bandwidths, latencies, durations, byte sizes, whole and real numbers, each with its unit and
 * checked against bounds no real cluster passes.
 */
#ifndef CHAKRA_QUANTITY_PARSER_H
#define CHAKRA_QUANTITY_PARSER_H

#include "ns3/data-rate.h"
#include "ns3/nstime.h"

#include <cstdint>
#include <string>

namespace ns3
{

/**
 * \ingroup chakra-config
 * \brief Bounds of the quantities a cluster is described with.
 *
 * A value outside them is a typo or a unit mistake, not a cluster: a bare "100" taken as
 * 100 bit/s never ends, 1e18 bit/s overflows ns-3's DataRate arithmetic, a latency of hours
 * makes the RDMA switches' PFC headroom larger than any buffer.
 */
struct QuantityLimits
{
    static constexpr double kMinBitRate = 1e6;           //!< 1 Mbps
    static constexpr double kMaxBitRate = 1e14;          //!< 100 Tbps
    static constexpr int64_t kMaxLatencyNs = 1000000000; //!< 1 s: a link, not a WAN path
};

/**
 * Parses a bandwidth: a number, optional blanks, and a unit: bit/s as bps, b/s, bit/s (100Gbps,
 * 400Gb/s, 400 Gbit/s), bytes/s as Bps or B/s (25GB/s = 200 Gbps), or a bare prefix taken as
 * bit/s (100G). Prefixes k, M (also m: a rate has no milli), G, T, P in either case are powers
 * of 1000; Ki, Mi, Gi, Ti powers of 1024.
 * \param text what the user typed
 * \param what the flag or key, named in the error ("--nic-bandwidth", "file.yml: line 3: ...")
 * \param zeroAllowed whether "0" (any unit or none) is accepted (a "0: the default" value)
 * \return the rate, between QuantityLimits::kMinBitRate and kMaxBitRate (or zero)
 * \throws std::invalid_argument naming \p what: no unit, unknown unit, not a number, out of
 *         bounds
 */
DataRate ParseBandwidth(const std::string& text, const std::string& what, bool zeroAllowed = false);

/**
 * Parses a link latency: a number, optional blanks, and a unit (s, ms, us, ns, ps; 500ns,
 * "0.5 us"). A bare number is refused, except 0.
 * \param text what the user typed
 * \param what the flag or key, named in the error
 * \return the latency, from 0 to QuantityLimits::kMaxLatencyNs
 * \throws std::invalid_argument naming \p what
 */
Time ParseLatency(const std::string& text, const std::string& what);

/**
 * Parses a duration (a stop time): a number with a unit as ParseLatency, or a bare number of
 * seconds when \p bareSeconds.
 * \param text what the user typed
 * \param what the flag or key, named in the error
 * \param max the largest duration accepted
 * \param bareSeconds whether a number without unit means seconds
 * \return the duration (not negative)
 * \throws std::invalid_argument naming \p what
 */
Time ParseDuration(const std::string& text, const std::string& what, Time max, bool bareSeconds);

/**
 * Parses a byte size: a whole number and an optional unit (B; KB, MB, GB, TB powers of 1000;
 * KiB, MiB, GiB, TiB and K, M, G powers of 1024), e.g. 9000, 64KiB, 1 MiB.
 * \param text what the user typed
 * \param what the flag or key, named in the error
 * \param low the smallest size accepted
 * \param high the largest size accepted
 * \return the size in bytes
 * \throws std::invalid_argument naming \p what
 */
uint64_t ParseByteSize(const std::string& text,
                       const std::string& what,
                       uint64_t low,
                       uint64_t high);

/**
 * Parses a whole number in decimal (no sign, no exponent: "1e3" and "-1" are refused, as is
 * anything a wrap-around would turn into a huge count).
 * \param text what the user typed
 * \param what the flag or key, named in the error
 * \param low the smallest value accepted
 * \param high the largest value accepted
 * \return the value
 * \throws std::invalid_argument naming \p what and the range
 */
uint64_t ParseWholeNumber(const std::string& text,
                          const std::string& what,
                          uint64_t low,
                          uint64_t high);

/**
 * Parses a real number (finite; NaN and infinities are refused).
 * \param text what the user typed
 * \param what the flag or key, named in the error
 * \param low the smallest value accepted
 * \param high the largest value accepted
 * \param lowOpen whether \p low itself is refused (a value that must be positive)
 * \return the value
 * \throws std::invalid_argument naming \p what and the range
 */
double ParseRealNumber(const std::string& text,
                       const std::string& what,
                       double low,
                       double high,
                       bool lowOpen = false);

/**
 * Checks a bandwidth given as a value (an attribute, a file's number) against the bounds.
 * \param rate the rate
 * \param what what to name in the error
 * \param zeroAllowed whether zero (the default) is accepted
 * \throws std::invalid_argument naming \p what
 */
void CheckBandwidth(DataRate rate, const std::string& what, bool zeroAllowed = false);

/**
 * Checks a latency given as a value against the bounds (0 to QuantityLimits::kMaxLatencyNs).
 * \param latency the latency
 * \param what what to name in the error
 * \throws std::invalid_argument naming \p what
 */
void CheckLatency(Time latency, const std::string& what);

/** \return \p text without surrounding blanks (spaces and tabs), as the parsers read it */
std::string TrimBlanks(const std::string& text);

/** \return a rate as people write it: "400Gbps", "2.5Gbps", "100Mbps" */
std::string FormatBandwidth(DataRate rate);

/** \return a time as people write it: "500ns", "1.5us", "2ms", "0s" */
std::string FormatLatency(Time time);

} // namespace ns3

#endif // CHAKRA_QUANTITY_PARSER_H
