#include "trace-set-output.h"

#include "ns3/log.h"
#include "ns3/temporary-file-guard.h"
#include "ns3/trace-error.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <sys/stat.h>
#include <unistd.h>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("TraceSetOutput");

namespace
{

/** \return \p name in \p directory */
std::string
Join(const std::string& directory, const std::string& name)
{
    return directory == "/" ? "/" + name : directory + "/" + name;
}

/**
 * \param path a directory of the output prefix \p prefix
 * \return true if \p path is a directory; false if nothing is there; throws otherwise
 */
bool
IsDirectory(const std::string& path, const std::string& prefix)
{
    struct stat info
    {
    };

    if (stat(path.c_str(), &info) != 0)
    {
        if (errno == ENOENT)
        {
            return false;
        }
        throw TraceError(prefix, "", "cannot write in " + path + ": " + std::strerror(errno));
    }
    if (!S_ISDIR(info.st_mode))
    {
        throw TraceError(prefix, "", "cannot write in " + path + ": it is a file, not a directory");
    }
    return true;
}

} // namespace

TraceSetOutput::TraceSetOutput(const std::string& prefix)
    : m_prefix(prefix)
{
    NS_LOG_FUNCTION(this << prefix);
    const std::string::size_type slash = prefix.rfind('/');
    m_directory = slash == std::string::npos ? "." : (slash == 0 ? "/" : prefix.substr(0, slash));
    m_base = slash == std::string::npos ? prefix : prefix.substr(slash + 1);
    if (m_base.empty() || m_base == "." || m_base == "..")
    {
        throw TraceError(
            prefix,
            "",
            "the output prefix names a directory: add a name for the files, e.g. " +
                (slash == std::string::npos ? prefix + "/" : prefix.substr(0, slash + 1)) + "step");
    }
    // "mkdir -p", outermost first, remembering what did not exist.
    std::string path;
    std::string::size_type from = 0;
    while (from <= m_directory.size())
    {
        std::string::size_type next = m_directory.find('/', from);
        if (next == std::string::npos)
        {
            next = m_directory.size();
        }
        path = m_directory.substr(0, next);
        from = next + 1;
        if (path.empty() || path == "." || path == "..")
        {
            continue; // the root, or a relative start
        }
        try
        {
            if (IsDirectory(path, prefix))
            {
                continue;
            }
            const int error = mkdir(path.c_str(), 0777) == 0 ? 0 : errno;
            if (error != 0 && !(error == EEXIST && IsDirectory(path, prefix)))
            {
                throw TraceError(prefix,
                                 "",
                                 "cannot create the directory " + path + ": " +
                                     std::strerror(error));
            }
            if (error == 0)
            {
                m_created.push_back(path);
            }
        }
        catch (...)
        {
            Discard();
            throw;
        }
    }
    std::string pattern = Join(m_directory, "." + m_base + ".staging-XXXXXX");
    std::vector<char> name(pattern.begin(), pattern.end());
    name.push_back('\0');
    const int fd = TemporaryFileGuard::MakeTemporary(name.data(), m_stagingGuard);
    if (fd < 0)
    {
        const std::string reason = std::strerror(errno);
        Discard();
        throw TraceError(prefix, "", "cannot write in " + m_directory + ": " + reason);
    }
    close(fd);
    m_stagingPrefix = name.data();
    m_stagingName = m_stagingPrefix.substr(m_stagingPrefix.rfind('/') + 1);
}

TraceSetOutput::~TraceSetOutput()
{
    NS_LOG_FUNCTION(this);
    if (!m_committed)
    {
        Discard();
    }
}

const std::string&
TraceSetOutput::GetStagingPrefix() const
{
    return m_stagingPrefix;
}

void
TraceSetOutput::Expect(const std::string& suffix)
{
    NS_LOG_FUNCTION(this << suffix);
    m_expectedPaths.push_back(m_stagingPrefix + suffix);
    m_expected.emplace_back(m_expectedPaths.back());
}

std::vector<std::string>
TraceSetOutput::StagedNames() const
{
    // The directory is listed (not the announced names): whatever the writer put under the
    // staging prefix belongs to the set.
    std::vector<std::string> names;
    std::error_code error;
    for (std::filesystem::directory_iterator it(m_directory, error), end; !error && it != end;
         it.increment(error))
    {
        std::string entry = it->path().filename().string();
        if (entry.size() > m_stagingName.size() + 1 &&
            entry.compare(0, m_stagingName.size() + 1, m_stagingName + ".") == 0)
        {
            names.push_back(std::move(entry));
        }
    }
    if (error)
    {
        throw TraceError(m_directory, "", "cannot list the staged files: " + error.message());
    }
    std::sort(names.begin(), names.end());
    return names;
}

std::vector<std::string>
TraceSetOutput::Commit()
{
    NS_LOG_FUNCTION(this);
    const std::vector<std::string> names = StagedNames();
    std::vector<std::string> paths;
    for (const auto& name : names)
    {
        const std::string rest = name.substr(m_stagingName.size());
        const std::string to = Join(m_directory, m_base + rest);
        if (std::rename(Join(m_directory, name).c_str(), to.c_str()) != 0)
        {
            // Only an I/O error gets here (a rename within one directory): a set of which
            // some files moved is no set; remove those too (the rest go with Discard).
            const std::string reason = std::strerror(errno);
            for (const auto& done : paths)
            {
                std::remove(done.c_str());
            }
            throw TraceError(to, "", "cannot rename the file into place: " + reason);
        }
        paths.push_back(to);
    }
    unlink(m_stagingPrefix.c_str());
    m_stagingGuard.Disarm();
    m_expected.clear(); // disarmed: the staged names no longer exist
    m_expectedPaths.clear();
    m_committed = true;
    std::vector<std::string> result;
    for (const auto& name : names)
    {
        result.push_back(m_prefix + name.substr(m_stagingName.size()));
    }
    return result;
}

void
TraceSetOutput::Discard()
{
    NS_LOG_FUNCTION(this);
    if (!m_stagingPrefix.empty())
    {
        try
        {
            for (const auto& name : StagedNames())
            {
                unlink(Join(m_directory, name).c_str());
            }
        }
        catch (const TraceError&)
        {
            // The directory cannot be listed: the announced files are still known.
            for (const auto& path : m_expectedPaths)
            {
                unlink(path.c_str());
            }
        }
        unlink(m_stagingPrefix.c_str());
    }
    m_stagingGuard.Disarm();
    m_expected.clear();
    m_expectedPaths.clear();
    for (auto it = m_created.rbegin(); it != m_created.rend(); ++it)
    {
        rmdir(it->c_str()); // fails, harmlessly, if something else was put there meanwhile
    }
    m_created.clear();
}

} // namespace ns3
