/*
 * How the benchmark programs take their flags: with ns3::ToolArgs, the parser every tool uses
 * (kebab-case flags, "--name value" or "--name=value", --help, an unknown flag an error with
 * "did you mean"), and each value checked where it enters, so that a typo stops the bench in
 * its first second with one line naming the flag instead of running for minutes on a default.
 */
#ifndef CHAKRA_BENCH_ARGS_H
#define CHAKRA_BENCH_ARGS_H

#include "ns3/name-suggestion.h"
#include "ns3/quantity-parser.h"
#include "ns3/tool-args.h"
#include "ns3/workload-generator.h"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <iostream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace chakra_bench
{

/** \return the items of a comma-separated list ("a,b,,c": a, b, c) */
inline std::vector<std::string>
SplitList(const std::string& text)
{
    std::vector<std::string> items;
    std::stringstream stream(text);
    std::string item;
    while (std::getline(stream, item, ','))
    {
        if (!item.empty())
        {
            items.push_back(item);
        }
    }
    return items;
}

/**
 * \param text the flag's value, a comma-separated list
 * \param flag the flag, named in an error ("--n")
 * \return the items; an empty list is an error (a flag given means at least one item)
 * \throws std::invalid_argument naming \p flag
 */
inline std::vector<std::string>
NonEmptyList(const std::string& text, const std::string& flag)
{
    std::vector<std::string> items = SplitList(text);
    if (items.empty())
    {
        throw std::invalid_argument(flag + ": '" + text + "' names nothing");
    }
    return items;
}

/**
 * \return the whole numbers of a comma-separated list, each within [low, high]
 * \throws std::invalid_argument naming \p flag
 */
inline std::vector<uint32_t>
ParseCountList(const std::string& text, const std::string& flag, uint32_t low, uint32_t high)
{
    std::vector<uint32_t> counts;
    for (const auto& item : NonEmptyList(text, flag))
    {
        counts.push_back(static_cast<uint32_t>(ns3::ParseWholeNumber(item, flag, low, high)));
    }
    return counts;
}

/**
 * \return the byte sizes (64KiB, 1MiB, 1048576, ...) of a comma-separated list, each within
 *         [low, high]
 * \throws std::invalid_argument naming \p flag
 */
inline std::vector<uint64_t>
ParseSizeList(const std::string& text, const std::string& flag, uint64_t low, uint64_t high)
{
    std::vector<uint64_t> sizes;
    for (const auto& item : NonEmptyList(text, flag))
    {
        sizes.push_back(ns3::ParseByteSize(item, flag, low, high));
    }
    return sizes;
}

/**
 * \return \p name if it is one of \p known
 * \throws std::invalid_argument naming \p flag, the unknown name and the nearest known one
 */
inline std::string
ParseName(const std::string& name, const std::string& flag, const std::vector<std::string>& known)
{
    if (std::find(known.begin(), known.end(), name) == known.end())
    {
        std::string list;
        for (const auto& k : known)
        {
            list += (list.empty() ? "" : ", ") + k;
        }
        throw std::invalid_argument(flag + ": unknown '" + name + "'" +
                                    ns3::DidYouMean(name, known) + "; one of " + list);
    }
    return name;
}

/**
 * \return the names of a comma-separated list, each one of \p known
 * \throws std::invalid_argument naming \p flag, the unknown name and the nearest known one
 */
inline std::vector<std::string>
ParseNameList(const std::string& text,
              const std::string& flag,
              const std::vector<std::string>& known)
{
    std::vector<std::string> names = NonEmptyList(text, flag);
    for (const auto& name : names)
    {
        ParseName(name, flag, known);
    }
    return names;
}

/**
 * \return the names of a comma-separated list, each checked by \p check (which throws
 *         std::invalid_argument saying why a name is refused)
 * \throws std::invalid_argument naming \p flag
 */
inline std::vector<std::string>
ParseCheckedList(const std::string& text,
                 const std::string& flag,
                 const std::function<void(const std::string&)>& check)
{
    std::vector<std::string> names = NonEmptyList(text, flag);
    for (const auto& name : names)
    {
        try
        {
            check(name);
        }
        catch (const std::invalid_argument& e)
        {
            throw std::invalid_argument(flag + ": " + e.what());
        }
    }
    return names;
}

/**
 * \return the collectives of a comma-separated list (all-reduce, all_gather, ...)
 * \throws std::invalid_argument naming \p flag and the unknown name
 */
inline std::vector<ChakraProtoMsg::CollectiveCommType>
ParseCollectiveList(const std::string& text, const std::string& flag)
{
    std::vector<ChakraProtoMsg::CollectiveCommType> types;
    for (const auto& name : NonEmptyList(text, flag))
    {
        ChakraProtoMsg::CollectiveCommType type;
        if (!ns3::WorkloadGenerator::ParseCollective(name, type))
        {
            throw std::invalid_argument(flag + ": unknown collective '" + name + "'");
        }
        types.push_back(type);
    }
    return types;
}

/**
 * Parses argv with \p args, then runs \p read, which takes the values out of \p args and
 * checks them (throwing std::invalid_argument naming the flag).
 * \param program the bench's name, as errors name it
 * \param args the declared flags
 * \param argc from main
 * \param argv from main
 * \param read takes and checks the values
 * \param[out] exitCode when the bench should stop now: 0 after --help, 2 after a mistake (its
 *             message printed on stderr as one line)
 * \return true if the bench should run
 */
inline bool
ParseFlags(const std::string& program,
           ns3::ToolArgs& args,
           int argc,
           char** argv,
           const std::function<void()>& read,
           int& exitCode)
{
    bool done = false;
    exitCode = args.Parse(argc, argv, done);
    if (done)
    {
        return false;
    }
    try
    {
        read();
    }
    catch (const std::invalid_argument& e)
    {
        std::cerr << program << ": error: " << e.what() << " (see --help)" << std::endl;
        exitCode = 2;
        return false;
    }
    return true;
}

} // namespace chakra_bench

#endif // CHAKRA_BENCH_ARGS_H
