/*
 * Shared helpers of the chakra Boost.Test suites: where the real traces are, temporary
 * directories, running the built tools.
 */
#ifndef CHAKRA_TEST_DATA_H
#define CHAKRA_TEST_DATA_H

#include "ns3/temporary-directory.h"

#include <string>
#include <vector>

namespace chakra_test
{

/**
 * \return the directory of the shared real traces: $CHAKRA_TEST_DATA if set, else
 * <source>/../shared/data; empty if that directory does not exist (a bare clone).
 */
std::string SharedDataDir();

/** \return SharedDataDir() + "/" + relative (call only when the data is present) */
std::string SharedData(const std::string& relative);

/** \return every .et and .et.gz file under the shared et/ directory, sorted */
std::vector<std::string> SharedEtFiles();

/**
 * \return true when CHAKRA_QUICK=1: the sanitizer run (make test-sanitize, 3-20 times slower)
 * asks the heaviest tests for smaller size sets, keeping every case they check.
 */
bool QuickMode();

/**
 * Global fixture of test programs that need the shared traces: when they are absent it prints
 * why and exits with 77, which CTest reports as "skipped" (SKIP_RETURN_CODE).
 */
struct RequireSharedData
{
    RequireSharedData();
};

/** A fresh directory under /tmp (chakra-test-XXXXXX), removed with its content on destruction. */
class TempDir : public ns3::TemporaryDirectory
{
  public:
    TempDir();
    /** \return the directory path */
    const std::string& Path() const;
};

/** Result of running a command. */
struct CommandResult
{
    int exitCode{-1};   //!< exit status (128+signal if killed)
    std::string output; //!< stdout and stderr together
};

/** Runs a shell command, capturing stdout and stderr. */
CommandResult RunCommand(const std::string& command);

/** \return the path of a built tool (chakra_jsonizer, ...): in $CHAKRA_TOOL_DIR if set, else
 *  in this build's tool directory */
std::string ToolPath(const std::string& name);

/** \return the whole content of a file ("" if missing) */
std::string ReadFileBytes(const std::string& path);

/** Writes bytes to a file (plain, not atomic: for building bad inputs). */
void WriteFileBytes(const std::string& path, const std::string& bytes);

/** \return true if the path exists */
bool FileExists(const std::string& path);

/** \return the names of the entries of a directory (no . and ..), sorted */
std::vector<std::string> ListDir(const std::string& path);

/** \return the uncompressed content of a plain or gzip'd file */
std::string ReadMaybeGzip(const std::string& path);

} // namespace chakra_test

#endif // CHAKRA_TEST_DATA_H
