/*
 * NCCL's tuning model (issue 27, second slice): the time NCCL predicts for a collective with
 * each algorithm (Ring, Tree) and protocol (LL, LL128, Simple), and the pair it picks, plus
 * NCCL_ALGO / NCCL_PROTO read as NCCL reads them. The facts (constants and the shape of the
 * formulas) are those of NCCL 2.30.7's src/graph/tuning.cc and src/enqueue.cc; see
 * doc/collectives.md, "NCCL's tuning model". A pure model: it moves no messages.
 */
#ifndef CHAKRA_NCCL_TUNING_H
#define CHAKRA_NCCL_TUNING_H

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ns3
{

/** NCCL's collective functions, in NCCL's order. */
enum class NcclFunction
{
    BROADCAST,
    REDUCE,
    ALL_GATHER,
    REDUCE_SCATTER,
    ALL_REDUCE,
};

/** The algorithms this model computes, in the order of NCCL's table (a tie goes to the first);
 *  each one's value is its index in NcclAlgoNames(). */
enum class NcclAlgorithm
{
    TREE,
    RING,
    COLLNET_DIRECT, //!< SHARP all-reduce, every GPU a head on its own NIC (Simple only), where
                    //!< NcclTuningConfig::collNet says
    COLLNET_CHAIN,  //!< SHARP all-reduce, a chain of a host's GPUs per channel to its head
    NVLS,           //!< NVLink SHARP all-reduce, all-gather, reduce-scatter (Simple only), where
                    //!< NcclTuningConfig::nvls says
    NVLS_TREE,      //!< NVLS inside each host, NCCL's double binary tree across hosts
                    //!< (all-reduce, Simple), where NcclTuningConfig::nvlsTree says
    PAT,            //!< Parallel Aggregated Trees: all-gather and reduce-scatter (Simple) with
                    //!< one GPU a node (pat-schedule.h)
};

/** NCCL's protocols, in NCCL's order. */
enum class NcclProtocol
{
    LL,     //!< 8-byte stores carrying a flag: half the bandwidth, the lowest latency
    LL128,  //!< 128-byte lines with 8 bytes of flag
    SIMPLE, //!< full bandwidth, a fence per step: the highest latency
};

/** The GPU generation: the row of NCCL's per-architecture tables. */
enum class NcclGpuGeneration
{
    VOLTA,
    AMPERE,
    HOPPER,
    BLACKWELL,
};

/** \return NCCL's name: "Broadcast", "Reduce", "AllGather", "ReduceScatter", "AllReduce" */
std::string NcclFunctionName(NcclFunction function);
/** \return NCCL's name: "Tree", "Ring", "CollNetDirect", "CollNetChain", "NVLS", "NVLSTree",
 *  "PAT" */
std::string NcclAlgorithmName(NcclAlgorithm algorithm);
/** \return NCCL's name: "LL", "LL128", "Simple" */
std::string NcclProtocolName(NcclProtocol protocol);
/** \return the generation's name: "Volta", "Ampere", "Hopper", "Blackwell" */
std::string NcclGenerationName(NcclGpuGeneration generation);

/** PAT's bus bandwidth against the channels' (NCCL's tuning: busBw x 0.75). */
constexpr double kNcclPatEfficiency = 0.75;

/** NCCL's algorithm names (NCCL_ALGO), in NCCL's order; all are modelled. */
const std::vector<std::string>& NcclAlgoNames();
/** NCCL's protocol names (NCCL_PROTO), in NCCL's order. */
const std::vector<std::string>& NcclProtoNames();

/** \return \p text in lower case (ASCII): NCCL compares its names without case */
std::string NcclLower(std::string text);

/** \return \p names separated by ", " (the lists of valid names in errors) */
std::string NcclJoinNames(const std::vector<std::string>& names);

/** \return \p text without leading and trailing blanks (spaces, tabs) */
std::string NcclTrim(const std::string& text);

/**
 * Reads an NCCL_ALGO or NCCL_PROTO value as NCCL does: entries separated by ';', each
 * "<function>:<list>" (functions: Broadcast, Reduce, AllGather, ReduceScatter, AllReduce), the
 * first one also without a function (then it applies to all); a list is names separated by
 * ',' ("Ring,Tree": only these) or, after a leading '^', the names to exclude; names and
 * functions are case-insensitive. Every entry is checked, whichever function it is for.
 * \param variable "NCCL_ALGO" or "NCCL_PROTO", named in errors
 * \param value the variable's text ("" or blanks: says nothing)
 * \param names the valid names (NcclAlgoNames() or NcclProtoNames())
 * \param function the function whose list is wanted
 * \return one entry per name: true (enabled), false (disabled), or nullopt when the variable
 *         says nothing about this function (NCCL's default applies)
 * \throws std::invalid_argument naming the variable and the value: an unknown name or
 *         function, an entry after the first without a function, an empty entry
 */
std::vector<std::optional<bool>> ParseNcclList(const std::string& variable,
                                               const std::string& value,
                                               const std::vector<std::string>& names,
                                               NcclFunction function);

/** What NCCL's tuning needs to know of the communicator and the machine. */
struct NcclTuningConfig
{
    uint32_t nodes{1};        //!< nodes (NCCL's nNodes)
    uint32_t ranksPerNode{8}; //!< GPUs per node; ranks = nodes x ranksPerNode
    NcclGpuGeneration generation{NcclGpuGeneration::HOPPER}; //!< the table row
    /** Channels (NCCL's nChannels: rings, and trees, run side by side); NCCL's topology search
     *  decides it, here it is given. */
    uint32_t channels{16};
    /** A GPU's intra-node bandwidth per direction, GB/s, all channels together (per channel:
     *  this / channels, NCCL's bwIntra). */
    double intraBandwidth{450};
    /** A node's network bandwidth per direction (all its NICs), GB/s, all channels together
     *  (per channel: this / channels, NCCL's bwInter). Unused on one node. */
    double interBandwidth{400};
    bool nvlinkIntra{true}; //!< intra-node hops over NVLink (else PCI): the latency row
    /** Multi-node LL cap and network post overhead: AMD host CPUs (else Intel, the default). */
    bool amdCpu{false};
    double netLatency{0}; //!< us, the network's reported latency (NCCL's latencyInter; 0 for IB)
    /** LL128 enabled unless NCCL_PROTO says otherwise: NCCL enables it by default on NVLink
     *  systems whose NIC paths are close enough (Hopper on: up to PXN; before: up to PXB). */
    bool ll128ByDefault{true};
    /** NVLS (NVLink SHARP) available: NvlsAvailable (nvls-schedule.h) says so for the machine
     *  and the communicator; the tuning then also needs NCCL's NVLS efficiency (Hopper on). */
    bool nvls{false};
    /** When NVLS is not available: why (in the error when NCCL_ALGO forces it). */
    std::string nvlsWhy{"NVLS is not available on this machine"};
    /** NVLSTree available: the communicator spans 2 hosts or more whose NVSwitches reduce
     *  (NvlsAvailable for one of its hosts). */
    bool nvlsTree{false};
    /** When NVLSTree is not available: why. */
    std::string nvlsTreeWhy{"NVLSTree needs 2 hosts or more whose NVSwitches reduce"};
    /** A GPU's NIC bandwidth per direction, GB/s (NVLSTree's graph runs through it; 0: the
     *  node's network bandwidth / ranks per node). */
    double nicBandwidth{0};
    /** CollNet available: the network's switches reduce (SHARP) and NCCL's CollNet is enabled
     *  (NCCL_COLLNET_ENABLE=1 with a SHARP plugin); NCCL also needs 2 nodes or more and at
     *  most 8 GPUs a node, which the model checks. */
    bool collNet{false};
    /** When CollNet is not available: why (in the error when NCCL_ALGO forces it). */
    std::string collNetWhy{"the network's switches do not reduce (no SHARP)"};
};

/**
 * The fixed costs NCCL's tuning model charges a call of one (algorithm, protocol) pair, in us
 * (NCCL's baseLatencies and hwLatencies): a schedule that runs the pair step by step pays
 * \p intra or \p inter per step, and \p base once.
 */
struct NcclStepLatencies
{
    double base{0};  //!< once per call
    double intra{0}; //!< a step inside a node (NVLink or PCI row; a ring across nodes: at least
                     //!< NCCL's network overhead per step)
    double inter{0}; //!< a step across nodes (network row, plus the network's latency)
};

/** One (algorithm, protocol) pair and NCCL's predicted time for it. */
struct NcclChoice
{
    NcclAlgorithm algorithm{NcclAlgorithm::RING};
    NcclProtocol protocol{NcclProtocol::SIMPLE};
    double time{0}; //!< us
};

/**
 * \ingroup chakra-collective
 * \brief NCCL's tuning model: per function, algorithm and protocol, a latency (us) and a
 *        bandwidth (GB/s of the function's bytes), time = latency + bytes / bandwidth, with
 *        NCCL's size-dependent corrections; the choice is the fastest enabled pair.
 *
 * NVLS (all-reduce, all-gather, reduce-scatter; Simple; one host: NcclTuningConfig::nvls):
 * NCCL's NVLS graph has one channel per GPU of the node (the heads), each at the GPU's NVLink
 * bandwidth / (GPUs + 1) (the search's fit: every GPU serves every channel, and twice the one
 * it heads); per channel bwIntra x NVLS efficiency x (nCh - 1) / nCh, times nCh; all-reduce
 * then x 2 (two phases pipelined) x nRanks / (2 (nRanks - 1)), all-gather and reduce-scatter
 * x (ppn - 1) / ppn and no bus-to-algorithm conversion (per byte of the total); latency NVLS
 * Simple's NVLink hop, 25 us, no base.
 *
 * CollNet (all-reduce, Simple, NcclTuningConfig::collNet, 2 hosts or more, at most 8 GPUs a
 * host; CollNetDirect also needs NVLink inside the host): from bwIntra, the per-channel intra
 * bandwidth, at most the network's per channel (its channels run through the NICs).
 * CollNetDirect: nCh x bwIntra / f with f = ppn / nCh - (ppn / nCh - 1) / 2, x 0.85
 * from Hopper on; CollNetChain: nCh x bwIntra; both x 0.5 from bus to algorithm bandwidth.
 * Latencies: CollNetDirect 2 (min(1, ppn-1) x 3.7 + (ppn-1) x 0.4) + 31 us (+ the network's
 * latency, twice for Simple's flush), CollNetChain 2 (ppn-1) x 2.8 + 30 us; no base.
 *
 * NVLSTree (all-reduce, Simple, NcclTuningConfig::nvlsTree): NCCL's NVLS graph across hosts, one
 * channel per GPU (head) at a speed of its table that fits both the NVLink share (as NVLS) and
 * the GPU's NIC; per channel min(bw x NVLS efficiency x (nCh-1)/nCh x 2, bw x (2 on 2 nodes,
 * else 1), NCCL's per-channel cap: Hopper 57.7 on 2 nodes, 45.5 on more; Blackwell 96, 80),
 * times nCh, x nRanks / (2 (nRanks - 1)); latency 25 us + 2 log2(nodes) x (20.9 us + the
 * network's latency, twice for Simple), no base.
 *
 * PAT (all-gather and reduce-scatter, Simple, one GPU a node, 2 nodes or more; NCCL runs it on
 * its tree graph): nCh x bwInter x 0.75 per byte of the total (no bus-to-algorithm conversion;
 * NCCL takes bwIntra on 2 nodes or fewer, which with one GPU a node is the NIC path's speed:
 * bwInter here); latency 8 us + log2(nodes) x interLat / 3.5 + 2.8 us x ranks, interLat being
 * Tree Simple's network hop (14 us, with one GPU a node) plus the network's latency twice.
 *
 * NVLS across hosts (NVLS with SHARP; all-reduce, Simple): NCCL needs CollNet for it, so
 * NcclTuningConfig::nvlsTree and collNet, at most 8 GPUs a host; the NVLS graph as NVLSTree's,
 * per channel min(bw x NVLS efficiency x (nCh-1)/nCh x 2, bw), times nCh, x nRanks / (2
 * (nRanks - 1)); latency 25 us + 18 us (NVLS Simple's network hop) + the network's latency
 * twice, no base.
 *
 * What it leaves out (they need topology facts this model does not have): NVLS all-gather and
 * reduce-scatter across hosts, CollNet all-gather and reduce-scatter (NCCL needs the SHARP
 * plugin's iallgather / ireducescatter), NCCL's topology search (channels
 * and per-channel bandwidths are given; NVLS's per-channel bandwidth is not rounded down to
 * NCCL's table of search speeds), the 0.85 penalty of trees whose NIC traffic all goes
 * through one GPU, aggregated launches (one operation per call), and the channel and thread
 * count NCCL then reduces for small sizes (it changes the kernel, not the choice).
 */
class NcclTuningModel
{
  public:
    /**
     * \param config the communicator and the machine
     * \param algoValue NCCL_ALGO's text ("" when unset)
     * \param protoValue NCCL_PROTO's text ("" when unset)
     * \throws std::invalid_argument for a config with no rank, node or channel, or a
     *         bandwidth that is not positive (naming the field), or a bad NCCL_ALGO or
     *         NCCL_PROTO (naming it and the value)
     */
    explicit NcclTuningModel(const NcclTuningConfig& config,
                             const std::string& algoValue = "",
                             const std::string& protoValue = "");

    /** \return the configuration */
    const NcclTuningConfig& GetConfig() const;

    /**
     * \return NCCL's bandwidth for the pair, GB/s of the function's bytes (0: not available:
     *         the algorithm does not run the function, or NCCL_ALGO / NCCL_PROTO / the
     *         default disable it)
     */
    double Bandwidth(NcclFunction function, NcclAlgorithm algorithm, NcclProtocol protocol) const;

    /**
     * What NCCL's model lets one stream carry whatever the links (GPU-side limits: LL's llMax,
     * LL128's and the tree's per-channel caps, Tree LL's / 3.8): the bus bandwidth of
     * Bandwidth's formula with links of no limit, per channel; a tree's half of it, as its
     * reduce (up) and broadcast (down) streams share the channel.
     * \return payload GB/s of one rank's stream to one peer on one channel; 0 when nothing
     *         but the links limits the pair (Ring Simple; NVLS, CollNet, PAT)
     */
    double StreamCeiling(NcclFunction function,
                         NcclAlgorithm algorithm,
                         NcclProtocol protocol) const;

    /** \return NCCL's base latency for the pair (us), before the size-dependent factors */
    double Latency(NcclFunction function, NcclAlgorithm algorithm, NcclProtocol protocol) const;

    /** \return the per-call and per-step latencies NCCL's model sums for the pair (us) */
    NcclStepLatencies StepLatencies(NcclFunction function,
                                    NcclAlgorithm algorithm,
                                    NcclProtocol protocol) const;

    /**
     * \param bytes the function's bytes as NCCL counts them: the buffer for all-reduce,
     *        broadcast and reduce; all ranks' parts together for all-gather and reduce-scatter
     * \return NCCL's predicted time (us), or a negative value when the pair is not available
     */
    double Time(NcclFunction function,
                NcclAlgorithm algorithm,
                NcclProtocol protocol,
                uint64_t bytes) const;

    /**
     * \return the fastest available pair (ties: Tree before Ring, LL before LL128 before Simple)
     * \throws std::invalid_argument when NCCL_ALGO / NCCL_PROTO leave no pair for the function
     *         (naming both values), as NCCL refuses the call
     */
    NcclChoice Choose(NcclFunction function, uint64_t bytes) const;

  private:
    NcclTuningConfig m_config;
    std::string m_algoValue;
    std::string m_protoValue;
    /** [function][algorithm][protocol] */
    std::array<std::array<std::array<double, 3>, 7>, 5> m_bandwidth{};
    std::array<std::array<std::array<double, 3>, 7>, 5> m_latency{};
    std::array<std::array<std::array<double, 3>, 7>, 5> m_streamCeiling{};
    std::array<std::array<std::array<NcclStepLatencies, 3>, 7>, 5> m_stepLatencies{};
};

} // namespace ns3

#endif // CHAKRA_NCCL_TUNING_H
