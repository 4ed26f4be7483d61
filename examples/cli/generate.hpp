// The man page and the bash completion of the provpol CLI, generated from the same option tables and help text
// that `provpol <command> --help` prints (and the library's preset registries), so that neither can drift from
// the CLI. main() prints them for the hidden `provpol __man` and `provpol __bash-completion`, which the build runs.
#ifndef PROVPOL_CLI_GENERATE_HPP
#define PROVPOL_CLI_GENERATE_HPP

#include "common/cli.hpp"

#include <string>
#include <vector>

namespace provpol::cli {

/// One subcommand as its --help describes it.
struct command_help {
    std::string name;
    std::string summary;
    help_request help;
};

/// provpol(1) in roff (man -l renders it): `top` is what `provpol --help` prints.
std::string man_page(const std::string& top, const std::vector<command_help>& commands);

/// A bash completion script: subcommands, each one's options, and the values of enumerated options (presets,
/// latency profiles, formats, modes) as the option's help lists them; file names for FILE, DIR and PATH values.
std::string bash_completion(const std::vector<command_help>& commands);

/// The names `option` of a subcommand takes, from the registries, as its help text lists them ("" for an option
/// whose value is not one of a list of names).
std::vector<std::string> value_choices(const option& o);

}  // namespace provpol::cli

#endif  // PROVPOL_CLI_GENERATE_HPP
