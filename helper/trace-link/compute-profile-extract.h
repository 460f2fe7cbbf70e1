/*
 * ComputeProfileExtractor: the measured GEMM times of linked traces, as a compute profile that
 * the LLM workload's planner reads in place of its roofline (chakra_replay's profile.csv).
 */
#ifndef CHAKRA_COMPUTE_PROFILE_EXTRACT_H
#define CHAKRA_COMPUTE_PROFILE_EXTRACT_H

#include "host-trace.h"

#include "ns3/compute-profile.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace ns3
{

/**
 * \ingroup chakra-linker
 * \brief A profile key: op and shape ("gemm", "512x1024x1024").
 */
using ProfileKey = std::pair<std::string, std::string>;

/**
 * \ingroup chakra-linker
 * \brief The profile key of a host op, if it is a GEMM whose shapes say its size.
 *
 * For C[M,N] = A[M,K] B[K,N] the key is ("gemm", "MxNxK"); the aten ops' inputs map so:
 * - aten::mm(self [M,K], mat2 [K,N]);
 * - aten::addmm(bias, mat1 [M,K], mat2 [K,N]): the first input is the bias;
 * - aten::linear(input [..., K], weight [N,K], bias): y = x W^T, M the product of the input's
 *   leading dimensions (a [b, s, K] input is b x s rows);
 * - aten::matmul(A [..., K], B [K,N]): M the product of A's leading dimensions; a 1-D A or a
 *   batched B is no 2-D GEMM;
 * - aten::bmm(A [B,M,K], B [B,K,N]): ("bmm", "BxMxNxK"), B independent GEMMs in one kernel.
 * \param name the op's name
 * \param shapes the op's input shapes, in order (an empty list for a non-tensor input)
 * \return the key; nullopt when \p name is none of these ops or the shapes do not fit (missing,
 *         another rank, inner dimensions that differ, a zero dimension)
 */
std::optional<ProfileKey> GemmProfileKey(const std::string& name,
                                         const std::vector<std::vector<int64_t>>& shapes);

/**
 * \ingroup chakra-linker
 * \return true if \p name is one of the GEMM ops GemmProfileKey knows
 */
bool IsGemmOp(const std::string& name);

/**
 * \ingroup chakra-linker
 * \brief What an extraction found and left out.
 */
struct ProfileExtractCounts
{
    uint64_t traces{0};       //!< linked traces added
    uint64_t gemmOps{0};      //!< GEMM host ops timed: one sample each
    uint64_t noKernelTime{0}; //!< GEMM ops skipped: no kernel, or a kernel without a duration
    uint64_t shapeUnknown{0}; //!< GEMM ops skipped: shapes missing or not a 2-D GEMM (bmm: 3-D)
    uint64_t nestedInGemm{0}; //!< GEMM ops inside a timed GEMM op (timed as part of it)
};

/**
 * \ingroup chakra-linker
 * \brief Collects the GEMM times of linked traces (doc/linked-trace.md) and makes a profile.
 *
 * A linked trace hangs each kernel under the innermost host op that launched it. For every
 * GEMM host op (IsGemmOp) with a key (GemmProfileKey), the sample is the summed "dur" of the
 * kernels ("cat": "kernel") in its subtree: aten::linear launches through its aten::addmm or
 * aten::mm, whose kernels count for the linear. GEMM ops inside a timed one are part of it,
 * not samples of their own; an outer op without a key (a batched matmul) is skipped and its
 * inner GEMMs are timed. memcpy and memset nodes are not kernels and do not count.
 *
 * The profile's time per key is the median of its samples over every trace added (all ranks
 * pooled: the ranks of a data- or tensor-parallel job run the same GEMMs, and more samples
 * give a steadier median). The median rather than the mean because a kernel's first call
 * pays for cuBLAS's heuristics, lazy loading and cold caches, and a stray call can be
 * stretched by a clock change or a concurrent kernel: one outlier moves the mean, not the
 * median. With an even count it is the mean of the two middle samples.
 *
 * Other ops get no rows: the planner looks up only its own op names and "gemm" (and a key
 * of a host op's name and shape string would have no reader).
 */
class ComputeProfileExtractor
{
  public:
    /**
     * Adds the GEMMs of one linked trace.
     * \param linked the document (LinkResult::trace, or a linked trace as read)
     * \param source its file, for errors
     * \throws TraceError naming \p source when the document has no "nodes" list
     */
    void AddTrace(const HostJson& linked, const std::string& source);

    /**
     * Reads a linked trace (plain or gzip'd JSON) and adds it.
     * \param path the file
     * \throws TraceError naming the file when it cannot be read or parsed
     */
    void AddFile(const std::string& path);

    /** \return per key, the median of its samples */
    ComputeProfile GetProfile() const;

    /** \return per key, the samples in the order found */
    const std::map<ProfileKey, std::vector<double>>& GetSamples() const;

    /** \return what was found and skipped */
    const ProfileExtractCounts& GetCounts() const;

    /**
     * \return one line for a tool: "<rows> rows from <ops> GEMM ops of <traces> linked
     *         trace(s)", then the ops skipped and why, if any
     */
    std::string Summary() const;

  private:
    /** Times GEMM node \p index of \p nodes from its subtree's kernels (or counts the skip). */
    void TimeGemm(const HostJson& nodes,
                  std::size_t index,
                  const ProfileKey& key,
                  const std::vector<std::vector<std::size_t>>& children);

    std::map<ProfileKey, std::vector<double>> m_samples; //!< key -> microseconds, per op
    ProfileExtractCounts m_counts;                       //!< what was found and skipped
};

} // namespace ns3

#endif // CHAKRA_COMPUTE_PROFILE_EXTRACT_H
