#include "topology-file.h"

#include <yaml-cpp/yaml.h>

#include <cmath>
#include <functional>
#include <map>
#include <stdexcept>

namespace ns3
{

namespace
{

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

    uint32_t Count(const YAML::Node& node, const std::string& key, uint32_t low) const
    {
        const std::string text = Text(node, key);
        char* end = nullptr;
        const unsigned long long value = std::strtoull(text.c_str(), &end, 10);
        if (text.empty() || *end != '\0' || text[0] == '-' || value < low || value > 1u << 30)
        {
            Fail(node, "'" + key + "': '" + text + "' is not a whole number from " +
                           std::to_string(low));
        }
        return static_cast<uint32_t>(value);
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

    double Positive(const YAML::Node& node, const std::string& key) const
    {
        const double value = Real(node, key);
        if (!(value > 0))
        {
            Fail(node, "'" + key + "' must be positive");
        }
        return value;
    }

    /** A rate: ns-3 DataRate text, or a number of bit/s. */
    DataRate Rate(const YAML::Node& node, const std::string& key) const
    {
        const std::string text = Text(node, key);
        char* end = nullptr;
        const double number = std::strtod(text.c_str(), &end);
        if (!text.empty() && *end == '\0')
        {
            if (!(number >= 0) || number > 1e18)
            {
                Fail(node, "'" + key + "': " + text + " bit/s is not a rate");
            }
            return DataRate(static_cast<uint64_t>(number));
        }
        DataRateValue value;
        if (!value.DeserializeFromString(text, MakeDataRateChecker()))
        {
            Fail(node, "'" + key + "': '" + text + "' is not a rate (e.g. 400Gbps)");
        }
        return value.Get();
    }

    /** A time: ns-3 Time text, or a number of nanoseconds. */
    Time Delay(const YAML::Node& node, const std::string& key) const
    {
        const std::string text = Text(node, key);
        char* end = nullptr;
        const double number = std::strtod(text.c_str(), &end);
        if (!text.empty() && *end == '\0')
        {
            if (!(number >= 0) || number > 1e15)
            {
                Fail(node, "'" + key + "': " + text + " ns is not a latency");
            }
            return NanoSeconds(static_cast<int64_t>(std::llround(number)));
        }
        TimeValue value;
        if (!value.DeserializeFromString(text, MakeTimeChecker()) ||
            value.Get().IsStrictlyNegative())
        {
            Fail(node, "'" + key + "': '" + text + "' is not a time (e.g. 500ns)");
        }
        return value.Get();
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
            Fail(node, "'" + key + "' has " + std::to_string(node.size()) +
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
    contents.spec.dimensions.clear();
    for (std::size_t d = 0; d < dims; ++d)
    {
        DimensionSpec dimension;
        const std::string shape = reader.Text(topology[d], "topology");
        if (!DimensionSpec::ParseShape(shape, dimension.shape))
        {
            reader.Fail(topology[d], "unknown topology '" + shape +
                                         "' (Ring, FullyConnected, Switch)");
        }
        dimension.size = reader.Count(npus[d], "npus_count", 1);
        const double gbps = reader.Positive(bandwidth[d], "bandwidth");
        dimension.bandwidth = DataRate(static_cast<uint64_t>(std::llround(gbps * kAstraGigabyte * 8)));
        const double ns = reader.Real(latency[d], "latency");
        if (ns < 0)
        {
            reader.Fail(latency[d], "'latency' must not be negative");
        }
        dimension.latency = NanoSeconds(static_cast<int64_t>(std::llround(ns)));
        contents.spec.dimensions.push_back(dimension);
    }
    contents.spec.kind = "multi-dim";
    contents.keys = {"kind", "dimensions"};
    contents.astraSim = true;
}

/** This module's format. */
void
ReadOwn(const Reader& reader, const YAML::Node& root, TopologyFileContents& contents)
{
    TopologySpec& s = contents.spec;
    using Field = std::function<void(const YAML::Node&, const std::string&)>;
    const std::map<std::string, Field> fields = {
        {"kind", [&](const YAML::Node& n, const std::string& k) { s.kind = reader.Text(n, k); }},
        {"hosts", [&](const YAML::Node& n, const std::string& k) { s.hosts = reader.Count(n, k, 1); }},
        {"gpusPerHost",
         [&](const YAML::Node& n, const std::string& k) { s.gpusPerHost = reader.Count(n, k, 1); }},
        {"nvLinkBandwidth",
         [&](const YAML::Node& n, const std::string& k) { s.nvLinkBandwidth = reader.Rate(n, k); }},
        {"nvLinkLatency",
         [&](const YAML::Node& n, const std::string& k) { s.nvLinkLatency = reader.Delay(n, k); }},
        {"nvLinkMtu",
         [&](const YAML::Node& n, const std::string& k) { s.nvLinkMtu = reader.Count(n, k, 576); }},
        {"nicBandwidth",
         [&](const YAML::Node& n, const std::string& k) { s.nicBandwidth = reader.Rate(n, k); }},
        {"nicLatency",
         [&](const YAML::Node& n, const std::string& k) { s.nicLatency = reader.Delay(n, k); }},
        {"mtu", [&](const YAML::Node& n, const std::string& k) { s.mtu = reader.Count(n, k, 576); }},
        {"hostsPerLeaf",
         [&](const YAML::Node& n, const std::string& k) { s.hostsPerLeaf = reader.Count(n, k, 1); }},
        {"spines", [&](const YAML::Node& n, const std::string& k) { s.spines = reader.Count(n, k, 0); }},
        {"oversubscription",
         [&](const YAML::Node& n, const std::string& k) {
             s.oversubscription = reader.Positive(n, k);
         }},
        {"ringBandwidth",
         [&](const YAML::Node& n, const std::string& k) { s.ringBandwidth = reader.Rate(n, k); }},
        {"fabricLatency",
         [&](const YAML::Node& n, const std::string& k) { s.fabricLatency = reader.Delay(n, k); }},
        {"scaleUpDomain",
         [&](const YAML::Node& n, const std::string& k) { s.scaleUpDomain = reader.Count(n, k, 0); }},
        {"hostsPerRailGroup",
         [&](const YAML::Node& n, const std::string& k) {
             s.hostsPerRailGroup = reader.Count(n, k, 0);
         }},
        {"leavesPerPod",
         [&](const YAML::Node& n, const std::string& k) { s.leavesPerPod = reader.Count(n, k, 1); }},
        {"coreSwitches",
         [&](const YAML::Node& n, const std::string& k) { s.coreSwitches = reader.Count(n, k, 0); }},
        {"coreOversubscription",
         [&](const YAML::Node& n, const std::string& k) {
             s.coreOversubscription = reader.Positive(n, k);
         }},
        {"fatTreeK",
         [&](const YAML::Node& n, const std::string& k) { s.fatTreeK = reader.Count(n, k, 0); }},
        {"torusBandwidth",
         [&](const YAML::Node& n, const std::string& k) { s.torusBandwidth = reader.Rate(n, k); }},
        {"torusDims",
         [&](const YAML::Node& n, const std::string& k) {
             if (n.IsSequence())
             {
                 s.torusDims.clear();
                 for (const auto& size : n)
                 {
                     s.torusDims.push_back(reader.Count(size, k, 1));
                 }
                 return;
             }
             try
             {
                 s.torusDims = ParseTorusDims(reader.Text(n, k));
             }
             catch (const std::invalid_argument& e)
             {
                 reader.Fail(n, e.what());
             }
         }},
        {"dimensions",
         [&](const YAML::Node& n, const std::string& k) {
             if (!n.IsSequence() || n.size() == 0)
             {
                 reader.Fail(n, "'" + k + "' must be a list of {shape, size, bandwidth, latency}");
             }
             s.dimensions.clear();
             for (const auto& item : n)
             {
                 if (!item.IsMap())
                 {
                     reader.Fail(item, "a dimension must be {shape, size, bandwidth, latency}");
                 }
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
                             reader.Fail(value, "unknown shape '" + shape +
                                                    "' (Ring, FullyConnected, Switch)");
                         }
                     }
                     else if (key == "size")
                     {
                         dimension.size = reader.Count(value, key, 1);
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
                         reader.Fail(entry.first, "unknown dimension key '" + key +
                                                      "' (shape, size, bandwidth, latency)");
                     }
                 }
                 s.dimensions.push_back(dimension);
             }
         }},
    };
    for (const auto& entry : root)
    {
        const std::string key = entry.first.as<std::string>();
        auto field = fields.find(key);
        if (field == fields.end())
        {
            std::string known;
            for (const auto& [name, read] : fields)
            {
                known += (known.empty() ? "" : ", ") + name;
            }
            reader.Fail(entry.first, "unknown key '" + key + "' (" + known + ")");
        }
        field->second(entry.second, key);
        contents.keys.insert(key);
    }
}

} // namespace

TopologyFileContents
ReadTopologyFile(const std::string& path, const TopologySpec& defaults)
{
    TopologyFileContents contents;
    contents.spec = defaults;
    Reader reader(path);
    try
    {
        const YAML::Node root = YAML::LoadFile(path);
        if (!root.IsMap())
        {
            throw std::invalid_argument(path + ": a topology file is a mapping (kind: ..., or "
                                               "ASTRA-sim's topology / npus_count / bandwidth / "
                                               "latency)");
        }
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
        std::string where = path;
        if (e.mark.line >= 0)
        {
            where += ": line " + std::to_string(e.mark.line + 1);
        }
        throw std::invalid_argument(where + ": " + e.msg);
    }
    return contents;
}

} // namespace ns3
