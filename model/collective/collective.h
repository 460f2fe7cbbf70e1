/*
 * Collective: this rank's side of one collective call, run as a state machine over messages.
 */
#ifndef CHAKRA_COLLECTIVE_H
#define CHAKRA_COLLECTIVE_H

#include "collective-algorithm.h"
#include "ns3/communicator.h"
#include "ns3/comm-transport.h"

#include "ns3/nstime.h"

#include <functional>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

namespace ns3
{

/**
 * \ingroup chakra
 * \brief Runs one rank's schedule of a collective call.
 *
 * Every receive is posted at start; a send goes out when the ops it depends on have completed
 * (typically the receive of the data it forwards). The call is complete on this rank when all
 * its ops are: every receive arrived, every send handed to the transport. Only this rank's schedule and
 * the messages it receives drive it: there is no shared state with other ranks.
 */
class Collective : public std::enable_shared_from_this<Collective>
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
               CollectiveSchedule schedule,
               std::function<void()> done);

    /** Declares the call to the transport, posts the receives and sends what has no
     *  dependency. */
    void Start();

    /** \return what this rank still waits for (receives not arrived, sends not handed over) */
    std::vector<std::string> DescribeWaiting() const;

  private:
    /** A receive that waits for nothing but its message: posted when that message arrives. */
    struct ArmedRecv
    {
        uint32_t src;  //!< the sender's rank
        int64_t tag;
        uint32_t op;
        bool operator<(const ArmedRecv& other) const
        {
            return std::tie(src, tag, op) < std::tie(other.src, other.tag, other.op);
        }
    };

    void Issue(uint32_t op);
    void Complete(uint32_t op);
    /** Posts the armed receive of a message that has just arrived (the transport's hook). */
    bool PostArmed(uint32_t src, const MessageKey& key);
    MessageKey KeyOf(const CollectiveOp& op) const;

    Ptr<CommTransport> m_transport;
    uint64_t m_comm;
    std::string m_commName;
    std::vector<uint32_t> m_ranks;
    uint64_t m_seq;
    CallSignature m_call;
    CollectiveSchedule m_ops;
    std::vector<uint32_t> m_waitingDeps; //!< per op, dependencies not complete
    /** Ops waiting for op i: m_dependents[m_dependentsStart[i] .. m_dependentsStart[i + 1]). */
    std::vector<uint32_t> m_dependentsStart;
    std::vector<uint32_t> m_dependents;
    std::vector<ArmedRecv> m_armed;      //!< sorted; see ArmedRecv
    std::vector<uint8_t> m_state;        //!< 0 waiting, 1 issued, 2 complete, 3 armed
    std::size_t m_remaining;
    std::function<void()> m_done;
};

} // namespace ns3

#endif // CHAKRA_COLLECTIVE_H
