/*
 * chakra_nccl_tests: nccl-tests (all_reduce_perf, all_gather_perf, ...) on a simulated cluster.
 *
 *   chakra_nccl_tests all_reduce -b 8 -e 128M -f 2 [--hosts 2 --gpus-per-host 8 --gpu H100
 *                     --transport rdma --algorithm ring ...]
 *
 * Runs one collective over a size sweep, each size a separate simulation, and prints what
 * nccl-tests prints: its "#" header, its columns (size, count, type, redop, root, then time,
 * algbw, busbw, #wrong out-of-place and the same in-place) and the closing "# Avg bus
 * bandwidth" line, so that the table sits beside a real cluster's. nccl-tests' flags keep their
 * meaning (-b -e -f -i -d -o -r); -n -w -c -g -t only matter on hardware and have no effect
 * here. The cluster flags are chakra-cluster's (ClusterOptions). NCCL_ALGO and NCCL_PROTO are
 * read from the environment as NCCL reads them (doc/collectives.md, "chakra_nccl_tests").
 *
 * Exit status: 0 when every size ran, 1 for a configuration that cannot run or a simulation
 * that did not finish, 2 for a flag that is not valid.
 */
#include "ns3/chakra-module.h"
#include "ns3/core-module.h"

#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <map>
#include <optional>
#include <stdexcept>

using namespace ns3;

namespace
{

const std::string kProgram = "chakra_nccl_tests";

/** One of nccl-tests' flags this tool takes. */
struct NcclFlag
{
    char letter;
    const char* name; //!< long name (nccl-tests': --minbytes, --warmup_iters ...)
    const char* defaultValue;
    const char* help;
    bool hardwareOnly; //!< accepted, no effect in a simulation
};

const std::vector<NcclFlag>&
NcclFlags()
{
    static const std::vector<NcclFlag> flags = {
        {'b', "minbytes", "32M", "smallest size (8, 64K, 1M, 8G: K, M, G are 1024-based)", false},
        {'e', "maxbytes", "32M", "largest size", false},
        {'f', "stepfactor", "1", "multiply the size by this between rows (2 and up)", false},
        {'i', "stepbytes", "1M", "add this many bytes between rows (when -f is below 2)", false},
        {'d',
         "datatype",
         "float",
         "data type: int8 uint8 int32 uint32 int64 uint64 half float double bfloat16 f8e4m3 "
         "f8e5m2 (sets the count column and the rounding of sizes)",
         false},
        {'o',
         "op",
         "sum",
         "reduction: sum prod max min avg mulsum (shown in the redop column; the arithmetic is "
         "not simulated)",
         false},
        {'r', "root", "0", "root rank of broadcast and reduce (-1: every root in turn)", false},
        {'n', "iters", "20", "iterations: no effect (a simulation is deterministic)", true},
        {'w', "warmup_iters", "1", "warm-up iterations: no effect", true},
        {'c', "check", "1", "data check: no effect (no data moves; #wrong is N/A)", true},
        {'g',
         "ngpus",
         "1",
         "GPUs per process: no effect (the GPUs are --hosts x --gpus-per-host)",
         true},
        {'t', "nthreads", "1", "threads per process: no effect", true},
    };
    return flags;
}

/** nccl-tests' other one-letter flags: hardware or reporting knobs this tool does not take. */
const std::map<char, const char*>&
OtherNcclFlags()
{
    static const std::map<char, const char*> flags = {
        {'m', "agg_iters"},         {'N', "run_cycles"},
        {'p', "parallel_init"},     {'z', "blocking"},
        {'y', "stream_null"},       {'T', "timeout"},
        {'G', "cudagraph"},         {'C', "report_cputime"},
        {'S', "report_timestamps"}, {'J', "output_file"},
        {'a', "average"},           {'R', "local_register"},
        {'x', "cta_policy"},        {'D', "device_implementation"},
        {'V', "device_cta_count"},  {'M', "memory"},
        {'u', "unalign"},           {'I', "per_iter_timing"},
        {'K', "per_iter_skip"},
    };
    return flags;
}

/**
 * Rewrites nccl-tests' one-letter flags ("-b 8", "-b8") as "--minbytes=8" for ToolArgs, so that
 * a value such as "-1" is never taken for a flag.
 * \throws std::invalid_argument for a one-letter flag this tool does not take
 */
std::vector<std::string>
SpellShortFlags(int argc, char** argv)
{
    std::vector<std::string> words{argv[0]};
    for (int i = 1; i < argc; ++i)
    {
        const std::string arg = argv[i];
        const bool shortFlag = arg.size() >= 2 && arg[0] == '-' && arg[1] != '-' &&
                               std::isalpha(static_cast<unsigned char>(arg[1]));
        if (!shortFlag || arg == "-h")
        {
            words.push_back(arg);
            continue;
        }
        const char letter = arg[1];
        const NcclFlag* flag = nullptr;
        for (const NcclFlag& candidate : NcclFlags())
        {
            flag = candidate.letter == letter ? &candidate : flag;
        }
        if (flag == nullptr)
        {
            auto other = OtherNcclFlags().find(letter);
            throw std::invalid_argument(
                "-" + std::string(1, letter) +
                (other != OtherNcclFlags().end()
                     ? std::string(" (--") + other->second +
                           "): an nccl-tests flag for hardware runs that this tool does not take"
                     : std::string(": unknown flag")) +
                " (it takes -b -e -f -i -d -o -r, and -n -w -c -g -t with no effect)");
        }
        std::string value = arg.substr(2);
        if (value.empty())
        {
            if (i + 1 >= argc)
            {
                throw std::invalid_argument("-" + std::string(1, letter) + " needs a value");
            }
            value = argv[++i];
        }
        words.push_back(std::string("--") + flag->name + "=" + value);
    }
    return words;
}

void
AddFlags(ToolArgs& args)
{
    std::string names;
    for (const auto& collective : NcclTestsCollectives())
    {
        names += (names.empty() ? "" : ", ") + collective.name;
    }
    args.AddPositional("collective", "the collective: " + names);
    for (const NcclFlag& flag : NcclFlags())
    {
        args.AddOption(flag.name,
                       "-" + std::string(1, flag.letter) + ": " + flag.help,
                       flag.defaultValue);
    }
    ClusterOptions::AddFlags(args); // --gpu among them
    args.EnableNs3Attributes();
}

/** The run the flags describe, checked whole before anything is printed. */
struct Run
{
    const NcclTestsCollective* collective{nullptr};
    std::string typeName;
    uint32_t typeSize{4};
    std::string op;
    std::vector<uint32_t> roots; //!< rooted: the roots in turn, one sweep each; else {0}, unused
    bool rooted{false};
    std::vector<uint64_t> sizes;
    uint64_t minBytes{0};
    uint64_t maxBytes{0};
    uint64_t stepFactor{1};
    uint64_t stepBytes{0};
    uint32_t ranks{0};
    ClusterOptions options;
    std::string algorithmSource; //!< where the algorithm comes from (flag, NCCL_ALGO, default)
    std::string ignored;         //!< the hardware-only flags given, as typed
    std::string gpuNote;         //!< what --gpu set
    NcclGpuGeneration generation{NcclGpuGeneration::HOPPER}; //!< NCCL's table row (from --gpu)
    std::string generationNote{"Hopper (assumed; --gpu sets it)"};
    std::optional<NcclTuningModel> tuning; //!< NCCL's choice (none: point-to-point)
    std::string tuningNote;                //!< what the choice assumes, or why there is none
};

/** The channels NCCL's tuning assumes (NCCL's topology search decides them on hardware). */
constexpr uint32_t kNcclChannels = 16;

std::string
Env(const char* name)
{
    const char* value = std::getenv(name);
    return value == nullptr ? "" : value;
}

/** \return the GPUs of the cluster the options describe (hosts x GPUs per host, or fixed) */
uint32_t
CountRanks(const ClusterOptions& options)
{
    Ptr<GpuClusterHelper> cluster = CreateObject<GpuClusterHelper>();
    options.ApplyToCluster(*cluster);
    if (const uint32_t fixed = cluster->CreateTopologyBuilder()->GetFixedRankCount())
    {
        return fixed;
    }
    const TopologySpec spec = cluster->GetTopologySpec();
    return spec.hosts * spec.gpusPerHost;
}

/** Sets the algorithm from NCCL_ALGO (when it says one), refusing a conflicting --algorithm. */
void
ApplyNcclAlgo(Run& run)
{
    const std::string env = Env("NCCL_ALGO");
    if (run.options.Has("algorithm") && run.options.GetText("algorithm") == "nccl")
    {
        // The NCCL model reads NCCL_ALGO itself (its NcclAlgo attribute), as NCCL does:
        // checked here with NCCL's parser, naming the variable.
        for (int f = 0; f <= static_cast<int>(NcclFunction::ALL_REDUCE); ++f)
        {
            ParseNcclList("NCCL_ALGO", env, NcclAlgoNames(), static_cast<NcclFunction>(f));
        }
        run.algorithmSource = "--algorithm";
        if (!env.empty())
        {
            run.algorithmSource += "; NCCL_ALGO=" + env + " read by the NCCL model";
        }
        return;
    }
    const std::string algorithm = NcclAlgoAlgorithm(env, *run.collective);
    if (algorithm.empty())
    {
        run.algorithmSource = run.options.Has("algorithm") ? "--algorithm" : "default";
        const bool pointToPoint =
            run.collective->pointToPoint || run.collective->type == ChakraProtoMsg::ALL_TO_ALL;
        if (!env.empty())
        {
            run.algorithmSource += "; NCCL_ALGO=" + env + ": no effect on " + run.collective->name +
                                   (pointToPoint ? " (point-to-point in NCCL)" : "");
        }
        return;
    }
    if (run.options.Has("algorithm") && run.options.GetText("algorithm") != algorithm)
    {
        throw std::invalid_argument("--algorithm=" + run.options.GetText("algorithm") +
                                    " and NCCL_ALGO=" + env + " (" + algorithm +
                                    ") disagree: give one");
    }
    run.options.Set("algorithm", algorithm);
    run.algorithmSource = "NCCL_ALGO=" + env;
}

void
ApplyGpu(Run& run)
{
    // --gpu is a cluster option (it set the NVLink bandwidth when the options were read).
    const auto& spec = run.options.GetGpu();
    if (!spec)
    {
        return;
    }
    run.gpuNote = spec->model + " (" + spec->generation + ", " + spec->DataRate() +
                  " per direction: " + spec->source + ")";
    run.generation = NcclGenerationOf(*spec);
    run.generationNote = NcclGenerationName(run.generation) + " (" + spec->model + ")";
}

/**
 * Sets up NCCL's tuning model for the cluster: nodes = hosts, NVLink per GPU, one NIC per GPU,
 * kNcclChannels channels, NCCL_ALGO and NCCL_PROTO from the environment.
 * \throws std::invalid_argument for a bad NCCL_ALGO or NCCL_PROTO (naming it)
 */
void
ApplyNcclTuning(Run& run)
{
    if (!NcclTestsFunction(*run.collective))
    {
        run.tuningNote = "none: " + run.collective->name + " is point-to-point in NCCL";
        return;
    }
    Ptr<GpuClusterHelper> cluster = CreateObject<GpuClusterHelper>();
    run.options.ApplyToCluster(*cluster);
    const TopologySpec spec = cluster->GetTopologySpec();
    if (spec.gpusPerHost == 0 || run.ranks % spec.gpusPerHost != 0)
    {
        run.tuningNote = "none: the cluster's GPUs are not whole hosts";
        return;
    }
    // The NCCL model (--algorithm=nccl) takes the same machine and variables, and the
    // printed choice is its own tuning's, so that the simulated pair is the one the "# NCCL
    // choice" block prints.
    Config::SetDefault("ns3::NcclCollective::Channels", UintegerValue(kNcclChannels));
    Config::SetDefault("ns3::NcclCollective::GpuGeneration",
                       EnumValue(static_cast<int>(run.generation)));
    Config::SetDefault("ns3::NcclCollective::NcclAlgo", StringValue(Env("NCCL_ALGO")));
    Config::SetDefault("ns3::NcclCollective::NcclProto", StringValue(Env("NCCL_PROTO")));
    SetNcclDefaultsFromCluster(*cluster);
    Ptr<NcclCollective> model = CreateObject<NcclCollective>();
    // NCCL's intra-node bandwidth is its per-link figure: the line rate x the model's NVLink
    // efficiency (the generation's, or --ns3::NcclCollective::NvLinkEfficiency).
    const double efficiency = model->GetNvLinkEfficiency();
    const NcclTuningConfig config =
        model->GetTuningConfig(run.ranks / spec.gpusPerHost, spec.gpusPerHost);
    run.tuning.emplace(config, Env("NCCL_ALGO"), Env("NCCL_PROTO"));
    char text[400];
    std::snprintf(text,
                  sizeof(text),
                  "NCCL 2.30.7's tuning model: %s rows, %u node(s) x %u, %u channels, intra %g "
                  "GB/s per GPU (NVLink x %g), network %g GB/s per node",
                  run.generationNote.c_str(),
                  config.nodes,
                  config.ranksPerNode,
                  config.channels,
                  config.intraBandwidth,
                  efficiency,
                  config.interBandwidth);
    run.tuningNote = text;
    for (const char* variable : {"NCCL_ALGO", "NCCL_PROTO"})
    {
        if (!Env(variable).empty())
        {
            run.tuningNote += std::string(", ") + variable + "=" + Env(variable);
        }
    }
}

/** Reads and checks every flag and variable. \throws std::invalid_argument naming the flag */
Run
ReadRun(const ToolArgs& args)
{
    Run run;
    run.collective = &FindNcclTestsCollective(args.Get("collective"));
    CheckNcclProto(Env("NCCL_PROTO"));
    run.typeName = args.Get("datatype");
    run.typeSize = NcclTestsTypeSize(run.typeName);
    run.op = args.Get("op");
    CheckNcclTestsOp(run.op);
    run.minBytes = ParseNcclTestsSize(args.Get("minbytes"), "-b/--minbytes");
    run.maxBytes = ParseNcclTestsSize(args.Get("maxbytes"), "-e/--maxbytes");
    run.stepBytes = ParseNcclTestsSize(args.Get("stepbytes"), "-i/--stepbytes");
    run.stepFactor = ParseWholeNumber(args.Get("stepfactor"), "-f/--stepfactor", 0, 1u << 20);
    if (args.Has("stepfactor") && run.stepFactor < 2 && !args.Has("stepbytes"))
    {
        throw std::invalid_argument("-f/--stepfactor " + args.Get("stepfactor") +
                                    ": below 2 the sizes grow by -i/--stepbytes bytes; give "
                                    "-f 2 or more, or -i");
    }
    run.sizes = NcclTestsSizes(run.minBytes, run.maxBytes, run.stepFactor, run.stepBytes);
    for (const NcclFlag& flag : NcclFlags())
    {
        if (flag.hardwareOnly && args.Has(flag.name))
        {
            ParseWholeNumber(args.Get(flag.name),
                             "-" + std::string(1, flag.letter) + "/--" + flag.name,
                             0,
                             1u << 30);
            run.ignored += std::string(run.ignored.empty() ? "" : " ") + "-" + flag.letter + " " +
                           args.Get(flag.name);
        }
    }
    run.options.Read(args);
    ApplyGpu(run);
    ApplyNcclAlgo(run);
    run.ranks = CountRanks(run.options);
    if (run.ranks < 2)
    {
        throw std::invalid_argument("the cluster has " + std::to_string(run.ranks) +
                                    " GPU: a collective needs 2 or more (--hosts, "
                                    "--gpus-per-host)");
    }
    ApplyNcclTuning(run);
    const std::string rootText = args.Get("root");
    long long root = 0;
    try
    {
        std::size_t used = 0;
        root = std::stoll(rootText, &used);
        if (used != rootText.size())
        {
            throw std::invalid_argument("");
        }
    }
    catch (const std::exception&)
    {
        throw std::invalid_argument("-r/--root: '" + rootText + "' is not a whole number");
    }
    if (root < -1 || root >= static_cast<long long>(run.ranks))
    {
        throw std::invalid_argument("-r/--root " + rootText + " is not a rank of the " +
                                    std::to_string(run.ranks) + " GPUs (0 to " +
                                    std::to_string(run.ranks - 1) + ", or -1: every root)");
    }
    run.rooted = run.collective->rooted;
    if (run.rooted)
    {
        for (uint32_t r = 0; r < run.ranks; ++r)
        {
            if (root == -1 || r == root)
            {
                run.roots.push_back(r);
            }
        }
    }
    else
    {
        run.roots.push_back(0); // not used; the column shows -1
    }
    return run;
}

void
PrintHeader(const Run& run, const ClusterScenario& scenario)
{
    const NcclTestsCollective& c = *run.collective;
    const Ptr<GpuClusterHelper> cluster = scenario.GetCluster();
    std::printf(
        "# chakra_nccl_tests: nccl-tests' %s_perf on a simulated cluster (chakra for ns-3)\n",
        c.name.c_str());
    std::printf("# Collective test starting: %s_perf\n", c.name.c_str());
    std::printf("# nRanks %u minBytes %s maxBytes %s step: %s(%s) type: %s op: %s\n",
                run.ranks,
                std::to_string(run.minBytes).c_str(),
                std::to_string(run.maxBytes).c_str(),
                std::to_string(run.stepFactor > 1 ? run.stepFactor : run.stepBytes).c_str(),
                run.stepFactor > 1 ? "factor" : "bytes",
                run.typeName.c_str(),
                run.op.c_str());
    std::printf("#\n");
    std::printf("# Simulated: each size is one deterministic simulation of one call on every "
                "rank, all starting at 0;\n");
    std::printf("#   time = the last rank's end. Out-of-place and in-place are the same run, "
                "and no data moves:\n");
    std::printf("#   #wrong is N/A, as nccl-tests prints with -c 0.\n");
    if (!run.ignored.empty())
    {
        std::printf("# No effect in a simulation: %s\n", run.ignored.c_str());
    }
    std::printf("# cluster: %s\n", cluster->Describe().c_str());
    std::printf("# topology: %s\n", cluster->DescribeTopology().c_str());
    if (!run.gpuNote.empty())
    {
        std::printf("# gpu: %s\n", run.gpuNote.c_str());
    }
    std::printf("# transport: %s\n", run.options.GetText("transport").c_str());
    if (c.pointToPoint)
    {
        std::printf("# algorithm: none (rank r sends to r+1 and receives from r-1, both at "
                    "once)\n");
    }
    else
    {
        std::printf("# algorithm: %s (%s)\n",
                    run.options.GetText("algorithm").c_str(),
                    run.algorithmSource.c_str());
    }
    if (run.options.GetText("algorithm") == "nccl")
    {
        std::printf("# nccl: NCCL's channels, rings and double binary trees over hosts on rails, "
                    "chunks, slices, protocol wire bytes, NVLink efficiency and per-step "
                    "latency simulated;\n#   NVLS (all-reduce; all-gather and reduce-scatter "
                    "under NCCL_ALGO=NVLS) on one host of Hopper or later GPUs (--nvls), "
                    "NVLSTree across such hosts, CollNet and NVLS all-reduce across hosts "
                    "whose switches reduce (--sharp on) simulated by their link loads; PAT "
                    "(all-gather, reduce-scatter) with one GPU a host;\n#   PXN beyond the "
                    "ring's rail hand-over: the rail-optimized fabric's --pxn on "
                    "(doc/collectives.md, \"The NCCL model\")\n");
    }
    else
    {
        std::printf("# textbook algorithm: NCCL's protocols, channels, NVLS and PXN are not in it "
                    "(--algorithm nccl simulates them); NCCL's own choice of algorithm and "
                    "protocol follows the table\n");
    }
    std::printf("#\n");
    std::printf("# %10s  %12s  %8s  %6s  %6s           out-of-place                       "
                "in-place          \n",
                "",
                "",
                "",
                "",
                "");
    std::printf("# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %6s  %6s  %6s \n",
                "size",
                "count",
                "type",
                "redop",
                "root",
                "time",
                "algbw",
                "busbw",
                "#wrong",
                "time",
                "algbw",
                "busbw",
                "#wrong");
    std::printf("# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %6s  %6s  %6s \n",
                "(B)",
                "(elements)",
                "",
                "",
                "",
                "(us)",
                "(GB/s)",
                "(GB/s)",
                "",
                "(us)",
                "(GB/s)",
                "(GB/s)",
                "");
    std::fflush(stdout);
}

/** \return the scenario of one run: the options applied for the run's ranks */
std::unique_ptr<ClusterScenario>
MakeScenario(const Run& run)
{
    auto scenario = std::make_unique<ClusterScenario>();
    run.options.Apply(*scenario, run.ranks);
    return scenario;
}

/**
 * \return one "# NCCL choice" line: the size, NCCL's algorithm and protocol for it and its
 *         predicted time beside the simulated one; or why NCCL would refuse the call
 */
std::string
ChoiceLine(const NcclTuningModel& tuning,
           const NcclTestsCollective& c,
           uint64_t bytes,
           double simulatedSeconds)
{
    char line[300];
    try
    {
        const NcclChoice choice = tuning.Choose(*NcclTestsFunction(c), bytes);
        std::snprintf(line,
                      sizeof(line),
                      "# %10llu  %9s  %8s  %9s  %9s",
                      static_cast<unsigned long long>(bytes),
                      NcclAlgorithmName(choice.algorithm).c_str(),
                      NcclProtocolName(choice.protocol).c_str(),
                      FormatNcclTestsNumber(choice.time, 9).c_str(),
                      FormatNcclTestsNumber(simulatedSeconds * 1e6, 9).c_str());
    }
    catch (const std::invalid_argument& e)
    {
        std::snprintf(line,
                      sizeof(line),
                      "# %10llu  none: %s",
                      static_cast<unsigned long long>(bytes),
                      e.what());
    }
    return line;
}

int
RunSweep(const Run& run)
{
    const NcclTestsCollective& c = *run.collective;
    PrintHeader(run, *MakeScenario(run));
    double busBwSum = 0;
    uint64_t rows = 0;
    std::map<std::string, uint64_t> ranAlgorithms; // algorithm -> rows
    std::vector<std::string> choices;              // the "# NCCL choice" lines
    for (uint32_t root : run.roots)
    {
        for (uint64_t size : run.sizes)
        {
            const NcclTestsRowShape shape = NcclTestsShape(c, size, run.typeSize, run.ranks);
            CollectiveBenchSpec spec;
            spec.type = c.type;
            spec.bytes = shape.commSize;
            spec.ranks = run.ranks;
            spec.root = root;
            auto scenario = MakeScenario(run);
            const CollectiveBenchResult result =
                RunCollectiveBench(*scenario, spec, c.pointToPoint);
            if (!result.finished)
            {
                throw std::runtime_error("size " + std::to_string(shape.sizeBytes) + ": " +
                                         (result.failure.empty()
                                              ? "the simulation did not finish (every rank did "
                                                "not reach its trace's end)"
                                              : result.failure));
            }
            const double seconds = result.time.GetSeconds();
            const NcclTestsBandwidth bw =
                NcclTestsBandwidths(c, shape.count, run.typeSize, seconds, run.ranks);
            if (!c.pointToPoint)
            {
                ++ranAlgorithms[result.algorithms.empty() ? "none" : result.algorithms];
            }
            const std::string body = "  " + FormatNcclTestsNumber(seconds * 1e6, 7) + "  " +
                                     FormatNcclTestsNumber(bw.algBw, 6) + "  " +
                                     FormatNcclTestsNumber(bw.busBw, 6) + "    N/A";
            std::printf("%12llu  %12llu  %8s  %6s  %6d%s%s\n",
                        static_cast<unsigned long long>(shape.sizeBytes),
                        static_cast<unsigned long long>(shape.count),
                        run.typeName.c_str(),
                        c.reduces ? run.op.c_str() : "none",
                        run.rooted ? static_cast<int>(root) : -1,
                        body.c_str(),
                        body.c_str());
            std::fflush(stdout);
            if (run.tuning)
            {
                choices.push_back(ChoiceLine(*run.tuning, c, shape.sizeBytes, seconds));
            }
            // nccl-tests averages busbw over every out-of-place and in-place row.
            busBwSum += 2 * bw.busBw;
            rows += 2;
        }
    }
    const std::string requested = run.options.GetText("algorithm");
    for (const auto& [algorithm, count] : ranAlgorithms)
    {
        if (requested != "auto" && algorithm != requested)
        {
            std::printf("# Note: %s cannot run this %s; the collective's default ran\n",
                        requested.c_str(),
                        c.name.c_str());
        }
        std::printf("# Simulated algorithm: %s (%llu of %zu rows)\n",
                    algorithm.c_str(),
                    static_cast<unsigned long long>(count),
                    run.sizes.size() * run.roots.size());
    }
    std::printf("#\n# NCCL choice: %s\n", run.tuningNote.c_str());
    if (!choices.empty())
    {
        std::printf("# %10s  %9s  %8s  %9s  %9s\n",
                    "size",
                    "algorithm",
                    "protocol",
                    "predicted",
                    "simulated");
        std::printf("# %10s  %9s  %8s  %9s  %9s\n", "(B)", "", "", "(us)", "(us)");
        for (const std::string& line : choices)
        {
            std::printf("%s\n", line.c_str());
        }
    }
    std::printf("#\n");
    std::printf("# %-20s : %d %s\n", "Out of bounds values", 0, "OK");
    std::printf("# %-20s : %g %s\n", "Avg bus bandwidth", rows > 0 ? busBwSum / rows : 0.0, "");
    std::printf("#\n");
    std::printf("# Collective test concluded: %s_perf\n", c.name.c_str());
    return 0;
}

} // namespace

int
main(int argc, char* argv[])
{
    ToolArgs args(kProgram,
                  "nccl-tests on a simulated cluster: one collective over a size sweep, printed "
                  "as nccl-tests prints it (chakra_nccl_tests all_reduce -b 8 -e 128M -f 2 "
                  "--hosts 2 --gpus-per-host 8).");
    AddFlags(args);
    std::vector<std::string> words;
    try
    {
        words = SpellShortFlags(argc, argv);
    }
    catch (const std::invalid_argument& e)
    {
        std::cerr << kProgram << ": error: " << e.what() << " (see --help)" << std::endl;
        return 2;
    }
    std::vector<char*> pointers;
    for (auto& word : words)
    {
        pointers.push_back(word.data());
    }
    bool done = false;
    const int code = args.Parse(static_cast<int>(pointers.size()), pointers.data(), done);
    if (done)
    {
        return code;
    }
    return RunTool(kProgram, [&args]() { return RunSweep(ReadRun(args)); });
}
