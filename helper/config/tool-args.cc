#include "tool-args.h"

#include "attribute-text.h"
#include "name-suggestion.h"
#include "quantity-parser.h"

#include "ns3/command-line.h"
#include "ns3/global-value.h"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
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

/** \return true if \p word is a long flag ("--name" or "--name=value") */
bool
IsLongFlag(const std::string& word)
{
    return word.size() > 2 && word.compare(0, 2, "--") == 0;
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
ToolArgs::AddRepeatedOption(const std::string& name, const std::string& help)
{
    Spec spec{name, help};
    spec.repeated = true;
    Declare(spec);
}

const std::vector<std::string>&
ToolArgs::GetAll(const std::string& name) const
{
    static const std::vector<std::string> none;
    auto it = m_repeatedValues.find(name);
    return it == m_repeatedValues.end() ? none : it->second;
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
    std::vector<std::string> words; // argv, each flag in its declared spelling
    try
    {
        for (int i = 1; i < argc; ++i)
        {
            const std::string arg = argv[i];
            if (arg == "--help" || arg == "-h" || arg == "--PrintHelp")
            {
                std::cout << Usage();
                done = true;
                return 0;
            }
            if (arg == "--")
            {
                words.insert(words.end(), argv + i, argv + argc);
                break;
            }
            if (IsLongFlag(arg))
            {
                i += SpellFlag(arg, i + 1 < argc ? argv[i + 1] : nullptr, words);
            }
            else
            {
                words.push_back(arg);
            }
        }
        ParseSpelled(std::move(words));
    }
    catch (const std::invalid_argument& e)
    {
        std::cerr << m_program << ": error: " << e.what() << " (see --help)" << std::endl;
        done = true;
        return 2;
    }
    return 0;
}

int
ToolArgs::SpellFlag(const std::string& arg, const char* next, std::vector<std::string>& words)
{
    std::string flag = arg.substr(2);
    std::string value;
    const std::string::size_type eq = flag.find('=');
    const bool hasValue = eq != std::string::npos;
    if (hasValue)
    {
        value = flag.substr(eq + 1);
        flag.resize(eq);
    }
    if (const Spec* spec = Find(flag))
    {
        // CLI11 reads "--name=" as "--name" followed by its value, taking the next word.
        if (hasValue && value.empty() && !spec->boolean && !spec->optionalValue)
        {
            throw std::invalid_argument("--" + flag + " needs a value");
        }
        words.push_back("--" + spec->name + (hasValue ? "=" + value : ""));
        return 0;
    }
    // "--ns3::Type::Name value" takes the next word as its value.
    if (m_ns3 && !hasValue && next != nullptr && flag.compare(0, 5, "ns3::") == 0)
    {
        HandleNs3Flag(flag, next, true);
        return 1;
    }
    if (HandleNs3Flag(flag, value, hasValue))
    {
        return 0;
    }
    throw std::invalid_argument("unknown option --" + flag + DidYouMean(flag, FlagNames(), "--"));
}

void
ToolArgs::ParseSpelled(std::vector<std::string> words)
{
    CLI::App app{m_summary, m_program};
    app.set_help_flag(); // Usage() is the help, printed before parsing
    app.allow_extras();  // reported below, naming the first one
    app.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
    std::vector<CLI::Option*> options;
    for (const Spec& spec : m_specs)
    {
        if (spec.positional)
        {
            // Not ->required(): CLI11 2.1 keeps words back for a missing required positional,
            // even from an option waiting for its value ("--ranks 4" would give 4 to <input>).
            // Required arguments are checked after the parse, below.
            options.push_back(app.add_option(spec.name));
        }
        else if (spec.boolean)
        {
            options.push_back(app.add_flag("--" + spec.name));
        }
        else if (spec.optionalValue)
        {
            options.push_back(app.add_flag("--" + spec.name + "{}")); // alone: ""
        }
        else if (spec.repeated)
        {
            options.push_back(app.add_option("--" + spec.name)
                                  ->expected(0, 1)
                                  ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll));
        }
        else
        {
            // 0 or 1 values, not exactly 1: CLI11 gives an option expecting one value the next
            // word even when it is a flag ("--ranks --quiet" would set ranks to "--quiet").
            // Given alone it has an empty value, refused below.
            options.push_back(app.add_option("--" + spec.name)->expected(0, 1));
        }
    }
    std::vector<std::string> more;
    if (!m_moreName.empty())
    {
        app.add_option(m_moreName, more);
    }
    std::reverse(words.begin(), words.end()); // CLI11 takes the words from the back
    try
    {
        app.parse(words);
    }
    catch (const CLI::ParseError& e)
    {
        throw std::invalid_argument(e.what());
    }
    for (const std::string& word : app.remaining())
    {
        if (word != "--")
        {
            throw std::invalid_argument("unexpected argument '" + word + "'");
        }
    }
    for (std::size_t k = 0; k < m_specs.size(); ++k)
    {
        StoreParsed(m_specs[k], options[k]->results());
    }
    m_more = std::move(more);
}

void
ToolArgs::StoreParsed(const Spec& spec, const std::vector<std::string>& given)
{
    if (given.empty())
    {
        if (spec.required)
        {
            throw std::invalid_argument(spec.positional ? "missing argument <" + spec.name + ">"
                                                        : "missing required option --" + spec.name);
        }
        return;
    }
    if (spec.repeated)
    {
        // Every value counts, in the order given.
        std::vector<std::string>& all = m_repeatedValues[spec.name];
        all.assign(given.begin(), given.end());
        for (const std::string& value : all)
        {
            if (value.empty())
            {
                throw std::invalid_argument("--" + spec.name + " needs a value");
            }
        }
        m_values[spec.name] = all.back();
        return;
    }
    const std::string& value = given.back(); // given more than once: the last counts
    if (spec.boolean)
    {
        if (value == "true" || value == "1")
        {
            m_values[spec.name] = "true";
        }
        else if (value != "false" && value != "0")
        {
            throw std::invalid_argument("--" + spec.name + " takes no value");
        }
        return;
    }
    if (value.empty() && !spec.optionalValue && !spec.positional)
    {
        throw std::invalid_argument("--" + spec.name + " needs a value");
    }
    m_values[spec.name] = value;
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

double
ProgressInterval(const ToolArgs& args)
{
    const double interval = ParseRealNumber(args.Get("progress"), "--progress", 0, 1e6);
    if (!args.Has("quiet"))
    {
        return interval;
    }
    if (args.Has("progress") && interval > 0)
    {
        throw std::invalid_argument("--quiet and --progress " + args.Get("progress") +
                                    " contradict: --quiet prints no progress lines; drop one");
    }
    return 0;
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
        else if (spec.repeated)
        {
            left += " VALUE...";
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
