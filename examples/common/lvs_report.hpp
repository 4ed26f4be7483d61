// --lvs FILE: a thin pool as `lvs --reportformat json` reports it, so that an operator plans the pool they have
// instead of retyping it. A pool is a row whose segtype is "thin-pool", or, in a report without segtype (lvs's
// default columns), whose lv_attr starts with "t" (lvs(8): the volume type, (t)hin pool). The fields read are
// lvs's default columns (lv_name, vg_name, lv_attr, lv_size, data_percent, metadata_percent) and four more, in bytes
// (lvs_command):
//   lvs --reportformat json --units b --nosuffix -o +lv_metadata_size,chunk_size,vg_free,vg_extent_size VG/POOL
// (-o +FIELDS adds to lvs's default columns; a report of -o FIELDS with segtype instead of lv_attr is read too).
// Every field the report lacks is named at once, with that command. A B suffix (--units b without --nosuffix) is
// read; lvs's default units round ("<168.00m") and are refused with the command. lvm2's "json" format writes every
// value as a string; "json_std" (lvm2 2.03.17 and later) writes numbers as numbers: both are read. Data% and Meta%
// are lvs's own two-decimal percents; lvs prints them empty for an inactive pool (its usage is the kernel's status of
// the active pool), which is reported as inactive (lvs_pool::active), not refused here. The JSON is read with
// nlohmann-json (header-only: the CLI keeps no runtime dependency). A Data% or Meta% stands for every usage lvs
// prints so (lvs_shown_hundredths): plan and recommend take the most of them (lvs_percent_worst).
#ifndef PROVPOL_CLI_LVS_REPORT_HPP
#define PROVPOL_CLI_LVS_REPORT_HPP

#include "cli.hpp"
#include "input.hpp"

#include <provpol/bytes.hpp>
#include <provpol/extend/lvm_usage.hpp>

#include <nlohmann/json.hpp>

#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace provpol::cli {

/// The lvs command whose output --lvs reads (VG/POOL: the pool's name), and the fields it adds to lvs's default
/// columns.
inline constexpr const char* lvs_command =
    "lvs --reportformat json --units b --nosuffix -o +lv_metadata_size,chunk_size,vg_free,vg_extent_size VG/POOL";

/// One thin pool of an lvs report.
struct lvs_pool {
    std::string vg, name;
    std::string attr;              ///< lv_attr ("twi-aot---"), when the report has it
    bool active = true;            ///< false: lvs printed no Data% and Meta% (an inactive pool)
    bytes size;                    ///< lv_size: the pool's data size
    std::string data_percent;      ///< data_percent as lvs prints it ("59.52"); empty when inactive
    bytes metadata_size;           ///< lv_metadata_size
    std::string metadata_percent;  ///< metadata_percent ("11.62"); empty when inactive
    bytes chunk;                   ///< chunk_size: the pool's chunk
    bytes vg_free;                 ///< vg_free: the VG's free space
    bytes extent;                  ///< vg_extent_size

    /// "inactive (lv_attr twi---tz--)", or "without usage (Data% and Meta% empty)" when the report has no
    /// lv_attr to say why: for messages about a pool whose usage lvs did not print.
    std::string inactive_words() const {
        if (attr.size() >= 5 && attr[4] == '-') return "inactive (lv_attr " + attr + ", Data% and Meta% empty)";
        return "reported without its usage (Data% and Meta% empty" + (attr.empty() ? "" : ", lv_attr " + attr) +
               "), as lvs reports an inactive pool";
    }
};

namespace lvs_detail {

inline std::string field_text(const nlohmann::json& v) {
    if (v.is_string()) return v.get<std::string>();
    if (v.is_number_unsigned()) return std::to_string(v.get<std::uint64_t>());
    if (v.is_number_integer()) return std::to_string(v.get<std::int64_t>());
    if (v.is_number_float()) return v.dump();
    return "";
}

// A size as --units b --nosuffix prints it (digits, perhaps a B suffix).
inline bool byte_count(const std::string& text) {
    std::string t = text;
    if (!t.empty() && (t.back() == 'B' || t.back() == 'b')) t.pop_back();
    bool digits = !t.empty() && t.size() <= 19;
    for (const char c : t) digits = digits && std::isdigit(static_cast<unsigned char>(c)) != 0;
    return digits;
}

// A size field in bytes: digits, with an optional B suffix (--units b without --nosuffix).
inline bytes size_field(const nlohmann::json& row, const char* name, const std::string& where) {
    std::string t = field_text(row.at(name));
    if (!byte_count(t))
        throw usage_error(where + name + " is '" + args::printable(t) + "', not a byte count (lvs's default units " +
                          "round): run " + lvs_command);
    if (t.back() == 'B' || t.back() == 'b') t.pop_back();
    return bytes(std::stoull(t));
}

// A percent field as lvs prints it: digits with up to two decimals.
inline std::string percent_field(const nlohmann::json& row, const char* name, const std::string& where) {
    const std::string t = field_text(row.at(name));
    const std::size_t dot = t.find('.');
    bool ok = !t.empty() && t.size() <= 8 && (dot == std::string::npos || (dot > 0 && dot + 1 < t.size()));
    for (std::size_t i = 0; ok && i < t.size(); ++i) ok = i == dot || std::isdigit(static_cast<unsigned char>(t[i]));
    if (!ok) throw usage_error(where + name + " is '" + args::printable(t) + "', not a percent such as 59.52");
    return t;
}

// The report `in` as JSON, keeping only what an lvs report holds ({"report": [{"lv": [{field: value}]}]}):
// anything else, deeper, or empty is dropped as it is read, so that memory stays a small multiple of the rows' text
// whatever the file holds (a file of millions of {} costs nothing). `file` is set to the messages' prefix.
inline nlohmann::json parse_report(text_input& in, const std::string& option, std::string& file) {
    std::string text, line;
    try {
        while (in.next(line)) {
            if (text.size() + line.size() > (std::size_t{1} << 26))
                throw usage_error(option + ": " + in.shown() + " is over 64 MiB (not an lvs report of one host)");
            text += line;
            text += '\n';
        }
    } catch (const runtime_failure& e) {
        throw usage_error(e.what());  // a read error is the input's: exit 2, one line
    }
    file = option + ": " + in.shown() + ": ";
    std::size_t rows = 0;
    const nlohmann::json::parser_callback_t keep = [&](int depth, nlohmann::json::parse_event_t event,
                                                       nlohmann::json& parsed) {
        using ev = nlohmann::json::parse_event_t;
        if (depth > 5) return false;
        if (event == ev::key) {
            const std::string k = parsed.is_string() ? parsed.get<std::string>() : std::string();
            return (depth == 1 && k == "report") || (depth == 3 && k == "lv") || depth == 5;
        }
        if (event == ev::object_end || event == ev::array_end) {
            if (depth == 4 && event == ev::object_end) {
                if (parsed.empty()) return false;
                if (++rows > 100000) throw usage_error(file + "more than 100000 LVs (not an lvs report of one host)");
            }
            if (depth == 2 && (!parsed.is_object() || parsed.empty())) return false;
        }
        return true;
    };
    nlohmann::json doc;
    try {
        doc = nlohmann::json::parse(text, keep);
    } catch (const nlohmann::json::exception& e) {
        throw usage_error(file + "not JSON (" + std::string(e.what()) + "); run " + lvs_command);
    }
    if (!doc.is_object() || !doc.contains("report") || !doc["report"].is_array())
        throw usage_error(file + "not an lvs report (no \"report\" array); run " + lvs_command);
    return doc;
}

// The lvs command for `pool` ("vg/pool"; empty: VG/POOL as lvs_command has it).
inline std::string command_for(const std::string& pool) {
    const std::string c = lvs_command;
    return pool.empty() ? c : c.substr(0, c.size() - 7) + args::printable(pool);
}

// Whether `row` is a thin pool: its segtype is "thin-pool"; without segtype (lvs's default columns), its lv_attr's
// first character, the volume type, is t (lvs(8): "(t)hin pool"; T is a pool's hidden data LV, not the pool).
inline bool is_thin_pool(const nlohmann::json& row) {
    if (row.contains("segtype")) return field_text(row["segtype"]) == "thin-pool";
    if (!row.contains("lv_attr")) return false;
    const std::string attr = field_text(row["lv_attr"]);
    return !attr.empty() && attr[0] == 't';
}

// Everything the report lacks, in one error: every field missing from its rows (segtype or lv_attr to find the
// pools by), and whether the pools' sizes are in lvs's rounded units; with the command that gives a complete report
// for `pool` (the report's only pool, or none).
inline void check_fields(const std::vector<const nlohmann::json*>& rows, const std::string& file,
                         const std::string& pool) {
    static const char* const needed[] = {"lv_name",      "vg_name",          "lv_size",
                                         "data_percent", "lv_metadata_size", "metadata_percent",
                                         "chunk_size",   "vg_free",          "vg_extent_size"};
    std::vector<std::string> missing;
    bool typed = true;
    for (const nlohmann::json* r : rows) typed = typed && (r->contains("segtype") || r->contains("lv_attr"));
    if (!typed) missing.emplace_back("lv_attr (or segtype)");
    for (const char* f : needed) {
        bool all = true;
        for (const nlohmann::json* r : rows) all = all && r->contains(f);
        if (!all) missing.emplace_back(f);
    }
    std::string rounded;
    for (const nlohmann::json* r : rows) {
        if (!is_thin_pool(*r)) continue;
        for (const char* f : {"lv_size", "lv_metadata_size", "chunk_size", "vg_free", "vg_extent_size"})
            if (rounded.empty() && r->contains(f) && !byte_count(field_text((*r)[f])))
                rounded = std::string(f) + " is '" + args::printable(field_text((*r)[f])) + "'";
    }
    if (missing.empty() && rounded.empty()) return;
    std::string listed;
    for (std::size_t i = 0; i < missing.size(); ++i)
        listed += (i == 0 ? "" : i + 1 == missing.size() ? " and " : ", ") + missing[i];
    std::string why =
        missing.empty() ? std::string() : "the report has no " + listed + (missing.size() == 1 ? " field" : " fields");
    if (!rounded.empty())
        why += (why.empty() ? "" : ", and ") + std::string("its sizes are lvs's rounded units (") + rounded + ")";
    throw usage_error(file + why + "; run " + command_for(pool));
}

// The pool of a row that has every field (check_fields): its sizes in bytes; its percents, or none when lvs printed
// both empty (an inactive pool).
inline lvs_pool pool_of(const nlohmann::json& row, const std::string& file) {
    lvs_pool p;
    p.vg = field_text(row["vg_name"]);
    p.name = field_text(row["lv_name"]);
    if (row.contains("lv_attr")) p.attr = field_text(row["lv_attr"]);
    const std::string where = file + p.vg + "/" + p.name + ": ";
    p.size = size_field(row, "lv_size", where);
    p.metadata_size = size_field(row, "lv_metadata_size", where);
    p.chunk = size_field(row, "chunk_size", where);
    p.vg_free = size_field(row, "vg_free", where);
    p.extent = size_field(row, "vg_extent_size", where);
    p.active = !(field_text(row["data_percent"]).empty() && field_text(row["metadata_percent"]).empty());
    if (p.active) {
        p.data_percent = percent_field(row, "data_percent", where);
        p.metadata_percent = percent_field(row, "metadata_percent", where);
    }
    return p;
}

}  // namespace lvs_detail

/// How lvs prints a usage (1e-6 % units) as Data% or Meta%, in hundredths of a percent: "%.2f" of
/// dm_percent_to_round_float(usage, 2), where a usage above 0 never prints as 0.00 and one below 100% never as
/// 100.00 (lvm2 libdm/libdm-report.c, dm_report_field_percent and dm_percent_to_round_float; the float arithmetic is
/// theirs, so the boundaries fall where lvs puts them).
inline std::int64_t lvs_shown_hundredths(std::int32_t usage) {
    float f = static_cast<float>(usage) / static_cast<float>(lvm_percent_1) + 0.f;
    const float r = static_cast<float>(lvm_percent_1) * .01f;
    if (static_cast<float>(usage) < r && usage > 0)
        f = .01f;
    else if (static_cast<float>(usage) > static_cast<float>(lvm_percent_100) - r && usage < lvm_percent_100)
        f = (static_cast<float>(lvm_percent_100) - r) / static_cast<float>(lvm_percent_1);
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.2f", static_cast<double>(f));
    const std::string t(buf);
    const std::size_t dot = t.find('.');
    return std::stoll(t.substr(0, dot)) * 100 + std::stoll(t.substr(dot + 1));
}

/// The largest usage (1e-6 % units) that lvs prints as `hundredths` / 100 %, in [0, 100%]: a Data% or Meta% read
/// off lvs stands for every usage that prints so, and the most of them is the worst for every target provpol
/// checks (the least free space). The print is monotone in the usage, so a bisection finds it.
inline std::int32_t lvs_shown_max(std::int64_t hundredths) {
    std::int32_t lo = 0, hi = lvm_percent_100;  // lvs_shown_hundredths(lo) <= hundredths is kept when it can be
    if (lvs_shown_hundredths(lo) > hundredths) return 0;
    while (lo < hi) {
        const std::int32_t mid = lo + (hi - lo + 1) / 2;
        if (lvs_shown_hundredths(mid) <= hundredths)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

/// A Data% or Meta% as typed ("85.00" as lvs prints it, "85" or "85.5" by hand) in 1e-6 % units, at the worst its
/// rounding allows: with at most two decimals it is what lvs prints to two decimals, so it stands for every usage
/// lvs prints so and the most of them is taken (85.00 is up to 85.004999%); with more decimals than lvs prints it is
/// taken as written. `widened` says the usage is above the number typed.
struct lvs_percent_read {
    std::int32_t units = 0;
    bool widened = false;
};
inline lvs_percent_read lvs_percent_worst(const std::string& typed, double value) {
    const std::size_t dot = typed.find('.');
    const std::size_t decimals = dot == std::string::npos ? 0 : typed.size() - dot - 1;
    const auto exact = static_cast<std::int32_t>(std::llround(value * lvm_percent_1));
    if (decimals > 2) return {exact, false};
    const std::int32_t most = lvs_shown_max(std::llround(value * 100.0));
    return most > exact ? lvs_percent_read{most, true} : lvs_percent_read{exact, false};
}

/// What lvs_percent_worst took for a percent, in words for the output: "Data% 85.00 taken as up to 85.004999%, the
/// most lvs prints so"; empty when the percent was taken as typed.
inline std::string lvs_percent_note(const char* what, const std::string& typed, const lvs_percent_read& r) {
    if (!r.widened) return "";
    char buf[32];
    std::snprintf(buf, sizeof buf, "%d.%06d", r.units / lvm_percent_1, r.units % lvm_percent_1);
    return std::string(what) + " " + typed + "% taken as up to " + buf + "% (lvs rounds to two decimals)";
}

/// The rules an lvs report is read by (text_input): NUL bytes refused, the whole file at most 64 MiB.
inline text_input::rules lvs_report_rules() {
    text_input::rules rules;
    rules.max_line = std::size_t{1} << 26;
    rules.too_long = "over 64 MiB (not an lvs report of one host)";
    rules.nul = "a NUL byte (not an lvs report)";
    rules.not_a = "an lvs report";
    return rules;
}

/// The thin pools in the lvs report `in` for `option` (--lvs): those named by `select` ("POOL", "VG/POOL", or "VG"
/// for every thin pool of the VG), or every thin pool of the report, in the report's order. Usage errors: not JSON,
/// not an lvs report, fields missing or sizes not in bytes (all named in one message, with the lvs command to run),
/// no such pool. An inactive pool (no Data% and Meta%) is returned with `active` false.
inline std::vector<lvs_pool> read_lvs_pools(text_input& in, const std::string& option, const std::string& select = "") {
    std::string file;
    const nlohmann::json doc = lvs_detail::parse_report(in, option, file);
    std::vector<const nlohmann::json*> rows;
    for (const nlohmann::json& report : doc["report"]) {
        if (!report.is_object() || !report.contains("lv") || !report["lv"].is_array()) continue;
        for (const nlohmann::json& row : report["lv"])
            if (row.is_object()) rows.push_back(&row);
    }
    std::vector<std::string> names, chosen_names;  // every thin pool's VG/POOL, and the chosen ones'
    std::vector<const nlohmann::json*> chosen;
    for (const nlohmann::json* row : rows) {
        if (!lvs_detail::is_thin_pool(*row)) continue;
        const auto text = [&](const char* f) {
            return row->contains(f) ? lvs_detail::field_text((*row)[f]) : std::string();
        };
        names.push_back(text("vg_name") + "/" + text("lv_name"));
        if (!select.empty() && select != text("lv_name") && select != names.back() && select != text("vg_name"))
            continue;
        chosen.push_back(row);
        chosen_names.push_back(names.back());
    }
    lvs_detail::check_fields(rows, file, chosen.size() == 1 ? chosen_names.front() : std::string());
    std::string listed;
    for (const std::string& n : names) listed += (listed.empty() ? "" : ", ") + n;
    if (chosen.empty())
        throw usage_error(file +
                          (select.empty() ? "no thin pool in the report"
                                          : "no thin pool " + args::printable(select) + " in the report") +
                          (listed.empty() ? "" : " (thin pools: " + listed + ")"));
    std::vector<lvs_pool> pools;
    for (const nlohmann::json* row : chosen) pools.push_back(lvs_detail::pool_of(*row, file));
    return pools;
}

/// The thin pool in the lvs report `in` for `option` (--lvs): the one named by `select` ("POOL" or "VG/POOL"), or
/// the report's only thin pool (read_lvs_pools). Usage errors: read_lvs_pools', and several pools to choose from.
inline lvs_pool read_lvs_report(text_input& in, const std::string& option, const std::string& select = "") {
    std::vector<lvs_pool> pools = read_lvs_pools(in, option, select);
    if (pools.size() > 1) {
        std::string listed;
        for (const lvs_pool& p : pools) listed += (listed.empty() ? "" : ", ") + p.vg + "/" + p.name;
        throw usage_error(option + ": " + in.shown() + ": " + std::to_string(pools.size()) +
                          " thin pools in the report (" + listed + "): name one with --lvs-pool VG/POOL");
    }
    return pools.front();
}

/// The thin pools in the lvs report at `path` ("-": stdin), as read_lvs_pools(text_input&, ...) reads them.
inline std::vector<lvs_pool> read_lvs_pools(const std::string& path, const std::string& option,
                                            const std::string& select = "") {
    text_input in(path, option, lvs_report_rules());
    return read_lvs_pools(in, option, select);
}

/// The thin pool in the lvs report at `path` ("-": stdin), as read_lvs_report(text_input&, ...) reads it.
inline lvs_pool read_lvs_report(const std::string& path, const std::string& option, const std::string& select = "") {
    text_input in(path, option, lvs_report_rules());
    return read_lvs_report(in, option, select);
}

}  // namespace provpol::cli

#endif  // PROVPOL_CLI_LVS_REPORT_HPP
