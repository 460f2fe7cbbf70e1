/*
 * Labels the collective benches print in their tables (shared by collective-accuracy-bench and
 * flow-validation-bench, so that their rows compare by text).
 */
#ifndef CHAKRA_BENCH_LABELS_H
#define CHAKRA_BENCH_LABELS_H

#include "ns3/et-node.h"

#include <cstdint>
#include <string>

namespace chakra_bench
{

/** \return a size label: 64KiB, 1MiB, ... (bytes if not a whole number of KiB) */
inline std::string
SizeLabel(uint64_t bytes)
{
    const char* units[] = {"B", "KiB", "MiB", "GiB"};
    int unit = 0;
    while (unit < 3 && bytes >= 1024 && bytes % 1024 == 0)
    {
        bytes /= 1024;
        ++unit;
    }
    return std::to_string(bytes) + units[unit];
}

/** The collective's name as the tables print it. */
inline std::string
CollectiveLabel(ChakraProtoMsg::CollectiveCommType type)
{
    switch (type)
    {
    case ChakraProtoMsg::ALL_REDUCE:
        return "all-reduce";
    case ChakraProtoMsg::ALL_GATHER:
        return "all-gather";
    case ChakraProtoMsg::REDUCE_SCATTER:
        return "reduce-scatter";
    case ChakraProtoMsg::ALL_TO_ALL:
        return "all-to-all";
    case ChakraProtoMsg::BROADCAST:
        return "broadcast";
    default:
        return ns3::CommTypeName(type);
    }
}

} // namespace chakra_bench

#endif
