/*
 * NodeCommunication: the process groups a trace declares, the communication calls it makes,
 * and what each call's comm node carries (op, size, group, root, sender, receiver, tag).
 */
#include "node-communication.h"

#include <algorithm>
#include <limits>

namespace ns3
{

NodeCommunication::NodeCommunication(const PyTorchTrace& trace,
                                     const NodeRoles& roles,
                                     ConversionReport& report)
    : m_trace(trace),
      m_roles(roles),
      m_report(report)
{
}

void
NodeCommunication::ReadProcessGroups(std::optional<int64_t> worldSize)
{
    m_metadataValues.assign(m_trace.GetSize(), std::string());
    for (std::size_t i = 0; i < m_trace.GetSize(); ++i)
    {
        if (m_roles.Get(i) == NodeRole::Metadata)
        {
            m_metadataValues[i] =
                m_groups.AddInitNode(m_trace.GetNode(i), m_trace.GetPath(), worldSize);
        }
    }
}

const ProcessGroupTable&
NodeCommunication::GetGroups() const
{
    return m_groups;
}

const std::string&
NodeCommunication::GetMetadataValues(std::size_t i) const
{
    return m_metadataValues[i];
}

const std::optional<CommInfo>&
NodeCommunication::Get(std::size_t i) const
{
    return m_comm[i];
}

bool
NodeCommunication::IsFromKernel(std::size_t i) const
{
    return m_fromKernel[i];
}

std::string
NodeCommunication::ResolvePg(const CollectiveCall& call) const
{
    if (call.pgName)
    {
        return *call.pgName;
    }
    if (call.pgBackendId)
    {
        if (auto name = m_groups.FindNameByBackendId(*call.pgBackendId))
        {
            return *name;
        }
    }
    return "";
}

int64_t
NodeCommunication::ToGlobal(std::size_t node,
                            const std::string& pg,
                            int64_t local,
                            const char* what)
{
    auto global = m_groups.ToGlobal(pg, local);
    if (!global)
    {
        m_trace.ThrowNodeError(node,
                               std::string(what) + " " + std::to_string(local) +
                                   " is not a rank of process group \"" + pg + "\"");
    }
    return *global;
}

void
NodeCommunication::Find(std::optional<int64_t> rank)
{
    m_rank = rank;
    std::vector<CommLayerInfo> layers(m_trace.GetSize());
    for (std::size_t i = 0; i < m_trace.GetSize(); ++i)
    {
        if (m_roles.Get(i) == NodeRole::HostOp)
        {
            layers[i] = ClassifyHostOp(m_trace.GetNode(i), m_trace.GetPath());
        }
    }
    CollectiveCallSet set = FindCollectiveCalls(m_trace, layers);
    m_comm.assign(m_trace.GetSize(), std::nullopt);
    m_fromKernel.assign(m_trace.GetSize(), false);

    // Calls in the order of their comm node, so that message tags follow program order.
    std::vector<const CollectiveCall*> calls;
    for (const CollectiveCall& call : set.calls)
    {
        calls.push_back(&call);
    }
    auto commNode = [](const CollectiveCall* call) {
        return call->kernel ? *call->kernel : call->hostOp;
    };
    std::stable_sort(calls.begin(), calls.end(), [&](const auto* a, const auto* b) {
        return commNode(a) < commNode(b);
    });
    MessageCounts sent;
    MessageCounts received;
    for (const CollectiveCall* call : calls)
    {
        std::size_t node = commNode(call);
        m_fromKernel[node] = call->kernel.has_value();
        m_comm[node] = DescribeCall(*call, sent, received);
    }
    ReportUnpairedKernels(set);
}

CommInfo
NodeCommunication::DescribeCall(const CollectiveCall& call,
                                MessageCounts& sent,
                                MessageCounts& received)
{
    CommInfo info;
    info.op = call.op;
    info.bytes = call.bytes;
    info.pgName = ResolvePg(call);
    if (call.kernel)
    {
        auto kernelOp = ClassifyNcclKernelName(m_trace.GetNode(*call.kernel).name);
        bool p2pKernel = kernelOp && kernelOp->kind == CommKind::SendRecv;
        bool p2pHost = call.op.kind != CommKind::Collective;
        // NCCL runs all-to-all, gather and scatter as grouped send/recv.
        bool viaSendRecv =
            call.op.kind == CommKind::Collective &&
            (call.op.type == ChakraProtoMsg::ALL_TO_ALL || call.op.type == ChakraProtoMsg::GATHER ||
             call.op.type == ChakraProtoMsg::SCATTER);
        if (kernelOp && p2pHost != p2pKernel && !(p2pKernel && viaSendRecv))
        {
            m_report.AddWarning(m_trace.GetNode(*call.kernel).Describe() + " runs under " +
                                m_trace.GetNode(call.hostOp).Describe() +
                                ": the host op's collective is used");
        }
    }
    if (call.recordedBytes && *call.recordedBytes != call.bytes)
    {
        ++m_report.sizeMismatches;
        m_report.AddWarning(m_trace.GetNode(call.hostOp).Describe() + ": input tensors hold " +
                            std::to_string(call.bytes) + " bytes, record_param_comms says " +
                            std::to_string(*call.recordedBytes) + " (in_msg_nelems x dtype size)");
    }
    if (call.rootLocal)
    {
        info.root = ToGlobal(call.hostOp, info.pgName, *call.rootLocal, "root rank");
    }
    if (call.op.kind == CommKind::Send || call.op.kind == CommKind::Recv)
    {
        const bool send = call.op.kind == CommKind::Send;
        if (!m_rank)
        {
            m_trace.ThrowNodeError(call.hostOp,
                                   std::string(send ? "send" : "recv") +
                                       ": this trace's global rank is unknown (no "
                                       "trace_link.rank): give the rank (--rank)");
        }
        if (!call.peerLocal)
        {
            m_trace.ThrowNodeError(call.hostOp,
                                   std::string("cannot find the ") +
                                       (send ? "destination" : "source") +
                                       " rank of this message (no c10d::send/recv_ or "
                                       "record_param_comms around it)");
        }
        int64_t peer = ToGlobal(call.hostOp,
                                info.pgName,
                                *call.peerLocal,
                                send ? "destination rank" : "source rank");
        info.src = send ? *m_rank : peer;
        info.dst = send ? peer : *m_rank;
        auto key = std::make_tuple(info.pgName, info.src, info.dst);
        info.tag = send ? sent[key]++ : received[key]++;
        if (info.tag > std::numeric_limits<int32_t>::max())
        {
            m_trace.ThrowNodeError(call.hostOp, "more than 2^31 messages between two ranks");
        }
    }
    return info;
}

void
NodeCommunication::ReportUnpairedKernels(const CollectiveCallSet& set)
{
    for (std::size_t k : set.orphanKernels)
    {
        const PyTorchNode& kernel = m_trace.GetNode(k);
        auto op = ClassifyNcclKernelName(kernel.name);
        if (!op || op->kind != CommKind::Collective)
        {
            m_report.AddWarning(kernel.Describe() +
                                ": NCCL kernel under no collective host op, and its name "
                                "does not tell the collective: kept as a GPU compute op");
            continue;
        }
        m_report.AddWarning(kernel.Describe() +
                            ": NCCL kernel under no collective host op: COMM_COLL of " +
                            "unknown size (comm_size 0)");
        CommInfo info;
        info.op = *op;
        info.pgName = kernel.pgName.value_or("");
        m_comm[k] = info;
        m_fromKernel[k] = true;
    }
    for (std::size_t k : set.adoptedKernels)
    {
        m_report.AddWarning(m_trace.GetNode(k).Describe() +
                            ": NCCL kernel under no collective host op: taken as the kernel of "
                            "the nearest "
                            "collective call of its type that had none");
    }
    for (std::size_t k : set.extraKernels)
    {
        m_report.AddWarning(m_trace.GetNode(k).Describe() +
                            ": a second NCCL kernel for one collective call: kept as a GPU "
                            "compute op");
    }
}

} // namespace ns3
