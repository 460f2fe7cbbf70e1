#include "trace-error.h"

namespace ns3
{

namespace
{

std::string
Compose(const std::string& file, const std::string& where, const std::string& what)
{
    std::string message;
    if (!file.empty())
    {
        message += file + ": ";
    }
    if (!where.empty())
    {
        message += where + ": ";
    }
    message += what;
    // One line: a newline inside the message would break "file: where: what" for the reader.
    for (char& c : message)
    {
        if (c == '\n' || c == '\r')
        {
            c = ' ';
        }
    }
    return message;
}

} // namespace

TraceError::TraceError(const std::string& file, const std::string& where, const std::string& what)
    : std::runtime_error(Compose(file, where, what)),
      m_file(file)
{
}

const std::string&
TraceError::GetFile() const
{
    return m_file;
}

} // namespace ns3
