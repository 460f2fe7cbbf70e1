/*
 * RdmaFabric: the fabric of the "rdma" transport model: RdmaNetDevices on every link, an
 * RdmaSwitch on every switch (and on GPUs that forward), an RdmaNic on every GPU.
 */
#ifndef CHAKRA_RDMA_FABRIC_H
#define CHAKRA_RDMA_FABRIC_H

#include "cluster-fabric.h"

#include "ns3/rdma-net-device.h"
#include "ns3/rdma-nic.h"
#include "ns3/rdma-switch.h"

#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup chakra-fabric
 * \brief The RDMA network on a ClusterTopology.
 *
 * - every link is a pair of RdmaNetDevices (the link's rate and MTU) on an RdmaChannel (its
 *   delay); devices are added to each node in the topology's port order;
 * - every GPU node gets an RdmaNic (queue pairs, DCQCN); in direct-connect topologies (GPUs
 *   forward) also an RdmaSwitch for the traffic it relays;
 * - every NVSwitch and fabric switch gets an RdmaSwitch (shared buffer, PFC, ECN); NVLink
 *   ports do not mark ECN unless ScaleUpEcn (NVLink has its own link-level flow control: PFC
 *   stands for it, and DCQCN reacts to the scale-out fabric only);
 * - rank r's address is RoceV2Header::AddressOfRank(r); no IPv4 stack is installed (the
 *   switches forward by the topology's routes).
 * Switch, NIC and congestion-control parameters are their own attributes
 * (ns3::RdmaSwitch::*, ns3::RdmaNic::*, ns3::DcqcnRateControl::*): set them with
 * Config::SetDefault or --ns3::RdmaSwitch::PfcEnabled=false on the command line.
 *
 * Report: a "fabric" table (one row per port, busiest and most troubled first, after a total
 * row: bytes, busy time, PFC frames sent and received, time paused, ECN marks, drops, largest
 * queue and ingress occupancy) and an "rdma" table (one row per GPU: queue pairs, packets,
 * resent packets, NAKs, timeouts, CNPs).
 */
class RdmaFabric : public ClusterFabric
{
  public:
    /** \return the TypeId */
    static TypeId GetTypeId();
    RdmaFabric();

    void Install(std::shared_ptr<const ClusterTopology> topology,
                 const NodeContainer& nodes) override;
    Ptr<CommTransport> CreateTransport(uint32_t rank) override;
    std::vector<Ipv4Address> GetRankAddresses() const override;
    std::vector<ReportTable> GetReportTables() const override;
    /**
     * \return the "fabric-jobs" table: per job, the counters of its GPUs' NIC links' ports
     *         (both ends) and the data bytes its packets put on links between switches
     *         (switch_links_MB, counted by the switches: SetJobs); "(shared)": the switch
     *         links' counters, with every job's bytes
     */
    std::vector<ReportTable> GetJobTables(const std::vector<JobGpus>& jobs) const override;
    /** Makes every switch count the bytes it forwards by their source GPU's job. */
    void SetJobs(const std::vector<JobGpus>& jobs) override;

    /** \return every port, link by link (2 per link: the a end, then the b end) */
    const std::vector<Ptr<RdmaNetDevice>>& GetDevices() const;
    /** \return the switch of topology node \p node, or null */
    Ptr<RdmaSwitch> GetSwitch(uint32_t node) const;
    /** \return the NIC of rank \p rank */
    Ptr<RdmaNic> GetNic(uint32_t rank) const;

  protected:
    void DoDispose() override;

  private:
    /** \return each GPU's index in \p jobs (jobs.size() for a GPU no job runs on) */
    std::vector<uint32_t> JobOfGpu(const std::vector<JobGpus>& jobs) const;

    bool m_scaleUpEcn;
    std::shared_ptr<const ClusterTopology> m_topology;
    std::vector<Ptr<RdmaNetDevice>> m_devices;
    std::vector<Ptr<RdmaSwitch>> m_switches; //!< per node (null where none)
    std::vector<Ptr<RdmaNic>> m_nics;        //!< per rank
};

} // namespace ns3

#endif // CHAKRA_RDMA_FABRIC_H
