/*
 * Errors raised by the trace readers, writers and tools of the chakra module.
 */
#ifndef CHAKRA_TRACE_ERROR_H
#define CHAKRA_TRACE_ERROR_H

#include <stdexcept>
#include <string>

namespace ns3
{

/**
 * \ingroup chakra-trace
 * \brief A problem with an input or output file (trace, JSON, .et).
 *
 * The message is one line of the form "<file>: <where>: <what>", so a tool can print it as is
 * and a user can find the offending place. Library code throws it instead of aborting, so that
 * tools exit non-zero cleanly and tests can check the error.
 */
class TraceError : public std::runtime_error
{
  public:
    /**
     * \param file the file concerned (empty if none)
     * \param where the position inside the file: "byte 120", "node 42", ... (may be empty)
     * \param what what is wrong
     */
    TraceError(const std::string& file, const std::string& where, const std::string& what);

    /** \return the file named in the error (may be empty). */
    const std::string& GetFile() const;

  private:
    std::string m_file; //!< the file concerned
};

} // namespace ns3

#endif // CHAKRA_TRACE_ERROR_H
