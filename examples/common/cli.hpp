// The provpol CLI's shared parts: option parsing with provpol's own parsers, and the errors that decide the
// exit status (2: bad input, one line on stderr; 1: the work itself failed, e.g. an I/O error; 3: an answer was
// printed but it does not meet the target asked for).
#ifndef PROVPOL_CLI_CLI_HPP
#define PROVPOL_CLI_CLI_HPP

#include <provpol/parse.hpp>
#include <provpol/time.hpp>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
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

/// Warnings about the input that do not stop the work (malformed log lines skipped, a setting the tool itself
/// adjusts): held until the command has read all its options and printed by the program's main when the command
/// returns, so that on a usage error (exit 2) the error stays the only line on stderr.
inline std::vector<std::string>& pending_warnings() {
    static std::vector<std::string> w;
    return w;
}
/// Holds one line (without its newline) for flush_warnings(); a line already held is not held twice (a command
/// that answers once per value of a list reads its inputs once per value).
inline void warn(std::string line) {
    for (const std::string& w : pending_warnings())
        if (w == line) return;
    pending_warnings().push_back(std::move(line));
}
/// Prints the held warnings on stderr, one line each, and forgets them.
inline void flush_warnings() {
    for (const std::string& w : pending_warnings()) std::fprintf(stderr, "%s\n", w.c_str());
    pending_warnings().clear();
}
/// Forgets the held warnings (the command failed on its input: its one line is the error).
inline void drop_warnings() { pending_warnings().clear(); }

/// The exit status of a command that printed its answer but whose answer misses the target it was asked to meet
/// (recommend: no configuration meets --max-pause-probability, --max-pauses-per-run or --max-queued), so that a
/// script cannot take a missed target for a met one; the output says what was missed.
inline constexpr int exit_target_not_met = 3;

/// One option a subcommand accepts.
struct option {
    const char* name;             ///< "--chunk"
    const char* value_name;       ///< "SIZE", or nullptr for a flag without a value
    std::string help;             ///< one line
    bool repeatable = false;      ///< may be given several times (values() returns all)
    const char* alias = nullptr;  ///< an older spelling read as this option ("--rates" for --rate), or nullptr
};

/// -h or --help was given: main() prints `text` on stdout and exits 0 (thrown by args, so no subcommand repeats
/// it). `usage` and `options` are what `text` is made of, for the man page and the bash completion.
struct help_request {
    std::string text;
    std::string usage;
    std::vector<option> options;
};

/// The Levenshtein distance between two short strings (option, command and preset names).
inline std::size_t edit_distance(std::string_view a, std::string_view b) {
    std::vector<std::size_t> row(b.size() + 1);
    for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
    for (std::size_t i = 1; i <= a.size(); ++i) {
        std::size_t diagonal = row[0];
        row[0] = i;
        for (std::size_t j = 1; j <= b.size(); ++j) {
            const std::size_t up = row[j];
            row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0u : 1u)});
            diagonal = up;
        }
    }
    return row[b.size()];
}

/// The one name in `names` close to `given`, or "" when none is, or two are equally close. Close: the same name
/// up to case and '-'/'_' ("xapi_redo_log" is xapi-redo-log), within a third of its length in edits (at least
/// one: "--rates" is --rate), or the only name that starts with it ("--max-pause" is --max-pause-probability).
inline std::string closest_name(std::string_view given, const std::vector<std::string>& names) {
    auto normal = [](std::string_view s) {
        std::string out;
        for (char c : s) out += c == '_' ? '-' : static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        return out;
    };
    const std::string g = normal(given);
    std::size_t core = g.size();
    for (char c : g) core -= c == '-' ? 1u : 0u;
    if (g.empty() || g.size() > 64) return "";
    const std::size_t limit = std::max<std::size_t>(1, core / 3);
    std::string best, prefixed;
    std::size_t best_d = limit + 1, prefixes = 0;
    bool tie = false;
    for (const std::string& n : names) {
        const std::string m = normal(n);
        if (m == g) return n;
        const std::size_t d = edit_distance(g, m);
        if (d < best_d) {
            best_d = d;
            best = n;
            tie = false;
        } else if (d == best_d) {
            tie = true;
        }
        if (core >= 3 && m.compare(0, g.size(), g) == 0) {
            ++prefixes;
            prefixed = n;
        }
    }
    if (!best.empty() && !tie) return best;
    return prefixes == 1 ? prefixed : "";
}

/// " (did you mean X?)" for the name in `names` close to `given`, or "".
inline std::string did_you_mean(std::string_view given, const std::vector<std::string>& names) {
    const std::string n = closest_name(given, names);
    return n.empty() ? std::string() : " (did you mean " + n + "?)";
}

/// The names of a list as the library's errors write it: "one of a, b or c" -> a, b, c (placeholders such as
/// "fixed:SECONDS" are left out).
inline std::vector<std::string> names_of_list(std::string_view list) {
    if (list.substr(0, 7) == "one of ") list.remove_prefix(7);
    std::vector<std::string> out;
    std::size_t start = 0;
    while (start <= list.size()) {
        std::size_t end = std::min(list.find(", ", start), list.find(" or ", start));
        const std::string_view item = list.substr(start, end == std::string_view::npos ? end : end - start);
        if (!item.empty() && item.find_first_of(": ") == std::string_view::npos) out.emplace_back(item);
        if (end == std::string_view::npos) break;
        start = end + (list.compare(end, 2, ", ") == 0 ? 2 : 4);
    }
    return out;
}

/// A usage_error from a provpol error, named after the option that carried the value; an unknown name (a
/// preset, a latency profile) close to a known one adds "(did you mean X?)".
[[noreturn]] inline void fail(const provpol::error& e, const char* option) {
    std::string m(e.with_setting(option).message().view());
    if (e.code() == errc::unknown_name && !e.text_truncated())
        m += did_you_mean(std::string_view(e.text().data(), e.text().size()),
                          names_of_list(std::string_view(e.detail().data(), e.detail().size())));
    throw usage_error(m);
}

/// fail(), with the library's name for a second setting in the message (a conflict's "must be at least
/// write_size") replaced by the option that carries it ("--write").
[[noreturn]] inline void fail(const provpol::error& e, const char* option, const char* library_name,
                              const char* other_option) {
    try {
        fail(e, option);
    } catch (const usage_error& u) {
        std::string m = u.what();
        const std::string from = library_name;
        for (std::size_t at = m.find(from); at != std::string::npos; at = m.find(from, at + 1)) {
            const bool word_start = at == 0 || !(std::isalnum(static_cast<unsigned char>(m[at - 1])) ||
                                                 m[at - 1] == '_' || m[at - 1] == '-');
            const std::size_t end = at + from.size();
            const bool word_end =
                end >= m.size() || !(std::isalnum(static_cast<unsigned char>(m[end])) || m[end] == '_');
            if (word_start && word_end) m.replace(at, from.size(), other_option);
        }
        throw usage_error(m);
    }
}

/// Output formats every subcommand accepts (some add "svg").
enum class format { text, csv, json, svg };

/// The parsed options of one subcommand invocation.
class args {
public:
    /// Parses argv[first..argc). Throws usage_error for anything not in `options` (plus --help, --format).
    args(std::string command, std::string usage, std::vector<option> options, int argc, char** argv, int first = 0)
        : command_(std::move(command)), usage_(std::move(usage)), options_(std::move(options)) {
        options_.push_back({"--help", nullptr, "print this help and exit (also -h)"});
        for (option& o : options_)
            if (o.alias != nullptr) o.help += std::string(" (also ") + o.alias + ")";
        for (int i = first; i < argc; ++i) {  // help wins over everything
            const std::string_view a = argv[i];
            if (a == "--help" || a == "-h") throw help_request{help(), usage_, options_};
        }
        for (int i = first; i < argc; ++i) {
            std::string_view a = argv[i];
            if (a.size() < 3 || a.substr(0, 2) != "--") {
                // "-rate" is --rate with one dash too few.
                const std::string hint = a.size() > 1 && a[0] == '-'
                                             ? did_you_mean("-" + std::string(a.substr(0, a.find('='))), names())
                                             : std::string();
                throw usage_error(
                    "unexpected argument '" + printable(a) + "'" +
                    (hint.empty() ? " (options start with --; see provpol " + command_ + " --help)" : hint));
            }
            std::string name(a);
            std::optional<std::string> value;
            if (const auto eq = a.find('='); eq != std::string_view::npos) {
                name = std::string(a.substr(0, eq));
                value = std::string(a.substr(eq + 1));
            }
            const option* opt = find(name);
            if (opt != nullptr) name = opt->name;  // an alias is its option
            if (opt == nullptr) {
                const std::string hint = did_you_mean(name, names());
                throw usage_error("unknown option '" + printable(name) + "'" +
                                  (hint.empty() ? " (see provpol " + command_ + " --help)" : hint));
            }
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
    /// A size option that must be at least `least` (VDSM's chunk: 1MiB): a number without a unit below it is
    /// bytes by the grammar but MiB by what the user meant (recommend prints volume_utilization_chunk_mb), so the
    /// error says "did you mean 6272MiB?".
    std::optional<bytes> size_at_least(const char* name, bytes least, const char* unit_meant) const {
        const auto b = size(name);
        if (!b || b->count() >= least.count()) return b;
        const std::string v = *value(name);
        if (!v.empty() && std::all_of(v.begin(), v.end(), [](char c) { return c >= '0' && c <= '9'; }))
            throw usage_error(std::string(name) + " " + v + ": a number without a unit is bytes, under the least " +
                              std::string(format_size(least).view()) + "; did you mean " + v + unit_meant + "?");
        return b;
    }
    /// A size on an LVM option: provpol's units, or lvm's own as lvcreate -L reads them (one letter, either case,
    /// powers of 1024: "100g" is 100GiB, "512m", "1.5t"; "b" bytes, "s" 512-byte sectors). A number without a unit
    /// stays bytes, as everywhere in provpol (lvm would read MiB).
    std::optional<bytes> lvm_size(const char* name) const {
        const auto v = value(name);
        if (!v) return std::nullopt;
        return lvm_size_of(*v, name);
    }
    static bytes lvm_size_of(const std::string& v, const char* name) {
        const auto r = parse_size(v, name);
        if (r) return *r;
        const char u = v.empty() ? '\0' : static_cast<char>(std::tolower(static_cast<unsigned char>(v.back())));
        const std::string number = v.empty() ? v : v.substr(0, v.size() - 1);
        const bool digits = !number.empty() && std::all_of(number.begin(), number.end(),
                                                           [](char c) { return (c >= '0' && c <= '9') || c == '.'; });
        static const char* const iec[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
        const std::string letters = "kmgtpe";
        if (digits && letters.find(u) != std::string::npos) {
            const auto b = parse_size(number + iec[letters.find(u)], name);
            if (!b) fail(b.error().with_text(text_view(v.data(), v.size())), name);
            return *b;
        }
        if (digits && (u == 'b' || u == 's')) {
            const auto n = parse_count(number, name);
            if (!n) fail(n.error().with_text(text_view(v.data(), v.size())), name);
            if (u == 's' && *n > (~std::uint64_t{0} >> 9)) fail(r.error(), name);
            return bytes(u == 's' ? *n << 9 : *n);
        }
        throw usage_error(std::string(r.error().message().view()) +
                          " (on LVM's options lvm's suffixes too: 100g, 512m, 8s)");
    }
    /// An LVM size that may be a percent of `whole` ("95%": of the pool, as lvs reports Data%), rounded down to a
    /// whole byte; `whole_name` names what it is a percent of in errors.
    std::optional<bytes> lvm_size_or_percent(const char* name, std::optional<bytes> whole,
                                             const char* whole_name) const {
        const auto v = value(name);
        if (!v) return std::nullopt;
        if (v->empty() || v->back() != '%') return lvm_size_of(*v, name);
        const auto pct = parse_decimal(v->substr(0, v->size() - 1), name, 0.0, 100.0);
        if (!pct) fail(pct.error().with_text(text_view(v->data(), v->size())), name);
        if (!whole)
            throw usage_error(std::string(name) + " " + *v + ": a percent of " + whole_name + ", which is not given");
        const long double b = static_cast<long double>(whole->count()) * static_cast<long double>(*pct) / 100.0L;
        return bytes(static_cast<std::uint64_t>(b));
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
    /// A time option, read once by parse_seconds: "2.5", "2.5s", "500ms", "1.5min" or "2h"; errors name the option and
    /// quote times in seconds.
    std::optional<provpol::seconds> time(const char* name, provpol::seconds lo, provpol::seconds hi) const {
        const auto v = value(name);
        if (!v) return std::nullopt;
        const auto r = parse_seconds(*v, name, lo, hi);
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
        throw usage_error("--format: unknown value '" + printable(*v) + "': expected " + expected +
                          did_you_mean(*v, names_of_list(expected)));
    }

    const std::string& command() const { return command_; }
    /// The options this invocation accepts (with --help), as help lists them.
    const std::vector<option>& options() const { return options_; }

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

    /// Text printed in an answer (a file name in a header): control bytes escaped so that it stays on its line,
    /// everything else (UTF-8 names) as given, as the tables print it.
    static std::string visible(std::string_view s) {
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

private:
    std::vector<std::string> names() const {
        std::vector<std::string> out;
        for (const option& o : options_) out.emplace_back(o.name);
        return out;
    }
    const option* find(const std::string& name) const {
        for (const option& o : options_)
            if (name == o.name || (o.alias != nullptr && name == o.alias)) return &o;
        return nullptr;
    }

    std::string command_;
    std::string usage_;
    std::vector<option> options_;
    std::vector<std::pair<std::string, std::string>> given_;
};

}  // namespace provpol::cli

#endif  // PROVPOL_CLI_CLI_HPP
