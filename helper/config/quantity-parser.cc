#include "quantity-parser.h"

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <iomanip>
#include <sstream>
#include <stdexcept>
#include <vector>

namespace ns3
{

std::string
TrimBlanks(const std::string& text)
{
    const auto begin = text.find_first_not_of(" \t");
    if (begin == std::string::npos)
    {
        return "";
    }
    return text.substr(begin, text.find_last_not_of(" \t") - begin + 1);
}

namespace
{

/** A number and what follows it. */
struct NumberAndUnit
{
    double number{0};
    std::string unit; //!< trimmed
};

/**
 * Splits "12.5 Gbps" into 12.5 and "Gbps". The number is plain decimal with an optional
 * fraction and exponent: no sign, no hex, no "nan" or "inf" (which strtod would take).
 * \return false if the text does not start with such a number
 */
bool
SplitNumber(const std::string& text, NumberAndUnit& out)
{
    const std::string trimmed = TrimBlanks(text);
    std::size_t i = 0;
    auto digits = [&]() {
        const std::size_t start = i;
        while (i < trimmed.size() && std::isdigit(static_cast<unsigned char>(trimmed[i])))
        {
            ++i;
        }
        return i - start;
    };
    std::size_t mantissa = digits();
    if (i < trimmed.size() && trimmed[i] == '.')
    {
        ++i;
        mantissa += digits();
    }
    if (mantissa == 0)
    {
        return false;
    }
    if (i < trimmed.size() && (trimmed[i] == 'e' || trimmed[i] == 'E'))
    {
        // An exponent only if digits follow: "5e" is not a number, and "1E" is no unit either.
        std::size_t j = i + 1;
        if (j < trimmed.size() && (trimmed[j] == '+' || trimmed[j] == '-'))
        {
            ++j;
        }
        if (j < trimmed.size() && std::isdigit(static_cast<unsigned char>(trimmed[j])))
        {
            i = j;
            digits();
        }
    }
    out.number = std::strtod(trimmed.substr(0, i).c_str(), nullptr);
    out.unit = TrimBlanks(trimmed.substr(i));
    return std::isfinite(out.number);
}

std::string
Quoted(const std::string& text)
{
    return "'" + text + "'";
}

/** The multiplier of a rate prefix ("", k, M, G, T, P, Ki, Mi, Gi, Ti), or 0 if unknown. */
double
RatePrefix(const std::string& prefix)
{
    if (prefix.empty())
    {
        return 1;
    }
    const char p = static_cast<char>(std::tolower(static_cast<unsigned char>(prefix[0])));
    const bool binary = prefix.size() == 2 && prefix[1] == 'i';
    if (prefix.size() > 2 || (prefix.size() == 2 && !binary))
    {
        return 0;
    }
    const std::string order = "kmgtp";
    const auto power = order.find(p);
    if (power == std::string::npos || (binary && p == 'p'))
    {
        return 0;
    }
    return std::pow(binary ? 1024.0 : 1000.0, static_cast<double>(power + 1));
}

} // namespace

DataRate
ParseBandwidth(const std::string& text, const std::string& what, bool zeroAllowed)
{
    const std::string examples = " (e.g. 400Gbps, 400Gb/s, 100G, 50GB/s)";
    NumberAndUnit parsed;
    if (!SplitNumber(text, parsed))
    {
        throw std::invalid_argument(what + ": " + Quoted(text) + " is not a bandwidth" + examples);
    }
    if (parsed.number == 0 && zeroAllowed)
    {
        return DataRate(0);
    }
    if (parsed.unit.empty())
    {
        throw std::invalid_argument(what + ": " + Quoted(text) +
                                    " has no unit: a bare number would be bit/s" + examples);
    }
    // Split the unit into prefix and base: bits or bytes per second.
    static const std::vector<std::pair<std::string, double>> bases = {
        {"bps", 1},
        {"b/s", 1},
        {"bit/s", 1},
        {"bits/s", 1},
        {"Bps", 8},
        {"B/s", 8},
        {"byte/s", 8},
        {"bytes/s", 8},
    };
    double perUnit = 0;
    for (const auto& [base, bits] : bases)
    {
        if (parsed.unit.size() >= base.size() &&
            parsed.unit.compare(parsed.unit.size() - base.size(), base.size(), base) == 0)
        {
            const double prefix =
                RatePrefix(parsed.unit.substr(0, parsed.unit.size() - base.size()));
            if (prefix > 0)
            {
                perUnit = prefix * bits;
                break;
            }
        }
    }
    if (perUnit == 0)
    {
        // A bare prefix: "100G" is 100 Gbps, as link speeds are named.
        perUnit = RatePrefix(parsed.unit);
        if (parsed.unit.empty() || perUnit <= 1)
        {
            throw std::invalid_argument(what + ": " + Quoted(text) + ": unknown unit " +
                                        Quoted(parsed.unit) + examples);
        }
    }
    const double bps = parsed.number * perUnit;
    if (!(bps >= QuantityLimits::kMinBitRate) || !(bps <= QuantityLimits::kMaxBitRate))
    {
        throw std::invalid_argument(what + ": " + Quoted(text) + " is outside 1Mbps .. 100Tbps" +
                                    (zeroAllowed ? " (or 0 for the default)" : ""));
    }
    return DataRate(static_cast<uint64_t>(std::llround(bps)));
}

namespace
{

/** \return the nanoseconds in one \p unit, or 0 if unknown */
double
TimeUnit(const std::string& unit)
{
    static const std::vector<std::pair<std::string, double>> units = {
        {"s", 1e9},
        {"sec", 1e9},
        {"ms", 1e6},
        {"us", 1e3},
        {"\xC2\xB5s", 1e3},
        {"ns", 1},
        {"ps", 1e-3},
        {"min", 60e9},
    };
    for (const auto& [name, ns] : units)
    {
        if (unit == name)
        {
            return ns;
        }
    }
    return 0;
}

} // namespace

Time
ParseDuration(const std::string& text, const std::string& what, Time max, bool bareSeconds)
{
    const std::string examples = " (e.g. 500ns, 1.5us, 2ms)";
    NumberAndUnit parsed;
    if (!SplitNumber(text, parsed))
    {
        throw std::invalid_argument(what + ": " + Quoted(text) + " is not a time" + examples);
    }
    double ns = 0;
    if (parsed.unit.empty())
    {
        if (parsed.number != 0 && !bareSeconds)
        {
            throw std::invalid_argument(what + ": " + Quoted(text) + " has no unit" + examples);
        }
        ns = parsed.number * 1e9;
    }
    else
    {
        const double unit = TimeUnit(parsed.unit);
        if (unit == 0)
        {
            throw std::invalid_argument(what + ": " + Quoted(text) + ": unknown unit " +
                                        Quoted(parsed.unit) + examples);
        }
        ns = parsed.number * unit;
    }
    if (!(ns <= static_cast<double>(max.GetNanoSeconds())))
    {
        throw std::invalid_argument(what + ": " + Quoted(text) + " is longer than " +
                                    FormatLatency(max));
    }
    // Sub-nanosecond parts are kept in picoseconds only where the simulator has them.
    return PicoSeconds(static_cast<int64_t>(std::llround(ns * 1e3)));
}

Time
ParseLatency(const std::string& text, const std::string& what)
{
    return ParseDuration(text, what, NanoSeconds(QuantityLimits::kMaxLatencyNs), false);
}

uint64_t
ParseByteSize(const std::string& text, const std::string& what, uint64_t low, uint64_t high)
{
    const std::string trimmed = TrimBlanks(text);
    std::size_t digits = 0;
    while (digits < trimmed.size() && std::isdigit(static_cast<unsigned char>(trimmed[digits])))
    {
        ++digits;
    }
    const std::string unit = TrimBlanks(trimmed.substr(digits));
    static const std::vector<std::pair<std::string, long double>> units = {
        {"", 1},
        {"B", 1},
        {"KiB", 1024.0L},
        {"MiB", 1048576.0L},
        {"GiB", 1073741824.0L},
        {"TiB", 1099511627776.0L},
        {"KB", 1e3L},
        {"MB", 1e6L},
        {"GB", 1e9L},
        {"TB", 1e12L},
        {"K", 1024.0L},
        {"M", 1048576.0L},
        {"G", 1073741824.0L},
    };
    long double factor = 0;
    for (const auto& [name, multiplier] : units)
    {
        if (unit == name)
        {
            factor = multiplier;
        }
    }
    if (digits == 0 || factor == 0 || digits > 19)
    {
        throw std::invalid_argument(what + ": " + Quoted(text) +
                                    " is not a size in bytes (e.g. 9000, 64KiB, 1MiB, 4GB)");
    }
    const long double bytes =
        std::strtoull(trimmed.substr(0, digits).c_str(), nullptr, 10) * factor;
    if (bytes < low || bytes > high)
    {
        throw std::invalid_argument(what + ": " + Quoted(text) + " is outside " +
                                    std::to_string(low) + " .. " + std::to_string(high) + " bytes");
    }
    return static_cast<uint64_t>(bytes);
}

uint64_t
ParseWholeNumber(const std::string& text, const std::string& what, uint64_t low, uint64_t high)
{
    const std::string trimmed = TrimBlanks(text);
    const std::string range =
        "a whole number from " + std::to_string(low) + " to " + std::to_string(high);
    bool digitsOnly = !trimmed.empty();
    for (char c : trimmed)
    {
        digitsOnly = digitsOnly && std::isdigit(static_cast<unsigned char>(c));
    }
    if (!digitsOnly)
    {
        throw std::invalid_argument(what + ": " + Quoted(text) + " is not " + range);
    }
    // Past 2^64 - 1, strtoull saturates and sets ERANGE: out of range, whatever the bounds.
    errno = 0;
    const uint64_t value = std::strtoull(trimmed.c_str(), nullptr, 10);
    if (errno == ERANGE || value < low || value > high)
    {
        throw std::invalid_argument(what + ": " + trimmed + " is not " + range);
    }
    return value;
}

double
ParseRealNumber(const std::string& text,
                const std::string& what,
                double low,
                double high,
                bool lowOpen)
{
    std::ostringstream range;
    range << (lowOpen ? "above " : "from ") << low << (lowOpen ? " up to " : " to ") << high;
    // A sign is allowed here (a negative value is out of range, and says so).
    std::string body = TrimBlanks(text);
    const bool negative = !body.empty() && body[0] == '-';
    if (!body.empty() && (body[0] == '-' || body[0] == '+'))
    {
        body = body.substr(1);
    }
    NumberAndUnit parsed;
    if (!SplitNumber(body, parsed) || !parsed.unit.empty())
    {
        throw std::invalid_argument(what + ": " + Quoted(text) + " is not a number " + range.str());
    }
    const double value = negative ? -parsed.number : parsed.number;
    if (value < low || value > high || (lowOpen && value == low))
    {
        throw std::invalid_argument(what + ": " + TrimBlanks(text) + " is not a number " +
                                    range.str());
    }
    return value;
}

void
CheckBandwidth(DataRate rate, const std::string& what, bool zeroAllowed)
{
    const auto bps = static_cast<double>(rate.GetBitRate());
    if (bps == 0 && zeroAllowed)
    {
        return;
    }
    if (bps < QuantityLimits::kMinBitRate || bps > QuantityLimits::kMaxBitRate)
    {
        throw std::invalid_argument(what + ": " + FormatBandwidth(rate) +
                                    " is outside 1Mbps .. 100Tbps" +
                                    (zeroAllowed ? " (or 0 for the default)" : ""));
    }
}

void
CheckLatency(Time latency, const std::string& what)
{
    if (latency.IsStrictlyNegative() || latency > NanoSeconds(QuantityLimits::kMaxLatencyNs))
    {
        throw std::invalid_argument(what + ": " + FormatLatency(latency) + " is outside 0 .. 1s");
    }
}

namespace
{

/** \return value / unit with up to 3 decimals, trailing zeros dropped */
std::string
Scaled(double value, double unit)
{
    std::ostringstream text;
    text << std::fixed << std::setprecision(3) << value / unit;
    std::string s = text.str();
    s.erase(s.find_last_not_of('0') + 1);
    if (!s.empty() && s.back() == '.')
    {
        s.pop_back();
    }
    return s;
}

} // namespace

std::string
FormatBandwidth(DataRate rate)
{
    const auto bps = static_cast<double>(rate.GetBitRate());
    static const std::vector<std::pair<double, const char*>> units = {{1e12, "Tbps"},
                                                                      {1e9, "Gbps"},
                                                                      {1e6, "Mbps"},
                                                                      {1e3, "kbps"}};
    for (const auto& [unit, name] : units)
    {
        if (bps >= unit)
        {
            return Scaled(bps, unit) + name;
        }
    }
    return Scaled(bps, 1) + "bps";
}

std::string
FormatLatency(Time time)
{
    // In picoseconds while they fit 64 bits (about 106 days; 1e7 s, --stop-time's bound, does
    // not), in seconds beyond.
    const int64_t ns = time.GetNanoSeconds();
    const double ps = std::llabs(ns) < int64_t(1e15) ? static_cast<double>(time.GetPicoSeconds())
                                                     : time.GetSeconds() * 1e12;
    const double magnitude = std::fabs(ps);
    static const std::vector<std::pair<double, const char*>> units = {{1e12, "s"},
                                                                      {1e9, "ms"},
                                                                      {1e6, "us"},
                                                                      {1e3, "ns"}};
    for (const auto& [unit, name] : units)
    {
        if (magnitude >= unit)
        {
            return Scaled(ps, unit) + name;
        }
    }
    return magnitude == 0 ? "0s" : Scaled(ps, 1) + "ps";
}

} // namespace ns3
