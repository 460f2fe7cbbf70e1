#include "tool-args.h"

#include "attribute-text.h"
#include "name-suggestion.h"

#include "ns3/command-line.h"
#include "ns3/global-value.h"

#include <cstdlib>
#include <iostream>
#include <sstream>
#include <stdexcept>

namespace ns3
{

namespace
{

/** ns-3's CommandLine arguments that print something about the ns-3 build and exit. */
bool
IsNs3PrintFlag(const std::string& flag)
{
    for (const char* name :
         {"PrintAttributes", "PrintTypeIds", "PrintGroups", "PrintGroup", "PrintGlobals"})
    {
        if (flag == name)
        {
            return true;
        }
    }
    return false;
}

bool
IsGlobalValue(const std::string& name)
{
    for (auto it = GlobalValue::Begin(); it != GlobalValue::End(); ++it)
    {
        if ((*it)->GetName() == name)
        {
            return true;
        }
    }
    return false;
}

} // namespace

ToolArgs::ToolArgs(std::string program, std::string summary)
    : m_program(std::move(program)),
      m_summary(std::move(summary))
{
}

void
ToolArgs::Declare(Spec spec)
{
    if (!spec.positional)
    {
        std::vector<std::string> names = spec.aliases;
        names.push_back(spec.name);
        for (const std::string& name : names)
        {
            if (Find(name) != nullptr)
            {
                throw std::logic_error(m_program + ": flag --" + name + " declared twice");
            }
        }
    }
    m_specs.push_back(std::move(spec));
}

void
ToolArgs::AddOption(const std::string& name,
                    const std::string& help,
                    const std::string& defaultValue,
                    bool required,
                    const std::vector<std::string>& aliases)
{
    Spec spec{name, help, defaultValue};
    spec.required = required;
    spec.aliases = aliases;
    Declare(spec);
}

void
ToolArgs::AddFlag(const std::string& name,
                  const std::string& help,
                  const std::vector<std::string>& aliases)
{
    Spec spec{name, help};
    spec.boolean = true;
    spec.aliases = aliases;
    Declare(spec);
}

void
ToolArgs::AddOptionalValue(const std::string& name,
                           const std::string& help,
                           const std::vector<std::string>& aliases)
{
    Spec spec{name, help};
    spec.optionalValue = true;
    spec.aliases = aliases;
    Declare(spec);
}

void
ToolArgs::AddPositional(const std::string& name, const std::string& help, bool required)
{
    Spec spec{name, help};
    spec.required = required;
    spec.positional = true;
    Declare(spec);
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

void
ToolArgs::EnableNs3Attributes()
{
    m_ns3 = true;
}

const std::vector<std::pair<std::string, std::string>>&
ToolArgs::GetNs3Attributes() const
{
    return m_ns3Attributes;
}

const ToolArgs::Spec*
ToolArgs::Find(const std::string& flag) const
{
    // The exact spelling first, then the folded one (--nicBandwidth, --nic_bandwidth).
    for (int pass = 0; pass < 2; ++pass)
    {
        for (const auto& spec : m_specs)
        {
            if (spec.positional)
            {
                continue;
            }
            std::vector<std::string> names = spec.aliases;
            names.push_back(spec.name);
            for (const auto& name : names)
            {
                if (pass == 0 ? name == flag : FoldName(name) == FoldName(flag))
                {
                    return &spec;
                }
            }
        }
    }
    return nullptr;
}

std::vector<std::string>
ToolArgs::FlagNames() const
{
    std::vector<std::string> names;
    for (const auto& spec : m_specs)
    {
        if (!spec.positional)
        {
            names.push_back(spec.name);
            names.insert(names.end(), spec.aliases.begin(), spec.aliases.end());
        }
    }
    if (m_ns3)
    {
        names.insert(names.end(), {"PrintAttributes", "PrintTypeIds", "PrintGlobals"});
    }
    names.push_back("help");
    return names;
}

bool
ToolArgs::HandleNs3Flag(const std::string& flag, const std::string& value, bool hasValue)
{
    if (!m_ns3)
    {
        return false;
    }
    if (IsNs3PrintFlag(flag))
    {
        // ns-3's own CommandLine prints these (and exits), as in any ns-3 program.
        CommandLine cmd;
        cmd.Parse(std::vector<std::string>{m_program, "--" + flag + (hasValue ? "=" + value : "")});
        return true;
    }
    if (flag.compare(0, 5, "ns3::") == 0 || IsGlobalValue(flag))
    {
        if (!hasValue)
        {
            throw std::invalid_argument("--" + flag + " needs a value (--" + flag + "=VALUE)");
        }
        SetDefaultFromText(flag, value);
        m_ns3Attributes.emplace_back(flag, value);
        return true;
    }
    return false;
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
        if (arg == "--help" || arg == "-h" || arg == "--PrintHelp")
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
                try
                {
                    // "--ns3::Type::Name value" takes the next argument as its value.
                    if (!hasValue && flag.compare(0, 5, "ns3::") == 0 && m_ns3 && i + 1 < argc)
                    {
                        value = argv[++i];
                        hasValue = true;
                    }
                    if (HandleNs3Flag(flag, value, hasValue))
                    {
                        continue;
                    }
                }
                catch (const std::invalid_argument& e)
                {
                    return fail(e.what());
                }
                return fail("unknown option --" + flag + DidYouMean(flag, FlagNames(), "--"));
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
            if (spec->optionalValue)
            {
                m_values[spec->name] = value;
                continue;
            }
            if (!hasValue)
            {
                const bool nextIsFlag = i + 1 < argc && std::string(argv[i + 1]).size() > 2 &&
                                        std::string(argv[i + 1]).compare(0, 2, "--") == 0;
                if (i + 1 >= argc || nextIsFlag)
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
        value = std::stoll(text, &used, 10);
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
    if (text.empty() || used != text.size() || !std::isfinite(value))
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
        if (spec.optionalValue)
        {
            left += "[=VALUE]";
        }
        else if (!spec.boolean && !spec.positional)
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
    if (m_ns3)
    {
        out << "  --ns3::TYPE::ATTRIBUTE=VALUE  any ns-3 attribute's default (e.g. "
               "--ns3::RdmaNic::CongestionControl=dcqcn); --PrintAttributes=TYPE lists a "
               "type's attributes, --PrintTypeIds the types, --PrintGlobals the global values "
               "(--RngRun=N)\n";
    }
    out << "  --help" << std::string(24, ' ') << "show this help and exit\n";
    out << "\nValues follow the flag (--name VALUE or --name=VALUE); flags are matched ignoring "
           "case, '-' and '_' (--nic-bandwidth = --nicBandwidth).\n";
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
