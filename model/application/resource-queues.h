/*
 * ResourceQueues: the compute streams, communication streams and host threads of one rank.
 */
#ifndef CHAKRA_RESOURCE_QUEUES_H
#define CHAKRA_RESOURCE_QUEUES_H

#include "ns3/et-node.h"

#include <deque>
#include <memory>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup chakra-application
 * \brief Runs the nodes of one GPU stream or one host thread one at a time, in issue order.
 *
 * A compute node occupies its stream ("stream" attribute, default 0) or, for a CPU op, its
 * host thread ("tid", default 0). A communication node occupies one only when it names it, as
 * an NCCL kernel occupies its stream; otherwise it runs beside everything.
 */
class ResourceQueues
{
  public:
    /** \return the resource (stream or thread) \p node occupies, or "" for none */
    static std::string ResourceOf(const EtNode& node);

    /** A resource as a number pair, the key of the queues (its name is built only to show). */
    struct Resource
    {
        bool none{true};   //!< the node occupies no resource
        bool cpu{false};   //!< a host thread (else a GPU stream)
        int64_t number{0}; //!< the thread's or stream's number

        /** \return the order of the queues (any strict order) */
        bool operator<(const Resource& other) const
        {
            return cpu != other.cpu ? cpu < other.cpu : number < other.number;
        }
    };

    /** \return the resource \p node occupies, as ResourceOf names it */
    static Resource KeyOf(const EtNode& node);
    /** \return ResourceOf's name of a resource ("" for none) */
    static std::string NameOf(const Resource& resource);

    /**
     * \return true if \p node may run now (its resource was free and is now held by it, or it
     *         needs none); false if it waits behind its resource's running node
     */
    bool Acquire(std::shared_ptr<const EtNode> node);

    /**
     * \p node finished: its resource passes to the next waiting node.
     * \return that node, to run now (null if none waits; the resource is then free)
     */
    std::shared_ptr<const EtNode> Release(const EtNode& node);

    /** \return one line per waiting node, naming the resource it waits for */
    std::vector<std::string> DescribeWaiting() const;

  private:
    /** One resource: whether a node holds it, and the nodes waiting for it in order. */
    struct Queue
    {
        Resource resource;                                 //!< the key
        bool busy{false};                                  //!< held by a running node
        std::deque<std::shared_ptr<const EtNode>> waiting; //!< behind it, oldest first
    };

    /** \return the queue of \p resource, added free and empty on first use */
    Queue& QueueOf(const Resource& resource);

    // A rank uses a handful of streams and threads: a linear scan of a small vector touches
    // one or two cache lines, where a std::map per lookup chased a pointer per level (this
    // runs twice per node, on state that is cold at thousands of ranks).
    std::vector<Queue> m_queues; //!< in order of first use
};

} // namespace ns3

#endif // CHAKRA_RESOURCE_QUEUES_H
