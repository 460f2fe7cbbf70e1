#include "temporary-directory.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <stdlib.h>
#include <system_error>

namespace ns3
{

TemporaryDirectory::TemporaryDirectory(const std::string& stem)
    : m_path((std::filesystem::temp_directory_path() / (stem + "-XXXXXX")).string())
{
    if (mkdtemp(m_path.data()) == nullptr)
    {
        throw std::runtime_error("cannot create a temporary directory " + m_path + ": " +
                                 std::strerror(errno));
    }
}

TemporaryDirectory::~TemporaryDirectory()
{
    // Never throws: a file a test left open, or a directory removed already, is not an error
    // worth ending a run for.
    std::error_code ignored;
    std::filesystem::remove_all(m_path, ignored);
}

const std::string&
TemporaryDirectory::GetPath() const
{
    return m_path;
}

std::string
TemporaryDirectory::File(const std::string& name) const
{
    return m_path + "/" + name;
}

} // namespace ns3
