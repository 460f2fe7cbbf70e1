/*
 * CompactJsonWriter: writes one JSON value, arriving as reader events, as the compact text
 * nlohmann/json's dump(-1) would give, without building the value.
 */
#ifndef CHAKRA_COMPACT_JSON_WRITER_H
#define CHAKRA_COMPACT_JSON_WRITER_H

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

namespace ns3
{

/**
 * \ingroup chakra-converter
 * \brief Reads the events of one JSON value into compact JSON text, as nlohmann/json's
 * dump(-1) would write it, without building the value.
 *
 * The inputs and outputs of every node are most of a trace's values and are only passed
 * through as text. Objects inside are the exception: dump sorts their keys and keeps the last
 * of repeated ones, so they are built as JSON (into ObjectSlot()) and dumped.
 */
class CompactJsonWriter
{
  public:
    /** Starts writing into \p target (cleared). */
    void Begin(std::string* target);

    /** \return the JSON an object inside is built into */
    nlohmann::json& ObjectSlot();
    /** Writes the object built into ObjectSlot(). */
    void EndObject();

    /** Opens an array. */
    void StartArray();
    /** Closes an array. \return true if the outermost array ended */
    bool EndArray();

    /** Writes a literal (null, true, false) as given. */
    void Literal(const char* text);
    /** Writes a signed integer. */
    void Integer(int64_t value);
    /** Writes an unsigned integer. */
    void Unsigned(uint64_t value);
    /** Writes a floating-point number in nlohmann's shortest round-trip form. */
    void Float(double value);
    /**
     * Writes a string.
     * \param value the string's text, unescaped by the reader
     * \param escaped true if the JSON text had escapes (then it is escaped again by dump)
     */
    void String(const std::string& value, bool escaped);

  private:
    /** Writes the comma before a value that follows another at the same level. */
    void Separate();

    std::string* m_target{nullptr}; //!< where the text goes
    uint32_t m_depth{0};            //!< open arrays
    bool m_needComma{false};        //!< a value was written at this level
    nlohmann::json m_object;        //!< an object being built
};

} // namespace ns3

#endif // CHAKRA_COMPACT_JSON_WRITER_H
