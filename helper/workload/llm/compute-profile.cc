#include "compute-profile.h"

#include "ns3/trace-file.h"

#include <charconv>
#include <cmath>
#include <fstream>
#include <stdexcept>
#include <vector>

namespace ns3
{

namespace
{

/** \return \p text without leading and trailing blanks (and a CR from a CRLF file) */
std::string
Trim(const std::string& text)
{
    const auto first = text.find_first_not_of(" \t\r");
    if (first == std::string::npos)
    {
        return "";
    }
    const auto last = text.find_last_not_of(" \t\r");
    return text.substr(first, last - first + 1);
}

/** \return the comma-separated fields of \p line, trimmed */
std::vector<std::string>
Fields(const std::string& line)
{
    std::vector<std::string> out;
    std::size_t start = 0;
    while (true)
    {
        const auto comma = line.find(',', start);
        out.push_back(Trim(line.substr(start, comma - start)));
        if (comma == std::string::npos)
        {
            return out;
        }
        start = comma + 1;
    }
}

/** \return the time in \p text, or nullopt unless it is a whole positive finite number */
std::optional<double>
ParseMicros(const std::string& text)
{
    try
    {
        std::size_t used = 0;
        const double value = std::stod(text, &used);
        if (used == text.size() && std::isfinite(value) && value > 0)
        {
            return value;
        }
    }
    catch (const std::exception&)
    {
        // not a number: reported by the caller with the file and line
    }
    return std::nullopt;
}

} // namespace

ComputeProfile
ComputeProfile::Read(const std::string& path)
{
    std::ifstream in(path);
    if (!in)
    {
        throw std::invalid_argument(path + ": cannot open the compute profile");
    }
    ComputeProfile profile;
    std::string line;
    uint64_t number = 0;
    bool header = false;
    while (std::getline(in, line))
    {
        ++number;
        const std::string where = path + ":" + std::to_string(number) + ": ";
        if (Trim(line).empty())
        {
            continue;
        }
        const std::vector<std::string> fields = Fields(line);
        if (!header)
        {
            if (fields != std::vector<std::string>{"op", "shape", "micros"})
            {
                throw std::invalid_argument(where + "the header must be 'op,shape,micros'");
            }
            header = true;
            continue;
        }
        if (fields.size() != 3)
        {
            throw std::invalid_argument(where + "expected 'op,shape,micros', got " +
                                        std::to_string(fields.size()) + " fields");
        }
        if (fields[0].empty() || fields[1].empty())
        {
            throw std::invalid_argument(where + "empty op or shape");
        }
        const auto micros = ParseMicros(fields[2]);
        if (!micros)
        {
            throw std::invalid_argument(where + "micros '" + fields[2] +
                                        "' is not a positive number");
        }
        if (!profile.m_micros.emplace(std::make_pair(fields[0], fields[1]), *micros).second)
        {
            throw std::invalid_argument(where + "op '" + fields[0] + "' shape '" + fields[1] +
                                        "' given twice");
        }
    }
    if (!header)
    {
        throw std::invalid_argument(path + ":1: empty file, the header 'op,shape,micros' missing");
    }
    return profile;
}

std::optional<double>
ComputeProfile::Micros(const std::string& op, const std::string& shape) const
{
    const auto it = m_micros.find(std::make_pair(op, shape));
    if (it == m_micros.end())
    {
        return std::nullopt;
    }
    return it->second;
}

std::size_t
ComputeProfile::Size() const
{
    return m_micros.size();
}

void
ComputeProfile::Add(const std::string& op, const std::string& shape, double micros)
{
    for (const std::string* field : {&op, &shape})
    {
        // Read splits on commas and trims blanks: such a field would not read back as given.
        if (field->empty() || field->find_first_of(",\n\r") != std::string::npos ||
            Trim(*field) != *field)
        {
            throw std::invalid_argument("compute profile: op '" + op + "' shape '" + shape +
                                        "': an op or shape must be non-empty, without commas, "
                                        "line breaks or surrounding blanks");
        }
    }
    if (!std::isfinite(micros) || micros <= 0)
    {
        throw std::invalid_argument("compute profile: op '" + op + "' shape '" + shape +
                                    "': micros " + std::to_string(micros) +
                                    " is not a positive number");
    }
    if (!m_micros.emplace(std::make_pair(op, shape), micros).second)
    {
        throw std::invalid_argument("compute profile: op '" + op + "' shape '" + shape +
                                    "' given twice");
    }
}

void
ComputeProfile::Write(const std::string& path) const
{
    std::string text = "op,shape,micros\n";
    for (const auto& [key, micros] : m_micros)
    {
        // The shortest text that std::stod reads back as the same double (Read(Write(p)) == p).
        char number[64];
        const auto end = std::to_chars(number, number + sizeof(number), micros).ptr;
        text += key.first + "," + key.second + "," + std::string(number, end) + "\n";
    }
    AtomicOutputFile file(path);
    file.Write(text);
    file.Commit();
}

const std::map<std::pair<std::string, std::string>, double>&
ComputeProfile::GetEntries() const
{
    return m_micros;
}

bool
ComputeProfile::operator==(const ComputeProfile& other) const
{
    return m_micros == other.m_micros;
}

} // namespace ns3
