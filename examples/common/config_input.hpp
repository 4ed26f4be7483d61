// --config FILE: the VDSM configurations that `provpol recommend` prints, read back by plan, capacity and extend,
// so that an answer can be piped or pasted into the command that uses it. One reader for every form recommend
// prints and for VDSM's own file:
//   - text, or a file in /etc/vdsm/vdsm.conf.d/: `volume_utilization_chunk_mb = N` and
//     `volume_utilization_percent = N` lines (ini style; lines starting with # or ; are comments, as in VDSM's
//     configparser), one configuration;
//   - CSV (recommend --format csv): a header with the columns volume_utilization_chunk_mb and
//     volume_utilization_percent, one configuration per row;
//   - JSON (recommend --format json): every "volume_utilization_chunk_mb": N, "volume_utilization_percent": N
//     pair, in order.
// Chunk sizes are whole MiB, as VDSM reads them (volume_utilization_chunk_mb).
#ifndef PROVPOL_CLI_CONFIG_INPUT_HPP
#define PROVPOL_CLI_CONFIG_INPUT_HPP

#include "cli.hpp"
#include "input.hpp"

#include <provpol/extend.hpp>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

namespace provpol::cli {

/// One configuration read from a --config file, and the line it ended on (for messages).
struct config_entry {
    vdsm_config config;
    std::size_t line;
};

namespace config_input_detail {

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

// The whole number after `key` in `line` at `pos` (skipping a closing quote, spaces and one '=' or ':'), or -1
// when none follows.
inline long long value_after(const std::string& line, std::size_t pos) {
    std::size_t i = pos;
    if (i < line.size() && line[i] == '"') ++i;
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
    if (i >= line.size() || (line[i] != '=' && line[i] != ':')) return -2;  // a mention, not a setting
    ++i;
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
    const std::size_t d0 = i;
    long long v = 0;
    while (i < line.size() && line[i] >= '0' && line[i] <= '9' && v < 100000000000LL) v = v * 10 + (line[i++] - '0');
    return i == d0 ? -1 : v;
}

}  // namespace config_input_detail

/// Every configuration in `path` ("-": stdin), for `option` (--config). Usage errors name the file and line;
/// a file with none is an error.
inline std::vector<config_entry> read_config_file(const std::string& path, const std::string& option) {
    text_input::rules rules;
    rules.too_long = "a line longer than 65536 bytes";
    rules.nul = "a NUL byte (not a text file)";
    rules.not_a = "a configuration file";
    text_input in(path, option, rules);
    std::vector<config_entry> out;
    std::string line;
    long chunk_col = -1, percent_col = -1;
    bool first = true;
    long long chunk = -1;
    std::size_t chunk_line = 0;
    const auto make = [&](long long mb, long long pct, const std::string& where) {
        if (mb < 0 || pct < 0) throw usage_error(where + "expected a whole number after the setting's name");
        const auto c = vdsm_config::make(static_cast<std::uint64_t>(mb), static_cast<std::uint64_t>(pct));
        if (!c) throw usage_error(where + std::string(c.error().message().view()));
        out.push_back({*c, in.line()});
    };
    while (in.next(line)) {
        if (!line.empty() && line.back() == '\r') line.pop_back();
        std::size_t b = 0;
        while (b < line.size() && (line[b] == ' ' || line[b] == '\t')) ++b;
        if (b == line.size() || line[b] == '#' || line[b] == ';') continue;
        if (first) {
            first = false;
            if (line.find('=') == std::string::npos && line.find(':') == std::string::npos &&
                line.find(',') != std::string::npos) {  // a CSV header
                const auto h = config_input_detail::split_csv_line(line);
                for (std::size_t i = 0; i < h.size(); ++i) {
                    if (h[i] == "volume_utilization_chunk_mb") chunk_col = static_cast<long>(i);
                    if (h[i] == "volume_utilization_percent") percent_col = static_cast<long>(i);
                }
                if (chunk_col < 0 || percent_col < 0)
                    throw usage_error(in.where() +
                                      "a CSV without the columns volume_utilization_chunk_mb and "
                                      "volume_utilization_percent (as provpol recommend --format csv prints them)");
                continue;
            }
        }
        if (chunk_col >= 0) {
            const auto f = config_input_detail::split_csv_line(line);
            if (f.size() <= static_cast<std::size_t>(std::max(chunk_col, percent_col)))
                throw usage_error(in.where() + "fewer fields than the header");
            const auto num = [&](const std::string& s) {
                const auto r = parse_count(s, "", 0, ~std::uint64_t{0});
                return r ? static_cast<long long>(std::min<std::uint64_t>(*r, std::uint64_t{1} << 40)) : -1LL;
            };
            make(num(f[static_cast<std::size_t>(chunk_col)]), num(f[static_cast<std::size_t>(percent_col)]),
                 in.where());
            continue;
        }
        // ini or JSON: the settings, wherever they are on the line, in order.
        for (std::size_t pos = 0;;) {
            const std::size_t c = line.find("volume_utilization_chunk_mb", pos);
            const std::size_t p = line.find("volume_utilization_percent", pos);
            if (c == std::string::npos && p == std::string::npos) break;
            const bool is_chunk = c < p;
            const std::size_t at = is_chunk ? c : p;
            pos = at + (is_chunk ? 27 : 26);
            const long long v = config_input_detail::value_after(line, pos);
            if (v == -2) continue;
            if (is_chunk) {
                if (chunk >= 0) throw usage_error(in.where() + "volume_utilization_chunk_mb again before a percent");
                if (v < 0) make(-1, 0, in.where());
                chunk = v;
                chunk_line = in.line();
            } else {
                if (chunk < 0)
                    throw usage_error(in.where() +
                                      "volume_utilization_percent without a volume_utilization_chunk_mb before it");
                make(chunk, v, in.where());
                chunk = -1;
            }
        }
    }
    if (chunk >= 0)
        throw usage_error(option + ": " + in.shown() + ":" + std::to_string(chunk_line) +
                          ": volume_utilization_chunk_mb without a volume_utilization_percent (give both: VDSM's "
                          "defaults differ between releases)");
    if (out.empty())
        throw usage_error(option + ": " + in.shown() +
                          " has no VDSM configuration (volume_utilization_chunk_mb and volume_utilization_percent, as "
                          "provpol recommend prints them)");
    return out;
}

/// A configuration's label in plan's and capacity's tables, the same for --chunk/--percent and --config.
inline std::string config_label(const vdsm_config& c) {
    return "chunk-" + std::to_string(c.chunk_mb()) + "MiB-" + std::to_string(c.percent()) + "pct";
}

}  // namespace provpol::cli

#endif  // PROVPOL_CLI_CONFIG_INPUT_HPP
