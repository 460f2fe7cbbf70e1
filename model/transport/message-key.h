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
 * \ingroup chakra
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

    uint8_t kind{P2P};  //!< family
    uint64_t comm{0};   //!< communicator id (0 for P2P)
    uint64_t seq{0};    //!< collective call number on the communicator (0 for P2P)
    int64_t tag{0};     //!< the trace's tag (P2P) or the algorithm's message tag

    /** \return a readable form for diagnostics */
    std::string ToString() const;

    bool operator<(const MessageKey& other) const
    {
        return std::tie(kind, comm, seq, tag) < std::tie(other.kind, other.comm, other.seq, other.tag);
    }

    bool operator==(const MessageKey& other) const
    {
        return kind == other.kind && comm == other.comm && seq == other.seq && tag == other.tag;
    }
};

/**
 * \ingroup chakra
 * \brief The fixed-size header written before each message's payload on a TCP stream.
 */
struct MessageHeader
{
    /** Bytes of a serialized header on the wire. */
    static constexpr uint32_t kSize = 4 + 4 + 1 + 8 + 8 + 8 + 8;
    /** First bytes of every header: a stream that loses framing is detected, not misread. */
    static constexpr uint32_t kMagic = 0x43484b52; // "CHKR"

    uint32_t src{0};      //!< sending rank (global)
    MessageKey key;       //!< identity
    uint64_t payload{0};  //!< payload bytes that follow

    /** Writes kSize bytes. */
    void Serialize(uint8_t* out) const;
    /** Reads kSize bytes. \return false if the magic is wrong */
    bool Deserialize(const uint8_t* in);
};

} // namespace ns3

#endif // CHAKRA_MESSAGE_KEY_H
