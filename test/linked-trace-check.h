/*
 * Invariants every linked trace must satisfy (doc/linked-trace.md), checked the slow and
 * obvious way, for the linker's test suites.
 */
#ifndef CHAKRA_LINKED_TRACE_CHECK_H
#define CHAKRA_LINKED_TRACE_CHECK_H

#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

namespace chakra_test
{

/** \return the parent id of a node of a linked trace (1.0.1 "parent" or "ctrl_deps") */
inline long long
ParentOf(const nlohmann::ordered_json& node)
{
    if (node.contains("parent"))
    {
        return node["parent"].get<long long>();
    }
    const auto& deps = node["ctrl_deps"];
    return deps.is_array() ? (deps.empty() ? -1 : deps[0].get<long long>()) : deps.get<long long>();
}

/** \return a node's "tid", from its top level or its "attrs" (-1 if absent) */
inline long long
TidOf(const nlohmann::ordered_json& node)
{
    if (node.contains("tid"))
    {
        return node["tid"].get<long long>();
    }
    if (node.contains("attrs"))
    {
        for (const auto& attr : node["attrs"])
        {
            if (attr.value("name", "") == "tid")
            {
                return attr["value"].get<long long>();
            }
        }
    }
    return -1;
}

/**
 * Checks the contract's structural rules and returns "" or the first violation:
 * ids unique and ascending; every parent names a node; a GPU op (a node with "cat") comes
 * right after its launching host op or a sibling GPU op; sync_deps name GPU ops;
 * inter_thread_dep names a host op of another thread.
 */
inline std::string
CheckLinkedTrace(const nlohmann::ordered_json& trace)
{
    if (!trace.contains("nodes") || !trace["nodes"].is_array())
    {
        return "no nodes";
    }
    const auto& nodes = trace["nodes"];
    std::map<long long, const nlohmann::ordered_json*> byId;
    long long previous = -1;
    for (const auto& node : nodes)
    {
        long long id = node["id"].get<long long>();
        if (id <= previous)
        {
            return "ids not strictly ascending at " + std::to_string(id);
        }
        previous = id;
        byId[id] = &node;
    }
    long long lastHost = -1;
    for (const auto& node : nodes)
    {
        long long id = node["id"].get<long long>();
        long long parent = ParentOf(node);
        if (byId.count(parent) == 0)
        {
            return "node " + std::to_string(id) + ": parent " + std::to_string(parent) +
                   " does not exist";
        }
        if (node.contains("cat"))
        {
            if (byId[parent]->contains("cat"))
            {
                return "GPU op " + std::to_string(id) + " has a GPU op as parent";
            }
            if (parent != lastHost)
            {
                return "GPU op " + std::to_string(id) + " does not follow its launcher " +
                       std::to_string(parent);
            }
        }
        else
        {
            lastHost = id;
        }
        if (node.contains("sync_deps"))
        {
            for (const auto& dep : node["sync_deps"])
            {
                auto it = byId.find(dep.get<long long>());
                if (it == byId.end() || !it->second->contains("cat"))
                {
                    return "node " + std::to_string(id) + ": sync dep " + dep.dump() +
                           " is not a GPU op";
                }
            }
        }
        if (node.contains("inter_thread_dep"))
        {
            auto it = byId.find(node["inter_thread_dep"].get<long long>());
            if (it == byId.end() || it->second->contains("cat") ||
                TidOf(*it->second) == TidOf(node))
            {
                return "node " + std::to_string(id) +
                       ": inter_thread_dep is not a host op of another thread";
            }
        }
    }
    return "";
}

} // namespace chakra_test

#endif // CHAKRA_LINKED_TRACE_CHECK_H
