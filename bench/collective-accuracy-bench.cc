/*
 * collective-accuracy-bench: simulated collective times against their closed forms (issue 7's
 * accuracy table, doc/collectives.md).
 *
 *   build/bench/collective-accuracy-bench [options]
 *     --quick                 sizes up to 16 MiB only
 *     --n=2,3,8,16            flat-switch communicator sizes
 *     --sizes=64KiB,1MiB,...  sizes S (the closed forms' buffer: see below)
 *     --collectives=all-reduce,broadcast,...   restrict the collectives
 *     --algorithms=ring,tree,...               restrict the algorithms
 *     --sections=flat,hierarchical,astra       restrict the sections
 *     --data=DIR              shared data directory (else $CHAKRA_TEST_DATA, else
 *                             ./../shared/data)
 *     --transport=tcp,rdma    transport models, one column group each (default both)
 *
 * Sections:
 *  - flat: one switch, one GPU per host (NIC 100 Gbps, 1 us, MTU 9000); every algorithm of
 *    the table against its closed form;
 *  - hierarchical: 2 x 4 and 4 x 4 GPUs (NVLink 3600 Gbps, 250 ns, 65000-byte packets; NIC
 *    100 Gbps, 1 us, MTU 9000): hierarchical and flat ring all-reduce;
 *  - astra: the astra-sim microbenchmark traces (1 MiB, 4/8/16 ranks) with every algorithm
 *    that supports their collective, on the flat switch.
 *
 * S is the buffer of FORMATS.md section 5: all-reduce and broadcast: the buffer; all-gather:
 * the gathered output (comm_size = S / n per rank); reduce-scatter and all-to-all: the whole
 * input (comm_size = S). Each simulation runs in a child process.
 *
 * The closed forms take each transport's per-packet overheads (PathModel): tcp carries MTU - 52
 * payload bytes per MTU + 2 on the wire (IPv4, TCP with timestamps; PPP), rdma MTU - 44 per
 * MTU + 38 (IPv4, UDP, BTH, ICRC; Ethernet header, FCS, preamble, gap); and rdma's sends
 * complete when acknowledged, which adds the last ACK's way back once (PathModel::completion).
 */
#include "bench-args.h"
#include "bench-labels.h"
#include "bench-util.h"
#include "collective-closed-forms.h"

#include "ns3/chakra-module.h"
#include "ns3/core-module.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <limits>
#include <map>
#include <string>
#include <unistd.h>
#include <vector>

using namespace ns3;
using ChakraProtoMsg::CollectiveCommType;

namespace
{

using chakra_bench::CollectiveLabel;
using chakra_bench::FlatClosedForm;
using chakra_bench::HierarchicalClosedForm;
using chakra_bench::PathModel;
using chakra_bench::SizeLabel;
using chakra_bench::TwoHopPath;
using chakra_bench::TwoLevelRingClosedForm;

// The flat switch and the two-level host model of the table.
constexpr double kNicRate = 100e9;
constexpr double kNicLatency = 1e-6;
constexpr uint32_t kMtu = 9000;
constexpr double kNvLinkRate = 3600e9;
constexpr double kNvLinkLatency = 250e-9;
constexpr uint32_t kNvLinkMtu = 65000;

/** One transport's figures in a row. */
struct Measure
{
    double simulatedUs{0};
    double closedUs{0}; //!< NaN: none
    double wallSeconds{0};
    std::string note; //!< fell back, unfinished, ...
};

/** What one row measures: one Measure per transport (in the order of --transport). */
struct Row
{
    std::string section;
    std::string collective;
    std::string algorithm;
    std::string ranks; //!< "8" or "2x4"
    std::string size;  //!< label
    std::vector<Measure> measures;
};

/** Figures a child sends back through a pipe. */
struct ChildResult
{
    double simulatedUs{-1};
    double wallSeconds{0};
    uint64_t events{0};
    char algorithm[32]{};
    bool finished{false};
};

/**
 * Runs \p run in a child process and returns what it wrote back (simulatedUs < 0 if the
 * child failed).
 */
ChildResult
RunInChildWithResult(const std::function<ChildResult()>& run)
{
    int fds[2];
    ChildResult result;
    if (pipe(fds) != 0)
    {
        std::perror("pipe");
        return result;
    }
    chakra_bench::RunInChild([&]() {
        close(fds[0]);
        ChildResult child = run();
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
    }
    return result;
}

/** The cluster of one run. */
struct ClusterSpec
{
    uint32_t hosts{1};
    uint32_t gpusPerHost{1};
};

/** Sets the table's cluster (\p cluster, \p transport) and \p algorithm on \p scenario. */
void
Configure(ClusterScenario& scenario,
          const ClusterSpec& cluster,
          const std::string& algorithm,
          const std::string& transport)
{
    Ptr<GpuClusterHelper> helper = scenario.GetCluster();
    helper->SetAttribute("Transport", StringValue(transport));
    helper->SetAttribute("Hosts", UintegerValue(cluster.hosts));
    helper->SetAttribute("GpusPerHost", UintegerValue(cluster.gpusPerHost));
    helper->SetAttribute("Topology", StringValue("single-switch"));
    helper->SetAttribute("NicBandwidth", StringValue("100Gbps"));
    helper->SetAttribute("NicLatency", StringValue("1us"));
    helper->SetAttribute("Mtu", UintegerValue(kMtu));
    helper->SetAttribute("NvLinkBandwidth", StringValue("3600Gbps"));
    helper->SetAttribute("NvLinkLatency", StringValue("250ns"));
    helper->SetAttribute("NvLinkMtu", UintegerValue(kNvLinkMtu));
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

/** \return what a child sends back of \p result */
ChildResult
ToChildResult(const CollectiveBenchResult& result)
{
    ChildResult child;
    child.finished = result.finished;
    child.simulatedUs = static_cast<double>(result.time.GetNanoSeconds()) / 1e3;
    child.wallSeconds = result.wallSeconds;
    child.events = result.events;
    std::snprintf(child.algorithm, sizeof(child.algorithm), "%s", result.algorithms.c_str());
    return child;
}

/** Runs the traces at \p prefix on \p cluster with every collective on \p algorithm. */
ChildResult
Simulate(const std::string& prefix,
         const ClusterSpec& cluster,
         const std::string& algorithm,
         const std::string& transport)
{
    ClusterScenario scenario;
    Configure(scenario, cluster, algorithm, transport);
    const ChakraReport report = scenario.Run(prefix);
    return ToChildResult(SummarizeCollectiveBench(report, scenario));
}

/** Writes one collective per rank in a fresh directory, simulates it, removes the traces. */
ChildResult
SimulateGenerated(CollectiveCommType type,
                  uint64_t commSize,
                  uint32_t ranks,
                  const ClusterSpec& cluster,
                  const std::string& algorithm,
                  const std::string& transport)
{
    ClusterScenario scenario;
    Configure(scenario, cluster, algorithm, transport);
    CollectiveBenchSpec spec;
    spec.type = type;
    spec.bytes = commSize;
    spec.ranks = ranks;
    return ToChildResult(RunCollectiveBench(scenario, spec));
}

/** The transports of the columns (set from the options). */
std::vector<std::string> g_transports{"tcp", "rdma"};

void
PrintHeader()
{
    std::printf("%-15s %-17s %6s %7s", "collective", "algorithm", "n", "size");
    for (const auto& transport : g_transports)
    {
        std::printf(" %13s %13s %7s",
                    (transport + "_us").c_str(),
                    (transport + "_form_us").c_str(),
                    (transport + "_ratio").c_str());
    }
    std::printf(" %8s  %s\n", "wall_s", "note");
    std::fflush(stdout);
}

void
PrintRow(const Row& row)
{
    std::printf("%-15s %-17s %6s %7s",
                row.collective.c_str(),
                row.algorithm.c_str(),
                row.ranks.c_str(),
                row.size.c_str());
    double wall = 0;
    std::string note;
    for (std::size_t t = 0; t < row.measures.size(); ++t)
    {
        const Measure& m = row.measures[t];
        char closed[32] = "-";
        char ratio[32] = "-";
        if (!std::isnan(m.closedUs) && m.simulatedUs >= 0)
        {
            std::snprintf(closed, sizeof(closed), "%.2f", m.closedUs);
            std::snprintf(ratio, sizeof(ratio), "%.3f", m.simulatedUs / m.closedUs);
        }
        std::printf(" %13.2f %13s %7s", m.simulatedUs, closed, ratio);
        wall += m.wallSeconds;
        if (!m.note.empty())
        {
            note += (note.empty() ? "" : "; ") + g_transports[t] + ": " + m.note;
        }
    }
    std::printf(" %8.2f  %s\n", wall, note.c_str());
    std::fflush(stdout);
}

/** Command-line options (defaults: DeclareOptions). */
struct Options
{
    bool quick{false};
    std::vector<uint32_t> ranks;
    std::vector<uint64_t> sizes;
    std::vector<CollectiveCommType> collectives; //!< empty: all
    std::vector<std::string> algorithms;         //!< empty: all
    std::vector<std::string> sections;
    std::vector<std::string> transports;
    std::string data;
    bool sizesGiven{false};
};

template <typename T>
bool
Contains(const std::vector<T>& list, const T& value)
{
    return std::find(list.begin(), list.end(), value) != list.end();
}

/**
 * Declares the flags on \p args and returns what takes their values into \p options, checking
 * each (std::invalid_argument naming the flag).
 */
std::function<void()>
DeclareOptions(ToolArgs& args, Options& options)
{
    args.AddFlag("quick", "sizes up to 16 MiB only (unless --sizes is given)");
    args.AddOption("n", "communicator sizes of the flat section (comma separated)", "2,3,8,16");
    args.AddOption("sizes", "collective sizes (comma separated)", "64KiB,1MiB,16MiB,256MiB");
    args.AddOption("collectives", "collectives to run (comma separated; default: all)");
    args.AddOption("algorithms", "algorithms to run (comma separated; default: all)");
    args.AddOption("sections", "sections to run (comma separated)", "flat,hierarchical,astra");
    args.AddOption("data",
                   "the shared traces, for the astra section (default $CHAKRA_TEST_DATA, else "
                   "./../shared/data)");
    args.AddOption("transport",
                   "transport models, one column each",
                   "tcp,rdma",
                   false,
                   {"transports"});
    return [&args, &options]() {
        options.quick = args.Has("quick");
        options.ranks = chakra_bench::ParseCountList(args.Get("n"), "--n", 1, 1000000);
        options.sizes =
            chakra_bench::ParseSizeList(args.Get("sizes"), "--sizes", 1, uint64_t(1) << 40);
        options.sizesGiven = args.Has("sizes");
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
        options.sections = chakra_bench::ParseNameList(args.Get("sections"),
                                                       "--sections",
                                                       {"flat", "hierarchical", "astra"});
        options.data = args.Get("data");
        options.transports = chakra_bench::ParseCheckedList(args.Get("transport"),
                                                            "--transport",
                                                            CommTransport::LookupModel);
        if (options.quick && !options.sizesGiven)
        {
            options.sizes.erase(std::remove_if(options.sizes.begin(),
                                               options.sizes.end(),
                                               [](uint64_t s) { return s > (16u << 20); }),
                                options.sizes.end());
        }
    };
}

/** Collects rows and keeps the worst ratio per (transport, collective, algorithm). */
class Table
{
  public:
    void Add(Row row)
    {
        for (std::size_t t = 0; t < row.measures.size(); ++t)
        {
            Measure& m = row.measures[t];
            if (std::isnan(m.closedUs) || m.simulatedUs < 0)
            {
                continue;
            }
            const double ratio = m.simulatedUs / m.closedUs;
            if (std::abs(ratio - 1) > 0.05)
            {
                m.note = "> 5%" + (m.note.empty() ? "" : " " + m.note);
            }
            const std::string& transport = g_transports[t];
            const std::string key = row.section + " " + row.collective + " " + row.algorithm;
            auto& worst = m_worst[transport];
            auto it = worst.find(key);
            if (it == worst.end() || std::abs(ratio - 1) > std::abs(it->second.ratio - 1))
            {
                worst[key] = Worst{ratio, row.ranks + " " + row.size};
            }
            m_within[transport] += std::abs(ratio - 1) <= 0.05 ? 1 : 0;
            ++m_compared[transport];
        }
        PrintRow(row);
    }

    void PrintSummary() const
    {
        for (const auto& transport : g_transports)
        {
            auto worst = m_worst.find(transport);
            if (worst == m_worst.end())
            {
                continue;
            }
            std::printf("\n%s: worst ratio per section, collective and algorithm:\n",
                        transport.c_str());
            for (const auto& [key, w] : worst->second)
            {
                std::printf("  %-45s %7.3f  (%s)%s\n",
                            key.c_str(),
                            w.ratio,
                            w.where.c_str(),
                            std::abs(w.ratio - 1) <= 0.05 ? "" : "  > 5%");
            }
            std::printf("%s: %zu of %zu rows with a closed form within 5%%\n",
                        transport.c_str(),
                        m_within.at(transport),
                        m_compared.at(transport));
        }
    }

  private:
    struct Worst
    {
        double ratio;
        std::string where;
    };

    std::map<std::string, std::map<std::string, Worst>> m_worst;
    std::map<std::string, std::size_t> m_within;
    std::map<std::string, std::size_t> m_compared;
};

/** \return the algorithm actually used, with a note when it is not the requested one */
std::string
NoteOf(const ChildResult& result, const std::string& requested)
{
    if (result.simulatedUs < 0)
    {
        return "FAILED";
    }
    std::string note;
    if (!result.finished)
    {
        note += "UNFINISHED ";
    }
    if (requested != result.algorithm)
    {
        note += std::string("ran ") + result.algorithm;
    }
    return note;
}

void
RunFlatSection(const Options& options, Table& table)
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
    std::printf("== flat: one switch, one GPU per host, NIC 100 Gbps, 1 us, MTU %u", kMtu);
    for (const auto& transport : options.transports)
    {
        const PathModel nic = TwoHopPath(kNicRate, kNicLatency, kMtu, transport);
        std::printf("; %s: B = %.4f GB/s payload, a = %.5f us",
                    transport.c_str(),
                    nic.bandwidth / 1e9,
                    nic.latency * 1e6);
    }
    std::printf(" ==\n");
    PrintHeader();
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
                // all-gather's comm_size is one rank's contribution; S = n x comm_size.
                const uint64_t commSize = c.type == ALL_GATHER ? size / n : size;
                const double full = c.type == ALL_GATHER ? static_cast<double>(commSize) * n
                                                         : static_cast<double>(size);
                Row row;
                row.section = "flat";
                row.collective = CollectiveLabel(c.type);
                row.algorithm = c.algorithm;
                row.ranks = std::to_string(n);
                row.size = SizeLabel(size);
                for (const auto& transport : options.transports)
                {
                    ChildResult result = RunInChildWithResult([&]() {
                        return SimulateGenerated(c.type,
                                                 commSize,
                                                 n,
                                                 ClusterSpec{n, 1},
                                                 c.algorithm,
                                                 transport);
                    });
                    const PathModel nic = TwoHopPath(kNicRate, kNicLatency, kMtu, transport);
                    Measure m;
                    m.simulatedUs = result.simulatedUs;
                    m.closedUs =
                        (FlatClosedForm(c.type, c.algorithm, n, full, nic) + nic.completion) * 1e6;
                    m.wallSeconds = result.wallSeconds;
                    m.note = NoteOf(result, c.algorithm);
                    row.measures.push_back(m);
                }
                table.Add(row);
            }
        }
    }
}

void
RunHierarchicalSection(const Options& options, Table& table)
{
    std::printf("\n== hierarchical: H hosts x 4 GPUs, NVLink 3600 Gbps, 250 ns, packets %u; "
                "NIC 100 Gbps, 1 us, MTU %u",
                kNvLinkMtu,
                kMtu);
    for (const auto& transport : options.transports)
    {
        const PathModel nic = TwoHopPath(kNicRate, kNicLatency, kMtu, transport);
        const PathModel nvlink = TwoHopPath(kNvLinkRate, kNvLinkLatency, kNvLinkMtu, transport);
        std::printf("; %s: B_in = %.2f GB/s, a_in = %.5f us, B_out = %.4f GB/s, a_out = %.5f us",
                    transport.c_str(),
                    nvlink.bandwidth / 1e9,
                    nvlink.latency * 1e6,
                    nic.bandwidth / 1e9,
                    nic.latency * 1e6);
    }
    std::printf(" ==\n");
    std::printf("(ring: max(2(n-1) m/B_out + a_out, 2(n-1)/g (a_out + m/B_out + (g-1)(a_in + "
                "m/B_in))), m = S/n)\n");
    PrintHeader();
    for (uint32_t hosts : {2u, 4u})
    {
        const uint32_t g = 4;
        const uint32_t n = hosts * g;
        for (uint64_t size : options.sizes)
        {
            std::map<std::string, double> simulated;
            for (const std::string algorithm : {"hierarchical", "ring"})
            {
                if (!options.algorithms.empty() && !Contains(options.algorithms, algorithm))
                {
                    continue;
                }
                Row row;
                row.section = "hierarchical";
                row.collective = "all-reduce";
                row.algorithm = algorithm;
                row.ranks = std::to_string(hosts) + "x" + std::to_string(g);
                row.size = SizeLabel(size);
                for (const auto& transport : options.transports)
                {
                    ChildResult result = RunInChildWithResult([&]() {
                        return SimulateGenerated(ChakraProtoMsg::ALL_REDUCE,
                                                 size,
                                                 n,
                                                 ClusterSpec{hosts, g},
                                                 algorithm,
                                                 transport);
                    });
                    const PathModel nic = TwoHopPath(kNicRate, kNicLatency, kMtu, transport);
                    const PathModel nvlink =
                        TwoHopPath(kNvLinkRate, kNvLinkLatency, kNvLinkMtu, transport);
                    Measure m;
                    m.simulatedUs = result.simulatedUs;
                    // The last sends: NVLink for hierarchical (all-gather inside hosts), the
                    // NIC hop for the flat ring (the slowest hop's completion).
                    m.closedUs =
                        (algorithm == "ring" ? TwoLevelRingClosedForm(hosts,
                                                                      g,
                                                                      static_cast<double>(size),
                                                                      nvlink,
                                                                      nic) +
                                                   nic.completion
                                             : HierarchicalClosedForm(hosts,
                                                                      g,
                                                                      static_cast<double>(size),
                                                                      nvlink,
                                                                      nic) +
                                                   nvlink.completion) *
                        1e6;
                    m.wallSeconds = result.wallSeconds;
                    m.note = NoteOf(result, algorithm);
                    const std::string key = transport + " " + algorithm;
                    simulated[key] = result.simulatedUs;
                    if (algorithm == "ring" && simulated.count(transport + " hierarchical") != 0 &&
                        simulated[transport + " hierarchical"] > 0)
                    {
                        char speedup[64];
                        std::snprintf(speedup,
                                      sizeof(speedup),
                                      "hierarchical %.2fx faster",
                                      result.simulatedUs / simulated[transport + " hierarchical"]);
                        m.note += (m.note.empty() ? "" : " ") + std::string(speedup);
                    }
                    row.measures.push_back(m);
                }
                table.Add(row);
            }
        }
    }
}

/** \return the shared data directory, empty if there is none */
std::string
FindDataDir(const Options& options)
{
    std::vector<std::string> candidates;
    if (!options.data.empty())
    {
        candidates.push_back(options.data);
    }
    else
    {
        const char* env = std::getenv("CHAKRA_TEST_DATA");
        if (env != nullptr && *env != '\0')
        {
            candidates.emplace_back(env);
        }
        candidates.emplace_back("../shared/data");
    }
    for (const auto& dir : candidates)
    {
        std::error_code error;
        if (std::filesystem::is_directory(dir + "/et/astra-microbenchmarks", error))
        {
            return dir;
        }
    }
    return "";
}

void
RunAstraSection(const Options& options, Table& table)
{
    std::string data = FindDataDir(options);
    std::printf("\n== astra-sim microbenchmarks (1 MiB, flat switch as above) ==\n");
    if (data.empty())
    {
        std::printf("skipped: no et/astra-microbenchmarks under --data, $CHAKRA_TEST_DATA or "
                    "./../shared/data\n");
        return;
    }
    std::printf("traces: %s/et/astra-microbenchmarks/<coll>/<n>npus_1MB/<coll>.<rank>.et\n",
                data.c_str());
    PrintHeader();
    for (const std::string coll : {"all_reduce", "all_gather", "reduce_scatter", "all_to_all"})
    {
        CollectiveCommType type;
        WorkloadGenerator::ParseCollective(coll, type);
        if (!options.collectives.empty() && !Contains(options.collectives, type))
        {
            continue;
        }
        for (uint32_t n : {4u, 8u, 16u})
        {
            const std::string prefix = data + "/et/astra-microbenchmarks/" + coll + "/" +
                                       std::to_string(n) + "npus_1MB/" + coll;
            if (CountTraceRanks(prefix) != n)
            {
                std::printf("%-15s %6u ranks: traces missing at %s\n",
                            coll.c_str(),
                            n,
                            prefix.c_str());
                continue;
            }
            // comm_size from rank 0's trace (every rank has the same collective).
            uint64_t commSize = 0;
            {
                EtReader reader(prefix + ".0.et");
                ChakraProtoMsg::Node proto;
                while (commSize == 0 && reader.ReadNode(proto))
                {
                    EtNode node(proto);
                    if (node.GetType() == ChakraProtoMsg::COMM_COLL_NODE)
                    {
                        commSize = node.GetCommSize();
                    }
                }
            }
            const double full =
                static_cast<double>(commSize) * (type == ChakraProtoMsg::ALL_GATHER ? n : 1);
            for (const auto& algorithm : CollectiveAlgorithmNames())
            {
                if (!options.algorithms.empty() && !Contains(options.algorithms, algorithm))
                {
                    continue;
                }
                CollectiveRequest request;
                request.type = type;
                request.size = n;
                request.bytes = commSize;
                auto hostOf = std::make_shared<std::vector<uint32_t>>();
                for (uint32_t r = 0; r < n; ++r)
                {
                    hostOf->push_back(r);
                }
                request.hostOf = hostOf;
                if (!CreateCollectiveAlgorithm(algorithm)->Supports(request))
                {
                    continue;
                }
                Row row;
                row.section = "astra";
                row.collective = CollectiveLabel(type);
                row.algorithm = algorithm;
                row.ranks = std::to_string(n);
                row.size = SizeLabel(static_cast<uint64_t>(full));
                for (const auto& transport : options.transports)
                {
                    ChildResult result = RunInChildWithResult([&]() {
                        return Simulate(prefix, ClusterSpec{n, 1}, algorithm, transport);
                    });
                    const PathModel nic = TwoHopPath(kNicRate, kNicLatency, kMtu, transport);
                    Measure m;
                    m.simulatedUs = result.simulatedUs;
                    m.closedUs =
                        (FlatClosedForm(type, algorithm, n, full, nic) + nic.completion) * 1e6;
                    m.wallSeconds = result.wallSeconds;
                    m.note = NoteOf(result, algorithm);
                    row.measures.push_back(m);
                }
                table.Add(row);
            }
        }
    }
}

} // namespace

int
main(int argc, char** argv)
{
    const std::string program = "collective-accuracy-bench";
    ToolArgs args(program,
                  "Simulated collective times beside their closed forms, on tcp and rdma "
                  "(each simulation in a child process).");
    Options options;
    const std::function<void()> readValues = DeclareOptions(args, options);
    int exitCode = 0;
    if (!chakra_bench::ParseFlags(program, args, argc, argv, readValues, exitCode))
    {
        return exitCode;
    }
    g_transports = options.transports;
    const double start = chakra_bench::Now();
    Table table;
    if (Contains(options.sections, std::string("flat")))
    {
        RunFlatSection(options, table);
    }
    if (Contains(options.sections, std::string("hierarchical")))
    {
        RunHierarchicalSection(options, table);
    }
    if (Contains(options.sections, std::string("astra")))
    {
        RunAstraSection(options, table);
    }
    table.PrintSummary();
    std::printf("total wall time %.1f s\n", chakra_bench::Now() - start);
    return 0;
}
