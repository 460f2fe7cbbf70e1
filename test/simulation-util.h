/*
 * Helpers of the simulation tests: run a trace set on a cluster and get the report, write
 * small hand-made traces.
 */
#ifndef CHAKRA_SIMULATION_UTIL_H
#define CHAKRA_SIMULATION_UTIL_H

#include "ns3/chakra-report.h"
#include "ns3/cluster-scenario.h"
#include "ns3/core-module.h"

#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace chakra_test
{

/** A cluster and application configuration for one run. */
struct ClusterConfig
{
    uint32_t hosts{1};
    uint32_t gpusPerHost{2};
    std::string transport{"tcp"};
    std::string topology{"single-switch"};
    std::string nicBandwidth{"400Gbps"};
    std::string nicLatency{"500ns"};
    std::string nvLinkBandwidth{"3600Gbps"};
    std::string nvLinkLatency{"250ns"};
    uint32_t mtu{9000};
    uint32_t spines{2};
    uint32_t hostsPerLeaf{1};
    double oversubscription{1.0};
    /** Application attributes (name, value). */
    std::vector<std::pair<std::string, std::string>> appAttributes;
    std::string timeline; //!< timeline path ("" = none)
    /** Called with the installed applications before the run (to connect trace sources). */
    std::function<void(const std::vector<ns3::Ptr<ns3::ChakraApplication>>&)> beforeRun;
};

/** Sets the cluster and the applications of \p scenario as \p config says. */
void ConfigureScenario(ns3::ClusterScenario& scenario, const ClusterConfig& config);

/** Runs PREFIX.<rank>.et on the cluster and returns the report (Simulator destroyed after). */
ns3::ChakraReport RunCluster(const std::string& prefix, const ClusterConfig& config);

/** Writes one rank's trace from JSON nodes (the jsonizer's node format). */
void WriteJsonTrace(const std::string& path, const std::string& nodesJson);

/** \return a node JSON attribute list entry */
std::string Attr(const std::string& name, const std::string& type, const std::string& value);

/** \return a node in the jsonizer's format, with data dependencies */
std::string TraceNode(uint64_t id,
                      const std::string& name,
                      const std::string& type,
                      const std::string& attrs,
                      const std::vector<uint64_t>& deps = {},
                      uint64_t micros = 0);
/** \return the attributes of a GPU op on a stream */
std::string Gpu(int stream);
/** \return the attributes of a CPU op on a host thread */
std::string Cpu(int tid);
/** \return the attributes of a send or receive (peerKey: comm_dst or comm_src) */
std::string P2p(const std::string& peerKey, int peer, uint64_t bytes, int tag);
/** \return the attributes of an all-reduce on a process group */
std::string AllReduce(uint64_t bytes, const std::string& pg);

/** Seconds of a Time in microseconds as a double. */
double Us(ns3::Time t);

/**
 * \return the value of row \p metric of the report's flow table (messages, simulator events
 *         run, most flows at once, ...)
 * \throw std::runtime_error if the report has no such row (the test fails naming it)
 */
uint64_t FlowRow(const ns3::ChakraReport& report, const std::string& metric);

} // namespace chakra_test

#endif // CHAKRA_SIMULATION_UTIL_H
