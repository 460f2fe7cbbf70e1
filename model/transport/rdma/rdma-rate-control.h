/*
 * RdmaRateControl: the congestion control of one RDMA queue pair (its sending rate), and the
 * "none" model (line rate).
 */
#ifndef CHAKRA_RDMA_RATE_CONTROL_H
#define CHAKRA_RDMA_RATE_CONTROL_H

#include "ns3/data-rate.h"
#include "ns3/nstime.h"
#include "ns3/object.h"

#include <cstdint>
#include <string>

namespace ns3
{

class RdmaFeedbackHeader;

/**
 * \ingroup chakra-transport
 * \brief The rate a queue pair may send at, driven by what the NIC sees.
 *
 * The NIC paces each queue pair at GetRate (a packet of W wire bytes is followed by W x 8 /
 * rate of silence for that queue pair) and tells the model what happens: packets sent, CNPs
 * received (DCQCN), ACKs with what they carry. A model may also cap the bytes in flight
 * (GetWindow: HPCC, DCTCP, Swift). What the ACKs carry is what the model asks for
 * (GetFeedbackNeeds): ECN-mark counts, a round-trip time (measured by the sender, as NICs
 * timestamp packets), the switches' in-band telemetry. Models keep their timers lazily
 * (advanced when asked), so an idle or uncongested queue pair costs no events.
 */
class RdmaRateControl : public Object
{
  public:
    /** What a model needs the queue pair and the fabric to measure (GetFeedbackNeeds). */
    enum Feedback : uint32_t
    {
        FEEDBACK_NONE = 0,
        FEEDBACK_ECN_COUNTS = 1,   //!< ACKs count the CE-marked data packets they cover
        FEEDBACK_RTT = 2,          //!< the sender times each packet to its ACK
        FEEDBACK_TELEMETRY = 4,    //!< switches stamp data packets; ACKs echo the stamps
        FEEDBACK_EVERY_PACKET = 8, //!< every data packet asks for its ACK (AckReq), whatever
                                   //!< RdmaNic::AckInterval: per-packet feedback
        FEEDBACK_CNP = 16,         //!< the receiver answers CE-marked data with a CNP (at most
                                   //!< one per queue pair per RdmaNic::CnpInterval): DCQCN's
                                   //!< notification point; no other model reads CNPs
    };

    /** What an ACK that acknowledged new data tells the sending queue pair's model. */
    struct AckFeedback
    {
        uint64_t ackedBytes{0};       //!< stream bytes newly acknowledged (PSNs x packet payload)
        uint64_t ackedPsn{0};         //!< one past the last PSN acknowledged
        uint64_t nextPsn{0};          //!< the next new PSN the sender will send
        uint32_t payloadPerPacket{0}; //!< stream bytes per packet
        Time rtt;                     //!< the acknowledged packet's round trip (FEEDBACK_RTT), or 0
        uint32_t marked{0};           //!< CE-marked data packets (FEEDBACK_ECN_COUNTS)
        uint32_t packets{0};          //!< data packets the receiver counted for this ACK
        const RdmaFeedbackHeader* telemetry{nullptr}; //!< the acknowledged packet's hops
    };

    /** \return the TypeId */
    static TypeId GetTypeId();

    /**
     * \param name a model name: none, dcqcn, dctcp, timely, hpcc, swift
     * \return a new model of that name
     * \throws std::invalid_argument for an unknown name (the message lists the known ones)
     */
    static Ptr<RdmaRateControl> Create(const std::string& name);
    /** \return the known model names, comma separated */
    static std::string ListModels();
    /**
     * \return the checker of an attribute that names a model (RdmaNic::CongestionControl): the
     *         value is the model's index in the table of models, its text the model's name
     */
    static Ptr<const AttributeChecker> MakeModelChecker();
    /** \param index a value of MakeModelChecker's attributes \return the model's name */
    static std::string GetModelName(uint32_t index);

    /**
     * Starts the model for a new queue pair.
     * \param lineRate the rate of the port it sends on
     * \param now the current time
     */
    virtual void Start(DataRate lineRate, Time now) = 0;
    /** \return the rate the queue pair may send at now (at most the line rate) */
    virtual DataRate GetRate(Time now) = 0;
    /** A packet of \p bytes (wire bytes) was sent. */
    virtual void OnSent(uint32_t bytes, Time now);
    /** A congestion notification packet arrived. */
    virtual void OnCnp(Time now);
    /**
     * An ACK acknowledged new data.
     * \param ack what it carries (as GetFeedbackNeeds asked)
     * \param now the current time
     */
    virtual void OnAck(const AckFeedback& ack, Time now);
    /** \return a Feedback bit set: what the model reads (default: nothing) */
    virtual uint32_t GetFeedbackNeeds() const;
    /**
     * \return the stream bytes the queue pair may have sent and not had acknowledged; 0: no
     *         window (the default: the rate alone limits it)
     */
    virtual uint64_t GetWindow() const;
    /** \return the model's name */
    virtual std::string GetName() const = 0;
};

/**
 * \ingroup chakra-transport
 * \brief No congestion control: every queue pair sends at line rate (PFC alone keeps the
 * fabric lossless).
 */
class LineRateControl : public RdmaRateControl
{
  public:
    /** \return the TypeId */
    static TypeId GetTypeId();

    void Start(DataRate lineRate, Time now) override;
    DataRate GetRate(Time now) override;
    std::string GetName() const override;

  private:
    DataRate m_lineRate;
};

} // namespace ns3

#endif // CHAKRA_RDMA_RATE_CONTROL_H
