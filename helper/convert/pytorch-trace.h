/*
 * A PyTorch host execution trace (plain, or linked with its Kineto trace: doc/linked-trace.md)
 * read into one node model for every schema.
 */
#ifndef CHAKRA_PYTORCH_TRACE_H
#define CHAKRA_PYTORCH_TRACE_H

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ns3
{

/**
 * \ingroup chakra-converter
 * \brief One "{name, type, value}" attribute of a trace node.
 *
 * Schema 1.0.1 has no attribute list: its top-level node fields (rf_id, tid, op_schema, ...)
 * are presented as attributes too, typed from their JSON value.
 */
struct PyTorchAttr
{
    std::string name;     //!< attribute name
    std::string type;     //!< the trace's type name ("uint64", "int64", "string", ...)
    nlohmann::json value; //!< the value as given
};

/**
 * \ingroup chakra-converter
 * \brief The inputs or the outputs of a node: three parallel JSON arrays, kept as compact JSON
 * text (most nodes only pass them through to the .et; the few that need them parse them again).
 */
struct PyTorchIo
{
    std::string values{"[]"}; //!< argument values (JSON array)
    std::string shapes{"[]"}; //!< argument shapes (JSON array)
    std::string types{"[]"};  //!< argument type names (JSON array)

    /** \return values, parsed */
    nlohmann::json ParseValues() const;
    /** \return types, parsed */
    nlohmann::json ParseTypes() const;
    /** \return true if all three arrays are empty */
    bool IsEmpty() const;
};

/**
 * \ingroup chakra-converter
 * \brief One node of a host or linked trace: a host op, or a GPU op added by the linker.
 *
 * Times are microseconds. Every optional field is absent when the trace does not give it.
 */
struct PyTorchNode
{
    uint64_t id{0};                         //!< node id (unique in the trace)
    std::string name;                       //!< op name, kernel name, annotation
    std::optional<uint64_t> parent;         //!< call-tree parent id as written in the trace
    bool isGpuOp{false};                    //!< true if the node has a "cat" key
    std::string cat;                        //!< "kernel", "gpu_memcpy", "gpu_memset" (GPU ops)
    std::optional<int64_t> tid;             //!< host thread
    std::optional<double> ts;               //!< start
    std::optional<double> dur;              //!< GPU op duration
    std::optional<double> inclusiveDur;     //!< host op duration with its children
    std::optional<double> exclusiveDur;     //!< host op duration without its children
    std::optional<double> waitDur;          //!< part of exclusiveDur spent blocked (linker)
    std::optional<double> gapDur;           //!< thread time before the op, outside any op
    std::optional<int64_t> stream;          //!< GPU stream
    std::optional<int64_t> device;          //!< GPU device
    std::optional<int64_t> correlation;     //!< Kineto correlation id
    std::optional<std::string> pgName;      //!< process group named by a NCCL kernel
    std::optional<uint64_t> interThreadDep; //!< host op of another thread to wait for
    std::vector<uint64_t> syncDeps;         //!< GPU ops this host op waited for
    std::vector<uint64_t> crossStreamDeps;  //!< GPU ops of other streams this GPU op waited for
    PyTorchIo inputs;                       //!< inputs
    PyTorchIo outputs;                      //!< outputs
    std::vector<PyTorchAttr> attrs;         //!< attributes in trace order

    /**
     * \param attrName an attribute name
     * \return its value, or nullptr if the node has no such attribute
     */
    const nlohmann::json* FindAttr(std::string_view attrName) const;

    /** \return "node <id> (<name>)": the position used in errors */
    std::string Describe() const;
};

/**
 * \ingroup chakra-converter
 * \brief The "trace_link" object of a linked trace (absent in a plain host trace).
 */
struct TraceLinkInfo
{
    bool present{false};              //!< true if the trace has a "trace_link" object
    std::optional<int64_t> rank;      //!< global rank of the trace
    std::optional<int64_t> worldSize; //!< number of ranks of the job
    std::string backend;              //!< "nccl", "gloo", ... ("" if unknown)
    std::string gpuName;              //!< GPU model from device_properties ("" if unknown)
};

/**
 * \ingroup chakra-converter
 * \brief A whole PyTorch trace in memory, nodes sorted by id, with its call tree.
 *
 * Schema 1.0.1 (and older 1.0.x without "-chakra"): node fields at the top level, parent in
 * "parent", inputs in "inputs"/"input_shapes"/"input_types". Schemas "1.x-chakra.*": parent in
 * "ctrl_deps", inputs as {values, shapes, types}, attributes in "attrs". The keys a linker adds
 * (doc/linked-trace.md) are read at the top level of a node, or from "attrs" as a fallback.
 *
 * A parent that is the node itself or names no node of the trace makes the node a root (the
 * latter is counted: GetDanglingParents()). Parent links that loop are an error.
 */
class PyTorchTrace
{
  public:
    /**
     * Reads a plain or gzip'd JSON trace.
     * \param path the file
     * \return the trace
     * \throws TraceError naming the file, the node and the field on bad input
     */
    static PyTorchTrace Load(const std::string& path);

    /**
     * Reads a trace from text.
     * \param text the JSON document
     * \param path the name used in errors
     * \return the trace
     * \throws TraceError on bad input
     */
    static PyTorchTrace Parse(const std::string& text, const std::string& path);

    /** \return the file name given to Load or Parse */
    const std::string& GetPath() const;
    /** \return the trace's "schema" string */
    const std::string& GetSchema() const;
    /** \return true for the 1.0.1 layout (top-level fields, "parent") */
    bool IsLegacySchema() const;
    /** \return the trace_link information */
    const TraceLinkInfo& GetTraceLink() const;

    /** \return the nodes, sorted by id */
    const std::vector<PyTorchNode>& GetNodes() const;
    /** \return the number of nodes */
    std::size_t GetSize() const;
    /** \param index a node index \return the node */
    const PyTorchNode& GetNode(std::size_t index) const;
    /**
     * \param id a node id
     * \return the index of the node with that id, or nullopt
     */
    std::optional<std::size_t> FindIndex(uint64_t id) const;

    /** \param index a node index \return the index of its parent, or nullopt for a root */
    std::optional<std::size_t> GetParent(std::size_t index) const;
    /** \param index a node index \return its children's indices in id order */
    const std::vector<std::size_t>& GetChildren(std::size_t index) const;
    /** \return every node index in preorder of the call tree (roots and children in id order) */
    const std::vector<std::size_t>& GetPreorder() const;
    /** \return the number of nodes whose parent names no node of the trace */
    uint64_t GetDanglingParents() const;

    /**
     * \param index a node index
     * \param what the problem
     * \throws TraceError naming this trace's file, node \p index and \p what
     */
    [[noreturn]] void ThrowNodeError(std::size_t index, const std::string& what) const;

  private:
    /** Builds parents, children and the preorder; throws on a parent loop. */
    void BuildTree();
    /** Sorts the nodes by id (equal ids in file order); throws on a duplicate id. */
    void SortById();
    /** Throws the TraceError naming the parent loop that left nodes outside the preorder. */
    [[noreturn]] void ThrowParentCycle() const;

    std::string m_path;                               //!< file name for errors
    std::string m_schema;                             //!< the schema string
    bool m_legacy{false};                             //!< 1.0.1 layout
    TraceLinkInfo m_link;                             //!< trace_link object
    std::vector<PyTorchNode> m_nodes;                 //!< sorted by id
    std::vector<std::optional<std::size_t>> m_parent; //!< parent index per node
    std::vector<std::vector<std::size_t>> m_children; //!< children per node, id order
    std::vector<std::size_t> m_preorder;              //!< preorder of the call tree
    uint64_t m_danglingParents{0};                    //!< parents naming no node
};

/**
 * \param name a node name
 * \return true for the profiler's process and thread root nodes
 *         ("[pytorch|profiler|execution_trace|thread]", "...|execution_graph|process]", ...)
 */
bool IsProfilerRootName(const std::string& name);

/**
 * \param name a node name
 * \return true for the process group description node ("## process_group:init ##")
 */
bool IsProcessGroupInitName(const std::string& name);

} // namespace ns3

#endif // CHAKRA_PYTORCH_TRACE_H
