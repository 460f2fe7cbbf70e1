#include "chakra-test-data.h"

#include "ns3/trace-file.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <dirent.h>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <sys/stat.h>
#include <sys/wait.h>

namespace chakra_test
{

namespace fs = std::filesystem;

std::string
SharedDataDir()
{
    const char* env = std::getenv("CHAKRA_TEST_DATA");
    std::string dir = env != nullptr && *env != '\0'
                          ? std::string(env)
                          : std::string(CHAKRA_SOURCE_DIR) + "/../shared/data";
    std::error_code error;
    return fs::is_directory(dir, error) ? dir : std::string();
}

std::string
SharedData(const std::string& relative)
{
    return SharedDataDir() + "/" + relative;
}

std::vector<std::string>
SharedEtFiles()
{
    std::vector<std::string> files;
    std::string root = SharedData("et");
    for (const auto& entry : fs::recursive_directory_iterator(root))
    {
        std::string path = entry.path().string();
        auto endsWith = [&](const std::string& suffix) {
            return path.size() >= suffix.size() &&
                   path.compare(path.size() - suffix.size(), suffix.size(), suffix) == 0;
        };
        if (entry.is_regular_file() && (endsWith(".et") || endsWith(".et.gz")))
        {
            files.push_back(path);
        }
    }
    std::sort(files.begin(), files.end());
    return files;
}

bool
QuickMode()
{
    const char* quick = std::getenv("CHAKRA_QUICK");
    return quick != nullptr && std::string(quick) == "1";
}

RequireSharedData::RequireSharedData()
{
    if (SharedDataDir().empty())
    {
        std::cout << "SKIPPED: the shared real traces are absent (no ../shared/data next to the "
                     "repository and CHAKRA_TEST_DATA unset)"
                  << std::endl;
        std::exit(77);
    }
}

TempDir::TempDir()
    : TemporaryDirectory("chakra-test")
{
}

const std::string&
TempDir::Path() const
{
    return GetPath();
}

CommandResult
RunCommand(const std::string& command)
{
    CommandResult result;
    std::string full = command + " 2>&1";
    FILE* pipe = popen(full.c_str(), "r");
    if (pipe == nullptr)
    {
        return result;
    }
    char buffer[4096];
    std::size_t got;
    while ((got = std::fread(buffer, 1, sizeof(buffer), pipe)) > 0)
    {
        result.output.append(buffer, got);
    }
    int status = pclose(pipe);
    if (WIFEXITED(status))
    {
        result.exitCode = WEXITSTATUS(status);
    }
    else if (WIFSIGNALED(status))
    {
        result.exitCode = 128 + WTERMSIG(status);
    }
    return result;
}

std::string
ToolPath(const std::string& name)
{
    // CHAKRA_TOOL_DIR in the environment runs the tool tests against another build's tools
    // (e.g. an older commit's, to see a new test fail there).
    const char* dir = std::getenv("CHAKRA_TOOL_DIR");
    return std::string(dir != nullptr && *dir != '\0' ? dir : CHAKRA_TOOL_DIR) + "/" + name;
}

std::string
ReadFileBytes(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    std::ostringstream content;
    content << in.rdbuf();
    return content.str();
}

void
WriteFileBytes(const std::string& path, const std::string& bytes)
{
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

bool
FileExists(const std::string& path)
{
    std::error_code error;
    return fs::exists(path, error);
}

std::vector<std::string>
ListDir(const std::string& path)
{
    std::vector<std::string> names;
    for (const auto& entry : fs::directory_iterator(path))
    {
        names.push_back(entry.path().filename().string());
    }
    std::sort(names.begin(), names.end());
    return names;
}

std::string
ReadMaybeGzip(const std::string& path)
{
    return ns3::ReadWholeFile(path);
}

} // namespace chakra_test
