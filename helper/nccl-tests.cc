#include "nccl-tests.h"

#include "ns3/log.h"
#include "ns3/nccl-tuning.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("NcclTests");

namespace
{

/** nccl-tests' data types (-d) and their sizes. */
const std::vector<std::pair<std::string, uint32_t>>&
Types()
{
    static const std::vector<std::pair<std::string, uint32_t>> types = {{"int8", 1},
                                                                        {"uint8", 1},
                                                                        {"int32", 4},
                                                                        {"uint32", 4},
                                                                        {"int64", 8},
                                                                        {"uint64", 8},
                                                                        {"half", 2},
                                                                        {"float", 4},
                                                                        {"double", 8},
                                                                        {"bfloat16", 2},
                                                                        {"f8e4m3", 1},
                                                                        {"f8e5m2", 1}};
    return types;
}

const std::vector<std::string>&
Ops()
{
    static const std::vector<std::string> ops = {"sum", "prod", "max", "min", "avg", "mulsum"};
    return ops;
}

} // namespace

const std::vector<NcclTestsCollective>&
NcclTestsCollectives()
{
    using namespace ChakraProtoMsg;
    // name, type, pointToPoint, splitOverRanks, rooted, reduces, busFactorNumerator
    static const std::vector<NcclTestsCollective> collectives = {
        {"all_reduce", ALL_REDUCE, false, false, false, true, 2},
        {"all_gather", ALL_GATHER, false, true, false, false, 1},
        {"reduce_scatter", REDUCE_SCATTER, false, true, false, true, 1},
        {"alltoall", ALL_TO_ALL, false, true, false, false, 1},
        {"broadcast", BROADCAST, false, false, true, false, 0},
        {"reduce", REDUCE, false, false, true, true, 0},
        // nccl-tests prints sendrecv's -o in the redop column, though nothing is reduced.
        {"sendrecv", ALL_REDUCE, true, false, false, true, 0},
    };
    return collectives;
}

const NcclTestsCollective&
FindNcclTestsCollective(const std::string& name)
{
    std::string key = NcclLower(name);
    std::replace(key.begin(), key.end(), '-', '_');
    const std::string suffix = "_perf";
    if (key.size() > suffix.size() &&
        key.compare(key.size() - suffix.size(), suffix.size(), suffix) == 0)
    {
        key.resize(key.size() - suffix.size());
    }
    std::vector<std::string> names;
    for (const auto& collective : NcclTestsCollectives())
    {
        if (collective.name == key)
        {
            return collective;
        }
        names.push_back(collective.name);
    }
    throw std::invalid_argument("unknown collective '" + name + "' (nccl-tests' are " +
                                NcclJoinNames(names) + ")");
}

uint32_t
NcclTestsTypeSize(const std::string& name)
{
    std::vector<std::string> names;
    for (const auto& [type, size] : Types())
    {
        if (type == name)
        {
            return size;
        }
        names.push_back(type);
    }
    if (name == "all")
    {
        throw std::invalid_argument("-d/--datatype all: one data type per run here (the type "
                                    "only sets the count column; give one of " +
                                    NcclJoinNames(names) + ")");
    }
    throw std::invalid_argument("-d/--datatype: unknown data type '" + name +
                                "' (nccl-tests' are " + NcclJoinNames(names) + ")");
}

void
CheckNcclTestsOp(const std::string& name)
{
    if (std::find(Ops().begin(), Ops().end(), name) != Ops().end())
    {
        return;
    }
    if (name == "all")
    {
        throw std::invalid_argument("-o/--op all: one operation per run here (give one of " +
                                    NcclJoinNames(Ops()) + ")");
    }
    throw std::invalid_argument("-o/--op: unknown operation '" + name + "' (nccl-tests' are " +
                                NcclJoinNames(Ops()) + ")");
}

uint64_t
ParseNcclTestsSize(const std::string& text, const std::string& flag)
{
    const std::string value = NcclTrim(text);
    const std::string bad =
        flag + ": '" + text + "' is not a size (bytes, or a number with K, M or G: 8, 64K, 1M, 8G)";
    if (value.empty() || value[0] == '-' || value[0] == '+')
    {
        throw std::invalid_argument(bad);
    }
    char* end = nullptr;
    const double number = std::strtod(value.c_str(), &end);
    std::string unit = NcclLower(NcclTrim(end));
    if (end == value.c_str() || !std::isfinite(number) || number < 0)
    {
        throw std::invalid_argument(bad);
    }
    double scale = 1;
    if (!unit.empty() && (unit[0] == 'k' || unit[0] == 'm' || unit[0] == 'g'))
    {
        scale = unit[0] == 'k' ? 1024.0 : unit[0] == 'm' ? 1024.0 * 1024 : 1024.0 * 1024 * 1024;
        unit.erase(0, 1);
        if (unit == "b" || unit == "ib")
        {
            unit.clear();
        }
    }
    else if (unit == "b")
    {
        unit.clear();
    }
    if (!unit.empty())
    {
        throw std::invalid_argument(bad);
    }
    const double bytes = std::floor(number * scale);
    if (bytes > 1099511627776.0) // 1 TiB: beyond it a trace's comm_size or a run is absurd
    {
        throw std::invalid_argument(flag + ": " + text + " is above 1T (1 TiB)");
    }
    return static_cast<uint64_t>(bytes);
}

std::vector<uint64_t>
NcclTestsSizes(uint64_t minBytes,
               uint64_t maxBytes,
               uint64_t stepFactor,
               uint64_t stepBytes,
               std::size_t maxRows)
{
    if (minBytes > maxBytes)
    {
        throw std::invalid_argument("-b/--minbytes " + std::to_string(minBytes) +
                                    " is above -e/--maxbytes " + std::to_string(maxBytes));
    }
    if (stepFactor > 1 && minBytes == 0)
    {
        throw std::invalid_argument("-b/--minbytes 0 with -f/--stepfactor " +
                                    std::to_string(stepFactor) +
                                    ": the sweep would never grow (start at 1 byte or more)");
    }
    if (stepFactor <= 1 && stepBytes == 0 && minBytes < maxBytes)
    {
        throw std::invalid_argument("-i/--stepbytes 0: the sweep would never grow");
    }
    std::vector<uint64_t> sizes;
    uint64_t size = minBytes;
    while (size <= maxBytes)
    {
        if (sizes.size() == maxRows)
        {
            throw std::invalid_argument("the sweep from -b " + std::to_string(minBytes) +
                                        " to -e " + std::to_string(maxBytes) + " has more than " +
                                        std::to_string(maxRows) + " sizes: take a larger -f or -i");
        }
        sizes.push_back(size);
        const uint64_t next = stepFactor > 1 ? size * stepFactor : size + stepBytes;
        if (next <= size) // a step of 0 bytes (minBytes == maxBytes) or an overflow: the end
        {
            break;
        }
        size = next;
    }
    return sizes;
}

NcclTestsRowShape
NcclTestsShape(const NcclTestsCollective& collective,
               uint64_t size,
               uint32_t typeSize,
               uint32_t ranks)
{
    NcclTestsRowShape shape;
    const uint64_t elements = size / typeSize;
    if (!collective.splitOverRanks)
    {
        shape.count = elements;
        shape.sizeBytes = elements * typeSize;
        shape.commSize = shape.sizeBytes;
        return shape;
    }
    // Each rank's part, rounded down to a multiple of 16 bytes (16 / typeSize elements).
    const uint64_t alignment = 16 / typeSize;
    shape.count = (elements / ranks) / alignment * alignment;
    shape.sizeBytes = shape.count * ranks * typeSize;
    // comm_size: all-gather takes one rank's part; reduce-scatter and all-to-all the whole
    // input (CollectiveRequest).
    shape.commSize =
        collective.type == ChakraProtoMsg::ALL_GATHER ? shape.count * typeSize : shape.sizeBytes;
    return shape;
}

NcclTestsBandwidth
NcclTestsBandwidths(const NcclTestsCollective& collective,
                    uint64_t count,
                    uint32_t typeSize,
                    double seconds,
                    uint32_t ranks)
{
    NcclTestsBandwidth bandwidth;
    if (seconds <= 0)
    {
        return bandwidth;
    }
    double bytes = static_cast<double>(count) * typeSize;
    if (collective.splitOverRanks)
    {
        bytes *= ranks;
    }
    bandwidth.algBw = bytes / 1e9 / seconds;
    const double factor =
        collective.busFactorNumerator == 0
            ? 1.0
            : static_cast<double>(collective.busFactorNumerator) * (ranks - 1) / ranks;
    bandwidth.busBw = bandwidth.algBw * factor;
    return bandwidth;
}

std::string
FormatNcclTestsNumber(double value, int width)
{
    char text[64];
    for (int decimals : {2, 1, 0})
    {
        if (std::snprintf(text, sizeof(text), "%*.*f", width, decimals, value) <= width)
        {
            return text;
        }
    }
    std::snprintf(text, sizeof(text), "%*.*e", width, width >= 7 ? 1 : 0, value);
    return text;
}

std::optional<NcclFunction>
NcclTestsFunction(const NcclTestsCollective& collective)
{
    using namespace ChakraProtoMsg;
    if (collective.pointToPoint)
    {
        return std::nullopt;
    }
    switch (collective.type)
    {
    case ALL_REDUCE:
        return NcclFunction::ALL_REDUCE;
    case ALL_GATHER:
        return NcclFunction::ALL_GATHER;
    case REDUCE_SCATTER:
        return NcclFunction::REDUCE_SCATTER;
    case BROADCAST:
        return NcclFunction::BROADCAST;
    case REDUCE:
        return NcclFunction::REDUCE;
    default:
        return std::nullopt; // all-to-all: grouped point-to-point in NCCL
    }
}

std::string
NcclAlgoAlgorithm(const std::string& value, const NcclTestsCollective& collective)
{
    NS_LOG_FUNCTION(value << collective.name);
    // NCCL's reading of the variable (model/collective/nccl-tuning.h), for every function:
    // whichever function an entry is for, it must name one algorithm the simulation has.
    std::string chosen;
    const auto wanted = NcclTestsFunction(collective);
    for (int f = 0; f <= static_cast<int>(NcclFunction::ALL_REDUCE); ++f)
    {
        const auto function = static_cast<NcclFunction>(f);
        const auto list = ParseNcclList("NCCL_ALGO", value, NcclAlgoNames(), function);
        std::vector<std::string> enabled;
        bool said = false;
        for (std::size_t a = 0; a < list.size(); ++a)
        {
            said = said || list[a].has_value();
            if (list[a].value_or(false))
            {
                enabled.push_back(NcclAlgoNames()[a]);
            }
        }
        if (!said)
        {
            continue;
        }
        if (enabled.size() != 1)
        {
            throw std::invalid_argument(
                "NCCL_ALGO=" + value + ": " + NcclFunctionName(function) +
                (enabled.empty() ? " is left no algorithm"
                                 : " is left several algorithms, a choice for NCCL's tuning "
                                   "model, but a simulated run uses one") +
                ": name one (Ring or Tree)");
        }
        const std::string name = NcclLower(enabled.front());
        if (name == "nvls" || name == "nvlstree" || name == "collnetdirect" ||
            name == "collnetchain" || name == "pat")
        {
            throw std::invalid_argument("NCCL_ALGO=" + value + ": " + enabled.front() +
                                        " runs in the NCCL model only: add --algorithm nccl "
                                        "(there is no textbook " +
                                        enabled.front() + " algorithm)");
        }
        if (wanted && *wanted == function)
        {
            chosen = name;
        }
    }
    // NCCL runs all-to-all and send/receive as point-to-point operations, outside NCCL_ALGO.
    return chosen;
}

void
CheckNcclProto(const std::string& value)
{
    NS_LOG_FUNCTION(value);
    for (int f = 0; f <= static_cast<int>(NcclFunction::ALL_REDUCE); ++f)
    {
        ParseNcclList("NCCL_PROTO", value, NcclProtoNames(), static_cast<NcclFunction>(f));
    }
}

} // namespace ns3
