/*
 * A small command-line parser shared by the chakra tools.
 *
 * The tools keep the reference Chakra tools' flags ("--input_filename X", space separated, as
 * Python's argparse accepts), which ns-3's CommandLine (only "--name=value") cannot parse.
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
 * \brief Declared flags, parsed values and the usage text of one tool.
 *
 * Accepts "--name value", "--name=value" and boolean "--name". Unknown flags, missing values and
 * missing required flags are errors; "--help" prints the usage.
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
    void AddFlag(const std::string& name, const std::string& help);
    /** Declares a positional argument (in order). */
    void AddPositional(const std::string& name, const std::string& help, bool required = true);

    /** Accepts any number of further positional arguments after the declared ones. */
    void AllowMorePositionals(const std::string& name, const std::string& help);
    /** \return the further positional arguments (see AllowMorePositionals) */
    const std::vector<std::string>& GetMorePositionals() const;

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

  private:
    /** One declared flag or positional. */
    struct Spec
    {
        std::string name;
        std::string help;
        std::string defaultValue;
        bool required{false};
        bool boolean{false};
        bool positional{false};
        std::vector<std::string> aliases;
    };
    /** \return the spec answering to \p flag (name or alias, without dashes), or nullptr */
    const Spec* Find(const std::string& flag) const;

    std::string m_program;                        //!< tool name
    std::string m_summary;                        //!< what it does
    std::vector<Spec> m_specs;                    //!< declared flags
    std::map<std::string, std::string> m_values;  //!< parsed values by spec name
    std::string m_moreName;                       //!< name of further positionals ("" = none)
    std::string m_moreHelp;                       //!< their help
    std::vector<std::string> m_more;              //!< further positionals
};

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
