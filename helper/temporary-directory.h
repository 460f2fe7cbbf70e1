/*
 * A directory of its own under the system's temporary directory, removed with what it holds.
 */
#ifndef CHAKRA_TEMPORARY_DIRECTORY_H
#define CHAKRA_TEMPORARY_DIRECTORY_H

#include <string>

namespace ns3
{

/**
 * \ingroup chakra-helper
 * \brief A fresh directory (mkdtemp) for traces a program writes and reads back: examples,
 * benchmarks and tests. The destructor removes it and all it holds, on an error path too.
 *
 * A benchmark that runs a simulation in a child process it may kill (a time limit) makes the
 * directory in the parent: a killed child runs no destructor.
 */
class TemporaryDirectory
{
  public:
    /**
     * \param stem the start of the directory's name: "chakra-replay" makes
     *        /tmp/chakra-replay-XXXXXX (under TMPDIR when it is set)
     * \throws std::runtime_error naming the path and the system's reason if it cannot be made
     */
    explicit TemporaryDirectory(const std::string& stem);
    ~TemporaryDirectory();

    TemporaryDirectory(const TemporaryDirectory&) = delete;
    TemporaryDirectory& operator=(const TemporaryDirectory&) = delete;

    /** \return the directory's path */
    const std::string& GetPath() const;
    /** \param name a file name \return the path of \p name inside the directory */
    std::string File(const std::string& name) const;

  private:
    std::string m_path; //!< the directory
};

} // namespace ns3

#endif // CHAKRA_TEMPORARY_DIRECTORY_H
