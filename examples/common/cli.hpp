// The provpol CLI's shared parts: option parsing with provpol's own parsers, and the errors that decide the
// exit status (2: bad input, one line on stderr; 1: the work itself failed, e.g. an I/O error).
#ifndef PROVPOL_CLI_CLI_HPP
#define PROVPOL_CLI_CLI_HPP

#include <provpol/parse.hpp>

#include <cstdint>
#include <cstdio>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace provpol::cli {

/// Bad input: an unknown option, a missing or malformed value. main() prints it on one line, exits 2.
struct usage_error : std::runtime_error {
    using std::runtime_error::runtime_error;
};

/// The work failed (I/O, a device that disappeared). main() prints it on one line, exits 1.
struct runtime_failure : std::runtime_error {
    using std::runtime_error::runtime_error;
};

/// --help was given: main() prints `text` on stdout and exits 0 (thrown by args, so no subcommand repeats it).
struct help_request {
    std::string text;
};

/// A usage_error from a provpol error, named after the option that carried the value.
[[noreturn]] inline void fail(const provpol::error& e, const char* option) {
    throw usage_error(std::string(e.with_setting(option).message().view()));
}

/// One option a subcommand accepts.
struct option {
    const char* name;         ///< "--chunk"
    const char* value_name;   ///< "SIZE", or nullptr for a flag without a value
    std::string help;         ///< one line
    bool repeatable = false;  ///< may be given several times (values() returns all)
};

/// Output formats every subcommand accepts (some add "svg").
enum class format { text, csv, json, svg };

/// The parsed options of one subcommand invocation.
class args {
public:
    /// Parses argv[first..argc). Throws usage_error for anything not in `options` (plus --help, --format).
    args(std::string command, std::string usage, std::vector<option> options, int argc, char** argv, int first = 0)
        : command_(std::move(command)), usage_(std::move(usage)), options_(std::move(options)) {
        options_.push_back({"--help", nullptr, "print this help and exit"});
        for (int i = first; i < argc; ++i)
            if (std::string_view(argv[i]) == "--help") throw help_request{help()};  // help wins over everything
        for (int i = first; i < argc; ++i) {
            std::string_view a = argv[i];
            if (a.size() < 3 || a.substr(0, 2) != "--")
                throw usage_error("unexpected argument '" + printable(a) + "' (options start with --; see provpol " +
                                  command_ + " --help)");
            std::string name(a);
            std::optional<std::string> value;
            if (const auto eq = a.find('='); eq != std::string_view::npos) {
                name = std::string(a.substr(0, eq));
                value = std::string(a.substr(eq + 1));
            }
            const option* opt = find(name);
            if (opt == nullptr)
                throw usage_error("unknown option '" + printable(name) + "' (see provpol " + command_ + " --help)");
            if (opt->value_name == nullptr) {
                if (value) throw usage_error(name + " takes no value");
                value = std::string();
            } else if (!value) {
                if (i + 1 >= argc) throw usage_error(name + " needs a value (" + opt->value_name + ")");
                const std::string_view next = argv[i + 1];
                if (next.size() > 2 && next.substr(0, 2) == "--" && find(std::string(next.substr(0, next.find('=')))))
                    throw usage_error(name + " needs a value (" + opt->value_name + ")");
                value = std::string(next);
                ++i;
            }
            if (!opt->repeatable && has(name)) throw usage_error(name + " is given more than once");
            given_.emplace_back(name, *value);
        }
    }

    /// The help text: usage line and one line per option.
    std::string help() const {
        std::string h = "usage: " + usage_ + "\n\noptions:\n";
        for (const option& o : options_) {
            std::string left = std::string("  ") + o.name + (o.value_name ? std::string(" ") + o.value_name : "");
            if (left.size() < 30)
                left.resize(30, ' ');
            else
                left += "  ";
            h += left + o.help + "\n";
        }
        return h;
    }

    bool has(std::string_view name) const {
        for (const auto& g : given_)
            if (g.first == name) return true;
        return false;
    }
    /// The value of a non-repeatable option, if given.
    std::optional<std::string> value(std::string_view name) const {
        for (const auto& g : given_)
            if (g.first == name) return g.second;
        return std::nullopt;
    }
    /// All values of a repeatable option, in order; comma-separated lists are split ("a,b" -> a, b).
    std::vector<std::string> values(std::string_view name, bool split_commas = true) const {
        std::vector<std::string> out;
        for (const auto& g : given_) {
            if (g.first != name) continue;
            if (!split_commas) {
                out.push_back(g.second);
                continue;
            }
            std::size_t start = 0;
            for (;;) {
                const std::size_t comma = g.second.find(',', start);
                out.push_back(g.second.substr(start, comma - start));
                if (comma == std::string::npos) break;
                start = comma + 1;
            }
        }
        return out;
    }

    std::optional<bytes> size(const char* name) const {
        const auto v = value(name);
        if (!v) return std::nullopt;
        const auto r = parse_size(*v, name);
        if (!r) fail(r.error(), name);
        return *r;
    }
    std::optional<provpol::rate> rate(const char* name) const {
        const auto v = value(name);
        if (!v) return std::nullopt;
        const auto r = parse_rate(*v, name);
        if (!r) fail(r.error(), name);
        return *r;
    }
    std::optional<std::uint64_t> count(const char* name, std::uint64_t lo, std::uint64_t hi) const {
        const auto v = value(name);
        if (!v) return std::nullopt;
        const auto r = parse_count(*v, name, lo, hi);
        if (!r) fail(r.error(), name);
        return *r;
    }
    std::optional<double> decimal(const char* name, double lo, double hi) const {
        const auto v = value(name);
        if (!v) return std::nullopt;
        const auto r = parse_decimal(*v, name, lo, hi);
        if (!r) fail(r.error(), name);
        return *r;
    }
    /// --format, restricted to `allowed` (default: text, csv, json).
    cli::format output_format(std::vector<cli::format> allowed = {format::text, format::csv, format::json}) const {
        const auto v = value("--format");
        if (!v) return format::text;
        static const std::pair<const char*, cli::format> names[] = {
            {"text", format::text}, {"csv", format::csv}, {"json", format::json}, {"svg", format::svg}};
        std::string expected;
        for (const auto& n : names) {
            bool ok = false;
            for (auto a : allowed) ok = ok || a == n.second;
            if (!ok) continue;
            if (*v == n.first) return n.second;
            expected += expected.empty() ? "one of " : ", ";
            expected += n.first;
        }
        throw usage_error("--format: unknown value '" + printable(*v) + "': expected " + expected);
    }

    const std::string& command() const { return command_; }

    /// Text quoted in a message, with control and non-ASCII bytes escaped, cut at 60 characters, so that
    /// an error stays on one line whatever the user passed.
    static std::string printable(std::string_view s) {
        std::string out;
        for (char c : s) {
            if (out.size() >= 60) {
                out += "...";
                break;
            }
            const auto u = static_cast<unsigned char>(c);
            if (u >= 0x20 && u < 0x7f) {
                out += c;
            } else {
                char buf[8];
                std::snprintf(buf, sizeof buf, "\\x%02x", u);
                out += buf;
            }
        }
        return out;
    }

private:
    const option* find(const std::string& name) const {
        for (const option& o : options_)
            if (name == o.name) return &o;
        return nullptr;
    }

    std::string command_;
    std::string usage_;
    std::vector<option> options_;
    std::vector<std::pair<std::string, std::string>> given_;
};

}  // namespace provpol::cli

#endif  // PROVPOL_CLI_CLI_HPP
