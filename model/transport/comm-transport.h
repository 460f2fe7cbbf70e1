/*
 * CommTransport: the seam between the collectives and the network models. Collectives and the
 * application send and receive messages through it; models (tcp, rdma, flow) only move bytes.
 */
#ifndef CHAKRA_COMM_TRANSPORT_H
#define CHAKRA_COMM_TRANSPORT_H

#include "message-key.h"

#include "ns3/address.h"
#include "ns3/node.h"
#include "ns3/nstime.h"
#include "ns3/object.h"

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

namespace ns3
{

/**
 * \ingroup chakra-transport
 * \brief One rank's messaging endpoint: sends and posted receives matched by (source, key).
 *
 * What is implemented here, once for every model:
 * - matching: a message matches the oldest posted receive with the same source and key; with
 *   none posted it waits for one (MPI's non-overtaking rule: messages of one source and key
 *   match receives in posting order, because every model delivers a pair's messages in the
 *   order they were sent);
 * - checks: both sides of a message must agree on what they are doing. A point-to-point receive
 *   must be posted for the size that was sent; the messages of a collective call carry the
 *   sender's call (type, size, root, node) and must agree with this rank's call of the same
 *   sequence number on the communicator (checked on the first message from each peer, whatever
 *   its tag, so calls whose schedules differ are caught too). A disagreement is a fatal error
 *   that names both ranks and both nodes;
 * - messages to oneself, which never touch the network;
 * - byte counters and the diagnostics of receives still waiting.
 *
 * A model (subclass) implements DoSend: carry the header and the payload to the destination and
 * call Deliver(header) there once the last byte has arrived; call the send's completion when
 * the sender may go on (its local completion). Models see no collective semantics.
 */
class CommTransport : public Object
{
  public:
    /** Called when a send or receive completes. */
    using Done = std::function<void()>;
    /** Given the time a send completes (SendCounted): now, or later. */
    using DoneAt = std::function<void(Time end)>;
    /** Receives a fatal error (the run cannot go on meaningfully). */
    using FatalHandler = std::function<void(const std::string&)>;

    /** \return the TypeId */
    static TypeId GetTypeId();
    CommTransport();
    ~CommTransport() override;

    /** The transport models (the Transport attributes' EnumValue). */
    enum Model : int
    {
        TCP,
        RDMA,
        FLOW,
        AUTO, //!< GpuClusterHelper only: chosen by the cluster's size
    };

    /**
     * \param withAuto whether "auto" is a valid value (GpuClusterHelper's Transport)
     * \return the checker of a Transport attribute: every model this build knows by name
     */
    static Ptr<const AttributeChecker> MakeModelChecker(bool withAuto);
    /** \return the name of \p model ("tcp", "rdma", "flow", "auto") */
    static std::string GetModelName(Model model);

    /**
     * \param model a transport model name ("tcp", ...)
     * \return the TypeId of its implementation
     * \throws std::invalid_argument for an unknown model (the message lists the known ones)
     */
    static TypeId LookupModel(const std::string& model);
    /**
     * \param model a transport model name ("tcp", ...)
     * \return the TypeId name of the ClusterFabric that builds its network ("ns3::IpFabric")
     * \throws std::invalid_argument for an unknown model (the message lists the known ones)
     */
    static std::string GetFabricTypeName(const std::string& model);
    /** \return the names of the models this build knows, comma separated (with ", auto" when
     *  \p withAuto) */
    static std::string ListModels(bool withAuto = false);

    /**
     * Wiring, before Start.
     * \param node this rank's node
     * \param rank this rank
     * \param peers every rank's address (index = rank)
     */
    void Setup(Ptr<Node> node, uint32_t rank, std::shared_ptr<const std::vector<Address>> peers);

    /**
     * Several jobs on one cluster (ClusterScenario::AddJob): this transport's ranks are its
     * job's, and rank r of the job is the fabric's rank (*fabricRanks)[r]. The models that
     * address a peer by its index in the fabric (flow, rdma) ask FabricRank; those that address
     * it by its address (tcp) need nothing. Default (none set): the job is the whole cluster.
     */
    void SetFabricRanks(std::shared_ptr<const std::vector<uint32_t>> fabricRanks);

    /** Called once the simulation runs (models open connections, ...). */
    virtual void Start();

    /** \return the model name ("tcp", ...) */
    virtual std::string GetModelName() const = 0;

    /** Where fatal errors go (default: they are recorded in GetErrors). */
    void SetFatalHandler(FatalHandler handler);

    /**
     * Sends a message.
     * \param dst destination rank
     * \param key message identity
     * \param bytes payload size (64-bit)
     * \param done called at local completion (the model says when: TCP, last byte handed to
     *        the socket)
     * \param call what the message belongs to (checked by the receiver)
     */
    void Send(uint32_t dst,
              const MessageKey& key,
              uint64_t bytes,
              Done done,
              const CallSignature& call = CallSignature());

    /**
     * A send whose completion nothing waits on but its caller's count of what is done (the
     * sends of a collective schedule that no step depends on). The model may give the
     * completion time as soon as it knows it, which can be before that time, instead of
     * raising an event at it: the flow model knows it when the last byte leaves, and a
     * message then costs one event less. The caller must not act on the send before \p end.
     * Models that do not know it early call \p done at completion with end = now.
     * \param dst destination rank
     * \param key message identity
     * \param bytes payload size
     * \param done given the local completion time (never inside this call)
     * \param call what the message belongs to
     */
    void SendCounted(uint32_t dst,
                     const MessageKey& key,
                     uint64_t bytes,
                     DoneAt done,
                     const CallSignature& call = CallSignature());

    /**
     * Posts a receive: completes when a message with this key from \p src has fully arrived
     * (at once if it already has).
     * \param src source rank
     * \param key message identity
     * \param bytes expected payload size
     * \param done called on arrival of the last byte
     * \param call this rank's call (for the error message of a point-to-point mismatch)
     */
    void Recv(uint32_t src,
              const MessageKey& key,
              uint64_t bytes,
              Done done,
              const CallSignature& call = CallSignature());

    /**
     * Declares this rank's collective call \p seq on communicator \p comm: messages of that
     * call from other ranks are checked against it (see the class description).
     * \param comm communicator id
     * \param seq call number on the communicator
     * \param call this rank's call
     * \param label how to name the communicator in messages ("communicator 'tp0'")
     */
    void BeginCall(uint64_t comm,
                   uint64_t seq,
                   const CallSignature& call,
                   const std::string& label);
    /** The call is over on this rank. */
    void EndCall(uint64_t comm, uint64_t seq);

    /**
     * A running collective call that posts receives as their messages arrive. A collective
     * thus need not post every receive up front (a rank of a ring over n ranks has 2(n - 1)).
     * A plain interface rather than a std::function holding a weak pointer: the transport
     * calls it once per message, and the function object and the pointer's control block
     * were two more cache misses each time at thousands of ranks.
     */
    class ArrivalHandler
    {
      public:
        virtual ~ArrivalHandler() = default;
        /**
         * Called when a message of the call arrives and no receive is posted for it: the
         * call may post its receive for that message now (Recv) and return true, and the
         * message completes it at once, as if it had been posted all along.
         * \param src the sending rank
         * \param key the message's key
         * \return true if a receive was posted
         */
        virtual bool PostArrived(uint32_t src, const MessageKey& key) = 0;
    };

    /**
     * Sets the arrival handler of call \p seq on communicator \p comm (after BeginCall; not
     * owned: the handler clears it, with nullptr, if it goes away before EndCall).
     */
    void SetArrivalHandler(uint64_t comm, uint64_t seq, ArrivalHandler* handler);
    /** \return true if a message from \p src with \p key has arrived and waits for a receive */
    bool HasArrived(uint32_t src, const MessageKey& key) const;
    /**
     * Appends the messages of collective call \p seq on communicator \p comm that have arrived
     * and wait for a receive: (source, key, how many), by (source, key).
     */
    void GetArrivedOfCall(
        uint64_t comm,
        uint64_t seq,
        std::vector<std::tuple<uint32_t, MessageKey, std::size_t>>& arrived) const;

    /** \return one line per posted receive still waiting, then the model's own lines */
    std::vector<std::string> DescribePending() const;

    /** A message that has arrived and that no receive has taken. */
    struct UnreceivedMessage
    {
        uint32_t src{0};    //!< the sending rank
        MessageKey key;     //!< its identity
        uint64_t bytes{0};  //!< its payload
        CallSignature call; //!< the sender's call (its node, its collective)
    };

    /**
     * \return the messages that have arrived and wait for a receive, by (source, key), in
     *         arrival order for each. Every model delivers a message whether a receive is
     *         posted or not (an eager send completes without one), so once this rank has run
     *         its whole trace these are messages nobody receives: sends whose receive is
     *         missing, or collective calls this rank never made.
     */
    std::vector<UnreceivedMessage> GetUnreceived() const;
    /** \return problems seen (fatal ones too when no fatal handler is set) */
    const std::vector<std::string>& GetErrors() const;
    /** \return payload bytes sent so far (to other ranks) */
    uint64_t GetBytesSent() const;
    /** \return payload bytes received so far (from other ranks) */
    uint64_t GetBytesReceived() const;

  protected:
    void DoDispose() override;

    /**
     * Carries a message to rank \p dst (the model's job).
     * \param dst destination rank (never this rank)
     * \param header the message header (source, key, payload size, call)
     * \param done to call at the send's local completion (as an event or later, never inside
     *        DoSend)
     */
    virtual void DoSend(uint32_t dst, const MessageHeader& header, Done done) = 0;

    /**
     * SendCounted's carrier. By default DoSend, with \p done called at the completion.
     * \param dst destination rank (never this rank)
     * \param header the message header
     * \param done given the completion time: at it, or earlier once the model knows it (never
     *        inside this call)
     */
    virtual void DoSendCounted(uint32_t dst, const MessageHeader& header, DoneAt done);

    /** Appends the model's own diagnostics (unsent data, ...). */
    virtual void DescribeModelPending(std::vector<std::string>& lines) const;

    /** The model calls this on the receiving rank when a whole message has arrived. */
    void Deliver(const MessageHeader& header);

    /** Records a non-fatal problem seen by the model. */
    void AddError(const std::string& error);
    /** Records a fatal problem and hands it to the fatal handler. */
    void Fatal(const std::string& error);

    /** \return this rank's node */
    Ptr<Node> GetNode() const;
    /** \return this rank */
    uint32_t GetRank() const;
    /** \return every rank's address */
    const std::vector<Address>& GetPeers() const;
    /** \return the fabric's rank of this job's rank \p rank (see SetFabricRanks) */
    uint32_t FabricRank(uint32_t rank) const;

  private:
    /** This rank's header of a message. */
    MessageHeader MakeHeader(const MessageKey& key,
                             uint64_t bytes,
                             const CallSignature& call) const;

    /** A posted receive. */
    struct PostedRecv
    {
        uint64_t bytes;
        CallSignature call;
        Done done;
    };

    /** A message that arrived before its receive. */
    struct ArrivedMessage
    {
        uint64_t bytes;
        CallSignature call;
    };

    /** A collective call running on this rank. */
    struct LocalCall
    {
        CallSignature call;
        std::string label;
        ArrivalHandler* handler{nullptr}; //!< see SetArrivalHandler
    };

    using Endpoint = std::pair<uint32_t, MessageKey>; //!< (source, key)
    using CallId = std::pair<uint64_t, uint64_t>;     //!< (communicator, seq)

    /** Matches a message with a receive; reports a disagreement. */
    void Match(uint32_t src,
               const MessageKey& key,
               const ArrivedMessage& message,
               const PostedRecv& receive);
    /**
     * Checks a collective message's call against this rank's call of that number.
     * \return this rank's running call of that number, nullptr if it has not begun it
     */
    LocalCall* CheckCall(uint32_t src, const MessageKey& key, const CallSignature& remote);
    /** \return the error text for two ranks that disagree on a collective call */
    std::string CallMismatch(uint32_t src,
                             const MessageKey& key,
                             const CallSignature& remote,
                             const LocalCall& local) const;

    // Members in the order a message touches them (one a rank at a time, thousands of ranks
    // apart: each cache line here is a miss per message at scale): what Deliver, Recv and the
    // sends read first, what errors and setup read last.
    uint32_t m_rank{0};
    uint64_t m_bytesSent{0};
    uint64_t m_bytesReceived{0};
    /** Job rank -> fabric rank, shared by the job's ranks (null: the same numbers). */
    std::shared_ptr<const std::vector<uint32_t>> m_fabricRanks;
    std::map<CallId, LocalCall> m_calls; //!< this rank's running calls
    /**
     * Receives waiting for a message and messages waiting for a receive: one node per receive
     * or message, those of one endpoint in posting or arrival order (a multimap inserts at the
     * end of its key's range). Not a deque per endpoint: libstdc++'s deque allocates 576 bytes
     * even for one element, and a rank that begins an all-to-all late has one message waiting
     * from each of the other ranks, each with its own key.
     */
    std::multimap<Endpoint, PostedRecv> m_posted;
    std::multimap<Endpoint, ArrivedMessage> m_arrived; //!< see m_posted
    /**
     * While Deliver asks a call's arrival hook to post the receive for the message in hand:
     * that message's endpoint, and the receive the hook posts (handed over directly instead
     * of through m_posted, which would allocate a node and a deque per message).
     */
    const Endpoint* m_handoffEndpoint{nullptr};
    std::optional<PostedRecv> m_handoff;
    Ptr<Node> m_node;
    std::shared_ptr<const std::vector<Address>> m_peers; //!< shared by every rank of the job
    FatalHandler m_fatal;
    /**
     * The calls of the messages that arrived before this rank began their call, to check when
     * it does: for each call, each distinct signature with the lowest rank that sent it (what
     * the check needs to name the first sender that disagrees), not one entry per sender.
     */
    std::map<CallId, std::map<std::tuple<uint64_t, uint8_t, uint64_t, uint32_t>, uint32_t>>
        m_unchecked;
    std::vector<std::string> m_errors;
};

} // namespace ns3

#endif // CHAKRA_COMM_TRANSPORT_H
