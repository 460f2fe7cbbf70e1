#include "topology-file.h"

#include "cluster-topology-builder.h"
#include "topology-parts.h"

#include "ns3/attribute-text.h"
#include "ns3/name-suggestion.h"
#include "ns3/object-factory.h"
#include "ns3/quantity-parser.h"
#include "ns3/string.h"
#include "ns3/yaml-error.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <functional>
#include <map>
#include <stdexcept>
#include <sys/stat.h>
#include <yaml-cpp/yaml.h>

namespace ns3
{

namespace
{

/** A topology file is a few lines; anything larger is not one (and is not read whole). */
constexpr off_t kMaxFileBytes = 16 << 20;

/** Bytes in ASTRA-sim's GB (its analytical backend converts GB/s with 2^30). */
constexpr double kAstraGigabyte = 1073741824.0;

/** Errors with the file, the line and the key. */
class Reader
{
  public:
    explicit Reader(const std::string& path)
        : m_path(path)
    {
    }

    [[noreturn]] void Fail(const YAML::Node& node, const std::string& what) const
    {
        const auto mark = node.Mark();
        std::string where = m_path;
        if (mark.line >= 0)
        {
            where += ": line " + std::to_string(mark.line + 1);
        }
        throw std::invalid_argument(where + ": " + what);
    }

    std::string Text(const YAML::Node& node, const std::string& key) const
    {
        if (!node.IsScalar())
        {
            Fail(node, "'" + key + "' must be a single value");
        }
        return node.Scalar();
    }

    uint32_t Count(const YAML::Node& node,
                   const std::string& key,
                   uint32_t low,
                   uint32_t high) const
    {
        const std::string text = Text(node, key);
        try
        {
            return static_cast<uint32_t>(ParseWholeNumber(text, "'" + key + "'", low, high));
        }
        catch (const std::invalid_argument& e)
        {
            Fail(node, e.what());
        }
    }

    double Real(const YAML::Node& node, const std::string& key) const
    {
        const std::string text = Text(node, key);
        char* end = nullptr;
        const double value = std::strtod(text.c_str(), &end);
        if (text.empty() || *end != '\0' || !std::isfinite(value))
        {
            Fail(node, "'" + key + "': '" + text + "' is not a number");
        }
        return value;
    }

    /** An oversubscription ratio (TopologyLimits). */
    double Ratio(const YAML::Node& node, const std::string& key) const
    {
        try
        {
            return ParseRealNumber(Text(node, key),
                                   "'" + key + "'",
                                   TopologyLimits::kMinOversubscription,
                                   TopologyLimits::kMaxOversubscription);
        }
        catch (const std::invalid_argument& e)
        {
            Fail(node, e.what());
        }
    }

    /**
     * A rate: text with a unit ("400Gbps", "400 Gb/s", "50GB/s"), or a number of bit/s; within
     * QuantityLimits (0 where it means the default).
     */
    DataRate Rate(const YAML::Node& node, const std::string& key, bool zeroAllowed = false) const
    {
        const std::string text = Text(node, key);
        try
        {
            char* end = nullptr;
            const double number = std::strtod(text.c_str(), &end);
            if (!text.empty() && *end == '\0' && std::isfinite(number) && number >= 0 &&
                number <= QuantityLimits::kMaxBitRate)
            {
                const DataRate rate(static_cast<uint64_t>(std::llround(number)));
                CheckBandwidth(rate, "'" + key + "': " + text + " bit/s", zeroAllowed);
                return rate;
            }
            return ParseBandwidth(text, "'" + key + "'", zeroAllowed);
        }
        catch (const std::invalid_argument& e)
        {
            Fail(node, e.what());
        }
    }

    /** A latency: text with a unit ("500ns", "0.5 us"), or a number of nanoseconds; 0 to 1 s. */
    Time Delay(const YAML::Node& node, const std::string& key) const
    {
        const std::string text = Text(node, key);
        try
        {
            char* end = nullptr;
            const double number = std::strtod(text.c_str(), &end);
            if (!text.empty() && *end == '\0')
            {
                if (!(number >= 0) || number > QuantityLimits::kMaxLatencyNs)
                {
                    throw std::invalid_argument("'" + key + "': " + text +
                                                " ns is outside 0 .. 1s");
                }
                return NanoSeconds(static_cast<int64_t>(std::llround(number)));
            }
            return ParseLatency(text, "'" + key + "'");
        }
        catch (const std::invalid_argument& e)
        {
            Fail(node, e.what());
        }
    }

    /**
     * Refuses a mapping that repeats a key: YAML forbids it, and yaml-cpp would keep one of the
     * values silently.
     */
    void CheckUniqueKeys(const YAML::Node& map) const
    {
        std::set<std::string> seen;
        for (const auto& entry : map)
        {
            const std::string key = entry.first.Scalar();
            if (!seen.insert(key).second)
            {
                Fail(entry.first, "key '" + key + "' is given twice");
            }
        }
    }

    /** A list of per-dimension values with as many entries as dimensions. */
    const YAML::Node& List(const YAML::Node& node, const std::string& key, std::size_t size) const
    {
        if (!node.IsSequence())
        {
            Fail(node, "'" + key + "' must be a list, one entry per dimension");
        }
        if (node.size() != size)
        {
            Fail(node,
                 "'" + key + "' has " + std::to_string(node.size()) +
                     " entries but 'topology' has " + std::to_string(size) + " dimensions");
        }
        return node;
    }

  private:
    std::string m_path;
};

/** ASTRA-sim's analytical network.yml. */
void
ReadAstraSim(const Reader& reader, const YAML::Node& root, TopologyFileContents& contents)
{
    for (const char* key : {"topology", "npus_count", "bandwidth", "latency"})
    {
        if (!root[key])
        {
            reader.Fail(root, std::string("ASTRA-sim network file without '") + key + "'");
        }
    }
    const YAML::Node topology = root["topology"];
    if (!topology.IsSequence() || topology.size() == 0)
    {
        reader.Fail(topology, "'topology' must be a list of Ring, FullyConnected or Switch");
    }
    const std::size_t dims = topology.size();
    const YAML::Node npus = reader.List(root["npus_count"], "npus_count", dims);
    const YAML::Node bandwidth = reader.List(root["bandwidth"], "bandwidth", dims);
    const YAML::Node latency = reader.List(root["latency"], "latency", dims);
    std::vector<DimensionSpec> dimensions;
    for (std::size_t d = 0; d < dims; ++d)
    {
        DimensionSpec dimension;
        const std::string shape = reader.Text(topology[d], "topology");
        if (!DimensionSpec::ParseShape(shape, dimension.shape))
        {
            reader.Fail(topology[d],
                        "unknown topology '" + shape + "' (Ring, FullyConnected, Switch)");
        }
        dimension.size = reader.Count(npus[d], "npus_count", 1, TopologyLimits::kMaxDimensionSize);
        // GB/s with ASTRA-sim's GB (2^30 bytes); latency in ns. Both within QuantityLimits.
        const double gbps = reader.Real(bandwidth[d], "bandwidth");
        const double bps = gbps * kAstraGigabyte * 8;
        if (!(bps >= QuantityLimits::kMinBitRate && bps <= QuantityLimits::kMaxBitRate))
        {
            reader.Fail(bandwidth[d],
                        "'bandwidth': " + topology::Number(gbps) +
                            " GB/s is outside 1Mbps .. 100Tbps");
        }
        dimension.bandwidth = DataRate(static_cast<uint64_t>(std::llround(bps)));
        const double ns = reader.Real(latency[d], "latency");
        if (!(ns >= 0 && ns <= QuantityLimits::kMaxLatencyNs))
        {
            reader.Fail(latency[d],
                        "'latency': " + topology::Number(ns) + " ns is outside 0 .. 1s (1e9 ns)");
        }
        dimension.latency = NanoSeconds(static_cast<int64_t>(std::llround(ns)));
        dimensions.push_back(dimension);
    }
    contents.kind = "multi-dim";
    contents.parameters.emplace_back("Dimensions",
                                     Create<StringValue>(FormatDimensions(dimensions)));
    contents.keys = {"kind", "dimensions"};
    contents.astraSim = true;
}

/**
 * \return a multi-dim's dimensions from a list of {shape, size, bandwidth, latency}, in
 *         ParseDimensions' syntax
 */
std::string
ReadDimensionList(const Reader& reader, const YAML::Node& n, const std::string& k)
{
    if (!n.IsSequence() || n.size() == 0)
    {
        reader.Fail(n, "'" + k + "' must be a list of {shape, size, bandwidth, latency}");
    }
    std::vector<DimensionSpec> dimensions;
    for (const auto& item : n)
    {
        if (!item.IsMap())
        {
            reader.Fail(item, "a dimension must be {shape, size, bandwidth, latency}");
        }
        reader.CheckUniqueKeys(item);
        DimensionSpec dimension;
        for (const auto& entry : item)
        {
            const std::string key = entry.first.as<std::string>();
            const YAML::Node& value = entry.second;
            if (key == "shape")
            {
                const std::string shape = reader.Text(value, key);
                if (!DimensionSpec::ParseShape(shape, dimension.shape))
                {
                    reader.Fail(value,
                                "unknown shape '" + shape + "' (Ring, FullyConnected, Switch)");
                }
            }
            else if (key == "size")
            {
                dimension.size = reader.Count(value, key, 1, TopologyLimits::kMaxDimensionSize);
            }
            else if (key == "bandwidth")
            {
                dimension.bandwidth = reader.Rate(value, key);
            }
            else if (key == "latency")
            {
                dimension.latency = reader.Delay(value, key);
            }
            else
            {
                reader.Fail(entry.first,
                            "unknown dimension key '" + key +
                                "' (shape, size, bandwidth, latency)");
            }
        }
        dimensions.push_back(dimension);
    }
    return FormatDimensions(dimensions);
}

/**
 * \return the value of a topology family's parameter \p attribute from the file's key \p k:
 *         rates may be a number of bit/s, a list of sizes is a torus's "4x4x4", a list of
 *         mappings a multi-dim's dimensions; anything else is read as the flags read it
 */
Ptr<AttributeValue>
ReadParameter(const Reader& reader,
              TypeId tid,
              const std::string& attribute,
              const YAML::Node& n,
              const std::string& k)
{
    TypeId::AttributeInformation info;
    tid.LookupAttributeByName(attribute, &info);
    const std::string type = info.checker->GetValueTypeName();
    if (type == "DataRateValue" || type == "ns3::DataRateValue") // ns-3 spells it both ways
    {
        return Create<DataRateValue>(reader.Rate(n, k, true));
    }
    if (n.IsSequence() && n.size() > 0 && n[0].IsMap())
    {
        return Create<StringValue>(ReadDimensionList(reader, n, k));
    }
    std::string text;
    if (n.IsSequence())
    {
        for (const auto& size : n)
        {
            text += (text.empty() ? "" : "x") +
                    std::to_string(reader.Count(size, k, 1, TopologyLimits::kMaxDimensionSize));
        }
    }
    else
    {
        text = reader.Text(n, k);
    }
    try
    {
        Ptr<AttributeValue> value = ParseAttributeText(tid, attribute, text, "'" + k + "'");
        if (dynamic_cast<const StringValue*>(PeekPointer(value)) != nullptr)
        {
            // A text parameter's syntax (a torus's dimensions), on the line that gives it.
            CreateTopologyBuilder(tid.GetName(), attribute, *value)->CheckParameters();
        }
        return value;
    }
    catch (const std::invalid_argument& e)
    {
        reader.Fail(n, e.what());
    }
}

/** This module's format. */
void
ReadOwn(const Reader& reader, const YAML::Node& root, TopologyFileContents& contents)
{
    TopologySpec& s = contents.spec;
    TypeId tid;
    using Field = std::function<void(const YAML::Node&, const std::string&)>;
    const std::map<std::string, Field> fields = {
        {"kind",
         [&](const YAML::Node& n, const std::string& k) {
             contents.kind = reader.Text(n, k);
             try
             {
                 tid = TopologyTypeIdOf(contents.kind);
             }
             catch (const std::invalid_argument& e)
             {
                 reader.Fail(n, "'kind': " + std::string(e.what()));
             }
         }},
        {"hosts",
         [&](const YAML::Node& n, const std::string& k) {
             s.hosts = reader.Count(n, k, 1, TopologyLimits::kMaxHosts);
         }},
        {"gpusPerHost",
         [&](const YAML::Node& n, const std::string& k) {
             s.gpusPerHost = reader.Count(n, k, 1, TopologyLimits::kMaxGpusPerHost);
         }},
        {"nvLinkBandwidth",
         [&](const YAML::Node& n, const std::string& k) { s.nvLinkBandwidth = reader.Rate(n, k); }},
        {"nvLinkLatency",
         [&](const YAML::Node& n, const std::string& k) { s.nvLinkLatency = reader.Delay(n, k); }},
        {"nvLinkMtu",
         [&](const YAML::Node& n, const std::string& k) {
             s.nvLinkMtu = reader.Count(n, k, TopologyLimits::kMinMtu, TopologyLimits::kMaxMtu);
         }},
        {"nicBandwidth",
         [&](const YAML::Node& n, const std::string& k) { s.nicBandwidth = reader.Rate(n, k); }},
        {"nicLatency",
         [&](const YAML::Node& n, const std::string& k) { s.nicLatency = reader.Delay(n, k); }},
        {"mtu",
         [&](const YAML::Node& n, const std::string& k) {
             s.mtu = reader.Count(n, k, TopologyLimits::kMinMtu, TopologyLimits::kMaxMtu);
         }},
        {"fabricLatency",
         [&](const YAML::Node& n, const std::string& k) { s.fabricLatency = reader.Delay(n, k); }},
        {"scaleUpDomain",
         [&](const YAML::Node& n, const std::string& k) {
             s.scaleUpDomain = reader.Count(n, k, 0, TopologyLimits::kMaxGpus);
         }},
    };
    fields.at("kind")(root["kind"], "kind");
    contents.keys.insert("kind");
    std::vector<std::string> names;
    for (const auto& [name, read] : fields)
    {
        names.push_back(name);
    }
    for (const auto& entry : root)
    {
        const std::string key = entry.first.as<std::string>();
        if (key == "kind")
        {
            continue;
        }
        auto field = fields.find(key);
        if (field != fields.end())
        {
            field->second(entry.second, key);
            contents.keys.insert(key);
            continue;
        }
        const std::string attribute = FindTopologyParameter(tid, key);
        if (attribute.empty())
        {
            std::string known;
            for (const auto& name : names)
            {
                known += (known.empty() ? "" : ", ") + name;
            }
            for (std::size_t i = 0; i < tid.GetAttributeN(); ++i)
            {
                names.push_back(TopologyParameterFlag(tid, tid.GetAttribute(i).name));
            }
            reader.Fail(entry.first,
                        "unknown key '" + key + "'" + DidYouMean(key, names) + " (every " +
                            "topology: " + known + "; " + contents.kind + ": " +
                            ListTopologyParameters(tid) + ")");
        }
        contents.parameters.emplace_back(attribute,
                                         ReadParameter(reader, tid, attribute, entry.second, key));
        contents.keys.insert(TopologyParameterFlag(tid, attribute));
    }
    // The parameters together (a torus's dimensions, ...), before anything builds on them.
    try
    {
        contents.CreateTopology()->CheckParameters();
    }
    catch (const std::invalid_argument& e)
    {
        reader.Fail(root, e.what());
    }
}

} // namespace

Ptr<ClusterTopologyBuilder>
TopologyFileContents::CreateTopology(const ObjectFactory& base) const
{
    const TypeId tid = TopologyTypeIdOf(kind);
    ObjectFactory factory = tid == base.GetTypeId() ? base : ObjectFactory(tid.GetName());
    for (const auto& [name, value] : parameters)
    {
        factory.Set(name, *value);
    }
    return factory.Create<ClusterTopologyBuilder>();
}

TopologyFileContents
ReadTopologyFile(const std::string& path, const TopologySpec& defaults)
{
    TopologyFileContents contents;
    contents.spec = defaults;
    Reader reader(path);
    // A FIFO, a device or a directory would block or never end: only regular files are read
    // (as the trace readers do).
    struct stat info;
    if (stat(path.c_str(), &info) != 0)
    {
        throw std::invalid_argument(path +
                                    ": cannot read the topology file: " + std::strerror(errno));
    }
    if (!S_ISREG(info.st_mode))
    {
        throw std::invalid_argument(path + ": not a regular file (a topology file is YAML or "
                                           "JSON text)");
    }
    if (info.st_size > kMaxFileBytes)
    {
        throw std::invalid_argument(path + ": " + std::to_string(info.st_size) +
                                    " bytes is too large for a topology file");
    }
    try
    {
        const YAML::Node root = YAML::LoadFile(path);
        if (!root.IsMap())
        {
            throw std::invalid_argument(path + ": a topology file is a mapping (kind: ..., or "
                                               "ASTRA-sim's topology / npus_count / bandwidth / "
                                               "latency)");
        }
        reader.CheckUniqueKeys(root);
        if (root["npus_count"])
        {
            ReadAstraSim(reader, root, contents);
        }
        else if (root["kind"])
        {
            ReadOwn(reader, root, contents);
        }
        else
        {
            throw std::invalid_argument(path + ": neither 'kind' (this module's format) nor "
                                               "'npus_count' (ASTRA-sim's network format)");
        }
    }
    catch (const YAML::BadFile&)
    {
        throw std::invalid_argument(path + ": cannot read the topology file");
    }
    catch (const YAML::Exception& e)
    {
        // Parse errors and conversions yaml-cpp refuses (e.g. a key that is a list).
        throw std::invalid_argument(YamlErrorText(path, e.mark.line, e.msg));
    }
    try
    {
        ValidateTopologySpec(contents.spec, contents.CreateTopology()->GetFixedRankCount());
    }
    catch (const std::invalid_argument& e)
    {
        throw std::invalid_argument(path + ": " + e.what());
    }
    return contents;
}

} // namespace ns3
