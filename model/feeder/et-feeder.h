/*
 * EtFeeder: streams one rank's .et and hands out the nodes whose dependencies are met.
 */
#ifndef CHAKRA_ET_FEEDER_H
#define CHAKRA_ET_FEEDER_H

#include "compact-id-set.h"
#include "et-node-store.h"
#include "flat-id-map.h"

#include "ns3/et-node.h"
#include "ns3/et-reader.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <queue>
#include <string>
#include <unordered_map>
#include <vector>

namespace ns3
{

/**
 * \ingroup chakra-feeder
 * \brief Options of an EtFeeder.
 */
struct EtFeederOptions
{
    /**
     * Nodes held in memory at once (loaded and not yet removed). The feeder reads a node only
     * when none is ready, and reads ahead at most this far; it reads past the window only when
     * nothing can run otherwise (no node ready, none in flight), so that any trace completes.
     */
    std::size_t windowSize{16384};
    bool honourDataDeps{true}; //!< a node waits for its data_deps
    bool honourCtrlDeps{true}; //!< a node waits for its ctrl_deps
    /**
     * A dependency on an id that never appears in the file: when false (default) the nodes
     * waiting for it are reported as stuck at the end of the file; when true it counts as
     * satisfied and a warning is emitted (what the reference converter's output needs: it
     * deletes thread roots that ctrl_deps still name).
     */
    bool danglingAsSatisfied{false};
    /** Receives warnings (dangling dependencies); default: none. */
    std::function<void(const std::string&)> warn;
    /**
     * Called for every node as it is read, in file order (the trace's program order), before
     * it can be issued; default: none. A throw (TraceError) stops the feeder like a bad node.
     */
    std::function<void(const EtNode&)> onRead;
    /**
     * Called for every node as it is read, before onRead and before it is held, to drop fields
     * the caller never reads; default: none (nodes are held whole). The feeder holds up to
     * windowSize nodes, and a replay one feeder per rank, so what a node keeps is paid per
     * node per rank. It must not change the node's id, type, name or dependency lists.
     */
    std::function<void(ChakraProtoMsg::Node&)> trim;
};

/**
 * \ingroup chakra-feeder
 * \return true if a trace's metadata says it was written by the reference Chakra PyTorch
 * converter (attributes pid and start_ts/finish_ts of the host trace, and no "source", which this
 * module's converter writes): its ctrl_deps are the host trace's call tree (a node's parent),
 * not dependencies, and contain cycles.
 */
bool HasCallTreeCtrlDeps(const ChakraProtoMsg::GlobalMetadata& metadata);

/**
 * \ingroup chakra-feeder
 * \brief A node that cannot run, and what it waits for (see EtFeeder::GetStuckNodes).
 */
struct EtStuckNode
{
    uint64_t id{0};                   //!< the node
    std::string name;                 //!< its name
    std::vector<uint64_t> waitingFor; //!< parents that have not finished
    std::vector<uint64_t> missing;    //!< those of them that never appear in the file
};

/**
 * \ingroup chakra-feeder
 * \brief Hands out the nodes of one .et whose dependencies have finished, lowest id first.
 *
 * The caller's loop:
 * \code
 *   while (feeder.HasNodesToIssue() || <nodes running>) {
 *       auto node = feeder.GetNextIssuableNode();   // run it ...
 *       ... when it finishes: feeder.FreeChildrenNodes(id); feeder.RemoveNode(id);
 *   }
 * \endcode
 * PushBackIssuableNode() returns a taken node that the caller cannot run yet.
 * (The reference Chakra feeder calls these hasNodesToIssue, getNextIssuableNode,
 * freeChildrenNodes, removeNode, pushBackIssuableNode, lookupNode.)
 *
 * Guarantees: every node is issued exactly once and never before all its (honoured) parents
 * finished, whatever the window size and however many nodes are in flight. Among the loaded
 * ready nodes the lowest id is issued first. Finished ids are kept in a CompactIdSet, so memory
 * is the window plus about one bit per finished id.
 *
 * Nodes are read only when no loaded node is ready, so the window is how far the feeder looks
 * ahead for ready nodes while others run: a node more than windowSize nodes past the oldest
 * loaded one is read only when the window moves (or when nothing is ready and nothing runs). So for
 * a file with ascending ids (what writers emit) the issue order does not depend on the window when
 * the caller finishes each node before asking for the next, and with many nodes in flight it does
 * not depend on it as long as the trace, or the distance between independent nodes, fits in the
 * window (default 16,384).
 *
 * Errors (TraceError naming the file and node): a damaged file; a duplicate id; a node that
 * lists itself in an honoured dependency list (it could never run; the reference converter
 * writes such ctrl_deps, which are call-tree links there and must be switched off); and, once
 * the file is exhausted with nothing ready and nothing in flight, the stuck nodes: dependencies
 * on ids that never appear, or a cycle (with its ids). Ids may be any 64-bit values, in any
 * order, with any gaps.
 */
class EtFeeder
{
  public:
    /**
     * Opens a trace (nodes are read on demand by HasNodesToIssue).
     * \param path the .et file
     * \param options see EtFeederOptions
     * \throws TraceError on a bad file
     */
    explicit EtFeeder(const std::string& path, EtFeederOptions options = EtFeederOptions());

    /**
     * Feeds the nodes of a store shared with other feeders (options.trim is not applied: the
     * store's nodes are trimmed already). The dependency graph is the store's (shared); the
     * feeder keeps dense state by position (a pending count and three bits per node) and
     * behaves exactly as on the file.
     * \param store the nodes (not null)
     * \param options see EtFeederOptions
     */
    EtFeeder(std::shared_ptr<const EtNodeStore> store, EtFeederOptions options = EtFeederOptions());

    /**
     * \return true if a node can be issued now. Reads ahead as needed.
     * \throws TraceError when the run is stuck: nothing ready, nothing in flight, the file
     *         exhausted and nodes left (the message lists them and what they wait for)
     */
    bool HasNodesToIssue();

    /**
     * Takes the ready node with the lowest id.
     * \return the node, or nullptr if none is ready
     */
    std::shared_ptr<const EtNode> GetNextIssuableNode();

    /**
     * Puts back a node taken with GetNextIssuableNode() that the caller could not run.
     * \param id the node \throws std::logic_error if it was not taken
     */
    void PushBackIssuableNode(uint64_t id);

    /**
     * Marks an issued node finished and releases the dependents whose parents are now all done.
     * \param id the node \throws std::logic_error if it was not issued (or already finished)
     */
    void FreeChildrenNodes(uint64_t id);

    /**
     * Forgets a finished node (frees its memory).
     * \param id the node \throws std::logic_error if it is loaded and not finished
     */
    void RemoveNode(uint64_t id);

    /**
     * \param id a node id
     * \return the node if it is loaded (read and not removed), else nullptr
     */
    std::shared_ptr<const EtNode> LookupNode(uint64_t id) const;

    /** \return true once every node of the file has been read and finished */
    bool IsDone();

    /** \return the number of nodes issued and not yet finished */
    std::size_t GetInFlightCount() const;
    /** \return nodes read from the file so far */
    uint64_t GetNodesRead() const;
    /** \return nodes finished so far */
    uint64_t GetNodesFinished() const;
    /** \return nodes currently held in memory */
    std::size_t GetLoadedCount() const;
    /** \return the file's metadata */
    const ChakraProtoMsg::GlobalMetadata& GetMetadata() const;
    /** \return the trace path */
    const std::string& GetPath() const;

    /**
     * Reads the rest of the file if needed and lists the loaded nodes that wait for parents
     * that have not finished, with the parents that never appear in the file. Meaningful when
     * the caller has nothing in flight (otherwise in-flight parents show up as waited for).
     */
    std::vector<EtStuckNode> GetStuckNodes();

    /**
     * Changes whether ctrl_deps are honoured; only before the first node is read (e.g. once the
     * metadata says what the ctrl_deps mean, see HasCallTreeCtrlDeps).
     * \throws std::logic_error if nodes were read already
     */
    void SetHonourCtrlDeps(bool honour);

    /**
     * \return a cycle among the stuck nodes (ids, each waiting for the next, the last waiting
     *         for the first), or empty if there is none
     */
    std::vector<uint64_t> FindCycle();

  private:
    /** Per loaded node bookkeeping. */
    struct Entry
    {
        std::shared_ptr<const EtNode> node; //!< the node
        std::vector<uint64_t> children;     //!< loaded nodes waiting for this one
        uint32_t pending{0};                //!< parents not yet finished
        bool issued{false};                 //!< handed out and not put back
        bool finished{false};               //!< FreeChildrenNodes called
    };

    /** Reads one node from the file into the window. \return false at end of file */
    bool LoadOne();
    /** Resolves dependencies on ids that, the whole file read, never appeared. */
    void ResolveDangling();
    /** Makes a node ready. */
    void MakeReady(uint64_t id);
    /** Fills \p parents with the honoured parents of a node, without duplicates. */
    void ParentsOf(const EtNode& node, std::vector<uint64_t>& parents) const;
    /** One parent of a node has finished: \p child may become ready. */
    void ReleaseOne(uint64_t child);
    /** Emits the dangling-dependency warning for \p missing and the nodes that named it. */
    void Warn(uint64_t missing, const std::vector<uint64_t>& children);
    /** Checks a node just read (duplicate id, order); \p read counts it. */
    void CheckRead(uint64_t id, const std::string& name, uint64_t read);
    /** Throws the error of a node that lists itself in an honoured list. */
    [[noreturn]] void ThrowSelfDependency(const EtNode& node) const;
    /** The stuck-node report of a loaded node waiting for parents. */
    EtStuckNode StuckItem(uint64_t id, const EtNode& node) const;
    /** Store mode: the dependency graph and per-position state, on the first read. */
    void StoreInit();
    /** Store mode: LoadOne. */
    bool StoreLoadOne();
    /** Store mode: \return the loaded position of \p id, or kNotLoaded */
    uint32_t StoreLoaded(uint64_t id) const;
    /** Store mode: FreeChildrenNodes after the checks. */
    void StoreFinish(uint32_t pos);
    /** Throws the stuck-run error. */
    [[noreturn]] void ThrowStuck();
    /** \return true if a node of id \p id has been read (store mode: by its position) */
    bool WasRead(uint64_t id) const;
    /** \return true if the node of id \p id has finished (store mode: by its position) */
    bool HasFinished(uint64_t id) const;
    /** \return the number of nodes read */
    uint64_t NodesRead() const;

    EtFeederOptions m_options;                  //!< options
    std::unique_ptr<EtReader> m_reader;         //!< the file (or null: m_store)
    std::shared_ptr<const EtNodeStore> m_store; //!< the shared nodes (or null: m_reader)
    std::size_t m_storeNext{0};                 //!< the store's next node
    bool m_eof{false};                          //!< the whole file read
    bool m_ascending{true};                     //!< ids so far ascending
    uint64_t m_lastId{0};                       //!< last id read
    FlatIdMap<Entry> m_loaded;                  //!< the window
    /** Children waiting for a parent that is not loaded (not read yet, or never in the file). */
    std::unordered_map<uint64_t, std::vector<uint64_t>> m_waiters;
    std::vector<uint64_t> m_parents; //!< scratch for ParentsOf
    std::priority_queue<uint64_t, std::vector<uint64_t>, std::greater<uint64_t>> m_ready; //!< ids
    // File mode only: store mode answers both from positions (WasRead, HasFinished).
    CompactIdSet m_seen;            //!< every id read
    CompactIdSet m_finished;        //!< every id finished
    CompactIdSet m_presumedMissing; //!< dangling ids decided before the end of the file
    std::size_t m_inFlight{0};      //!< issued, not finished
    uint64_t m_finishedCount{0};    //!< nodes finished
    ChakraProtoMsg::Node m_scratch; //!< parse buffer

    // Store mode: dense state by position in the store (no per-node heap allocation).
    static constexpr uint32_t kNotLoaded = UINT32_MAX; //!< StoreLoaded: not loaded
    const EtDepGraph* m_graph{nullptr};                //!< the store's graph for the options
    std::vector<uint32_t> m_pending;                   //!< parents not yet finished
    std::vector<bool> m_isLoaded;                      //!< read and not removed
    std::vector<bool> m_isIssued;                      //!< handed out and not put back
    std::vector<bool> m_isFinished;                    //!< FreeChildrenNodes called
    std::size_t m_loadedCount{0};                      //!< positions loaded
};

} // namespace ns3

#endif // CHAKRA_ET_FEEDER_H
