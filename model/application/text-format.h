/*
 * Number formatting shared by the report, the timeline and the replay validation.
 */
#ifndef CHAKRA_TEXT_FORMAT_H
#define CHAKRA_TEXT_FORMAT_H

#include "ns3/nstime.h"

#include <cstdint>
#include <cstdio>
#include <string>

namespace ns3
{

/** \return \p value with \p digits decimals ("%.*f") */
inline std::string
FormatFixed(double value, int digits)
{
    char buffer[64];
    std::snprintf(buffer, sizeof(buffer), "%.*f", digits, value);
    return buffer;
}

/** \return \p bytes in megabytes (10^6 bytes) with 3 decimals, as the fabric tables show them */
inline std::string
FormatMegabytes(uint64_t bytes)
{
    return FormatFixed(static_cast<double>(bytes) / 1e6, 3);
}

/** \return a time in microseconds with nanosecond precision ("12.345") */
inline std::string
FormatMicros(Time t)
{
    const int64_t nanos = t.GetNanoSeconds();
    // Below 2^49 ns (6.5 days) the double nanos / 1e3 is within 2^-53 of it relatively, under
    // 7e-5 us, far less than the half nanosecond that would change a digit: "%.3f" prints the
    // exact quotient, written here from the integer without printf (the report writes one per
    // operation and rank).
    constexpr int64_t kExact = int64_t{1} << 49;
    if (nanos <= -kExact || nanos >= kExact)
    {
        return FormatFixed(static_cast<double>(nanos) / 1e3, 3);
    }
    uint64_t magnitude = nanos < 0 ? static_cast<uint64_t>(-nanos) : static_cast<uint64_t>(nanos);
    char buffer[32];
    char* end = buffer + sizeof(buffer);
    char* p = end;
    for (int i = 0; i < 3; ++i)
    {
        *--p = static_cast<char>('0' + magnitude % 10);
        magnitude /= 10;
    }
    *--p = '.';
    do
    {
        *--p = static_cast<char>('0' + magnitude % 10);
        magnitude /= 10;
    } while (magnitude != 0);
    if (nanos < 0)
    {
        *--p = '-';
    }
    return std::string(p, end);
}

} // namespace ns3

#endif // CHAKRA_TEXT_FORMAT_H
