/*
 * EtNodeStore: the nodes of one .et parsed once, shared by the feeders of every rank that
 * reads the file (traces per role).
 */
#ifndef CHAKRA_ET_NODE_STORE_H
#define CHAKRA_ET_NODE_STORE_H

#include "ns3/et-node.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace ns3
{

/**
 * \ingroup chakra-feeder
 * Fills \p parents with the ids a node waits for: its data_deps if \p data, its ctrl_deps if
 * \p ctrl, ascending and without duplicates (the same parent often appears in both lists).
 * The one rule of the feeder (file mode) and of EtNodeStore::Graph (store mode).
 */
void HonouredParents(const EtNode& node, bool data, bool ctrl, std::vector<uint64_t>& parents);

/**
 * \ingroup chakra-feeder
 * \brief The dependency graph of an EtNodeStore by position (file order), for one choice of
 * honoured dependency lists: what every feeder of the store would otherwise compute per rank.
 */
struct EtDepGraph
{
    static constexpr uint32_t kNotInFile = UINT32_MAX; //!< parentPos of an id not in the file
    /** Node p's honoured parents are [parentStart[p], parentStart[p + 1]). */
    std::vector<uint32_t> parentStart;
    std::vector<uint64_t> parentIds; //!< their ids, ascending, without duplicates, per node
    std::vector<uint32_t> parentPos; //!< their positions (first with the id), or kNotInFile
    /** Node p's children (nodes listing its id) are [childStart[p], childStart[p + 1]). */
    std::vector<uint32_t> childStart;
    std::vector<uint32_t> children; //!< their positions
};

/**
 * \ingroup chakra-feeder
 * \brief Every node of one .et, read and trimmed once, immutable: what the EtFeeders of the
 * ranks that read the same file (a role's trace, RankRoles) hand out, instead of a parsed copy
 * per rank. A feeder keeps only its bookkeeping per node (EtFeeder's window).
 *
 * Shared() keeps one store per (path, trim key) while some feeder holds it: the first rank
 * parses the file, the others share it, and the nodes are freed with the last feeder.
 */
class EtNodeStore
{
  public:
    /** Drops fields the caller never reads (see EtFeederOptions::trim); may be empty. */
    using TrimFn = std::function<void(ChakraProtoMsg::Node&)>;

    /**
     * Reads a whole file.
     * \param path the .et file
     * \param trim applied to each node as it is read (may be empty)
     * \throws TraceError on a bad file
     */
    EtNodeStore(const std::string& path, const TrimFn& trim);

    /**
     * \return the store of \p path read with \p trim, shared with every other caller that gave
     *         the same path and \p trimKey while one of them holds it
     * \param path the .et file
     * \param trimKey names \p trim ("" for none): stores of one path trimmed differently differ
     * \param trim see the constructor
     * \throws TraceError on a bad file
     */
    static std::shared_ptr<const EtNodeStore> Shared(const std::string& path,
                                                     const std::string& trimKey,
                                                     const TrimFn& trim);

    /** \return the file's metadata */
    const ChakraProtoMsg::GlobalMetadata& GetMetadata() const;
    /** \return the trace path */
    const std::string& GetPath() const;
    /** \return the number of nodes */
    std::size_t GetSize() const;
    /** \return node \p index, in file order */
    const std::shared_ptr<const EtNode>& At(std::size_t index) const;
    /** \return the position of the first node with id \p id, or GetSize() if there is none */
    std::size_t Find(uint64_t id) const;
    /**
     * \return the dependency graph honouring data_deps if \p data and ctrl_deps if \p ctrl,
     *         built on the first call and shared by every later caller
     */
    const EtDepGraph& Graph(bool data, bool ctrl) const;

  private:
    std::string m_path;                                 //!< the file
    ChakraProtoMsg::GlobalMetadata m_metadata;          //!< its metadata
    std::vector<std::shared_ptr<const EtNode>> m_nodes; //!< its nodes, in file order
    std::vector<std::pair<uint64_t, uint32_t>> m_byId;  //!< (id, position), ascending
    /**
     * When the ids are dense (their range at most 4 times the node count, as every generated
     * and converted trace has), position by id - m_minId (kNotInFile: no node), and m_byId is
     * dropped: Find runs per node and per dependency, and a binary search over a role's
     * nodes cost a cache miss per step.
     */
    std::vector<uint32_t> m_posById;
    uint64_t m_minId{0};                             //!< the smallest id (m_posById)
    mutable std::unique_ptr<EtDepGraph> m_graphs[4]; //!< by data + 2 * ctrl, built lazily
};

} // namespace ns3

#endif // CHAKRA_ET_NODE_STORE_H
