#include "nccl-tuning.h"

#include "nvls-schedule.h"

#include "ns3/log.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("NcclTuning");

namespace
{

constexpr int kFunctions = 5;
constexpr int kAlgorithms = 2; // Tree, Ring (NCCL's first two): the tables below
constexpr int kModelled = 7;   // and CollNetDirect, CollNetChain, NVLS, NVLSTree, PAT
constexpr int kProtocols = 3;

/*
 * The constants of NCCL 2.30.7's tuning (src/graph/tuning.cc), restated per
 * [algorithm: Tree, Ring][protocol: LL, LL128, Simple]; latencies in us, bandwidths in GB/s.
 */
constexpr double kBaseLatency[kAlgorithms][kProtocols] = {{6.8, 14.0, 8.4}, {6.6, 14.0, 8.4}};

/** NVLS Simple's NVLink latency (hwLatencies[NVLINK][NVLS][SIMPLE]); its base latency is 0. */
constexpr double kNvlsHopLatency = 25.0;

/** NVLSTree Simple's network latency per tree hop (hwLatencies[NET][NVLS_TREE][SIMPLE]). */
constexpr double kNvlsTreeNetLatency = 20.9;

/** NVLS Simple's network latency across hosts (hwLatencies[NET][NVLS][SIMPLE]), with SHARP. */
constexpr double kNvlsNetLatency = 18.0;

/** NVLSTree's per-channel bandwidth cap (perChMaxNVLSTreeBws), [Hopper, Blackwell][2, >2 nodes]. */
constexpr double kNvlsTreeMaxPerChannel[2][2] = {{57.7, 45.5}, {96.0, 80.0}};

/** CollNet's Simple latencies (hwLatencies; base 0), [Direct, Chain][NVLink, PCI, network]. */
constexpr double kCollNetHopLatency[2][3] = {{3.7, 3.7, 31.0}, {2.8, 2.8, 30.0}};

/** CollNetDirect's serialization per extra GPU of a host (its arity), us. */
constexpr double kCollNetArityLatency = 0.4;

/** PAT Simple's base latency (baseLatencies[PAT]), us. */
constexpr double kPatBaseLatency = 8.0;

/** PAT's per-rank latency (the linear part NCCL's model keeps), us. */
constexpr double kPatRankLatency = 2.8;

/** PAT's network hop is NCCL's interLat over this (its logarithmic part). */
constexpr double kPatHopDivisor = 3.5;

/** The most GPUs a host may have for CollNet (NCCL_MAX_DIRECT_ARITY + 1). */
constexpr int kCollNetMaxLocalRanks = 8;

/** Per-hop latency: [link kind: NVLink, PCI, network][algorithm][protocol]. */
enum LinkKind
{
    NVLINK = 0,
    PCI = 1,
    NET = 2,
};

constexpr double kHopLatency[3][kAlgorithms][kProtocols] = {
    {{0.6, 1.25, 4.0}, {0.6, 1.9, 3.4}},
    {{1.0, 1.9, 4.0}, {1.0, 2.5, 5.7}},
    {{5.0, 8.5, 14.0}, {2.7, 4.0, 14.0}},
};

/** LL's bandwidth cap: [one node: the GPU generation; several: Intel, AMD host][1, 2, >2 nodes]. */
constexpr double kLlMaxBandwidth[4][3] = {
    {39.0, 39.0, 20.4},
    {87.7, 22.5, 19.0},
    {141.0, 45.0, 35.0},
    {282.0, 90.0, 70.0},
};

/** Per-channel caps, [generation][1, 2, >2 nodes]. */
constexpr double kRingLl128MaxPerChannel[4][3] = {
    {20.0, 20.0, 20.0},
    {20.0, 20.0, 20.0},
    {36.7, 36.7, 36.7},
    {40.0, 40.0, 40.0},
};
constexpr double kTreeLl128MaxPerChannel[4][3] = {
    {20.0, 20.0, 20.0},
    {20.0, 20.0, 20.0},
    {36.7, 36.7, 29.0},
    {55.6, 31.67, 20.0},
};
constexpr double kTreeMaxPerChannel[4][3] = {
    {26.5, 18.5, 10.0},
    {24.0, 23.6, 17.8},
    {38.7, 41.4, 36.0},
    {70.0, 42.8, 24.0},
};

/**
 * Tree all-reduce's bandwidth factor by size, [protocol][log2(bytes / 64)] for 64 B to 256 MiB
 * (src/graph/tuning.cc's correction of medium sizes); 1 outside.
 */
constexpr double kTreeCorrection[kProtocols][23] = {
    {1.0, 1.0, 1.0, 1.0, .9, .8, .7, .7,  .7,  .7,  .6, .5,
     .4,  .4,  .5,  .6,  .7, .8, .9, 1.0, 1.0, 1.0, 1.0},
    {1.0, 1.0, 1.0, 1.0, 1.0, .9, .8, .8, .8, .7,  .6, .6,
     .6,  .6,  .6,  .6,  .8,  .9, .9, .9, .9, 1.0, 1.0},
    {.9, .9, .9, .9, .9, .9, .9, .8, .7, .6, .6, .5, .5, .5, .5, .6, .7, .8, .7, .7, .8, .9, .9},
};

std::vector<std::string>
Split(const std::string& text, char separator)
{
    std::vector<std::string> parts;
    std::string::size_type start = 0;
    while (true)
    {
        const auto end = text.find(separator, start);
        parts.push_back(NcclTrim(text.substr(start, end - start)));
        if (end == std::string::npos)
        {
            return parts;
        }
        start = end + 1;
    }
}

/** floor(log2(n)), -1 for 0 (NCCL's log2i). */
int
Log2Down(uint64_t n)
{
    int result = -1;
    while (n != 0)
    {
        n >>= 1;
        ++result;
    }
    return result;
}

/** The caps NCCL's model puts on Tree's and Ring's bus bandwidth, for one machine (GB/s). */
struct BusCaps
{
    double channels;
    double llMax;        //!< LL's, for all the channels
    double ringLl128Max; //!< a ring channel's, LL128
    double treeMax;      //!< a tree channel's
    double treeLl128Max; //!< a tree channel's, LL128
    bool oneNode;
};

/**
 * NCCL's bus bandwidth for Tree or Ring with a protocol, when each channel's links carry
 * \p perChannel GB/s (src/graph/tuning.cc): Ring LL min(llMax, bus / 2), LL128 min(0.92 bus,
 * channels x its cap); Tree min(0.92 bus, channels x its cap), then LL min(that / 3.8, llMax),
 * LL128 min(that x (7/9 on one node, else 120/128), channels x its LL128 cap).
 */
double
BusBandwidth(double perChannel, bool tree, NcclProtocol protocol, const BusCaps& caps)
{
    double bus = caps.channels * perChannel;
    if (!tree)
    {
        if (protocol == NcclProtocol::LL)
        {
            bus = std::min(caps.llMax, bus * 0.5);
        }
        if (protocol == NcclProtocol::LL128)
        {
            bus = std::min(bus * 0.92, caps.channels * caps.ringLl128Max);
        }
        return bus;
    }
    bus = std::min(bus * 0.92, caps.channels * caps.treeMax);
    if (protocol == NcclProtocol::LL)
    {
        bus = std::min(bus / 3.8, caps.llMax);
    }
    if (protocol == NcclProtocol::LL128)
    {
        bus = std::min(bus * (caps.oneNode ? 7.0 / 9.0 : 120.0 / 128.0),
                       caps.channels * caps.treeLl128Max);
    }
    return bus;
}

} // namespace

std::string
NcclLower(std::string text)
{
    std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) {
        return static_cast<char>(std::tolower(c));
    });
    return text;
}

std::string
NcclJoinNames(const std::vector<std::string>& names)
{
    std::string text;
    for (const auto& name : names)
    {
        text += (text.empty() ? "" : ", ") + name;
    }
    return text;
}

std::string
NcclTrim(const std::string& text)
{
    const auto first = text.find_first_not_of(" \t");
    if (first == std::string::npos)
    {
        return "";
    }
    const auto last = text.find_last_not_of(" \t");
    return text.substr(first, last - first + 1);
}

std::string
NcclFunctionName(NcclFunction function)
{
    static const char* const names[kFunctions] = {"Broadcast",
                                                  "Reduce",
                                                  "AllGather",
                                                  "ReduceScatter",
                                                  "AllReduce"};
    return names[static_cast<int>(function)];
}

std::string
NcclAlgorithmName(NcclAlgorithm algorithm)
{
    return NcclAlgoNames()[static_cast<int>(algorithm)];
}

std::string
NcclProtocolName(NcclProtocol protocol)
{
    return NcclProtoNames()[static_cast<int>(protocol)];
}

std::string
NcclGenerationName(NcclGpuGeneration generation)
{
    static const char* const names[] = {"Volta", "Ampere", "Hopper", "Blackwell"};
    return names[static_cast<int>(generation)];
}

const std::vector<std::string>&
NcclAlgoNames()
{
    static const std::vector<std::string> names =
        {"Tree", "Ring", "CollNetDirect", "CollNetChain", "NVLS", "NVLSTree", "PAT"};
    return names;
}

const std::vector<std::string>&
NcclProtoNames()
{
    static const std::vector<std::string> names = {"LL", "LL128", "Simple"};
    return names;
}

std::vector<std::optional<bool>>
ParseNcclList(const std::string& variable,
              const std::string& value,
              const std::vector<std::string>& names,
              NcclFunction function)
{
    NS_LOG_FUNCTION(variable << value << NcclFunctionName(function));
    std::vector<std::optional<bool>> result(names.size());
    const std::string text = NcclTrim(value);
    if (text.empty())
    {
        return result;
    }
    const std::string where = variable + "=" + value + ": ";
    const std::vector<std::string> entries = Split(text, ';');
    for (std::size_t i = 0; i < entries.size(); ++i)
    {
        const std::string& entry = entries[i];
        std::string list = entry;
        bool forThis = true;
        const auto colon = entry.find(':');
        if (colon != std::string::npos)
        {
            const std::string prefix = NcclLower(NcclTrim(entry.substr(0, colon)));
            list = NcclTrim(entry.substr(colon + 1));
            bool known = false;
            for (int f = 0; f < kFunctions; ++f)
            {
                known =
                    known || prefix == NcclLower(NcclFunctionName(static_cast<NcclFunction>(f)));
            }
            if (!known)
            {
                throw std::invalid_argument(where + "unknown function '" + entry.substr(0, colon) +
                                            "' (NCCL's are Broadcast, Reduce, AllGather, "
                                            "ReduceScatter, AllReduce)");
            }
            forThis = prefix == NcclLower(NcclFunctionName(function));
        }
        else if (i > 0)
        {
            throw std::invalid_argument(where + "'" + entry +
                                        "': every entry after the first needs a function "
                                        "(<function>:<list>)");
        }
        const bool exclude = !list.empty() && list[0] == '^';
        if (exclude)
        {
            list = NcclTrim(list.substr(1));
        }
        if (list.empty())
        {
            throw std::invalid_argument(where + "an empty list in '" + entry + "'");
        }
        std::vector<bool> named(names.size(), false);
        for (const std::string& item : Split(list, ','))
        {
            std::size_t index = names.size();
            for (std::size_t n = 0; n < names.size(); ++n)
            {
                if (NcclLower(item) == NcclLower(names[n]))
                {
                    index = n;
                }
            }
            if (index == names.size())
            {
                const std::string noun = variable == "NCCL_ALGO"    ? "algorithm"
                                         : variable == "NCCL_PROTO" ? "protocol"
                                                                    : "name";
                throw std::invalid_argument(where + "unknown " + noun + " '" + item +
                                            "' (NCCL's are " + NcclJoinNames(names) + ")");
            }
            named[index] = true;
        }
        if (forThis)
        {
            // A later entry for the same function replaces an earlier one, as in NCCL.
            for (std::size_t n = 0; n < names.size(); ++n)
            {
                result[n] = exclude ? !named[n] : named[n];
            }
        }
    }
    return result;
}

NcclTuningModel::NcclTuningModel(const NcclTuningConfig& config,
                                 const std::string& algoValue,
                                 const std::string& protoValue)
    : m_config(config),
      m_algoValue(algoValue),
      m_protoValue(protoValue)
{
    NS_LOG_FUNCTION(this << config.nodes << config.ranksPerNode << config.channels << algoValue
                         << protoValue);
    if (config.nodes == 0 || config.ranksPerNode == 0 || config.channels == 0)
    {
        throw std::invalid_argument(
            "NCCL tuning: nodes, ranks per node and channels must be at least 1");
    }
    if (!(config.intraBandwidth > 0) || !(config.interBandwidth > 0))
    {
        throw std::invalid_argument(
            "NCCL tuning: the intra- and inter-node bandwidths must be positive");
    }
    if (!(config.netLatency >= 0))
    {
        throw std::invalid_argument("NCCL tuning: the network latency must not be negative");
    }
    const int nNodes = static_cast<int>(config.nodes);
    const int ppn = static_cast<int>(config.ranksPerNode);
    const int nRanks = nNodes * ppn;
    const int generation = static_cast<int>(config.generation);
    const int nodeColumn = std::min(nNodes, 3) - 1;
    const int llRow = nNodes == 1 ? generation : (config.amdCpu ? 1 : 0);
    const double llMax = kLlMaxBandwidth[llRow][nodeColumn];
    const double channels = config.channels;
    const double bwIntra = config.intraBandwidth / channels;
    const double bwInter = config.interBandwidth / channels;
    const LinkKind intraKind = config.nvlinkIntra ? NVLINK : PCI;
    const LinkKind ringKind = nNodes == 1 ? intraKind : NET;
    const BusCaps caps{channels,
                       llMax,
                       kRingLl128MaxPerChannel[generation][nodeColumn],
                       kTreeMaxPerChannel[generation][nodeColumn],
                       kTreeLl128MaxPerChannel[generation][nodeColumn],
                       nNodes == 1};

    for (int f = 0; f < kFunctions; ++f)
    {
        const auto function = static_cast<NcclFunction>(f);
        const auto algoEnabled = ParseNcclList("NCCL_ALGO", algoValue, NcclAlgoNames(), function);
        const auto protoEnabled =
            ParseNcclList("NCCL_PROTO", protoValue, NcclProtoNames(), function);
        const bool allReduce = function == NcclFunction::ALL_REDUCE;
        const int steps =
            allReduce ? 2 * (nRanks - 1)
            : (function == NcclFunction::ALL_GATHER || function == NcclFunction::REDUCE_SCATTER)
                ? nRanks - 1
                : nRanks;
        for (int a = 0; a < kAlgorithms; ++a)
        {
            const bool tree = a == static_cast<int>(NcclAlgorithm::TREE);
            // Of the two, only Ring runs broadcast, reduce, all-gather and reduce-scatter.
            if (tree && !allReduce)
            {
                continue;
            }
            if (!algoEnabled[a].value_or(true))
            {
                continue;
            }
            for (int p = 0; p < kProtocols; ++p)
            {
                const auto protocol = static_cast<NcclProtocol>(p);
                const bool enabled = protoEnabled[p].value_or(protocol != NcclProtocol::LL128 ||
                                                              config.ll128ByDefault);
                if (!enabled || nRanks < 2)
                {
                    continue;
                }
                // Bandwidth: the channels' bus bandwidth, the protocol's and algorithm's caps,
                // then from bus to algorithm bandwidth.
                const double bus =
                    BusBandwidth(nNodes <= 2 ? bwIntra : bwInter, tree, protocol, caps);
                // What the caps alone allow (links without limit), per channel and stream: a
                // ring's rank sends at the bus bandwidth; a tree's moves its bytes up and
                // down at once (NCCL splits the channel's threads), half each.
                const double ceiling =
                    BusBandwidth(std::numeric_limits<double>::infinity(), tree, protocol, caps) /
                    channels * (tree ? 0.5 : 1.0);
                m_streamCeiling[f][a][p] = std::isfinite(ceiling) ? ceiling : 0.0;
                m_bandwidth[f][a][p] = tree ? bus * 0.5 : bus * static_cast<double>(nRanks) / steps;

                // Latency: the base, plus per-hop latencies by link kind.
                double latency = kBaseLatency[a][p];
                double intraLat = kHopLatency[intraKind][a][p];
                double interLat = (ppn == 1 ? kHopLatency[NET][0][p] : kHopLatency[NET][a][p]) +
                                  config.netLatency;
                if (protocol == NcclProtocol::SIMPLE)
                {
                    interLat += config.netLatency; // the flush
                }
                if (!tree)
                {
                    if (function == NcclFunction::BROADCAST || function == NcclFunction::REDUCE)
                    {
                        // NCCL's rings on the same channels as its trees: one hop's latency.
                        latency += kHopLatency[ringKind][a][p];
                    }
                    else
                    {
                        double netOverhead = 0;
                        if (nNodes > 1)
                        {
                            netOverhead = (config.amdCpu ? 2.0 : 1.0) *
                                          (protocol == NcclProtocol::SIMPLE ? 3.0 : 1.0);
                        }
                        intraLat = std::max(intraLat, netOverhead);
                        const int interSteps =
                            nNodes == 1 ? 0 : (allReduce ? 2 * (nNodes - 1) : nNodes - 1);
                        latency += (steps - interSteps) * intraLat + interSteps * interLat;
                    }
                }
                else
                {
                    latency += 2 * ((ppn - 1) * intraLat + Log2Down(nNodes) * interLat);
                }
                m_latency[f][a][p] = latency;
                m_stepLatencies[f][a][p] = {kBaseLatency[a][p], intraLat, interLat};
            }
        }
        // NVLS: all-reduce, all-gather and reduce-scatter, Simple only, where the machine and
        // communicator have it (one host: across hosts NCCL needs CollNet for NVLS).
        const int nvls = static_cast<int>(NcclAlgorithm::NVLS);
        const int simple = static_cast<int>(NcclProtocol::SIMPLE);
        const double efficiency = NvlsEfficiency(config.generation);
        const int nvlsChannels = std::min(ppn, 32); // one per GPU (head), NCCL_MAX_NVLS_ARITY
        const bool gatherOrScatter =
            function == NcclFunction::ALL_GATHER || function == NcclFunction::REDUCE_SCATTER;
        if ((allReduce || gatherOrScatter) && config.nvls && efficiency > 0 && nNodes == 1 &&
            nvlsChannels >= 2 && algoEnabled[nvls].value_or(true) &&
            protoEnabled[simple].value_or(true))
        {
            // The NVLS graph's per-channel bandwidth: every GPU serves each channel once and the
            // one it heads twice, so nCh + 1 of them fit in its NVLink bandwidth; NCCL's search
            // then takes the fastest speed of its table that fits (H100: 41.2 -> 40 GB/s).
            const double bwNvls =
                NvlsGraphSpeed(config.generation, config.intraBandwidth / (nvlsChannels + 1));
            double perChannel = bwNvls * efficiency * (nvlsChannels - 1) / nvlsChannels;
            if (allReduce)
            {
                // Two phases pipelined; bus to algorithm bandwidth as a ring's.
                perChannel *= 2.0;
                m_bandwidth[f][nvls][simple] =
                    nvlsChannels * perChannel * static_cast<double>(nRanks) / steps;
            }
            else
            {
                // NCCL's (ppn - 1) / ppn, and no conversion from bus to algorithm bandwidth
                // for a non-ring all-gather or reduce-scatter: the figure is per total byte.
                perChannel *= static_cast<double>(ppn - 1) / ppn;
                m_bandwidth[f][nvls][simple] = nvlsChannels * perChannel;
            }
            m_latency[f][nvls][simple] = kNvlsHopLatency; // replaces the base (0)
            m_stepLatencies[f][nvls][simple] = {0, kNvlsHopLatency, 0};
        }
        // Across hosts NCCL's NVLS graph has one speed that fits both the NVLink share (as
        // NVLS) and the head's NIC (its channel leaves the host there).
        const double nic =
            config.nicBandwidth > 0 ? config.nicBandwidth : config.interBandwidth / ppn;
        const double bwAcross =
            NvlsGraphSpeed(config.generation,
                           std::min(config.intraBandwidth / (nvlsChannels + 1), nic));
        const double intraAcross = bwAcross * efficiency * (nvlsChannels - 1) / nvlsChannels * 2.0;
        // NVLSTree: all-reduce, Simple only, across hosts whose NVSwitches reduce.
        const int nvlsTree = static_cast<int>(NcclAlgorithm::NVLS_TREE);
        if (allReduce && config.nvlsTree && efficiency > 0 && nNodes >= 2 && nvlsChannels >= 2 &&
            algoEnabled[nvlsTree].value_or(true) && protoEnabled[simple].value_or(true))
        {
            const double interBw = bwAcross * (nNodes <= 2 ? 2.0 : 1.0);
            const int capRow = config.generation == NcclGpuGeneration::BLACKWELL ? 1 : 0;
            const double cap = kNvlsTreeMaxPerChannel[capRow][nNodes <= 2 ? 0 : 1];
            const double perChannel = std::min({intraAcross, interBw, cap});
            m_bandwidth[f][nvlsTree][simple] =
                nvlsChannels * perChannel * static_cast<double>(nRanks) / steps;
            const double interHop = kNvlsTreeNetLatency + 2 * config.netLatency;
            m_latency[f][nvlsTree][simple] =
                kNvlsHopLatency + 2 * Log2Down(static_cast<uint64_t>(nNodes)) * interHop;
            // Paid once, by the first window's sends (as NVLS's 25 us): NVLS's chunks are
            // small (16-128 KiB), and a latency per step and chunk would throttle the window.
            m_stepLatencies[f][nvlsTree][simple] = {m_latency[f][nvlsTree][simple], 0, 0};
        }
        // NVLS across hosts (NVLS with SHARP): all-reduce, Simple only, hosts whose NVSwitches
        // reduce on a network whose switches reduce (NCCL runs NVLS on several nodes only with
        // CollNet), at most 8 GPUs a host (CollNet's limit).
        if (allReduce && config.nvlsTree && config.collNet && efficiency > 0 && nNodes >= 2 &&
            nvlsChannels >= 2 && ppn <= kCollNetMaxLocalRanks && algoEnabled[nvls].value_or(true) &&
            protoEnabled[simple].value_or(true))
        {
            const double perChannel = std::min(intraAcross, bwAcross);
            m_bandwidth[f][nvls][simple] =
                nvlsChannels * perChannel * static_cast<double>(nRanks) / steps;
            m_latency[f][nvls][simple] = kNvlsHopLatency + kNvlsNetLatency + 2 * config.netLatency;
            m_stepLatencies[f][nvls][simple] = {m_latency[f][nvls][simple], 0, 0};
        }
        // PAT: all-gather and reduce-scatter, Simple only, one GPU a node (NCCL's
        // ncclPatEnable), on the tree graph: with one GPU a node its speed is the NIC path's.
        const int pat = static_cast<int>(NcclAlgorithm::PAT);
        if (gatherOrScatter && ppn == 1 && nNodes >= 2 && algoEnabled[pat].value_or(true) &&
            protoEnabled[simple].value_or(true))
        {
            m_bandwidth[f][pat][simple] = channels * bwInter * kNcclPatEfficiency;
            // One GPU a node: NCCL takes Tree's network hop, plus the network's latency and
            // Simple's flush.
            const double interLat = kHopLatency[NET][0][simple] + 2 * config.netLatency;
            const double hop = interLat / kPatHopDivisor;
            const double linear = kPatBaseLatency + kPatRankLatency * nRanks;
            m_latency[f][pat][simple] = linear + Log2Down(static_cast<uint64_t>(nNodes)) * hop;
            // The schedule pays the linear part once, at its first sends, and the hop per
            // message: log2(nodes) messages on a small call's critical path.
            m_stepLatencies[f][pat][simple] = {linear, 0, hop};
        }
        // CollNet (SHARP in the network's switches): all-reduce, Simple only, across hosts.
        if (allReduce && config.collNet && nNodes >= 2 && ppn <= kCollNetMaxLocalRanks &&
            protoEnabled[simple].value_or(true))
        {
            const int net = static_cast<int>(NET);
            const double flush = config.netLatency; // Simple's, as for the rings
            for (const NcclAlgorithm algorithm :
                 {NcclAlgorithm::COLLNET_DIRECT, NcclAlgorithm::COLLNET_CHAIN})
            {
                const int a = static_cast<int>(algorithm);
                const bool direct = algorithm == NcclAlgorithm::COLLNET_DIRECT;
                // CollNetDirect needs an NVSwitch (every GPU reaches every head directly).
                if (!algoEnabled[a].value_or(true) || (direct && !config.nvlinkIntra))
                {
                    continue;
                }
                // NCCL computes CollNet from its CollNet graph's bwIntra, whose channels
                // run through the NICs: here the per-channel intra bandwidth, at most the
                // network's per channel (an inference from the graph, stated in
                // doc/collectives.md).
                double bus = channels * std::min(bwIntra, bwInter);
                if (direct)
                {
                    double factor = static_cast<double>(ppn) / channels; // GPUs per NIC
                    factor -= (factor - 1) / 2;
                    bus /= factor;
                    if (config.generation >= NcclGpuGeneration::HOPPER)
                    {
                        bus *= 0.85;
                    }
                }
                m_bandwidth[f][a][simple] = bus * 0.5;
                const double intraHop = kCollNetHopLatency[direct ? 0 : 1][intraKind];
                const double interHop = (ppn == 1 ? kHopLatency[NET][0][simple]
                                                  : kCollNetHopLatency[direct ? 0 : 1][net]) +
                                        config.netLatency + flush;
                // Direct: one NVLink hop each way (plus the arity's serialization); Chain: the
                // chain's ppn - 1 hops each way.
                const double intraStep =
                    direct ? std::min(1, ppn - 1) * intraHop + (ppn - 1) * kCollNetArityLatency
                           : intraHop;
                const double intraSteps = direct ? 1 : ppn - 1;
                m_latency[f][a][simple] = 2 * intraSteps * intraStep + interHop;
                m_stepLatencies[f][a][simple] = {0, intraStep, interHop};
            }
        }
    }
}

const NcclTuningConfig&
NcclTuningModel::GetConfig() const
{
    return m_config;
}

NcclStepLatencies
NcclTuningModel::StepLatencies(NcclFunction function,
                               NcclAlgorithm algorithm,
                               NcclProtocol protocol) const
{
    return m_stepLatencies[static_cast<int>(function)][static_cast<int>(algorithm)]
                          [static_cast<int>(protocol)];
}

double
NcclTuningModel::StreamCeiling(NcclFunction function,
                               NcclAlgorithm algorithm,
                               NcclProtocol protocol) const
{
    return m_streamCeiling[static_cast<int>(function)][static_cast<int>(algorithm)]
                          [static_cast<int>(protocol)];
}

double
NcclTuningModel::Bandwidth(NcclFunction function,
                           NcclAlgorithm algorithm,
                           NcclProtocol protocol) const
{
    return m_bandwidth[static_cast<int>(function)][static_cast<int>(algorithm)]
                      [static_cast<int>(protocol)];
}

double
NcclTuningModel::Latency(NcclFunction function,
                         NcclAlgorithm algorithm,
                         NcclProtocol protocol) const
{
    return m_latency[static_cast<int>(function)][static_cast<int>(algorithm)]
                    [static_cast<int>(protocol)];
}

double
NcclTuningModel::Time(NcclFunction function,
                      NcclAlgorithm algorithm,
                      NcclProtocol protocol,
                      uint64_t bytes) const
{
    NS_LOG_FUNCTION(this << NcclFunctionName(function) << NcclAlgorithmName(algorithm)
                         << NcclProtocolName(protocol) << bytes);
    double bandwidth = Bandwidth(function, algorithm, protocol);
    double latency = Latency(function, algorithm, protocol);
    if (bandwidth <= 0)
    {
        return -1;
    }
    const int logSize = Log2Down(bytes >> 6);
    if (algorithm == NcclAlgorithm::TREE && function == NcclFunction::ALL_REDUCE && logSize >= 0 &&
        logSize < 23)
    {
        bandwidth *= kTreeCorrection[static_cast<int>(protocol)][logSize];
    }
    const uint64_t ranks = uint64_t{m_config.nodes} * m_config.ranksPerNode;
    if (algorithm == NcclAlgorithm::RING && protocol == NcclProtocol::SIMPLE &&
        m_config.nodes > 1 && function == NcclFunction::ALL_REDUCE &&
        bytes / (m_config.channels * ranks) >= 64)
    {
        // The ring's latency plateau.
        latency *= m_config.generation == NcclGpuGeneration::VOLTA ? 1.9 : 1.4;
    }
    return latency + static_cast<double>(bytes) / (1000.0 * bandwidth);
}

NcclChoice
NcclTuningModel::Choose(NcclFunction function, uint64_t bytes) const
{
    NS_LOG_FUNCTION(this << NcclFunctionName(function) << bytes);
    if (uint64_t{m_config.nodes} * m_config.ranksPerNode == 1)
    {
        return NcclChoice{NcclAlgorithm::RING, NcclProtocol::SIMPLE, 0};
    }
    NcclChoice best;
    double bestTime = std::numeric_limits<double>::max();
    for (int a = 0; a < kModelled; ++a)
    {
        for (int p = 0; p < kProtocols; ++p)
        {
            const double time =
                Time(function, static_cast<NcclAlgorithm>(a), static_cast<NcclProtocol>(p), bytes);
            if (time >= 0 && time < bestTime)
            {
                bestTime = time;
                best =
                    NcclChoice{static_cast<NcclAlgorithm>(a), static_cast<NcclProtocol>(p), time};
            }
        }
    }
    if (bestTime == std::numeric_limits<double>::max())
    {
        throw std::invalid_argument(
            "no algorithm and protocol left for " + NcclFunctionName(function) +
            ": NCCL_ALGO=" + m_algoValue + ", NCCL_PROTO=" + m_protoValue +
            " (Tree runs AllReduce only; CollNet AllReduce across hosts with Simple only; NVLS "
            "AllReduce, AllGather and ReduceScatter on one host, AllReduce across hosts with "
            "CollNet, with Simple only; NVLSTree "
            "AllReduce across hosts, with Simple only; PAT AllGather and ReduceScatter with one "
            "GPU a node, 2 nodes or more, Simple only" +
            (m_config.nvls ? std::string("") : "; " + m_config.nvlsWhy) +
            (m_config.nvlsTree || m_config.nodes < 2 ? std::string("")
                                                     : "; NVLSTree: " + m_config.nvlsTreeWhy) +
            (m_config.collNet ? std::string("") : "; CollNet: " + m_config.collNetWhy) + ")");
    }
    return best;
}

} // namespace ns3
