/*
 * LinkJob's attachment of GPU ops (kernels, memcpys, memsets) to host ops: correlation ->
 * runtime call -> the innermost linked host op enclosing the call on its thread.
 */
#include "link-job.h"

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

int32_t
LinkJob::EnclosingLinkedOp(uint32_t thread, TimeNs t, int64_t externalId) const
{
    int32_t k = -1;
    auto it = m_cpuByExternalId.find(externalId);
    if (externalId != kKinetoNone && it != m_cpuByExternalId.end())
    {
        // Newer traces give a launcher the External id of the op it ran in: use it when it
        // agrees with the thread and time.
        const KinetoCpuOp& op = m_cpu[it->second];
        if (op.thread == thread && op.ts <= t && t <= op.End())
        {
            k = it->second;
        }
    }
    if (k < 0)
    {
        k = m_device.FindInnermost(thread, t);
    }
    while (k >= 0 && m_cpuToHost[k] < 0)
    {
        k = m_cpu[k].parent;
    }
    return k;
}

int32_t
LinkJob::NextLinkedOp(uint32_t thread, TimeNs t) const
{
    auto [first, last] = m_device.GetThreadRange(thread);
    auto begin = m_cpu.begin() + first;
    auto end = m_cpu.begin() + last;
    auto it = std::lower_bound(begin, end, t, [](const KinetoCpuOp& op, TimeNs value) {
        return op.ts < value;
    });
    for (; it != end; ++it)
    {
        int32_t k = static_cast<int32_t>(it - m_cpu.begin());
        if (m_cpuToHost[k] >= 0)
        {
            return k;
        }
    }
    return -1;
}

void
LinkJob::AttachGpuOps()
{
    m_gpuHost.assign(m_gpu.size(), -1);
    m_gpuLaunch.assign(m_gpu.size(), 0);
    m_gpuLauncher.assign(m_gpu.size(), -1);
    m_gpuReason.assign(m_gpu.size(), {});
    m_hostGpuOps.assign(m_ops.size(), {});
    const auto& calls = m_device.GetRuntimeCalls();
    for (uint32_t g = 0; g < m_gpu.size(); ++g)
    {
        const KinetoGpuOp& op = m_gpu[g];
        ++m_summary.gpuOpsByKind[static_cast<int>(op.kind)];
        if (op.correlation == kKinetoNone)
        {
            m_gpuReason[g] = {"no-correlation", "the device op has no correlation id"};
            continue;
        }
        int64_t r = m_device.FindRuntimeCall(op.correlation);
        if (r < 0)
        {
            m_gpuReason[g] = {"no-launcher",
                              "no launcher with correlation " + std::to_string(op.correlation) +
                                  " in the device trace (launched before the profiler window)"};
            continue;
        }
        const KinetoRuntimeCall& call = calls[r];
        m_gpuLauncher[g] = r;
        m_gpuLaunch[g] = call.ts;
        int32_t k = EnclosingLinkedOp(call.thread, call.ts, call.externalId);
        if (k < 0)
        {
            const std::string launcher =
                m_device.GetName(call.name) + " at " + MicrosText(call.ts) + " us";
            if (!m_hasSpan || call.ts < m_spanStart || call.ts > m_spanEnd)
            {
                m_gpuReason[g] = {"outside-iteration",
                                  "launched by " + launcher +
                                      ", outside the span of the linked host ops"};
            }
            else
            {
                m_gpuReason[g] = {"no-enclosing-host-op",
                                  "launcher " + launcher + " on thread " +
                                      m_device.GetThreadLabel(call.thread) +
                                      " is not inside any linked host op"};
            }
            continue;
        }
        m_gpuHost[g] = m_cpuToHost[k];
        m_hostGpuOps[m_cpuToHost[k]].push_back(g);
        ++m_summary.gpuOpsAttached;
        ++m_summary.gpuOpsAttachedByKind[static_cast<int>(op.kind)];
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

} // namespace ns3
