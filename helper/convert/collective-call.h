/*
 * Recognising the collectives and point-to-point messages of a PyTorch trace: which host ops and
 * kernels form one collective call, its type, its size in bytes, its process group and peers.
 */
#ifndef CHAKRA_COLLECTIVE_CALL_H
#define CHAKRA_COLLECTIVE_CALL_H

#include "et_def.pb.h"
#include "pytorch-trace.h"

#include "ns3/trace-limits.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ns3
{

/** \ingroup chakra-converter \brief What a communication op does. */
enum class CommKind
{
    Collective, //!< a collective of type CommOp::type
    Send,       //!< point-to-point send
    Recv,       //!< point-to-point receive
    SendRecv,   //!< a NCCL SendRecv kernel: the direction comes from the host op
};

/** \ingroup chakra-converter \brief A recognised communication: kind and, for collectives, type. */
struct CommOp
{
    CommKind kind{CommKind::Collective};                                 //!< what it does
    ChakraProtoMsg::CollectiveCommType type{ChakraProtoMsg::ALL_REDUCE}; //!< collective type

    /** \param other another op \return true if both do the same thing */
    bool operator==(const CommOp& other) const;
};

/**
 * \ingroup chakra-converter
 * \brief The layer of a collective call a host op belongs to.
 *
 * One call shows up as nested host ops: `c10d::allreduce_` (Frontend) > `record_param_comms`
 * (Record) > `nccl:all_reduce` (Backend), and with GPU ops a NCCL kernel under the backend op.
 */
enum class CommLayer
{
    None,     //!< not part of a collective call
    Frontend, //!< c10d::<collective> (the dispatcher op)
    Record,   //!< record_param_comms naming a collective
    Backend,  //!< <backend>:<collective> (nccl:, gloo:, mpi:, ucc:, ...)
};

/** \ingroup chakra-converter \brief The classification of one host op. */
struct CommLayerInfo
{
    CommLayer layer{CommLayer::None}; //!< its layer (None: a plain op)
    CommOp op;                        //!< what the call does (when layer != None)
};

/**
 * Classifies a collective name after normalising it (lower case, without '_' and '-', without
 * the suffixes "coalesced", "base", "intotensor", "tensor", "single"): allreduce, reduce,
 * allgather, gather, scatter, broadcast, alltoall(v), reducescatter, reducescatterblock,
 * barrier, monitoredbarrier, send, recv, recvanysource.
 * \param name a collective name ("all_reduce", "_allgather_base", "all_to_allv", ...)
 * \return the op, or nullopt if the name is not a known collective
 */
std::optional<CommOp> ClassifyCollectiveName(const std::string& name);

/**
 * Classifies a host op by its name (and, for record_param_comms, its collective name).
 * \param node the host op
 * \param path the trace file, for errors
 * \return its layer and op
 * \throws TraceError for an unknown collective under a backend prefix ("nccl:foo") or in a
 *         record_param_comms that names a collective
 */
CommLayerInfo ClassifyHostOp(const PyTorchNode& node, const std::string& path);

/** \param node a trace node \return true for a GPU kernel whose name starts with "nccl" */
bool IsNcclKernel(const PyTorchNode& node);

/**
 * \param name a NCCL kernel name ("ncclKernel_AllReduce_RING_LL_Sum_float(...)",
 *             "ncclDevKernel_SendRecv(...)")
 * \return the op it runs, or nullopt if the name does not tell
 */
std::optional<CommOp> ClassifyNcclKernelName(const std::string& name);

/**
 * \param dtype a PyTorch dtype name as record_param_comms writes it ("Float", "Half", ...)
 * \return the bytes of one element, or nullopt for an unknown name
 */
std::optional<uint64_t> DtypeBytes(const std::string& dtype);

/**
 * \ingroup chakra-converter
 * \brief One collective call or point-to-point message of a trace.
 */
struct CollectiveCall
{
    std::vector<std::size_t> layers;       //!< its host ops (node indices), outermost first
    std::size_t hostOp{0};                 //!< the innermost host op (the comm node if no kernel)
    std::optional<std::size_t> kernel;     //!< its NCCL kernel (the comm node when present)
    CommOp op;                             //!< what it does (Send/Recv/Collective)
    uint64_t bytes{0};                     //!< comm_size: bytes of this rank's input tensors
    std::optional<uint64_t> recordedBytes; //!< in_msg_nelems x dtype size, when recorded
    std::optional<std::string> pgName;     //!< process group name, when the trace names it
    std::optional<int64_t> pgBackendId;    //!< process group as a backend id (schema 1.0.2)
    std::optional<int64_t> rootLocal;      //!< group-local root (broadcast, reduce, ...)
    std::optional<int64_t> peerLocal;      //!< group-local peer (send: dst, recv: src)
};

/**
 * \ingroup chakra-converter
 * \brief The collective calls of a trace, and the NCCL kernels that belong to none.
 */
struct CollectiveCallSet
{
    std::vector<CollectiveCall> calls;         //!< in order of their innermost host op
    std::vector<std::size_t> orphanKernels;    //!< NCCL kernels under no collective host op
    std::vector<std::size_t> extraKernels;     //!< NCCL kernels of a call that has one already
    std::vector<std::size_t> adoptedKernels;   //!< NCCL kernels outside any call, joined to the
                                               //!< nearest kernel-less call of their type
    std::vector<std::size_t> mergedBackendOps; //!< backend ops joined to a preceding c10d op
};

/**
 * Groups the collective layers of a trace into calls: each innermost layer op is one call,
 * with its layer ancestors; a backend op outside any other layer (an asynchronous gloo op the
 * trace records beside its c10d op) joins the latest preceding call (among the last 16) of the
 * same type that has no backend op and shares a tensor with it. Each NCCL kernel joins the call of
 * its nearest layer ancestor; a NCCL kernel under no layer joins the nearest (by id) call of a
 * compatible type that has no kernel, if any (a launcher the linker attached to another op). Then
 * the type, size, process group, root and peer of every call are read from its layers (see
 * doc/converter.md). \param trace the trace \param layers ClassifyHostOp of every node (None for
 * GPU ops and special nodes) \return the calls \throws TraceError on an absurd tensor size
 */
CollectiveCallSet FindCollectiveCalls(const PyTorchTrace& trace,
                                      const std::vector<CommLayerInfo>& layers);

} // namespace ns3

#endif // CHAKRA_COLLECTIVE_CALL_H
