/*
 * ClusterFabric: what a transport family builds on a ClusterTopology (devices, stacks, routes)
 * and how a rank's transport is wired to it. One per family: IpFabric (tcp), and the RDMA and
 * flow models' own.
 */
#ifndef CHAKRA_CLUSTER_FABRIC_H
#define CHAKRA_CLUSTER_FABRIC_H

#include "ns3/chakra-report.h"
#include "ns3/cluster-topology.h"
#include "ns3/comm-transport.h"
#include "ns3/ipv4-address.h"
#include "ns3/node-container.h"
#include "ns3/object.h"

#include <memory>
#include <ostream>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup chakra-fabric
 * \brief The network a transport model runs on, built on a ClusterTopology.
 *
 * GpuClusterHelper creates one ns-3 node per topology node (node i is topology node i, so rank
 * r is node r), then the fabric of its Transport: Install builds the devices and routes;
 * CreateTransport gives each rank's ChakraApplication a transport wired to them.
 */
class ClusterFabric : public Object
{
  public:
    /** \return the TypeId */
    static TypeId GetTypeId();

    /**
     * \param model a transport model ("tcp", ...)
     * \return the fabric it runs on
     * \throws std::invalid_argument for an unknown model
     */
    static Ptr<ClusterFabric> ForTransport(const std::string& model);

    /**
     * Builds the network.
     * \param topology the graph (kept)
     * \param nodes one ns-3 node per topology node
     */
    virtual void Install(std::shared_ptr<const ClusterTopology> topology,
                         const NodeContainer& nodes) = 0;

    /** \return rank \p rank's transport, wired to this fabric (call after Install) */
    virtual Ptr<CommTransport> CreateTransport(uint32_t rank) = 0;

    /** \return each rank's address (what ChakraApplication::Configure gets as peers) */
    virtual std::vector<Ipv4Address> GetRankAddresses() const = 0;

    /**
     * \return what the fabric saw during the run (queues, pauses, ECN marks, drops ...), as
     *         report tables; none by default. Called after Simulator::Run, before Destroy.
     */
    virtual std::vector<ReportTable> GetReportTables() const;

    /** A job's name and its GPUs (the fabric's ranks), for GetJobTables. */
    using JobGpus = std::pair<std::string, std::vector<uint32_t>>;
    /**
     * \return the fabric's counters split by job, for several jobs on one cluster: what the
     *         ports of each job's GPUs' links saw (both ends), and what the links between
     *         switches, which the jobs share, saw; none by default. Called as GetReportTables.
     */
    virtual std::vector<ReportTable> GetJobTables(const std::vector<JobGpus>& jobs) const;
    /**
     * Says which GPUs each job runs on, before the run, for a fabric that counts by job
     * as it goes (rdma's switches); nothing by default.
     */
    virtual void SetJobs(const std::vector<JobGpus>& jobs);
};

} // namespace ns3

#endif // CHAKRA_CLUSTER_FABRIC_H
