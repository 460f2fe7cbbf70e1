/*
 * WorkloadGenerator: synthetic per-rank Chakra traces, so that demos, tests and labs need no
 * recorded data.
 */
#ifndef CHAKRA_WORKLOAD_GENERATOR_H
#define CHAKRA_WORKLOAD_GENERATOR_H

#include "et_def.pb.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup chakra
 * \brief One collective (or a compute + collective loop) on every rank.
 */
struct CollectiveBenchSpec
{
    ChakraProtoMsg::CollectiveCommType type{ChakraProtoMsg::ALL_REDUCE};
    uint64_t bytes{1u << 20};     //!< comm_size (per-rank input, see CollectiveRequest)
    uint32_t ranks{8};            //!< number of ranks
    uint32_t iterations{1};       //!< collectives per rank, one after the other
    uint64_t computeMicros{0};    //!< a compute node before each collective (0: none)
    uint32_t root{0};             //!< root rank (broadcast, reduce, gather, scatter)
};

/**
 * \ingroup chakra
 * \brief One data-parallel training step: forward and backward compute per layer, gradients
 * all-reduced in buckets during the backward pass (as PyTorch DDP does), then the optimizer.
 */
struct DataParallelSpec
{
    uint32_t ranks{16};
    uint32_t layers{24};
    uint64_t parameterBytesPerLayer{32u << 20}; //!< gradient bytes of one layer
    uint64_t forwardMicros{400};                //!< per layer
    uint64_t backwardMicros{800};               //!< per layer
    uint64_t bucketBytes{25u << 20};            //!< DDP bucket (0: one all-reduce per layer)
    uint64_t optimizerMicros{300};
};

/**
 * \ingroup chakra
 * \brief Writes synthetic workloads as <prefix>.<rank>.et files.
 *
 * Every node carries the attributes the simulator reads (is_cpu_op, stream, comm_type,
 * comm_size, pg_name) with the oneof types the reference writers use; each rank's file is
 * written atomically. GPU compute runs on stream 0 and communication on stream 1, so that
 * communication overlaps compute exactly where the dependencies allow it.
 */
class WorkloadGenerator
{
  public:
    /** Writes a collective microbenchmark. \return the files written */
    static std::vector<std::string> WriteCollectiveBench(const std::string& prefix,
                                                         const CollectiveBenchSpec& spec);

    /** Writes a data-parallel training step. \return the files written */
    static std::vector<std::string> WriteDataParallelStep(const std::string& prefix,
                                                          const DataParallelSpec& spec);

    /**
     * \param name "all_reduce", "all-reduce", "allreduce", "ALL_REDUCE", ... (any case, - or _)
     * \param[out] type the collective
     * \return false for an unknown name
     */
    static bool ParseCollective(const std::string& name, ChakraProtoMsg::CollectiveCommType& type);

    /**
     * \param text "1048576", "64KiB", "1MiB", "4GiB", "1MB", "10GB" (KiB = 1024, KB = 1000)
     * \param[out] bytes the size
     * \return false if the text is not a size
     */
    static bool ParseBytes(const std::string& text, uint64_t& bytes);
};

} // namespace ns3

#endif // CHAKRA_WORKLOAD_GENERATOR_H
