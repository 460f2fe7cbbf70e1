/*
 * Collective: this rank's side of one collective call, run as a state machine over messages.
 */
#ifndef CHAKRA_COLLECTIVE_H
#define CHAKRA_COLLECTIVE_H

#include "collective-algorithm.h"
#include "collective-communicator.h"
#include "op-state-window.h"

#include "ns3/comm-transport.h"
#include "ns3/event-id.h"
#include "ns3/nstime.h"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup chakra-collective
 * \brief Runs one rank's schedule of a collective call.
 *
 * A receive that waits for nothing but its message is armed at start and posted when the
 * message arrives; a send (or a dependent receive) is issued when the ops it depends on have
 * completed (typically the receive of the data it forwards). The call is complete on this rank
 * when all its ops are: every receive arrived, every send handed to the transport. Only this
 * rank's schedule and the messages it receives drive it: there is no shared state with other
 * ranks.
 *
 * The owner keeps it alive until \p done has run (or the simulation is torn down): the
 * callbacks it hands the transport point to it without owning it.
 */
class Collective : private CommTransport::ArrivalHandler
{
  public:
    /**
     * \param transport this rank's transport
     * \param communicator the communicator (copied: ids, ranks)
     * \param seq the call's sequence number on the communicator
     * \param call what this call is (carried by its messages: the ranks must agree)
     * \param schedule this rank's ops
     * \param done called once when every op has completed
     */
    Collective(Ptr<CommTransport> transport,
               const Communicator& communicator,
               uint64_t seq,
               const CallSignature& call,
               std::unique_ptr<const CollectiveSchedule> schedule,
               std::function<void()> done);
    /** Withdraws the arrival handler if the call is still running on the transport. */
    ~Collective() override;

    /** Declares the call to the transport, posts the receives and sends what has no
     *  dependency. */
    void Start();

    /** \return what this rank still waits for (receives not arrived, sends not handed over) */
    std::vector<std::string> DescribeWaiting() const;

    /**
     * \return the call, for diagnostics: "ALL_REDUCE of 1048576 bytes (node 12), call #0 of
     *         communicator '1' (4 ranks: 0, 1, 2, 3)"
     */
    std::string Describe() const;
    /** \return the number of steps (sends and receives) of this rank's schedule */
    uint32_t GetStepCount() const;

  private:
    void Issue(uint32_t op);
    /** Hands send \p op (to communicator member \p peer) to the transport after its delay. */
    void SendNow(uint32_t op, uint32_t peer, int64_t tag, uint64_t bytes);
    void Complete(uint32_t op);
    /**
     * Counts send \p op, which no op depends on, as complete at \p end (now or later: the
     * transport may know it before).
     */
    void CompleteSendAt(uint32_t op, Time end);
    /** Every op is counted: the call ends now, or when its last counted send completes. */
    void Finish();
    /** The call is over: tells the transport and the caller. */
    void End();
    /**
     * \return true if receive \p op is armed: it waits for nothing but its message (no
     *         dependency) and is not issued yet; it is posted when the message arrives
     */
    bool IsArmed(uint32_t op) const;
    /** \return true if every op that \p op waits for has completed */
    bool Ready(uint32_t op) const;
    /** Posts the armed receive of a message that has just arrived (the transport's handler). */
    bool PostArrived(uint32_t src, const MessageKey& key) override;
    /** \return the communicator index of global rank \p rank, or CollectiveSchedule::kNone */
    uint32_t IndexOfRank(uint32_t rank) const;
    MessageKey KeyOf(int64_t tag) const;

    Ptr<CommTransport> m_transport;
    uint64_t m_comm;
    std::string m_commName;
    SharedRankList m_ranks; //!< global rank of each member
    bool m_ranksSorted;     //!< m_ranks ascending (process groups usually are): binary search
    uint64_t m_seq;
    CallSignature m_call;
    std::unique_ptr<const CollectiveSchedule> m_schedule;
    OpStateWindow m_state; //!< per op, for the ops in progress
    std::size_t m_remaining;
    Time m_lastSendEnd; //!< the latest completion of the sends counted ahead (CompleteSendAt)
    EventId m_end;      //!< End, when it waits for m_lastSendEnd
    std::function<void()> m_done;
    bool m_handlerSet{false}; //!< this is the transport's arrival handler of the call
};

} // namespace ns3

#endif // CHAKRA_COLLECTIVE_H
