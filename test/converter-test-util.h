/*
 * Helpers of the converter test suites: convert a trace and read the .et back.
 */
#ifndef CHAKRA_CONVERTER_TEST_UTIL_H
#define CHAKRA_CONVERTER_TEST_UTIL_H

#include "chakra-test-data.h"

#include "ns3/et-node.h"
#include "ns3/et-reader.h"
#include "ns3/trace-converter.h"

#include <map>
#include <string>
#include <vector>

namespace chakra_test
{

/** A .et file read back: metadata and nodes in file order, with an index by id. */
struct EtFile
{
    ChakraProtoMsg::GlobalMetadata metadata; //!< the metadata
    std::vector<ns3::EtNode> nodes;          //!< nodes in file order
    std::map<uint64_t, std::size_t> byId;    //!< id -> position

    /** \return the node with that id (throws if absent) */
    const ns3::EtNode& Get(uint64_t id) const
    {
        auto it = byId.find(id);
        if (it == byId.end())
        {
            throw std::runtime_error("no node " + std::to_string(id) + " in the output");
        }
        return nodes[it->second];
    }

    /** \return true if the file has a node with that id */
    bool Has(uint64_t id) const
    {
        return byId.count(id) != 0;
    }

    /** \return the string value of a metadata attribute ("" if absent) */
    std::string MetaString(const std::string& name) const
    {
        for (const auto& attr : metadata.attr())
        {
            if (attr.name() == name)
            {
                return attr.string_val();
            }
        }
        return "";
    }

    /** \return the nodes of one type, in file order */
    std::vector<ns3::EtNode> OfType(ChakraProtoMsg::NodeType type) const
    {
        std::vector<ns3::EtNode> out;
        for (const auto& node : nodes)
        {
            if (node.GetType() == type)
            {
                out.push_back(node);
            }
        }
        return out;
    }

    /** \return the communication nodes (COMM_COLL, COMM_SEND, COMM_RECV), in file order */
    std::vector<ns3::EtNode> CommNodes() const
    {
        std::vector<ns3::EtNode> out;
        for (const auto& node : nodes)
        {
            auto type = node.GetType();
            if (type == ChakraProtoMsg::COMM_COLL_NODE || type == ChakraProtoMsg::COMM_SEND_NODE ||
                type == ChakraProtoMsg::COMM_RECV_NODE)
            {
                out.push_back(node);
            }
        }
        return out;
    }
};

/** Reads a whole .et file. */
inline EtFile
ReadEt(const std::string& path)
{
    EtFile file;
    ns3::EtReader reader(path);
    file.metadata = reader.GetMetadata();
    ChakraProtoMsg::Node proto;
    while (reader.ReadNode(proto))
    {
        file.byId[proto.id()] = file.nodes.size();
        file.nodes.emplace_back(proto);
    }
    return file;
}

/** \return the data deps of a node as a vector (sorted as written) */
inline std::vector<uint64_t>
DataDeps(const ns3::EtNode& node)
{
    return std::vector<uint64_t>(node.GetDataDeps().begin(), node.GetDataDeps().end());
}

/** \return the ctrl deps of a node as a vector */
inline std::vector<uint64_t>
CtrlDeps(const ns3::EtNode& node)
{
    return std::vector<uint64_t>(node.GetCtrlDeps().begin(), node.GetCtrlDeps().end());
}

/**
 * Structural checks every converted file must pass: ids strictly ascending, every dependency
 * names a node of the file, no node depends on itself. \return "" or what is wrong
 */
inline std::string
CheckStructure(const EtFile& file)
{
    for (std::size_t i = 0; i < file.nodes.size(); ++i)
    {
        const auto& node = file.nodes[i];
        if (i > 0 && node.GetId() <= file.nodes[i - 1].GetId())
        {
            return "ids not ascending at node " + std::to_string(node.GetId());
        }
        for (auto deps : {DataDeps(node), CtrlDeps(node)})
        {
            for (uint64_t dep : deps)
            {
                if (!file.Has(dep) || dep == node.GetId())
                {
                    return "node " + std::to_string(node.GetId()) + " depends on " +
                           std::to_string(dep) + ", which is not another node of the file";
                }
            }
        }
    }
    return "";
}

/** Converts JSON text (written to a temporary file) and reads the result back. */
struct Converted
{
    ns3::ConversionReport report; //!< the report
    EtFile et;                    //!< the output
};

inline Converted
ConvertText(const TempDir& dir,
            const std::string& json,
            const ns3::ConversionOptions& options = {},
            const std::string& name = "trace")
{
    const std::string input = dir.File(name + ".json");
    const std::string output = dir.File(name + ".et");
    WriteFileBytes(input, json);
    Converted result;
    result.report = ns3::TraceConverter(options).Convert(input, output);
    result.et = ReadEt(output);
    return result;
}

} // namespace chakra_test

#endif // CHAKRA_CONVERTER_TEST_UTIL_H
