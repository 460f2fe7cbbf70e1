/*
 * NodeDependencies: control deps from the call tree, data deps from program order per thread,
 * the linker's inter_thread_dep, sync_deps and cross_stream_deps, and GPU stream order.
 */
#include "node-dependencies.h"

#include "dependency-cycle.h"

#include <algorithm>
#include <map>

namespace ns3
{

NodeDependencies::NodeDependencies(const PyTorchTrace& trace,
                                   const NodeRoles& roles,
                                   ConversionReport& report)
    : m_trace(trace),
      m_roles(roles),
      m_report(report)
{
}

const std::vector<std::size_t>&
NodeDependencies::GetDataDeps(std::size_t i) const
{
    return m_deps[i];
}

const std::optional<std::size_t>&
NodeDependencies::GetControlDep(std::size_t i) const
{
    return m_ctrl[i];
}

int64_t
NodeDependencies::GetTid(std::size_t i) const
{
    return m_tid[i];
}

void
NodeDependencies::Build()
{
    m_deps.assign(m_trace.GetSize(), {});
    m_ctrl.assign(m_trace.GetSize(), std::nullopt);
    AddControlDeps();
    AddHostDeps();
    AddGpuDeps();
    for (std::size_t i = 0; i < m_trace.GetSize(); ++i)
    {
        auto& deps = m_deps[i];
        std::sort(deps.begin(), deps.end());
        deps.erase(std::unique(deps.begin(), deps.end()), deps.end());
        deps.erase(std::remove(deps.begin(), deps.end(), i), deps.end());
    }
}

void
NodeDependencies::AddControlDeps()
{
    std::vector<int64_t>& tid = m_tid;
    tid.assign(m_trace.GetSize(), 0);
    std::vector<std::optional<std::size_t>> keptAncestor(m_trace.GetSize());
    for (std::size_t i : m_trace.GetPreorder())
    {
        auto parent = m_trace.GetParent(i);
        const PyTorchNode& node = m_trace.GetNode(i);
        tid[i] = node.tid ? *node.tid : (parent ? tid[*parent] : 0);
        if (parent)
        {
            bool kept = m_roles.InOutput(*parent) && m_roles.Get(*parent) != NodeRole::Metadata;
            keptAncestor[i] = kept ? parent : keptAncestor[*parent];
        }
        if (m_roles.InOutput(i) && m_roles.Get(i) != NodeRole::Metadata)
        {
            m_ctrl[i] = keptAncestor[i];
        }
    }
}

NodeDependencies::ThreadOrder
NodeDependencies::ChainHostOps()
{
    // Host ops of one thread in program order (preorder of the call tree).
    ThreadOrder order;
    order.position.assign(m_trace.GetSize(), 0);
    order.next.assign(m_trace.GetSize(), std::nullopt);
    std::map<int64_t, std::size_t> last;
    std::size_t counter = 0;
    for (std::size_t i : m_trace.GetPreorder())
    {
        if (!m_roles.IsHostWork(i))
        {
            continue;
        }
        order.position[i] = ++counter;
        auto it = last.find(m_tid[i]);
        if (it != last.end())
        {
            m_deps[i].push_back(it->second);
            order.next[it->second] = i;
        }
        last[m_tid[i]] = i;
    }
    return order;
}

void
NodeDependencies::AddHostDeps()
{
    const std::vector<int64_t>& tid = m_tid;
    const ThreadOrder order = ChainHostOps();
    const std::vector<std::size_t>& position = order.position;
    const std::vector<std::optional<std::size_t>>& next = order.next;
    for (std::size_t i = 0; i < m_trace.GetSize(); ++i)
    {
        const PyTorchNode& node = m_trace.GetNode(i);
        if (!m_roles.IsHostWork(i))
        {
            continue;
        }
        if (node.interThreadDep)
        {
            auto dep = m_trace.FindIndex(*node.interThreadDep);
            if (!dep || !m_roles.InOutput(*dep) || m_roles.Get(*dep) == NodeRole::Metadata ||
                *dep == i)
            {
                ++m_report.droppedReferences;
                m_report.AddWarning(node.Describe() + ": inter_thread_dep " +
                                    std::to_string(*node.interThreadDep) +
                                    " is not a node of the output");
            }
            else
            {
                m_deps[i].push_back(*dep);
            }
        }
        for (uint64_t id : node.syncDeps)
        {
            auto gpu = m_trace.FindIndex(id);
            if (!gpu || m_roles.Get(*gpu) != NodeRole::GpuOp)
            {
                ++m_report.droppedReferences;
                m_report.AddWarning(node.Describe() + ": sync_deps names " + std::to_string(id) +
                                    ", which is not a GPU op of the trace");
                continue;
            }
            auto launcher = m_trace.GetParent(*gpu);
            if (launcher && m_roles.IsHostWork(*launcher) && tid[*launcher] == tid[i] &&
                position[*launcher] >= position[i])
            {
                // The op waits for work it launched itself (a blocking copy): the wait
                // holds back the next host op of the thread instead.
                if (next[*launcher])
                {
                    m_deps[*next[*launcher]].push_back(*gpu);
                    ++m_report.movedSyncDeps;
                }
                continue;
            }
            m_deps[i].push_back(*gpu);
        }
    }
}

void
NodeDependencies::AddGpuDeps()
{
    std::map<std::pair<int64_t, int64_t>, std::vector<std::size_t>> streams;
    for (std::size_t i = 0; i < m_trace.GetSize(); ++i)
    {
        if (m_roles.Get(i) != NodeRole::GpuOp)
        {
            continue;
        }
        const PyTorchNode& node = m_trace.GetNode(i);
        auto parent = m_trace.GetParent(i);
        if (parent && m_roles.IsHostWork(*parent))
        {
            m_deps[i].push_back(*parent);
        }
        for (uint64_t id : node.crossStreamDeps)
        {
            auto other = m_trace.FindIndex(id);
            if (!other || m_roles.Get(*other) != NodeRole::GpuOp || *other == i)
            {
                ++m_report.droppedReferences;
                m_report.AddWarning(node.Describe() + ": cross_stream_deps names " +
                                    std::to_string(id) +
                                    ", which is not another GPU op of the trace");
                continue;
            }
            m_deps[i].push_back(*other);
        }
        streams[{node.device.value_or(-1), *node.stream}].push_back(i);
    }
    for (auto& [key, ops] : streams)
    {
        bool timed = std::all_of(ops.begin(), ops.end(), [&](std::size_t i) {
            return m_trace.GetNode(i).ts.has_value();
        });
        if (timed)
        {
            std::stable_sort(ops.begin(), ops.end(), [&](std::size_t a, std::size_t b) {
                return *m_trace.GetNode(a).ts < *m_trace.GetNode(b).ts;
            });
        }
        for (std::size_t k = 1; k < ops.size(); ++k)
        {
            m_deps[ops[k]].push_back(ops[k - 1]);
        }
    }
}

void
NodeDependencies::CheckCycles() const
{
    std::vector<std::vector<std::size_t>> graph(m_deps);
    for (std::size_t i = 0; i < m_trace.GetSize(); ++i)
    {
        if (m_ctrl[i])
        {
            graph[i].push_back(*m_ctrl[i]);
        }
    }
    std::vector<std::size_t> cycle = FindDependencyCycle(graph);
    if (cycle.empty())
    {
        return;
    }
    std::string text;
    for (std::size_t i : cycle)
    {
        text += m_trace.GetNode(i).Describe() + " -> ";
    }
    text += m_trace.GetNode(cycle.front()).Describe();
    m_trace.ThrowNodeError(cycle.front(),
                           "dependency cycle (each node waits for the one before): " + text);
}

} // namespace ns3
