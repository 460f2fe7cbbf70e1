#include "comm-transport.h"

#include "ns3/enum.h"
#include "ns3/log.h"
#include "ns3/schedule-moved.h"
#include "ns3/simulator.h"

#include <algorithm>
#include <limits>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("ChakraCommTransport");
NS_OBJECT_ENSURE_REGISTERED(CommTransport);

namespace
{

/** A transport model: its name, the TypeId that implements it and the fabric it runs on. */
struct ModelEntry
{
    std::string name;
    std::string transport;
    /**
     * The ClusterFabric (helper/fabric) that builds the model's network: named, not linked, so
     * that model/ does not depend on helper/ (packet models build devices; flow builds none).
     */
    std::string fabric;
};

/** The transport models, in the order of CommTransport::Model: the one table of them. */
const std::vector<ModelEntry>&
Models()
{
    static const std::vector<ModelEntry> models = {
        {"tcp", "ns3::TcpTransport", "ns3::IpFabric"},
        {"rdma", "ns3::RdmaTransport", "ns3::RdmaFabric"},
        {"flow", "ns3::FlowTransport", "ns3::FlowFabric"},
    };
    return models;
}

/** \return the entry of \p model, whose implementation this build has */
const ModelEntry&
FindModel(const std::string& model)
{
    for (const ModelEntry& entry : Models())
    {
        TypeId tid;
        if (entry.name == model && TypeId::LookupByNameFailSafe(entry.transport, &tid))
        {
            return entry;
        }
    }
    throw std::invalid_argument("unknown transport model '" + model +
                                "' (known: " + CommTransport::ListModels() + ")");
}

} // namespace

TypeId
CommTransport::GetTypeId()
{
    static TypeId tid = TypeId("ns3::CommTransport").SetParent<Object>().SetGroupName("Chakra");
    return tid;
}

CommTransport::CommTransport() = default;

CommTransport::~CommTransport() = default;

TypeId
CommTransport::LookupModel(const std::string& model)
{
    return TypeId::LookupByName(FindModel(model).transport);
}

std::string
CommTransport::GetFabricTypeName(const std::string& model)
{
    return FindModel(model).fabric;
}

std::string
CommTransport::ListModels(bool withAuto)
{
    std::string list;
    for (const ModelEntry& entry : Models())
    {
        TypeId tid;
        if (TypeId::LookupByNameFailSafe(entry.transport, &tid))
        {
            list += (list.empty() ? "" : ", ") + entry.name;
        }
    }
    return withAuto ? list + ", auto" : list;
}

Ptr<const AttributeChecker>
CommTransport::MakeModelChecker(bool withAuto)
{
    Ptr<EnumChecker> checker = Create<EnumChecker>();
    for (std::size_t i = 0; i < Models().size(); ++i)
    {
        checker->Add(static_cast<int>(i), Models()[i].name);
    }
    if (withAuto)
    {
        checker->Add(AUTO, "auto");
    }
    return checker;
}

std::string
CommTransport::GetModelName(Model model)
{
    if (model == AUTO)
    {
        return "auto";
    }
    return Models().at(static_cast<std::size_t>(model)).name;
}

void
CommTransport::DoDispose()
{
    NS_LOG_FUNCTION(this);
    m_posted.clear();
    m_arrived.clear();
    m_calls.clear();
    m_unchecked.clear();
    m_fatal = nullptr;
    m_node = nullptr;
    Object::DoDispose();
}

void
CommTransport::Setup(Ptr<Node> node,
                     uint32_t rank,
                     std::shared_ptr<const std::vector<Address>> peers)
{
    NS_LOG_FUNCTION(this << node << rank);
    m_node = node;
    m_rank = rank;
    m_peers = std::move(peers);
}

void
CommTransport::SetFabricRanks(std::shared_ptr<const std::vector<uint32_t>> fabricRanks)
{
    NS_LOG_FUNCTION(this);
    m_fabricRanks = std::move(fabricRanks);
}

uint32_t
CommTransport::FabricRank(uint32_t rank) const
{
    if (!m_fabricRanks)
    {
        return rank;
    }
    // A rank outside the job is no rank of the fabric (never another job's): the model reports
    // it as unreachable.
    return rank < m_fabricRanks->size() ? (*m_fabricRanks)[rank]
                                        : std::numeric_limits<uint32_t>::max();
}

void
CommTransport::Start()
{
    NS_LOG_FUNCTION(this);
}

void
CommTransport::SetFatalHandler(FatalHandler handler)
{
    NS_LOG_FUNCTION(this);
    m_fatal = std::move(handler);
}

Ptr<Node>
CommTransport::GetNode() const
{
    return m_node;
}

uint32_t
CommTransport::GetRank() const
{
    return m_rank;
}

const std::vector<Address>&
CommTransport::GetPeers() const
{
    static const std::vector<Address> none;
    return m_peers ? *m_peers : none;
}

MessageHeader
CommTransport::MakeHeader(const MessageKey& key, uint64_t bytes, const CallSignature& call) const
{
    MessageHeader header;
    header.src = m_rank;
    header.key = key;
    header.payload = bytes;
    header.call = call;
    return header;
}

void
CommTransport::Send(uint32_t dst,
                    const MessageKey& key,
                    uint64_t bytes,
                    Done done,
                    const CallSignature& call)
{
    NS_LOG_FUNCTION(this << dst << bytes);
    const MessageHeader header = MakeHeader(key, bytes, call);
    if (dst == m_rank)
    {
        // A message to oneself never touches the network.
        ScheduleMoved(Time(0), [this, header, d = std::move(done)]() {
            Deliver(header);
            d();
        });
        return;
    }
    m_bytesSent += bytes;
    DoSend(dst, header, std::move(done));
}

void
CommTransport::SendCounted(uint32_t dst,
                           const MessageKey& key,
                           uint64_t bytes,
                           DoneAt done,
                           const CallSignature& call)
{
    NS_LOG_FUNCTION(this << dst << bytes);
    if (dst == m_rank)
    {
        Send(
            dst,
            key,
            bytes,
            [d = std::move(done)]() { d(Simulator::Now()); },
            call);
        return;
    }
    m_bytesSent += bytes;
    DoSendCounted(dst, MakeHeader(key, bytes, call), std::move(done));
}

void
CommTransport::DoSendCounted(uint32_t dst, const MessageHeader& header, DoneAt done)
{
    DoSend(dst, header, [d = std::move(done)]() { d(Simulator::Now()); });
}

void
CommTransport::Recv(uint32_t src,
                    const MessageKey& key,
                    uint64_t bytes,
                    Done done,
                    const CallSignature& call)
{
    NS_LOG_FUNCTION(this << src << bytes);
    Endpoint endpoint{src, key};
    PostedRecv receive{bytes, call, std::move(done)};
    auto arrived = m_arrived.lower_bound(endpoint); // the first to arrive
    if (arrived == m_arrived.end() || arrived->first != endpoint)
    {
        if (m_handoffEndpoint && *m_handoffEndpoint == endpoint && !m_handoff)
        {
            m_handoff = std::move(receive); // Deliver takes it at once
            return;
        }
        m_posted.emplace(endpoint, std::move(receive));
        return;
    }
    const ArrivedMessage message = arrived->second;
    m_arrived.erase(arrived);
    Match(src, key, message, receive);
    // As an event: a receive never completes inside the Recv call that posted it.
    ScheduleMoved(Time(0), std::move(receive.done));
}

void
CommTransport::Deliver(const MessageHeader& header)
{
    NS_LOG_FUNCTION(this);
    if (header.src != m_rank)
    {
        m_bytesReceived += header.payload;
    }
    LocalCall* running = nullptr;
    if (header.key.kind == MessageKey::COLLECTIVE)
    {
        running = CheckCall(header.src, header.key, header.call);
    }
    ArrivedMessage message{header.payload, header.call};
    Endpoint endpoint{header.src, header.key};
    auto posted = m_posted.lower_bound(endpoint); // the first posted
    if ((posted == m_posted.end() || posted->first != endpoint) &&
        header.key.kind == MessageKey::COLLECTIVE)
    {
        // The running call may have a receive for it that it has not posted yet.
        if (running && running->handler)
        {
            m_handoffEndpoint = &endpoint;
            const bool took = running->handler->PostArrived(header.src, header.key);
            m_handoffEndpoint = nullptr;
            if (took && m_handoff)
            {
                PostedRecv receive = std::move(*m_handoff);
                m_handoff.reset();
                Match(header.src, header.key, message, receive);
                receive.done();
                return;
            }
            if (took)
            {
                posted = m_posted.lower_bound(endpoint);
            }
        }
    }
    if (posted == m_posted.end() || posted->first != endpoint)
    {
        m_arrived.emplace(endpoint, message);
        return;
    }
    PostedRecv receive = std::move(posted->second);
    m_posted.erase(posted);
    Match(header.src, header.key, message, receive);
    receive.done();
}

void
CommTransport::Match(uint32_t src,
                     const MessageKey& key,
                     const ArrivedMessage& message,
                     const PostedRecv& receive)
{
    if (message.bytes == receive.bytes)
    {
        return;
    }
    std::string where = "rank " + std::to_string(m_rank);
    if (receive.call.IsKnown())
    {
        where += " node " + std::to_string(receive.call.node);
    }
    std::string sender = "rank " + std::to_string(src);
    if (message.call.IsKnown())
    {
        sender += " node " + std::to_string(message.call.node);
    }
    Fatal(where + " posted a receive of " + std::to_string(receive.bytes) + " bytes from " +
          sender + " (" + key.ToString() + "), which sent " + std::to_string(message.bytes) +
          " bytes");
}

void
CommTransport::BeginCall(uint64_t comm,
                         uint64_t seq,
                         const CallSignature& call,
                         const std::string& label)
{
    NS_LOG_FUNCTION(this << comm << seq << label);
    const CallId id{comm, seq};
    LocalCall& local = m_calls[id];
    local.call = call;
    local.label = label;
    auto early = m_unchecked.find(id);
    if (early == m_unchecked.end())
    {
        return;
    }
    // Each signature with its lowest sender, in rank order: the first sender that disagrees
    // is named, whatever the arrival order.
    std::vector<std::pair<uint32_t, CallSignature>> messages;
    for (const auto& [signature, src] : early->second)
    {
        CallSignature remote;
        std::tie(remote.node, remote.type, remote.bytes, remote.root) = signature;
        messages.emplace_back(src, remote);
    }
    m_unchecked.erase(early);
    std::sort(messages.begin(), messages.end(), [](const auto& a, const auto& b) {
        return a.first < b.first;
    });
    MessageKey key;
    key.kind = MessageKey::COLLECTIVE;
    key.comm = comm;
    key.seq = seq;
    for (const auto& [src, remote] : messages)
    {
        if (remote.IsKnown() && call.IsKnown() && !remote.SameCall(call))
        {
            Fatal(CallMismatch(src, key, remote, local));
            return;
        }
    }
}

void
CommTransport::EndCall(uint64_t comm, uint64_t seq)
{
    NS_LOG_FUNCTION(this << comm << seq);
    m_calls.erase(CallId{comm, seq});
}

void
CommTransport::SetArrivalHandler(uint64_t comm, uint64_t seq, ArrivalHandler* handler)
{
    NS_LOG_FUNCTION(this << comm << seq);
    auto call = m_calls.find(CallId{comm, seq});
    if (call != m_calls.end())
    {
        call->second.handler = handler;
    }
}

bool
CommTransport::HasArrived(uint32_t src, const MessageKey& key) const
{
    return m_arrived.find(Endpoint{src, key}) != m_arrived.end();
}

void
CommTransport::GetArrivedOfCall(
    uint64_t comm,
    uint64_t seq,
    std::vector<std::tuple<uint32_t, MessageKey, std::size_t>>& arrived) const
{
    // One entry per waiting message, the messages of one (source, key) adjacent (ordered map).
    const std::size_t first = arrived.size();
    for (const auto& [endpoint, message] : m_arrived)
    {
        const MessageKey& key = endpoint.second;
        if (key.kind != MessageKey::COLLECTIVE || key.comm != comm || key.seq != seq)
        {
            continue;
        }
        if (arrived.size() > first && std::get<0>(arrived.back()) == endpoint.first &&
            std::get<1>(arrived.back()) == key)
        {
            ++std::get<2>(arrived.back());
        }
        else
        {
            arrived.emplace_back(endpoint.first, key, 1);
        }
    }
}

CommTransport::LocalCall*
CommTransport::CheckCall(uint32_t src, const MessageKey& key, const CallSignature& remote)
{
    const CallId id{key.comm, key.seq};
    auto local = m_calls.find(id);
    if (local == m_calls.end())
    {
        // This rank has not begun the call: check when it does (every message of a call
        // carries the same signature; ranks that send the same one need one entry, the
        // lowest of them).
        auto [entry, added] = m_unchecked[id].emplace(
            std::make_tuple(remote.node, remote.type, remote.bytes, remote.root),
            src);
        entry->second = added ? src : std::min(entry->second, src);
        return nullptr;
    }
    if (remote.IsKnown() && local->second.call.IsKnown() && !remote.SameCall(local->second.call))
    {
        // The fatal handler may end the run and its calls: the message goes to no call.
        Fatal(CallMismatch(src, key, remote, local->second));
        return nullptr;
    }
    return &local->second;
}

std::string
CommTransport::CallMismatch(uint32_t src,
                            const MessageKey& key,
                            const CallSignature& remote,
                            const LocalCall& local) const
{
    NS_LOG_FUNCTION(this << src);
    return "ranks " + std::to_string(m_rank) + " and " + std::to_string(src) +
           " disagree on collective call #" + std::to_string(key.seq) + " of " + local.label +
           ": rank " + std::to_string(m_rank) + " runs " + local.call.ToString() + ", rank " +
           std::to_string(src) + " runs " + remote.ToString();
}

void
CommTransport::AddError(const std::string& error)
{
    NS_LOG_FUNCTION(this << error);
    m_errors.push_back(error);
}

void
CommTransport::Fatal(const std::string& error)
{
    NS_LOG_FUNCTION(this << error);
    NS_LOG_ERROR(error);
    if (m_fatal)
    {
        m_fatal(error);
    }
    else
    {
        m_errors.push_back(error);
    }
}

std::vector<std::string>
CommTransport::DescribePending() const
{
    std::vector<std::string> lines;
    for (const auto& [endpoint, receive] : m_posted)
    {
        lines.push_back("waits for a message from rank " + std::to_string(endpoint.first) + " (" +
                        endpoint.second.ToString() + ", " + std::to_string(receive.bytes) +
                        " bytes)");
    }
    DescribeModelPending(lines);
    return lines;
}

void
CommTransport::DescribeModelPending(std::vector<std::string>& /* lines */) const
{
}

std::vector<CommTransport::UnreceivedMessage>
CommTransport::GetUnreceived() const
{
    std::vector<UnreceivedMessage> messages;
    for (const auto& [endpoint, message] : m_arrived)
    {
        messages.push_back({endpoint.first, endpoint.second, message.bytes, message.call});
    }
    return messages;
}

const std::vector<std::string>&
CommTransport::GetErrors() const
{
    return m_errors;
}

uint64_t
CommTransport::GetBytesSent() const
{
    return m_bytesSent;
}

uint64_t
CommTransport::GetBytesReceived() const
{
    return m_bytesReceived;
}

} // namespace ns3
