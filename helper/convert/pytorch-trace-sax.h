/*
 * PyTorchTraceSax: the JsonEventReader handler that collects a PyTorch trace's top-level fields
 * and node objects, keeping each node's attributes and io apart from its other fields.
 */
#ifndef CHAKRA_PYTORCH_TRACE_SAX_H
#define CHAKRA_PYTORCH_TRACE_SAX_H

#include "compact-json-writer.h"
#include "json-event-reader.h"
#include "pytorch-node-parser.h"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup chakra-converter
 * \brief SAX handler reading a trace without building a DOM for the "attrs" entries, which are
 * most of a chakra-schema trace ({name, type, value} objects would each cost a std::map), nor
 * for the inputs and outputs, kept as the compact text the converter writes.
 *
 * Every other value is built as JSON, as nlohmann's own DOM parser does.
 */
class PyTorchTraceSax : public JsonEventHandler
{
  public:
    nlohmann::json top = nlohmann::json::object(); //!< top-level fields other than "nodes"
    bool topIsObject{false};                       //!< the document is an object
    bool nodesSeen{false};                         //!< "nodes" was an array
    std::vector<PyTorchRawNode> nodes;             //!< nodes not handed to the sink (yet)
    /** Receives each node object when it ends; returns false to keep it in "nodes" (the
     *  schema is not known yet). */
    std::function<bool(PyTorchRawNode&)> sink;

    bool Null() override;
    bool Boolean(bool value) override;
    bool Integer(int64_t value) override;
    bool Unsigned(uint64_t value) override;
    bool Float(double value) override;
    bool String(std::string& value, bool escaped) override;
    bool Key(std::string& name) override;
    bool StartObject() override;
    bool StartArray() override;
    bool EndObject() override;
    bool EndArray() override;

  private:
    using Json = nlohmann::json;

    /** Where the reader is, outside a value being captured as JSON. */
    enum class Frame
    {
        Top,     //!< in the top-level object
        Nodes,   //!< in the "nodes" array
        Node,    //!< in a node object
        Attrs,   //!< in a node's "attrs" array
        Attr,    //!< in one {name, type, value} entry
        Io,      //!< in a node's {values, shapes, types} object
        Compact, //!< in an io array, written as compact text
    };

    /** Indices in the attribute entry's field names. */
    static constexpr int kAttrName = 0;
    static constexpr int kAttrType = 1;
    static constexpr int kAttrValue = 2;

    /** \return true if a scalar goes to the compact text of an io array */
    bool InCompactText() const;
    /** Begins capturing a JSON value into \p target. */
    void Capture(Json* target, Json::value_t type);
    /** \return the io field the current key of a node names */
    PyTorchRawIo& CurrentIo();
    /** Stores a scalar or a whole captured value where the reader is. */
    bool Value(Json value);
    /** Value() inside an attribute entry. */
    void AttrValue(Json& value);
    /** Sets the attribute's name or type (m_attrField) to \p text (moved from). */
    void SetAttrText(std::string& text);
    /** \return io's values, shapes or types */
    static std::string& MemberOf(PyTorchIo& io, std::size_t member);

    /** An object or array starts. */
    bool Start(Json::value_t type);
    /** Start() inside a value being captured. */
    void StartInCapture(Json::value_t type);
    /** Start() of the document itself. */
    void StartDocument(Json::value_t type);
    /** Start() of a node in the "nodes" array. */
    void StartNode(Json::value_t type);
    /** Start() of a field of a node. */
    void StartInNode(Json::value_t type);
    /** Start() of a member of an io object. */
    void StartInIo(Json::value_t type);
    /** Start() of an entry of "attrs". */
    void StartInAttrs(Json::value_t type);
    /** An object or array ends. */
    bool End();
    /** End() of an attribute entry: appends it to the node, or records why it is malformed. */
    void EndAttr();
    /** Records the first reason the node's "attrs" is malformed. */
    void SetAttrError(const std::string& what);

    std::vector<Frame> m_frames; //!< where the reader is
    std::vector<Json*> m_stack;  //!< open containers of the value being captured
    Json* m_slot{nullptr};       //!< the object member the next captured value fills
    std::string m_key;           //!< the last key outside a captured value
    int m_io{-1};                //!< in a node: the io field m_key names (kPyTorchIoKeys), or -1
    int m_member{-1};            //!< in an io object: the member m_key names, or -1
    int m_attrField{-1};         //!< in an attrs entry: the field m_key names, or -1
    PyTorchAttr m_attr;          //!< the attribute being read
    bool m_attrHasName{false};   //!< it has a name
    bool m_attrHasType{false};   //!< it has a type
    Json m_ignored;              //!< values nobody needs
    CompactJsonWriter m_compact; //!< writes the io array being read
    std::size_t m_nodeCount{0};  //!< node objects started
};

} // namespace ns3

#endif // CHAKRA_PYTORCH_TRACE_SAX_H
