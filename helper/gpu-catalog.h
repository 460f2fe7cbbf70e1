/*
 * What a GPU model name (Kineto's deviceProperties "name") tells about its NVLink: the
 * bandwidth a replay uses when the user does not set one.
 */
#ifndef CHAKRA_GPU_CATALOG_H
#define CHAKRA_GPU_CATALOG_H

#include "ns3/nccl-tuning.h"

#include <optional>
#include <string>

namespace ns3
{

/**
 * \ingroup chakra-helper
 * \brief The NVLink of one data-center GPU model.
 */
struct GpuLinkSpec
{
    std::string model;      //!< "V100", "A100", ...
    std::string generation; //!< "NVLink2", ...
    double gbPerSecond{0};  //!< per GPU and direction, GB/s (10^9 bytes/s)
    std::string source;     //!< where the figure comes from
    /** \return the bandwidth as an ns-3 DataRate string ("1200Gbps") */
    std::string DataRate() const;
};

/**
 * \ingroup chakra-helper
 * \brief Looks a GPU up by the name the CUDA driver reports ("Tesla V100-SXM2-32GB",
 * "NVIDIA A100-SXM4-80GB", "NVIDIA H100 80GB HBM3", ...).
 *
 * Known: P100, V100, A100, A800, H100, H800, H200, B200 in their NVLink (SXM) form. A PCIe
 * card (name containing "PCIe"), or H100 NVL (NVLink bridge between two cards, no NVSwitch), or
 * any other name: nullopt, and \p why says so.
 * \param name the GPU name
 * \param[out] why when nullopt: why the name gives no NVLink bandwidth
 * \return the spec, or nullopt
 */
std::optional<GpuLinkSpec> LookUpGpuLinks(const std::string& name, std::string& why);

/**
 * \ingroup chakra-helper
 * \return the row of NCCL's tuning tables for a GPU, by its NVLink generation (NCCL goes by
 *         compute capability: NVLink3 is Ampere, NVLink4 Hopper, NVLink5 Blackwell; NVLink1
 *         and 2, P100 and V100, take Volta's rows)
 */
NcclGpuGeneration NcclGenerationOf(const GpuLinkSpec& spec);

} // namespace ns3

#endif // CHAKRA_GPU_CATALOG_H
