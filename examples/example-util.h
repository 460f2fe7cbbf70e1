/*
 * What the feature examples share: a command line whose unsigned knobs refuse a negative or
 * out-of-range value (the temporary directory an example writes its traces into is the
 * library's TemporaryDirectory, which the benchmarks and tests use too).
 * Header-only: each example is one source file in both build modes (standalone, ns-3 tree).
 */
#ifndef CHAKRA_EXAMPLE_UTIL_H
#define CHAKRA_EXAMPLE_UTIL_H

#include "ns3/command-line.h"
#include "ns3/quantity-parser.h"
#include "ns3/temporary-directory.h"

#include <cstdint>
#include <cstdlib>
#include <deque>
#include <functional>
#include <limits>
#include <stdexcept>
#include <string>

namespace ns3
{

/**
 * \ingroup chakra
 * \brief ns-3's CommandLine, with its unsigned knobs checked.
 *
 * CommandLine reads "-1" for a uint32_t or uint64_t as 2^32-1 or 2^64-1 (the stream wraps it)
 * and the example runs, or fails far from the flag. Here an unsigned knob is read as text and
 * checked by ParseWholeNumber when the command line is parsed: a sign, a fraction or a value
 * beyond the type is refused with std::invalid_argument naming the flag. Other knobs go to
 * CommandLine as they are.
 */
class ExampleCommandLine
{
  public:
    /** \param filename the example's source file (__FILE__), as CommandLine takes it */
    explicit ExampleCommandLine(const std::string& filename)
        : m_cmd(filename)
    {
    }

    /** A knob of any type CommandLine reads (strings, doubles, bools, DataRate, ...). */
    template <typename T>
    void AddValue(const std::string& name, const std::string& help, T& value)
    {
        m_cmd.AddValue(name, help, value);
    }

    /** An unsigned 32-bit knob, checked at Parse. */
    void AddValue(const std::string& name, const std::string& help, uint32_t& value)
    {
        AddCount(name, help, value, std::numeric_limits<uint32_t>::max(), [&value](uint64_t v) {
            value = static_cast<uint32_t>(v);
        });
    }

    /** An unsigned 64-bit knob, checked at Parse. */
    void AddValue(const std::string& name, const std::string& help, uint64_t& value)
    {
        AddCount(name, help, value, std::numeric_limits<uint64_t>::max(), [&value](uint64_t v) {
            value = v;
        });
    }

    /**
     * Parses the command line (--help prints and exits, as CommandLine does), then checks and
     * stores every unsigned knob.
     * \throws std::invalid_argument naming the first knob whose value is not a whole number
     *         of its type's range
     */
    void Parse(int argc, char* argv[])
    {
        m_cmd.Parse(argc, argv);
        for (const Count& count : m_counts)
        {
            count.store(ParseWholeNumber(count.text, "--" + count.name, 0, count.high));
        }
    }

  private:
    /** An unsigned knob: the text CommandLine fills in, and where its value goes. */
    struct Count
    {
        std::string name;
        std::string text; //!< CommandLine writes the user's text here
        uint64_t high{0}; //!< the largest value the knob's type holds
        std::function<void(uint64_t)> store;
    };

    void AddCount(const std::string& name,
                  const std::string& help,
                  uint64_t current,
                  uint64_t high,
                  std::function<void(uint64_t)> store)
    {
        // A deque keeps each text where it is: CommandLine holds on to its address.
        m_counts.push_back({name, std::to_string(current), high, std::move(store)});
        m_cmd.AddValue(name, help, m_counts.back().text);
    }

    CommandLine m_cmd;
    std::deque<Count> m_counts;
};

} // namespace ns3

#endif // CHAKRA_EXAMPLE_UTIL_H
