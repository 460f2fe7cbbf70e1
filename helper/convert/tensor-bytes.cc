#include "tensor-bytes.h"

#include "ns3/trace-error.h"
#include "ns3/trace-limits.h"

namespace ns3
{

namespace
{

using Json = nlohmann::json;

/** \return true if \p value is a tensor [id, storage, offset, numel, elem_bytes, device] */
bool
IsTensorValue(const Json& value)
{
    if (!value.is_array() || value.size() != 6 || !value[5].is_string())
    {
        return false;
    }
    for (std::size_t k = 0; k < 5; ++k)
    {
        if (!value[k].is_number_integer())
        {
            return false;
        }
    }
    return true;
}

/** Calls \p visit on every tensor value inside \p value (lists of tensors, nested). */
template <typename Visit>
void
ForEachTensor(const Json& value, Visit&& visit)
{
    if (IsTensorValue(value))
    {
        visit(value);
        return;
    }
    if (value.is_array())
    {
        for (const Json& element : value)
        {
            ForEachTensor(element, visit);
        }
    }
}

/**
 * \param types the parsed input types
 * \param k an argument index
 * \return true if argument \p k may hold tensors (its type names one, or is absent)
 */
bool
MayHoldTensor(const Json& types, std::size_t k)
{
    if (!types.is_array() || k >= types.size() || !types[k].is_string())
    {
        return true;
    }
    return types[k].get_ref<const std::string&>().find("Tensor") != std::string::npos;
}

} // namespace

std::set<int64_t>
TensorIds(const PyTorchNode& node)
{
    std::set<int64_t> ids;
    const Json values = node.inputs.ParseValues();
    const Json types = node.inputs.ParseTypes();
    for (std::size_t k = 0; k < values.size(); ++k)
    {
        if (MayHoldTensor(types, k))
        {
            ForEachTensor(values[k],
                          [&](const Json& tensor) { ids.insert(tensor[0].get<int64_t>()); });
        }
    }
    return ids;
}

uint64_t
SumTensorBytes(const PyTorchIo& io,
               std::optional<std::size_t> argument,
               const std::string& where,
               const std::string& path)
{
    uint64_t total = 0;
    auto add = [&](const Json& tensor) {
        int64_t count = tensor[3].get<int64_t>();
        int64_t elementBytes = tensor[4].get<int64_t>();
        if (count < 0 || elementBytes < 0 || elementBytes > 64 || (elementBytes == 0 && count > 0))
        {
            throw TraceError(path,
                             where,
                             "absurd tensor " + tensor.dump() +
                                 " (num_elem must be >= 0 and elem_bytes 1..64)");
        }
        uint64_t bytes = static_cast<uint64_t>(count);
        if (bytes > kMaxCommBytes / 64)
        {
            throw TraceError(path, where, "absurd tensor size " + tensor.dump());
        }
        total += bytes * static_cast<uint64_t>(elementBytes);
        if (total > kMaxCommBytes)
        {
            throw TraceError(path,
                             where,
                             "absurd message size: more than 2^40 bytes (1 TiB, "
                             "kMaxCommBytes) in the input "
                             "tensors");
        }
    };
    const Json values = io.ParseValues();
    const Json types = io.ParseTypes();
    if (!values.is_array())
    {
        return 0;
    }
    for (std::size_t k = 0; k < values.size(); ++k)
    {
        if ((argument && k != *argument) || !MayHoldTensor(types, k))
        {
            continue;
        }
        ForEachTensor(values[k], add);
    }
    return total;
}

} // namespace ns3
