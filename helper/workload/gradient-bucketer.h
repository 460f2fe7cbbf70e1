/*
 * GradientBucketer: groups gradients into all-reduce buckets as PyTorch DDP does.
 */
#ifndef CHAKRA_GRADIENT_BUCKETER_H
#define CHAKRA_GRADIENT_BUCKETER_H

#include "rank-trace-builder.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup chakra-workload
 * \brief Writes the gradient all-reduces of one rank, one per bucket.
 *
 * Gradients are added in the order backward produces them (last layer first). As in PyTorch's
 * DDP (compute_bucket_assignment_by_size), a gradient joins the open bucket, and the bucket
 * closes as soon as its size reaches its limit: the first bucket's limit is firstBucketBytes
 * (DDP's first_bucket_bytes; 0: the same as bucketBytes), every later one bucketBytes
 * (bucket_cap_mb; 0: one bucket per gradient). A closed bucket is one all-reduce of its total
 * size, which depends on the node that produced its last gradient and on the previous bucket's
 * all-reduce (buckets are reduced in order on one stream). Flush() closes the last, partly
 * filled bucket.
 */
class GradientBucketer
{
  public:
    /**
     * \param trace the rank's trace
     * \param pg the data-parallel process group
     * \param namePrefix node names are <namePrefix><bucket index>
     * \param bucketBytes bucket limit (0: one bucket per gradient)
     * \param firstBucketBytes limit of the first bucket (0: bucketBytes)
     * \param stream the GPU stream of the all-reduces
     * \param type the collective of each bucket: ALL_REDUCE (DDP), or REDUCE_SCATTER (a
     *        sharded optimizer: each rank keeps its shard of the reduced gradients)
     */
    GradientBucketer(RankTraceBuilder& trace,
                     std::string pg,
                     std::string namePrefix,
                     uint64_t bucketBytes,
                     uint64_t firstBucketBytes,
                     int64_t stream,
                     ChakraProtoMsg::CollectiveCommType type = ChakraProtoMsg::ALL_REDUCE);

    /**
     * Adds a gradient.
     * \param bytes its size
     * \param ready the node after which it exists
     * \throws std::invalid_argument if the bucket size overflows
     */
    void Add(uint64_t bytes, uint64_t ready);

    /** Closes the open bucket, if any gradient is in it. */
    void Flush();

    /** \return the id of the last all-reduce written, if any */
    std::optional<uint64_t> GetLast() const;

    /** \return the sizes of the all-reduces written, in order */
    const std::vector<uint64_t>& GetBucketSizes() const;

  private:
    /** Writes the open bucket's all-reduce. */
    void Close();

    RankTraceBuilder& m_trace;                 //!< the rank's trace
    std::string m_pg;                          //!< process group
    std::string m_namePrefix;                  //!< node name prefix
    uint64_t m_bucketBytes;                    //!< limit of later buckets
    uint64_t m_firstBucketBytes;               //!< limit of the first bucket
    int64_t m_stream;                          //!< GPU stream
    ChakraProtoMsg::CollectiveCommType m_type; //!< the collective of each bucket
    uint64_t m_open{0};                        //!< bytes in the open bucket
    uint32_t m_openGradients{0};               //!< gradients in the open bucket
    uint64_t m_lastReady{0};        //!< node that produced the open bucket's last gradient
    std::optional<uint64_t> m_last; //!< last all-reduce written
    std::vector<uint64_t> m_sizes;  //!< sizes of the all-reduces written
};

} // namespace ns3

#endif // CHAKRA_GRADIENT_BUCKETER_H
