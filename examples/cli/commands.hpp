// The provpol CLI's subcommands. Each lives in its own cmd_<name>.cpp and is listed once in main.cpp.
#ifndef PROVPOL_CLI_COMMANDS_HPP
#define PROVPOL_CLI_COMMANDS_HPP

#include "generate.hpp"

#include <vector>

namespace provpol {
enum class vdsm_drive_type : unsigned char;
}

namespace provpol::cli {

class args;

/// A subcommand: receives the arguments after its name; returns the exit status or throws usage_error
/// (exit 2) or runtime_failure (exit 1).
struct command {
    const char* name;
    const char* summary;
    int (*run)(int argc, char** argv);
};

/// True when --preset names an LVM preset: plan and recommend then run LVM's pool simulator (cmd_lvm.cpp).
bool is_lvm_invocation(int argc, char** argv);
int run_plan_lvm(int argc, char** argv);
int run_recommend_lvm(int argc, char** argv);

/// --drive-type and --replica-type: block-cow (the default), block-raw, file or network (cmd_lvsize.cpp).
vdsm_drive_type drive_type_option(const args& a, const char* name);

/// The whole program (main.cpp): `argv[0]` is the program's name, as main() receives it. It writes through the
/// stdio streams stdout and stderr and reads stdin, so a caller in the same process (the CLI fuzzer) may point
/// them elsewhere. Returns the exit status.
int provpol_main(int argc, char** argv);

/// Every subcommand's help (its usage and option table; plan and recommend with their LVM options too), as the
/// man page and the bash completion are made from it.
std::vector<command_help> cli_help();

}  // namespace provpol::cli

#endif  // PROVPOL_CLI_COMMANDS_HPP
