#include "et-summary.h"

#include "et-node.h"
#include "et-reader.h"

namespace ns3
{

EtSummary
SummarizeEt(const std::string& path)
{
    EtSummary summary;
    summary.path = path;
    EtReader reader(path);
    summary.version = reader.GetMetadata().version();
    if (const auto* schema = FindAttribute(reader.GetMetadata().attr(), "schema"))
    {
        summary.schema = schema->string_val();
    }
    ChakraProtoMsg::Node proto;
    while (reader.ReadNode(proto))
    {
        EtNode node(std::move(proto));
        ++summary.nodes;
        ++summary.nodesByType[NodeTypeName(node.GetType())];
        summary.dataDeps += node.GetDataDeps().size();
        summary.ctrlDeps += node.GetCtrlDeps().size();
        summary.totalDurationMicros += node.GetDurationMicros();
        switch (node.GetType())
        {
        case ChakraProtoMsg::COMM_COLL_NODE: {
            auto type = node.GetCommType();
            ++summary.collectives[type ? CommTypeName(*type) : "(none)"];
            summary.commBytes += node.GetCommSize();
            break;
        }
        case ChakraProtoMsg::COMM_SEND_NODE:
        case ChakraProtoMsg::COMM_RECV_NODE:
            summary.commBytes += node.GetCommSize();
            break;
        default:
            break;
        }
        proto = ChakraProtoMsg::Node();
    }
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
    os << "\n  communicated bytes " << s.commBytes << ", data deps " << s.dataDeps
       << ", ctrl deps " << s.ctrlDeps << ", sum of durations " << s.totalDurationMicros
       << " us\n";
    return os;
}

} // namespace ns3
