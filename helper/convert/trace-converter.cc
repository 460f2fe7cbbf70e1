/*
 * TraceConverter: the order of a conversion's steps (roles, process groups and communication,
 * dependencies, the nodes) and the writing of the .et with its metadata and, in ASTRA-sim's
 * form, its communicators file.
 */
#include "trace-converter.h"

#include "et-node-maker.h"
#include "node-communication.h"
#include "node-dependencies.h"
#include "node-roles.h"

#include "ns3/astra-sim-export.h"
#include "ns3/et-attribute-writer.h"
#include "ns3/et-writer.h"
#include "ns3/trace-error.h"
#include "ns3/trace-file.h"

#include <set>

namespace ns3
{

namespace
{

/** One conversion: the trace, the settings, and the steps' results. */
class Conversion
{
  public:
    /**
     * \param trace the input
     * \param options settings
     * \param report what happened (filled here)
     */
    Conversion(const PyTorchTrace& trace,
               const ConversionOptions& options,
               ConversionReport& report);

    /** Converts the trace and writes \p outputPath. */
    void Run(const std::string& outputPath);

  private:
    /** Takes the rank and world size from the options, else from trace_link, and checks them. */
    void ResolveRankAndWorldSize();
    /** \return the .et's global metadata (schema, source, rank, world size, GPU) */
    ChakraProtoMsg::GlobalMetadata MakeMetadata() const;
    /**
     * Plans ASTRA-sim's form: numbered communicators for the declared process groups.
     * \param dropped gets the ids of the METADATA nodes left out
     */
    AstraSimExport PlanAstraSim(std::set<uint64_t>& dropped) const;
    void Write(const std::string& outputPath);

    const PyTorchTrace& m_trace;        //!< the input
    const std::string& m_path;          //!< its file name
    const ConversionOptions& m_options; //!< settings
    ConversionReport& m_report;         //!< what happened
    std::optional<int64_t> m_rank;      //!< global rank, if known
    std::optional<int64_t> m_worldSize; //!< world size, if known
    NodeRoles m_roles;                  //!< what each node becomes
    NodeCommunication m_communication;  //!< process groups, communication per node
    NodeDependencies m_dependencies;    //!< what each node waits for
};

Conversion::Conversion(const PyTorchTrace& trace,
                       const ConversionOptions& options,
                       ConversionReport& report)
    : m_trace(trace),
      m_path(trace.GetPath()),
      m_options(options),
      m_report(report),
      m_roles(trace, report),
      m_communication(trace, m_roles, report),
      m_dependencies(trace, m_roles, report)
{
}

void
Conversion::Run(const std::string& outputPath)
{
    m_report.input = m_path;
    m_report.output = outputPath;
    m_report.schema = m_trace.GetSchema();
    m_report.linked = m_trace.GetTraceLink().present;
    m_report.inputNodes = m_trace.GetSize();
    ResolveRankAndWorldSize();
    m_communication.ReadProcessGroups(m_worldSize);
    if (!m_worldSize)
    {
        m_worldSize = m_communication.GetGroups().GetLargestGroupSize();
    }
    m_report.rank = m_rank;
    m_report.worldSize = m_worldSize;
    m_communication.Find(m_rank);
    m_dependencies.Build();
    m_dependencies.CheckCycles();
    Write(outputPath);
}

void
Conversion::ResolveRankAndWorldSize()
{
    const TraceLinkInfo& link = m_trace.GetTraceLink();
    m_rank = m_options.rank ? m_options.rank : link.rank;
    m_worldSize = m_options.worldSize ? m_options.worldSize : link.worldSize;
    if (m_options.rank && link.rank && *m_options.rank != *link.rank)
    {
        m_report.AddWarning("rank " + std::to_string(*m_options.rank) +
                            " given, but trace_link.rank is " + std::to_string(*link.rank) +
                            ": using " + std::to_string(*m_options.rank));
    }
    if (m_rank && m_worldSize && *m_rank >= *m_worldSize)
    {
        throw TraceError(m_path,
                         "",
                         "rank " + std::to_string(*m_rank) + " is not below the world size " +
                             std::to_string(*m_worldSize));
    }
    if (m_trace.GetDanglingParents() > 0)
    {
        m_report.droppedReferences += m_trace.GetDanglingParents();
        m_report.AddWarning(std::to_string(m_trace.GetDanglingParents()) +
                            " node(s) name a parent that is not in the trace: made roots");
    }
}

ChakraProtoMsg::GlobalMetadata
Conversion::MakeMetadata() const
{
    ChakraProtoMsg::GlobalMetadata metadata;
    metadata.set_version("0.0.4");
    EtAttributeWriter attributes(metadata.mutable_attr());
    attributes.String("schema", m_trace.GetSchema());
    attributes.String("source", m_report.linked ? "PyTorch linked trace" : "PyTorch host trace");
    if (m_rank)
    {
        attributes.Int64("rank", *m_rank);
    }
    if (m_worldSize)
    {
        attributes.Int64("world_size", *m_worldSize);
    }
    if (!m_trace.GetTraceLink().gpuName.empty())
    {
        attributes.String("gpu_name", m_trace.GetTraceLink().gpuName);
    }
    return metadata;
}

AstraSimExport
Conversion::PlanAstraSim(std::set<uint64_t>& dropped) const
{
    std::vector<ProcessGroupSpec> declared;
    for (std::size_t i = 0; i < m_trace.GetSize(); ++i)
    {
        if (m_roles.InOutput(i) && m_roles.Get(i) == NodeRole::Metadata)
        {
            const uint64_t id = m_trace.GetNode(i).id;
            AddAstraSimGroups(m_communication.GetMetadataValues(i), declared, m_path, id);
            dropped.insert(id);
        }
    }
    const auto ranks =
        m_worldSize ? *m_worldSize : m_communication.GetGroups().GetLargestGroupSize().value_or(0);
    return PlanAstraSimGroups(declared, static_cast<uint32_t>(ranks));
}

void
Conversion::Write(const std::string& outputPath)
{
    const ChakraProtoMsg::GlobalMetadata metadata = MakeMetadata();
    // ASTRA-sim's form (the rewrite chakra_generator --astra-sim applies): no METADATA
    // node, numbered communicators, no communication on the CPU.
    std::optional<AstraSimExport> astraSim;
    std::set<uint64_t> dropped;
    if (m_options.astraSim)
    {
        astraSim = PlanAstraSim(dropped);
    }
    EtWriter writer(outputPath, metadata);
    EtNodeMaker maker(m_trace, m_roles, m_communication, m_dependencies, m_report);
    for (std::size_t i = 0; i < m_trace.GetSize(); ++i)
    {
        if (!m_roles.InOutput(i) || (astraSim && m_roles.Get(i) == NodeRole::Metadata))
        {
            continue;
        }
        ChakraProtoMsg::Node node = maker.Make(i);
        if (astraSim)
        {
            RewriteForAstraSim(node, *astraSim, dropped, m_path);
        }
        writer.WriteNode(node);
    }
    if (astraSim && !astraSim->groups.empty())
    {
        // Written before the trace appears: a trace whose communicators are not listed
        // beside it would run its sub-groups as the world.
        m_report.commGroupFile = AstraSimCommGroupFile(outputPath);
        AtomicOutputFile groups(m_report.commGroupFile);
        groups.Write(AstraSimCommGroupsJson(*astraSim));
        groups.Commit();
    }
    writer.Commit();
    m_report.outputNodes = writer.GetNodesWritten();
}

} // namespace

std::string
AstraSimCommGroupFile(const std::string& outputPath)
{
    std::string prefix = outputPath;
    for (const std::string suffix : {".gz", ".et"})
    {
        if (prefix.size() > suffix.size() &&
            prefix.compare(prefix.size() - suffix.size(), suffix.size(), suffix) == 0)
        {
            prefix.resize(prefix.size() - suffix.size());
        }
    }
    // <prefix>.<rank>: one file for the job, not one per rank.
    const std::string::size_type dot = prefix.rfind('.');
    if (dot != std::string::npos && dot + 1 < prefix.size() &&
        prefix.find_first_not_of("0123456789", dot + 1) == std::string::npos)
    {
        prefix.resize(dot);
    }
    return prefix + ".comm-groups.json";
}

TraceConverter::TraceConverter(ConversionOptions options)
    : m_options(std::move(options))
{
}

ConversionReport
TraceConverter::Convert(const std::string& inputPath, const std::string& outputPath) const
{
    return Convert(PyTorchTrace::Load(inputPath), outputPath);
}

ConversionReport
TraceConverter::Convert(const PyTorchTrace& trace, const std::string& outputPath) const
{
    ConversionReport report;
    Conversion(trace, m_options, report).Run(outputPath);
    return report;
}

} // namespace ns3
