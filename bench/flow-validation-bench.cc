/*
 * flow-validation-bench: the flow model beside the packet models, in one run (issue 15).
 *
 *   build/bench/flow-validation-bench [options]
 *     --sections=collectives,hierarchical,workloads   (default: all three)
 *     --quick                  collectives up to 16 MiB, workloads at 16 GPUs only
 *     --n=2,3,8,16,64          flat-switch communicator sizes
 *     --sizes=64KiB,1MiB,16MiB,256MiB
 *     --collectives=all-reduce,...  --algorithms=ring,...
 *     --gpus=16,64             workload sizes (8 GPUs per host)
 *     --workloads=dp,tp,pp,moe
 *     --topologies=single-switch,leaf-spine,leaf-spine-4to1,rail-optimized
 *     --layers=N               layers of every workload (default: the generator's, 24)
 *     --packet=tcp,rdma        packet models to compare against (default: every one this build
 *                              has that the flow model has a framing for)
 *     --timeout=SECONDS        give up on a packet-level run after this long (default 900)
 *
 * Sections:
 *  - collectives: the rows of the collective accuracy table (collective-accuracy-bench's flat
 *    section): every collective and algorithm on one switch, one GPU per host, NIC 100 Gbps,
 *    1 us, MTU 9000; target: flow within 3% of packet level;
 *  - hierarchical: hierarchical and flat ring all-reduce on 2 x 4 and 4 x 4 GPUs (NVLink 3600
 *    Gbps inside hosts); target 3%;
 *  - workloads: the generated data-, tensor-, pipeline-parallel and MoE steps on 8-GPU hosts
 *    (cluster defaults: NIC 400 Gbps, NVLink 3600 Gbps) on one switch, leaf-spine 1:1 and 4:1
 *    (one host per leaf, 2 spines) and rail-optimized (when this build has it); iteration time,
 *    target 5%.
 * Each simulation runs in a child process (its own wall time and peak RSS).
 */
#include "bench-args.h"
#include "bench-labels.h"
#include "bench-util.h"

#include "ns3/chakra-module.h"
#include "ns3/core-module.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <functional>
#include <map>
#include <stdexcept>
#include <string>
#include <unistd.h>
#include <vector>

using namespace ns3;
using ChakraProtoMsg::CollectiveCommType;

namespace
{

using chakra_bench::CollectiveLabel;
using chakra_bench::SizeLabel;

/** What a child sends back through a pipe. */
struct ChildResult
{
    double simulatedUs{-1};
    double wallSeconds{0};
    double peakRssMiB{0};
    uint64_t events{0};
    bool finished{false};
    char algorithm[48]{};
    char error[160]{};
};

/**
 * Runs \p run in a child process, killed after \p timeout seconds (0: never).
 * \return what it sent back; simulatedUs < 0 if it failed, error "timeout" if it was killed
 */
ChildResult
RunInChild(const std::function<ChildResult()>& run, unsigned timeout)
{
    int fds[2];
    ChildResult result;
    if (pipe(fds) != 0)
    {
        std::perror("pipe");
        return result;
    }
    const int status = chakra_bench::RunInChild([&]() {
        close(fds[0]);
        if (timeout > 0)
        {
            alarm(timeout);
        }
        ChildResult child;
        try
        {
            child = run();
        }
        catch (const std::exception& e)
        {
            std::snprintf(child.error, sizeof(child.error), "%s", e.what());
        }
        child.peakRssMiB = chakra_bench::PeakRssMiB();
        ssize_t written = write(fds[1], &child, sizeof(child));
        close(fds[1]);
        return written == static_cast<ssize_t>(sizeof(child)) ? 0 : 1;
    });
    close(fds[1]);
    ssize_t got = read(fds[0], &result, sizeof(result));
    close(fds[0]);
    if (got != static_cast<ssize_t>(sizeof(result)))
    {
        result = ChildResult();
        std::snprintf(result.error,
                      sizeof(result.error),
                      "%s",
                      status != 0 && timeout > 0 ? "timeout" : "child failed");
    }
    return result;
}

/** The cluster of one run. */
struct ClusterSpec
{
    uint32_t hosts{1};
    uint32_t gpusPerHost{1};
    std::string topology{"single-switch"};
    double oversubscription{1};
    bool flatLinks{true}; //!< NIC 100 Gbps, 1 us (the accuracy table's); else cluster defaults
};

/** Runs the traces at \p prefix on \p cluster with \p transport. */
ChildResult
Simulate(const std::string& prefix,
         const ClusterSpec& cluster,
         const std::string& transport,
         const std::string& packetModel,
         const std::string& algorithm)
{
    if (transport == "flow")
    {
        Config::SetDefault("ns3::FlowFabric::PacketModel", StringValue(packetModel));
    }
    ClusterScenario scenario;
    Ptr<GpuClusterHelper> helper = scenario.GetCluster();
    helper->SetAttribute("Transport", StringValue(transport));
    helper->SetAttribute("Hosts", UintegerValue(cluster.hosts));
    helper->SetAttribute("GpusPerHost", UintegerValue(cluster.gpusPerHost));
    helper->SetAttribute("Topology", StringValue(cluster.topology));
    if (helper->HasTopologyParameter("Oversubscription"))
    {
        helper->SetTopologyAttribute("Oversubscription", DoubleValue(cluster.oversubscription));
    }
    if (cluster.flatLinks)
    {
        helper->SetAttribute("NicBandwidth", StringValue("100Gbps"));
        helper->SetAttribute("NicLatency", StringValue("1us"));
    }
    if (!algorithm.empty())
    {
        for (const char* attribute : {"AllReduceAlgorithm",
                                      "AllGatherAlgorithm",
                                      "ReduceScatterAlgorithm",
                                      "AllToAllAlgorithm",
                                      "BroadcastAlgorithm",
                                      "ReduceAlgorithm",
                                      "GatherAlgorithm",
                                      "ScatterAlgorithm"})
        {
            scenario.SetAppAttribute(attribute, StringValue(algorithm));
        }
    }
    ChildResult result;
    ChakraReport report = scenario.Run(prefix);
    result.finished = report.AllFinished();
    result.simulatedUs = static_cast<double>(report.GetIterationTime().GetNanoSeconds()) / 1e3;
    result.wallSeconds = scenario.GetWallSeconds();
    result.events = scenario.GetEventCount();
    std::string used;
    for (const auto& collective : report.GetCollectives())
    {
        if (used.find(collective.algorithm) == std::string::npos)
        {
            used += (used.empty() ? "" : "+") + collective.algorithm;
        }
    }
    std::snprintf(result.algorithm, sizeof(result.algorithm), "%s", used.c_str());
    return result;
}

/** Command-line options (defaults: DeclareOptions). */
struct Options
{
    bool quick{false};
    std::vector<std::string> sections;
    std::vector<uint32_t> ranks;
    std::vector<uint64_t> sizes;
    std::vector<CollectiveCommType> collectives; //!< empty: all
    std::vector<std::string> algorithms;         //!< empty: all
    std::vector<uint32_t> gpus;
    std::vector<std::string> workloads;
    std::vector<std::string> topologies;
    uint32_t layers{0}; //!< 0: the generator's
    std::vector<std::string> packet;
    unsigned timeout{0};
};

template <typename T>
bool
Contains(const std::vector<T>& list, const T& value)
{
    return std::find(list.begin(), list.end(), value) != list.end();
}

/** \return the packet models this build has that the flow model has a framing for */
std::vector<std::string>
ComparablePacketModels()
{
    std::vector<std::string> models;
    for (const std::string model : {"tcp", "rdma"})
    {
        TypeId tid;
        FlowNetwork::Framing framing;
        if (TypeId::LookupByNameFailSafe(model == "tcp" ? "ns3::TcpTransport"
                                                        : "ns3::RdmaTransport",
                                         &tid) &&
            FlowFabric::FramingOf(model, framing))
        {
            models.push_back(model);
        }
    }
    return models;
}

/**
 * Declares the flags on \p args and returns what takes their values into \p options, checking
 * each (std::invalid_argument naming the flag).
 */
std::function<void()>
DeclareOptions(ToolArgs& args, Options& options)
{
    args.AddOption("sections",
                   "sections to run (comma separated)",
                   "collectives,hierarchical,workloads");
    args.AddFlag("quick",
                 "collectives up to 16 MiB, workloads at 16 GPUs only (unless --sizes, "
                 "--gpus are given)");
    args.AddOption("n", "flat-switch communicator sizes (comma separated)", "2,3,8,16,64");
    args.AddOption("sizes", "collective sizes (comma separated)", "64KiB,1MiB,16MiB,256MiB");
    args.AddOption("collectives", "collectives to run (comma separated; default: all)");
    args.AddOption("algorithms", "algorithms to run (comma separated; default: all)");
    args.AddOption("gpus", "workload sizes, 8 GPUs per host (comma separated)", "16,64");
    args.AddOption("workloads", "workloads to run (comma separated)", "dp,tp,pp,moe");
    args.AddOption("topologies",
                   "workload topologies (comma separated; leaf-spine-4to1: oversubscribed 4:1)",
                   "single-switch,leaf-spine,leaf-spine-4to1,rail-optimized");
    args.AddOption("layers", "layers of every workload (default: the generator's)");
    args.AddOption("packet",
                   "packet models to compare against (comma separated; default: every one "
                   "this build has that the flow model has a framing for)");
    args.AddOption("timeout", "give up on a packet-level run after this many seconds", "900");
    return [&args, &options]() {
        options.quick = args.Has("quick");
        options.sections =
            chakra_bench::ParseNameList(args.Get("sections"),
                                        "--sections",
                                        {"collectives", "hierarchical", "workloads"});
        options.ranks = chakra_bench::ParseCountList(args.Get("n"), "--n", 1, 1000000);
        options.sizes =
            chakra_bench::ParseSizeList(args.Get("sizes"), "--sizes", 1, uint64_t(1) << 40);
        if (args.Has("collectives"))
        {
            options.collectives =
                chakra_bench::ParseCollectiveList(args.Get("collectives"), "--collectives");
        }
        if (args.Has("algorithms"))
        {
            options.algorithms = chakra_bench::ParseNameList(args.Get("algorithms"),
                                                             "--algorithms",
                                                             CollectiveAlgorithmNames());
        }
        options.gpus = chakra_bench::ParseCountList(args.Get("gpus"), "--gpus", 8, 1000000);
        for (uint32_t gpus : options.gpus)
        {
            if (gpus % 8 != 0)
            {
                throw std::invalid_argument("--gpus: " + std::to_string(gpus) +
                                            " is not a multiple of 8 (8-GPU hosts)");
            }
        }
        options.workloads = chakra_bench::ParseNameList(args.Get("workloads"),
                                                        "--workloads",
                                                        {"dp", "tp", "pp", "moe"});
        std::vector<std::string> topologies = TopologyKindNames();
        topologies.emplace_back("leaf-spine-4to1");
        // The default list names rail-optimized even in a build without it (a row says so).
        options.topologies =
            args.Has("topologies")
                ? chakra_bench::ParseNameList(args.Get("topologies"), "--topologies", topologies)
                : chakra_bench::SplitList(args.Get("topologies"));
        if (args.Has("layers"))
        {
            options.layers =
                static_cast<uint32_t>(ParseWholeNumber(args.Get("layers"), "--layers", 1, 10000));
        }
        options.packet = args.Has("packet") ? chakra_bench::ParseNameList(args.Get("packet"),
                                                                          "--packet",
                                                                          ComparablePacketModels())
                                            : ComparablePacketModels();
        options.timeout =
            static_cast<unsigned>(ParseWholeNumber(args.Get("timeout"), "--timeout", 1, 86400));
        if (options.quick)
        {
            if (!args.Has("sizes"))
            {
                options.sizes.erase(std::remove_if(options.sizes.begin(),
                                                   options.sizes.end(),
                                                   [](uint64_t s) { return s > (16u << 20); }),
                                    options.sizes.end());
            }
            if (!args.Has("gpus"))
            {
                options.gpus = {16};
            }
        }
    };
}

/** One compared row. */
struct Row
{
    std::string section;
    std::string what;   //!< collective + algorithm, or workload
    std::string ranks;  //!< "8", "2x4"
    std::string where;  //!< size or topology
    std::string packet; //!< packet model
    ChildResult packetRun;
    ChildResult flowRun;
};

/** Prints rows and keeps the summary. */
class Table
{
  public:
    explicit Table(double tolerance)
        : m_tolerance(tolerance)
    {
    }

    static void PrintHeader()
    {
        std::printf("%-27s %5s %-16s %-6s %13s %13s %7s %8s %8s %7s %7s  %s\n",
                    "case",
                    "n",
                    "size/topology",
                    "packet",
                    "packet_us",
                    "flow_us",
                    "ratio",
                    "pkt_wall",
                    "flow_wall",
                    "pkt_MiB",
                    "flow_MiB",
                    "note");
        std::fflush(stdout);
    }

    void Add(const Row& row)
    {
        const ChildResult& p = row.packetRun;
        const ChildResult& f = row.flowRun;
        std::string note;
        char ratio[32] = "-";
        const bool compared = p.simulatedUs > 0 && f.simulatedUs > 0 && p.finished && f.finished;
        if (compared)
        {
            const double r = f.simulatedUs / p.simulatedUs;
            std::snprintf(ratio, sizeof(ratio), "%.4f", r);
            if (std::abs(r - 1) > m_tolerance)
            {
                char text[32];
                std::snprintf(text, sizeof(text), "> %.0f%%", m_tolerance * 100);
                note = text;
            }
            else
            {
                ++m_within;
            }
            ++m_compared;
            const std::string key = row.section + " " + row.what + " " + row.packet;
            auto it = m_worst.find(key);
            if (it == m_worst.end() || std::abs(r - 1) > std::abs(it->second.first - 1))
            {
                m_worst[key] = {r, row.ranks + " " + row.where};
            }
            m_packetWall += p.wallSeconds;
            m_flowWall += f.wallSeconds;
        }
        for (const ChildResult* run : {&p, &f})
        {
            if (run->error[0] != '\0')
            {
                note += std::string(note.empty() ? "" : "; ") +
                        (run == &p ? "packet: " : "flow: ") + run->error;
            }
            else if (run->simulatedUs >= 0 && !run->finished)
            {
                note += std::string(note.empty() ? "" : "; ") + (run == &p ? "packet" : "flow") +
                        " UNFINISHED";
            }
        }
        if (p.algorithm[0] != '\0' && row.section != "workloads" &&
            row.what.find(p.algorithm) == std::string::npos)
        {
            note += std::string(note.empty() ? "" : "; ") + "ran " + p.algorithm;
        }
        std::printf("%-27s %5s %-16s %-6s %13.2f %13.2f %7s %8.2f %8.3f %7.1f %7.1f  %s\n",
                    row.what.c_str(),
                    row.ranks.c_str(),
                    row.where.c_str(),
                    row.packet.c_str(),
                    p.simulatedUs,
                    f.simulatedUs,
                    ratio,
                    p.wallSeconds,
                    f.wallSeconds,
                    p.peakRssMiB,
                    f.peakRssMiB,
                    note.c_str());
        std::fflush(stdout);
    }

    void PrintSummary(const std::string& title) const
    {
        std::printf("\n%s: worst flow/packet ratio per case:\n", title.c_str());
        for (const auto& [key, worst] : m_worst)
        {
            std::printf("  %-48s %7.4f  (%s)%s\n",
                        key.c_str(),
                        worst.first,
                        worst.second.c_str(),
                        std::abs(worst.first - 1) <= m_tolerance ? "" : "  beyond tolerance");
        }
        std::printf("%s: %zu of %zu rows within %.0f%%; wall time packet %.1f s, flow %.1f s "
                    "(%.0fx)\n",
                    title.c_str(),
                    m_within,
                    m_compared,
                    m_tolerance * 100,
                    m_packetWall,
                    m_flowWall,
                    m_flowWall > 0 ? m_packetWall / m_flowWall : 0.0);
        std::fflush(stdout);
    }

  private:
    double m_tolerance;
    std::map<std::string, std::pair<double, std::string>> m_worst;
    std::size_t m_within{0};
    std::size_t m_compared{0};
    double m_packetWall{0};
    double m_flowWall{0};
};

/** Runs one trace-writing function on the packet model and on flow; adds the row. */
void
Compare(Table& table,
        Row row,
        const std::function<std::vector<std::string>(const std::string& prefix)>& write,
        const ClusterSpec& cluster,
        const std::string& algorithm,
        unsigned timeout)
{
    auto run = [&](const std::string& transport, unsigned limit) {
        // Made and removed here, in the parent: a child killed at its time limit runs no
        // destructor.
        const TemporaryDirectory traces("chakra-flow-validation");
        const std::string prefix = traces.File("t");
        return RunInChild(
            [&]() {
                write(prefix);
                return Simulate(prefix, cluster, transport, row.packet, algorithm);
            },
            limit);
    };
    row.packetRun = run(row.packet, timeout);
    row.flowRun = run("flow", 0);
    table.Add(row);
}

void
RunCollectives(const Options& options, Table& table)
{
    using namespace ChakraProtoMsg;

    struct Case
    {
        CollectiveCommType type;
        std::string algorithm;
    };

    const std::vector<Case> cases = {
        {ALL_REDUCE, "ring"},
        {ALL_REDUCE, "halving-doubling"},
        {ALL_REDUCE, "direct"},
        {ALL_REDUCE, "tree"},
        {ALL_GATHER, "ring"},
        {REDUCE_SCATTER, "ring"},
        {ALL_TO_ALL, "direct"},
        {BROADCAST, "ring"},
    };
    std::printf("== collectives: one switch, one GPU per host, NIC 100 Gbps, 1 us, MTU 9000 "
                "(S as in collective-accuracy-bench) ==\n");
    Table::PrintHeader();
    for (const std::string& packet : options.packet)
    {
        for (const Case& c : cases)
        {
            if ((!options.collectives.empty() && !Contains(options.collectives, c.type)) ||
                (!options.algorithms.empty() && !Contains(options.algorithms, c.algorithm)))
            {
                continue;
            }
            for (uint32_t n : options.ranks)
            {
                for (uint64_t size : options.sizes)
                {
                    const uint64_t commSize = c.type == ALL_GATHER ? size / n : size;
                    Row row;
                    row.section = "collectives";
                    row.what = CollectiveLabel(c.type) + " " + c.algorithm;
                    row.ranks = std::to_string(n);
                    row.where = SizeLabel(size);
                    row.packet = packet;
                    Compare(
                        table,
                        row,
                        [&](const std::string& prefix) {
                            CollectiveBenchSpec spec;
                            spec.type = c.type;
                            spec.bytes = commSize;
                            spec.ranks = n;
                            return WorkloadGenerator::WriteCollectiveBench(prefix, spec);
                        },
                        ClusterSpec{n, 1, "single-switch", 1, true},
                        c.algorithm,
                        options.timeout);
                }
            }
        }
    }
}

void
RunHierarchical(const Options& options, Table& table)
{
    std::printf("\n== hierarchical: H hosts x 4 GPUs, NVLink 3600 Gbps, 250 ns; NIC 100 Gbps, "
                "1 us ==\n");
    Table::PrintHeader();
    for (const std::string& packet : options.packet)
    {
        for (uint32_t hosts : {2u, 4u})
        {
            for (uint64_t size : options.sizes)
            {
                for (const std::string algorithm : {"hierarchical", "ring"})
                {
                    if (!options.algorithms.empty() && !Contains(options.algorithms, algorithm))
                    {
                        continue;
                    }
                    Row row;
                    row.section = "hierarchical";
                    row.what = "all-reduce " + algorithm;
                    row.ranks = std::to_string(hosts) + "x4";
                    row.where = SizeLabel(size);
                    row.packet = packet;
                    Compare(
                        table,
                        row,
                        [&](const std::string& prefix) {
                            CollectiveBenchSpec spec;
                            spec.type = ChakraProtoMsg::ALL_REDUCE;
                            spec.bytes = size;
                            spec.ranks = hosts * 4;
                            return WorkloadGenerator::WriteCollectiveBench(prefix, spec);
                        },
                        ClusterSpec{hosts, 4, "single-switch", 1, true},
                        algorithm,
                        options.timeout);
                }
            }
        }
    }
}

/** \return the trace writer of a workload at \p gpus GPUs */
std::function<std::vector<std::string>(const std::string&)>
WorkloadWriter(const std::string& workload, uint32_t gpus, uint32_t layers)
{
    if (workload == "dp")
    {
        return [=](const std::string& prefix) {
            DataParallelSpec spec;
            spec.ranks = gpus;
            spec.layers = layers > 0 ? layers : spec.layers;
            return WorkloadGenerator::WriteDataParallelStep(prefix, spec);
        };
    }
    if (workload == "tp")
    {
        return [=](const std::string& prefix) {
            TensorParallelSpec spec;
            spec.tp = 8;
            spec.dp = gpus / 8;
            spec.layers = layers > 0 ? layers : spec.layers;
            return WorkloadGenerator::WriteTensorParallelStep(prefix, spec);
        };
    }
    if (workload == "pp")
    {
        return [=](const std::string& prefix) {
            PipelineParallelSpec spec;
            spec.stages = 4;
            spec.dp = gpus / 4;
            spec.layers = layers > 0 ? layers : spec.layers;
            return WorkloadGenerator::WritePipelineParallelStep(prefix, spec);
        };
    }
    return [=](const std::string& prefix) {
        MoeSpec spec;
        spec.ranks = gpus;
        spec.ep = std::min<uint32_t>(gpus, 16);
        spec.layers = layers > 0 ? layers : spec.layers;
        return WorkloadGenerator::WriteMoeStep(prefix, spec);
    };
}

void
RunWorkloads(const Options& options, Table& table)
{
    const std::string kinds = ListTopologyKinds();
    std::printf("\n== workloads: 8-GPU hosts, NIC 400 Gbps / 500 ns, NVLink 3600 Gbps / 250 ns; "
                "leaf-spine: one host per leaf, 2 spines; dp: %s; tp: tp 8 x dp; pp: 4 stages x "
                "dp; moe: ep min(16, n) ==\n",
                "every rank a replica");
    Table::PrintHeader();
    for (const std::string& packet : options.packet)
    {
        for (uint32_t gpus : options.gpus)
        {
            for (const std::string& topology : options.topologies)
            {
                ClusterSpec cluster{gpus / 8, 8, topology, 1, false};
                if (topology == "leaf-spine-4to1")
                {
                    cluster.topology = "leaf-spine";
                    cluster.oversubscription = 4;
                }
                if (kinds.find(cluster.topology) == std::string::npos)
                {
                    std::printf("%-27s %5u %-16s (this build has no such topology: %s)\n",
                                "-",
                                gpus,
                                topology.c_str(),
                                kinds.c_str());
                    continue;
                }
                for (const std::string& workload : options.workloads)
                {
                    Row row;
                    row.section = "workloads";
                    row.what = workload + " step";
                    row.ranks = std::to_string(gpus);
                    row.where = topology;
                    row.packet = packet;
                    Compare(table,
                            row,
                            WorkloadWriter(workload, gpus, options.layers),
                            cluster,
                            "",
                            options.timeout);
                }
            }
        }
    }
}

} // namespace

int
main(int argc, char** argv)
{
    const std::string program = "flow-validation-bench";
    ToolArgs args(program,
                  "The flow model beside the packet models, in one run: collectives, "
                  "hierarchical all-reduce and generated workloads (each simulation in a child "
                  "process).");
    Options options;
    const std::function<void()> readValues = DeclareOptions(args, options);
    int exitCode = 0;
    if (!chakra_bench::ParseFlags(program, args, argc, argv, readValues, exitCode))
    {
        return exitCode;
    }
    if (options.packet.empty())
    {
        std::fprintf(stderr, "flow-validation-bench: no packet model to compare against\n");
        return 1;
    }
    const double start = chakra_bench::Now();
    Table collectives(0.03);
    Table workloads(0.05);
    if (Contains(options.sections, std::string("collectives")))
    {
        RunCollectives(options, collectives);
    }
    if (Contains(options.sections, std::string("hierarchical")))
    {
        RunHierarchical(options, collectives);
    }
    if (Contains(options.sections, std::string("collectives")) ||
        Contains(options.sections, std::string("hierarchical")))
    {
        collectives.PrintSummary("collectives");
    }
    if (Contains(options.sections, std::string("workloads")))
    {
        RunWorkloads(options, workloads);
        workloads.PrintSummary("workloads");
    }
    std::printf("total wall time %.1f s\n", chakra_bench::Now() - start);
    return 0;
}
