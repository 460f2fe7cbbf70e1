#include "cluster-scenario.h"

#include "job-interference.h"

#include "ns3/attribute-text.h"
#include "ns3/boolean.h"
#include "ns3/compute-model.h"
#include "ns3/config.h"
#include "ns3/data-rate.h"
#include "ns3/double.h"
#include "ns3/enum.h"
#include "ns3/et-reader.h"
#include "ns3/global-value.h"
#include "ns3/mpi-context.h"
#include "ns3/object-factory.h"
#include "ns3/pointer.h"
#include "ns3/rank-roles.h"
#include "ns3/rank-traces.h"
#include "ns3/report-gather.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/timeline-writer.h"
#include "ns3/topology-builder.h"
#include "ns3/topology-file.h"
#include "ns3/topology-summary.h"
#include "ns3/trace-error.h"
#include "ns3/type-id.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <chrono>
#include <iomanip>
#include <map>
#include <sstream>
#include <stdexcept>

namespace ns3
{

ClusterScenario::ClusterScenario()
    : m_cluster(CreateObject<GpuClusterHelper>())
{
}

Ptr<GpuClusterHelper>
ClusterScenario::GetCluster() const
{
    return m_cluster;
}

void
ClusterScenario::SetClusterAttribute(const std::string& name, const AttributeValue& value)
{
    TypeId::AttributeInformation info;
    if (!GpuClusterHelper::GetTypeId().LookupAttributeByName(name, &info) &&
        m_cluster->HasTopologyParameter(name))
    {
        // A parameter of the chosen topology family (Spines, LeavesPerPod, ...).
        m_cluster->SetTopologyAttribute(name, value);
        return;
    }
    m_cluster->SetAttribute(name, *CheckAttributeValue(GpuClusterHelper::GetTypeId(), name, value));
}

void
ClusterScenario::SetAppAttribute(const std::string& name, const AttributeValue& value)
{
    // Checked now (a wrong name or value lists the valid ones), not when Run installs.
    m_appAttributes.emplace_back(name,
                                 CheckAttributeValue(ChakraApplication::GetTypeId(), name, value));
}

void
ClusterScenario::SetTimeline(const std::string& path)
{
    m_timeline = path;
}

void
ClusterScenario::SetStopTime(Time stop)
{
    m_stop = stop;
}

void
ClusterScenario::SetBeforeRun(std::function<void(const std::vector<Ptr<ChakraApplication>>&)> hook)
{
    m_beforeRun = std::move(hook);
}

void
ClusterScenario::SetProgress(Time interval, std::function<void(Time)> hook)
{
    m_progressInterval = interval;
    m_progress = std::move(hook);
}

void
ClusterScenario::Progress()
{
    m_progress(Simulator::Now());
    // Only while something else is scheduled: the progress event alone must not keep the
    // simulation running forever.
    if (!Simulator::IsFinished())
    {
        Simulator::Schedule(m_progressInterval, &ClusterScenario::Progress, this);
    }
}

namespace
{

/**
 * Whatever fails in a run (a bad trace, a configuration error, an exception out of an event),
 * the simulation is torn down before the exception leaves: its nodes, sockets and their
 * callbacks would otherwise outlive the run (LeakSanitizer reports them) and the next run of
 * this process would start on a dirty simulator. Destroy twice is harmless.
 */
struct DestroyOnExit
{
    ~DestroyOnExit()
    {
        Simulator::Destroy();
    }
};

double
SteadySeconds()
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

} // namespace

void
ClusterScenario::SetWallClockProgress(double seconds, std::function<void(const WallProgress&)> hook)
{
    m_wallInterval = seconds;
    m_wallHook = std::move(hook);
}

std::string
ClusterScenario::FormatProgress(const WallProgress& progress)
{
    std::ostringstream line;
    line << std::fixed << std::setprecision(3) << "simulated "
         << progress.simulated.GetSeconds() * 1e3 << " ms, " << progress.nodesDone;
    if (progress.nodesTotal > 0)
    {
        line << "/" << progress.nodesTotal << " nodes done (" << std::setprecision(0)
             << 100.0 * static_cast<double>(progress.nodesDone) /
                    static_cast<double>(progress.nodesTotal)
             << "%)";
    }
    else
    {
        line << " nodes done";
    }
    line << ", " << progress.events << " events, " << std::setprecision(2)
         << progress.eventsPerSecond / 1e6 << " M events/s, wall " << std::setprecision(1)
         << progress.wallSeconds << " s";
    if (progress.secondsLeft >= 0)
    {
        line << ", about " << std::setprecision(progress.secondsLeft < 10 ? 1 : 0)
             << progress.secondsLeft << " s left";
    }
    return line.str();
}

void
ClusterScenario::WallProbe()
{
    const double now = SteadySeconds();
    // Aim at about 8 checks per line, and at most one check per wall-clock millisecond (tiny
    // intervals): double the simulated step while checks come faster than that, halve it while
    // they come slower (a check costs one event).
    const double target = std::max(m_wallInterval / 8, 1e-3);
    const double sinceProbe = now - m_lastProbe;
    m_lastProbe = now;
    if (sinceProbe < target / 2 && m_probeStep < Seconds(1))
    {
        m_probeStep = m_probeStep * 2;
    }
    else if (sinceProbe > target * 2 && m_probeStep > NanoSeconds(1))
    {
        m_probeStep = m_probeStep / 2;
    }
    if (now - m_lastLine >= m_wallInterval)
    {
        WallProgress progress;
        progress.simulated = Simulator::Now();
        progress.nodesDone = m_nodesDone;
        progress.nodesTotal = m_nodesTotal;
        progress.events = Simulator::GetEventCount();
        progress.wallSeconds = now - m_runStart;
        if (m_nodesDone > 0 && m_nodesTotal >= m_nodesDone)
        {
            // At the speed so far: rough (a collective's nodes cost more than a compute
            // node's), but it says minutes from hours.
            progress.secondsLeft = progress.wallSeconds *
                                   static_cast<double>(m_nodesTotal - m_nodesDone) /
                                   static_cast<double>(m_nodesDone);
        }
        progress.eventsPerSecond =
            static_cast<double>(progress.events - m_lastLineEvents) / (now - m_lastLine);
        m_lastLine = now;
        m_lastLineEvents = progress.events;
        m_wallHook(progress);
    }
    Time step = m_probeStep;
    if (m_progress && m_progressInterval.IsStrictlyPositive())
    {
        // This chain also prints the simulated-time progress: two chains that each go on
        // while anything else is scheduled would keep each other alive for ever.
        const Time simulated = Simulator::Now();
        if (simulated >= m_nextProgress)
        {
            m_progress(simulated);
            m_nextProgress = m_progressInterval * (simulated / m_progressInterval).GetHigh() +
                             m_progressInterval;
        }
        step = std::min(step, m_nextProgress - simulated);
    }
    // Only while something else is scheduled (as Progress).
    if (!Simulator::IsFinished())
    {
        Simulator::Schedule(step, &ClusterScenario::WallProbe, this);
    }
}

void
ClusterScenario::CheckOneDistributedSimulation()
{
    // ns-3 3.37's MPI interfaces free their receive buffers when a simulation ends
    // (GrantedTimeWindowMpiInterface::Destroy) and never make them again: a second
    // simulation in the same process would crash in its first receive.
    static bool ran = false;
    if (!MpiContext::IsEnabled())
    {
        return;
    }
    if (ran)
    {
        throw std::invalid_argument(
            "a second simulation in a distributed (MPI) run: ns-3's MPI interface runs one "
            "simulation per process (run each in its own mpirun)");
    }
    ran = true;
}

ChakraReport
ClusterScenario::Run(const std::string& tracePrefix)
{
    auto start = std::chrono::steady_clock::now();
    CheckOneDistributedSimulation();

    const DestroyOnExit destroyOnExit;

    CheckRankCount(tracePrefix);
    BuildCluster();
    // The cluster's nodes give each rank its transport, address and host (ChakraHelper).
    ChakraHelper chakra(tracePrefix);
    InstallApplications(chakra);
    Simulate(chakra.GetApplications());
    // A distributed (MPI) run: every process's events count, and process 0 gets every rank's
    // results (GatherReport) and timeline events (ChakraHelper::GetReport closes it).
    m_events = MpiContext::Sum(Simulator::GetEventCount());
    ChakraReport report = GatherReport(chakra.GetReport());
    report.SetTransportModel(m_cluster->GetTransportModel(), m_cluster->GetTransportChoice());
    for (auto& table : m_cluster->GetFabric()->GetReportTables())
    {
        report.AddTable(std::move(table));
    }
    Simulator::Destroy();
    m_wallSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return report;
}

void
ClusterScenario::Simulate(const std::vector<Ptr<ChakraApplication>>& apps)
{
    if (m_beforeRun)
    {
        m_beforeRun(apps);
    }
    if (!m_stop.IsZero())
    {
        Simulator::Stop(m_stop);
    }
    ScheduleProgress(apps);
    Simulator::Run();
}

void
ClusterScenario::AddJob(ClusterJob job)
{
    const std::string label =
        "job " + (job.name.empty() ? std::to_string(m_jobs.size() + 1) : job.name);
    if (job.tracePrefix.empty())
    {
        throw std::invalid_argument(label + ": no traces' prefix");
    }
    if (job.start.IsStrictlyNegative())
    {
        throw std::invalid_argument(label + ": start " + std::to_string(job.start.GetSeconds()) +
                                    " s is before the simulation's");
    }
    job.name = job.name.empty() ? std::to_string(m_jobs.size() + 1) : job.name;
    for (const ClusterJob& other : m_jobs)
    {
        if (other.name == job.name)
        {
            throw std::invalid_argument(label + ": another job has this name");
        }
    }
    for (auto& [name, value] : job.appAttributes)
    {
        try
        {
            value = CheckAttributeValue(ChakraApplication::GetTypeId(), name, *value);
        }
        catch (const std::invalid_argument& e)
        {
            throw std::invalid_argument(label + ": " + e.what());
        }
    }
    m_jobs.push_back(std::move(job));
}

void
ClusterScenario::SetPlacement(JobPlacementPolicy policy, uint32_t seed)
{
    m_placement = policy;
    m_placementSeed = seed;
}

std::vector<JobRequest>
ClusterScenario::GetJobRequests() const
{
    std::vector<JobRequest> requests;
    for (const ClusterJob& job : m_jobs)
    {
        requests.push_back({job.name, CountTraceRanks(job.tracePrefix), job.hosts});
        if (requests.back().ranks == 0)
        {
            throw TraceError(job.tracePrefix + ".0.et",
                             "",
                             "job " + job.name + ": no traces " + job.tracePrefix + ".<rank>.et");
        }
    }
    return requests;
}

std::vector<std::vector<uint32_t>>
ClusterScenario::GetPlacement() const
{
    // The graph alone (no nodes, no fabric): cheap beside the run it checks.
    const auto graph = m_cluster->CreateTopologyBuilder()->Build(m_cluster->GetTopologySpec());
    return PlaceJobs(GetJobRequests(), ClusterHosts::Of(*graph), m_placement, m_placementSeed);
}

MultiJobReport
ClusterScenario::RunJobs()
{
    auto start = std::chrono::steady_clock::now();
    CheckOneDistributedSimulation();

    const DestroyOnExit destroyOnExit;

    if (m_jobs.empty())
    {
        throw std::invalid_argument("ClusterScenario::RunJobs: no jobs (AddJob)");
    }
    // Every job's size is known, and checked, before the cluster is built.
    const std::vector<JobRequest> requests = GetJobRequests();
    BuildCluster();
    const ClusterHosts hosts = ClusterHosts::Of(*m_cluster->GetTopology());
    const std::vector<std::vector<uint32_t>> placement =
        PlaceJobs(requests, hosts, m_placement, m_placementSeed);

    StringValue dot;
    m_cluster->GetAttribute("TopologyDot", dot);
    if (!dot.Get().empty())
    {
        // The picture Build wrote, again with each job's GPUs in its colour.
        std::vector<std::string> gpuJob(m_cluster->GetRankCount());
        for (std::size_t j = 0; j < m_jobs.size(); ++j)
        {
            for (uint32_t gpu : placement[j])
            {
                gpuJob[gpu] = m_jobs[j].name;
            }
        }
        WriteTopologyDot(*m_cluster->GetTopology(), dot.Get(), gpuJob);
    }
    const NodeContainer gpuNodes = m_cluster->GetRankNodes();
    const std::vector<Ipv4Address> addresses = m_cluster->GetRankAddresses();
    const std::vector<uint32_t> hostOf = m_cluster->GetHostOf();
    Ptr<GpuClusterHelper> cluster = m_cluster;
    // One timeline for all jobs: each rank under its GPU, on the simulation's clock.
    std::shared_ptr<TimelineWriter> timeline;
    if (!m_timeline.empty())
    {
        timeline = std::make_shared<TimelineWriter>(m_timeline);
        std::vector<uint32_t> processOfGpu;
        for (uint32_t gpu = 0; gpu < gpuNodes.GetN(); ++gpu)
        {
            processOfGpu.push_back(gpuNodes.Get(gpu)->GetSystemId());
        }
        timeline->SetRankProcesses(std::move(processOfGpu));
    }
    std::vector<std::unique_ptr<ChakraHelper>> helpers;
    std::vector<Ptr<ChakraApplication>> apps;
    for (std::size_t j = 0; j < m_jobs.size(); ++j)
    {
        const ClusterJob& job = m_jobs[j];
        auto gpus = std::make_shared<const std::vector<uint32_t>>(placement[j]);
        NodeContainer nodes;
        std::vector<Ipv4Address> jobAddresses;
        std::vector<uint32_t> jobHostOf;
        for (uint32_t gpu : *gpus)
        {
            nodes.Add(gpuNodes.Get(gpu));
            jobAddresses.push_back(addresses.at(gpu));
            jobHostOf.push_back(hostOf.at(gpu));
        }
        auto chakra = std::make_unique<ChakraHelper>(job.tracePrefix);
        for (const auto& [name, value] : m_appAttributes)
        {
            chakra->SetAttribute(name, *value);
        }
        for (const auto& [name, value] : job.appAttributes)
        {
            chakra->SetAttribute(name, *value);
        }
        if (timeline)
        {
            chakra->ShareTimeline(timeline, *gpus, job.name);
        }
        chakra->SetRankAddresses(std::move(jobAddresses));
        chakra->SetHostOf(std::move(jobHostOf));
        // The fabric knows the GPUs by their own numbers; the job's ranks are its own.
        chakra->SetTransportFactory([cluster, gpus](uint32_t rank) {
            Ptr<CommTransport> transport = cluster->CreateTransport(gpus->at(rank));
            transport->SetFabricRanks(gpus);
            return transport;
        });
        chakra->Install(nodes).Start(job.start);
        const auto& installed = chakra->GetApplications();
        if (job.beforeRun)
        {
            job.beforeRun(installed);
        }
        apps.insert(apps.end(), installed.begin(), installed.end());
        helpers.push_back(std::move(chakra));
    }
    std::vector<ClusterFabric::JobGpus> jobGpus;
    for (std::size_t j = 0; j < m_jobs.size(); ++j)
    {
        jobGpus.emplace_back(m_jobs[j].name, placement[j]);
    }
    m_cluster->GetFabric()->SetJobs(jobGpus);
    Simulate(apps);
    // A distributed (MPI) run partitions the cluster as for one job: each process ran the
    // ranks of every job on its nodes; each job's report is gathered on process 0 in turn.
    m_events = MpiContext::Sum(Simulator::GetEventCount());

    MultiJobReport report;
    report.SetTransportModel(m_cluster->GetTransportModel(), m_cluster->GetTransportChoice());
    for (std::size_t j = 0; j < m_jobs.size(); ++j)
    {
        MultiJobReport::Job part;
        part.name = m_jobs[j].name;
        part.tracePrefix = m_jobs[j].tracePrefix;
        part.start = m_jobs[j].start;
        part.gpus = placement[j];
        for (uint32_t gpu : placement[j])
        {
            if (part.hosts.empty() || part.hosts.back() != hostOf[gpu])
            {
                part.hosts.push_back(hostOf[gpu]);
            }
        }
        part.report = GatherReport(helpers[j]->GetReport());
        part.report.SetTransportModel(m_cluster->GetTransportModel(),
                                      m_cluster->GetTransportChoice());
        report.AddJob(std::move(part));
    }
    if (timeline)
    {
        // Kept only if every rank of every job (on every process) finished: a failed run's
        // timeline would be read as the run's.
        if (FinishedEverywhere(report))
        {
            timeline->Close();
        }
        else
        {
            timeline->Discard();
        }
    }
    for (auto& table : m_cluster->GetFabric()->GetJobTables(jobGpus))
    {
        report.AddFabricTable(std::move(table));
    }
    for (auto& table : m_cluster->GetFabric()->GetReportTables())
    {
        report.AddFabricTable(std::move(table));
    }
    Simulator::Destroy();
    m_wallSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return report;
}

void
ClusterScenario::CheckRankCount(const std::string& tracePrefix) const
{
    // One rank per GPU: a cluster of another size than the job is a configuration error that
    // says what to change (not a missing trace of a rank the job never had).
    const uint32_t traceRanks = CountTraceRanks(tracePrefix);
    const uint32_t gpus = m_cluster->GetRankCount();
    if (traceRanks != gpus)
    {
        throw std::invalid_argument(
            "ClusterScenario: the traces " + tracePrefix + ".<rank>.et are " +
            std::to_string(traceRanks) + " rank(s) but the cluster has " + std::to_string(gpus) +
            " GPUs (" + m_cluster->Describe() +
            "): one GPU per rank, so set the cluster's Hosts "
            "x GpusPerHost to " +
            std::to_string(traceRanks) + " (e.g. Hosts " +
            std::to_string(traceRanks % 8 == 0 && traceRanks > 0 ? traceRanks / 8 : 1) +
            ", GpusPerHost " +
            std::to_string(traceRanks % 8 == 0 && traceRanks > 0 ? 8 : traceRanks) + ")");
    }
}

namespace
{

/** \return the TypeId name of the event list a cluster run takes. */
std::string
ChooseEventList()
{
    // ns-3's default list (MapScheduler) keeps cancelled events until their time: TCP re-arms
    // a 200 ms timer per ACK, so memory grew with the bytes moved (see PurgingScheduler). A
    // run takes PurgingRadixScheduler unless --SchedulerType names another list.
    TypeIdValue chosen;
    GlobalValue::GetValueByName("SchedulerType", chosen);
    if (chosen.Get() == TypeId::LookupByName("ns3::MapScheduler"))
    {
        return "ns3::PurgingRadixScheduler";
    }
    return chosen.Get().GetName();
}

} // namespace

void
SetDefaultUnlessGiven(const std::string& typeName,
                      const std::string& attribute,
                      const AttributeValue& value)
{
    // What this function last set, per attribute: a later scenario in the same process (a
    // sweep, a test) takes its own cluster's value, not the first one's.
    static std::map<std::string, std::string> setHere;
    const TypeId tid = TypeId::LookupByName(typeName);
    TypeId::AttributeInformation info;
    if (!tid.LookupAttributeByName(attribute, &info))
    {
        return;
    }
    const std::string name = typeName + "::" + attribute;
    const std::string current = info.initialValue->SerializeToString(info.checker);
    const auto previous = setHere.find(name);
    if (current == info.originalInitialValue->SerializeToString(info.checker) ||
        (previous != setHere.end() && previous->second == current))
    {
        Config::SetDefault(name, value);
        setHere[name] = value.SerializeToString(info.checker);
    }
}

void
SetNcclDefaultsFromCluster(const GpuClusterHelper& cluster)
{
    // NCCL's tuning model (--algorithm=nccl) chooses by the machine's links: it takes the
    // cluster's, not its own defaults (H100 with 400 Gb/s NICs), unless the user set them.
    const TopologySpec spec = cluster.GetTopologySpec();
    SetDefaultUnlessGiven("ns3::NcclCollective", "NicBandwidth", DataRateValue(spec.nicBandwidth));
    SetDefaultUnlessGiven("ns3::NcclCollective",
                          "NvLinkBandwidth",
                          DataRateValue(spec.nvLinkBandwidth));
    SetDefaultUnlessGiven("ns3::NcclCollective",
                          "Nvls",
                          EnumValue(static_cast<int>(cluster.GetNvlsSupport())));
    SetDefaultUnlessGiven("ns3::NcclCollective",
                          "Sharp",
                          EnumValue(static_cast<int>(cluster.GetSharpSupport())));
}

void
ClusterScenario::BuildCluster()
{
    try
    {
        Simulator::SetScheduler(ObjectFactory(ChooseEventList()));
        m_cluster->Build();
        SetNcclDefaultsFromCluster(*m_cluster);
    }
    catch (...)
    {
        Simulator::Destroy();
        throw;
    }
}

void
ClusterScenario::InstallApplications(ChakraHelper& chakra)
{
    for (const auto& [name, value] : m_appAttributes)
    {
        chakra.SetAttribute(name, *value);
    }
    if (!m_timeline.empty())
    {
        chakra.EnableTimeline(m_timeline);
    }
    try
    {
        chakra.Install(m_cluster->GetRankNodes());
    }
    catch (...)
    {
        Simulator::Destroy();
        throw;
    }
}

void
ClusterScenario::ScheduleProgress(const std::vector<Ptr<ChakraApplication>>& apps)
{
    // No progress events when MPI is enabled (launched by mpirun, even with one process): they
    // reschedule themselves while !Simulator::IsFinished(), which under ns-3's
    // DistributedSimulatorImpl is the processes' joint verdict, false while this process runs
    // an event: they would run forever.
    const bool probes = !MpiContext::IsEnabled();
    const bool wallProbes = probes && m_wallHook && m_wallInterval > 0;
    m_nextProgress = m_progressInterval;
    if (probes && !wallProbes && m_progress && m_progressInterval.IsStrictlyPositive())
    {
        // (With wall-clock progress, WallProbe prints these lines too.)
        Simulator::Schedule(m_progressInterval, &ClusterScenario::Progress, this);
    }
    m_nodesDone = 0;
    m_nodesTotal = 0;
    if (!wallProbes)
    {
        return;
    }
    CountNodes(apps);
    m_runStart = SteadySeconds();
    m_lastProbe = m_runStart;
    m_lastLine = m_runStart;
    m_lastLineEvents = Simulator::GetEventCount();
    m_probeStep = MicroSeconds(1);
    Simulator::Schedule(m_probeStep, &ClusterScenario::WallProbe, this);
}

void
ClusterScenario::CountNodes(const std::vector<Ptr<ChakraApplication>>& apps)
{
    bool countable = true;
    std::map<std::string, uint64_t> counted; // ranks that share a trace (roles) read it once
    for (const Ptr<ChakraApplication>& app : apps)
    {
        // The total of "done/total": one reading of each trace before the run (the
        // feeder reads it again as it goes; a small cost beside simulating the nodes).
        // A trace that cannot be read fails its rank in the run, with the report's
        // error: here it only leaves the total out.
        StringValue path;
        app->GetAttribute("TracePath", path);
        try
        {
            auto known = counted.find(path.Get());
            if (known != counted.end())
            {
                m_nodesTotal += known->second;
            }
            else
            {
                EtReader reader(path.Get());
                ChakraProtoMsg::Node node;
                uint64_t nodes = 0;
                while (countable && reader.ReadNode(node))
                {
                    ++nodes;
                }
                counted[path.Get()] = nodes;
                m_nodesTotal += nodes;
            }
        }
        catch (const std::exception&)
        {
            countable = false;
        }
        app->TraceConnectWithoutContext(
            "NodeFinished",
            Callback<void, uint32_t, std::shared_ptr<const EtNode>, Time, Time>(
                [this](uint32_t, std::shared_ptr<const EtNode>, Time, Time) { ++m_nodesDone; }));
    }
    m_nodesTotal = countable ? m_nodesTotal : 0;
}

uint64_t
ClusterScenario::GetEventCount() const
{
    return m_events;
}

double
ClusterScenario::GetWallSeconds() const
{
    return m_wallSeconds;
}

uint32_t
CountTraceRanks(const std::string& prefix)
{
    if (HasRankRoles(prefix))
    {
        // Traces per role: the manifest gives the job's size. A set of per-rank traces at the
        // same prefix would make the job ambiguous.
        const RankRoles roles = ReadRankRoles(RankRolesPath(prefix));
        if (!FindRankTraces(prefix).empty())
        {
            throw TraceError(roles.path,
                             "",
                             "traces per rank " + prefix +
                                 ".<rank>.et are beside this manifest "
                                 "of traces per role: remove one of the two sets");
        }
        return roles.ranks;
    }
    // Not "while rank r exists": t.0.et, t.2.et and t.5.et are a broken job, not a 1-rank one.
    return static_cast<uint32_t>(FindRankTraces(prefix).size());
}

} // namespace ns3
