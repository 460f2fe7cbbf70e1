/*
 * The host side of a linking job: a PyTorch execution trace (JSON), in any of its schemas.
 */
#ifndef CHAKRA_HOST_TRACE_H
#define CHAKRA_HOST_TRACE_H

#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace ns3
{

/** JSON with keys kept in the order they were read (the linked trace keeps the host's order). */
using HostJson = nlohmann::ordered_json;

/**
 * \ingroup chakra-linker
 * \brief How a host execution trace stores node fields.
 */
enum class HostSchemaStyle
{
    TOP_LEVEL, //!< schema 1.0.1: fields at the top level of a node, call-tree parent in "parent"
    ATTRS      //!< "-chakra.*" schemas: "ctrl_deps" = parent, other fields in "attrs"
};

/** Marks an absent integer field (rf_id, seq_id, ...). */
constexpr int64_t kHostNone = std::numeric_limits<int64_t>::min();

/** \ingroup chakra-linker \brief The fields of one host node that the linker uses. */
struct HostOp
{
    uint64_t id{0};              //!< node id
    uint64_t parent{0};          //!< call-tree parent id (the root names itself)
    bool hasParent{false};       //!< false if the node has no parent field
    std::string name;            //!< operator name
    int64_t rfId{kHostNone};     //!< rf_id (0 and absent mean none)
    int64_t seqId{kHostNone};    //!< seq_id (-1 means none)
    int64_t tid{kHostNone};      //!< host thread
    int64_t fwParent{kHostNone}; //!< fw_parent
    bool traceNode{false};       //!< the profiler's process or thread node, not an operator
    std::size_t index{0};        //!< position in the document's "nodes"
};

/**
 * \ingroup chakra-linker
 * \brief A host execution trace (plain or gzip'd JSON): the document as read, plus a typed view
 * of its nodes.
 *
 * Accepts schema 1.0.1 (fields at the node's top level, "parent") and the "-chakra.*" schemas
 * ("ctrl_deps" = parent, "attrs" = list of {name, type, value}). Fields are looked up at the top
 * level first, then in "attrs", so mixed or unknown schema versions read too.
 */
class HostTrace
{
  public:
    /**
     * Reads a trace.
     * \param path the file
     * \throws TraceError naming the file and node on malformed JSON, missing or mistyped fields,
     * duplicate ids, a parent that names no node, or a trace without operators
     */
    explicit HostTrace(const std::string& path);

    /** \return the file */
    const std::string& GetPath() const;
    /** \return the "schema" string ("" if absent) */
    const std::string& GetSchema() const;
    /** \return how nodes store their fields */
    HostSchemaStyle GetStyle() const;
    /** \return the key of the call-tree parent: "parent" or "ctrl_deps" */
    const char* GetParentKey() const;
    /** \return the top-level "pid", if present */
    std::optional<int64_t> GetPid() const;

    /** \return the nodes (operators and trace nodes), sorted by id */
    const std::vector<HostOp>& GetOps() const;
    /** \return the document as read */
    const HostJson& GetDocument() const;
    /** \return the document, to move from */
    HostJson& GetDocument();
    /** \return the index in GetOps() of a node id, or -1 */
    int64_t FindOp(uint64_t id) const;

    /**
     * \param node a node object of a host trace
     * \param key a field name
     * \return the field from the node's top level, else from its "attrs" (nullptr if absent)
     */
    static const HostJson* FindField(const HostJson& node, const std::string& key);

  private:
    /** Parses the file into m_document. */
    void ReadDocument();
    /**
     * Checks the top level (an object with a non-empty "nodes" list, not a linked trace) and
     * reads the schema, its field layout and the pid.
     * \return the "nodes" list
     */
    const HostJson& ReadTopLevel();
    /** Throws if \p nodes holds a GPU op (a node with "cat"): the trace is linked already. */
    void RefuseGpuOps(const HostJson& nodes) const;
    /**
     * \param node the node object
     * \param index its position in "nodes"
     * \return the node's fields
     */
    HostOp ReadOp(const HostJson& node, std::size_t index) const;
    /** Sorts m_ops by id; checks ids, parents, the tree and that there is an operator. */
    void CheckCallTree();
    /** Throws if the parent links of m_ops (checked to name nodes) loop. */
    void CheckNoParentCycle() const;

    std::string m_path;                                  //!< the file
    std::string m_schema;                                //!< "schema"
    HostSchemaStyle m_style{HostSchemaStyle::TOP_LEVEL}; //!< field layout
    std::optional<int64_t> m_pid;                        //!< "pid"
    std::vector<HostOp> m_ops;                           //!< sorted by id
    HostJson m_document;                                 //!< as read
};

} // namespace ns3

#endif // CHAKRA_HOST_TRACE_H
