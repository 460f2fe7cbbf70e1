#include "rdma-rate-control.h"

#include "ns3/enum.h"
#include "ns3/log.h"
#include "ns3/object-factory.h"

#include <stdexcept>
#include <utility>
#include <vector>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("ChakraRdmaRateControl");

NS_OBJECT_ENSURE_REGISTERED(RdmaRateControl);
NS_OBJECT_ENSURE_REGISTERED(LineRateControl);

namespace
{

/** Model names and their TypeIds. */
const std::vector<std::pair<std::string, std::string>>&
Models()
{
    static const std::vector<std::pair<std::string, std::string>> models = {
        {"none", "ns3::LineRateControl"},
        {"dcqcn", "ns3::DcqcnRateControl"},
        {"dctcp", "ns3::DctcpRateControl"},
        {"timely", "ns3::TimelyRateControl"},
        {"hpcc", "ns3::HpccRateControl"},
        {"swift", "ns3::SwiftRateControl"},
    };
    return models;
}

} // namespace

TypeId
RdmaRateControl::GetTypeId()
{
    static TypeId tid = TypeId("ns3::RdmaRateControl").SetParent<Object>().SetGroupName("Chakra");
    return tid;
}

Ptr<RdmaRateControl>
RdmaRateControl::Create(const std::string& name)
{
    for (const auto& [model, typeName] : Models())
    {
        TypeId tid;
        if (model == name && TypeId::LookupByNameFailSafe(typeName, &tid))
        {
            ObjectFactory factory(typeName);
            return factory.Create<RdmaRateControl>();
        }
    }
    throw std::invalid_argument("unknown RDMA congestion control '" + name +
                                "' (known: " + ListModels() + ")");
}

std::string
RdmaRateControl::ListModels()
{
    std::string list;
    for (const auto& [model, typeName] : Models())
    {
        list += (list.empty() ? "" : ", ") + model;
    }
    return list;
}

Ptr<const AttributeChecker>
RdmaRateControl::MakeModelChecker()
{
    Ptr<EnumChecker> checker = ns3::Create<EnumChecker>();
    for (std::size_t i = 0; i < Models().size(); ++i)
    {
        checker->Add(static_cast<int>(i), Models()[i].first);
    }
    return checker;
}

std::string
RdmaRateControl::GetModelName(uint32_t index)
{
    return Models().at(index).first;
}

void
RdmaRateControl::OnSent(uint32_t /* bytes */, Time /* now */)
{
    NS_LOG_FUNCTION(this);
}

void
RdmaRateControl::OnCnp(Time /* now */)
{
    NS_LOG_FUNCTION(this);
}

void
RdmaRateControl::OnAck(const AckFeedback& /* ack */, Time /* now */)
{
    NS_LOG_FUNCTION(this);
}

uint32_t
RdmaRateControl::GetFeedbackNeeds() const
{
    return FEEDBACK_NONE;
}

uint64_t
RdmaRateControl::GetWindow() const
{
    return 0;
}

TypeId
LineRateControl::GetTypeId()
{
    static TypeId tid = TypeId("ns3::LineRateControl")
                            .SetParent<RdmaRateControl>()
                            .SetGroupName("Chakra")
                            .AddConstructor<LineRateControl>();
    return tid;
}

void
LineRateControl::Start(DataRate lineRate, Time /* now */)
{
    NS_LOG_FUNCTION(this << lineRate);
    m_lineRate = lineRate;
}

DataRate
LineRateControl::GetRate(Time /* now */)
{
    return m_lineRate;
}

std::string
LineRateControl::GetName() const
{
    return "none";
}

} // namespace ns3
