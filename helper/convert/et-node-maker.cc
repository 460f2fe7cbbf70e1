/*
 * EtNodeMaker: a trace node as a .et node: type, times (the op's own time, less what it spent
 * blocked, plus the gap before it), dependencies, io and attributes.
 */
#include "et-node-maker.h"

#include "trace-attribute.h"

#include "ns3/et-attribute-writer.h"
#include "ns3/et-node.h"

#include <algorithm>
#include <cmath>

namespace ns3
{

namespace
{

/** \return the value rounded to whole microseconds (never negative) */
uint64_t
Micros(double value)
{
    return value <= 0 ? 0 : static_cast<uint64_t>(std::llround(value));
}

} // namespace

EtNodeMaker::EtNodeMaker(const PyTorchTrace& trace,
                         const NodeRoles& roles,
                         const NodeCommunication& communication,
                         const NodeDependencies& dependencies,
                         ConversionReport& report)
    : m_trace(trace),
      m_roles(roles),
      m_communication(communication),
      m_dependencies(dependencies),
      m_report(report)
{
}

ChakraProtoMsg::Node
EtNodeMaker::Make(std::size_t i)
{
    const PyTorchNode& source = m_trace.GetNode(i);
    ChakraProtoMsg::Node node;
    node.set_id(source.id);
    if (source.ts && *source.ts >= 0)
    {
        node.set_start_time_micros(Micros(*source.ts));
    }
    for (std::size_t dep : m_dependencies.GetDataDeps(i))
    {
        node.add_data_deps(m_trace.GetNode(dep).id);
    }
    if (m_dependencies.GetControlDep(i))
    {
        node.add_ctrl_deps(m_trace.GetNode(*m_dependencies.GetControlDep(i)).id);
    }
    m_report.dataDeps += node.data_deps_size();
    m_report.ctrlDeps += node.ctrl_deps_size();

    if (m_roles.Get(i) == NodeRole::Metadata)
    {
        node.set_name("process_group:init");
        node.set_type(ChakraProtoMsg::METADATA_NODE);
        node.mutable_inputs()->set_values(m_communication.GetMetadataValues(i));
        ++m_report.metadataNodes;
        return node;
    }
    node.set_name(source.name);
    const bool gpu = m_roles.Get(i) == NodeRole::GpuOp;
    std::optional<double> duration = Duration(source, gpu);
    if (duration)
    {
        node.set_duration_micros(Micros(*duration));
    }
    SetType(node, i, gpu);
    AddAttributes(node, i, gpu, duration);
    auto setIo = [](const PyTorchIo& io, ChakraProtoMsg::IOInfo* out) {
        out->set_values(io.values);
        out->set_shapes(io.shapes);
        out->set_types(io.types);
    };
    if (!source.inputs.IsEmpty())
    {
        setIo(source.inputs, node.mutable_inputs());
    }
    if (!source.outputs.IsEmpty())
    {
        setIo(source.outputs, node.mutable_outputs());
    }
    return node;
}

std::optional<double>
EtNodeMaker::Duration(const PyTorchNode& source, bool gpu)
{
    std::optional<double> duration = gpu ? source.dur : source.exclusiveDur;
    if (!gpu && duration && source.waitDur)
    {
        // The part of the op's own time spent blocked (on the device or another thread) is
        // replayed by its dependencies, not as CPU time.
        duration = std::max(0.0, *duration - *source.waitDur);
    }
    if (!gpu && duration && source.gapDur)
    {
        // The thread's time between the previous op and this one (Python, framework).
        duration = *duration + *source.gapDur;
    }
    return duration;
}

void
EtNodeMaker::SetType(ChakraProtoMsg::Node& node, std::size_t i, bool gpu)
{
    const auto& comm = m_communication.Get(i);
    if (!comm)
    {
        node.set_type(ChakraProtoMsg::COMP_NODE);
        ++(gpu ? m_report.gpuOps : m_report.cpuOps);
    }
    else if (comm->op.kind == CommKind::Send)
    {
        node.set_type(ChakraProtoMsg::COMM_SEND_NODE);
        ++m_report.sends;
    }
    else if (comm->op.kind == CommKind::Recv)
    {
        node.set_type(ChakraProtoMsg::COMM_RECV_NODE);
        ++m_report.recvs;
    }
    else
    {
        node.set_type(ChakraProtoMsg::COMM_COLL_NODE);
        ++m_report.collectives[CommTypeName(comm->op.type)];
    }
}

void
EtNodeMaker::AddAttributes(ChakraProtoMsg::Node& node,
                           std::size_t i,
                           bool gpu,
                           std::optional<double> duration)
{
    const PyTorchNode& source = m_trace.GetNode(i);
    EtAttributeWriter attributes(node.mutable_attr());
    attributes.Bool("is_cpu_op", !gpu);
    if (const auto& comm = m_communication.Get(i))
    {
        ++(m_communication.IsFromKernel(i) ? m_report.commFromKernels : m_report.commFromHostOps);
        m_report.commBytes += comm->bytes;
        if (comm->op.kind == CommKind::Collective)
        {
            attributes.Int64("comm_type", comm->op.type);
        }
        attributes.Int64("comm_size", static_cast<int64_t>(comm->bytes));
        attributes.String("pg_name", comm->pgName);
        if (comm->root)
        {
            attributes.Int64("root_rank", *comm->root);
        }
        if (comm->op.kind != CommKind::Collective)
        {
            attributes.Int32("comm_src", static_cast<int32_t>(comm->src));
            attributes.Int32("comm_dst", static_cast<int32_t>(comm->dst));
            attributes.Int32("comm_tag", static_cast<int32_t>(comm->tag));
        }
    }
    if (gpu)
    {
        attributes.Int64("stream", *source.stream);
        if (source.device)
        {
            attributes.Int64("device", *source.device);
        }
        if (source.correlation)
        {
            attributes.Int64("correlation", *source.correlation);
        }
        attributes.String("cat", source.cat);
    }
    else
    {
        attributes.Int64("tid", m_dependencies.GetTid(i));
    }
    if (duration)
    {
        attributes.Double("duration_exact_micros", *duration);
    }
    for (const PyTorchAttr& attr : source.attrs)
    {
        if (!IsConverterAttribute(attr.name))
        {
            AddTraceAttribute(node, attr);
        }
    }
}

} // namespace ns3
