/*
 * RdmaRateControl: the congestion control of one RDMA queue pair (its sending rate), and the
 * "none" model (line rate).
 */
#ifndef CHAKRA_RDMA_RATE_CONTROL_H
#define CHAKRA_RDMA_RATE_CONTROL_H

#include "ns3/data-rate.h"
#include "ns3/nstime.h"
#include "ns3/object.h"

#include <string>

namespace ns3
{

/**
 * \ingroup chakra-transport
 * \brief The rate a queue pair may send at, driven by what the NIC sees.
 *
 * The NIC paces each queue pair at GetRate (a packet of W wire bytes is followed by W x 8 /
 * rate of silence for that queue pair) and tells the model what happens: packets sent, CNPs
 * received (DCQCN), ACKs (for models that use them: HPCC, TIMELY). Models keep their timers
 * lazily (advanced when asked), so an idle or uncongested queue pair costs no events.
 */
class RdmaRateControl : public Object
{
  public:
    /** \return the TypeId */
    static TypeId GetTypeId();

    /**
     * \param name a model name: none, dcqcn
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
     * \param bytes newly acknowledged payload bytes
     * \param now the current time
     */
    virtual void OnAck(uint64_t bytes, Time now);
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
