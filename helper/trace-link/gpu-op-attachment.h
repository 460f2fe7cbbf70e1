/*
 * GpuOpAttachment: the linker's second step, each kernel, memcpy and memset under the host op
 * that launched it (private to helper/trace-link).
 */
#ifndef CHAKRA_GPU_OP_ATTACHMENT_H
#define CHAKRA_GPU_OP_ATTACHMENT_H

#include "host-op-matching.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace ns3
{

/**
 * \ingroup chakra-linker
 * \brief GPU ops attached to the host ops that launched them.
 *
 * A GPU op's correlation names its runtime call (the launcher); the innermost linked host op
 * enclosing the call on its thread launched it. An op that cannot be attached keeps the
 * reason.
 */
class GpuOpAttachment
{
  public:
    /**
     * \param device the Kineto trace
     * \param matching the host ops matched to its CPU ops
     * \param hostOpCount the number of host trace nodes
     */
    GpuOpAttachment(const KinetoTrace& device,
                    const HostOpMatching& matching,
                    std::size_t hostOpCount);

    /** Attaches every GPU op it can, and orders each host op's GPU ops by launch. */
    void Attach();

    /** \return the host op that launched GPU op \p gpu, or -1 */
    int32_t GetHostOp(uint32_t gpu) const;
    /** \return the start of the launcher of GPU op \p gpu (0 without one) */
    TimeNs GetLaunchTime(uint32_t gpu) const;
    /** \return the runtime call (index) that launched GPU op \p gpu, or -1 */
    int64_t GetLauncher(uint32_t gpu) const;
    /** \return the reason code and reason of a GPU op left unattached */
    const std::pair<std::string, std::string>& GetReason(uint32_t gpu) const;
    /** \return the GPU ops host op \p host launched, in launch order */
    const std::vector<uint32_t>& GetGpuOps(std::size_t host) const;
    /** \return the number of GPU ops attached */
    uint64_t GetAttachedCount() const;
    /** \return the number of GPU ops of a GpuOpKind (index) */
    uint64_t GetCountByKind(int kind) const;
    /** \return the number of GPU ops of a GpuOpKind (index) attached */
    uint64_t GetAttachedCountByKind(int kind) const;

  private:
    /**
     * Attaches GPU op \p g, or records why it cannot be.
     * \return whether it was attached
     */
    bool AttachOne(uint32_t g);
    /** \return why the op launched by \p call has no enclosing linked host op */
    std::pair<std::string, std::string> NoEnclosingOpReason(const KinetoRuntimeCall& call) const;

    const KinetoTrace& m_device;
    const HostOpMatching& m_matching;
    const std::vector<KinetoGpuOp>& m_gpu;

    std::vector<int32_t> m_gpuHost;     //!< GPU op -> launching host op or -1
    std::vector<TimeNs> m_gpuLaunch;    //!< GPU op -> its launcher's start
    std::vector<int64_t> m_gpuLauncher; //!< GPU op -> runtime call index or -1
    std::vector<std::pair<std::string, std::string>> m_gpuReason; //!< code, reason
    std::vector<std::vector<uint32_t>> m_hostGpuOps; //!< host op -> its GPU ops, launch order
    uint64_t m_attached{0};                          //!< GPU ops attached
    uint64_t m_byKind[3]{0, 0, 0};                   //!< GPU ops by GpuOpKind
    uint64_t m_attachedByKind[3]{0, 0, 0};           //!< attached GPU ops by GpuOpKind
};

} // namespace ns3

#endif // CHAKRA_GPU_OP_ATTACHMENT_H
