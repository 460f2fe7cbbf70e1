#include "collective-call.h"

#include "tensor-bytes.h"

#include "ns3/trace-error.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>

namespace ns3
{

namespace
{

using Json = nlohmann::json;

/** \return lower case without '_', '-' and spaces */
std::string
Squash(const std::string& name)
{
    std::string out;
    out.reserve(name.size());
    for (char c : name)
    {
        if (c == '_' || c == '-' || c == ' ')
        {
            continue;
        }
        out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
    return out;
}

bool
EndsWith(const std::string& text, const std::string& suffix)
{
    return text.size() > suffix.size() &&
           text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

/** Backend prefixes of the per-backend host ops ("nccl:all_reduce"). */
const char* const kBackendPrefixes[] =
    {"nccl:", "gloo:", "mpi:", "ucc:", "xccl:", "hccl:", "rccl:"};

/** Names a backend or record_param_comms uses for things that are not collectives. */
bool
IsKnownNonCollective(const std::string& squashed)
{
    static const std::set<std::string> names = {"",
                                                "wait",
                                                "waitall",
                                                "init",
                                                "coalesced",
                                                "startcoalescing",
                                                "endcoalescing",
                                                "abort",
                                                "shutdown"};
    return names.count(squashed) != 0;
}

/** \return argument \p k of the inputs, or null */
Json
Argument(const PyTorchNode& node, std::size_t k)
{
    Json values = node.inputs.ParseValues();
    if (!values.is_array() || k >= values.size())
    {
        return Json();
    }
    return std::move(values[k]);
}

/** \return argument \p k of the inputs if it is an integer */
std::optional<int64_t>
IntArgument(const PyTorchNode& node, std::size_t k)
{
    Json value = Argument(node, k);
    if (!value.is_number_integer())
    {
        return std::nullopt;
    }
    return value.get<int64_t>();
}

/** \return the integer value of an attribute, if present and an integer */
std::optional<int64_t>
IntAttr(const PyTorchNode& node, const char* name)
{
    const Json* value = node.FindAttr(name);
    if (value == nullptr || !value->is_number_integer())
    {
        return std::nullopt;
    }
    return value->get<int64_t>();
}

/** \return the string value of an attribute, if present and a string */
std::optional<std::string>
StringAttr(const PyTorchNode& node, const char* name)
{
    const Json* value = node.FindAttr(name);
    if (value == nullptr || !value->is_string())
    {
        return std::nullopt;
    }
    return value->get<std::string>();
}

/** \return the collective name a record_param_comms op gives, if any */
std::optional<std::string>
RecordedCollectiveName(const PyTorchNode& node)
{
    if (auto name = StringAttr(node, "collective_name"))
    {
        return name;
    }
    // Inputs: tensors, seq, pg, rank/root/peer, collective name, in splits, out splits, ...
    Json name = Argument(node, 4);
    if (name.is_string())
    {
        return name.get<std::string>();
    }
    return std::nullopt;
}

/** \return true for the collectives whose c10d op takes (outputs, inputs, ...) */
bool
FrontendInputIsSecond(const CommOp& op)
{
    if (op.kind != CommKind::Collective)
    {
        return false;
    }
    switch (op.type)
    {
    case ChakraProtoMsg::ALL_GATHER:
    case ChakraProtoMsg::ALL_TO_ALL:
    case ChakraProtoMsg::REDUCE_SCATTER:
    case ChakraProtoMsg::REDUCE_SCATTER_BLOCK:
    case ChakraProtoMsg::GATHER:
    case ChakraProtoMsg::SCATTER:
        return true;
    default:
        return false;
    }
}

/** \return the argument index of the root rank in the c10d op, if the collective has one */
std::optional<std::size_t>
FrontendRootArgument(const CommOp& op)
{
    if (op.kind != CommKind::Collective)
    {
        return std::nullopt;
    }
    switch (op.type)
    {
    case ChakraProtoMsg::BROADCAST:
        return 2; // (tensors, pg, root_rank, root_tensor, async, timeout)
    case ChakraProtoMsg::REDUCE:
    case ChakraProtoMsg::GATHER:
    case ChakraProtoMsg::SCATTER:
        return 3; // (tensors..., pg, [op,] root_rank, ...)
    default:
        return std::nullopt;
    }
}

bool
IsRooted(const CommOp& op)
{
    return FrontendRootArgument(op).has_value();
}

} // namespace

bool
CommOp::operator==(const CommOp& other) const
{
    return kind == other.kind && (kind != CommKind::Collective || type == other.type);
}

std::optional<CommOp>
ClassifyCollectiveName(const std::string& name)
{
    std::string squashed = Squash(name);
    bool stripped = true;
    while (stripped)
    {
        stripped = false;
        for (const char* suffix : {"coalesced", "base", "intotensor", "tensor", "single"})
        {
            if (EndsWith(squashed, suffix))
            {
                squashed.resize(squashed.size() - std::string(suffix).size());
                stripped = true;
            }
        }
    }
    using P = ChakraProtoMsg::CollectiveCommType;
    static const std::map<std::string, CommOp> table = {
        {"allreduce", {CommKind::Collective, P::ALL_REDUCE}},
        {"reduce", {CommKind::Collective, P::REDUCE}},
        {"allgather", {CommKind::Collective, P::ALL_GATHER}},
        {"gather", {CommKind::Collective, P::GATHER}},
        {"scatter", {CommKind::Collective, P::SCATTER}},
        {"broadcast", {CommKind::Collective, P::BROADCAST}},
        {"bcast", {CommKind::Collective, P::BROADCAST}},
        {"alltoall", {CommKind::Collective, P::ALL_TO_ALL}},
        {"alltoallv", {CommKind::Collective, P::ALL_TO_ALL}},
        {"reducescatter", {CommKind::Collective, P::REDUCE_SCATTER}},
        {"reducescatterblock", {CommKind::Collective, P::REDUCE_SCATTER_BLOCK}},
        {"barrier", {CommKind::Collective, P::BARRIER}},
        {"monitoredbarrier", {CommKind::Collective, P::BARRIER}},
        {"send", {CommKind::Send, P::ALL_REDUCE}},
        {"recv", {CommKind::Recv, P::ALL_REDUCE}},
        {"recvanysource", {CommKind::Recv, P::ALL_REDUCE}},
    };
    auto it = table.find(squashed);
    if (it == table.end())
    {
        return std::nullopt;
    }
    return it->second;
}

CommLayerInfo
ClassifyHostOp(const PyTorchNode& node, const std::string& path)
{
    CommLayerInfo info;
    if (node.isGpuOp)
    {
        return info;
    }
    const std::string& name = node.name;
    if (name.compare(0, 6, "c10d::") == 0)
    {
        // c10d also has helper ops that are not collectives: those stay plain ops.
        if (auto op = ClassifyCollectiveName(name.substr(6)))
        {
            info.layer = CommLayer::Frontend;
            info.op = *op;
        }
        return info;
    }
    if (name == "record_param_comms")
    {
        auto collective = RecordedCollectiveName(node);
        if (!collective || IsKnownNonCollective(Squash(*collective)))
        {
            return info;
        }
        auto op = ClassifyCollectiveName(*collective);
        if (!op)
        {
            throw TraceError(path,
                             node.Describe(),
                             "unknown collective name \"" + *collective + "\"");
        }
        info.layer = CommLayer::Record;
        info.op = *op;
        return info;
    }
    for (const char* prefix : kBackendPrefixes)
    {
        std::size_t length = std::char_traits<char>::length(prefix);
        if (name.compare(0, length, prefix) == 0)
        {
            std::string collective = name.substr(length);
            if (IsKnownNonCollective(Squash(collective)))
            {
                return info;
            }
            auto op = ClassifyCollectiveName(collective);
            if (!op)
            {
                throw TraceError(path,
                                 node.Describe(),
                                 "unknown collective name \"" + collective + "\" (op \"" + name +
                                     "\")");
            }
            info.layer = CommLayer::Backend;
            info.op = *op;
            return info;
        }
    }
    return info;
}

bool
IsNcclKernel(const PyTorchNode& node)
{
    return node.isGpuOp && node.cat == "kernel" && node.name.compare(0, 4, "nccl") == 0;
}

std::optional<CommOp>
ClassifyNcclKernelName(const std::string& name)
{
    std::size_t start = std::string::npos;
    for (const char* prefix : {"ncclKernel_", "ncclDevKernel_"})
    {
        if (name.compare(0, std::char_traits<char>::length(prefix), prefix) == 0)
        {
            start = std::char_traits<char>::length(prefix);
        }
    }
    if (start == std::string::npos)
    {
        return std::nullopt;
    }
    std::size_t end = name.find_first_of("_(", start);
    std::string collective =
        Squash(name.substr(start, end == std::string::npos ? end : end - start));
    if (collective == "sendrecv")
    {
        return CommOp{CommKind::SendRecv, ChakraProtoMsg::ALL_REDUCE};
    }
    return ClassifyCollectiveName(collective);
}

std::optional<uint64_t>
DtypeBytes(const std::string& dtype)
{
    static const std::map<std::string, uint64_t> sizes = {
        {"bool", 1},           {"byte", 1},         {"char", 1},        {"uint8", 1},
        {"int8", 1},           {"short", 2},        {"int16", 2},       {"int", 4},
        {"int32", 4},          {"long", 8},         {"int64", 8},       {"half", 2},
        {"float16", 2},        {"bfloat16", 2},     {"float", 4},       {"float32", 4},
        {"double", 8},         {"float64", 8},      {"complexhalf", 4}, {"complexfloat", 8},
        {"complexdouble", 16}, {"float8e4m3fn", 1}, {"float8e5m2", 1},  {"float8e4m3fnuz", 1},
        {"float8e5m2fnuz", 1}, {"uint16", 2},       {"uint32", 4},      {"uint64", 8},
    };
    auto it = sizes.find(Squash(dtype));
    if (it == sizes.end())
    {
        return std::nullopt;
    }
    return it->second;
}

namespace
{

/** One call per innermost layer op, with its layers outermost first (node index order). */
std::vector<CollectiveCall>
FindInnermostCalls(const PyTorchTrace& trace, const std::vector<CommLayerInfo>& layers)
{
    const std::size_t n = trace.GetSize();
    // Nearest layer ancestor of every node (preorder visits parents first).
    std::vector<std::optional<std::size_t>> layerAncestor(n);
    for (std::size_t i : trace.GetPreorder())
    {
        auto parent = trace.GetParent(i);
        if (parent)
        {
            layerAncestor[i] =
                layers[*parent].layer != CommLayer::None ? parent : layerAncestor[*parent];
        }
    }
    // Layer ops with a layer descendant are outer layers of someone else's call.
    std::vector<bool> hasLayerDescendant(n, false);
    for (std::size_t i = 0; i < n; ++i)
    {
        if (layers[i].layer == CommLayer::None)
        {
            continue;
        }
        for (auto a = layerAncestor[i]; a && !hasLayerDescendant[*a]; a = layerAncestor[*a])
        {
            hasLayerDescendant[*a] = true;
        }
    }
    // One call per innermost layer op (node index order = id order).
    std::vector<CollectiveCall> calls;
    for (std::size_t i = 0; i < n; ++i)
    {
        if (layers[i].layer == CommLayer::None || hasLayerDescendant[i])
        {
            continue;
        }
        CollectiveCall call;
        call.hostOp = i;
        for (std::optional<std::size_t> a = i; a; a = layerAncestor[*a])
        {
            call.layers.push_back(*a);
        }
        std::reverse(call.layers.begin(), call.layers.end());
        call.op = layers[i].op;
        calls.push_back(std::move(call));
    }
    return calls;
}

/**
 * A backend op alone (no layer around it) joins the latest preceding call of the same op that
 * has no backend layer and shares an input tensor with it. The calls left go to result.calls.
 */
void
MergeLoneBackendOps(const PyTorchTrace& trace,
                    const std::vector<CommLayerInfo>& layers,
                    std::vector<CollectiveCall>& calls,
                    CollectiveCallSet& result)
{
    auto hasBackend = [&](const CollectiveCall& call) {
        return std::any_of(call.layers.begin(), call.layers.end(), [&](std::size_t l) {
            return layers[l].layer == CommLayer::Backend;
        });
    };
    std::vector<bool> removed(calls.size(), false);
    for (std::size_t c = 0; c < calls.size(); ++c)
    {
        CollectiveCall& backend = calls[c];
        if (backend.layers.size() != 1 || layers[backend.hostOp].layer != CommLayer::Backend)
        {
            continue;
        }
        std::set<int64_t> tensors = TensorIds(trace.GetNode(backend.hostOp));
        // The c10d op of an asynchronous backend op is among the last few calls.
        const std::size_t window = 16;
        for (std::size_t p = c; p-- > 0 && c - p <= window;)
        {
            CollectiveCall& front = calls[p];
            if (removed[p] || hasBackend(front) || !(front.op == backend.op))
            {
                continue;
            }
            bool shared = false;
            for (std::size_t l : front.layers)
            {
                for (int64_t id : TensorIds(trace.GetNode(l)))
                {
                    shared = shared || tensors.count(id) != 0;
                }
            }
            if (shared)
            {
                front.layers.push_back(backend.hostOp);
                front.hostOp = backend.hostOp;
                result.mergedBackendOps.push_back(backend.hostOp);
                removed[c] = true;
            }
            break;
        }
    }
    for (std::size_t c = 0; c < calls.size(); ++c)
    {
        if (!removed[c])
        {
            result.calls.push_back(std::move(calls[c]));
        }
    }
}

/** NCCL kernels join the call of their nearest layer ancestor (else: orphan or extra). */
void
AttachKernels(const PyTorchTrace& trace,
              const std::vector<CommLayerInfo>& layers,
              CollectiveCallSet& result)
{
    const std::size_t n = trace.GetSize();
    std::multimap<std::size_t, std::size_t> callsOfLayer;
    for (std::size_t c = 0; c < result.calls.size(); ++c)
    {
        for (std::size_t l : result.calls[c].layers)
        {
            callsOfLayer.emplace(l, c);
        }
    }
    for (std::size_t i = 0; i < n; ++i)
    {
        if (!IsNcclKernel(trace.GetNode(i)))
        {
            continue;
        }
        std::optional<std::size_t> owner;
        for (auto a = trace.GetParent(i); a; a = trace.GetParent(*a))
        {
            if (layers[*a].layer != CommLayer::None)
            {
                owner = a;
                break;
            }
        }
        if (!owner)
        {
            result.orphanKernels.push_back(i);
            continue;
        }
        bool placed = false;
        auto range = callsOfLayer.equal_range(*owner);
        for (auto it = range.first; it != range.second && !placed; ++it)
        {
            CollectiveCall& call = result.calls[it->second];
            if (!call.kernel)
            {
                call.kernel = i;
                placed = true;
            }
        }
        if (!placed)
        {
            result.extraKernels.push_back(i);
        }
    }
}

/**
 * A kernel the linker attached outside its call (its launcher matched to another host op) joins
 * the nearest call of a compatible op that has no kernel: otherwise that call would be counted
 * twice, once from the host and once from the kernel.
 */
void
AdoptOrphanKernels(const PyTorchTrace& trace, CollectiveCallSet& result)
{
    std::vector<std::size_t> orphans;
    orphans.swap(result.orphanKernels);
    for (std::size_t k : orphans)
    {
        auto kernelOp = ClassifyNcclKernelName(trace.GetNode(k).name);
        auto compatible = [&](const CollectiveCall& call) {
            if (call.kernel || !kernelOp)
            {
                return false;
            }
            if (kernelOp->kind == CommKind::SendRecv)
            {
                return call.op.kind == CommKind::Send || call.op.kind == CommKind::Recv ||
                       call.op.type == ChakraProtoMsg::ALL_TO_ALL ||
                       call.op.type == ChakraProtoMsg::GATHER ||
                       call.op.type == ChakraProtoMsg::SCATTER;
            }
            return call.op.kind == CommKind::Collective &&
                   (call.op.type == kernelOp->type ||
                    (call.op.type == ChakraProtoMsg::BARRIER &&
                     kernelOp->type == ChakraProtoMsg::ALL_REDUCE));
        };
        std::optional<std::size_t> best;
        std::size_t bestDistance = 0;
        for (std::size_t c = 0; c < result.calls.size(); ++c)
        {
            const CollectiveCall& call = result.calls[c];
            if (!compatible(call))
            {
                continue;
            }
            std::size_t distance = call.hostOp < k ? k - call.hostOp : call.hostOp - k;
            if (!best || distance < bestDistance)
            {
                best = c;
                bestDistance = distance;
            }
        }
        if (best)
        {
            result.calls[*best].kernel = k;
            result.adoptedKernels.push_back(k);
        }
        else
        {
            result.orphanKernels.push_back(k);
        }
    }
}

/** Size of \p call: from the backend op, record_param_comms or the c10d op, in that order. */
void
SetCallBytes(const PyTorchTrace& trace,
             const std::vector<CommLayerInfo>& layers,
             CollectiveCall& call,
             const PyTorchNode* record,
             const PyTorchNode* frontend)
{
    const std::string& path = trace.GetPath();
    const PyTorchNode& inner = trace.GetNode(call.hostOp);
    if (call.op.kind == CommKind::Collective && call.op.type == ChakraProtoMsg::BARRIER)
    {
        call.bytes = 0;
    }
    else if (layers[call.hostOp].layer == CommLayer::Backend)
    {
        call.bytes = SumTensorBytes(inner.inputs, std::nullopt, inner.Describe(), path);
    }
    else if (record != nullptr)
    {
        call.bytes = SumTensorBytes(record->inputs, 0, record->Describe(), path);
    }
    else if (frontend != nullptr)
    {
        call.bytes = SumTensorBytes(frontend->inputs,
                                    FrontendInputIsSecond(call.op) ? 1 : 0,
                                    frontend->Describe(),
                                    path);
    }
    if (record != nullptr)
    {
        auto nelems = IntAttr(*record, "in_msg_nelems");
        auto dtype = StringAttr(*record, "dtype");
        if (nelems && dtype && *nelems >= 0 && DtypeBytes(*dtype))
        {
            call.recordedBytes = static_cast<uint64_t>(*nelems) * *DtypeBytes(*dtype);
        }
    }
}

/** Process group, root and peer of \p call. */
void
SetCallGroupAndPeer(const PyTorchTrace& trace,
                    CollectiveCall& call,
                    const PyTorchNode* record,
                    const PyTorchNode* frontend)
{
    // Process group: the kernel's, else record_param_comms' (attribute, then argument 2).
    if (call.kernel && trace.GetNode(*call.kernel).pgName)
    {
        call.pgName = trace.GetNode(*call.kernel).pgName;
    }
    else if (record != nullptr && record->pgName)
    {
        call.pgName = record->pgName;
    }
    else if (Json pg = record != nullptr ? Argument(*record, 2) : Json(); !pg.is_null())
    {
        if (pg.is_string())
        {
            call.pgName = pg.get<std::string>();
        }
        else if (pg.is_array() && !pg.empty() && pg[0].is_string())
        {
            call.pgName = pg[0].get<std::string>();
        }
        else if (pg.is_number_integer())
        {
            call.pgBackendId = pg.get<int64_t>();
        }
    }
    // Root of rooted collectives, peer of send/recv: c10d argument, else record_param_comms
    // argument 3 (which holds the root or the peer for those ops).
    std::optional<int64_t> fromFrontend;
    if (frontend != nullptr)
    {
        if (auto k = FrontendRootArgument(call.op))
        {
            fromFrontend = IntArgument(*frontend, *k);
        }
        else if (call.op.kind == CommKind::Send || call.op.kind == CommKind::Recv)
        {
            fromFrontend = IntArgument(*frontend, 2); // (tensors, pg, peer, tag)
        }
    }
    std::optional<int64_t> fromRecord = record != nullptr ? IntArgument(*record, 3) : std::nullopt;
    std::optional<int64_t> rankArgument = fromFrontend ? fromFrontend : fromRecord;
    if (IsRooted(call.op))
    {
        call.rootLocal = rankArgument;
    }
    else if (call.op.kind == CommKind::Send || call.op.kind == CommKind::Recv)
    {
        call.peerLocal = rankArgument;
    }
}

/** Type, size, process group, root and peer of \p call. */
void
DescribeCall(const PyTorchTrace& trace,
             const std::vector<CommLayerInfo>& layers,
             CollectiveCall& call)
{
    const PyTorchNode* record = nullptr;
    const PyTorchNode* frontend = nullptr;
    for (std::size_t l : call.layers)
    {
        if (layers[l].layer == CommLayer::Record)
        {
            record = &trace.GetNode(l); // the innermost one wins
        }
        if (layers[l].layer == CommLayer::Frontend)
        {
            frontend = &trace.GetNode(l);
        }
    }
    SetCallBytes(trace, layers, call, record, frontend);
    SetCallGroupAndPeer(trace, call, record, frontend);
}

} // namespace

CollectiveCallSet
FindCollectiveCalls(const PyTorchTrace& trace, const std::vector<CommLayerInfo>& layers)
{
    CollectiveCallSet result;
    std::vector<CollectiveCall> calls = FindInnermostCalls(trace, layers);
    MergeLoneBackendOps(trace, layers, calls, result);
    AttachKernels(trace, layers, result);
    AdoptOrphanKernels(trace, result);
    for (CollectiveCall& call : result.calls)
    {
        DescribeCall(trace, layers, call);
    }
    return result;
}

} // namespace ns3
