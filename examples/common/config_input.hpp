// --config FILE|DIR: the VDSM configurations that `provpol recommend` prints, read back by plan, capacity and
// extend, so that an answer can be piped or pasted into the command that uses it, and VDSM's own files. Two readers:
//   - VDSM's files: read as vdsmd reads them (vdsm_conf.hpp: lib/vdsm/common/config.py.in's load(), one
//     configparser.ConfigParser over VDSM 4.50's schema defaults, then the files in order, a later file winning),
//     with what configparser refuses refused (file and line), a setting VDSM does not have named with the nearest
//     one it has, and the values of the settings provpol reads: [irs] volume_utilization_chunk_mb and
//     volume_utilization_percent (getint), [mailbox] events_enable (getboolean) and events_interval (getfloat),
//     [thinp] extend_timeout (getfloat), [vars] vm_watermark_interval (getint), each from its file and line or
//     "from VDSM 4.50's default". A directory is read as vdsmd reads its own (read_configs()): DIR/vdsm.conf, then
//     the *.conf files of the vdsm.conf.d drop-in directories, /usr/lib/vdsm/vdsm.conf.d, /run/vdsm/vdsm.conf.d and
//     DIR/vdsm.conf.d (the first two under the root DIR is in when DIR is ROOT/etc/vdsm), sorted by file name
//     (Python's order), /etc's last among equal names; a vdsm.conf.d directory alone gives its drop-ins;
//   - recommend's CSV and JSON answers: a header with the columns volume_utilization_chunk_mb and
//     volume_utilization_percent, one configuration per row; every "volume_utilization_chunk_mb": N,
//     "volume_utilization_percent": N pair of a JSON array in order.
// Chunk sizes are whole MiB, as VDSM reads them (volume_utilization_chunk_mb).
#ifndef PROVPOL_CLI_CONFIG_INPUT_HPP
#define PROVPOL_CLI_CONFIG_INPUT_HPP

#include "cli.hpp"
#include "input.hpp"
#include "py_text.hpp"
#include "vdsm_conf.hpp"

#include <provpol/extend.hpp>
#include <provpol/flow/vdsm_settings.hpp>

#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <optional>
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

/// The settings of VDSM's files that shape its extend flow, and where each came from.
struct vdsm_flow_reading {
    vdsm_flow_settings settings;      ///< VDSM 4.50's defaults where no file sets a key
    seconds watermark_interval{2.0};  ///< [vars] vm_watermark_interval: the periodic monitor's period
    bool set_by_file = false;         ///< a file sets one of them
    std::string sources;              ///< "events_enable = true from VDSM 4.50's default, events_interval = ..."
};

/// What --config gave: the configurations, and for VDSM's files which file set each value (empty for recommend's
/// CSV and JSON answers), the flow settings and the notes to print (warn()) with "provpol COMMAND: --config: ".
struct config_reading {
    std::vector<config_entry> entries;
    std::string
        sources;  ///< "volume_utilization_chunk_mb = 3200 from b.conf line 2, ... = 20 from VDSM 4.50's default"
    std::optional<vdsm_flow_reading> flow;  ///< VDSM's files only
    std::vector<std::string> notes;         ///< the files a directory gave, settings VDSM does not know
};

namespace config_input_detail {

// A file's text and how messages name it.
struct config_text {
    std::string shown;  // 'name' or stdin, as messages quote it
    std::string name;   // the name in "FILE:LINE: " prefixes
    std::string text;
};

inline config_text read_text(const std::string& path, const std::string& option) {
    text_input::rules rules;
    rules.not_a = "a configuration file";
    rules.max_bytes = vdsm_conf::max_file_bytes;
    text_input in(path, option, rules);
    config_text t{in.shown(), path == "-" ? std::string("stdin") : args::visible(path), {}};
    in.read_all(t.text);
    return t;
}

// The lines of a text, without their '\n' (and a '\r' before it).
inline std::vector<std::string> lines_of(const std::string& text) {
    std::vector<std::string> out;
    for (std::size_t b = 0; b < text.size();) {
        std::size_t e = text.find('\n', b);
        if (e == std::string::npos) e = text.size();
        out.push_back(text.substr(b, e - b - (e > b && text[e - 1] == '\r' ? 1 : 0)));
        b = e + 1;
    }
    return out;
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

inline bool comment_or_blank(const std::string& stripped) {
    return stripped.empty() || stripped[0] == '#' || stripped[0] == ';';
}

// recommend's CSV or JSON answer, not a VDSM file: its first line that is no comment is a JSON array or object, or
// a CSV header naming volume_utilization_chunk_mb. Anything else is read as VDSM reads a file (and refused as
// configparser refuses it: a bare "key = value" file has no section header).
inline bool is_answer(const std::string& text) {
    for (const std::string& raw : lines_of(text)) {
        const std::string line = strip(raw);
        if (comment_or_blank(line)) continue;
        if (line[0] == '{' || line == "[" || line.rfind("[{", 0) == 0 || line == "[]") return true;
        return line.find("volume_utilization_chunk_mb") != std::string::npos && line.find(',') != std::string::npos &&
               line.find_first_of("=:[") == std::string::npos;
    }
    return false;
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

// The whole number after `key` in `line` at `pos` (skipping a closing quote, spaces and one ':'), -1 when none
// follows, -2 when no ':' does (a mention of the key, not a member).
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
    const auto c = vdsm_config::make(bytes(static_cast<std::uint64_t>(mb) << 20), static_cast<std::uint64_t>(pct));
    if (!c) throw usage_error(where + std::string(c.error().message().view()));
    return {*c, line};
}

// recommend's CSV: the header names the columns; one configuration per row.
inline std::vector<config_entry> read_csv_answer(const std::vector<std::string>& lines, const config_text& t,
                                                 std::size_t header, const std::string& option) {
    const auto h = split_csv_line(lines[header]);
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
    for (std::size_t i = header + 1; i < lines.size(); ++i) {
        if (comment_or_blank(strip(lines[i]))) continue;
        const auto f = split_csv_line(lines[i]);
        if (f.size() <= static_cast<std::size_t>(std::max(chunk_col, percent_col)))
            throw usage_error(where(option, t, i + 1) + "fewer fields than the header");
        out.push_back(make_entry(num(f[static_cast<std::size_t>(chunk_col)]),
                                 num(f[static_cast<std::size_t>(percent_col)]), where(option, t, i + 1), i + 1));
    }
    return out;
}

// recommend's JSON: every chunk, percent pair, in order.
inline std::vector<config_entry> read_json_pairs(const std::vector<std::string>& lines, const config_text& t,
                                                 const std::string& option) {
    std::vector<config_entry> out;
    long long chunk = -1;
    std::size_t chunk_line = 0;
    for (std::size_t i = 0; i < lines.size(); ++i) {
        const std::string& line = lines[i];
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
                                      "volume_utilization_percent without a volume_utilization_chunk_mb before it");
                out.push_back(make_entry(chunk, v, where(option, t, i + 1), i + 1));
                chunk = -1;
            }
        }
    }
    if (chunk >= 0)
        throw usage_error(where(option, t, chunk_line) +
                          "volume_utilization_chunk_mb without a volume_utilization_percent (in a recommend answer "
                          "each comes with the other)");
    return out;
}

inline std::vector<config_entry> read_answer(const config_text& t, const std::string& option) {
    const std::vector<std::string> lines = lines_of(t.text);
    for (std::size_t i = 0; i < lines.size(); ++i) {
        const std::string line = strip(lines[i]);
        if (comment_or_blank(line)) continue;
        if (line[0] != '{' && line[0] != '[') return read_csv_answer(lines, t, i, option);
        break;
    }
    return read_json_pairs(lines, t, option);
}

// ---- VDSM's directories (config.py.in read_configs()) ----

// A file name as Python's sort compares it: its code points, an undecodable byte as U+DC80 to U+DCFF (os.fsdecode's
// surrogateescape).
inline std::u32string python_name(const std::string& name) {
    std::u32string out;
    for (std::size_t i = 0; i < name.size();) {
        char32_t cp;
        const std::size_t n = py::utf8_at(name, i, cp);
        out += n > 0 ? cp : char32_t{0xDC00} + static_cast<unsigned char>(name[i]);
        i += n > 0 ? n : 1;
    }
    return out;
}

// glob.glob(DIR + "/*.conf"): every entry whose name ends in ".conf" and does not start with '.', unsorted.
inline std::vector<std::string> glob_conf(const std::string& dir) {
    std::vector<std::string> out;
    DIR* d = ::opendir(dir.c_str());
    if (d == nullptr) return out;  // glob finds nothing in a directory it cannot list
    while (const dirent* e = ::readdir(d)) {
        const std::string n = e->d_name;
        if (n.size() > 5 && n[0] != '.' && n.compare(n.size() - 5, 5, ".conf") == 0) out.push_back(dir + "/" + n);
        if (out.size() > 10000) break;
    }
    ::closedir(d);
    return out;
}

inline bool is_dir(const std::string& path) {
    struct stat st {};
    return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}
inline std::string base_name(const std::string& path) {
    const std::size_t slash = path.rfind('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

// The files vdsmd reads for the directory `dir` (see the header comment), in order; `notes` gets what was read.
inline std::vector<std::string> vdsm_dir_files(const std::string& given, const std::string& option,
                                               std::vector<std::string>& notes) {
    std::string dir = given;
    while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
    std::vector<std::string> out, drop_dirs;
    if (base_name(dir) == "vdsm.conf.d") {
        drop_dirs.push_back(dir);
    } else {
        const std::string conf = dir + "/vdsm.conf";
        struct stat st {};
        const bool has_conf = ::stat(conf.c_str(), &st) == 0, has_d = is_dir(dir + "/vdsm.conf.d");
        if (!has_conf && !has_d)
            throw usage_error(option + ": " + args::visible(given) +
                              " has neither vdsm.conf nor vdsm.conf.d: not VDSM's configuration directory (/etc/vdsm)");
        if (has_conf) out.push_back(conf);
        // config.py.in's _DROPPIN_BASES: /usr/lib/, /run/ and sysconfdir, each + "vdsm/vdsm.conf.d".
        const std::string tail = "/etc/vdsm";
        if (dir.size() >= tail.size() && dir.compare(dir.size() - tail.size(), tail.size(), tail) == 0) {
            const std::string root = dir.substr(0, dir.size() - tail.size());
            drop_dirs.push_back(root + "/usr/lib/vdsm/vdsm.conf.d");
            drop_dirs.push_back(root + "/run/vdsm/vdsm.conf.d");
        }
        drop_dirs.push_back(dir + "/vdsm.conf.d");
    }
    std::vector<std::string> dropins;
    for (const std::string& d : drop_dirs)
        for (std::string& f : glob_conf(d)) dropins.push_back(std::move(f));
    std::stable_sort(dropins.begin(), dropins.end(), [](const std::string& a, const std::string& b) {
        return python_name(base_name(a)) < python_name(base_name(b));
    });
    // cfg.read() skips a file it cannot open (a directory named x.conf, a dangling link); so does provpol, and
    // says so. A file provpol may not read (vdsmd runs as root's vdsm) is an error: its settings are not known.
    std::string skipped;
    for (const std::string& f : dropins) {
        struct stat st {};
        if (::stat(f.c_str(), &st) != 0 || S_ISDIR(st.st_mode)) {
            skipped += (skipped.empty() ? "" : ", ") + args::visible(f);
            continue;
        }
        if (!S_ISREG(st.st_mode))
            throw usage_error(option + ": " + args::visible(f) +
                              " is not a regular file: vdsmd would block reading it at start");
        out.push_back(f);
    }
    std::string read;
    for (const std::string& f : out) read += (read.empty() ? "" : ", ") + args::visible(f);
    notes.push_back(args::visible(given) + ": vdsmd reads " + (read.empty() ? std::string("no file") : read) +
                    (skipped.empty() ? "" : "; it skips " + skipped + " (not files it can open)"));
    return out;
}

// ---- the settings provpol reads ----

inline std::string origin(const vdsm_conf& conf, const std::optional<vdsm_conf::value>& v) {
    if (!v || v->file == vdsm_conf::schema_file) return std::string("from ") + vdsm_schema_release + "'s default";
    return "from " + conf.files()[v->file] + " line " + std::to_string(v->line);
}
inline std::string at(const vdsm_conf& conf, const std::string& option, const std::optional<vdsm_conf::value>& v) {
    if (!v || v->file == vdsm_conf::schema_file) return option + ": ";
    return option + ": " + conf.files()[v->file] + ":" + std::to_string(v->line) + ": ";
}

// A value VDSM's call would raise on is the files' error, named with its file and line.
template <class T>
T need(const std::optional<T>& v, const vdsm_conf& conf, const std::string& option, const char* section,
       const char* key, const std::string& error) {
    if (v) return *v;
    throw usage_error(at(conf, option, conf.raw(section, key)) + "[" + section + "] " + key + ": " + error +
                      ": vdsmd fails on it");
}

inline std::string short_decimal(double v) {
    char buf[40];
    std::snprintf(buf, sizeof buf, "%g", v);
    return buf;
}

// The flow settings (vdsm_settings.hpp) as the files set them.
inline vdsm_flow_reading flow_reading(const vdsm_conf& conf, const std::string& option) {
    vdsm_flow_reading r;
    std::string e;
    r.settings.events_enable =
        need(conf_getboolean(conf, "mailbox", "events_enable", e), conf, option, "mailbox", "events_enable", e);
    const double ei =
        need(conf_getfloat(conf, "mailbox", "events_interval", e), conf, option, "mailbox", "events_interval", e);
    const double et =
        need(conf_getfloat(conf, "thinp", "extend_timeout", e), conf, option, "thinp", "extend_timeout", e);
    const py::py_int wi =
        need(conf_getint(conf, "vars", "vm_watermark_interval", e), conf, option, "vars", "vm_watermark_interval", e);
    r.settings.events_interval = seconds(ei);
    r.settings.extend_timeout = seconds(et);
    if (const auto f = vdsm_flow_latency(r.settings); !f) {
        const std::string key(f.error().setting().data(), f.error().setting().size());
        const char* section = key == "extend_timeout" ? "thinp" : "mailbox";
        throw usage_error(at(conf, option, conf.raw(section, key)) + "[" + section + "] " +
                          std::string(f.error().message().view()));
    }
    if (wi.huge || wi.value < 1 || wi.value > 3600)
        throw usage_error(at(conf, option, conf.raw("vars", "vm_watermark_interval")) +
                          "[vars] vm_watermark_interval must be in [1, 3600] seconds, got " +
                          (wi.huge ? std::string("a huge number") : std::to_string(wi.value)));
    r.watermark_interval = seconds(static_cast<double>(wi.value));
    const struct {
        const char *section, *key;
        std::string value;
    } keys[] = {{"mailbox", "events_enable", r.settings.events_enable ? "true" : "false"},
                {"mailbox", "events_interval", short_decimal(ei)},
                {"thinp", "extend_timeout", short_decimal(et)},
                {"vars", "vm_watermark_interval", std::to_string(wi.value)}};
    for (const auto& k : keys) {
        const auto v = conf.raw(k.section, k.key);
        r.set_by_file = r.set_by_file || (v && v->file != vdsm_conf::schema_file);
        r.sources += (r.sources.empty() ? "" : ", ") + std::string(k.key) + " = " + k.value + " " + origin(conf, v);
    }
    return r;
}

// The notes about settings VDSM does not have: the first five, and how many more.
inline void odd_notes(const vdsm_conf& conf, std::vector<std::string>& notes) {
    std::vector<std::string> all_keys, sections;
    for (const vdsm_schema_key& k : vdsm_schema) all_keys.emplace_back(k.key);
    for (const char* s : vdsm_schema_sections) sections.emplace_back(s);
    std::size_t shown = 0;
    for (const vdsm_conf::odd_setting& o : conf.odd_settings()) {
        if (shown == 5) break;
        ++shown;
        const std::string where = conf.files()[o.file] + ":" + std::to_string(o.line) + ": ";
        const std::string sec = "[" + args::printable(o.section) + "]";
        std::string home;  // the section of VDSM's that has the key
        for (const vdsm_schema_key& k : vdsm_schema)
            if (o.key == k.key) home = k.section;
        if (!o.known_section) {
            const std::string near = closest_name(o.section, sections);
            notes.push_back(where + sec + " is not a section " + vdsm_schema_release + " has" +
                            (near.empty() ? std::string() : " (did you mean [" + near + "]?)") +
                            ": vdsmd ignores its keys, " + args::printable(o.key) + " among them");
        } else if (!home.empty()) {
            notes.push_back(where + args::printable(o.key) + " is a key of [" + home + "], not of " + sec +
                            ": vdsmd ignores it here");
        } else {
            std::vector<std::string> keys;
            for (const vdsm_schema_key& k : vdsm_schema)
                if (o.section == k.section) keys.emplace_back(k.key);
            std::string near = closest_name(o.key, keys);
            if (near.empty()) near = closest_name(o.key, all_keys);
            notes.push_back(where + sec + " " + args::printable(o.key) + " is not a key " + vdsm_schema_release +
                            " has in " + sec + (near.empty() ? std::string() : " (did you mean " + near + "?)") +
                            ": vdsmd ignores it");
        }
    }
    if (conf.odd_count() > shown)
        notes.push_back("and " + std::to_string(conf.odd_count() - shown) + " more settings " + vdsm_schema_release +
                        " does not have");
}

// VDSM's files in order, over VDSM's defaults: one configuration.
inline config_reading read_vdsm_confs(const std::vector<config_text>& texts, const std::string& option,
                                      const vdsm_conf_defaults& defaults, std::vector<std::string> notes) {
    static const char* const keys[2] = {"volume_utilization_chunk_mb", "volume_utilization_percent"};
    vdsm_conf conf;
    for (const config_text& t : texts) conf.read(t.text, t.name, option);
    long long v[2];
    std::optional<vdsm_conf::value> raw[2];
    for (int k = 0; k < 2; ++k) {
        raw[k] = conf.raw("irs", keys[k]);
        std::string e;
        if (raw[k]->file == vdsm_conf::schema_file) {  // a preset's release other than 4.50 has its own default
            v[k] = static_cast<long long>(k == 0 ? defaults.chunk_mb : defaults.percent);
            continue;
        }
        const py::py_int n = need(conf_getint(conf, "irs", keys[k], e), conf, option, "irs", keys[k], e);
        v[k] = n.huge ? (std::int64_t{1} << 40) : n.value;
    }
    config_reading r;
    const auto& last = raw[1]->file != vdsm_conf::schema_file ? raw[1] : raw[0];
    const std::size_t line = last->file != vdsm_conf::schema_file ? last->line : 0;
    r.entries.push_back(make_entry(v[0], v[1], at(conf, option, last), line));
    const auto from = [&](int k) {
        return raw[k]->file == vdsm_conf::schema_file ? std::string("from ") + defaults.release + "'s default"
                                                      : origin(conf, raw[k]);
    };
    // Said when it is news: with several files, or a value that no file set (one file that sets both, such as
    // recommend's answer, needs no note).
    if (texts.size() > 1 || raw[0]->file == vdsm_conf::schema_file || raw[1]->file == vdsm_conf::schema_file)
        r.sources = std::string(keys[0]) + " = " + std::to_string(v[0]) + " " + from(0) + ", " + keys[1] + " = " +
                    std::to_string(v[1]) + " " + from(1);
    r.flow = flow_reading(conf, option);
    odd_notes(conf, notes);
    r.notes = std::move(notes);
    return r;
}

}  // namespace config_input_detail

/// The configurations in `paths` for `option` (--config, given once or more; "-": stdin). VDSM's files and
/// directories are read as vdsmd reads vdsm.conf and vdsm.conf.d, in the order given, over `defaults`: one
/// configuration, with the file and line of each value in `sources`, and the flow settings. recommend's CSV or
/// JSON answer is read alone, and may hold several configurations. Usage errors name the file and line.
inline config_reading read_config_files(const std::vector<std::string>& paths, const std::string& option,
                                        const vdsm_conf_defaults& defaults = vdsm_4_50_defaults) {
    namespace d = config_input_detail;
    if (std::count(paths.begin(), paths.end(), std::string("-")) > 1)
        throw usage_error(option + " - is given more than once: stdin can be read once");
    std::vector<d::config_text> texts;
    std::vector<std::string> notes;
    bool from_dir = false;
    for (const std::string& p : paths) {
        if (p != "-" && d::is_dir(p)) {
            from_dir = true;
            for (const std::string& f : d::vdsm_dir_files(p, option, notes)) texts.push_back(d::read_text(f, option));
        } else {
            texts.push_back(d::read_text(p, option));
        }
    }
    std::size_t answers = 0;
    for (const d::config_text& t : texts) answers += d::is_answer(t.text) ? 1u : 0u;
    if (answers == 0) return d::read_vdsm_confs(texts, option, defaults, std::move(notes));
    if (texts.size() > 1 || from_dir) {
        const auto a =
            std::find_if(texts.begin(), texts.end(), [](const d::config_text& t) { return d::is_answer(t.text); });
        throw usage_error(option + ": " + a->shown +
                          " is a recommend answer in CSV or JSON, which is read alone; given several times, --config "
                          "reads VDSM's files in layers (vdsm.conf, then its vdsm.conf.d drop-ins)");
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
