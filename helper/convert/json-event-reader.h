/*
 * JsonEventReader: reads JSON text and hands each value to a handler as it goes by (a SAX
 * reader), for the converter's large traces.
 */
#ifndef CHAKRA_JSON_EVENT_READER_H
#define CHAKRA_JSON_EVENT_READER_H

#include "ns3/json-limits.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup chakra-converter
 * \brief Receives what JsonEventReader reads, in document order.
 *
 * Each call returns false to stop the reading (the reader then reports no error of its own).
 * Numbers arrive typed as nlohmann/json types them, so that a handler building nlohmann values
 * builds the ones nlohmann's parser would: an integer without a sign that fits 64 bits is
 * Unsigned, one with a '-' that fits is Integer, any other number is Float.
 */
class JsonEventHandler
{
  public:
    virtual ~JsonEventHandler() = default;

    /** \return false to stop */
    virtual bool Null() = 0;
    /** \param value the literal \return false to stop */
    virtual bool Boolean(bool value) = 0;
    /** \param value a negative (or -0) integer \return false to stop */
    virtual bool Integer(int64_t value) = 0;
    /** \param value a non-negative integer \return false to stop */
    virtual bool Unsigned(uint64_t value) = 0;
    /** \param value a finite number with a fraction or an exponent, or too large an integer
     *  \return false to stop */
    virtual bool Float(double value) = 0;
    /**
     * \param value the string, escapes decoded (the handler may move from it)
     * \param escaped whether its text had a backslash escape (if not, \p value is the text
     *        between the quotes byte for byte)
     * \return false to stop
     */
    virtual bool String(std::string& value, bool escaped) = 0;
    /** \param name an object member's name (the handler may move from it) \return false to stop */
    virtual bool Key(std::string& name) = 0;
    /** \return false to stop */
    virtual bool StartObject() = 0;
    /** \return false to stop */
    virtual bool EndObject() = 0;
    /** \return false to stop */
    virtual bool StartArray() = 0;
    /** \return false to stop */
    virtual bool EndArray() = 0;
};

/**
 * \ingroup chakra-converter
 * \brief A one-pass JSON reader (RFC 8259, UTF-8) that hands every value to a JsonEventHandler.
 *
 * It accepts what nlohmann/json's parser accepts (a leading UTF-8 byte order mark, strict
 * UTF-8 in strings, \\u escapes with surrogate pairs, one document followed by whitespace only,
 * up to the end or a zero byte) and bounds the nesting itself (kMaxJsonDepth by default), so
 * that no separate scan is needed. It exists for speed: nlohmann's lexer appends every byte of
 * a string to two buffers (the value and the text kept for its error messages), most of the
 * time of reading a large trace; this reader finds a string's end in place and copies it once.
 */
class JsonEventReader
{
  public:
    /**
     * \param text the JSON text (it must outlive the reader)
     * \param maxDepth deepest nesting of arrays and objects accepted
     */
    explicit JsonEventReader(const std::string& text, uint32_t maxDepth = kMaxJsonDepth);
    /** The reader keeps a pointer into its text: a temporary would be gone before Read. */
    explicit JsonEventReader(std::string&& text, uint32_t maxDepth = kMaxJsonDepth) = delete;

    /**
     * Reads the whole text.
     * \param handler receives the values
     * \return true if the text is one JSON document and the handler took all of it; false on
     *         malformed JSON, too deep a nesting (GetError, GetErrorByte, IsTooDeep) or when
     *         the handler stopped (GetError empty)
     */
    bool Read(JsonEventHandler& handler);

    /** \return why the text is not JSON ("" if it is, or if the handler stopped) */
    const std::string& GetError() const;
    /** \return the offset of the byte the error is at (the bracket past the depth limit) */
    uint64_t GetErrorByte() const;
    /** \return true if the error is a nesting deeper than the limit (GetError has the text) */
    bool IsTooDeep() const;

  private:
    /** What the reader does after a step of Read. */
    enum class Step
    {
        FAILED,      //!< stop: an error, or the handler asked to stop
        NEXT_VALUE,  //!< read the value at the current position
        VALUE_ENDED, //!< a value ended: close the containers that end after it
        DONE         //!< the document ended
    };

    /** Starts the value at the current position: opens a container, or reads a scalar. */
    Step StartValue(JsonEventHandler& handler);
    /**
     * After a value: closes the containers that end here and finds where the next value
     * starts (after a ',' in an array, or after the next member's name).
     */
    Step CloseContainers(JsonEventHandler& handler);
    /** Records an error at the current position. \return false */
    bool Fail(const std::string& what);
    /** Skips spaces, tabs and line ends. */
    void SkipWhitespace();
    /**
     * Reads a member name at the current position (after whitespace), hands it over and reads
     * the ':' after it. \param first whether it is the object's first member (for the error)
     */
    bool ReadMemberName(JsonEventHandler& handler, bool first);
    /** Reads a string, number or literal at the current position. \return false to stop */
    bool ReadScalar(JsonEventHandler& handler);
    /** Reads the string whose opening quote is at the current position into m_string. */
    bool ReadString(bool& escaped);
    /** Decodes the escape whose backslash is at the current position, appending to m_string. */
    bool ReadEscape();
    /** Reads a number at the current position and hands it over. */
    bool ReadNumber(JsonEventHandler& handler);
    /** Reads the literal \p word (true, false, null) at the current position. */
    bool ReadLiteral(const char* word, std::size_t size);
    /** Opens an array or object: checks the depth limit. */
    bool Open(char bracket);

    const char* m_data;       //!< its bytes
    std::size_t m_size;       //!< their number
    std::size_t m_pos{0};     //!< next byte to read
    uint32_t m_maxDepth;      //!< nesting limit
    std::vector<char> m_open; //!< open containers, innermost last ('[' or '{')
    std::string m_string;     //!< the string being read
    std::string m_error;      //!< why reading failed
    uint64_t m_errorByte{0};  //!< where
    bool m_tooDeep{false};    //!< the failure is the depth limit
};

} // namespace ns3

#endif // CHAKRA_JSON_EVENT_READER_H
