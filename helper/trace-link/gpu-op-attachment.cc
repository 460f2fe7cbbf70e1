/*
 * GpuOpAttachment: GPU ops (kernels, memcpys, memsets) attached to host ops: correlation ->
 * runtime call -> the innermost linked host op enclosing the call on its thread.
 */
#include "gpu-op-attachment.h"

#include "ns3/trace-file.h"

#include <algorithm>
#include <tuple>

namespace ns3
{

namespace
{

/** \return a time in nanoseconds as microseconds text ("12", "12.5") */
std::string
MicrosText(TimeNs ns)
{
    return MicrosecondsJson(ns).dump();
}

} // namespace

GpuOpAttachment::GpuOpAttachment(const KinetoTrace& device,
                                 const HostOpMatching& matching,
                                 std::size_t hostOpCount)
    : m_device(device),
      m_matching(matching),
      m_gpu(device.GetGpuOps())
{
    m_gpuHost.assign(m_gpu.size(), -1);
    m_gpuLaunch.assign(m_gpu.size(), 0);
    m_gpuLauncher.assign(m_gpu.size(), -1);
    m_gpuReason.assign(m_gpu.size(), {});
    m_hostGpuOps.assign(hostOpCount, {});
}

void
GpuOpAttachment::Attach()
{
    for (uint32_t g = 0; g < m_gpu.size(); ++g)
    {
        const auto kind = static_cast<int>(m_gpu[g].kind);
        ++m_byKind[kind];
        if (AttachOne(g))
        {
            ++m_attached;
            ++m_attachedByKind[kind];
        }
    }
    for (auto& list : m_hostGpuOps)
    {
        std::sort(list.begin(), list.end(), [this](uint32_t a, uint32_t b) {
            return std::make_tuple(m_gpuLaunch[a],
                                   m_gpu[a].correlation,
                                   m_gpu[a].ts,
                                   m_gpu[a].fileIndex) < std::make_tuple(m_gpuLaunch[b],
                                                                         m_gpu[b].correlation,
                                                                         m_gpu[b].ts,
                                                                         m_gpu[b].fileIndex);
        });
    }
}

bool
GpuOpAttachment::AttachOne(uint32_t g)
{
    const KinetoGpuOp& op = m_gpu[g];
    if (op.correlation == kKinetoNone)
    {
        m_gpuReason[g] = {"no-correlation", "the device op has no correlation id"};
        return false;
    }
    int64_t r = m_device.FindRuntimeCall(op.correlation);
    if (r < 0)
    {
        m_gpuReason[g] = {"no-launcher",
                          "no launcher with correlation " + std::to_string(op.correlation) +
                              " in the device trace (launched before the profiler window)"};
        return false;
    }
    const KinetoRuntimeCall& call = m_device.GetRuntimeCalls()[r];
    m_gpuLauncher[g] = r;
    m_gpuLaunch[g] = call.ts;
    int32_t k = m_matching.EnclosingLinkedOp(call.thread, call.ts, call.externalId);
    if (k < 0)
    {
        m_gpuReason[g] = NoEnclosingOpReason(call);
        return false;
    }
    const int32_t host = m_matching.GetHostOp(k);
    m_gpuHost[g] = host;
    m_hostGpuOps[host].push_back(g);
    return true;
}

std::pair<std::string, std::string>
GpuOpAttachment::NoEnclosingOpReason(const KinetoRuntimeCall& call) const
{
    const std::string launcher = m_device.GetName(call.name) + " at " + MicrosText(call.ts) + " us";
    if (!m_matching.HasSpan() || call.ts < m_matching.GetSpanStart() ||
        call.ts > m_matching.GetSpanEnd())
    {
        return {"outside-iteration",
                "launched by " + launcher + ", outside the span of the linked host ops"};
    }
    return {"no-enclosing-host-op",
            "launcher " + launcher + " on thread " + m_device.GetThreadLabel(call.thread) +
                " is not inside any linked host op"};
}

int32_t
GpuOpAttachment::GetHostOp(uint32_t gpu) const
{
    return m_gpuHost[gpu];
}

TimeNs
GpuOpAttachment::GetLaunchTime(uint32_t gpu) const
{
    return m_gpuLaunch[gpu];
}

int64_t
GpuOpAttachment::GetLauncher(uint32_t gpu) const
{
    return m_gpuLauncher[gpu];
}

const std::pair<std::string, std::string>&
GpuOpAttachment::GetReason(uint32_t gpu) const
{
    return m_gpuReason[gpu];
}

const std::vector<uint32_t>&
GpuOpAttachment::GetGpuOps(std::size_t host) const
{
    return m_hostGpuOps[host];
}

uint64_t
GpuOpAttachment::GetAttachedCount() const
{
    return m_attached;
}

uint64_t
GpuOpAttachment::GetCountByKind(int kind) const
{
    return m_byKind[kind];
}

uint64_t
GpuOpAttachment::GetAttachedCountByKind(int kind) const
{
    return m_attachedByKind[kind];
}

} // namespace ns3
