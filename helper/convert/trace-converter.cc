#include "trace-converter.h"

#include "collective-call.h"
#include "dependency-cycle.h"
#include "process-group-table.h"
#include "trace-attribute.h"

#include "ns3/astra-sim-export.h"
#include "ns3/et-attribute-writer.h"
#include "ns3/et-node.h"
#include "ns3/et-writer.h"
#include "ns3/trace-error.h"
#include "ns3/trace-file.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>
#include <string_view>
#include <tuple>

namespace ns3
{

namespace
{

using Json = nlohmann::json;

/** Warnings kept in the report (the rest are only counted). */
constexpr std::size_t kMaxWarnings = 100;

/** What a trace node becomes. */
enum class Role
{
    Dropped,  //!< profiler thread/process root: not work, left out
    Metadata, //!< process_group:init
    HostOp,   //!< host op (COMP, or the comm node of a call without kernel)
    GpuOp,    //!< kernel, memcpy, memset (COMP, or the comm node of a call)
};

/** The communication a node carries. */
struct CommInfo
{
    CommOp op;                   //!< Collective, Send or Recv
    uint64_t bytes{0};           //!< comm_size
    std::string pgName;          //!< pg_name ("" = not named: the world)
    std::optional<int64_t> root; //!< global root rank
    int64_t src{0};              //!< global sender (send/recv)
    int64_t dst{0};              //!< global receiver (send/recv)
    int64_t tag{0};              //!< comm_tag (send/recv)
};

/** \return the value rounded to whole microseconds (never negative) */
uint64_t
Micros(double value)
{
    return value <= 0 ? 0 : static_cast<uint64_t>(std::llround(value));
}

/** One conversion: the trace, what each node becomes, the dependencies. */
class Conversion
{
  public:
    Conversion(const PyTorchTrace& trace,
               const ConversionOptions& options,
               ConversionReport& report)
        : m_trace(trace),
          m_path(trace.GetPath()),
          m_options(options),
          m_report(report),
          m_n(trace.GetSize())
    {
    }

    void Run(const std::string& outputPath)
    {
        m_report.input = m_path;
        m_report.output = outputPath;
        m_report.schema = m_trace.GetSchema();
        m_report.linked = m_trace.GetTraceLink().present;
        m_report.inputNodes = m_n;
        AssignRoles();
        ReadProcessGroups();
        FindCommunication();
        BuildDependencies();
        CheckCycles();
        Write(outputPath);
    }

  private:
    [[noreturn]] void Fail(std::size_t index, const std::string& what) const
    {
        throw TraceError(m_path, m_trace.GetNode(index).Describe(), what);
    }

    void Warn(const std::string& what)
    {
        ++m_report.warningCount;
        if (m_report.warnings.size() < kMaxWarnings)
        {
            m_report.warnings.push_back(what);
        }
    }

    bool IsHostWork(std::size_t i) const
    {
        return m_role[i] == Role::HostOp;
    }

    bool InOutput(std::size_t i) const
    {
        return m_role[i] != Role::Dropped;
    }

    void AssignRoles()
    {
        m_role.assign(m_n, Role::HostOp);
        for (std::size_t i = 0; i < m_n; ++i)
        {
            const PyTorchNode& node = m_trace.GetNode(i);
            if (node.isGpuOp)
            {
                m_role[i] = Role::GpuOp;
            }
            else if (IsProfilerRootName(node.name))
            {
                m_role[i] = Role::Dropped;
                ++m_report.droppedRoots;
            }
            else if (IsProcessGroupInitName(node.name))
            {
                m_role[i] = Role::Metadata;
            }
        }
        const TraceLinkInfo& link = m_trace.GetTraceLink();
        m_rank = m_options.rank ? m_options.rank : link.rank;
        m_worldSize = m_options.worldSize ? m_options.worldSize : link.worldSize;
        if (m_options.rank && link.rank && *m_options.rank != *link.rank)
        {
            Warn("rank " + std::to_string(*m_options.rank) + " given, but trace_link.rank is " +
                 std::to_string(*link.rank) + ": using " + std::to_string(*m_options.rank));
        }
        if (m_rank && m_worldSize && *m_rank >= *m_worldSize)
        {
            throw TraceError(m_path,
                             "",
                             "rank " + std::to_string(*m_rank) + " is not below the world size " +
                                 std::to_string(*m_worldSize));
        }
        if (m_trace.GetDanglingParents() > 0)
        {
            m_report.droppedReferences += m_trace.GetDanglingParents();
            Warn(std::to_string(m_trace.GetDanglingParents()) +
                 " node(s) name a parent that is not in the trace: made roots");
        }
    }

    void ReadProcessGroups()
    {
        m_metadataValues.assign(m_n, std::string());
        for (std::size_t i = 0; i < m_n; ++i)
        {
            if (m_role[i] == Role::Metadata)
            {
                m_metadataValues[i] = m_groups.AddInitNode(m_trace.GetNode(i), m_path, m_worldSize);
            }
        }
        if (!m_worldSize)
        {
            m_worldSize = m_groups.GetLargestGroupSize();
        }
        m_report.rank = m_rank;
        m_report.worldSize = m_worldSize;
    }

    std::string ResolvePg(const CollectiveCall& call) const
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

    int64_t ToGlobal(std::size_t node, const std::string& pg, int64_t local, const char* what)
    {
        auto global = m_groups.ToGlobal(pg, local);
        if (!global)
        {
            Fail(node,
                 std::string(what) + " " + std::to_string(local) +
                     " is not a rank of process group \"" + pg + "\"");
        }
        return *global;
    }

    /** Messages so far per (pg_name, src, dst): the next message's comm_tag. */
    using MessageCounts = std::map<std::tuple<std::string, int64_t, int64_t>, int64_t>;

    void FindCommunication()
    {
        std::vector<CommLayerInfo> layers(m_n);
        for (std::size_t i = 0; i < m_n; ++i)
        {
            if (m_role[i] == Role::HostOp)
            {
                layers[i] = ClassifyHostOp(m_trace.GetNode(i), m_path);
            }
        }
        CollectiveCallSet set = FindCollectiveCalls(m_trace, layers);
        m_comm.assign(m_n, std::nullopt);
        m_fromKernel.assign(m_n, false);

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

    /**
     * \param call a communication call
     * \param sent messages sent so far (counted here)
     * \param received messages received so far (counted here)
     * \return what its comm node carries
     */
    CommInfo DescribeCall(const CollectiveCall& call, MessageCounts& sent, MessageCounts& received)
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
                (call.op.type == ChakraProtoMsg::ALL_TO_ALL ||
                 call.op.type == ChakraProtoMsg::GATHER || call.op.type == ChakraProtoMsg::SCATTER);
            if (kernelOp && p2pHost != p2pKernel && !(p2pKernel && viaSendRecv))
            {
                Warn(m_trace.GetNode(*call.kernel).Describe() + " runs under " +
                     m_trace.GetNode(call.hostOp).Describe() +
                     ": the host op's collective is used");
            }
        }
        if (call.recordedBytes && *call.recordedBytes != call.bytes)
        {
            ++m_report.sizeMismatches;
            Warn(m_trace.GetNode(call.hostOp).Describe() + ": input tensors hold " +
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
                Fail(call.hostOp,
                     std::string(send ? "send" : "recv") +
                         ": this trace's global rank is unknown (no "
                         "trace_link.rank): give the rank (--rank)");
            }
            if (!call.peerLocal)
            {
                Fail(call.hostOp,
                     std::string("cannot find the ") + (send ? "destination" : "source") +
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
                Fail(call.hostOp, "more than 2^31 messages between two ranks");
            }
        }
        return info;
    }

    /** Warns of the NCCL kernels no call claimed; makes a COMM_COLL of the nameable ones. */
    void ReportUnpairedKernels(const CollectiveCallSet& set)
    {
        for (std::size_t k : set.orphanKernels)
        {
            const PyTorchNode& kernel = m_trace.GetNode(k);
            auto op = ClassifyNcclKernelName(kernel.name);
            if (!op || op->kind != CommKind::Collective)
            {
                Warn(kernel.Describe() + ": NCCL kernel under no collective host op, and its name "
                                         "does not tell the collective: kept as a GPU compute op");
                continue;
            }
            Warn(kernel.Describe() + ": NCCL kernel under no collective host op: COMM_COLL of " +
                 "unknown size (comm_size 0)");
            CommInfo info;
            info.op = *op;
            info.pgName = kernel.pgName.value_or("");
            m_comm[k] = info;
            m_fromKernel[k] = true;
        }
        for (std::size_t k : set.adoptedKernels)
        {
            Warn(m_trace.GetNode(k).Describe() +
                 ": NCCL kernel under no collective host op: taken as the kernel of "
                 "the nearest "
                 "collective call of its type that had none");
        }
        for (std::size_t k : set.extraKernels)
        {
            Warn(m_trace.GetNode(k).Describe() +
                 ": a second NCCL kernel for one collective call: kept as a GPU "
                 "compute op");
        }
    }

    void BuildDependencies()
    {
        m_deps.assign(m_n, {});
        m_ctrl.assign(m_n, std::nullopt);
        AddControlDeps();
        AddHostDeps();
        AddGpuDeps();
        for (std::size_t i = 0; i < m_n; ++i)
        {
            auto& deps = m_deps[i];
            std::sort(deps.begin(), deps.end());
            deps.erase(std::unique(deps.begin(), deps.end()), deps.end());
            deps.erase(std::remove(deps.begin(), deps.end(), i), deps.end());
        }
    }

    /** Control: the nearest ancestor in the output (not a metadata node); tids inherited. */
    void AddControlDeps()
    {
        std::vector<int64_t>& tid = m_tid;
        tid.assign(m_n, 0);
        std::vector<std::optional<std::size_t>> keptAncestor(m_n);
        for (std::size_t i : m_trace.GetPreorder())
        {
            auto parent = m_trace.GetParent(i);
            const PyTorchNode& node = m_trace.GetNode(i);
            tid[i] = node.tid ? *node.tid : (parent ? tid[*parent] : 0);
            if (parent)
            {
                bool kept = InOutput(*parent) && m_role[*parent] != Role::Metadata;
                keptAncestor[i] = kept ? parent : keptAncestor[*parent];
            }
            if (InOutput(i) && m_role[i] != Role::Metadata)
            {
                m_ctrl[i] = keptAncestor[i];
            }
        }
    }

    /** Host ops: after the previous one of their thread, their inter-thread and sync deps. */
    void AddHostDeps()
    {
        const std::vector<int64_t>& tid = m_tid;
        // Host ops of one thread in program order (preorder of the call tree).
        std::map<int64_t, std::size_t> last;
        std::vector<std::size_t> position(m_n, 0);
        std::vector<std::optional<std::size_t>> next(m_n);
        std::size_t counter = 0;
        for (std::size_t i : m_trace.GetPreorder())
        {
            if (!IsHostWork(i))
            {
                continue;
            }
            position[i] = ++counter;
            auto it = last.find(tid[i]);
            if (it != last.end())
            {
                m_deps[i].push_back(it->second);
                next[it->second] = i;
            }
            last[tid[i]] = i;
        }
        for (std::size_t i = 0; i < m_n; ++i)
        {
            const PyTorchNode& node = m_trace.GetNode(i);
            if (!IsHostWork(i))
            {
                continue;
            }
            if (node.interThreadDep)
            {
                auto dep = m_trace.FindIndex(*node.interThreadDep);
                if (!dep || !InOutput(*dep) || m_role[*dep] == Role::Metadata || *dep == i)
                {
                    ++m_report.droppedReferences;
                    Warn(node.Describe() + ": inter_thread_dep " +
                         std::to_string(*node.interThreadDep) + " is not a node of the output");
                }
                else
                {
                    m_deps[i].push_back(*dep);
                }
            }
            for (uint64_t id : node.syncDeps)
            {
                auto gpu = m_trace.FindIndex(id);
                if (!gpu || m_role[*gpu] != Role::GpuOp)
                {
                    ++m_report.droppedReferences;
                    Warn(node.Describe() + ": sync_deps names " + std::to_string(id) +
                         ", which is not a GPU op of the trace");
                    continue;
                }
                auto launcher = m_trace.GetParent(*gpu);
                if (launcher && IsHostWork(*launcher) && tid[*launcher] == tid[i] &&
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

    /** GPU ops: after their launcher, and after the previous GPU op of their stream. */
    void AddGpuDeps()
    {
        std::map<std::pair<int64_t, int64_t>, std::vector<std::size_t>> streams;
        for (std::size_t i = 0; i < m_n; ++i)
        {
            if (m_role[i] != Role::GpuOp)
            {
                continue;
            }
            const PyTorchNode& node = m_trace.GetNode(i);
            auto parent = m_trace.GetParent(i);
            if (parent && IsHostWork(*parent))
            {
                m_deps[i].push_back(*parent);
            }
            for (uint64_t id : node.crossStreamDeps)
            {
                auto other = m_trace.FindIndex(id);
                if (!other || m_role[*other] != Role::GpuOp || *other == i)
                {
                    ++m_report.droppedReferences;
                    Warn(node.Describe() + ": cross_stream_deps names " + std::to_string(id) +
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

    void CheckCycles() const
    {
        std::vector<std::vector<std::size_t>> graph(m_deps);
        for (std::size_t i = 0; i < m_n; ++i)
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
        Fail(cycle.front(), "dependency cycle (each node waits for the one before): " + text);
    }

    ChakraProtoMsg::Node MakeNode(std::size_t i)
    {
        const PyTorchNode& source = m_trace.GetNode(i);
        ChakraProtoMsg::Node node;
        node.set_id(source.id);
        if (source.ts && *source.ts >= 0)
        {
            node.set_start_time_micros(Micros(*source.ts));
        }
        for (std::size_t dep : m_deps[i])
        {
            node.add_data_deps(m_trace.GetNode(dep).id);
        }
        if (m_ctrl[i])
        {
            node.add_ctrl_deps(m_trace.GetNode(*m_ctrl[i]).id);
        }
        m_report.dataDeps += node.data_deps_size();
        m_report.ctrlDeps += node.ctrl_deps_size();

        if (m_role[i] == Role::Metadata)
        {
            node.set_name("process_group:init");
            node.set_type(ChakraProtoMsg::METADATA_NODE);
            node.mutable_inputs()->set_values(m_metadataValues[i]);
            ++m_report.metadataNodes;
            return node;
        }
        node.set_name(source.name);
        const bool gpu = m_role[i] == Role::GpuOp;
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

    /** \return the time an op of \p source runs on its own (microseconds), if known */
    static std::optional<double> Duration(const PyTorchNode& source, bool gpu)
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

    /** Sets the node type of op \p i (COMP or COMM_*) and counts it. */
    void SetType(ChakraProtoMsg::Node& node, std::size_t i, bool gpu)
    {
        const auto& comm = m_comm[i];
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

    /** Adds the attributes of op \p i: the converter's own, then the trace's. */
    void AddAttributes(ChakraProtoMsg::Node& node,
                       std::size_t i,
                       bool gpu,
                       std::optional<double> duration)
    {
        const PyTorchNode& source = m_trace.GetNode(i);
        EtAttributeWriter attributes(node.mutable_attr());
        attributes.Bool("is_cpu_op", !gpu);
        if (const auto& comm = m_comm[i])
        {
            ++(m_fromKernel[i] ? m_report.commFromKernels : m_report.commFromHostOps);
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
            attributes.Int64("tid", m_tid[i]);
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

    void Write(const std::string& outputPath)
    {
        ChakraProtoMsg::GlobalMetadata metadata;
        metadata.set_version("0.0.4");
        EtAttributeWriter attributes(metadata.mutable_attr());
        attributes.String("schema", m_trace.GetSchema());
        attributes.String("source",
                          m_report.linked ? "PyTorch linked trace" : "PyTorch host trace");
        if (m_rank)
        {
            attributes.Int64("rank", *m_rank);
        }
        if (m_worldSize)
        {
            attributes.Int64("world_size", *m_worldSize);
        }
        if (!m_trace.GetTraceLink().gpuName.empty())
        {
            attributes.String("gpu_name", m_trace.GetTraceLink().gpuName);
        }
        // ASTRA-sim's form (the rewrite chakra_generator --astra-sim applies): no METADATA
        // node, numbered communicators, no communication on the CPU.
        std::optional<AstraSimExport> astraSim;
        std::set<uint64_t> dropped;
        if (m_options.astraSim)
        {
            std::vector<ProcessGroupSpec> declared;
            for (std::size_t i = 0; i < m_n; ++i)
            {
                if (InOutput(i) && m_role[i] == Role::Metadata)
                {
                    const uint64_t id = m_trace.GetNode(i).id;
                    AddAstraSimGroups(m_metadataValues[i], declared, m_path, id);
                    dropped.insert(id);
                }
            }
            const auto ranks =
                m_worldSize ? *m_worldSize : m_groups.GetLargestGroupSize().value_or(0);
            astraSim = PlanAstraSimGroups(declared, static_cast<uint32_t>(ranks));
        }
        EtWriter writer(outputPath, metadata);
        for (std::size_t i = 0; i < m_n; ++i)
        {
            if (!InOutput(i) || (astraSim && m_role[i] == Role::Metadata))
            {
                continue;
            }
            ChakraProtoMsg::Node node = MakeNode(i);
            if (astraSim)
            {
                RewriteForAstraSim(node, *astraSim, dropped, m_path);
            }
            writer.WriteNode(node);
        }
        if (astraSim && !astraSim->groups.empty())
        {
            // Written before the trace appears: a trace whose communicators are not listed
            // beside it would run its sub-groups as the world.
            m_report.commGroupFile = AstraSimCommGroupFile(outputPath);
            AtomicOutputFile groups(m_report.commGroupFile);
            groups.Write(AstraSimCommGroupsJson(*astraSim));
            groups.Commit();
        }
        writer.Commit();
        m_report.outputNodes = writer.GetNodesWritten();
    }

    const PyTorchTrace& m_trace;                    //!< the input
    const std::string& m_path;                      //!< its file name
    const ConversionOptions& m_options;             //!< settings
    ConversionReport& m_report;                     //!< what happened
    const std::size_t m_n;                          //!< node count
    std::optional<int64_t> m_rank;                  //!< global rank, if known
    std::optional<int64_t> m_worldSize;             //!< world size, if known
    std::vector<Role> m_role;                       //!< per node
    ProcessGroupTable m_groups;                     //!< process groups
    std::vector<std::string> m_metadataValues;      //!< METADATA inputs.values
    std::vector<std::optional<CommInfo>> m_comm;    //!< per node: its communication
    std::vector<bool> m_fromKernel;                 //!< comm node is a NCCL kernel
    std::vector<std::vector<std::size_t>> m_deps;   //!< data deps (indices)
    std::vector<std::optional<std::size_t>> m_ctrl; //!< ctrl dep (index)
    std::vector<int64_t> m_tid;                     //!< host thread (inherited if absent)
};

} // namespace

std::string
AstraSimCommGroupFile(const std::string& outputPath)
{
    std::string prefix = outputPath;
    for (const std::string suffix : {".gz", ".et"})
    {
        if (prefix.size() > suffix.size() &&
            prefix.compare(prefix.size() - suffix.size(), suffix.size(), suffix) == 0)
        {
            prefix.resize(prefix.size() - suffix.size());
        }
    }
    // <prefix>.<rank>: one file for the job, not one per rank.
    const std::string::size_type dot = prefix.rfind('.');
    if (dot != std::string::npos && dot + 1 < prefix.size() &&
        prefix.find_first_not_of("0123456789", dot + 1) == std::string::npos)
    {
        prefix.resize(dot);
    }
    return prefix + ".comm-groups.json";
}

TraceConverter::TraceConverter(ConversionOptions options)
    : m_options(std::move(options))
{
}

ConversionReport
TraceConverter::Convert(const std::string& inputPath, const std::string& outputPath) const
{
    return Convert(PyTorchTrace::Load(inputPath), outputPath);
}

ConversionReport
TraceConverter::Convert(const PyTorchTrace& trace, const std::string& outputPath) const
{
    ConversionReport report;
    Conversion(trace, m_options, report).Run(outputPath);
    return report;
}

} // namespace ns3
