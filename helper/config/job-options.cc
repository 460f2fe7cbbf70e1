#include "job-options.h"

#include "quantity-parser.h"

#include "ns3/cluster-scenario.h"
#include "ns3/job-spec.h"
#include "ns3/topology-builder.h"
#include "ns3/topology-file.h"

#include <algorithm>
#include <optional>
#include <stdexcept>

namespace ns3
{

namespace
{

/** The flags that only mean something with several jobs. */
const char* const kPlacementFlags[] = {"placement", "placement-seed", "interference"};

} // namespace

void
JobOptions::AddFlags(ToolArgs& args, const std::string& jobHelp)
{
    args.AddRepeatedOption("job",
                           jobHelp + ": PREFIX[:key=value,...] with keys name, start (a time), "
                                     "hosts (0-3+8) and the application flags (algorithm, "
                                     "compute-scale, ...) for this job alone; repeat for each job");
    args.AddOption("jobs-file",
                   "jobs from a YAML or JSON file: a list of jobs, each with trace: PREFIX and "
                   "the keys of --job (before any --job)");
    args.AddOption("placement",
                   "with --job: where jobs without hosts= go: contiguous (lowest free hosts), "
                   "spread (one host per leaf or rail group in turn), random (--placement-seed)",
                   "contiguous");
    args.AddOption("placement-seed", "with --placement random: the draw's seed", "1");
    args.AddFlag("interference",
                 "with --job: also run each job alone on the same hosts and report its slowdown");
}

void
JobOptions::Read(const ToolArgs& args)
{
    jobs.clear();
    if (args.Has("jobs-file"))
    {
        jobs = ReadJobsFile(args.Get("jobs-file"));
    }
    for (const std::string& text : args.GetAll("job"))
    {
        jobs.push_back(ParseJobSpec(text));
    }
    if (!HasJobs())
    {
        for (const char* flag : kPlacementFlags)
        {
            if (args.Has(flag))
            {
                throw std::invalid_argument(std::string("--") + flag +
                                            " is for several jobs (--job)");
            }
        }
    }
    try
    {
        placement = ParseJobPlacementPolicy(args.Get("placement"));
    }
    catch (const std::invalid_argument& e)
    {
        throw std::invalid_argument(std::string("--placement: ") + e.what());
    }
    placementSeed = static_cast<uint32_t>(
        ParseWholeNumber(args.Get("placement-seed"), "--placement-seed", 0, 4294967295ULL));
    interference = args.Has("interference");
}

bool
JobOptions::HasJobs() const
{
    return !jobs.empty();
}

uint32_t
JobOptions::ClusterGpus(const ClusterOptions& options, uint32_t extraRanks) const
{
    // GPUs per host: the flag's, or the topology file's, or 8 (as for one job).
    std::string perHostText = options.Has("gpus-per-host") ? options.GetText("gpus-per-host") : "";
    std::optional<uint64_t> fileHosts;
    if (options.Has("topology-file"))
    {
        const TopologyFileContents file =
            ReadTopologyFile(options.GetText("topology-file"), TopologySpec());
        if (perHostText.empty() && file.keys.count("gpusPerHost") != 0)
        {
            perHostText = std::to_string(file.spec.gpusPerHost);
        }
        if (file.keys.count("hosts") != 0)
        {
            fileHosts = file.spec.hosts;
        }
    }
    const auto perHost =
        static_cast<uint32_t>(ParseWholeNumber(perHostText.empty() ? "8" : perHostText,
                                               "--gpus-per-host",
                                               1,
                                               TopologyLimits::kMaxGpusPerHost));
    // Without --hosts: the hosts the jobs take (whole hosts each), and at least up to the
    // highest host a job names.
    uint64_t hosts = (uint64_t(extraRanks) + perHost - 1) / perHost;
    uint64_t highest = 0;
    for (const ClusterJob& job : jobs)
    {
        const uint32_t ranks = CountTraceRanks(job.tracePrefix); // throws on missing ranks
        if (ranks == 0)
        {
            throw std::invalid_argument("--job " + job.tracePrefix + ": no trace " +
                                        job.tracePrefix + ".0.et");
        }
        hosts += job.hosts.empty() ? (ranks + perHost - 1) / perHost : job.hosts.size();
        for (uint32_t host : job.hosts)
        {
            highest = std::max<uint64_t>(highest, uint64_t(host) + 1);
        }
    }
    hosts = std::max(hosts, highest);
    if (fileHosts)
    {
        hosts = *fileHosts;
    }
    if (options.Has("hosts"))
    {
        hosts = ParseWholeNumber(options.GetText("hosts"), "--hosts", 1, TopologyLimits::kMaxHosts);
    }
    if (hosts * perHost > TopologyLimits::kMaxGpus)
    {
        throw std::invalid_argument("the jobs need " + std::to_string(hosts) + " hosts of " +
                                    std::to_string(perHost) + " GPUs: more than a cluster holds");
    }
    return static_cast<uint32_t>(hosts * perHost);
}

} // namespace ns3
