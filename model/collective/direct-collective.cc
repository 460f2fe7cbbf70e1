#include "direct-collective.h"

#include "ns3/log.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("ChakraDirectCollective");

NS_OBJECT_ENSURE_REGISTERED(DirectCollective);

TypeId
DirectCollective::GetTypeId()
{
    static TypeId tid = TypeId("ns3::DirectCollective")
                            .SetParent<CollectiveAlgorithm>()
                            .SetGroupName("Chakra")
                            .AddConstructor<DirectCollective>();
    return tid;
}

bool
DirectCollective::Supports(const CollectiveRequest& /* request */) const
{
    NS_LOG_FUNCTION(this);
    return true;
}

std::unique_ptr<CollectiveSchedule>
DirectCollective::DoBuild(const CollectiveRequest& request) const
{
    NS_LOG_FUNCTION(this);
    const uint32_t n = request.size;
    const uint32_t me = request.me;
    ScheduleBuilder builder;
    // Peers in the order me+1, me+2, ...: every rank starts with a different peer, so that no
    // receiver is the first target of everybody.
    auto peer = [&](uint32_t i) { return (me + i) % n; };
    const uint64_t bytes = request.bytes;
    for (uint32_t c = 0; c < request.chunks; ++c)
    {
        const uint64_t chunk = PartBytes(bytes, request.chunks, c);
        const int64_t tag = static_cast<int64_t>(c) * 2;
        switch (request.type)
        {
        case ChakraProtoMsg::ALL_TO_ALL:
        case ChakraProtoMsg::REDUCE_SCATTER:
        case ChakraProtoMsg::REDUCE_SCATTER_BLOCK:
            // Block j of every rank's buffer goes to rank j.
            for (uint32_t i = 1; i < n; ++i)
            {
                builder.Send(peer(i), PartBytes(chunk, n, peer(i)), tag);
                builder.Recv(peer(n - i), PartBytes(chunk, n, me), tag);
            }
            break;
        case ChakraProtoMsg::ALL_GATHER:
            for (uint32_t i = 1; i < n; ++i)
            {
                builder.Send(peer(i), chunk, tag);
                builder.Recv(peer(n - i), chunk, tag);
            }
            break;
        case ChakraProtoMsg::ALL_REDUCE: {
            // Reduce-scatter, then send the reduced block to everybody.
            std::vector<uint32_t> reduced;
            for (uint32_t i = 1; i < n; ++i)
            {
                builder.Send(peer(i), PartBytes(chunk, n, peer(i)), tag);
                reduced.push_back(builder.Recv(peer(n - i), PartBytes(chunk, n, me), tag));
            }
            for (uint32_t i = 1; i < n; ++i)
            {
                builder.Send(peer(i), PartBytes(chunk, n, me), tag + 1, reduced);
                builder.Recv(peer(n - i), PartBytes(chunk, n, peer(n - i)), tag + 1);
            }
            break;
        }
        case ChakraProtoMsg::BROADCAST:
            if (me == request.root)
            {
                for (uint32_t i = 1; i < n; ++i)
                {
                    builder.Send(peer(i), chunk, tag);
                }
            }
            else
            {
                builder.Recv(request.root, chunk, tag);
            }
            break;
        case ChakraProtoMsg::REDUCE:
        case ChakraProtoMsg::GATHER:
            if (me == request.root)
            {
                for (uint32_t i = 1; i < n; ++i)
                {
                    builder.Recv(peer(i), chunk, tag);
                }
            }
            else
            {
                builder.Send(request.root, chunk, tag);
            }
            break;
        case ChakraProtoMsg::SCATTER:
            if (me == request.root)
            {
                for (uint32_t i = 1; i < n; ++i)
                {
                    builder.Send(peer(i), PartBytes(chunk, n, peer(i)), tag);
                }
            }
            else
            {
                builder.Recv(request.root, PartBytes(chunk, n, me), tag);
            }
            break;
        default:
            break;
        }
    }
    return builder.Take();
}

} // namespace ns3
