/*
 * MaxMinNetwork: links of fixed capacity, flows on paths of links, and the max-min fair rate of
 * every flow, kept up to date incrementally as flows come and go. No time, no events: the flow
 * model (FlowNetwork) drives it.
 */
#ifndef CHAKRA_MAX_MIN_NETWORK_H
#define CHAKRA_MAX_MIN_NETWORK_H

#include "ns3/small-array.h"

#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

namespace ns3
{

/**
 * \ingroup chakra-transport
 * \brief Max-min fair rates of flows over capacitated links (progressive filling).
 *
 * The max-min fair allocation is the one in which no flow can get more without taking from a
 * flow that has less or the same. Progressive filling finds it: raise every flow's rate at the
 * same pace; when a link is full, the flows crossing it keep the rate they have (that link is
 * their bottleneck) and the others go on rising.
 *
 * Incremental: AddFlow and RemoveFlow only record the links they touch; Reallocate recomputes
 * the flows whose rate can have changed and reports them. Those are found by a search from the
 * touched links that crosses a link only if it was full before the change (a link with spare
 * capacity does not couple the flows on it: none of them is limited there). Flows outside the
 * search keep their rates; the links that the recomputed flows share with them are filled with
 * the capacity those flows leave. If such a link ends up full at a level below the rate of a
 * flow outside, that flow is no longer fair, and the search extends through the link and runs
 * again. The result is the allocation progressive filling gives over the whole network.
 *
 * Cost of Reallocate: O(P log P) for P = sum of the path lengths of the recomputed flows (plus
 * the flows sharing a partly full link with them, once each); a recomputed flow that shares no
 * link with another recomputed flow costs O(its path) (no heap); memory O(flows + links).
 */
class MaxMinNetwork
{
  public:
    /** Returned by AddFlow when there is no flow id (never: ids are reused). */
    static constexpr uint32_t kNoFlow = UINT32_MAX;

    /**
     * Adds a link.
     * \param capacity its capacity (any unit, the same as the rates), > 0
     * \return its index (links are numbered 0, 1, ... in the order they are added)
     */
    uint32_t AddLink(double capacity);
    /** \return the number of links */
    uint32_t GetLinkCount() const;
    /** \return a link's capacity */
    double GetCapacity(uint32_t link) const;

    /**
     * Adds a flow; its rate is 0 until the next Reallocate.
     * \param path the links it crosses (each at most once, all existing, at least one)
     * \param weights empty (the flow's whole rate crosses every link of its path), or one per
     *        link of \p path in (0, 1]: the share of the flow's rate that crosses that link (a
     *        flow split over several paths, as packet spraying splits it: a link carries
     *        rate x weight of it)
     * \return its id (the id of a removed flow may be given again)
     */
    uint32_t AddFlow(const std::vector<uint32_t>& path, const std::vector<double>& weights = {});
    /**
     * Checks a flow's path and weights as AddFlow does.
     * \throws std::invalid_argument naming what is wrong
     */
    void CheckPath(const std::vector<uint32_t>& path,
                   const std::vector<double>& weights = {}) const;
    /**
     * AddFlow without the checks, for a path and weights CheckPath accepted: the flow model
     * checks a channel's path once, when the channel is made, not at each of its messages.
     */
    uint32_t AddCheckedFlow(const std::vector<uint32_t>& path,
                            const std::vector<double>& weights = {});
    /** Removes a flow; its capacity is given to the others at the next Reallocate. */
    void RemoveFlow(uint32_t flow);

    /**
     * Recomputes the rates that the flows added and removed since the last call can change.
     * \param[out] changed the flows whose rate changed (new flows included), each once
     */
    void Reallocate(std::vector<uint32_t>& changed);

    /** \return a flow's rate (as of the last Reallocate) */
    double GetRate(uint32_t flow) const;
    /** \return a flow's path */
    std::vector<uint32_t> GetPath(uint32_t flow) const;
    /** \return the flows now on the network */
    uint32_t GetFlowCount() const;
    /** \return the flows crossing a link (any order) */
    std::vector<uint32_t> GetFlowsOn(uint32_t link) const;
    /**
     * \return the sum of the rates (x their weights on it) of the flows crossing a link (as of
     *         the last Reallocate)
     */
    double GetLoad(uint32_t link) const;

    /** Work counters (for the report and the benchmarks). */
    struct Counters
    {
        uint64_t reallocations{0};    //!< Reallocate calls with something to do
        uint64_t flowsRecomputed{0};  //!< sum over them of the flows recomputed
        uint64_t largestComponent{0}; //!< most flows recomputed by one call
        uint64_t extensions{0};       //!< searches extended through a link that became full
    };

    /** \return the counters */
    const Counters& GetCounters() const;

  private:
    /** Flows whose ids a link keeps inside its own cache lines (more go to the heap). */
    static constexpr uint32_t kInlineFlowsPerLink = 12;
    /** Links of a path a flow keeps inside its own cache lines (a three-tier path has 6). */
    static constexpr uint32_t kInlineHops = 7;

    /**
     * A link, with Reallocate's scratch and the ids of the flows crossing it, in two cache
     * lines. A recomputation at thousands of ranks reads its links cold: the link, a scratch
     * array and a heap block of flow ids were three misses per link. The search (Expand) reads
     * the first line only while the link has at most 4 flows; the fill reads the second.
     * Stamps (== m_epoch) avoid clearing the scratch per call.
     */
    struct alignas(64) Link
    {
        double capacity{0};
        double load{0};                                  //!< sum of the rates of its flows
        uint64_t expanded{0};                            //!< == m_epoch: the link is in the search
        uint64_t inFill{0};                              //!< == m_epoch: the link is in m_fillLinks
        SmallArray<uint32_t, kInlineFlowsPerLink> flows; //!< flows crossing it (any order)
        double remaining{0};                             //!< Fill: capacity left for unfrozen flows
        double unfrozenWeight{0}; //!< Fill: their weights' sum (their count when no flow is
                                  //!< weighted: the same shares exactly)
        double outsideMax{0};     //!< Fill: largest rate of a flow not recomputed
        uint32_t unfrozen{0};     //!< Fill: recomputed flows not frozen yet
    };

    /** A link of a flow's path and the flow's index in that link's list of flows. */
    struct Hop
    {
        uint32_t link;
        uint32_t slot; //!< index of the flow in m_links[link].flows
    };

    /**
     * A flow, its path inside it: two cache lines, of which the search (Expand) reads the
     * first only for paths of up to 4 links.
     */
    struct alignas(64) Flow
    {
        // Reallocate's scratch, beside what it reads of the flow anyway.
        uint64_t inSet{0}; //!< == m_epoch: the flow is recomputed
        double rate{0};
        SmallArray<Hop, kInlineHops> hops;
        std::unique_ptr<double[]> weight; //!< per hop; null: 1 on every link
        double newRate{0};                //!< rate found by Fill
        bool frozen{false};               //!< Fill has fixed its rate
        bool alive{false};
    };

    /** \return the share of flow \p f's rate that crosses link \p l (on its path) */
    double WeightOn(const Flow& f, uint32_t l) const;
    /** \return true if a link had no spare capacity */
    bool IsFull(const Link& link) const;
    /** Adds a link to the search and the flows on it to the recomputed set. */
    void Expand(uint32_t link);
    /**
     * Checks the flows left out of the search on a link where the recomputed ones stop at
     * \p level: if one of them keeps more, queues the link for the search (m_queue).
     * \return true if it did (the fill must run again over the extended search)
     */
    bool ExtendIfUnfair(uint32_t link, double level);
    /**
     * Progressive filling over the recomputed flows.
     * \return false if a link outside the search must be added (m_queue holds it), true when
     *         the allocation is final
     */
    bool Fill();

    std::vector<Link> m_links;
    std::vector<Flow> m_flows;
    std::vector<uint32_t> m_freeFlows;
    uint32_t m_aliveFlows{0};
    std::vector<uint32_t> m_touched; //!< links touched since the last Reallocate

    // Scratch of Reallocate, kept between calls (stamps avoid clearing per call).
    uint64_t m_epoch{0};
    std::vector<uint32_t> m_queue;                 //!< links to expand
    std::vector<uint32_t> m_setFlows;              //!< the flows recomputed
    std::vector<uint32_t> m_fillLinks;             //!< links crossed by the recomputed flows
    using HeapEntry = std::pair<double, uint32_t>; //!< (fair share, link)
    std::vector<HeapEntry> m_heap;                 //!< Fill's min-heap
    Counters m_counters;
};

} // namespace ns3

#endif // CHAKRA_MAX_MIN_NETWORK_H
