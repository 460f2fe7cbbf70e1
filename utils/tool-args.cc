#include "tool-args.h"

#include <cstdlib>
#include <iostream>
#include <sstream>
#include <stdexcept>

namespace ns3
{

ToolArgs::ToolArgs(std::string program, std::string summary)
    : m_program(std::move(program)),
      m_summary(std::move(summary))
{
}

void
ToolArgs::AddOption(const std::string& name,
                    const std::string& help,
                    const std::string& defaultValue,
                    bool required,
                    const std::vector<std::string>& aliases)
{
    m_specs.push_back({name, help, defaultValue, required, false, false, aliases});
}

void
ToolArgs::AddFlag(const std::string& name, const std::string& help)
{
    m_specs.push_back({name, help, "", false, true, false, {}});
}

void
ToolArgs::AddPositional(const std::string& name, const std::string& help, bool required)
{
    m_specs.push_back({name, help, "", required, false, true, {}});
}

void
ToolArgs::AllowMorePositionals(const std::string& name, const std::string& help)
{
    m_moreName = name;
    m_moreHelp = help;
}

const std::vector<std::string>&
ToolArgs::GetMorePositionals() const
{
    return m_more;
}

const ToolArgs::Spec*
ToolArgs::Find(const std::string& flag) const
{
    for (const auto& spec : m_specs)
    {
        if (spec.positional)
        {
            continue;
        }
        if (spec.name == flag)
        {
            return &spec;
        }
        for (const auto& alias : spec.aliases)
        {
            if (alias == flag)
            {
                return &spec;
            }
        }
    }
    return nullptr;
}

int
ToolArgs::Parse(int argc, char** argv, bool& done)
{
    done = false;
    std::size_t nextPositional = 0;
    auto fail = [&](const std::string& message) {
        std::cerr << m_program << ": error: " << message << " (see --help)" << std::endl;
        done = true;
        return 2;
    };
    for (int i = 1; i < argc; ++i)
    {
        std::string arg = argv[i];
        if (arg == "--help" || arg == "-h")
        {
            std::cout << Usage();
            done = true;
            return 0;
        }
        if (arg.size() > 2 && arg.compare(0, 2, "--") == 0)
        {
            std::string flag = arg.substr(2);
            std::string value;
            bool hasValue = false;
            std::string::size_type eq = flag.find('=');
            if (eq != std::string::npos)
            {
                value = flag.substr(eq + 1);
                flag = flag.substr(0, eq);
                hasValue = true;
            }
            const Spec* spec = Find(flag);
            if (spec == nullptr)
            {
                return fail("unknown option --" + flag);
            }
            if (spec->boolean)
            {
                if (hasValue && value != "true" && value != "1")
                {
                    if (value == "false" || value == "0")
                    {
                        m_values.erase(spec->name);
                        continue;
                    }
                    return fail("--" + flag + " takes no value");
                }
                m_values[spec->name] = "true";
                continue;
            }
            if (!hasValue)
            {
                if (i + 1 >= argc)
                {
                    return fail("--" + flag + " needs a value");
                }
                value = argv[++i];
            }
            m_values[spec->name] = value;
            continue;
        }
        // A positional argument.
        std::size_t seen = 0;
        const Spec* target = nullptr;
        for (const auto& spec : m_specs)
        {
            if (spec.positional && seen++ == nextPositional)
            {
                target = &spec;
                break;
            }
        }
        if (target == nullptr)
        {
            if (m_moreName.empty())
            {
                return fail("unexpected argument '" + arg + "'");
            }
            m_more.push_back(arg);
            continue;
        }
        m_values[target->name] = arg;
        ++nextPositional;
    }
    for (const auto& spec : m_specs)
    {
        if (spec.required && m_values.count(spec.name) == 0)
        {
            return fail(spec.positional ? "missing argument <" + spec.name + ">"
                                        : "missing required option --" + spec.name);
        }
    }
    return 0;
}

std::string
ToolArgs::Get(const std::string& name) const
{
    auto it = m_values.find(name);
    if (it != m_values.end())
    {
        return it->second;
    }
    for (const auto& spec : m_specs)
    {
        if (spec.name == name)
        {
            return spec.defaultValue;
        }
    }
    return "";
}

bool
ToolArgs::Has(const std::string& name) const
{
    return m_values.count(name) != 0;
}

long long
ToolArgs::GetInt(const std::string& name) const
{
    std::string text = Get(name);
    std::size_t used = 0;
    long long value = 0;
    try
    {
        value = std::stoll(text, &used, 0);
    }
    catch (const std::exception&)
    {
        used = 0;
    }
    if (text.empty() || used != text.size())
    {
        throw std::invalid_argument("--" + name + " expects an integer, got '" + text + "'");
    }
    return value;
}

double
ToolArgs::GetDouble(const std::string& name) const
{
    std::string text = Get(name);
    std::size_t used = 0;
    double value = 0;
    try
    {
        value = std::stod(text, &used);
    }
    catch (const std::exception&)
    {
        used = 0;
    }
    if (text.empty() || used != text.size())
    {
        throw std::invalid_argument("--" + name + " expects a number, got '" + text + "'");
    }
    return value;
}

std::string
ToolArgs::Usage() const
{
    std::ostringstream out;
    out << "usage: " << m_program;
    for (const auto& spec : m_specs)
    {
        if (spec.positional)
        {
            out << (spec.required ? " <" : " [<") << spec.name << (spec.required ? ">" : ">]");
        }
    }
    if (!m_moreName.empty())
    {
        out << " [<" << m_moreName << ">...]";
    }
    out << " [options]\n\n" << m_summary << "\n\n";
    for (const auto& spec : m_specs)
    {
        std::string left = spec.positional ? "<" + spec.name + ">" : "--" + spec.name;
        if (!spec.boolean && !spec.positional)
        {
            left += " VALUE";
        }
        out << "  " << left;
        out << std::string(left.size() < 30 ? 30 - left.size() : 1, ' ') << spec.help;
        if (!spec.defaultValue.empty())
        {
            out << " (default: " << spec.defaultValue << ")";
        }
        if (spec.required && !spec.positional)
        {
            out << " (required)";
        }
        for (const auto& alias : spec.aliases)
        {
            out << " [also --" << alias << "]";
        }
        out << "\n";
    }
    if (!m_moreName.empty())
    {
        std::string left = "<" + m_moreName + ">...";
        out << "  " << left << std::string(left.size() < 30 ? 30 - left.size() : 1, ' ')
            << m_moreHelp << "\n";
    }
    out << "  --help" << std::string(24, ' ') << "show this help and exit\n";
    return out.str();
}

int
RunTool(const std::string& program, const std::function<int()>& body)
{
    try
    {
        return body();
    }
    catch (const std::exception& e)
    {
        std::cerr << program << ": error: " << e.what() << std::endl;
        return 1;
    }
}

} // namespace ns3
