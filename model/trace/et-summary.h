/*
 * A one-pass summary of a .et trace: node counts by type and collective, bytes communicated,
 * dependency counts. Used by chakra_et_info and the demo.
 */
#ifndef CHAKRA_ET_SUMMARY_H
#define CHAKRA_ET_SUMMARY_H

#include "et-node.h"

#include <cstdint>
#include <functional>
#include <map>
#include <ostream>
#include <string>

namespace ns3
{

/**
 * \ingroup chakra-trace
 * \brief Counts of one .et trace.
 */
struct EtSummary
{
    std::string path;                            //!< the file
    std::string version;                         //!< GlobalMetadata version
    std::string schema;                          //!< "schema" metadata attribute, if any
    uint64_t nodes{0};                           //!< node count
    std::map<std::string, uint64_t> nodesByType; //!< by NodeType name
    std::map<std::string, uint64_t> collectives; //!< COMM_COLL by comm_type name ("(none)")
    uint64_t commBytes{0};                       //!< sum of comm_size over comm nodes
    uint64_t dataDeps{0};                        //!< data dependency edges
    uint64_t ctrlDeps{0};                        //!< control dependency edges
    uint64_t totalDurationMicros{0};             //!< sum of duration_micros
    uint64_t repeatedDeps{0}; //!< repeated ids the reader dropped (not in dataDeps/ctrlDeps)
};

/**
 * Reads a whole .et trace (streaming) and counts it.
 * \param path the file
 * \param check called for every node before it is counted (the simulator's bounds, for a tool
 *        that must agree with the simulator); a TraceError it throws names the file too
 * \return the summary
 * \throws TraceError naming the file (and node) on a bad file, a mistyped attribute, or totals
 *         past 2^64 (comm_size, duration_micros)
 */
EtSummary SummarizeEt(const std::string& path,
                      const std::function<void(const EtNode&)>& check = nullptr);

/** Prints a summary as a few aligned lines. */
std::ostream& operator<<(std::ostream& os, const EtSummary& summary);

} // namespace ns3

#endif // CHAKRA_ET_SUMMARY_H
