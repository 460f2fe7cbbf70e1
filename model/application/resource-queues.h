/*
 * ResourceQueues: the compute streams, communication streams and host threads of one rank.
 */
#ifndef CHAKRA_RESOURCE_QUEUES_H
#define CHAKRA_RESOURCE_QUEUES_H

#include "ns3/et-node.h"

#include <deque>
#include <map>
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
    std::map<std::string, bool> m_busy;                                         //!< by resource
    std::map<std::string, std::deque<std::shared_ptr<const EtNode>>> m_waiting; //!< by resource
};

} // namespace ns3

#endif // CHAKRA_RESOURCE_QUEUES_H
