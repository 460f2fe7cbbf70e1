/*
 * The bound on JSON nesting shared by every JSON reader of the module.
 */
#ifndef CHAKRA_JSON_LIMITS_H
#define CHAKRA_JSON_LIMITS_H

#include <cstddef>
#include <cstdint>
#include <exception>
#include <optional>
#include <string>

namespace ns3
{

/**
 * \ingroup chakra-trace
 * \brief Deepest nesting of arrays and objects accepted in any JSON input.
 *
 * nlohmann/json copies, compares and dumps values recursively, so a document nested some
 * 100,000 levels deep overflows the stack in whatever code touches it after parsing. The
 * deepest real trace (a host execution trace with nested tensor lists) uses 8 levels; 128
 * leaves room for any trace format and keeps every recursive walk to a few tens of KiB of stack.
 */
constexpr uint32_t kMaxJsonDepth = 128;

/**
 * \ingroup chakra-trace
 * \brief Follows the nesting depth of JSON text as it goes by, chunk after chunk.
 *
 * It only tracks strings (so that brackets inside them do not count) and brackets, which is
 * all it takes to know the depth before any parser builds anything. It does not validate the
 * text: the parser that reads the same bytes reports malformed JSON.
 */
class JsonDepthGuard
{
  public:
    /** \param limit deepest nesting accepted */
    explicit JsonDepthGuard(uint32_t limit = kMaxJsonDepth);

    /**
     * Scans the next bytes of the text.
     * \param data the bytes
     * \param size their number
     * \return the offset, counted from the first byte ever scanned, of the first '[' or '{'
     *         that opens a level past the limit; nullopt if there is none (yet)
     */
    std::optional<uint64_t> Scan(const char* data, std::size_t size);

    /** \return the limit given to the constructor */
    uint32_t GetLimit() const;

  private:
    uint32_t m_limit;       //!< deepest nesting accepted
    uint32_t m_depth{0};    //!< current nesting
    bool m_inString{false}; //!< inside a string
    bool m_escape{false};   //!< the previous byte was a backslash inside a string
    uint64_t m_offset{0};   //!< bytes scanned before the current chunk
};

/**
 * \ingroup chakra-trace
 * \param limit the depth limit
 * \return the error text for JSON nested past \p limit
 */
std::string JsonTooDeepMessage(uint32_t limit = kMaxJsonDepth);

/**
 * \ingroup chakra-trace
 * \param text JSON text
 * \param limit deepest nesting accepted
 * \return the byte offset of the first bracket past \p limit, or nullopt if the text is within it
 */
std::optional<uint64_t> FindJsonDepthExcess(const std::string& text,
                                            uint32_t limit = kMaxJsonDepth);

/**
 * \ingroup chakra-trace
 * \brief Turns an exception of nlohmann/json's parser into the module's one-line error.
 *
 * A parse_error keeps its byte offset; the parser's other errors (out_of_range 406: a number
 * too large for a double, such as 1e9999) carry none, so \p consumed places them.
 * \param error what the parser threw (a nlohmann::json::exception)
 * \param file the file being parsed
 * \param consumed bytes of the file the parser had read when it threw
 * \throws TraceError "<file>: byte <n>: malformed JSON: <what>"
 */
[[noreturn]] void ThrowJsonError(const std::exception& error,
                                 const std::string& file,
                                 uint64_t consumed);

/**
 * \ingroup chakra-trace
 * \brief Checks JSON text against kMaxJsonDepth before it is parsed.
 * \param text JSON text (a whole file, or a JSON document held in a string field)
 * \param file the file it comes from (for the error)
 * \param where where in the file the text is ("node 7: inputs.values"; empty for a whole file)
 * \throws TraceError "<file>: [<where>, ]byte <n>: JSON nested deeper than ..."
 */
void CheckJsonDepth(const std::string& text,
                    const std::string& file,
                    const std::string& where = "");

} // namespace ns3

#endif // CHAKRA_JSON_LIMITS_H
