/*
 * Measured op times read from a CSV file, to take the place of the roofline where a real
 * trace has timed the op.
 */
#ifndef CHAKRA_COMPUTE_PROFILE_H
#define CHAKRA_COMPUTE_PROFILE_H

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <utility>

namespace ns3
{

/**
 * \ingroup chakra-workload
 * \brief A measured profile: op name and shape -> microseconds.
 *
 * Read from a CSV file "op,shape,micros": a header line naming those three columns, then one
 * op per line (shape e.g. "4096x4096x8192"); blank lines are skipped. Every error names the
 * file and line. chakra_replay will write such a file from a Kineto trace; this only reads it.
 */
class ComputeProfile
{
  public:
    /**
     * \param path the CSV file
     * \return the profile
     * \throws std::invalid_argument "path:line: ..." for an unreadable file, a missing or wrong
     *         header, a line without three fields, an empty op or shape, a time that is not a
     *         positive finite number, or an op/shape given twice
     */
    static ComputeProfile Read(const std::string& path);

    /**
     * \return the measured microseconds of \p op at \p shape, or nullopt if the profile lacks it
     */
    std::optional<double> Micros(const std::string& op, const std::string& shape) const;

    /** \return the number of op/shape entries */
    std::size_t Size() const;

  private:
    std::map<std::pair<std::string, std::string>, double> m_micros; //!< (op, shape) -> us
};

} // namespace ns3

#endif // CHAKRA_COMPUTE_PROFILE_H
