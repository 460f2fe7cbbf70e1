/*
 * The module's Doxygen groups (ns-3 reads doc/<module>.h for a module's \defgroup): one group
 * for the module and one per part, in the order the data flows (doc/architecture.md).
 */

/**
 * \defgroup chakra Chakra
 * PyTorch training traces replayed on a modeled GPU cluster: the trace linker and converter
 * (host + Kineto traces -> Chakra .et per rank), a streaming .et feeder, and ChakraApplication,
 * one per rank, issuing compute as timed events and communication as simulated collectives
 * over the cluster's network (doc/chakra.md).
 */

/**
 * \defgroup chakra-linker Trace linker
 * \ingroup chakra
 * A PyTorch host execution trace and its Kineto device trace -> one linked trace
 * (helper/trace-link).
 */

/**
 * \defgroup chakra-converter Trace converter
 * \ingroup chakra
 * A linked or host trace -> a Chakra .et per rank (helper/convert).
 */

/**
 * \defgroup chakra-workload Synthetic workloads
 * \ingroup chakra
 * Per-rank .et traces of collective benchmarks and training steps (helper/workload).
 */

/**
 * \defgroup chakra-trace Chakra traces
 * \ingroup chakra
 * The .et format: nodes, reading, writing, JSON (model/trace).
 */

/**
 * \defgroup chakra-feeder ETFeeder
 * \ingroup chakra
 * Hands out a .et's nodes whose dependencies are met, streaming (model/feeder).
 */

/**
 * \defgroup chakra-application ChakraApplication
 * \ingroup chakra
 * One ns-3 Application per rank replaying its trace (model/application).
 */

/**
 * \defgroup chakra-collective Collectives
 * \ingroup chakra
 * Collective algorithms as messages between ranks (model/collective).
 */

/**
 * \defgroup chakra-transport Transports
 * \ingroup chakra
 * How a message crosses the network: tcp, rdma (RoCEv2 with PFC, ECN, DCQCN) and flow
 * (max-min fair flows) (model/transport).
 */

/**
 * \defgroup chakra-network Cluster network
 * \ingroup chakra
 * The cluster graph, its routes, and the simulator-level pieces every transport shares
 * (model/network, model/simulator).
 */

/**
 * \defgroup chakra-topology Topologies
 * \ingroup chakra
 * Topology families as ns-3 objects (ClusterTopologyBuilder) and topology files
 * (helper/topology).
 */

/**
 * \defgroup chakra-fabric Fabrics
 * \ingroup chakra
 * The ns-3 network each transport model builds on a topology (helper/fabric).
 */

/**
 * \defgroup chakra-distributed Distributed runs
 * \ingroup chakra
 * MPI: the cluster partitioned over processes, reports gathered (model/distributed,
 * helper/distributed).
 */

/**
 * \defgroup chakra-config Configuration
 * \ingroup chakra
 * Flags, units and attribute text as users give them (helper/config).
 */

/**
 * \defgroup chakra-helper Helpers
 * \ingroup chakra
 * GpuClusterHelper, ChakraHelper, ClusterScenario and the replay pipeline (helper/).
 */
