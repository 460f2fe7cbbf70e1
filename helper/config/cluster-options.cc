#include "cluster-options.h"

#include "attribute-text.h"
#include "name-suggestion.h"
#include "quantity-parser.h"
#include "tool-args.h"

#include "ns3/chakra-application.h"
#include "ns3/cluster-scenario.h"
#include "ns3/cluster-topology-builder.h"
#include "ns3/compute-model.h"
#include "ns3/data-rate.h"
#include "ns3/double.h"
#include "ns3/enum.h"
#include "ns3/gpu-cluster-helper.h"
#include "ns3/nstime.h"
#include "ns3/pointer.h"
#include "ns3/string.h"
#include "ns3/topology-builder.h"
#include "ns3/topology-file.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <stdexcept>

namespace ns3
{

namespace
{

/** Which object a flag configures. */
enum class Target
{
    CLUSTER, //!< GpuClusterHelper
    APP,     //!< every ChakraApplication
    COMPUTE, //!< the applications' ComputeModel
    RUN,     //!< the scenario itself (hosts x GPUs resolution, stop time)
};

/** How a flag's text is read. */
enum class Kind
{
    BANDWIDTH, //!< a rate with its unit
    LATENCY,   //!< a time with its unit, 0 to 1 s
    COUNT,     //!< a whole number between low and high
    SCALE,     //!< a positive factor
    NAME,      //!< one of the names of the attribute's EnumValue
    ALGORITHM, //!< a collective algorithm, for every collective type
    CTRL_DEPS, //!< CtrlDeps' names, or true / false as the older flags took them
    PATH,      //!< a file name
    SIZE,      //!< a byte size with an optional unit
    STOP_TIME, //!< a duration, a bare number being seconds
};

/** One flag of the table. */
struct Flag
{
    const char* name; //!< kebab-case, without dashes
    Target target;
    const char* attribute; //!< the attribute it sets ("" for RUN flags)
    Kind kind;
    uint64_t low;  //!< COUNT, SIZE
    uint64_t high; //!< COUNT, SIZE
    const char* help;
};

/** The cluster's size: resolved against the traces' rank count (Target::RUN). */
std::vector<Flag>
SizeFlags()
{
    using T = Target;
    using K = Kind;
    using L = TopologyLimits;
    return {
        {"hosts", T::RUN, "Hosts", K::COUNT, 0, L::kMaxHosts, "hosts (0: from the rank count)"},
        {"gpus-per-host",
         T::RUN,
         "GpusPerHost",
         K::COUNT,
         0,
         L::kMaxGpusPerHost,
         "GPUs per host (0: 8 if the rank count allows, else all on one host)"},
    };
}

/** The fabric and its links: GpuClusterHelper's attributes. */
std::vector<Flag>
ClusterFlags()
{
    using T = Target;
    using K = Kind;
    using L = TopologyLimits;
    return {
        {"transport",
         T::CLUSTER,
         "Transport",
         K::NAME,
         0,
         0,
         "network model: rdma (RoCEv2 packets, PFC), tcp (ns-3 TCP packets), flow (max-min fair "
         "flows, for thousands of GPUs) or auto (rdma up to "
         "ns3::GpuClusterHelper::AutoPacketLimit GPUs, flow above; the report says which ran)"},
        {"topology", T::CLUSTER, "Topology", K::NAME, 0, 0, "the fabric"},
        {"nic-bandwidth",
         T::CLUSTER,
         "NicBandwidth",
         K::BANDWIDTH,
         0,
         0,
         "NIC link bandwidth, with its unit (400Gbps, 400G, 50GB/s)"},
        {"nic-latency",
         T::CLUSTER,
         "NicLatency",
         K::LATENCY,
         0,
         0,
         "NIC link latency, with its unit (500ns, 1us)"},
        {"nvlink-bandwidth",
         T::CLUSTER,
         "NvLinkBandwidth",
         K::BANDWIDTH,
         0,
         0,
         "NVLink bandwidth per GPU and direction"},
        {"nvlink-latency", T::CLUSTER, "NvLinkLatency", K::LATENCY, 0, 0, "NVLink latency"},
        {"fabric-latency",
         T::CLUSTER,
         "FabricLatency",
         K::LATENCY,
         0,
         0,
         "latency of switch-to-switch links"},
        {"mtu",
         T::CLUSTER,
         "Mtu",
         K::COUNT,
         L::kMinMtu,
         L::kMaxMtu,
         "MTU of NIC and fabric links, bytes"},
        {"scale-up-domain",
         T::CLUSTER,
         "ScaleUpDomain",
         K::COUNT,
         0,
         L::kMaxGpus,
         "GPUs per NVLink domain (0: a host; e.g. 72)"},
        {"nvls",
         T::CLUSTER,
         "NvlsSupport",
         K::NAME,
         0,
         0,
         "whether the NVSwitch reduces (NVLink SHARP, NCCL's NVLS): auto (Hopper and later), on, "
         "off"},
        {"sharp",
         T::CLUSTER,
         "SharpSupport",
         K::NAME,
         0,
         0,
         "whether the network's switches reduce (SHARP, NCCL's CollNet with "
         "NCCL_COLLNET_ENABLE=1): off, on"},
        {"topology-file",
         T::CLUSTER,
         "TopologyFile",
         K::PATH,
         0,
         0,
         "YAML/JSON topology file (ours, or ASTRA-sim's network.yml); a flag may not set what "
         "the file sets"},
        {"topology-dot",
         T::CLUSTER,
         "TopologyDot",
         K::PATH,
         0,
         0,
         "write the topology as a Graphviz file"},
    };
}

/** What every rank's application does: ChakraApplication's and its ComputeModel's. */
std::vector<Flag>
ApplicationFlags()
{
    using T = Target;
    using K = Kind;
    return {
        {"algorithm",
         T::APP,
         "AllReduceAlgorithm",
         K::ALGORITHM,
         0,
         0,
         "collective algorithm for every collective type (per type: "
         "--ns3::ChakraApplication::AllReduceAlgorithm=...)"},
        {"chunk-size",
         T::APP,
         "ChunkSize",
         K::SIZE,
         0,
         uint64_t(1) << 40,
         "pipeline chunk size in bytes (0: the algorithm's default)"},
        {"ctrl-deps",
         T::APP,
         "CtrlDeps",
         K::CTRL_DEPS,
         0,
         0,
         "ctrl_deps: auto (ignored in reference-converter traces, whose ctrl_deps are call-tree "
         "links), honour or ignore (true/false also accepted)"},
        {"dangling-deps",
         T::APP,
         "DanglingDeps",
         K::NAME,
         0,
         0,
         "dependencies on ids not in a trace: warn or error"},
        {"compute-scale",
         T::COMPUTE,
         "ComputeScale",
         K::SCALE,
         0,
         0,
         "factor on GPU compute durations (0.5: twice as fast)"},
    };
}

/** The run itself. */
std::vector<Flag>
RunFlags()
{
    using T = Target;
    using K = Kind;
    return {
        {"stop-time",
         T::RUN,
         "",
         K::STOP_TIME,
         0,
         0,
         "stop the simulation at this simulated time (2ms; a bare number is seconds; 0: never)"},
    };
}

/** \return every flag, in the order --help lists them */
const std::vector<Flag>&
Flags()
{
    static const std::vector<Flag> flags = [] {
        std::vector<Flag> all;
        for (const auto& part : {SizeFlags(), ClusterFlags(), ApplicationFlags(), RunFlags()})
        {
            all.insert(all.end(), part.begin(), part.end());
        }
        return all;
    }();
    return flags;
}

const Flag*
FindFlag(const std::string& name)
{
    for (const Flag& flag : Flags())
    {
        if (FoldName(flag.name) == FoldName(name))
        {
            return &flag;
        }
    }
    return nullptr;
}

TypeId
TypeOf(Target target)
{
    switch (target)
    {
    case Target::APP:
        return ChakraApplication::GetTypeId();
    case Target::COMPUTE:
        return ComputeModel::GetTypeId();
    default:
        return GpuClusterHelper::GetTypeId();
    }
}

/** \return the attribute's current default as people write it */
std::string
DefaultText(const Flag& flag)
{
    if (flag.target == Target::RUN)
    {
        return "0";
    }
    TypeId::AttributeInformation info;
    if (!TypeOf(flag.target).LookupAttributeByName(flag.attribute, &info))
    {
        return "";
    }
    if (const auto* rate = dynamic_cast<const DataRateValue*>(PeekPointer(info.initialValue)))
    {
        return rate->Get().GetBitRate() == 0 ? "0" : FormatBandwidth(rate->Get());
    }
    if (const auto* time = dynamic_cast<const TimeValue*>(PeekPointer(info.initialValue)))
    {
        return FormatLatency(time->Get());
    }
    return info.initialValue->SerializeToString(info.checker);
}

/** \return the flag's value, checked, as the attribute takes it */
Ptr<AttributeValue>
Convert(const Flag& flag, const std::string& text)
{
    const std::string what = std::string("--") + flag.name;
    switch (flag.kind)
    {
    case Kind::BANDWIDTH:
        return Create<DataRateValue>(ParseBandwidth(text, what));
    case Kind::LATENCY:
        return Create<TimeValue>(ParseLatency(text, what));
    case Kind::COUNT:
        return Create<UintegerValue>(ParseWholeNumber(text, what, flag.low, flag.high));
    case Kind::SIZE:
        return Create<UintegerValue>(ParseByteSize(text, what, flag.low, flag.high));
    case Kind::SCALE:
        return Create<DoubleValue>(ParseRealNumber(text, what, 0, 1000, true));
    case Kind::NAME:
    case Kind::ALGORITHM:
        return ParseAttributeText(TypeOf(flag.target), flag.attribute, text, what);
    case Kind::CTRL_DEPS: {
        // Booleans as the older flags took them.
        const std::string name = text == "true" || text == "1"    ? "honour"
                                 : text == "false" || text == "0" ? "ignore"
                                                                  : text;
        return ParseAttributeText(TypeOf(flag.target), flag.attribute, name, what);
    }
    case Kind::PATH:
        if (text.empty())
        {
            throw std::invalid_argument(what + ": an empty file name");
        }
        return Create<StringValue>(text);
    case Kind::STOP_TIME:
        return Create<TimeValue>(ParseDuration(text, what, Seconds(1e7), true));
    }
    return nullptr;
}

const char* const kCollectiveTypes[] = {"AllReduce",
                                        "AllGather",
                                        "ReduceScatter",
                                        "AllToAll",
                                        "Broadcast",
                                        "Reduce",
                                        "Gather",
                                        "Scatter"};

/** \return the topology family parameter named \p name (any spelling), or nullptr */
const TopologyParameterName*
FindTopologyName(const std::string& name)
{
    for (const TopologyParameterName& parameter : TopologyParameterNames())
    {
        if (FoldName(parameter.flag) == FoldName(name))
        {
            return &parameter;
        }
    }
    return nullptr;
}

/** \return the listed families that have the parameter */
std::vector<TypeId>
FamiliesWith(const TopologyParameterName& parameter)
{
    std::vector<TypeId> families;
    for (const std::string& kind : TopologyKindNames())
    {
        const TypeId tid = TopologyTypeIdOf(kind);
        if (FindTopologyParameter(tid, parameter.flag) == parameter.attribute)
        {
            families.push_back(tid);
        }
    }
    return families;
}

/**
 * Checks a family parameter's text when the flag is read, before the family is known: some
 * family that has the parameter must accept it (--spines=0 is rail-only on rail-optimized,
 * refused by leaf-spine), and a text parameter must parse (torus dimensions).
 */
void
CheckTopologyText(const TopologyParameterName& parameter, const std::string& text)
{
    const std::string what = "--" + parameter.flag;
    std::string error;
    for (const TypeId& tid : FamiliesWith(parameter))
    {
        try
        {
            Ptr<AttributeValue> value = ParseAttributeText(tid, parameter.attribute, text, what);
            if (dynamic_cast<const StringValue*>(PeekPointer(value)) != nullptr)
            {
                CreateTopologyBuilder(tid.GetName(), parameter.attribute, *value)
                    ->CheckParameters();
            }
            return;
        }
        catch (const std::invalid_argument& e)
        {
            const std::string message = e.what();
            error =
                error.empty()
                    ? (message.compare(0, what.size(), what) == 0 ? message : what + ": " + message)
                    : error;
        }
    }
    throw std::invalid_argument(error);
}

/** \return the parameter's default in the first family that has it */
std::string
TopologyDefaultText(const TopologyParameterName& parameter)
{
    const auto families = FamiliesWith(parameter);
    TypeId::AttributeInformation info;
    if (families.empty() || !families.front().LookupAttributeByName(parameter.attribute, &info))
    {
        return "";
    }
    if (const auto* rate = dynamic_cast<const DataRateValue*>(PeekPointer(info.initialValue)))
    {
        return rate->Get().GetBitRate() == 0 ? "0" : FormatBandwidth(rate->Get());
    }
    return info.initialValue->SerializeToString(info.checker);
}

} // namespace

void
ClusterOptions::AddFlags(ToolArgs& args)
{
    for (const Flag& flag : Flags())
    {
        std::string help = flag.help;
        if (flag.kind == Kind::NAME || flag.kind == Kind::ALGORITHM || flag.kind == Kind::CTRL_DEPS)
        {
            TypeId::AttributeInformation info;
            TypeOf(flag.target).LookupAttributeByName(flag.attribute, &info);
            help += " (" + DescribeAcceptedValues(info.checker) + ")";
        }
        args.AddOption(flag.name, help, DefaultText(flag));
    }
    for (const TopologyParameterName& parameter : TopologyParameterNames())
    {
        args.AddOption(parameter.flag, parameter.help, TopologyDefaultText(parameter));
    }
    args.AddOption("gpu",
                   "the GPU model of every GPU (H100, H200, A100, B200, GB200, ...): sets the "
                   "NVLink bandwidth from its data sheet (helper/gpu-catalog.h; not with "
                   "--nvlink-bandwidth) and the NCCL model's GpuGeneration");
}

std::vector<std::string>
ClusterOptions::GetFlagNames()
{
    std::vector<std::string> names;
    for (const Flag& flag : Flags())
    {
        names.emplace_back(flag.name);
    }
    for (const TopologyParameterName& parameter : TopologyParameterNames())
    {
        names.push_back(parameter.flag);
    }
    return names;
}

void
ClusterOptions::Read(const ToolArgs& args)
{
    for (const std::string& name : GetFlagNames())
    {
        if (args.Has(name))
        {
            Set(name, args.Get(name));
        }
    }
    if (args.Has("gpu"))
    {
        SetGpu(args.Get("gpu"));
    }
}

void
ClusterOptions::SetGpu(const std::string& name)
{
    if (Has("nvlink-bandwidth"))
    {
        throw std::invalid_argument("--gpu and --nvlink-bandwidth both set the NVLink bandwidth: "
                                    "give one");
    }
    std::string why;
    const auto spec = LookUpGpuLinks(name, why);
    if (!spec)
    {
        throw std::invalid_argument("--gpu: " + why);
    }
    Set("nvlink-bandwidth", spec->DataRate());
    m_gpu = spec;
}

const std::optional<GpuLinkSpec>&
ClusterOptions::GetGpu() const
{
    return m_gpu;
}

void
ClusterOptions::Set(const std::string& name, const std::string& text)
{
    if (const TopologyParameterName* parameter = FindTopologyName(name))
    {
        CheckTopologyText(*parameter, text);
        m_topologyText[parameter->flag] = text;
        return;
    }
    const Flag* flag = FindFlag(name);
    if (flag == nullptr)
    {
        throw std::invalid_argument("unknown cluster option --" + name +
                                    DidYouMean(name, GetFlagNames(), "--"));
    }
    m_values[flag->name] = Convert(*flag, text);
    m_text[flag->name] = text;
}

bool
ClusterOptions::Has(const std::string& name) const
{
    if (const TopologyParameterName* parameter = FindTopologyName(name))
    {
        return m_topologyText.count(parameter->flag) > 0;
    }
    const Flag* flag = FindFlag(name);
    return flag != nullptr && m_text.count(flag->name) > 0;
}

std::string
ClusterOptions::GetText(const std::string& name) const
{
    if (const TopologyParameterName* parameter = FindTopologyName(name))
    {
        auto it = m_topologyText.find(parameter->flag);
        return it != m_topologyText.end() ? it->second : TopologyDefaultText(*parameter);
    }
    const Flag* flag = FindFlag(name);
    if (flag == nullptr)
    {
        throw std::invalid_argument("unknown cluster option --" + name);
    }
    auto it = m_text.find(flag->name);
    return it != m_text.end() ? it->second : DefaultText(*flag);
}

std::optional<TopologyFileContents>
ClusterOptions::SetClusterAttributes(GpuClusterHelper& cluster) const
{
    for (const Flag& flag : Flags())
    {
        auto it = m_values.find(flag.name);
        if (flag.target == Target::CLUSTER && it != m_values.end())
        {
            cluster.SetAttribute(flag.attribute, *it->second);
        }
    }
    // A topology file names the family its parameters belong to (--topology may not be given
    // with it).
    std::optional<TopologyFileContents> file;
    auto path = m_text.find("topology-file");
    if (path != m_text.end())
    {
        file = ReadTopologyFile(path->second, cluster.GetTopologySpec());
        cluster.SetTopology(file->kind);
    }
    // Each family parameter given must be one of the chosen family's: a --leaves-per-pod on a
    // leaf-spine would otherwise be ignored, silently.
    const TypeId tid = cluster.GetTopologyTypeId();
    for (const auto& [flag, text] : m_topologyText)
    {
        const std::string attribute = FindTopologyParameter(tid, flag);
        if (attribute.empty())
        {
            throw std::invalid_argument(
                "--" + flag + ": the " + cluster.CreateTopologyBuilder()->GetKind() +
                " topology has no such parameter (it takes " + ListTopologyParameters(tid) + ")");
        }
        cluster.SetTopologyAttribute(attribute,
                                     *ParseAttributeText(tid, attribute, text, "--" + flag));
    }
    if (file)
    {
        CheckFileConflicts(*file);
    }
    return file;
}

void
ClusterOptions::CheckFileConflicts(const TopologyFileContents& file) const
{
    // The file's keys are the flags' names in camelCase ("kind" is --topology).
    std::map<std::string, std::string> given = m_text;
    given.insert(m_topologyText.begin(), m_topologyText.end());
    for (const auto& [name, text] : given)
    {
        for (const std::string& key : file.keys)
        {
            if (FoldName(key) == FoldName(name) || (key == "kind" && name == "topology"))
            {
                throw std::invalid_argument("--" + name + " and the topology file " +
                                            m_text.at("topology-file") + " ('" + key +
                                            "') both set it: give it in one place");
            }
        }
    }
}

void
ClusterOptions::ApplyToCluster(GpuClusterHelper& cluster) const
{
    SetClusterAttributes(cluster);
    for (const char* name : {"hosts", "gpus-per-host"})
    {
        auto it = m_values.find(name);
        const auto* count = it == m_values.end()
                                ? nullptr
                                : dynamic_cast<const UintegerValue*>(PeekPointer(it->second));
        if (count != nullptr && count->Get() > 0)
        {
            cluster.SetAttribute(FindFlag(name)->attribute, *it->second);
        }
    }
    cluster.Validate();
}

bool
ClusterOptions::IsApplicationFlag(const std::string& flag)
{
    return std::any_of(Flags().begin(), Flags().end(), [&flag](const Flag& f) {
        return f.name == flag && (f.target == Target::APP || f.target == Target::COMPUTE);
    });
}

std::vector<std::pair<std::string, Ptr<AttributeValue>>>
ClusterOptions::GetApplicationAttributes() const
{
    std::vector<std::pair<std::string, Ptr<AttributeValue>>> attributes;
    Ptr<ComputeModel> compute;
    for (const Flag& flag : Flags())
    {
        auto it = m_values.find(flag.name);
        if (it == m_values.end())
        {
            continue;
        }
        if (flag.kind == Kind::ALGORITHM)
        {
            for (const char* type : kCollectiveTypes)
            {
                attributes.emplace_back(std::string(type) + "Algorithm", it->second);
            }
        }
        else if (flag.target == Target::APP)
        {
            attributes.emplace_back(flag.attribute, it->second);
        }
        else if (flag.target == Target::COMPUTE)
        {
            compute = compute ? compute : CreateObject<ComputeModel>();
            compute->SetAttribute(flag.attribute, *it->second);
        }
    }
    if (compute)
    {
        attributes.emplace_back("ComputeModel", Create<PointerValue>(compute));
    }
    return attributes;
}

void
ClusterOptions::Apply(ClusterScenario& scenario, uint32_t ranks, const std::string& traces) const
{
    Ptr<GpuClusterHelper> cluster = scenario.GetCluster();
    const std::optional<TopologyFileContents> file = SetClusterAttributes(*cluster);
    if (m_gpu)
    {
        // The NCCL model's tuning rows and NVLS go by the GPU (a --ns3:: value of the user's
        // stays).
        SetDefaultUnlessGiven("ns3::NcclCollective",
                              "GpuGeneration",
                              EnumValue(static_cast<int>(NcclGenerationOf(*m_gpu))));
    }
    auto count = [this](const char* name) -> uint32_t {
        auto it = m_values.find(name);
        return it == m_values.end()
                   ? 0
                   : static_cast<uint32_t>(dynamic_cast<const UintegerValue&>(*it->second).Get());
    };
    uint32_t g = count("gpus-per-host");
    uint32_t h = count("hosts");
    const std::string where = traces.empty() ? "" : traces + ".*.et: ";
    // A topology file's hosts and GPUs per host are the cluster's; a torus or multi-dim has
    // as many GPUs as its dimensions make.
    const TopologySpec spec = cluster->GetTopologySpec();
    const Ptr<ClusterTopologyBuilder> topology = cluster->CreateTopologyBuilder();
    // Checked before the ranks are fitted: a torus without dimensions is that, not "1 GPU".
    topology->Validate(spec);
    if (file)
    {
        h = file->keys.count("hosts") ? file->spec.hosts : h;
        g = file->keys.count("gpusPerHost") ? file->spec.gpusPerHost : g;
    }
    if (const uint32_t fixed = topology->GetFixedRankCount())
    {
        if (fixed != ranks)
        {
            throw std::invalid_argument(where + "the traces have " + std::to_string(ranks) +
                                        " ranks but the " + topology->GetKind() + " topology has " +
                                        std::to_string(fixed) + " GPUs");
        }
        h = ranks;
        g = 1;
    }
    if (h == 0 && g == 0)
    {
        g = ranks % 8 == 0 ? 8 : ranks;
    }
    if (g == 0)
    {
        g = h > 0 ? ranks / h : 0;
    }
    if (h == 0 && g > 0)
    {
        h = ranks / g;
    }
    if (g == 0 || h == 0 || uint64_t(h) * g != ranks)
    {
        throw std::invalid_argument(where + "the traces have " + std::to_string(ranks) +
                                    " ranks but the cluster is " + std::to_string(h) +
                                    " host(s) x " + std::to_string(g) +
                                    " GPU(s): give --hosts and --gpus-per-host whose product is " +
                                    std::to_string(ranks) + " (or one of them)");
    }
    cluster->SetAttribute("Hosts", UintegerValue(h));
    cluster->SetAttribute("GpusPerHost", UintegerValue(g));
    // The whole cluster is checked now, before anything describes it.
    topology->Validate(cluster->GetTopologySpec());

    for (const auto& [name, value] : GetApplicationAttributes())
    {
        scenario.SetAppAttribute(name, *value);
    }
    if (!timeline.empty())
    {
        scenario.SetTimeline(timeline);
    }
    auto stop = m_values.find("stop-time");
    if (stop != m_values.end())
    {
        const Time at = dynamic_cast<const TimeValue&>(*stop->second).Get();
        if (at.IsStrictlyPositive())
        {
            scenario.SetStopTime(at);
        }
    }
}

} // namespace ns3
