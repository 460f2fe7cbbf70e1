/*
 * RdmaSwitch: the forwarding, shared buffer, PFC and ECN marking of one switch of the RDMA
 * fabric (a fabric switch, an NVSwitch, or a GPU that forwards in a direct-connect topology).
 */
#ifndef CHAKRA_RDMA_SWITCH_H
#define CHAKRA_RDMA_SWITCH_H

#include "rdma-net-device.h"
#include "rocev2-header.h"

#include "ns3/cluster-topology.h"
#include "ns3/event-id.h"
#include "ns3/object.h"
#include "ns3/random-variable-stream.h"

#include <deque>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

namespace ns3
{

/**
 * \ingroup chakra-transport
 * \brief An output-queued switch with a shared buffer, per-ingress PFC and RED/ECN marking.
 *
 * Forwarding: by destination rank (from the IPv4 destination, RoceV2Header::RankOfAddress)
 * along ClusterTopology's next hops; among equal-cost ports, by the Routing attribute:
 * - ecmp (default): ClusterTopology::SelectNextHop with the packet's flow hash
 *   (RoceV2Header::FlowHash of its addresses and UDP source port), so a queue pair keeps one
 *   path and the flow model can compute the same one;
 * - spray: per packet, the equal-cost ports in turn (round robin per destination), as packet
 *   spraying does (Ultra Ethernet, Spectrum-X): no collisions, but packets of a flow arrive
 *   out of order (the NICs' selective mode takes them: RdmaNic::Reordering);
 * - flowlet: a flow keeps its port while its packets come less than FlowletTimeout apart; after
 *   a longer gap it takes a random equal-cost port (LetFlow, Vanini et al., NSDI 2017);
 * - adaptive: per packet, the equal-cost port with the fewest data bytes queued (ties: in
 *   turn), as adaptive routing by output-queue depth does.
 * Ports are numbered as the topology numbers the node's ports (AddPort in link order).
 *
 * Buffer (data class; control packets have their own strict-priority queue per port and are
 * not counted): BufferSize bytes, of which a headroom per port is reserved when PFC is on, the
 * rest shared. Every buffered packet is charged to the port it arrived on (ingress accounting):
 * - a packet fits in the shared part while its ingress port holds at most the XOFF threshold:
 *   static (PfcStaticThreshold) or dynamic (PfcAlpha x the free shared buffer, the dynamic
 *   threshold of shared-memory switches); beyond it the packet goes to the port's headroom;
 * - PFC on: an ingress port that reaches its threshold sends PAUSE upstream (PauseQuanta,
 *   refreshed every half pause while it lasts) and RESUME once its headroom is empty and it
 *   holds ResumeOffset below the threshold. Headroom (0 = computed: 2 x cable delay x rate + 3
 *   largest frames + a PFC frame, what can still arrive after the decision to pause) absorbs
 *   what is in flight, so nothing is dropped;
 * - PFC off: a packet beyond the threshold, or one that does not fit, is dropped.
 * ECN: a data packet leaving a port with ECN enabled is marked CE with the RED probability of
 * the data bytes still queued for that port: 0 up to EcnKmin, rising linearly to EcnPmax at
 * EcnKmax, 1 above (DCQCN's marking). EcnKmin/EcnKmax 0: per port, EcnKminPerGbps /
 * EcnKmaxPerGbps x the port's rate.
 * In-band telemetry: a data packet that carries an RdmaFeedbackHeader (HPCC) gets one hop
 * record per port it leaves: the port's rate, the time, the bytes it has sent, its queue.
 * Counters and trace sources are on the ports (RdmaNetDevice::Stats): drops at the ingress
 * port, ECN marks, PFC frames sent, largest egress queue and ingress occupancy.
 */
class RdmaSwitch : public Object
{
  public:
    /** How a packet picks among equal-cost ports (Routing). */
    enum RoutingMode : int
    {
        ECMP,     //!< per flow, by hash
        SPRAY,    //!< per packet, in turn
        FLOWLET,  //!< per flowlet, at random
        ADAPTIVE, //!< per packet, the shortest queue
    };

    /** \return the TypeId */
    static TypeId GetTypeId();
    /**
     * \return the Routing a switch made now takes: the attribute's default as Config::SetDefault
     *         (or a --ns3::RdmaSwitch::Routing flag) left it; what the fabrics check against
     *         the congestion control and the flow model follows
     */
    static RoutingMode GetDefaultRouting();
    /** \return true for the modes that route each packet on its own (spray, adaptive) */
    static bool RoutesEachPacket(RoutingMode mode);
    RdmaSwitch();
    ~RdmaSwitch() override;

    /**
     * Sets where the switch is (before AddPort).
     * \param topology the graph routes come from (kept)
     * \param node this switch's node in it
     */
    void SetTopology(std::shared_ptr<const ClusterTopology> topology, uint32_t node);
    /**
     * Adds the next port (in the topology's port order of this node). Registers the switch as
     * a data source of the device; the caller routes the device's received frames to Receive
     * (a switch node) or to its NIC, which hands over the frames that are not its own.
     * \param device the port's device
     * \param ecn whether packets leaving by this port may be ECN-marked
     * \return the port index
     */
    uint32_t AddPort(Ptr<RdmaNetDevice> device, bool ecn = true);
    /** Enables or disables ECN marking on every port (before the run). */
    void SetEcnEnabled(bool enabled);
    /**
     * Sizes the buffer's parts (each port's headroom and ECN thresholds, the shared rest) from
     * the ports' links, once every port is added; later calls do nothing. RdmaFabric calls it
     * while it builds the network, so that a buffer too small for the headroom is refused
     * then: thrown out of the run's first event (DoInitialize), the error would leave that
     * event unreleased (ns-3 frees an event only after it returns).
     * \throws std::invalid_argument if BufferSize does not cover the ports' PFC headroom
     */
    void SizeBuffer();

    /** A frame arrived on port \p port (any class but PFC): forwards it. */
    void Receive(uint32_t port, Ptr<Packet> packet, uint8_t priority);

    /** \return the number of ports */
    uint32_t GetNPorts() const;
    /** \return port \p port's device */
    Ptr<RdmaNetDevice> GetPort(uint32_t port) const;
    /** \return the headroom reserved for port \p port (bytes; 0 with PFC off) */
    uint64_t GetHeadroom(uint32_t port) const;
    /** \return the ECN Kmin of port \p port, bytes (EcnKmin, or from the port's rate) */
    uint64_t GetEcnKmin(uint32_t port) const;
    /** \return the ECN Kmax of port \p port, bytes (EcnKmax, or from the port's rate) */
    uint64_t GetEcnKmax(uint32_t port) const;
    /** \return the current XOFF threshold of an ingress port (bytes) */
    uint64_t GetXoffThreshold() const;
    /** \return the data bytes buffered now */
    uint64_t GetBufferedBytes() const;

    /**
     * Counts the data bytes each port forwards by the job of their source GPU (several jobs
     * on one cluster: RdmaFabric's "fabric-jobs" table), before the run.
     * \param jobOfRank each GPU's job index (jobs.size() for a GPU no job runs on), shared
     * \param jobs the number of jobs
     */
    void SetRankJobs(std::shared_ptr<const std::vector<uint32_t>> jobOfRank, uint32_t jobs);
    /**
     * \return the data bytes port \p port has forwarded, by job index (SetRankJobs; the last
     *         entry: GPUs of no job); empty without SetRankJobs
     */
    const std::vector<uint64_t>& GetJobBytes(uint32_t port) const;

    /**
     * Assigns the random stream of ECN marking.
     * \return the number of streams used (1)
     */
    int64_t AssignStreams(int64_t stream);

  protected:
    void DoDispose() override;
    void DoInitialize() override;

  private:
    /** A data packet waiting for its egress port. */
    struct Entry
    {
        Ptr<Packet> packet;
        uint32_t inPort;
        uint32_t bytes;
        bool inHeadroom; //!< charged to its ingress port's headroom
        bool ect;        //!< ECN-capable
        bool telemetry;  //!< carries an in-band telemetry area (stamped on departure)
    };

    /** Per port: egress queue and ingress accounting. */
    struct Port
    {
        Ptr<RdmaNetDevice> device;
        std::deque<Entry> queue; //!< data waiting to leave by this port
        uint64_t queueBytes{0};
        uint64_t sharedBytes{0};        //!< shared buffer held for packets that came in here
        uint64_t headroomBytes{0};      //!< headroom held for them
        uint64_t headroom{0};           //!< headroom reserved
        uint64_t resumeOffset{0};       //!< hysteresis between PAUSE and RESUME
        bool xoff{false};               //!< upstream paused by this port
        bool ecn{true};                 //!< marks packets leaving by it
        uint64_t kMin{0};               //!< ECN Kmin of the port, bytes
        uint64_t kMax{0};               //!< ECN Kmax of the port, bytes
        EventId refresh;                //!< next PAUSE refresh
        std::vector<uint64_t> jobBytes; //!< data bytes forwarded, by job (SetRankJobs)
    };

    /** Route cache values (else a port index). */
    static constexpr uint32_t kNotComputed = 0xffffffff;
    static constexpr uint32_t kEcmp = 0xfffffffe;
    static constexpr uint32_t kUnreachable = 0xfffffffd;

    /** \return the egress port of a packet with headers \p header, or kUnreachable */
    uint32_t Route(const RoceV2Header& header, uint32_t& dstRank, uint32_t& srcRank);
    /** \return the port among the equal-cost ones towards \p dstRank (Routing not ecmp) */
    uint32_t RouteAmong(const RoceV2Header& header, uint32_t dstRank, uint32_t srcRank);
    /** \return a port's data packet to send, if any (the port's data source) */
    Ptr<Packet> Dequeue(uint32_t port);
    /** Frees the buffer a packet held at its ingress port; may resume the upstream. */
    void Release(const Entry& entry);
    /** Sends PAUSE from port \p port (and keeps refreshing it). */
    void Pause(uint32_t port);
    /** Re-sends PAUSE while the port is still over its threshold. */
    void RefreshPause(uint32_t port);
    /** Sends RESUME from ports whose occupancy has fallen enough. */
    void CheckResume();
    /** \return the marking probability of a queue of \p bytes */
    double MarkProbability(const Port& port, uint64_t bytes) const;

    /** A flow's port while its flowlet lasts. */
    struct Flowlet
    {
        uint32_t port{0};
        Time last;
    };

    // Attributes.
    uint64_t m_bufferSize;
    bool m_pfcEnabled;
    RoutingMode m_routing;
    Time m_flowletTimeout;

    /** How an ingress port's XOFF threshold is set (PfcThreshold). */
    enum ThresholdMode : int
    {
        DYNAMIC, //!< PfcAlpha x the free shared buffer
        STATIC,  //!< PfcStaticThreshold
    };

    ThresholdMode m_thresholdMode;
    uint64_t m_staticThreshold;
    double m_alpha;
    uint64_t m_headroomAttribute;
    uint64_t m_resumeOffsetAttribute;
    uint16_t m_pauseQuanta;
    bool m_ecnEnabled;
    uint64_t m_kMin;
    uint64_t m_kMax;
    uint64_t m_kMinPerGbps;
    uint64_t m_kMaxPerGbps;
    double m_pMax;

    std::shared_ptr<const ClusterTopology> m_topology;
    uint32_t m_node{0};
    std::vector<Port> m_ports;
    std::shared_ptr<const std::vector<uint32_t>> m_jobOfRank; //!< SetRankJobs
    std::vector<uint32_t> m_routes; //!< per destination rank: port, kEcmp or kNotComputed
    uint64_t m_sharedSize{0};       //!< buffer minus reserved headroom
    uint64_t m_sharedUsed{0};
    uint32_t m_xoffCount{0};
    bool m_sized{false};
    bool m_dynamic{true};
    Ptr<UniformRandomVariable> m_random;
    std::vector<uint32_t> m_scratch;
    std::vector<uint32_t> m_turn;                     //!< spray, adaptive: per destination
    std::unordered_map<uint64_t, Flowlet> m_flowlets; //!< flowlet: per flow hash
};

} // namespace ns3

#endif // CHAKRA_RDMA_SWITCH_H
