/*
 * A read-only view of one Chakra node with typed attribute access and the Chakra conventions
 * (which attribute carries the collective type, the message size, the peer rank, ...).
 */
#ifndef CHAKRA_ET_NODE_H
#define CHAKRA_ET_NODE_H

#include "et-attribute.h"

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup chakra-trace
 * \brief One node of a Chakra execution trace.
 *
 * Getters without a default throw TraceError when the attribute is missing; getters with a
 * default return it only when the attribute is missing. Both throw when the attribute exists
 * with an unusable type (a string where an integer is expected), naming the node and attribute:
 * a wrong type is a broken trace, not an absent value.
 *
 * Defaults of the Chakra conventions (documented in doc/chakra.md):
 * - IsCpuOp(): false (a COMP node is a GPU op unless it says otherwise);
 * - GetCommSize(): 0 bytes; GetPgName(): "" (the world communicator);
 * - GetCommType(), GetCommSrc(), GetCommDst(), GetCommTag(), GetStream(), GetTid(): nullopt.
 */
class EtNode
{
  public:
    EtNode() = default;
    /** \param proto the node as read from the file */
    explicit EtNode(ChakraProtoMsg::Node proto);

    /** \return the node id */
    uint64_t GetId() const;
    /** \return the node name */
    const std::string& GetName() const;
    /** \return the node type */
    ChakraProtoMsg::NodeType GetType() const;
    /** \return data dependencies (parents whose output this node consumes) */
    const google::protobuf::RepeatedField<uint64_t>& GetDataDeps() const;
    /** \return control dependencies */
    const google::protobuf::RepeatedField<uint64_t>& GetCtrlDeps() const;
    /** \return the recorded duration in microseconds (0 is legal) */
    uint64_t GetDurationMicros() const;
    /** \return the underlying protobuf message */
    const ChakraProtoMsg::Node& GetProto() const;

    /** \return "node <id> (<name>)": the position string used in errors */
    std::string Describe() const;

    /** \param name attribute name \return true if the node has it */
    bool HasAttr(const std::string& name) const;
    /**
     * \param name attribute name
     * \return the attribute (the first of that name) or nullptr; the attributes of the Chakra
     *         conventions below are found through an index built when the node is made
     */
    const ChakraProtoMsg::AttributeProto* FindAttr(const std::string& name) const;

    int64_t GetInt(const std::string& name) const;                       //!< any integer oneof
    int64_t GetInt(const std::string& name, int64_t defaultValue) const; //!< with default
    uint64_t GetUint(const std::string& name) const;                     //!< non-negative integer
    uint64_t GetUint(const std::string& name, uint64_t defaultValue) const; //!< with default
    double GetDouble(const std::string& name) const;                        //!< any number
    double GetDouble(const std::string& name, double defaultValue) const;   //!< with default
    bool GetBool(const std::string& name) const;                            //!< bool or 0/1
    bool GetBool(const std::string& name, bool defaultValue) const;         //!< with default
    std::string GetString(const std::string& name) const;                   //!< string_val
    std::string GetString(const std::string& name, const std::string& defaultValue) const;
    std::vector<int64_t> GetIntList(const std::string& name) const; //!< any integer list

    // Chakra conventions.
    bool IsCpuOp() const; //!< "is_cpu_op", default false
    std::optional<ChakraProtoMsg::CollectiveCommType> GetCommType() const; //!< "comm_type"
    uint64_t GetCommSize() const; //!< "comm_size" bytes, default 0
    /** \return "pg_name", default "" (a reference into the node: valid while it lives) */
    const std::string& GetPgName() const;
    std::optional<int64_t> GetCommSrc() const; //!< "comm_src"
    std::optional<int64_t> GetCommDst() const; //!< "comm_dst"
    std::optional<int64_t> GetCommTag() const; //!< "comm_tag"
    std::optional<int64_t> GetStream() const;  //!< "stream"
    std::optional<int64_t> GetTid() const;     //!< "tid"
    uint64_t GetNumOps() const;                //!< "num_ops", default 0
    uint64_t GetTensorSize() const;            //!< "tensor_size" bytes, default 0

    /**
     * The attributes a replay reads for every node, indexed when the node is made: each getter
     * of a convention finds its attribute without comparing names.
     */
    enum Known : uint8_t
    {
        IS_CPU_OP,
        COMM_TYPE,
        COMM_SIZE,
        PG_NAME,
        COMM_SRC,
        COMM_DST,
        COMM_TAG,
        STREAM,
        TID,
        NUM_OPS,
        TENSOR_SIZE,
        ROOT_RANK,
        DURATION_EXACT_MICROS,
        KNOWN_COUNT, //!< the number of indexed attributes
    };

    /**
     * \param name an attribute name
     * \return its Known value, or KNOWN_COUNT for a name the index does not hold
     */
    static Known Classify(const std::string& name);

  private:
    /** Fills m_known from the node's attributes. */
    void IndexAttributes();
    /** \return the first attribute of a known name, or nullptr */
    const ChakraProtoMsg::AttributeProto* FindKnown(Known which) const;
    /**
     * The shape of every typed getter: convert, report a missing or mistyped attribute.
     * \param name attribute name (for errors)
     * \param attribute the attribute, nullptr if absent
     * \param convert one of the AttributeTo* functions
     * \param defaultValue returned when the attribute is absent; nullptr: absent is an error
     * \return the value
     */
    template <typename T, typename Convert>
    T GetTyped(const char* name,
               const ChakraProtoMsg::AttributeProto* attribute,
               Convert convert,
               const T* defaultValue) const;
    /** \return the integer attribute, or nullopt if absent; throws if mistyped */
    std::optional<int64_t> OptionalInt(Known which) const;
    /** Throws the error for a missing attribute. */
    [[noreturn]] void ThrowMissing(const std::string& name) const;
    /** Throws the error for a mistyped attribute. */
    [[noreturn]] void ThrowMistyped(const std::string& name, const std::string& why) const;

    /** m_known's value for an attribute the node does not have */
    static constexpr uint8_t kAbsent = 0;
    /** m_known's value for an attribute first found past the index's range: looked up by name */
    static constexpr uint8_t kBeyond = 255;

    ChakraProtoMsg::Node m_proto; //!< the node
    /** Per Known attribute: kAbsent, its position in m_proto.attr() plus one, or kBeyond */
    std::array<uint8_t, KNOWN_COUNT> m_known{};
};

/**
 * \param type a node type
 * \return its name ("COMP_NODE", ...) or "NodeType(<n>)" for a value this schema does not know
 */
std::string NodeTypeName(int type);

/**
 * \param type a collective type
 * \return its name ("ALL_REDUCE", ...) or "CollectiveCommType(<n>)"
 */
std::string CommTypeName(int type);

} // namespace ns3

#endif // CHAKRA_ET_NODE_H
