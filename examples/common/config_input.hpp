// --config FILE: the VDSM configurations that `provpol recommend` prints, read back by plan, capacity and extend,
// so that an answer can be piped or pasted into the command that uses it, and VDSM's own files. Two readers:
//   - VDSM's files (a file whose first setting line is a [section] header: /etc/vdsm/vdsm.conf, the drop-ins
//     under vdsm.conf.d, recommend's text answer): read as VDSM reads them (lib/vdsm/common/config.py.in, load()
//     and read_configs(): one configparser.ConfigParser, VDSM's defaults set first, then the files in order, later
//     files winning), for the [irs] keys volume_utilization_chunk_mb and volume_utilization_percent: keys in any
//     order and case, `=` or `:`, # and ; comment lines, continuation lines, a key a file leaves out keeps its
//     value from an earlier file or VDSM's default; what configparser refuses (a setting before any section, a
//     key or section twice in one file, a line that is no setting) is refused, with the file and line. Any number
//     of files (--config repeated) give one configuration, and the reading says which file set each value;
//   - recommend's CSV and JSON answers: a header with the columns volume_utilization_chunk_mb and
//     volume_utilization_percent, one configuration per row; every "volume_utilization_chunk_mb": N,
//     "volume_utilization_percent": N pair in order (also bare `key = value` lines without a section).
// Chunk sizes are whole MiB, as VDSM reads them (volume_utilization_chunk_mb).
#ifndef PROVPOL_CLI_CONFIG_INPUT_HPP
#define PROVPOL_CLI_CONFIG_INPUT_HPP

#include "cli.hpp"
#include "input.hpp"

#include <provpol/extend.hpp>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <string>
#include <vector>

namespace provpol::cli {

/// One configuration read from a --config file, and the line it ended on (for messages).
struct config_entry {
    vdsm_config config;
    std::size_t line;
};

/// The values VDSM takes for a key no file sets: config.py.in's defaults of the release a preset names.
struct vdsm_conf_defaults {
    std::uint64_t chunk_mb;
    std::uint64_t percent;
    const char* release;  ///< for messages: "VDSM 4.50"
};
/// VDSM 4.50 (BZ#2051997): 2560 and 20; before it, 1024 and 50.
inline constexpr vdsm_conf_defaults vdsm_4_50_defaults{2560, 20, "VDSM 4.50"};
inline constexpr vdsm_conf_defaults vdsm_legacy_defaults{1024, 50, "VDSM before 4.50"};

/// What --config gave: the configurations, and for VDSM's files which file set each value (empty for recommend's
/// CSV and JSON answers).
struct config_reading {
    std::vector<config_entry> entries;
    std::string
        sources;  ///< "volume_utilization_chunk_mb = 3200 from b.conf line 2, ... = 20 (the default of VDSM 4.50)"
};

namespace config_input_detail {

// A file's lines, read whole (configuration files are small: at most 100000 lines of 64 KiB).
struct config_text {
    std::string shown;  // 'name' or stdin, as messages quote it
    std::string name;   // the name in "FILE:LINE: " prefixes
    std::vector<std::string> lines;
};

inline config_text read_text(const std::string& path, const std::string& option) {
    text_input::rules rules;
    rules.too_long = "a line longer than 65536 bytes";
    rules.nul = "a NUL byte (not a text file)";
    rules.not_a = "a configuration file";
    text_input in(path, option, rules);
    config_text t{in.shown(), path == "-" ? std::string("stdin") : args::printable(path), {}};
    std::string line;
    while (in.next(line)) {
        if (t.lines.size() >= 100000) throw usage_error(in.where() + "more than 100000 lines");
        if (!line.empty() && line.back() == '\r') line.pop_back();
        t.lines.push_back(line);
    }
    return t;
}

inline std::string where(const std::string& option, const config_text& t, std::size_t line) {
    return option + ": " + t.name + ":" + std::to_string(line) + ": ";
}

inline std::string strip(const std::string& s) {
    std::size_t b = 0, e = s.size();
    while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
    while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
    return s.substr(b, e - b);
}

// configparser's full-line comments: the stripped line starts with # or ;.
inline bool comment_or_blank(const std::string& stripped) {
    return stripped.empty() || stripped[0] == '#' || stripped[0] == ';';
}

// configparser's SECTCRE, \[(?P<header>.+)\] matched at the start: the name runs to the last ']'.
inline bool section_header(const std::string& stripped, std::string& name) {
    if (stripped.size() < 3 || stripped[0] != '[') return false;
    const std::size_t close = stripped.rfind(']');
    if (close == std::string::npos || close < 2) return false;
    name = stripped.substr(1, close - 1);
    return true;
}

// VDSM's files, not recommend's CSV or JSON: the first setting line is a section header (a JSON array's "[" alone,
// or a line with quotes or braces, is not one).
inline bool is_vdsm_conf(const config_text& t) {
    for (const std::string& raw : t.lines) {
        const std::string line = strip(raw);
        if (comment_or_blank(line)) continue;
        std::string name;
        return section_header(line, name) && line.back() == ']' && line.find_first_of("\"{}") == std::string::npos;
    }
    return false;
}

// How many [irs] section headers a file has.
inline std::size_t irs_blocks(const config_text& t) {
    std::size_t n = 0;
    std::string name;
    for (const std::string& raw : t.lines) n += section_header(strip(raw), name) && name == "irs" ? 1u : 0u;
    return n;
}

// "a, b" -> the fields of one CSV line (recommend's CSV quotes nothing in these columns).
inline std::vector<std::string> split_csv_line(const std::string& s) {
    std::vector<std::string> out;
    std::size_t start = 0;
    for (;;) {
        const std::size_t comma = s.find(',', start);
        out.push_back(s.substr(start, comma - start));
        if (comma == std::string::npos) return out;
        start = comma + 1;
    }
}

// The whole number after `key` in `line` at `pos` (skipping a closing quote, spaces and one '=' or ':'), -1 when
// none follows, -2 when no '=' or ':' does (a mention of the key, not a setting).
inline long long value_after(const std::string& line, std::size_t pos) {
    std::size_t i = pos;
    if (i < line.size() && line[i] == '"') ++i;
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
    if (i >= line.size() || (line[i] != '=' && line[i] != ':')) return -2;
    ++i;
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
    const std::size_t d0 = i;
    long long v = 0;
    while (i < line.size() && line[i] >= '0' && line[i] <= '9' && v < 100000000000LL) v = v * 10 + (line[i++] - '0');
    return i == d0 ? -1 : v;
}

inline config_entry make_entry(long long mb, long long pct, const std::string& where, std::size_t line) {
    if (mb < 0 || pct < 0) throw usage_error(where + "expected a whole number after the setting's name");
    const auto c = vdsm_config::make(static_cast<std::uint64_t>(mb), static_cast<std::uint64_t>(pct));
    if (!c) throw usage_error(where + std::string(c.error().message().view()));
    return {*c, line};
}

// recommend's CSV: the header names the columns; one configuration per row.
inline std::vector<config_entry> read_csv_answer(const config_text& t, std::size_t header, const std::string& option) {
    const auto h = split_csv_line(t.lines[header]);
    long chunk_col = -1, percent_col = -1;
    for (std::size_t i = 0; i < h.size(); ++i) {
        if (h[i] == "volume_utilization_chunk_mb") chunk_col = static_cast<long>(i);
        if (h[i] == "volume_utilization_percent") percent_col = static_cast<long>(i);
    }
    if (chunk_col < 0 || percent_col < 0)
        throw usage_error(where(option, t, header + 1) +
                          "a CSV without the columns volume_utilization_chunk_mb and volume_utilization_percent (as "
                          "provpol recommend --format csv prints them)");
    const auto num = [](const std::string& s) {
        const auto r = parse_count(s, "", 0, ~std::uint64_t{0});
        return r ? static_cast<long long>(std::min<std::uint64_t>(*r, std::uint64_t{1} << 40)) : -1LL;
    };
    std::vector<config_entry> out;
    for (std::size_t i = header + 1; i < t.lines.size(); ++i) {
        if (comment_or_blank(strip(t.lines[i]))) continue;
        const auto f = split_csv_line(t.lines[i]);
        if (f.size() <= static_cast<std::size_t>(std::max(chunk_col, percent_col)))
            throw usage_error(where(option, t, i + 1) + "fewer fields than the header");
        out.push_back(make_entry(num(f[static_cast<std::size_t>(chunk_col)]),
                                 num(f[static_cast<std::size_t>(percent_col)]), where(option, t, i + 1), i + 1));
    }
    return out;
}

// recommend's JSON (and bare `key = value` lines): every chunk, percent pair, in order.
inline std::vector<config_entry> read_pairs(const config_text& t, const std::string& option) {
    std::vector<config_entry> out;
    long long chunk = -1;
    std::size_t chunk_line = 0;
    for (std::size_t i = 0; i < t.lines.size(); ++i) {
        const std::string& line = t.lines[i];
        if (comment_or_blank(strip(line))) continue;
        for (std::size_t pos = 0;;) {
            const std::size_t c = line.find("volume_utilization_chunk_mb", pos);
            const std::size_t p = line.find("volume_utilization_percent", pos);
            if (c == std::string::npos && p == std::string::npos) break;
            const bool is_chunk = c < p;
            pos = (is_chunk ? c : p) + (is_chunk ? 27 : 26);
            const long long v = value_after(line, pos);
            if (v == -2) continue;
            if (is_chunk) {
                if (chunk >= 0)
                    throw usage_error(where(option, t, i + 1) + "volume_utilization_chunk_mb again before a percent");
                if (v < 0) make_entry(-1, 0, where(option, t, i + 1), i + 1);
                chunk = v;
                chunk_line = i + 1;
            } else {
                if (chunk < 0)
                    throw usage_error(where(option, t, i + 1) +
                                      "volume_utilization_percent without a volume_utilization_chunk_mb before it "
                                      "(a vdsm.conf file starts with its [irs] section)");
                out.push_back(make_entry(chunk, v, where(option, t, i + 1), i + 1));
                chunk = -1;
            }
        }
    }
    if (chunk >= 0)
        throw usage_error(where(option, t, chunk_line) +
                          "volume_utilization_chunk_mb without a volume_utilization_percent (in a recommend answer "
                          "each comes with the other; a vdsm.conf file starts with its [irs] section)");
    return out;
}

inline std::vector<config_entry> read_answer(const config_text& t, const std::string& option) {
    for (std::size_t i = 0; i < t.lines.size(); ++i) {
        const std::string& line = t.lines[i];
        if (comment_or_blank(strip(line))) continue;
        if (line.find('=') == std::string::npos && line.find(':') == std::string::npos &&
            line.find(',') != std::string::npos)
            return read_csv_answer(t, i, option);
        break;
    }
    return read_pairs(t, option);
}

// One [irs] key's value and where it was set, as the files are read.
struct conf_value {
    std::string text;  // the value as configparser keeps it (stripped; continuation lines joined by '\n')
    std::string file;  // empty: VDSM's default
    std::size_t line = 0;
};

// Python's int() of a configparser value: optional sign, decimal digits with single underscores between them.
inline long long python_int(const std::string& v, const std::string& key, const std::string& at) {
    std::size_t i = 0;
    bool negative = false;
    if (i < v.size() && (v[i] == '+' || v[i] == '-')) negative = v[i++] == '-';
    long long n = 0;
    bool digit = false;
    for (; i < v.size(); ++i) {
        if (v[i] == '_' && digit && i + 1 < v.size() && v[i + 1] >= '0' && v[i + 1] <= '9') continue;
        if (v[i] < '0' || v[i] > '9') {
            digit = false;
            break;
        }
        digit = true;
        if (n < 100000000000LL) n = n * 10 + (v[i] - '0');
    }
    if (!digit || i != v.size())
        throw usage_error(at + key + " = '" + args::printable(v) +
                          "' is not a whole number (VDSM reads it with config.getint)");
    return negative ? -n : n;
}

// Reads one of VDSM's files into `irs` as configparser's _read does, for the two keys provpol uses; refuses what
// configparser refuses. Every other section and key is skipped after its syntax is checked.
inline void read_vdsm_conf(const config_text& t, const std::string& option, conf_value (&irs)[2]) {
    static const char* const keys[2] = {"volume_utilization_chunk_mb", "volume_utilization_percent"};
    std::vector<std::string> sections_seen, options_seen;  // this file's, for configparser's strict checks
    std::string section;
    bool in_section = false;
    int current = -1;  // the key a continuation line would extend: 0, 1, or -1 (another key, or none)
    bool any_option = false;
    std::size_t indent = 0;
    for (std::size_t i = 0; i < t.lines.size(); ++i) {
        const std::string& raw = t.lines[i];
        const std::string line = strip(raw);
        const std::string at = where(option, t, i + 1);
        if (comment_or_blank(line)) continue;  // empty lines inside a value only matter to values we never read
        const std::size_t ind = raw.find_first_not_of(" \t");
        if (in_section && any_option && ind > indent) {  // a continuation line
            if (current >= 0) irs[current].text += "\n" + line;
            continue;
        }
        indent = ind;
        std::string name;
        if (section_header(line, name)) {
            if (std::find(sections_seen.begin(), sections_seen.end(), name) != sections_seen.end())
                throw usage_error(at + "section [" + args::printable(name) +
                                  "] again in the same file (configparser refuses it, and so VDSM does)");
            if (name != "DEFAULT") sections_seen.push_back(name);
            section = name;
            in_section = true;
            any_option = false;
            current = -1;
            continue;
        }
        if (!in_section)
            throw usage_error(at + "a setting before any [section] (configparser refuses the file, and so VDSM does)");
        const std::size_t d = line.find_first_of("=:");
        if (d == std::string::npos || d == 0)
            throw usage_error(at + "'" + args::printable(line) + "' is no 'key = value' setting");
        std::string key = strip(line.substr(0, d));
        std::transform(key.begin(), key.end(), key.begin(),
                       [](unsigned char c) { return static_cast<char>(std::tolower(c)); });  // optionxform
        const std::string seen = section + "\n" + key;
        if (std::find(options_seen.begin(), options_seen.end(), seen) != options_seen.end())
            throw usage_error(at + key + " again in [" + args::printable(section) +
                              "] in the same file (configparser refuses it, and so VDSM does)");
        options_seen.push_back(seen);
        any_option = true;
        current = -1;
        if (section != "irs") continue;  // [DEFAULT] too: VDSM's own [irs] defaults shadow it
        for (int k = 0; k < 2; ++k)
            if (key == keys[k]) {
                irs[k] = {strip(line.substr(d + 1)), t.name, i + 1};
                current = k;
            }
    }
}

inline std::string source_text(const conf_value& v, const vdsm_conf_defaults& defaults) {
    if (v.file.empty()) return std::string("(the default of ") + defaults.release + ")";
    return "from " + v.file + " line " + std::to_string(v.line);
}

// VDSM's files in order, over VDSM's defaults: one configuration.
inline config_reading read_vdsm_confs(const std::vector<config_text>& texts, const std::string& option,
                                      const vdsm_conf_defaults& defaults) {
    static const char* const keys[2] = {"volume_utilization_chunk_mb", "volume_utilization_percent"};
    conf_value irs[2] = {{std::to_string(defaults.chunk_mb), "", 0}, {std::to_string(defaults.percent), "", 0}};
    for (const config_text& t : texts) read_vdsm_conf(t, option, irs);
    long long v[2];
    for (int k = 0; k < 2; ++k) {
        const std::string at = irs[k].file.empty()
                                   ? option + ": "
                                   : option + ": " + irs[k].file + ":" + std::to_string(irs[k].line) + ": ";
        if (irs[k].text.find('%') != std::string::npos)
            throw usage_error(at + keys[k] + ": '%' interpolation is not read; write the number");
        v[k] = python_int(irs[k].text, keys[k], at);
    }
    config_reading r;
    const std::size_t last = irs[1].line != 0 ? irs[1].line : irs[0].line;
    r.entries.push_back(make_entry(
        v[0], v[1],
        option + ": " + (irs[1].file.empty() ? irs[0].file : irs[1].file) + ":" + std::to_string(last) + ": ", last));
    // Said when it is news: with several files, or a value that no file set (one file that sets both, such as
    // recommend's answer, needs no note).
    if (texts.size() > 1 || irs[0].file.empty() || irs[1].file.empty())
        r.sources = std::string(keys[0]) + " = " + std::to_string(v[0]) + " " + source_text(irs[0], defaults) + ", " +
                    keys[1] + " = " + std::to_string(v[1]) + " " + source_text(irs[1], defaults);
    return r;
}

}  // namespace config_input_detail

/// The configurations in `paths` for `option` (--config, given once or more; "-": stdin). VDSM's files (each
/// starting with a [section]) are read as VDSM reads vdsm.conf and vdsm.conf.d, in the order given, over
/// `defaults`: one configuration, with the file and line of each value in `sources`. recommend's CSV or JSON
/// answer is read alone, and may hold several configurations. Usage errors name the file and line; a file with no
/// configuration is an error.
inline config_reading read_config_files(const std::vector<std::string>& paths, const std::string& option,
                                        const vdsm_conf_defaults& defaults = vdsm_4_50_defaults) {
    namespace d = config_input_detail;
    if (std::count(paths.begin(), paths.end(), std::string("-")) > 1)
        throw usage_error(option + " - is given more than once: stdin can be read once");
    std::vector<d::config_text> texts;
    for (const std::string& p : paths) texts.push_back(d::read_text(p, option));
    std::size_t ini = 0;
    for (const d::config_text& t : texts) ini += d::is_vdsm_conf(t) ? 1u : 0u;
    // recommend's text answer for several rates holds an [irs] block each: read alone, it is that answer (VDSM
    // would refuse the repeated section; layered with other files it is refused as configparser does).
    if (ini > 0 && ini == texts.size() && !(texts.size() == 1 && d::irs_blocks(texts.front()) > 1))
        return d::read_vdsm_confs(texts, option, defaults);
    if (texts.size() > 1) {
        const auto other =
            std::find_if(texts.begin(), texts.end(), [](const d::config_text& t) { return !d::is_vdsm_conf(t); });
        throw usage_error(option + ": " + other->shown +
                          " does not start with a [section]: given several times, --config reads VDSM's files in "
                          "layers (vdsm.conf, then its vdsm.conf.d drop-ins, each starting with [irs] or another "
                          "section, as configparser requires); a recommend answer in CSV or JSON is read alone");
    }
    config_reading r;
    r.entries = d::read_answer(texts.front(), option);
    if (r.entries.empty())
        throw usage_error(option + ": " + texts.front().shown +
                          " has no VDSM configuration (volume_utilization_chunk_mb and volume_utilization_percent, as "
                          "provpol recommend prints them)");
    return r;
}

/// Every configuration in `path` ("-": stdin), for `option` (--config): read_config_files of one file.
inline std::vector<config_entry> read_config_file(const std::string& path, const std::string& option) {
    return read_config_files({path}, option).entries;
}

/// A configuration's label in plan's and capacity's tables, the same for --chunk/--percent and --config.
inline std::string config_label(const vdsm_config& c) {
    return "chunk-" + std::to_string(c.chunk_mb()) + "MiB-" + std::to_string(c.percent()) + "pct";
}

}  // namespace provpol::cli

#endif  // PROVPOL_CLI_CONFIG_INPUT_HPP
