// provpol: the command-line face of the library. `provpol <command> --help` describes each command.
//
// Exit status: 0 success; 1 the work failed (I/O); 2 bad input (one line on stderr, nothing on stdout); 3 the
// answer is printed but misses the target asked for (recommend; cli.hpp's exit_target_not_met).
#include "commands.hpp"
#include "common/cli.hpp"
#include "generate.hpp"

#include <provpol/config.hpp>

#include <cstdio>
#include <cstring>
#include <exception>
#include <new>
#include <string>
#include <string_view>
#include <vector>

namespace provpol::cli {
// One declaration per subcommand (defined in cmd_<name>.cpp).
int run_extend(int argc, char** argv);
int run_lvsize(int argc, char** argv);
int run_plan(int argc, char** argv);
int run_capacity(int argc, char** argv);
int run_recommend(int argc, char** argv);
int run_chunk(int argc, char** argv);
int run_calibrate(int argc, char** argv);
int run_logsize(int argc, char** argv);
int run_latency(int argc, char** argv);
}  // namespace provpol::cli

namespace {

using provpol::cli::command;

// The registry: add a line here for a new subcommand.
const command commands[] = {
    {"extend", "thin-volume extend decisions (oVirt VDSM, LVM thin-pool autoextend)", provpol::cli::run_extend},
    {"lvsize", "the LV sizes VDSM picks for a new volume, after a merge, before a live merge and on a resize",
     provpol::cli::run_lvsize},
    {"plan",
     "simulate pauses and space for write rates, configurations and latency models (VDSM), or a thin pool "
     "under dmeventd (LVM)",
     provpol::cli::run_plan},
    {"capacity", "the most concurrent writers a storage domain holds under a per-VM pause target",
     provpol::cli::run_capacity},
    {"recommend",
     "the smallest VDSM configuration for a write rate and a pause target, or LVM's autoextend percent for a pool",
     provpol::cli::run_recommend},
    {"chunk", "the I/O chunk size for a device and mode, from a preset, samples or a deadline",
     provpol::cli::run_chunk},
    {"calibrate", "measure write throughput per block size in a directory and recommend a chunk size",
     provpol::cli::run_calibrate},
    {"logsize", "the filesystem log (journal) size mkfs.xfs or mke2fs makes, per preset", provpol::cli::run_logsize},
    {"latency", "a latency model's extend times, or VDSM's measured ones and the flow model fitted to them",
     provpol::cli::run_latency},
};

// Error text on exactly one line: control characters escaped (as the answers print file names).
std::string one_line(std::string_view s) { return provpol::cli::args::visible(s); }

std::string usage_text() {
    std::string t = "usage: provpol <command> [options]     (provpol <command> --help for its options)\n\ncommands:\n";
    char line[256];
    for (const command& c : commands) {
        std::snprintf(line, sizeof line, "  %-12s%s\n", c.name, c.summary);
        t += line;
    }
    t += "\noptions:\n  --help, -h  print this help and exit (provpol help <command>: that command's)\n"
         "  --version   print provpol's version and exit\n";
    t += std::string("\nprovpol ") + PROVPOL_VERSION_STRING +
         " - storage provisioning policies: thin-volume extend, filesystem log size, I/O chunk size\n";
    return t;
}

std::vector<std::string> command_names() {
    std::vector<std::string> out;
    for (const command& c : commands) out.emplace_back(c.name);
    return out;
}

// The command named `name`, or nullptr.
const command* find_command(std::string_view name) {
    for (const command& c : commands)
        if (name == c.name) return &c;
    return nullptr;
}

// What `provpol <c> --help` prints, taken from the command itself (its args table), so that `provpol help <c>`,
// the man page and the completion cannot differ from it.
provpol::cli::help_request help_of(const command& c) {
    char help[] = "--help";
    char* argv[] = {help, nullptr};
    try {
        c.run(1, argv);
    } catch (const provpol::cli::help_request& h) {
        return h;
    }
    return {};  // not reached: every command's args throws help_request on --help
}

// plan and recommend take other options for an LVM preset (cmd_lvm.cpp) and a Stratis one (stratis_plan.hpp): the
// man page and the completion show all, the thin pools' usages after the VDSM one and the options only they have
// after the others.
provpol::cli::help_request with_thin_pool_help(const command& c, provpol::cli::help_request h) {
    if (std::string_view(c.name) != "plan" && std::string_view(c.name) != "recommend") return h;
    // The thin-pool planners' own usage and options: LVM's, then Stratis's (each is its own grammar).
    for (const char* name : {"lvm-thin-autoextend", "stratis-data"}) {
        std::string preset_name(name);
        char preset[] = "--preset", help[] = "--help";
        char* argv[] = {preset, preset_name.data(), help, nullptr};
        try {
            c.run(3, argv);
        } catch (const provpol::cli::help_request& l) {
            h.usage += "\n" + l.usage;
            for (const provpol::cli::option& o : l.options) {
                bool known = false;
                for (const provpol::cli::option& k : h.options) known = known || std::string_view(k.name) == o.name;
                if (!known) h.options.push_back(o);
            }
        }
    }
    return h;
}

std::vector<provpol::cli::command_help> all_help() {
    std::vector<provpol::cli::command_help> out;
    for (const command& c : commands) out.push_back({c.name, c.summary, with_thin_pool_help(c, help_of(c))});
    return out;
}

// Bad input at the top level: one line on stderr, exit 2.
int usage_failure(const std::string& message) {
    std::fprintf(stderr, "provpol: %s\n", message.c_str());
    return 2;
}

// Flushes stdout and reports a write error (a full disk, a closed pipe) instead of exiting 0 on lost output.
int finish(int status) {
    if (std::fflush(stdout) != 0 || std::ferror(stdout)) {
        std::fprintf(stderr, "provpol: writing the output failed: %s\n", std::strerror(errno));
        return status == 0 ? 1 : status;
    }
    return status;
}

}  // namespace

std::vector<provpol::cli::command_help> provpol::cli::cli_help() { return all_help(); }

int provpol::cli::provpol_main(int argc, char** argv) {
    using provpol::cli::args;
    using provpol::cli::did_you_mean;
    if (argc < 2) return usage_failure("a command is needed (see provpol --help)");
    const std::string_view name = argv[1];
    const bool help_of_help =
        name == "help" && argc == 3 && (std::string_view(argv[2]) == "--help" || std::string_view(argv[2]) == "-h");
    if (name == "--help" || name == "-h" || (name == "help" && argc == 2) || help_of_help) {
        std::fputs(usage_text().c_str(), stdout);
        return finish(0);
    }
    if (name == "--version") {
        if (argc > 2) return usage_failure("--version takes no arguments");
        std::printf("provpol %s\n", PROVPOL_VERSION_STRING);
        return finish(0);
    }
    // Hidden: the man page and the bash completion, generated at build time from the same tables as --help.
    if (name == "__man" || name == "__bash-completion") {
        if (argc > 2) return usage_failure(std::string(name) + " takes no arguments");
        const auto help = all_help();
        const std::string out =
            name == "__man" ? provpol::cli::man_page(usage_text(), help) : provpol::cli::bash_completion(help);
        std::fwrite(out.data(), 1, out.size(), stdout);
        return finish(0);
    }
    const command* c = find_command(name);
    if (name == "help") {  // provpol help <command>: exactly what provpol <command> --help prints
        const std::string_view target = argv[2];
        c = find_command(target);
        if (c == nullptr) {
            const std::string hint = did_you_mean(target, command_names());
            return usage_failure("help: unknown command '" + args::printable(target) + "'" +
                                 (hint.empty() ? " (see provpol --help)" : hint));
        }
        if (argc > 3) return usage_failure("help takes one command, e.g. provpol help " + std::string(c->name));
        std::fputs(help_of(*c).text.c_str(), stdout);
        return finish(0);
    }
    if (c == nullptr) {
        if (name.size() > 1 && name[0] == '-') {
            const std::string hint = did_you_mean(name.substr(0, name.find('=')), {"--help", "--version"});
            return usage_failure("unknown option '" + args::printable(name) + "'" +
                                 (hint.empty() ? " (a command comes first; see provpol --help)" : hint));
        }
        const std::string hint = did_you_mean(name, command_names());
        return usage_failure("unknown command '" + args::printable(name) + "'" +
                             (hint.empty() ? " (see provpol --help)" : hint));
    }
    drop_warnings();  // none from an earlier call in this process (the CLI fuzzer calls provpol_main again)
    try {
        const int status = c->run(argc - 2, argv + 2);
        std::fflush(stdout);
        flush_warnings();
        return finish(status);
    } catch (const provpol::cli::help_request& h) {
        drop_warnings();
        std::fputs(h.text.c_str(), stdout);
        return finish(0);
    } catch (const provpol::cli::usage_error& e) {
        drop_warnings();
        std::fflush(stdout);
        std::fprintf(stderr, "provpol %s: %s\n", c->name, one_line(e.what()).c_str());
        return 2;
    } catch (const provpol::cli::runtime_failure& e) {
        std::fflush(stdout);
        flush_warnings();
        std::fprintf(stderr, "provpol %s: %s\n", c->name, one_line(e.what()).c_str());
        return 1;
    } catch (const std::bad_alloc&) {
        std::fprintf(stderr, "provpol %s: out of memory\n", c->name);
        return 1;
    } catch (const std::exception& e) {
        // A bug (e.g. bad_result_access from a value() that validation should have guarded): one line and
        // EX_SOFTWARE rather than an abort; the CLI fuzzer and tests/cli treat this status as a finding.
        std::fflush(stdout);
        std::fprintf(stderr, "provpol %s: internal error: %s\n", c->name, one_line(e.what()).c_str());
        return 70;
    }
}
