/*
 * The tensors among a trace node's inputs: their ids and their bytes.
 */
#ifndef CHAKRA_TENSOR_BYTES_H
#define CHAKRA_TENSOR_BYTES_H

#include "pytorch-trace.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <set>
#include <string>

namespace ns3
{

/**
 * \param node a trace node
 * \return the ids of the tensors among its inputs (tensor lists included)
 */
std::set<int64_t> TensorIds(const PyTorchNode& node);

/**
 * Sums the bytes (num_elem x elem_bytes) of the tensors among a node's inputs, descending into
 * tensor lists. A tensor value is [tensor_id, storage_id, offset, num_elem, elem_bytes, device].
 * \param io the node's inputs
 * \param argument only this argument, or every argument whose type names a tensor
 * \param where the node, for errors
 * \param path the trace file, for errors
 * \return the bytes
 * \throws TraceError on an absurd tensor (negative count, element size outside 1..64 bytes) or
 *         a sum above kMaxCommBytes
 */
uint64_t SumTensorBytes(const PyTorchIo& io,
                        std::optional<std::size_t> argument,
                        const std::string& where,
                        const std::string& path);

} // namespace ns3

#endif // CHAKRA_TENSOR_BYTES_H
