/*
 * Dimensional topologies: GPUs at the points of a grid, each dimension a Ring, FullyConnected
 * or Switch building block (ASTRA-sim's analytical network), routed in dimension order.
 * "torus" is every dimension a ring, with ranks in snake order; "multi-dim" takes ASTRA-sim's
 * dimensions and NPU numbering as they are.
 */
#include "cluster-topology-builder.h"
#include "topology-parts.h"

#include "ns3/quantity-parser.h"
#include "ns3/string.h"

#include <algorithm>
#include <limits>
#include <memory>
#include <sstream>
#include <stdexcept>

namespace ns3
{
namespace topology
{

namespace
{

/** What dimension-order routing needs: coordinates and the ports of every direction. */
struct Grid
{
    std::vector<DimensionSpec> dims;
    uint32_t gpus{0};
    std::vector<uint32_t> coord;     //!< coord[rank * dims + d]
    std::vector<uint32_t> plus;      //!< ring: port towards coordinate + 1 (per rank and dim)
    std::vector<uint32_t> minus;     //!< ring: port towards coordinate - 1
    std::vector<uint32_t> up;        //!< switch: the port to the line's switch
    std::vector<uint32_t> direct;    //!< fully connected: direct[offset[rank*dims+d] + c]
    std::vector<uint32_t> offset;    //!< start of a rank's direct ports in a dimension
    std::vector<uint32_t> switchDim; //!< per switch node (index - gpus): its dimension

    uint32_t Coord(uint32_t rank, uint32_t d) const
    {
        return coord[rank * dims.size() + d];
    }
};

/**
 * Dimension-order routing: correct the first dimension (from 0) in which the node differs from
 * the destination. A ring takes the shorter way round (both ways, ECMP, on a tie); a switch
 * forwards to the line member at the destination's coordinate.
 */
void
RouteGrid(const Grid& grid, uint32_t node, uint32_t dst, std::vector<uint32_t>& ports)
{
    const auto nd = static_cast<uint32_t>(grid.dims.size());
    if (node >= grid.gpus)
    {
        // Ports of a switch follow its members' coordinates along its dimension.
        ports.push_back(grid.Coord(dst, grid.switchDim[node - grid.gpus]));
        return;
    }
    for (uint32_t d = 0; d < nd; ++d)
    {
        const uint32_t from = grid.Coord(node, d);
        const uint32_t to = grid.Coord(dst, d);
        if (from == to)
        {
            continue;
        }
        const uint32_t i = node * nd + d;
        switch (grid.dims[d].shape)
        {
        case DimensionSpec::RING: {
            const uint32_t n = grid.dims[d].size;
            const uint32_t forward = (to + n - from) % n;
            const uint32_t backward = n - forward;
            if (forward <= backward)
            {
                ports.push_back(grid.plus[i]);
            }
            if (backward <= forward && grid.minus[i] != grid.plus[i])
            {
                ports.push_back(grid.minus[i]);
            }
            std::sort(ports.begin(), ports.end());
            return;
        }
        case DimensionSpec::FULLY_CONNECTED:
            ports.push_back(grid.direct[grid.offset[i] + to]);
            return;
        case DimensionSpec::SWITCH:
            ports.push_back(grid.up[i]);
            return;
        }
    }
}

/** \return the coordinates of \p rank in snake (reflected mixed-radix) order, dimension 0 fastest
 */
std::vector<uint32_t>
SnakeCoordinates(uint32_t rank, const std::vector<DimensionSpec>& dims)
{
    std::vector<uint32_t> coords(dims.size(), 0);
    uint64_t below = 1;
    for (const auto& dimension : dims)
    {
        below *= dimension.size;
    }
    uint64_t rest = rank;
    for (std::size_t d = dims.size(); d-- > 0;)
    {
        below /= dims[d].size;
        const uint64_t top = rest / below;
        rest %= below;
        if (top % 2 == 1)
        {
            rest = below - 1 - rest; // odd layers run backwards
        }
        coords[d] = static_cast<uint32_t>(top);
    }
    return coords;
}

/** \return the coordinates of \p rank in ASTRA-sim's order (mixed radix, dimension 0 fastest) */
std::vector<uint32_t>
PlainCoordinates(uint32_t rank, const std::vector<DimensionSpec>& dims)
{
    std::vector<uint32_t> coords;
    for (const auto& dimension : dims)
    {
        coords.push_back(rank % dimension.size);
        rank /= dimension.size;
    }
    return coords;
}

/**
 * Builds a grid topology: GPUs (group = rank / size of dimension 0), then per dimension its
 * links (and switches), line by line.
 * \param scaleUpFirst dimension 0 is a scale-up (NVLink) network when there are more
 */
void
BuildGrid(const TopologySpec& spec,
          const std::vector<DimensionSpec>& dims,
          bool snake,
          bool scaleUpFirst,
          ClusterTopology& topology)
{
    auto grid = std::make_shared<Grid>();
    grid->dims = dims;
    const auto nd = static_cast<uint32_t>(dims.size());
    uint64_t count = 1;
    for (const auto& dimension : dims)
    {
        if (dimension.size == 0 || dimension.bandwidth.GetBitRate() == 0)
        {
            throw std::invalid_argument(std::string(snake ? "torus" : "multi-dim") +
                                        ": a dimension of size 0 or bandwidth 0");
        }
        count *= dimension.size;
        if (count > (uint64_t(1) << 24))
        {
            throw std::invalid_argument(std::string(snake ? "torus" : "multi-dim") +
                                        ": more than 16M GPUs");
        }
    }
    grid->gpus = static_cast<uint32_t>(count);
    const uint32_t gpus = grid->gpus;
    // Rank -> coordinates, and the rank at each point (points numbered dimension 0 fastest).
    grid->coord.resize(uint64_t(gpus) * nd);
    std::vector<uint32_t> rankAt(gpus);
    for (uint32_t rank = 0; rank < gpus; ++rank)
    {
        const auto c = snake ? SnakeCoordinates(rank, dims) : PlainCoordinates(rank, dims);
        uint64_t point = 0;
        uint64_t stride = 1;
        for (uint32_t d = 0; d < nd; ++d)
        {
            grid->coord[rank * nd + d] = c[d];
            point += c[d] * stride;
            stride *= dims[d].size;
        }
        rankAt[point] = rank;
    }
    for (uint32_t rank = 0; rank < gpus; ++rank)
    {
        topology.AddGpu(rank / dims[0].size);
    }
    grid->plus.assign(uint64_t(gpus) * nd, 0);
    grid->minus.assign(uint64_t(gpus) * nd, 0);
    grid->up.assign(uint64_t(gpus) * nd, 0);
    grid->offset.assign(uint64_t(gpus) * nd, 0);

    auto link = [&](uint32_t a, uint32_t b, uint32_t d, uint32_t& portA, uint32_t& portB) {
        portA = static_cast<uint32_t>(topology.GetPorts(a).size());
        portB = static_cast<uint32_t>(topology.GetPorts(b).size());
        const bool scaleUp = scaleUpFirst && d == 0 && nd > 1;
        topology.AddLink(a,
                         b,
                         dims[d].bandwidth,
                         dims[d].latency,
                         scaleUp ? spec.nvLinkMtu : spec.mtu,
                         scaleUp ? ClusterTopology::SCALE_UP : ClusterTopology::SCALE_OUT);
    };
    uint64_t stride = 1;
    for (uint32_t d = 0; d < nd; ++d)
    {
        const uint32_t n = dims[d].size;
        uint32_t lineIndex = 0;
        for (uint64_t base = 0; base < gpus; ++base)
        {
            if ((base / stride) % n != 0)
            {
                continue; // not the first point of a line along d
            }
            std::vector<uint32_t> line;
            for (uint32_t c = 0; c < n; ++c)
            {
                line.push_back(rankAt[base + c * stride]);
            }
            uint32_t pa = 0;
            uint32_t pb = 0;
            if (n > 1 && dims[d].shape == DimensionSpec::RING)
            {
                // As ASTRA-sim's ring: links c -> c + 1 for every c, so a ring of two has two
                // parallel links.
                for (uint32_t c = 0; c < n; ++c)
                {
                    const uint32_t a = line[c];
                    const uint32_t b = line[(c + 1) % n];
                    link(a, b, d, pa, pb);
                    grid->plus[a * nd + d] = pa;
                    grid->minus[b * nd + d] = pb;
                }
            }
            else if (n > 1 && dims[d].shape == DimensionSpec::FULLY_CONNECTED)
            {
                for (uint32_t c = 0; c < n; ++c)
                {
                    grid->offset[line[c] * nd + d] = static_cast<uint32_t>(grid->direct.size());
                    grid->direct.resize(grid->direct.size() + n, 0);
                }
                for (uint32_t a = 0; a < n; ++a)
                {
                    for (uint32_t b = a + 1; b < n; ++b)
                    {
                        link(line[a], line[b], d, pa, pb);
                        grid->direct[grid->offset[line[a] * nd + d] + b] = pa;
                        grid->direct[grid->offset[line[b] * nd + d] + a] = pb;
                    }
                }
            }
            else if (n > 1 && dims[d].shape == DimensionSpec::SWITCH)
            {
                const bool nvSwitch = scaleUpFirst && d == 0 && nd > 1;
                const uint32_t sw = topology.AddSwitch(
                    nvSwitch ? ClusterTopology::NVSWITCH : ClusterTopology::SWITCH,
                    nvSwitch ? lineIndex : d,
                    (nvSwitch ? "nvswitch" : "switch" + std::to_string(d) + ".") +
                        std::to_string(lineIndex));
                grid->switchDim.push_back(d);
                for (uint32_t c = 0; c < n; ++c)
                {
                    link(line[c], sw, d, pa, pb);
                    grid->up[line[c] * nd + d] = pa;
                }
            }
            ++lineIndex;
        }
        stride *= n;
    }
    topology.SetGpuTransit(true);
    topology.SetRouteFunction(
        [grid](const ClusterTopology&, uint32_t node, uint32_t dst, std::vector<uint32_t>& ports) {
            RouteGrid(*grid, node, dst, ports);
        });
}

} // namespace

namespace
{

/**
 * \return the product of the dimensions' sizes
 * \throws std::invalid_argument naming \p kind if that is too many GPUs
 */
uint32_t
GpusOf(const std::vector<DimensionSpec>& dims, const std::string& kind)
{
    uint64_t gpus = 1;
    for (const auto& dimension : dims)
    {
        gpus = std::min<uint64_t>(gpus * dimension.size, uint64_t(1) << 32);
    }
    if (gpus > std::numeric_limits<uint32_t>::max() / 2)
    {
        throw std::invalid_argument("the " + kind + " has too many GPUs");
    }
    return static_cast<uint32_t>(gpus);
}

} // namespace

/**
 * \ingroup chakra-topology
 * \brief GPUs in a 2D/3D/... torus: direct links to the neighbours along each dimension,
 * dimension-order routing, ranks in snake order so that consecutive ranks are neighbours.
 */
class TorusTopology : public ClusterTopologyBuilder
{
  public:
    /** \return the TypeId */
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::TorusTopology")
                                .SetParent<ClusterTopologyBuilder>()
                                .SetGroupName("Chakra")
                                .AddConstructor<TorusTopology>()
                                .AddAttribute("Dims",
                                              "GPUs along each dimension, e.g. 4x4x4",
                                              StringValue(""),
                                              MakeStringAccessor(&TorusTopology::m_dims),
                                              MakeStringChecker())
                                .AddAttribute("Bandwidth",
                                              "bandwidth of each link, per direction (0: "
                                              "NicBandwidth)",
                                              DataRateValue(DataRate(0)),
                                              MakeDataRateAccessor(&TorusTopology::m_bandwidth),
                                              MakeDataRateChecker());
        return tid;
    }

    void CheckParameters() const override
    {
        if (m_dims.empty())
        {
            throw std::invalid_argument("the torus topology needs its dimensions: torusDims "
                                        "(--torus-dims), e.g. 4x4 or 4x4x4");
        }
        ParseTorusDims(m_dims);
        CheckBandwidth(m_bandwidth, "torusBandwidth", true);
    }

    uint32_t GetFixedRankCount() const override
    {
        return m_dims.empty() ? 1 : GpusOf(Dimensions(NicOf(TopologySpec())), "torus");
    }

    std::string DescribeShape(const TopologySpec& spec) const override
    {
        std::ostringstream text;
        text << " ";
        const auto dims = ParseTorusDims(m_dims);
        for (std::size_t d = 0; d < dims.size(); ++d)
        {
            text << (d > 0 ? "x" : "") << dims[d];
        }
        const Link link = NicOf(spec);
        text << ", links " << link.bandwidth.GetBitRate() / 1e9 << " Gbps / "
             << link.latency.GetNanoSeconds() << " ns";
        return text.str();
    }

  protected:
    void DoBuild(const TopologySpec& spec, ClusterTopology& topology) const override
    {
        std::string sizes;
        for (uint32_t size : ParseTorusDims(m_dims))
        {
            sizes += (sizes.empty() ? "" : "x") + std::to_string(size);
        }
        BuildGrid(spec, Dimensions(NicOf(spec)), true, false, topology);
        topology.SetName("torus " + sizes + " (dimension-order routing, ranks in snake order)");
    }

  private:
    /** The torus's links: Bandwidth, or the NIC's when it is 0, and the NIC's latency. */
    struct Link
    {
        DataRate bandwidth;
        Time latency;
    };

    Link NicOf(const TopologySpec& spec) const
    {
        return {m_bandwidth.GetBitRate() > 0 ? m_bandwidth : spec.nicBandwidth, spec.nicLatency};
    }

    /** \return a ring dimension per torus dimension */
    std::vector<DimensionSpec> Dimensions(const Link& link) const
    {
        std::vector<DimensionSpec> dims;
        for (uint32_t size : ParseTorusDims(m_dims))
        {
            DimensionSpec dimension;
            dimension.shape = DimensionSpec::RING;
            dimension.size = size;
            dimension.bandwidth = link.bandwidth;
            dimension.latency = link.latency;
            dims.push_back(dimension);
        }
        return dims;
    }

    std::string m_dims;
    DataRate m_bandwidth;
};

/**
 * \ingroup chakra-topology
 * \brief ASTRA-sim's analytical network: a list of Ring / FullyConnected / Switch dimensions,
 * rank = ASTRA-sim's NPU id, dimension-order routing; dimension 0 is the scale-up network when
 * there are more.
 */
class MultiDimTopology : public ClusterTopologyBuilder
{
  public:
    /** \return the TypeId */
    static TypeId GetTypeId()
    {
        static TypeId tid =
            TypeId("ns3::MultiDimTopology")
                .SetParent<ClusterTopologyBuilder>()
                .SetGroupName("Chakra")
                .AddConstructor<MultiDimTopology>()
                .AddAttribute("Dimensions",
                              "Shape:size:bandwidth:latency per dimension, dimension 0 first, "
                              "e.g. Ring:8:3600Gbps:250ns,Switch:4:400Gbps:500ns (shapes Ring, "
                              "FullyConnected, Switch, as ASTRA-sim's)",
                              StringValue(""),
                              MakeStringAccessor(&MultiDimTopology::m_dimensions),
                              MakeStringChecker());
        return tid;
    }

    void CheckParameters() const override
    {
        if (m_dimensions.empty())
        {
            throw std::invalid_argument("the multi-dim topology needs its dimensions "
                                        "(--dimensions), e.g. Ring:8:3600Gbps:250ns,"
                                        "Switch:4:400Gbps:500ns");
        }
        ParseDimensions(m_dimensions);
    }

    uint32_t GetFixedRankCount() const override
    {
        return m_dimensions.empty() ? 1 : GpusOf(ParseDimensions(m_dimensions), "multi-dim");
    }

    std::string DescribeShape(const TopologySpec& /* spec */) const override
    {
        return " " + FormatDimensions(ParseDimensions(m_dimensions));
    }

  protected:
    void DoBuild(const TopologySpec& spec, ClusterTopology& topology) const override
    {
        const auto dims = ParseDimensions(m_dimensions);
        BuildGrid(spec, dims, false, true, topology);
        std::string text;
        for (const auto& dimension : dims)
        {
            text += (text.empty() ? "" : ", ") + dimension.ShapeName() + "(" +
                    std::to_string(dimension.size) + ")";
        }
        topology.SetName("multi-dim [" + text + "] (dimension-order routing)");
    }

  private:
    std::string m_dimensions;
};

NS_OBJECT_ENSURE_REGISTERED(TorusTopology);
NS_OBJECT_ENSURE_REGISTERED(MultiDimTopology);

} // namespace topology
} // namespace ns3
