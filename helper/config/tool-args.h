/*
 * The command-line parser every chakra tool shares, so that every tool takes its flags the same
 * way (doc/chakra.md, "Flags").
 */
#ifndef CHAKRA_TOOL_ARGS_H
#define CHAKRA_TOOL_ARGS_H

#include <functional>
#include <map>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup chakra-config
 * \brief Declared flags, parsed values and the usage text of one tool.
 *
 * - Flags are written in kebab-case (--nic-bandwidth) and take their value as "--name value"
 *   or "--name=value" (as Python's argparse, so the reference Chakra tools' own flags such as
 *   "--input_filename X" work too). A flag is found ignoring case, '-' and '_': --nicBandwidth
 *   and --nic_bandwidth are --nic-bandwidth. Declared aliases cover other words (--out for
 *   --output).
 * - Boolean flags take no value (or =true / =false).
 * - An optional-value flag (AddOptionalValue) is given alone or as "--name=VALUE".
 * - With EnableNs3Attributes: "--ns3::Type::Attribute=value" sets an ns-3 attribute default
 *   (checked: ParseAttributeText), a name of an ns-3 GlobalValue (--RngRun=2) sets it, and
 *   ns-3's --PrintAttributes=TYPE, --PrintTypeIds, --PrintGroups, --PrintGroup=GROUP,
 *   --PrintGlobals print what they print in ns-3 programs.
 * - An unknown flag is an error with the nearest known flag ("did you mean"), not the help.
 *
 * CLI11 (Debian's libcli11-dev) does the parsing: values, flags, positionals, "last value
 * wins". Parse first puts each flag in its declared spelling (CLI11 matches names exactly) and
 * takes the ns-3 flags, whose names are open-ended; what CLI11 found is then checked here, so
 * that every mistake is one line naming the flag.
 */
class ToolArgs
{
  public:
    /**
     * \param program the tool name
     * \param summary one line saying what the tool does
     */
    ToolArgs(std::string program, std::string summary);

    /** Declares a flag that takes a value. \p aliases are other accepted spellings. */
    void AddOption(const std::string& name,
                   const std::string& help,
                   const std::string& defaultValue = "",
                   bool required = false,
                   const std::vector<std::string>& aliases = {});
    /** Declares a boolean flag. */
    void AddFlag(const std::string& name,
                 const std::string& help,
                 const std::vector<std::string>& aliases = {});
    /**
     * Declares a flag given alone or with "=VALUE" (--timeline, --timeline=FILE): Has() tells
     * whether it was given, Get() its value ("" when given alone).
     */
    void AddOptionalValue(const std::string& name,
                          const std::string& help,
                          const std::vector<std::string>& aliases = {});
    /** Declares a flag that may be given several times, each with a value (GetAll). */
    void AddRepeatedOption(const std::string& name, const std::string& help);
    /** \return every value of a repeated option, in the order given */
    const std::vector<std::string>& GetAll(const std::string& name) const;
    /** Declares a positional argument (in order). */
    void AddPositional(const std::string& name, const std::string& help, bool required = true);

    /** Accepts any number of further positional arguments after the declared ones. */
    void AllowMorePositionals(const std::string& name, const std::string& help);
    /** \return the further positional arguments (see AllowMorePositionals) */
    const std::vector<std::string>& GetMorePositionals() const;

    /** Accepts ns-3 attribute and global-value flags (see the class description). */
    void EnableNs3Attributes();

    /**
     * Parses argv. After "--help" (usage printed) or an error (message printed), \p done is
     * true and the tool should exit with the returned code (0 or 2).
     * \param argc from main
     * \param argv from main
     * \param[out] done true when the tool should exit now
     * \return the exit code to use when \p done
     */
    int Parse(int argc, char** argv, bool& done);

    /** \return the value of an option or positional ("" if absent and without default) */
    std::string Get(const std::string& name) const;
    /** \return true if a boolean flag was given, or an option was given explicitly */
    bool Has(const std::string& name) const;
    /** \return Get(name) as an integer; throws std::invalid_argument with a clear message */
    long long GetInt(const std::string& name) const;
    /** \return Get(name) as a number; throws std::invalid_argument with a clear message */
    double GetDouble(const std::string& name) const;
    /** \return the usage text */
    std::string Usage() const;
    /** \return the ns-3 attribute flags given ("ns3::Type::Name" -> text), in order */
    const std::vector<std::pair<std::string, std::string>>& GetNs3Attributes() const;

  private:
    /** One declared flag or positional. */
    struct Spec
    {
        /** A flag or positional named \p n, with help \p h and default \p d. */
        Spec(std::string n, std::string h, std::string d = "")
            : name(std::move(n)),
              help(std::move(h)),
              defaultValue(std::move(d))
        {
        }

        std::string name;
        std::string help;
        std::string defaultValue;
        bool required{false};
        bool boolean{false};
        bool positional{false};
        bool optionalValue{false};
        bool repeated{false};
        std::vector<std::string> aliases;
    };

    /** \return the spec answering to \p flag (name or alias, without dashes), or nullptr */
    const Spec* Find(const std::string& flag) const;
    /** Declares a spec, refusing a name that folds like an earlier one. */
    void Declare(Spec spec);
    /** \return every flag name and alias, with "--" */
    std::vector<std::string> FlagNames() const;
    /**
     * Appends the flag word \p arg to \p words in its declared spelling (the parser matches
     * names exactly), or handles it here when it is an ns-3 flag; an unknown flag throws
     * std::invalid_argument naming the nearest known one.
     * \param arg a word starting with "--"
     * \param next the word after it (nullptr at the end)
     * \param words the words for the parser
     * \return how many words after \p arg it used (1 for "--ns3::Type::Name value")
     */
    int SpellFlag(const std::string& arg, const char* next, std::vector<std::string>& words);
    /**
     * Parses \p words (flags in their declared spellings) with CLI11 and stores the values;
     * a mistake throws std::invalid_argument with the message the tool prints.
     */
    void ParseSpelled(std::vector<std::string> words);
    /** Stores what the parser found for \p spec (\p given: its values, in order). */
    void StoreParsed(const Spec& spec, const std::vector<std::string>& given);
    /**
     * Handles an ns-3 flag (attribute, global value, --Print...).
     * \return true if \p flag is one (an invalid value throws std::invalid_argument)
     */
    bool HandleNs3Flag(const std::string& flag, const std::string& value, bool hasValue);

    std::string m_program;                       //!< tool name
    std::string m_summary;                       //!< what it does
    std::vector<Spec> m_specs;                   //!< declared flags
    std::map<std::string, std::string> m_values; //!< parsed values by spec name
    std::map<std::string, std::vector<std::string>> m_repeatedValues; //!< repeated options
    std::string m_moreName;          //!< name of further positionals ("" = none)
    std::string m_moreHelp;          //!< their help
    std::vector<std::string> m_more; //!< further positionals
    bool m_ns3{false};               //!< EnableNs3Attributes
    std::vector<std::pair<std::string, std::string>> m_ns3Attributes; //!< given, in order
};

/**
 * The wall-clock interval of a tool's progress lines, from its --progress option and --quiet
 * flag.
 * \return seconds between progress lines; 0 for none (--quiet, or --progress 0)
 * \throws std::invalid_argument for a bad --progress, or --quiet with an explicit --progress
 *         above 0 (they contradict: one would be silently dropped)
 */
double ProgressInterval(const ToolArgs& args);

/**
 * Runs a tool's body, turning any exception into one line "<program>: error: <message>" on
 * stderr and exit code 1, so that no tool ends with an uncaught exception (a crash).
 * \param program the tool name
 * \param body the tool's work; returns the exit code
 * \return the exit code
 */
int RunTool(const std::string& program, const std::function<int()>& body);

} // namespace ns3

#endif // CHAKRA_TOOL_ARGS_H
