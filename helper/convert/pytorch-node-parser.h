/*
 * PyTorchNodeParser: one node object of a PyTorch trace, as the trace reader collected it,
 * checked and read into a PyTorchNode.
 */
#ifndef CHAKRA_PYTORCH_NODE_PARSER_H
#define CHAKRA_PYTORCH_NODE_PARSER_H

#include "pytorch-trace.h"

#include <array>
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
 * \brief A node's io field as read: "inputs" or "outputs" ({values, shapes, types} objects of
 * the chakra schemas) or, in 1.0.1, one of "inputs", "input_shapes", ... (arrays).
 */
struct PyTorchRawIo
{
    /** What the field held. */
    enum Kind
    {
        ABSENT, //!< no such field, or null
        ARRAY,  //!< an array: in text
        OBJECT, //!< an object: its three arrays in io
        OTHER,  //!< anything else
    };

    Kind kind{ABSENT};
    std::string text;               //!< ARRAY: compact JSON
    PyTorchIo io;                   //!< OBJECT: values, shapes, types
    std::array<bool, 3> notArray{}; //!< OBJECT: which of the three is neither array nor null
};

/** The io field names, in the order of PyTorchRawNode::io. */
inline constexpr std::array<std::string_view, 6> kPyTorchIoKeys{"inputs",
                                                                "outputs",
                                                                "input_shapes",
                                                                "input_types",
                                                                "output_shapes",
                                                                "output_types"};
/** The members of a {values, shapes, types} object, in the order the parser checks them. */
inline constexpr std::array<std::string_view, 3> kPyTorchIoMembers{"values", "shapes", "types"};

/**
 * \ingroup chakra-converter
 * \brief A node object as the trace reader collects it: its fields, attribute list and io
 * apart.
 */
struct PyTorchRawNode
{
    nlohmann::json fields;          //!< every field but a well-formed "attrs" list and the io
    std::vector<PyTorchAttr> attrs; //!< the "attrs" list, when it is an array
    bool hasAttrs{false};           //!< true if "attrs" was an array
    std::string attrError;          //!< why an entry of "attrs" is malformed
    std::array<PyTorchRawIo, kPyTorchIoKeys.size()> io; //!< the io fields, as kPyTorchIoKeys
    std::size_t index{0};                               //!< position in the "nodes" array
};

/**
 * \ingroup chakra-converter
 * \brief Reads the fields of one node object into a PyTorchNode, naming the node in every
 * error (TraceError).
 */
class PyTorchNodeParser
{
  public:
    /**
     * \param path the trace file
     * \param raw the node as read (its fields, attribute list and io are moved from)
     * \param legacy the 1.0.1 layout
     */
    PyTorchNodeParser(const std::string& path, PyTorchRawNode& raw, bool legacy);

    /** \return the node \throws TraceError on a malformed field */
    PyTorchNode Parse();

  private:
    using Json = nlohmann::json;

    [[noreturn]] void Fail(const std::string& what) const;
    const Json* Find(std::string_view key) const;
    /** An integer inside the node's "args" object (Kineto's fields, as Python linkers copy
     *  them), or nullopt. */
    std::optional<int64_t> ArgsInt(const char* key) const;
    /** A key the linker adds: top level first, then the attribute list. */
    const Json* Linked(const char* key, const PyTorchNode& node) const;
    uint64_t ToUint(const Json& value, const std::string& key) const;
    uint64_t RequireUint(const char* key) const;
    std::optional<int64_t> OptionalInt(const char* key, const PyTorchNode& node) const;
    std::optional<double> OptionalNumber(const char* key,
                                         const PyTorchNode& node,
                                         bool negativeAllowed) const;

    /** Reads "id" and "name". */
    void ParseIdentity(PyTorchNode& node);
    /** Reads "cat", the thread, times, stream, device and correlation. */
    void ParseTiming(PyTorchNode& node) const;
    /** Reads the keys a linker adds: process group and dependencies. */
    void ParseLinkedKeys(PyTorchNode& node) const;
    /** Throws if a GPU op lacks its stream or duration. */
    void CheckGpuOp(const PyTorchNode& node) const;
    void ParseParent(PyTorchNode& node) const;
    /** 1.0.1: the io field kPyTorchIoKeys[index] must be an array (or absent). */
    void TakeArray(std::size_t index, std::string& out);
    /** Chakra schemas: the io field kPyTorchIoKeys[index] must be a {values, shapes, types}
     *  object. */
    void TakeIo(std::size_t index, PyTorchIo& io);
    void ParseIo(PyTorchNode& node);
    static std::string TypeOf(const Json& value);
    void ParseAttrs(PyTorchNode& node);
    /** Reads an "attrs" list the trace reader left in the fields (not an array of entries). */
    void ParseAttrsField(PyTorchNode& node);

    const std::string& m_path;                             //!< the trace file
    Json& m_json;                                          //!< the node's fields
    bool m_legacy;                                         //!< 1.0.1 layout
    std::string m_where;                                   //!< the node, for errors
    std::vector<PyTorchAttr>* m_attrs;                     //!< attrs read by the reader
    const std::string& m_attrError;                        //!< why they are malformed
    std::array<PyTorchRawIo, kPyTorchIoKeys.size()>& m_io; //!< the io fields
};

} // namespace ns3

#endif // CHAKRA_PYTORCH_NODE_PARSER_H
