/*
 * CommGroupFile: the members of numbered communicators, as ASTRA-sim's
 * --comm-group-configuration file lists them beside traces that name their process groups by
 * number and carry no process_group:init node.
 */
#ifndef CHAKRA_COMM_GROUP_FILE_H
#define CHAKRA_COMM_GROUP_FILE_H

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup chakra-application
 * \brief The communicators of a comm-groups file: {"1": [0, 1, 2, 3], "2": [4, 5, 6, 7]}.
 *
 * The format is ASTRA-sim's: a JSON object whose keys are communicator ids (the pg_name of the
 * nodes that use them, a non-negative decimal number) and whose values list the members'
 * global ranks, in the order that makes a member's index in the communicator. pg_name "0" or ""
 * not listed in the file is every rank (ASTRA-sim's default communicator).
 * chakra_generator --astra-sim writes it as <prefix>.comm-groups.json.
 */
struct CommGroupFile
{
    std::string path;                                    //!< the file read
    std::map<std::string, std::vector<uint32_t>> groups; //!< id -> members

    /** \return the members of communicator \p id, or nullptr if the file does not list it */
    const std::vector<uint32_t>* Find(const std::string& id) const;
};

/**
 * \param tracePrefix a trace prefix (<prefix>.<rank>.et)
 * \return <prefix>.comm-groups.json if that file exists, else ""
 */
std::string FindCommGroupFile(const std::string& tracePrefix);

/**
 * Reads a comm-groups file.
 * \param path the file
 * \param ranks the ranks of the job (members must be below)
 * \return the communicators
 * \throws TraceError naming the file and the communicator: not a JSON object, an id that is no
 *         number, a member list that is empty, not a list of ranks, names a rank twice, or names a
 *         rank at or above \p ranks (a rank's trace missing)
 */
std::shared_ptr<const CommGroupFile> ReadCommGroupFile(const std::string& path, uint32_t ranks);

} // namespace ns3

#endif // CHAKRA_COMM_GROUP_FILE_H
