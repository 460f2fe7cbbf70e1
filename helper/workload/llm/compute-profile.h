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
 * file and line. chakra_replay writes one (OUTPUT/profile.csv) from the linked Kineto traces
 * (ComputeProfileExtractor): Add the entries, then Write; Read(Write(p)) == p, the times
 * written in the shortest form that reads back to the same double.
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

    /**
     * Adds an entry, checked as Read checks a line.
     * \param op the op ("gemm", "qkv", ...)
     * \param shape its shape ("MxNxK", ...)
     * \param micros its time
     * \throws std::invalid_argument for an empty op or shape, one holding a comma, a line break
     *         or leading/trailing blanks (it would not read back), a time that is not a
     *         positive finite number, or an op/shape already present
     */
    void Add(const std::string& op, const std::string& shape, double micros);

    /**
     * Writes the profile as Read reads it, entries sorted by op then shape, atomically: the
     * file appears only when complete, and a failed write leaves no file (AtomicOutputFile).
     * \param path the CSV file
     * \throws TraceError naming the path if it cannot be written
     */
    void Write(const std::string& path) const;

    /** \return the entries, (op, shape) -> microseconds, sorted */
    const std::map<std::pair<std::string, std::string>, double>& GetEntries() const;

    /** \return true if both hold the same entries with the same times */
    bool operator==(const ComputeProfile& other) const;

  private:
    std::map<std::pair<std::string, std::string>, double> m_micros; //!< (op, shape) -> us
};

} // namespace ns3

#endif // CHAKRA_COMPUTE_PROFILE_H
