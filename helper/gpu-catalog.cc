#include "gpu-catalog.h"

#include "ns3/text-format.h"

#include <algorithm>
#include <cctype>
#include <vector>

namespace ns3
{

namespace
{

/** One row: a name fragment and what it means. */
struct CatalogEntry
{
    const char* fragment; //!< lower-case part of the driver's name
    const char* model;
    const char* generation;
    double totalGBps; //!< both directions together, as NVIDIA's data sheets state it
    const char* sheet;
};

// NVIDIA quotes NVLink as the total of both directions over all of a GPU's links; the cluster
// model wants one direction, so every figure below is halved. "gb200" comes before "b200",
// which it contains.
const std::vector<CatalogEntry>&
Catalog()
{
    static const std::vector<CatalogEntry> entries = {
        {"gb200",
         "GB200",
         "NVLink5",
         1800,
         "NVIDIA GB200 NVL72 data sheet: NVLink 1.8 TB/s per GPU"},
        {"b200",
         "B200",
         "NVLink5",
         1800,
         "NVIDIA DGX B200 / HGX B200 data sheet: NVLink 1.8 TB/s per GPU"},
        {"h200", "H200", "NVLink4", 900, "NVIDIA H200 data sheet (SXM): NVLink 900 GB/s"},
        {"h800", "H800", "NVLink4", 400, "NVIDIA H800 SXM5 specification: NVLink 400 GB/s"},
        {"h100", "H100", "NVLink4", 900, "NVIDIA H100 data sheet (SXM5): NVLink 900 GB/s"},
        {"a800", "A800", "NVLink3", 400, "NVIDIA A800 SXM4 specification: NVLink 400 GB/s"},
        {"a100", "A100", "NVLink3", 600, "NVIDIA A100 data sheet (SXM4): NVLink 600 GB/s"},
        {"v100", "V100", "NVLink2", 300, "NVIDIA V100 data sheet (SXM2): NVLink 300 GB/s"},
        {"p100", "P100", "NVLink1", 160, "NVIDIA Tesla P100 data sheet (SXM2): NVLink 160 GB/s"},
    };
    return entries;
}

std::string
Lower(const std::string& text)
{
    std::string out = text;
    std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) {
        return static_cast<char>(std::tolower(c));
    });
    return out;
}

} // namespace

NcclGpuGeneration
NcclGenerationOf(const GpuLinkSpec& spec)
{
    return spec.generation == "NVLink3"   ? NcclGpuGeneration::AMPERE
           : spec.generation == "NVLink4" ? NcclGpuGeneration::HOPPER
           : spec.generation == "NVLink5" ? NcclGpuGeneration::BLACKWELL
                                          : NcclGpuGeneration::VOLTA;
}

std::string
GpuLinkSpec::DataRate() const
{
    return FormatFixed(gbPerSecond * 8, 0) + "Gbps";
}

std::optional<GpuLinkSpec>
LookUpGpuLinks(const std::string& name, std::string& why)
{
    const std::string lower = Lower(name);
    if (lower.empty())
    {
        why = "the traces do not name the GPU";
        return std::nullopt;
    }
    if (lower.find("pcie") != std::string::npos)
    {
        why = "'" + name +
              "' is a PCIe card: no NVSwitch (its NVLink, if any, is a bridge "
              "between two cards)";
        return std::nullopt;
    }
    if (lower.find("h100 nvl") != std::string::npos)
    {
        why = "'" + name + "' (H100 NVL) pairs two cards with an NVLink bridge, no NVSwitch";
        return std::nullopt;
    }
    for (const CatalogEntry& entry : Catalog())
    {
        if (lower.find(entry.fragment) != std::string::npos)
        {
            GpuLinkSpec spec;
            spec.model = entry.model;
            spec.generation = entry.generation;
            spec.gbPerSecond = entry.totalGBps / 2;
            spec.source = entry.sheet;
            return spec;
        }
    }
    why = "'" + name +
          "' is not a GPU this catalog knows (P100, V100, A100, A800, H100, H800, "
          "H200, B200, GB200 with NVLink)";
    return std::nullopt;
}

} // namespace ns3
