/*
 * What nccl-tests (NVIDIA's all_reduce_perf, all_gather_perf, ...) prints and how it derives it,
 * restated for chakra_nccl_tests (utils/chakra-nccl-tests.cc): the collectives with their size,
 * count and bus-bandwidth conventions, the data types and reduction operations, the size sweep,
 * the number formats, and NCCL's NCCL_ALGO / NCCL_PROTO environment variables.
 */
#ifndef CHAKRA_NCCL_TESTS_H
#define CHAKRA_NCCL_TESTS_H

#include "et_def.pb.h"

#include "ns3/nccl-tuning.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup chakra-helper
 * \brief One nccl-tests collective and its conventions (nccl-tests' src/<name>.cu).
 */
struct NcclTestsCollective
{
    std::string name; //!< "all_reduce", ... (the tool's subcommand; nccl-tests' <name>_perf)
    ChakraProtoMsg::CollectiveCommType type; //!< the simulated collective (unused for sendrecv)
    bool pointToPoint{false}; //!< sendrecv: each rank sends to rank + 1, receives from rank - 1
    /**
     * all_gather, reduce_scatter, alltoall: the size is split over the ranks, each rank's part
     * rounded down to a multiple of 16 bytes; the row's count is one rank's part and its size
     * the whole (count x ranks x type size).
     */
    bool splitOverRanks{false};
    bool rooted{false};  //!< broadcast, reduce: the root column is the root (else -1)
    bool reduces{false}; //!< the redop column shows -o (else "none")
    /** busbw = algbw x factor: numerator x (n - 1) / n, or 1 when numerator is 0. */
    uint32_t busFactorNumerator{0};
};

/** \return nccl-tests' collectives, in the order of the tool's help */
const std::vector<NcclTestsCollective>& NcclTestsCollectives();

/**
 * \param name "all_reduce", "all_gather", "reduce_scatter", "alltoall", "broadcast", "reduce",
 *        "sendrecv" (also with "_perf", or '-' for '_')
 * \return the collective
 * \throws std::invalid_argument naming the valid ones
 */
const NcclTestsCollective& FindNcclTestsCollective(const std::string& name);

/**
 * \param name an nccl-tests -d value: int8, uint8, int32, uint32, int64, uint64, half, float,
 *        double, bfloat16, f8e4m3, f8e5m2
 * \return its size in bytes
 * \throws std::invalid_argument naming the valid ones ("all" too: one type per run here)
 */
uint32_t NcclTestsTypeSize(const std::string& name);

/**
 * Checks an nccl-tests -o value: sum, prod, max, min, avg, mulsum.
 * \throws std::invalid_argument naming the valid ones ("all" too: one operation per run here)
 */
void CheckNcclTestsOp(const std::string& name);

/**
 * Reads a size as nccl-tests does: a number (decimals allowed) with an optional K, M or G
 * (binary: 1K = 1024), case-insensitive; a trailing "B" or "iB" is taken too (64KB, 64KiB).
 * \param text the value
 * \param flag the flag, named in the error ("-b")
 * \return the size in bytes, rounded down
 * \throws std::invalid_argument naming the flag
 */
uint64_t ParseNcclTestsSize(const std::string& text, const std::string& flag);

/**
 * The sizes nccl-tests runs: from \p minBytes while not above \p maxBytes, times \p stepFactor
 * when it is above 1, else plus \p stepBytes.
 * \throws std::invalid_argument for a sweep that would not end (factor with a zero start,
 *         zero step) or that has more than \p maxRows sizes
 */
std::vector<uint64_t> NcclTestsSizes(uint64_t minBytes,
                                     uint64_t maxBytes,
                                     uint64_t stepFactor,
                                     uint64_t stepBytes,
                                     std::size_t maxRows = 10000);

/** One row of the table before it is simulated. */
struct NcclTestsRowShape
{
    uint64_t sizeBytes{0}; //!< the size column: the larger of send and receive buffer
    uint64_t count{0};     //!< the count column, elements
    uint64_t commSize{0};  //!< comm_size of the simulated collective (CollectiveRequest)
};

/**
 * \param collective the collective
 * \param size the swept size (bytes)
 * \param typeSize the data type's size
 * \param ranks the communicator size
 * \return the row's size, count (nccl-tests' rounding: size / typeSize elements, split over
 *         the ranks for all_gather, reduce_scatter and alltoall) and the comm_size to simulate
 */
NcclTestsRowShape NcclTestsShape(const NcclTestsCollective& collective,
                                 uint64_t size,
                                 uint32_t typeSize,
                                 uint32_t ranks);

/** The two bandwidths of a row, GB/s (10^9 bytes/s). */
struct NcclTestsBandwidth
{
    double algBw{0}; //!< bytes / time (bytes: count x type size, x ranks when split)
    double busBw{0}; //!< algBw x the collective's factor
};

/**
 * \param collective the collective
 * \param count the row's count
 * \param typeSize the data type's size
 * \param seconds the time
 * \param ranks the communicator size
 * \return algbw and busbw (0 when the time is not positive)
 */
NcclTestsBandwidth NcclTestsBandwidths(const NcclTestsCollective& collective,
                                       uint64_t count,
                                       uint32_t typeSize,
                                       double seconds,
                                       uint32_t ranks);

/**
 * A number in a column of \p width characters as nccl-tests writes it: two decimals, or
 * fewer (one, none) when they do not fit, else in exponent notation.
 */
std::string FormatNcclTestsNumber(double value, int width);

/**
 * \return NCCL's function for \p collective, or nullopt for alltoall and sendrecv (grouped
 *         point-to-point in NCCL, outside NCCL_ALGO and NCCL_PROTO)
 */
std::optional<NcclFunction> NcclTestsFunction(const NcclTestsCollective& collective);

/**
 * The algorithm NCCL_ALGO asks the simulation to run for \p collective. The value is read by
 * NCCL's parser (ParseNcclList: a comma list, '^' exclusions, per-function entries
 * "allreduce:tree;allgather:ring", case-insensitive), and every function it speaks of must be
 * left exactly one algorithm the simulation has.
 * \param value the variable's text ("" or unset: none)
 * \param collective the collective (alltoall and sendrecv: "", the value still checked)
 * \return "ring" (Ring), "tree" (Tree), or "" when the variable says nothing for it
 * \throws std::invalid_argument naming NCCL_ALGO and the value: an unknown algorithm or
 *         function; NVLS, NVLSTree, CollNetDirect, CollNetChain, PAT (the NCCL model's only:
 *         --algorithm nccl); several algorithms, or none, left for a function (a simulated
 *         run uses one)
 */
std::string NcclAlgoAlgorithm(const std::string& value, const NcclTestsCollective& collective);

/**
 * Checks NCCL_PROTO with NCCL's parser (ParseNcclList). Its protocols restrict the choice
 * printed by the tuning model (NcclTuningModel); they do not change the simulated messages.
 * \param value the variable's text ("" or unset: fine)
 * \throws std::invalid_argument naming NCCL_PROTO and the value: an unknown protocol or
 *         function, a malformed list
 */
void CheckNcclProto(const std::string& value);

} // namespace ns3

#endif // CHAKRA_NCCL_TESTS_H
