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
#include "bench-labels.h"
#include "bench-util.h"

#include "ns3/chakra-module.h"
#include "ns3/core-module.h"

#include <algorithm>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <functional>
#include <map>
#include <sstream>
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
        std::snprintf(result.error, sizeof(result.error), "%s",
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
    helper->SetAttribute("Oversubscription", DoubleValue(cluster.oversubscription));
    if (cluster.flatLinks)
    {
        helper->SetAttribute("NicBandwidth", StringValue("100Gbps"));
        helper->SetAttribute("NicLatency", StringValue("1us"));
    }
    if (!algorithm.empty())
    {
        for (const char* attribute :
             {"AllReduceAlgorithm", "AllGatherAlgorithm", "ReduceScatterAlgorithm",
              "AllToAllAlgorithm", "BroadcastAlgorithm", "ReduceAlgorithm", "GatherAlgorithm",
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

/** A trace set written to a fresh directory, removed when done. */
class Traces
{
  public:
    Traces()
    {
        char pattern[] = "/tmp/chakra-flow-validation-XXXXXX";
        const char* made = mkdtemp(pattern);
        m_dir = made != nullptr ? made : "/tmp";
    }
    ~Traces()
    {
        for (const auto& file : m_files)
        {
            std::remove(file.c_str());
        }
        rmdir(m_dir.c_str());
    }
    Traces(const Traces&) = delete;
    Traces& operator=(const Traces&) = delete;

    std::string Prefix() const
    {
        return m_dir + "/t";
    }
    void Keep(std::vector<std::string> files)
    {
        m_files = std::move(files);
    }

  private:
    std::string m_dir;
    std::vector<std::string> m_files;
};


/** Command-line options. */
struct Options
{
    bool quick{false};
    std::vector<std::string> sections{"collectives", "hierarchical", "workloads"};
    std::vector<uint32_t> ranks{2, 3, 8, 16, 64};
    std::vector<uint64_t> sizes{64u << 10, 1u << 20, 16u << 20, 256u << 20};
    bool sizesGiven{false};
    std::vector<CollectiveCommType> collectives;
    std::vector<std::string> algorithms;
    std::vector<uint32_t> gpus{16, 64};
    bool gpusGiven{false};
    std::vector<std::string> workloads{"dp", "tp", "pp", "moe"};
    std::vector<std::string> topologies{"single-switch", "leaf-spine", "leaf-spine-4to1",
                                        "rail-optimized"};
    uint32_t layers{0};
    std::vector<std::string> packet;
    unsigned timeout{900};
};

std::vector<std::string>
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

template <typename T>
bool
Contains(const std::vector<T>& list, const T& value)
{
    return std::find(list.begin(), list.end(), value) != list.end();
}

bool
ParseUnsignedList(const std::string& text, std::vector<uint32_t>& out)
{
    out.clear();
    for (const auto& item : SplitList(text))
    {
        char* end = nullptr;
        unsigned long value = std::strtoul(item.c_str(), &end, 10);
        if (end == item.c_str() || *end != '\0' || value == 0 || value > 1000000)
        {
            return false;
        }
        out.push_back(static_cast<uint32_t>(value));
    }
    return !out.empty();
}

void
Usage()
{
    std::fprintf(stderr,
                 "usage: flow-validation-bench [--sections=collectives,hierarchical,workloads] "
                 "[--quick] [--n=2,3,8,16,64] [--sizes=64KiB,...] [--collectives=...] "
                 "[--algorithms=...] [--gpus=16,64] [--workloads=dp,tp,pp,moe] "
                 "[--topologies=single-switch,leaf-spine,leaf-spine-4to1,rail-optimized] "
                 "[--layers=N] [--packet=tcp,...] [--timeout=SECONDS]\n");
}

bool
ParseOptions(int argc, char** argv, Options& options)
{
    for (int i = 1; i < argc; ++i)
    {
        const std::string arg = argv[i];
        const auto eq = arg.find('=');
        const std::string flag = arg.substr(0, eq);
        const std::string value = eq == std::string::npos ? "" : arg.substr(eq + 1);
        bool ok = true;
        if (flag == "--quick")
        {
            options.quick = true;
        }
        else if (flag == "--sections")
        {
            options.sections = SplitList(value);
        }
        else if (flag == "--n")
        {
            ok = ParseUnsignedList(value, options.ranks);
        }
        else if (flag == "--sizes")
        {
            options.sizes.clear();
            options.sizesGiven = true;
            for (const auto& item : SplitList(value))
            {
                uint64_t bytes = 0;
                ok = ok && WorkloadGenerator::ParseBytes(item, bytes) && bytes > 0;
                options.sizes.push_back(bytes);
            }
        }
        else if (flag == "--collectives")
        {
            for (const auto& item : SplitList(value))
            {
                CollectiveCommType type;
                ok = ok && WorkloadGenerator::ParseCollective(item, type);
                options.collectives.push_back(type);
            }
        }
        else if (flag == "--algorithms")
        {
            options.algorithms = SplitList(value);
        }
        else if (flag == "--gpus")
        {
            ok = ParseUnsignedList(value, options.gpus);
            options.gpusGiven = true;
            for (uint32_t g : options.gpus)
            {
                ok = ok && g % 8 == 0;
            }
        }
        else if (flag == "--workloads")
        {
            options.workloads = SplitList(value);
        }
        else if (flag == "--topologies")
        {
            options.topologies = SplitList(value);
        }
        else if (flag == "--layers")
        {
            std::vector<uint32_t> layers;
            ok = ParseUnsignedList(value, layers) && layers.size() == 1;
            options.layers = ok ? layers[0] : 0;
        }
        else if (flag == "--packet")
        {
            options.packet = SplitList(value);
        }
        else if (flag == "--timeout")
        {
            options.timeout = static_cast<unsigned>(std::strtoul(value.c_str(), nullptr, 10));
        }
        else
        {
            ok = false;
        }
        if (!ok)
        {
            std::fprintf(stderr, "flow-validation-bench: bad option %s\n", arg.c_str());
            Usage();
            return false;
        }
    }
    if (options.quick)
    {
        if (!options.sizesGiven)
        {
            options.sizes.erase(std::remove_if(options.sizes.begin(), options.sizes.end(),
                                               [](uint64_t s) { return s > (16u << 20); }),
                                options.sizes.end());
        }
        if (!options.gpusGiven)
        {
            options.gpus = {16};
        }
    }
    if (options.packet.empty())
    {
        for (const std::string model : {"tcp", "rdma"})
        {
            TypeId tid;
            FlowNetwork::Framing framing;
            if (TypeId::LookupByNameFailSafe(model == "tcp" ? "ns3::TcpTransport"
                                                            : "ns3::RdmaTransport",
                                             &tid) &&
                FlowFabric::FramingOf(model, framing))
            {
                options.packet.push_back(model);
            }
        }
    }
    return true;
}

/** One compared row. */
struct Row
{
    std::string section;
    std::string what;      //!< collective + algorithm, or workload
    std::string ranks;     //!< "8", "2x4"
    std::string where;     //!< size or topology
    std::string packet;    //!< packet model
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
        std::printf("%-27s %5s %-16s %-6s %13s %13s %7s %8s %8s %7s %7s  %s\n", "case", "n",
                    "size/topology", "packet", "packet_us", "flow_us", "ratio", "pkt_wall",
                    "flow_wall", "pkt_MiB", "flow_MiB", "note");
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
                note += std::string(note.empty() ? "" : "; ") +
                        (run == &p ? "packet" : "flow") + " UNFINISHED";
            }
        }
        if (p.algorithm[0] != '\0' && row.section != "workloads" &&
            row.what.find(p.algorithm) == std::string::npos)
        {
            note += std::string(note.empty() ? "" : "; ") + "ran " + p.algorithm;
        }
        std::printf("%-27s %5s %-16s %-6s %13.2f %13.2f %7s %8.2f %8.3f %7.1f %7.1f  %s\n",
                    row.what.c_str(), row.ranks.c_str(), row.where.c_str(), row.packet.c_str(),
                    p.simulatedUs, f.simulatedUs, ratio, p.wallSeconds, f.wallSeconds,
                    p.peakRssMiB, f.peakRssMiB, note.c_str());
        std::fflush(stdout);
    }

    void PrintSummary(const std::string& title) const
    {
        std::printf("\n%s: worst flow/packet ratio per case:\n", title.c_str());
        for (const auto& [key, worst] : m_worst)
        {
            std::printf("  %-48s %7.4f  (%s)%s\n", key.c_str(), worst.first,
                        worst.second.c_str(),
                        std::abs(worst.first - 1) <= m_tolerance ? "" : "  beyond tolerance");
        }
        std::printf("%s: %zu of %zu rows within %.0f%%; wall time packet %.1f s, flow %.1f s "
                    "(%.0fx)\n",
                    title.c_str(), m_within, m_compared, m_tolerance * 100, m_packetWall,
                    m_flowWall, m_flowWall > 0 ? m_packetWall / m_flowWall : 0.0);
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
        return RunInChild(
            [&]() {
                Traces traces;
                traces.Keep(write(traces.Prefix()));
                return Simulate(traces.Prefix(), cluster, transport, row.packet, algorithm);
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
        {ALL_REDUCE, "ring"},   {ALL_REDUCE, "halving-doubling"}, {ALL_REDUCE, "direct"},
        {ALL_REDUCE, "tree"},   {ALL_GATHER, "ring"},             {REDUCE_SCATTER, "ring"},
        {ALL_TO_ALL, "direct"}, {BROADCAST, "ring"},
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
                    std::printf("%-27s %5u %-16s (this build has no such topology: %s)\n", "-",
                                gpus, topology.c_str(), kinds.c_str());
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
    Options options;
    if (!ParseOptions(argc, argv, options))
    {
        return 2;
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
