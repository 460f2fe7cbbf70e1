#include "cluster-topology-builder.h"

#include "ns3/enum.h"
#include "ns3/log.h"
#include "ns3/name-suggestion.h"

#include <algorithm>
#include <cctype>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("ClusterTopologyBuilder");
NS_OBJECT_ENSURE_REGISTERED(ClusterTopologyBuilder);

namespace
{

/** A listed family: its short name and its TypeId's name. */
struct Family
{
    const char* kind;
    const char* type;
};

/**
 * The families the tools and topology files know by a short name, in the order help texts list
 * them. A family missing here still works by its TypeId name (GpuClusterHelper::SetTopology).
 */
const Family kFamilies[] = {
    {"single-switch", "ns3::SingleSwitchTopology"},
    {"leaf-spine", "ns3::LeafSpineTopology"},
    {"ring", "ns3::RingTopology"},
    {"rail-optimized", "ns3::RailOptimizedTopology"},
    {"rail-only", "ns3::RailOnlyTopology"},
    {"fat-tree", "ns3::FatTreeTopology"},
    {"clos", "ns3::ClosTopology"},
    {"torus", "ns3::TorusTopology"},
    {"multi-dim", "ns3::MultiDimTopology"},
};

/** A parameter whose short name is not its attribute's name in kebab-case. */
struct Alias
{
    const char* type;
    const char* attribute;
    const char* flag;
};

/** The aliases: names from before the families were objects, kept by flags and files. */
const Alias kAliases[] = {
    {"ns3::FatTreeTopology", "K", "fat-tree-k"},
    {"ns3::RingTopology", "Bandwidth", "ring-bandwidth"},
    {"ns3::TorusTopology", "Bandwidth", "torus-bandwidth"},
    {"ns3::TorusTopology", "Dims", "torus-dims"},
};

/** \return "LeavesPerPod" as "leaves-per-pod" */
std::string
Kebab(const std::string& name)
{
    std::string kebab;
    for (std::size_t i = 0; i < name.size(); ++i)
    {
        const auto c = static_cast<unsigned char>(name[i]);
        if (std::isupper(c) && i > 0)
        {
            kebab += '-';
        }
        kebab += static_cast<char>(std::tolower(c));
    }
    return kebab;
}

/** \return the short name of attribute \p attribute of \p tid */
std::string
FlagOf(TypeId tid, const std::string& attribute)
{
    for (const Alias& alias : kAliases)
    {
        if (tid.GetName() == alias.type && attribute == alias.attribute)
        {
            return alias.flag;
        }
    }
    return Kebab(attribute);
}

} // namespace

TypeId
ClusterTopologyBuilder::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::ClusterTopologyBuilder").SetParent<Object>().SetGroupName("Chakra");
    return tid;
}

ClusterTopologyBuilder::~ClusterTopologyBuilder() = default;

void
ClusterTopologyBuilder::CheckParameters() const
{
}

uint32_t
ClusterTopologyBuilder::GetFixedRankCount() const
{
    return 0;
}

std::string
ClusterTopologyBuilder::DescribeShape(const TopologySpec& /* cluster */) const
{
    return "";
}

std::string
ClusterTopologyBuilder::GetKind() const
{
    const std::string type = GetInstanceTypeId().GetName();
    for (const Family& family : kFamilies)
    {
        if (type == family.type)
        {
            return family.kind;
        }
    }
    return type;
}

void
ClusterTopologyBuilder::Validate(const TopologySpec& cluster) const
{
    CheckParameters();
    ValidateTopologySpec(cluster, GetFixedRankCount());
}

std::shared_ptr<ClusterTopology>
ClusterTopologyBuilder::Build(const TopologySpec& cluster) const
{
    NS_LOG_FUNCTION(this << GetKind());
    Validate(cluster);
    auto topology = std::make_shared<ClusterTopology>();
    DoBuild(cluster, *topology);
    NS_LOG_INFO(GetKind() << ": " << topology->GetNodes().size() << " nodes, "
                          << topology->GetLinks().size() << " links");
    return topology;
}

std::vector<std::string>
TopologyKindNames()
{
    std::vector<std::string> names;
    for (const Family& family : kFamilies)
    {
        names.emplace_back(family.kind);
    }
    return names;
}

std::string
ListTopologyKinds()
{
    std::string list;
    for (const std::string& name : TopologyKindNames())
    {
        list += (list.empty() ? "" : ", ") + name;
    }
    return list;
}

TypeId
TopologyTypeIdOf(const std::string& kind)
{
    for (const Family& family : kFamilies)
    {
        if (kind == family.kind || kind == family.type)
        {
            return TypeId::LookupByName(family.type);
        }
    }
    TypeId tid;
    if (TypeId::LookupByNameFailSafe(kind, &tid) &&
        tid.IsChildOf(ClusterTopologyBuilder::GetTypeId()) && tid.HasConstructor())
    {
        return tid;
    }
    const auto kinds = TopologyKindNames();
    throw std::invalid_argument("unknown topology '" + kind + "'" + DidYouMean(kind, kinds) + " (" +
                                ListTopologyKinds() +
                                ", or the TypeId of a ClusterTopologyBuilder)");
}

Ptr<const AttributeChecker>
MakeTopologyKindChecker()
{
    Ptr<EnumChecker> checker = Create<EnumChecker>();
    int index = 0;
    for (const Family& family : kFamilies)
    {
        checker->Add(index++, family.kind);
    }
    return checker;
}

const std::vector<TopologyParameterName>&
TopologyParameterNames()
{
    static const std::vector<TopologyParameterName> names = [] {
        std::vector<TopologyParameterName> list;
        for (const Family& family : kFamilies)
        {
            const TypeId tid = TypeId::LookupByName(family.type);
            for (std::size_t i = 0; i < tid.GetAttributeN(); ++i)
            {
                const TypeId::AttributeInformation info = tid.GetAttribute(i);
                const std::string flag = FlagOf(tid, info.name);
                const std::string help = std::string(family.kind) + ": " + info.help;
                auto known = std::find_if(list.begin(), list.end(), [&](const auto& entry) {
                    return entry.flag == flag;
                });
                if (known == list.end())
                {
                    list.push_back({flag, info.name, help});
                }
                else
                {
                    known->help += "; " + help;
                }
            }
        }
        return list;
    }();
    return names;
}

std::string
FindTopologyParameter(TypeId tid, const std::string& name)
{
    const std::string folded = FoldName(name);
    for (std::size_t i = 0; i < tid.GetAttributeN(); ++i)
    {
        const std::string attribute = tid.GetAttribute(i).name;
        if (folded == FoldName(attribute) || folded == FoldName(FlagOf(tid, attribute)))
        {
            return attribute;
        }
    }
    return "";
}

std::string
TopologyParameterFlag(TypeId tid, const std::string& attribute)
{
    return FlagOf(tid, attribute);
}

std::string
ListTopologyParameters(TypeId tid)
{
    std::string list;
    for (std::size_t i = 0; i < tid.GetAttributeN(); ++i)
    {
        list += (list.empty() ? "--" : ", --") + FlagOf(tid, tid.GetAttribute(i).name);
    }
    return list.empty() ? "none" : list;
}

} // namespace ns3
