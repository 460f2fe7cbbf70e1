/*
 * NcclCollective (issue 27, third slice): the schedule NCCL runs for all-reduce, all-gather,
 * reduce-scatter, broadcast and reduce: NCCL's tuning model (nccl-tuning.h) picks the algorithm
 * and protocol for the call's size, then the bytes are split over channels, each channel a
 * ring over the hosts (a chain of a host's GPUs, one network hop per host on the channel's
 * rail), pipelined in NCCL's chunks and slices, with the protocol's bytes on the wire. See
 * doc/collectives.md, "The NCCL model (--algorithm=nccl)".
 */
#ifndef CHAKRA_NCCL_COLLECTIVE_H
#define CHAKRA_NCCL_COLLECTIVE_H

#include "collective-algorithm.h"
#include "nccl-tuning.h"
#include "pat-schedule.h"

#include "ns3/data-rate.h"

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <utility>

namespace ns3
{

/** What NcclCollective runs for one call (the same on every rank of the call). */
struct NcclPlan
{
    NcclFunction function{NcclFunction::ALL_REDUCE};
    NcclChoice choice;                      //!< the tuning model's pair and its predicted time (us)
    NcclAlgorithm ran{NcclAlgorithm::RING}; //!< the schedule's algorithm (the choice's)
    uint64_t nbytes{0};                     //!< the function's bytes as NCCL counts them
    uint32_t nodes{1};                      //!< hosts of the communicator
    uint32_t gpusPerNode{1};
    uint32_t channels{1};   //!< channels used: the attribute, fewer for small sizes (NCCL's rule)
    uint64_t chunkBytes{0}; //!< payload of one chunk (per ring segment and loop)
    uint32_t slicesPerChunk{1};
    /** NVLink hops carry wire bytes / this (NCCL's share of the NVLink line rate). */
    double nvLinkEfficiency{1};
    /** What each send waits before it leaves (all 0 when StepLatency is off). */
    NcclStepLatencies latency;
    double wireFactor{1}; //!< NVLS: wire bytes per payload byte (1 / NCCL's NVLS efficiency)
    /** Payload GB/s a rank's stream to one peer on one channel may carry (the protocol's and
     *  algorithm's GPU-side caps, NcclTuningModel::StreamCeiling); 0: the links alone. */
    double streamCeiling{0};
};

/**
 * \ingroup chakra-collective
 * \brief NCCL's collectives: channels of rings over hosts with NCCL's chunks, slices and
 *        protocols, the algorithm and protocol chosen by NCCL's tuning model.
 *
 * Ring of channel c on H hosts of g GPUs (members grouped by the request's hostOf, each host's
 * members in communicator order as local GPUs 0 .. g-1): rail r = c mod g; inside each host a
 * chain r, r+1, ..., r-1 (mod g); host h's chain hands its data to host h+1's GPU r. The last
 * GPU of a chain (r-1) writes it over NVLink to its own host's GPU r, which sends it on its NIC
 * (rail r) to host h+1's GPU r: the relay NCCL's proxy does through an intermediate GPU (PXN),
 * modelled as a message (one NVLink hop, store and forward per slice). One host: a plain ring
 * over its GPUs; one GPU per host: a ring over the hosts.
 *
 * Per channel, the channel's bytes are cut in loops of (ranks x chunk) and each chunk in NCCL's
 * slices; each slice is a pipeline unit of the ring (RingSchedule chunks). Messages carry the
 * protocol's wire bytes: LL 16 per 8 of payload, LL128 128 per 120, Simple the payload; a
 * message between GPUs of one host (NVLink) carries them over NCCL's NVLink efficiency
 * (NvLinkEfficiency), since NCCL moves data at its per-link figure, not the line rate.
 *
 * Each send leaves NCCL's per-step latency of the pair after it is ready (StepLatency: the
 * tuning model's hwLatencies, intra-node or network by the peer's host; the hand-over of a
 * host's last GPU to its relay is the first half of the network step and pays nothing), and
 * the first sends of a call also NCCL's base latency: in a pipeline of slices these overlap,
 * and a call pays about base + steps x per-step latency, NCCL's formula.
 *
 * The protocols' GPU-side limits (ProtocolCeiling): a rank's stream to one peer on one channel
 * takes its payload at most at NcclTuningModel::StreamCeiling (Ring LL: llMax over the
 * channels; LL128: NCCL's per-channel cap; Tree: its per-channel caps, half each for the up
 * and down streams), by pacing the sends' starts; the links limit the rest.
 *
 * Broadcast and reduce: a chain along each channel's ring from (to) the root, one NCCL chunk
 * per message.
 *
 * Tree (all-reduce, when the tuning model picks it or NCCL_ALGO says so): NCCL's double binary
 * tree over hosts (src/graph/trees.cc: tree 0 a binary tree rooted at host 0, tree 1 its mirror
 * for an even host count, else shifted by one), the first half of the channels on tree 0, the
 * rest on tree 1; in each host a chain of its GPUs under the GPU on the channel's rail, which
 * carries all the host's network traffic; per chunk (one NCCL step) reduce up, then broadcast
 * down; chunks pipelined.
 *
 * CollNet (all-reduce across hosts whose network switches reduce: the Sharp attribute):
 * CollNetDirect (every GPU heads a share on its own NIC) or CollNetChain (a chain of the host's
 * GPUs per channel), collnet-schedule.h, with NCCL's CollNet latencies per step.
 *
 * NVLS (one host whose NVSwitch reduces: the Nvls attribute, Hopper or later):
 * NvlsSchedule (nvls-schedule.h), an emulation of NVLS's link loads, the first sends delayed by
 * NCCL's NVLS latency (25 us).
 */
class NcclCollective : public CollectiveAlgorithm
{
  public:
    /** \return the TypeId */
    static TypeId GetTypeId();
    NcclCollective();
    ~NcclCollective() override;

    bool Supports(const CollectiveRequest& request) const override;

    /**
     * \param request the call (two ranks or more; hosts of equal GPU counts)
     * \return what the call runs
     * \throws std::invalid_argument when NcclAlgo / NcclProto leave nothing for the function,
     *         or the hosts are uneven
     */
    NcclPlan Plan(const CollectiveRequest& request) const;

    /**
     * Checks a value of the NcclAlgo or NcclProto attribute as NCCL reads NCCL_ALGO /
     * NCCL_PROTO (ParseNcclList, every function).
     * \param attribute "NcclAlgo" or "NcclProto"
     * \param value the text
     * \throws std::invalid_argument naming ns3::NcclCollective::<attribute> and the reason
     */
    static void CheckSetting(const std::string& attribute, const std::string& value);

    /** \return the bytes on the wire for \p payload bytes in \p protocol */
    static uint64_t WireBytes(NcclProtocol protocol, uint64_t payload);

    /**
     * \param protocol the protocol
     * \param pipeline broadcast and reduce (chunk = one NCCL step), else the ring patterns of
     *        all-reduce, all-gather, reduce-scatter (Simple: 4 steps per chunk)
     * \return the payload of one chunk: NCCL's buffer / NCCL_STEPS x chunk steps, LL half of
     *         it, LL128 120 of 128 bytes
     */
    static uint64_t ChunkBytes(NcclProtocol protocol, bool pipeline);

    /** \return slices per chunk: 2 for Simple rings (chunk steps 4 / slice steps 2), else 1 */
    static uint32_t SlicesPerChunk(NcclProtocol protocol, bool pipeline);

    /**
     * NCCL's NVLink bandwidth per link (src/graph/topo.h: SM70 20.0, SM80 20.0, SM90 20.6,
     * SM100 40.1 GB/s) over the line rate per link (NVLink 2, 3, 4: 25 GB/s a direction;
     * NVLink 5: 50 GB/s).
     * \return 0.8 (Volta, Ampere), 0.824 (Hopper), 0.802 (Blackwell)
     */
    static double NvLinkEfficiencyOf(NcclGpuGeneration generation);

    /** \return the NVLink efficiency in use: the attribute, or the generation's when it is 0 */
    double GetNvLinkEfficiency() const;

    /**
     * \param nodes the communicator's hosts
     * \param gpus its GPUs per host
     * \return the machine as this model's tuning sees it (from the attributes): what
     *         chakra_nccl_tests prints NCCL's choice from, so that it is the simulated one
     * \throws std::invalid_argument for Nvls on with GPUs before Hopper (NvlsAvailable)
     */
    NcclTuningConfig GetTuningConfig(uint32_t nodes, uint32_t gpus) const;

  protected:
    std::unique_ptr<CollectiveSchedule> DoBuild(const CollectiveRequest& request) const override;

  private:
    /** \return PAT's plan for \p kind and \p shape (made once, shared by the ranks) */
    std::shared_ptr<const PatPlan> PatPlanFor(PatKind kind, const PatShape& shape) const;
    /** \return the tuning model for \p nodes x \p gpus (made once per shape) */
    const NcclTuningModel& Tuning(uint32_t nodes, uint32_t gpus) const;
    void SetAlgo(std::string value);
    std::string GetAlgo() const;
    void SetProto(std::string value);
    std::string GetProto() const;

    uint32_t m_channels;
    int m_generation;          //!< an NcclGpuGeneration (EnumValue holds an int)
    double m_nvLinkEfficiency; //!< 0: the generation's
    bool m_stepLatency;
    bool m_protocolCeiling;
    int m_nvls;  //!< an NvlsSupport
    int m_sharp; //!< a SharpSupport: the network's switches reduce (CollNet)
    std::string m_algo;
    std::string m_proto;
    DataRate m_nvLinkBandwidth;
    DataRate m_nicBandwidth;

    /** By (nodes, GPUs per node); rebuilt when an attribute it depends on has changed (the
     *  NcclAlgo / NcclProto setters clear it, Tuning compares the rest). */
    /** A tuning model, and the Nvls setting it was built with (its config holds the rest). */
    struct TuningSlot
    {
        int nvls{0};
        std::unique_ptr<NcclTuningModel> model;
    };

    mutable std::map<std::pair<uint32_t, uint32_t>, TuningSlot> m_tuning;
    /** PAT's plans by (kind, ranks, aggFactor, postFreq): what a shape's ranks share. */
    mutable std::map<std::tuple<int, uint32_t, uint32_t, uint32_t>, std::shared_ptr<const PatPlan>>
        m_patPlans;
};

} // namespace ns3

#endif // CHAKRA_NCCL_COLLECTIVE_H
