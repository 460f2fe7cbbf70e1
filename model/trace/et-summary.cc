#include "et-summary.h"

#include "et-node.h"
#include "et-reader.h"
#include "trace-error.h"

#include <cstdint>

namespace ns3
{

namespace
{

/**
 * Adds \p value to a total, refusing to wrap around: a wrapped total would print a plausible
 * wrong number.
 */
void
AddChecked(uint64_t& total, uint64_t value, const EtNode& node, const char* what)
{
    if (value > UINT64_MAX - total)
    {
        throw TraceError("",
                         node.Describe(),
                         std::string("the sum of ") + what + " over the trace passes 2^64 at " +
                             std::to_string(value) + " (no real trace comes near)");
    }
    total += value;
}

void
SummarizeNodes(EtReader& reader,
               EtSummary& summary,
               const std::function<void(const EtNode&)>& check)
{
    ChakraProtoMsg::Node proto;
    while (reader.ReadNode(proto))
    {
        EtNode node(std::move(proto));
        if (check)
        {
            check(node);
        }
        ++summary.nodes;
        ++summary.nodesByType[NodeTypeName(node.GetType())];
        summary.dataDeps += node.GetDataDeps().size();
        summary.ctrlDeps += node.GetCtrlDeps().size();
        AddChecked(summary.totalDurationMicros, node.GetDurationMicros(), node, "duration_micros");
        switch (node.GetType())
        {
        case ChakraProtoMsg::COMM_COLL_NODE: {
            auto type = node.GetCommType();
            ++summary.collectives[type ? CommTypeName(*type) : "(none)"];
            AddChecked(summary.commBytes, node.GetCommSize(), node, "comm_size");
            break;
        }
        case ChakraProtoMsg::COMM_SEND_NODE:
        case ChakraProtoMsg::COMM_RECV_NODE:
            AddChecked(summary.commBytes, node.GetCommSize(), node, "comm_size");
            break;
        default:
            break;
        }
        proto = ChakraProtoMsg::Node();
    }
}

} // namespace

EtSummary
SummarizeEt(const std::string& path, const std::function<void(const EtNode&)>& check)
{
    EtSummary summary;
    summary.path = path;
    EtReader reader(path);
    summary.version = reader.GetMetadata().version();
    if (const auto* schema = FindAttribute(reader.GetMetadata().attr(), "schema"))
    {
        summary.schema = schema->string_val();
    }
    try
    {
        SummarizeNodes(reader, summary, check);
    }
    catch (const TraceError& e)
    {
        // EtNode's typed getters know the node, not the file.
        if (!e.GetFile().empty())
        {
            throw;
        }
        throw TraceError(path, "", e.what());
    }
    summary.repeatedDeps = reader.GetDuplicateDepsDropped();
    return summary;
}

std::ostream&
operator<<(std::ostream& os, const EtSummary& s)
{
    os << s.path << "\n";
    os << "  metadata version '" << s.version << "'";
    if (!s.schema.empty())
    {
        os << ", schema '" << s.schema << "'";
    }
    os << "\n  nodes " << s.nodes << ":";
    for (const auto& [type, count] : s.nodesByType)
    {
        os << " " << type << "=" << count;
    }
    if (!s.collectives.empty())
    {
        os << "\n  collectives:";
        for (const auto& [type, count] : s.collectives)
        {
            os << " " << type << "=" << count;
        }
    }
    os << "\n  communicated bytes " << s.commBytes << ", data deps " << s.dataDeps << ", ctrl deps "
       << s.ctrlDeps << ", sum of durations " << s.totalDurationMicros << " us\n";
    if (s.repeatedDeps > 0)
    {
        os << "  repeated dependency ids dropped while reading: " << s.repeatedDeps << "\n";
    }
    return os;
}

} // namespace ns3
