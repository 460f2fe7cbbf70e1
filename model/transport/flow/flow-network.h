/*
 * FlowNetwork: the "flow" model's network. Messages between ranks are fluid flows on the
 * routed paths of a ClusterTopology, sharing links max-min fairly; completions are ns-3 events.
 * No packets, no devices.
 */
#ifndef CHAKRA_FLOW_NETWORK_H
#define CHAKRA_FLOW_NETWORK_H

#include "max-min-network.h"

#include "ns3/cluster-topology.h"
#include "ns3/event-id.h"
#include "ns3/message-key.h"
#include "ns3/nstime.h"
#include "ns3/object.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

namespace ns3
{

class FlowTransport;

/**
 * \ingroup chakra-transport
 * \brief Messages as max-min fair flows over the routed paths of a cluster.
 *
 * - A *channel* per ordered pair of ranks (a connection, a queue pair) carries that pair's
 *   messages back to back as one byte stream, in the order they were sent: while it has bytes
 *   to send it is one flow on the path packet routing gives the pair
 *   (ClusterTopology::GetPath with PairHash(src, dst)), otherwise it is idle and uses nothing.
 * - A flow's rate is its max-min fair share over every directed link it crosses
 *   (MaxMinNetwork), recomputed when a flow starts or ends, for the flows that change can
 *   affect. Several starts and ends at the same instant are recomputed once.
 * - Bytes on the wire: the packet model's framing (Framing) turns a link's rate into the
 *   stream's goodput: a packet of the path's first link MTU carries MTU - headerBytes stream
 *   bytes and takes MTU + wireExtraBytes on the wire.
 * - A message's last byte reaches the destination the path's propagation delay plus one
 *   packet's store-and-forward per switch (at each outgoing link's rate) after it left the
 *   source; a message smaller than a packet is forwarded after its own size.
 * - Local completion (the sender may go on) comes when at most sendBuffer bytes of the message
 *   remain unsent, as a socket send buffer of that size gives; 0: when its last byte has left.
 *   With ackBytes > 0 (a transport that completes a send on its acknowledgement, as RDMA
 *   does), it comes when the ACK of the last byte is back at the source: the message's arrival
 *   plus the reverse path's propagation and one ACK of ackBytes forwarded at every hop.
 * - Order at the source (fifoAtSource): a packet model whose sender puts up to a window of
 *   bytes per connection in the device's FIFO queue at once (TCP with a full initial window)
 *   sends what different pairs write on one device in the order it was written, not side by
 *   side. The flow model keeps that order: each outgoing directed link has a FIFO of *entries*:
 *   what a channel writes while it has less than a window (sendBuffer bytes) outstanding
 *   enters the FIFO at once, up to one window. A channel sends only what has been granted:
 *   the entry at the head of the FIFO always is, the next ones only while the link has spare
 *   capacity (the flows ahead are limited further on: the device would send the next packets
 *   without pause). Bytes written beyond the window wait in the sender's buffer and follow
 *   the channel's own granted bytes as those leave (ACK-clocked, queued behind no one), so a
 *   message larger than a window goes alone for one window and then shares the link max-min
 *   fair. Without fifoAtSource, a channel sends whatever it has and all share the link max-min
 *   fair from the start (as queue pairs served round robin by an RDMA NIC do).
 *
 * Cost: per message, a few events (local completion, last byte sent, delivery) and, when a
 * channel starts or stops, one MaxMinNetwork::Reallocate over the flows it can affect; no work
 * per packet. Memory: O(channels held + links + pairs): a channel is held while it has bytes to
 * send, messages in flight or entries in its link's FIFO, or is the one its source used last;
 * otherwise it is released (Settings::releaseIdleChannels) and only its stream offset is kept (8
 * bytes and a hash entry per ordered pair that has exchanged messages), from which it is made
 * again, identical, when the pair sends next (the offset is the only state an idle channel carries
 * that the next messages' timing depends on: the floating-point progress of its stream is computed
 * from it).
 */
class FlowNetwork : public Object
{
  public:
    /** Called when something completes. */
    using Callback = std::function<void()>;
    /** Given a completion time (SendMessageCounted). */
    using EndCallback = std::function<void(Time end)>;

    /** Per-packet framing of the packet model the flows stand for. */
    struct Framing
    {
        // No defaults of its own: FlowFabric::FramingOf takes them from the packet model's
        // classes (TcpTransport, RoceV2Header, RdmaNetDevice), the one place each is written.
        uint32_t headerBytes{0};    //!< bytes of each packet inside the MTU that are not stream
        uint32_t wireExtraBytes{0}; //!< bytes each packet takes on the wire beyond the MTU
    };

    /** What the flows stand in for. */
    struct Settings
    {
        Framing framing;
        uint64_t sendBuffer{1u << 20}; //!< local completion; the window of fifoAtSource
        bool fifoAtSource{true};       //!< see the class comment
        /** > 0: a send completes when the ACK (this many wire bytes) of its last byte is back
         *  (needs sendBuffer 0); 0: at the sendBuffer threshold */
        uint32_t ackBytes{0};
        /** Release a channel while it is idle, keeping its stream offset (see the class
         *  comment); false: keep every channel for the run (same results, more memory) */
        bool releaseIdleChannels{true};
        /** A channel's flow is split evenly at every switch over the equal-cost next hops
         *  (per-packet spraying's fluid limit: each link carries the share of the paths that
         *  cross it); false: the one ECMP path of the pair */
        bool spray{false};
    };

    /** Counters of one run (report table "flow", benchmarks). */
    struct Statistics
    {
        uint64_t messages{0};               //!< messages sent
        uint64_t streamBytes{0};            //!< their bytes (payload + message headers)
        uint64_t flowStarts{0};             //!< times a channel became a flow
        uint64_t queuedAtSource{0};         //!< entries that waited behind another channel's
        uint64_t peakFlows{0};              //!< most flows at once
        uint64_t channels{0};               //!< ordered pairs that exchanged messages
        uint64_t heldChannels{0};           //!< channels held now (the others are released)
        uint64_t peakHeldChannels{0};       //!< most channels held at once
        MaxMinNetwork::Counters allocation; //!< work of the rate computation
    };

    /**
     * What one source GPU's messages carried over each kind of link (report table
     * "fabric-jobs"): every link of a message's path counts its bytes once, so a byte that
     * crosses a leaf and a spine counts twice in switchBytes.
     */
    struct SourceTraffic
    {
        uint64_t messages{0};     //!< messages sent
        uint64_t bytes{0};        //!< their stream bytes (payload + message headers)
        uint64_t scaleUpBytes{0}; //!< bytes x NVLink (scale-up) links crossed
        uint64_t edgeBytes{0};    //!< bytes x links between a GPU's NIC and a switch crossed
        uint64_t switchBytes{0};  //!< bytes x links between two switches crossed
    };

    /** \return the TypeId */
    static TypeId GetTypeId();
    FlowNetwork();
    ~FlowNetwork() override;

    /**
     * \return the ECMP hash of the flow between two ranks: RdmaTransport::FlowHash of the
     *         pair's queue pair, so that flows follow the rdma model's paths
     */
    static uint64_t PairHash(uint32_t srcRank, uint32_t dstRank);

    /**
     * Makes the network of a topology (one capacity per directed link).
     * \param topology the cluster (kept)
     * \param settings what the flows stand in for
     */
    void Build(std::shared_ptr<const ClusterTopology> topology, const Settings& settings);

    /** \return the topology */
    std::shared_ptr<const ClusterTopology> GetTopology() const;

    /**
     * Sends a message.
     * \param src source rank
     * \param dst destination rank (!= src)
     * \param bytes bytes on the stream (payload and the message's header)
     * \param localDone called at local completion (as its own event, never inside Send)
     * \param delivered called when the last byte has reached \p dst
     * \return false if \p dst cannot be reached from \p src (nothing is scheduled)
     */
    bool Send(uint32_t src, uint32_t dst, uint64_t bytes, Callback localDone, Callback delivered);

    /**
     * Sends a transport's message: as Send, with payload + MessageHeader::kSize bytes, and
     * delivered to \p dst's FlowTransport (Attach) with \p header when its last byte has
     * arrived. The header travels inside the network's own records: no callback per message
     * to allocate (millions at thousands of ranks).
     * \return false if \p dst cannot be reached from \p src (nothing is scheduled)
     */
    bool SendMessage(uint32_t src, uint32_t dst, const MessageHeader& header, Callback localDone);

    /**
     * As SendMessage, for a send whose completion only counts (CommTransport::SendCounted):
     * \p localEnd is given the completion time as soon as it is known, without an event of
     * its own. With Settings::ackBytes > 0 that is when the last byte leaves the source (the
     * completion is its ACK's return, later); otherwise at the completion itself. It is
     * never called inside this call.
     * \return false if \p dst cannot be reached from \p src (nothing is scheduled)
     */
    bool SendMessageCounted(uint32_t src,
                            uint32_t dst,
                            const MessageHeader& header,
                            EndCallback localEnd);

    /** Registers rank \p rank's transport (what messages to that rank are delivered to). */
    void Attach(uint32_t rank, FlowTransport* endpoint);
    /** Unregisters it (if it is still \p endpoint). */
    void Detach(uint32_t rank, const FlowTransport* endpoint);
    /** \return rank \p rank's transport, nullptr if none */
    FlowTransport* GetEndpoint(uint32_t rank) const;

    /** Appends one line per channel from \p src with bytes not delivered yet. */
    void DescribePending(uint32_t src, std::vector<std::string>& lines) const;

    /**
     * \return the stream goodput of an uncontended flow from \p src to \p dst (bytes/s) and the
     *         latency of a message of \p bytes on it; {0, 0} if unreachable
     */
    std::pair<double, Time> DescribePath(uint32_t src, uint32_t dst, uint64_t bytes);

    /** \return the counters so far */
    Statistics GetStatistics() const;

    /** \return each source GPU's traffic so far (indexed by rank; empty before Build) */
    const std::vector<SourceTraffic>& GetSourceTraffic() const;

  protected:
    void DoDispose() override;

  private:
    /** A message on a channel, not yet fully sent. */
    struct Message
    {
        uint64_t end{0};   //!< stream offset just past its last byte
        uint64_t bytes{0}; //!< its size
        Callback localDone;
        EndCallback localEnd;   //!< SendMessageCounted's, instead of localDone
        Callback delivered;     //!< Send's; empty for SendMessage's
        MessageHeader header;   //!< SendMessage's: handed to the destination's transport
        bool toEndpoint{false}; //!< from SendMessage
    };

    /** An ordered pair's byte stream. */
    struct Channel
    {
        uint32_t src{0};
        uint32_t dst{0};
        std::vector<uint32_t> path;            //!< directed links (== MaxMinNetwork links)
        std::vector<uint32_t> sprayLinks;      //!< Settings::spray: every link a path crosses
        std::vector<double> sprayWeights;      //!< the share of the flow on each
        double efficiency{1};                  //!< stream bytes per wire byte
        double segment{0};                     //!< stream bytes per full packet
        double packetOverhead{0};              //!< wire bytes per packet beyond its stream bytes
        Time propagation;                      //!< sum of the links' delays
        double forwardSecondsPerByte{0};       //!< sum over the hops after the first of 1 / rate
        Time fullPacketLatency;                //!< LastPacketLatency of a full segment
        Time ackLatency;                       //!< an ACK's way back (Settings::ackBytes)
        uint64_t queued{0};                    //!< stream bytes handed to the channel so far
        double sent{0};                        //!< stream bytes that have left the source
        double rate{0};                        //!< stream bytes per second (0 while idle)
        Time updated;                          //!< when sent was last brought up to date
        std::vector<Message> messages;         //!< not fully sent: indices head .. size - 1
        std::size_t head{0};                   //!< first message not fully sent
        std::size_t nextDone{0};               //!< first message whose local completion has not run
        uint64_t entered{0};                   //!< stream offset up to which bytes are in the FIFO
        uint64_t granted{0};                   //!< stream offset up to which it may send
        uint32_t flow{MaxMinNetwork::kNoFlow}; //!< while it has granted bytes to send
        EventId next;            //!< the next threshold (completion, last byte, grant end)
        bool armed{false};       //!< next is pending (scheduled, not run, not cancelled)
        Time lastDelivery;       //!< keeps deliveries in send order
        uint32_t inFlight{0};    //!< messages sent, not delivered
        uint32_t entries{0};     //!< its entries in its link's FIFO (fifoAtSource)
        uint32_t scaleUpHops{0}; //!< links of the path by kind (LinkClass)
        uint32_t edgeHops{0};
        uint32_t switchHops{0};
    };

    /** What a directed link joins, for SourceTraffic. */
    enum LinkClass : uint8_t
    {
        SCALE_UP_LINK, //!< NVLink
        EDGE_LINK,     //!< a GPU's NIC and a switch
        SWITCH_LINK    //!< two switches
    };

    /** A channel's bytes in the FIFO of its outgoing link, up to \p end. */
    struct Entry
    {
        uint32_t channel;
        uint64_t end;
    };

    /** The FIFO of one directed link's outgoing entries (fifoAtSource). */
    struct Egress
    {
        std::vector<Entry> entries; //!< from index head; entries[head .. granted) are granted
        std::size_t head{0};
        std::size_t granted{0};
    };

    /** \return the channel index of a pair (created on first use); UINT32_MAX if unreachable */
    uint32_t GetChannel(uint32_t src, uint32_t dst);
    /**
     * Settings::spray: the links of every equal-cost path from \p src to \p dst and the share
     * of a flow each carries when every node splits it evenly over its next hops.
     */
    void SprayLinks(uint32_t src,
                    uint32_t dst,
                    std::vector<uint32_t>& links,
                    std::vector<double>& weights) const;
    /** Releases channel \p index if it is idle (keeping its stream offset). */
    void MaybeRelease(uint32_t index);
    /** Notes \p channel as the last one \p src used (see m_lastChannelOf). */
    void Remember(uint32_t src, uint32_t channel);
    /** Puts a channel's next bytes (up to its window) in its link's FIFO, or grants them. */
    void Enter(uint32_t index);
    /** Drops the finished entries at the head of a link's FIFO and grants the new head. */
    void ServeHead(uint32_t link);
    /** Grants a link's next entry (it becomes sendable). */
    void GrantNext(uint32_t link);
    /** Lets a channel send up to \p end: it becomes a flow if it was not one. */
    void Grant(uint32_t index, uint64_t end);
    /** Brings a channel's sent bytes up to now at its current rate. */
    void Advance(Channel& channel);
    /** As Advance(channel), with the caller's Simulator::Now() (\p now). */
    void Advance(Channel& channel, const Time& now);
    /** (Re)schedules a channel's next threshold. */
    void ScheduleNext(uint32_t index);
    /** Cancels a channel's pending threshold event, if it has one. */
    void Disarm(Channel& channel);
    /** A channel reached a threshold. */
    void Progress(uint32_t index);
    /** Queues \p message (its bytes set) on the channel from \p src to \p dst. */
    bool Enqueue(uint32_t src, uint32_t dst, Message&& message);
    /** \return a transport's message: \p header, delivered to the destination's endpoint */
    static Message ForEndpoint(const MessageHeader& header);
    /** A message's last byte has arrived. */
    void Arrive(uint32_t index, const Callback& delivered);
    /** A SendMessage message's last byte has arrived. */
    void ArriveAtEndpoint(uint32_t index, const MessageHeader& header);
    /** Asks for a rate recomputation at the current instant (once). */
    void MarkDirty();
    /** Recomputes the rates and reschedules the channels whose rate changed. */
    void Reallocate();
    /** \return the latency of a message of \p bytes on \p channel after its last byte left */
    Time Latency(const Channel& channel, uint64_t bytes) const;
    /**
     * \return the latency after the last byte left, for a last packet of \p lastPacketBytes
     *         stream bytes (at most a segment): its forwarding by each switch, and propagation
     */
    static Time LastPacketLatency(const Channel& channel, double lastPacketBytes);
    /** \return the smallest progress that counts as reaching a threshold (1 ns at the rate) */
    static double Slack(const Channel& channel);

    std::shared_ptr<const ClusterTopology> m_topology;
    Settings m_settings;
    MaxMinNetwork m_rates;
    std::vector<Time> m_linkDelay;              //!< per directed link
    std::vector<uint32_t> m_linkMtu;            //!< per directed link
    std::vector<LinkClass> m_linkClass;         //!< per directed link
    std::vector<SourceTraffic> m_sourceTraffic; //!< per source rank
    std::vector<Channel> m_channels;      //!< held channels; a released slot has an empty path
    std::vector<uint32_t> m_freeChannels; //!< released slots, for reuse
    std::unordered_map<uint64_t, uint32_t> m_channelOf; //!< (src << 32 | dst) -> held index
    /** (src << 32 | dst) -> stream offset of a released channel (queued == sent == granted) */
    std::unordered_map<uint64_t, uint64_t> m_releasedOffset;
    /** Per source rank, the channel it used last (a ring sends to one peer: no hash lookup). */
    std::vector<uint32_t> m_lastChannelOf;
    std::vector<uint32_t> m_channelOfFlow; //!< MaxMinNetwork flow id -> channel
    std::vector<FlowTransport*> m_endpoints;
    bool m_reallocationPending{false};
    std::vector<Egress> m_egress;         //!< per directed link (fifoAtSource)
    uint64_t m_window{0};                 //!< bytes a channel may have in a FIFO
    std::vector<uint32_t> m_spareCheck;   //!< links whose waiters may use spare capacity
    std::vector<uint32_t> m_spareScratch; //!< scratch of Reallocate

    /** A completion Progress hands out last: a callback to run now, or a time to give. */
    struct Completion
    {
        Callback done;
        EndCallback end;
        Time at;
    };

    /** Progress's list, kept between calls: no allocation per message */
    std::vector<Completion> m_completionScratch;
    std::vector<uint32_t> m_changed; //!< scratch of Reallocate
    std::vector<uint32_t> m_scratchPath;
    Statistics m_statistics;
};

} // namespace ns3

#endif // CHAKRA_FLOW_NETWORK_H
