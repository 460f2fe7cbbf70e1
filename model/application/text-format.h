/*
 * Number formatting shared by the report, the timeline and the replay validation.
 */
#ifndef CHAKRA_TEXT_FORMAT_H
#define CHAKRA_TEXT_FORMAT_H

#include "ns3/nstime.h"

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

/** \return a time in microseconds with nanosecond precision ("12.345") */
inline std::string
FormatMicros(Time t)
{
    return FormatFixed(static_cast<double>(t.GetNanoSeconds()) / 1e3, 3);
}

} // namespace ns3

#endif // CHAKRA_TEXT_FORMAT_H
