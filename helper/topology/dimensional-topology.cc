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
 * Numbers a grid's points: checks the dimensions, fills grid.gpus and each rank's coordinates.
 * \return the rank at each point (points numbered dimension 0 fastest)
 */
std::vector<uint32_t>
PlaceGridRanks(const std::vector<DimensionSpec>& dims, bool snake, Grid& grid)
{
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
    grid.gpus = static_cast<uint32_t>(count);
    grid.coord.resize(uint64_t(grid.gpus) * nd);
    std::vector<uint32_t> rankAt(grid.gpus);
    for (uint32_t rank = 0; rank < grid.gpus; ++rank)
    {
        const auto c = snake ? SnakeCoordinates(rank, dims) : PlainCoordinates(rank, dims);
        uint64_t point = 0;
        uint64_t stride = 1;
        for (uint32_t d = 0; d < nd; ++d)
        {
            grid.coord[rank * nd + d] = c[d];
            point += c[d] * stride;
            stride *= dims[d].size;
        }
        rankAt[point] = rank;
    }
    return rankAt;
}

/**
 * Links the lines of a grid, one dimension at a time, recording in the grid the port each
 * link takes at each end (what RouteGrid reads).
 */
class GridLinker
{
  public:
    /**
     * \param spec the cluster (MTUs)
     * \param scaleUpFirst dimension 0 is a scale-up (NVLink) network when there are more
     * \param topology where the links and switches go
     * \param grid the grid (its ports are filled in)
     */
    GridLinker(const TopologySpec& spec, bool scaleUpFirst, ClusterTopology& topology, Grid& grid)
        : m_spec(spec),
          m_scaleUpFirst(scaleUpFirst),
          m_topology(topology),
          m_grid(grid),
          m_nd(static_cast<uint32_t>(grid.dims.size()))
    {
    }

    /** Links the points of \p line (a line along \p d, the \p index-th) as d's shape says. */
    void LinkLine(const std::vector<uint32_t>& line, uint32_t d, uint32_t index)
    {
        const uint32_t n = static_cast<uint32_t>(line.size());
        if (n < 2)
        {
            return;
        }
        switch (m_grid.dims[d].shape)
        {
        case DimensionSpec::RING:
            LinkRing(line, d);
            break;
        case DimensionSpec::FULLY_CONNECTED:
            LinkFullyConnected(line, d);
            break;
        case DimensionSpec::SWITCH:
            LinkToSwitch(line, d, index);
            break;
        }
    }

  private:
    /** Links \p a and \p b along \p d; \p portA, \p portB: their new ports. */
    void Link(uint32_t a, uint32_t b, uint32_t d, uint32_t& portA, uint32_t& portB)
    {
        portA = static_cast<uint32_t>(m_topology.GetPorts(a).size());
        portB = static_cast<uint32_t>(m_topology.GetPorts(b).size());
        const bool scaleUp = IsScaleUp(d);
        m_topology.AddLink(a,
                           b,
                           m_grid.dims[d].bandwidth,
                           m_grid.dims[d].latency,
                           scaleUp ? m_spec.nvLinkMtu : m_spec.mtu,
                           scaleUp ? ClusterTopology::SCALE_UP : ClusterTopology::SCALE_OUT);
    }

    bool IsScaleUp(uint32_t d) const
    {
        return m_scaleUpFirst && d == 0 && m_nd > 1;
    }

    void LinkRing(const std::vector<uint32_t>& line, uint32_t d)
    {
        // As ASTRA-sim's ring: links c -> c + 1 for every c, so a ring of two has two parallel
        // links.
        const auto n = static_cast<uint32_t>(line.size());
        for (uint32_t c = 0; c < n; ++c)
        {
            const uint32_t a = line[c];
            const uint32_t b = line[(c + 1) % n];
            uint32_t pa = 0;
            uint32_t pb = 0;
            Link(a, b, d, pa, pb);
            m_grid.plus[a * m_nd + d] = pa;
            m_grid.minus[b * m_nd + d] = pb;
        }
    }

    void LinkFullyConnected(const std::vector<uint32_t>& line, uint32_t d)
    {
        const auto n = static_cast<uint32_t>(line.size());
        for (uint32_t c = 0; c < n; ++c)
        {
            m_grid.offset[line[c] * m_nd + d] = static_cast<uint32_t>(m_grid.direct.size());
            m_grid.direct.resize(m_grid.direct.size() + n, 0);
        }
        for (uint32_t a = 0; a < n; ++a)
        {
            for (uint32_t b = a + 1; b < n; ++b)
            {
                uint32_t pa = 0;
                uint32_t pb = 0;
                Link(line[a], line[b], d, pa, pb);
                m_grid.direct[m_grid.offset[line[a] * m_nd + d] + b] = pa;
                m_grid.direct[m_grid.offset[line[b] * m_nd + d] + a] = pb;
            }
        }
    }

    void LinkToSwitch(const std::vector<uint32_t>& line, uint32_t d, uint32_t index)
    {
        const bool nvSwitch = IsScaleUp(d);
        const uint32_t sw = m_topology.AddSwitch(
            nvSwitch ? ClusterTopology::NVSWITCH : ClusterTopology::SWITCH,
            nvSwitch ? index : d,
            (nvSwitch ? "nvswitch" : "switch" + std::to_string(d) + ".") + std::to_string(index));
        m_grid.switchDim.push_back(d);
        for (uint32_t member : line)
        {
            uint32_t pa = 0;
            uint32_t pb = 0;
            Link(member, sw, d, pa, pb);
            m_grid.up[member * m_nd + d] = pa;
        }
    }

    const TopologySpec& m_spec;
    bool m_scaleUpFirst;
    ClusterTopology& m_topology;
    Grid& m_grid;
    uint32_t m_nd; //!< dimensions
};

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
    const std::vector<uint32_t> rankAt = PlaceGridRanks(dims, snake, *grid);
    const uint32_t gpus = grid->gpus;
    for (uint32_t rank = 0; rank < gpus; ++rank)
    {
        topology.AddGpu(rank / dims[0].size);
    }
    grid->plus.assign(uint64_t(gpus) * nd, 0);
    grid->minus.assign(uint64_t(gpus) * nd, 0);
    grid->up.assign(uint64_t(gpus) * nd, 0);
    grid->offset.assign(uint64_t(gpus) * nd, 0);

    GridLinker linker(spec, scaleUpFirst, topology, *grid);
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
            linker.LinkLine(line, d, lineIndex);
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
