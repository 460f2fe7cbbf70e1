#include "tree-collective.h"

#include "ns3/log.h"

#include <functional>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("ChakraTreeCollective");

namespace
{

/** A heap-shaped binary tree over positions 0..n-1 mapped to communicator indices. */
struct HeapTree
{
    uint32_t n;
    std::function<uint32_t(uint32_t)> rankAt; //!< position -> communicator index
    uint32_t position;                        //!< this rank's position

    bool IsRoot() const
    {
        return position == 0;
    }

    uint32_t Parent() const
    {
        return rankAt((position - 1) / 2);
    }

    std::vector<uint32_t> Children() const
    {
        std::vector<uint32_t> children;
        for (uint32_t child : {2 * position + 1, 2 * position + 2})
        {
            if (child < n)
            {
                children.push_back(rankAt(child));
            }
        }
        return children;
    }
};

/**
 * Appends a reduce of \p bytes up the tree (when \p reduce) and/or a broadcast down it, for one
 * chunk. \return the ops after which this rank holds the result
 */
std::vector<uint32_t>
AppendTreeChunk(ScheduleBuilder& builder,
                const HeapTree& tree,
                uint64_t bytes,
                int64_t tag,
                bool reduce,
                bool broadcast)
{
    std::vector<uint32_t> have;
    if (reduce)
    {
        for (uint32_t child : tree.Children())
        {
            have.push_back(builder.Recv(child, bytes, tag));
        }
        if (!tree.IsRoot())
        {
            builder.Send(tree.Parent(), bytes, tag, have);
        }
    }
    if (broadcast)
    {
        if (!tree.IsRoot())
        {
            have = {builder.Recv(tree.Parent(), bytes, tag + 1)};
        }
        for (uint32_t child : tree.Children())
        {
            builder.Send(child, bytes, tag + 1, have);
        }
    }
    return have;
}

} // namespace

NS_OBJECT_ENSURE_REGISTERED(TreeCollective);

TypeId
TreeCollective::GetTypeId()
{
    static TypeId tid = TypeId("ns3::TreeCollective")
                            .SetParent<CollectiveAlgorithm>()
                            .SetGroupName("Chakra")
                            .AddConstructor<TreeCollective>();
    return tid;
}

bool
TreeCollective::Supports(const CollectiveRequest& request) const
{
    NS_LOG_FUNCTION(this);
    switch (request.type)
    {
    case ChakraProtoMsg::ALL_REDUCE:
    case ChakraProtoMsg::BROADCAST:
    case ChakraProtoMsg::REDUCE:
    case ChakraProtoMsg::BARRIER:
        return true;
    default:
        return false;
    }
}

std::unique_ptr<CollectiveSchedule>
TreeCollective::DoBuild(const CollectiveRequest& request) const
{
    NS_LOG_FUNCTION(this);
    const uint32_t n = request.size;
    ScheduleBuilder builder;
    const uint32_t me = request.me;
    if (request.type == ChakraProtoMsg::ALL_REDUCE)
    {
        HeapTree trees[2] = {
            {n, [](uint32_t q) { return q; }, me},
            {n, [n](uint32_t q) { return n - 1 - q; }, n - 1 - me},
        };
        for (uint32_t c = 0; c < request.chunks; ++c)
        {
            uint64_t chunk = PartBytes(request.bytes, request.chunks, c);
            for (uint32_t t = 0; t < 2; ++t)
            {
                AppendTreeChunk(builder,
                                trees[t],
                                PartBytes(chunk, 2, t),
                                (static_cast<int64_t>(c) * 2 + t) * 2,
                                true,
                                true);
            }
        }
        return builder.Take();
    }
    const uint32_t root = request.root;
    HeapTree tree{n, [root, n](uint32_t q) { return (q + root) % n; }, (me + n - root) % n};
    const bool reduce = request.type == ChakraProtoMsg::REDUCE;
    for (uint32_t c = 0; c < request.chunks; ++c)
    {
        AppendTreeChunk(builder,
                        tree,
                        PartBytes(request.bytes, request.chunks, c),
                        static_cast<int64_t>(c) * 2,
                        reduce,
                        !reduce);
    }
    return builder.Take();
}

} // namespace ns3
