/*
 * CollectiveCallOrder: the program order of a rank's collective calls on each communicator.
 */
#ifndef CHAKRA_COLLECTIVE_CALL_ORDER_H
#define CHAKRA_COLLECTIVE_CALL_ORDER_H

#include "ns3/et-node.h"
#include "ns3/flat-id-map.h"

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup chakra-application
 * \brief Numbers a rank's collective calls per communicator as the trace is read, and holds a
 * call that is ready before its turn until the calls before it have started (or completed).
 *
 * Ranks match a collective's messages by its number on its communicator, so the number must be
 * the call's position in the rank's program (file) order, whatever order the rank's streams and
 * threads reach the calls in. Calls start strictly in that order in both modes, and in SERIAL
 * mode also complete in it, so three counters per communicator suffice.
 */
class CollectiveCallOrder
{
  public:
    /** How the calls of one communicator wait for each other (the CallOrder attribute). */
    enum Mode : int
    {
        POSTED, //!< a call starts once every earlier call has started
        SERIAL, //!< a call starts once every earlier call has completed
    };

    /** A node handed back to the caller to start. */
    using StartFn = std::function<void(std::shared_ptr<const EtNode>)>;

    /** \param mode how calls wait for each other */
    void SetMode(Mode mode);

    /**
     * Gives \p node its number on its communicator if it is a collective call (a COMM_COLL
     * node with comm_type); other nodes are left unnumbered. Call in the trace's file order.
     */
    void Number(const EtNode& node);

    /** \return the call number of a numbered node still in flight, if it is one */
    std::optional<uint64_t> NumberOf(uint64_t nodeId) const;

    /**
     * A numbered call is ready: returns true (and counts it as started) if its turn has come,
     * else keeps it until StartParked hands it back.
     * \param node the call
     * \param seq its number (NumberOf)
     */
    bool TryStart(std::shared_ptr<const EtNode> node, uint64_t seq);

    /**
     * Hands \p start, in number order, each kept call of \p pg whose turn has come. \p start
     * may re-enter this object (a call that completes at once).
     */
    void StartParked(const std::string& pg, const StartFn& start);

    /** A call of \p pg completed: in SERIAL mode the next may start. Forgets its number. */
    void Completed(const std::string& pg, uint64_t nodeId);

    /** \return one line per kept call, saying which call it waits for */
    std::vector<std::string> DescribeParked() const;

    /** Drops every kept call (they hold nodes). */
    void Clear();

  private:
    /** One communicator's counters and kept calls. */
    struct State
    {
        uint64_t read{0};      //!< calls numbered so far (the next call's number)
        uint64_t started{0};   //!< calls 0 .. started-1 have started (been posted)
        uint64_t completed{0}; //!< calls completed
        std::map<uint64_t, std::shared_ptr<const EtNode>> parked; //!< ready, waiting their turn
    };

    /** \return true if call \p seq of \p pg may start now */
    bool IsTurn(const std::string& pg, uint64_t seq);

    Mode m_mode{POSTED};
    std::map<std::string, State> m_states; //!< by pg name
    FlatIdMap<uint64_t> m_numbers;         //!< node id -> call number (looked up per node)
};

} // namespace ns3

#endif // CHAKRA_COLLECTIVE_CALL_ORDER_H
