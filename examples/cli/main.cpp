// provpol: the command-line face of the library. `provpol <command> --help` describes each command.
//
// Exit status: 0 success; 1 the work failed (I/O); 2 bad input (one line on stderr, nothing on stdout).
#include "commands.hpp"
#include "common/cli.hpp"

#include <provpol/config.hpp>

#include <cstdio>
#include <cstring>
#include <exception>
#include <new>
#include <string>
#include <string_view>

namespace provpol::cli {
// One declaration per subcommand (defined in cmd_<name>.cpp).
int run_extend(int argc, char** argv);
int run_plan(int argc, char** argv);
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
    {"plan", "simulate pauses and space for write rates, configurations and latency models", provpol::cli::run_plan},
    {"recommend", "the smallest VDSM configuration for a write rate and a pause target", provpol::cli::run_recommend},
    {"chunk", "the I/O chunk size for a device and mode, from a preset, samples or a deadline",
     provpol::cli::run_chunk},
    {"calibrate", "measure write throughput per block size in a directory and recommend a chunk size",
     provpol::cli::run_calibrate},
    {"logsize", "the filesystem log (journal) size mkfs.xfs or mke2fs makes, per preset", provpol::cli::run_logsize},
    {"latency", "a latency model's extend times, or VDSM's measured ones and the flow model fitted to them",
     provpol::cli::run_latency},
};

// Error text on exactly one line: control characters escaped.
std::string one_line(std::string_view s) {
    std::string out;
    for (char c : s) {
        const auto u = static_cast<unsigned char>(c);
        if (u < 0x20 || u == 0x7f) {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\x%02x", u);
            out += buf;
        } else {
            out += c;
        }
    }
    return out;
}

void print_usage(std::FILE* out) {
    std::fprintf(out,
                 "usage: provpol <command> [options]     (provpol <command> --help for its options)\n\ncommands:\n");
    for (const command& c : commands)
        if (c.name != nullptr) std::fprintf(out, "  %-12s%s\n", c.name, c.summary);
    std::fprintf(
        out, "\nprovpol %s - storage provisioning policies: thin-volume extend, filesystem log size, I/O chunk size\n",
        PROVPOL_VERSION_STRING);
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

int main(int argc, char** argv) {
    if (argc < 2) {
        print_usage(stderr);
        return 2;
    }
    const std::string_view name = argv[1];
    if (name == "--help" || name == "-h" || name == "help") {
        print_usage(stdout);
        return finish(0);
    }
    if (name == "--version") {
        std::printf("provpol %s\n", PROVPOL_VERSION_STRING);
        return finish(0);
    }
    for (const command& c : commands) {
        if (c.name == nullptr || name != c.name) continue;
        try {
            return finish(c.run(argc - 2, argv + 2));
        } catch (const provpol::cli::help_request& h) {
            std::fputs(h.text.c_str(), stdout);
            return finish(0);
        } catch (const provpol::cli::usage_error& e) {
            std::fflush(stdout);
            std::fprintf(stderr, "provpol %s: %s\n", c.name, one_line(e.what()).c_str());
            return 2;
        } catch (const provpol::cli::runtime_failure& e) {
            std::fflush(stdout);
            std::fprintf(stderr, "provpol %s: %s\n", c.name, one_line(e.what()).c_str());
            return 1;
        } catch (const std::bad_alloc&) {
            std::fprintf(stderr, "provpol %s: out of memory\n", c.name);
            return 1;
        }
    }
    std::fprintf(stderr, "provpol: unknown command '%s' (see provpol --help)\n",
                 provpol::cli::args::printable(name).c_str());
    return 2;
}
