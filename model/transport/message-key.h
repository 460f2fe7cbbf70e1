/*
 * What identifies a message between two ranks, and the header that carries it on the wire.
 */
#ifndef CHAKRA_MESSAGE_KEY_H
#define CHAKRA_MESSAGE_KEY_H

#include <cstdint>
#include <string>
#include <tuple>

namespace ns3
{

/**
 * \ingroup chakra-transport
 * \brief The identity of a message, matched between a sender and a posted receive.
 *
 * Point-to-point messages from the trace (COMM_SEND/COMM_RECV) use kind P2P and the trace's
 * tag. Messages of a collective use kind COLLECTIVE, the communicator's id, the call's sequence
 * number on that communicator (so back-to-back calls do not mix) and a tag the algorithm gives
 * each message (the same on both sides).
 */
struct MessageKey
{
    /** Message families. */
    enum Kind : uint8_t
    {
        P2P = 1,        //!< explicit send/recv from the trace
        COLLECTIVE = 2, //!< part of a collective
    };

    uint8_t kind{P2P}; //!< family
    uint64_t comm{0};  //!< communicator id (0 for P2P)
    uint64_t seq{0};   //!< collective call number on the communicator (0 for P2P)
    int64_t tag{0};    //!< the trace's tag (P2P) or the algorithm's message tag

    /** \return a readable form for diagnostics */
    std::string ToString() const;

    bool operator<(const MessageKey& other) const
    {
        return std::tie(kind, comm, seq, tag) <
               std::tie(other.kind, other.comm, other.seq, other.tag);
    }

    bool operator==(const MessageKey& other) const
    {
        return kind == other.kind && comm == other.comm && seq == other.seq && tag == other.tag;
    }
};

/**
 * \ingroup chakra-transport
 * \brief What a message belongs to, as its sender sees it: both sides of a message must agree
 * (CommTransport checks it), so two ranks that pair different calls are caught, not simulated.
 */
struct CallSignature
{
    /** Type of a point-to-point call (collective calls use their CollectiveCommType). */
    static constexpr uint8_t kPointToPoint = 0xfe;
    /** Type of a message that declares no call (tests, scenario scripts). */
    static constexpr uint8_t kUnknown = 0xff;

    uint64_t node{0};       //!< the trace node of the call on the sending rank
    uint8_t type{kUnknown}; //!< CollectiveCommType, kPointToPoint or kUnknown
    uint64_t bytes{0};      //!< the call's size (comm_size)
    uint32_t root{0};       //!< root index in the communicator (rooted collectives)

    /** \return true if the call is declared */
    bool IsKnown() const
    {
        return type != kUnknown;
    }

    /** \return true if both describe the same call (type, size, root; not the node) */
    bool SameCall(const CallSignature& other) const
    {
        return type == other.type && bytes == other.bytes && root == other.root;
    }

    /** \return e.g. "ALL_REDUCE of 67108864 bytes (node 12)" */
    std::string ToString() const;
};

/**
 * \ingroup chakra-transport
 * \brief The fixed-size header that precedes each message's payload on the wire.
 */
struct MessageHeader
{
    /** Bytes of a serialized header on the wire. */
    static constexpr uint32_t kSize = 4 + 4 + 1 + 8 + 8 + 8 + 8 + 8 + 1 + 8 + 4;
    /** First bytes of every header: a stream that loses framing is detected, not misread. */
    static constexpr uint32_t kMagic = 0x43484b52; // "CHKR"

    uint32_t src{0};     //!< sending rank (global)
    MessageKey key;      //!< identity
    uint64_t payload{0}; //!< payload bytes that follow
    CallSignature call;  //!< the sender's call

    /** Writes kSize bytes. */
    void Serialize(uint8_t* out) const;
    /** Reads kSize bytes. \return false if the magic is wrong */
    bool Deserialize(const uint8_t* in);
};

} // namespace ns3

#endif // CHAKRA_MESSAGE_KEY_H
