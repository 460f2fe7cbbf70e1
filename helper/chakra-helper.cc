#include "chakra-helper.h"

#include "ns3/attribute-text.h"
#include "ns3/boolean.h"
#include "ns3/gpu-cluster-helper.h"
#include "ns3/inet-socket-address.h"
#include "ns3/ipv4.h"
#include "ns3/mpi-context.h"
#include "ns3/string.h"
#include "ns3/timeline-writer.h"
#include "ns3/trace-error.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <sstream>
#include <sys/stat.h>

namespace ns3
{

namespace
{

bool
Exists(const std::string& path)
{
    struct stat info;
    return stat(path.c_str(), &info) == 0;
}

Ipv4Address
FirstAddress(Ptr<Node> node)
{
    Ptr<Ipv4> ipv4 = node->GetObject<Ipv4>();
    if (!ipv4)
    {
        return Ipv4Address();
    }
    for (uint32_t i = 0; i < ipv4->GetNInterfaces(); ++i)
    {
        for (uint32_t j = 0; j < ipv4->GetNAddresses(i); ++j)
        {
            Ipv4Address address = ipv4->GetAddress(i, j).GetLocal();
            if (address != Ipv4Address::GetLoopback())
            {
                return address;
            }
        }
    }
    return Ipv4Address();
}

/** \return the cluster that built \p nodes as its ranks 0 .. n-1, or nullptr */
Ptr<const GpuClusterHelper>
ClusterOf(const NodeContainer& nodes)
{
    Ptr<const GpuClusterHelper> cluster;
    for (uint32_t i = 0; i < nodes.GetN(); ++i)
    {
        Ptr<GpuClusterRank> mark = nodes.Get(i)->GetObject<GpuClusterRank>();
        if (!mark || mark->GetRank() != i || (cluster && mark->GetCluster() != cluster))
        {
            return nullptr;
        }
        cluster = mark->GetCluster();
    }
    return cluster;
}

} // namespace

ChakraHelper::ChakraHelper(std::string tracePrefix)
    : m_prefix(std::move(tracePrefix))
{
    m_factory.SetTypeId(ChakraApplication::GetTypeId());
}

void
ChakraHelper::SetAttribute(const std::string& name, const AttributeValue& value)
{
    // Checked here, so that a misspelt name or value is an error that lists the valid ones
    // (ObjectFactory::Set would abort the program).
    m_factory.Set(name, *CheckAttributeValue(ChakraApplication::GetTypeId(), name, value));
}

void
ChakraHelper::SetRankAddresses(std::vector<Ipv4Address> addresses)
{
    m_addresses = std::move(addresses);
}

void
ChakraHelper::SetHostOf(std::vector<uint32_t> hostOf)
{
    m_hostOf = std::move(hostOf);
}

void
ChakraHelper::SetTransportFactory(std::function<Ptr<CommTransport>(uint32_t rank)> factory)
{
    m_transportFactory = std::move(factory);
}

void
ChakraHelper::EnableTimeline(const std::string& path)
{
    m_timeline = std::make_shared<TimelineWriter>(path);
}

void
ChakraHelper::ShareTimeline(std::shared_ptr<TimelineWriter> timeline,
                            std::vector<uint32_t> timelineRanks,
                            const std::string& jobName)
{
    m_timeline = std::move(timeline);
    m_timelineShared = true;
    m_timelineRanks = std::move(timelineRanks);
    m_jobName = jobName;
}

void
ChakraHelper::SetCommGroupFile(const std::string& path)
{
    m_commGroupFile = path;
}

std::string
ChakraHelper::GetCommGroupFile() const
{
    return m_commGroups ? m_commGroups->path : "";
}

std::string
ChakraHelper::GetTracePath(uint32_t rank) const
{
    if (m_roles && rank < m_roles->ranks)
    {
        return m_roles->TraceOf(rank);
    }
    std::string path = m_prefix + "." + std::to_string(rank) + ".et";
    if (!Exists(path) && Exists(path + ".gz"))
    {
        return path + ".gz";
    }
    return path;
}

ApplicationContainer
ChakraHelper::Install(NodeContainer nodes)
{
    const uint32_t ranks = nodes.GetN();
    m_ranks = ranks;
    m_roles.reset();
    if (HasRankRoles(m_prefix))
    {
        // Traces per role: the manifest names every role's trace (checked as it is read).
        m_roles = ReadRankRoles(RankRolesPath(m_prefix));
        if (m_roles->ranks != ranks)
        {
            throw TraceError(m_roles->path,
                             "key 'ranks'",
                             "the job has " + std::to_string(m_roles->ranks) +
                                 " ranks, but there are " + std::to_string(ranks) + " nodes");
        }
    }
    for (uint32_t rank = 0; !m_roles && rank < ranks; ++rank)
    {
        if (!Exists(GetTracePath(rank)))
        {
            throw TraceError(GetTracePath(rank),
                             "",
                             "no trace for rank " + std::to_string(rank) + " of " +
                                 std::to_string(ranks) + " (expected <prefix>.<rank>.et)");
        }
    }
    const std::string groupFile = m_commGroupFile ? *m_commGroupFile : FindCommGroupFile(m_prefix);
    m_commGroups = groupFile.empty() ? nullptr : ReadCommGroupFile(groupFile, ranks);
    // Nodes a GpuClusterHelper built know their cluster: what the script did not set (the
    // transport wired to the cluster's fabric, the ranks' addresses and hosts) comes from it.
    Ptr<const GpuClusterHelper> cluster = ClusterOf(nodes);
    if (cluster && !m_transportFactory)
    {
        m_transportFactory = [cluster](uint32_t rank) { return cluster->CreateTransport(rank); };
    }
    if (cluster && m_addresses.empty())
    {
        m_addresses = cluster->GetRankAddresses();
    }
    if (cluster && m_hostOf.empty())
    {
        m_hostOf = cluster->GetHostOf();
    }
    if (!m_addresses.empty() && m_addresses.size() != ranks)
    {
        throw std::invalid_argument("ChakraHelper: " + std::to_string(m_addresses.size()) +
                                    " rank addresses for " + std::to_string(ranks) + " nodes");
    }
    // One list of addresses and hosts for the whole job: each rank holding its own copy would
    // be O(ranks^2) memory (GBs at 8,192 ranks).
    auto peers = std::make_shared<std::vector<Address>>();
    for (uint32_t rank = 0; rank < ranks; ++rank)
    {
        Ipv4Address address =
            m_addresses.empty() ? FirstAddress(nodes.Get(rank)) : m_addresses[rank];
        peers->push_back(InetSocketAddress(address, 0));
    }
    std::vector<uint32_t> hostOf = m_hostOf;
    if (hostOf.size() != ranks)
    {
        hostOf.clear();
        for (uint32_t rank = 0; rank < ranks; ++rank)
        {
            hostOf.push_back(rank);
        }
    }
    const SharedRankList sharedHostOf = ShareRankList(std::move(hostOf));
    // A distributed (MPI) run: this process runs the ranks whose node it simulates (the node's
    // system id); the timeline gathers the others' events at the end.
    const uint32_t self = MpiContext::GetProcessId();
    const bool distributed = MpiContext::GetProcessCount() > 1;
    std::vector<uint32_t> processOfRank;
    for (uint32_t rank = 0; rank < ranks; ++rank)
    {
        processOfRank.push_back(distributed ? nodes.Get(rank)->GetSystemId() : self);
    }
    if (m_timeline && !m_timelineShared)
    {
        m_timeline->SetRankProcesses(processOfRank);
    }
    ApplicationContainer container;
    for (uint32_t rank = 0; rank < ranks; ++rank)
    {
        if (processOfRank[rank] != self)
        {
            continue;
        }
        Ptr<ChakraApplication> app = m_factory.Create<ChakraApplication>();
        app->SetAttribute("TracePath", StringValue(GetTracePath(rank)));
        if (m_roles)
        {
            app->SetAttribute("RankShift", StringValue(m_roles->ShiftOf(rank).ToText()));
            app->SetAttribute("SharedNodes", BooleanValue(true));
        }
        app->Configure(rank, peers, sharedHostOf);
        app->SetCommGroups(m_commGroups);
        if (m_transportFactory)
        {
            app->SetTransport(m_transportFactory(rank));
        }
        if (m_timelineShared)
        {
            const uint32_t shown = m_timelineRanks.at(rank);
            m_timeline->SetRankName(shown, "job " + m_jobName + " rank " + std::to_string(rank));
            app->SetTimeline(m_timeline, shown);
        }
        else
        {
            app->SetTimeline(m_timeline);
        }
        nodes.Get(rank)->AddApplication(app);
        app->SetStartTime(Seconds(0));
        m_apps.push_back(app);
        container.Add(app);
    }
    return container;
}

void
ChakraHelper::CheckJobSize(ChakraReport& report) const
{
    // This process's ranks: the highest rank named, a world_size seen, communication run.
    int64_t highest = -1;
    bool worldSize = false;
    bool communicates = false;
    if (m_commGroups)
    {
        for (const auto& [id, members] : m_commGroups->groups)
        {
            for (uint32_t r : members)
            {
                highest = std::max<int64_t>(highest, r);
            }
        }
    }
    for (const auto& app : m_apps)
    {
        highest = std::max(highest, app->GetHighestNamedRank());
        worldSize = worldSize || app->HasWorldSize();
        communicates = communicates || app->HasCommunicated();
    }
    if (MpiContext::GetProcessCount() > 1)
    {
        const auto parts =
            MpiContext::GatherToFirst(std::to_string(highest) + " " + std::to_string(worldSize) +
                                      " " + std::to_string(communicates));
        if (MpiContext::GetProcessId() != 0)
        {
            return;
        }
        for (const auto& part : parts)
        {
            std::istringstream in(part);
            int64_t otherHighest = -1;
            int otherWorldSize = 0;
            int otherCommunicates = 0;
            in >> otherHighest >> otherWorldSize >> otherCommunicates;
            highest = std::max(highest, otherHighest);
            worldSize = worldSize || otherWorldSize != 0;
            communicates = communicates || otherCommunicates != 0;
        }
    }
    // With a world_size, FindRankTraces checked the files before the run; without
    // communication, the ranks do not depend on each other.
    if (worldSize || !communicates || m_ranks == 0)
    {
        return;
    }
    const int64_t last = static_cast<int64_t>(m_ranks) - 1;
    if (highest < 0)
    {
        report.AddWarning(
            "the traces carry no world_size and name no rank (no process group members, no "
            "comm-groups file, no send or receive peer): the job is taken to have " +
            std::to_string(m_ranks) +
            " ranks, one per trace file; a missing or an extra "
            "rank's trace could not be detected");
    }
    else if (highest < last)
    {
        report.AddWarning(
            "the traces carry no world_size, and no process group, comm-groups file, send or "
            "receive names rank" +
            (last > highest + 1 ? "s " + std::to_string(highest + 1) + " .. " + std::to_string(last)
                                : " " + std::to_string(last)) +
            " (the highest rank named is " + std::to_string(highest) + " of " +
            std::to_string(m_ranks) + " trace files): traces of another job mixed in?");
    }
}

const std::vector<Ptr<ChakraApplication>>&
ChakraHelper::GetApplications() const
{
    return m_apps;
}

ChakraReport
ChakraHelper::GetReport()
{
    ChakraReport report;
    for (const auto& app : m_apps)
    {
        report.AddRank(app->GetStats(), app->ShareCommRecords());
    }
    CheckJobSize(report);
    if (m_timeline && !m_timelineShared)
    {
        // A failed run's timeline would be read as the run's: kept only if every rank of the
        // job (every process's, in a distributed run) finished without an error.
        if (MpiContext::Sum(report.AllFinished() ? 0 : 1) == 0)
        {
            m_timeline->Close();
        }
        else
        {
            m_timeline->Discard();
        }
    }
    return report;
}

} // namespace ns3
