// --lvs FILE: a thin pool as `lvs --reportformat json` reports it, so that an operator plans the pool they have
// instead of retyping it. The report must hold the fields below in bytes (lvs_command):
//   lvs --reportformat json --units b --nosuffix
//       -o
//       lv_name,vg_name,segtype,lv_size,data_percent,lv_metadata_size,metadata_percent,chunk_size,vg_free,vg_extent_size
// (a B suffix, as --units b without --nosuffix prints, is read too; lvs's default units round, "<168.00m", and
// are refused with that command). lvm2's "json" format writes every value as a string; "json_std" (lvm2 2.03.17
// and later) writes numbers as numbers: both are read. Data% and Meta% are lvs's own two-decimal percents. The
// JSON is read with nlohmann-json (header-only: the CLI keeps no runtime dependency). A Data% or Meta% stands for
// every usage lvs prints so (lvs_shown_hundredths): plan and recommend take the most of them (lvs_percent_worst).
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

/// The lvs command whose output --lvs reads.
inline constexpr const char* lvs_command =
    "lvs --reportformat json --units b --nosuffix -o "
    "lv_name,vg_name,segtype,lv_size,data_percent,lv_metadata_size,metadata_percent,chunk_size,vg_free,"
    "vg_extent_size VG/POOL";

/// One thin pool of an lvs report.
struct lvs_pool {
    std::string vg, name;
    bytes size;                    ///< lv_size: the pool's data size
    std::string data_percent;      ///< data_percent as lvs prints it ("59.52")
    bytes metadata_size;           ///< lv_metadata_size
    std::string metadata_percent;  ///< metadata_percent ("11.62")
    bytes chunk;                   ///< chunk_size: the pool's chunk
    bytes vg_free;                 ///< vg_free: the VG's free space
    bytes extent;                  ///< vg_extent_size
};

namespace lvs_detail {

inline std::string field_text(const nlohmann::json& v) {
    if (v.is_string()) return v.get<std::string>();
    if (v.is_number_unsigned()) return std::to_string(v.get<std::uint64_t>());
    if (v.is_number_integer()) return std::to_string(v.get<std::int64_t>());
    if (v.is_number_float()) return v.dump();
    return "";
}

// A size field in bytes: digits, with an optional B suffix (--units b without --nosuffix).
inline bytes size_field(const nlohmann::json& row, const char* name, const std::string& where) {
    std::string t = field_text(row.at(name));
    if (!t.empty() && (t.back() == 'B' || t.back() == 'b')) t.pop_back();
    bool digits = !t.empty() && t.size() <= 19;
    for (const char c : t) digits = digits && std::isdigit(static_cast<unsigned char>(c)) != 0;
    if (!digits)
        throw usage_error(where + name + " is '" + args::printable(field_text(row.at(name))) +
                          "', not a byte count (lvs's default units round): run " + lvs_command);
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

/// The thin pools in the lvs report at `path` ("-": stdin) for `option` (--lvs): those named by `select` ("POOL",
/// "VG/POOL", or "VG" for every thin pool of the VG), or every thin pool of the report, in the report's order.
/// Usage errors: not JSON, not an lvs report, a field missing (the message gives the lvs command to run), sizes not
/// in bytes, no such pool.
inline std::vector<lvs_pool> read_lvs_pools(const std::string& path, const std::string& option,
                                            const std::string& select = "") {
    text_input::rules rules;
    rules.max_line = std::size_t{1} << 24;
    rules.too_long = "a line longer than 16 MiB";
    rules.nul = "a NUL byte (not an lvs report)";
    rules.not_a = "an lvs report";
    text_input in(path, option, rules);
    std::string text, line;
    while (in.next(line)) {
        if (text.size() > (std::size_t{1} << 26)) throw usage_error(option + ": " + in.shown() + " is over 64 MiB");
        text += line;
        text += '\n';
    }
    const std::string file = option + ": " + in.shown() + ": ";
    nlohmann::json doc;
    try {
        doc = nlohmann::json::parse(text);
    } catch (const nlohmann::json::exception& e) {
        throw usage_error(file + "not JSON (" + std::string(e.what()) + "); run " + lvs_command);
    }
    if (!doc.is_object() || !doc.contains("report") || !doc["report"].is_array())
        throw usage_error(file + "not an lvs report (no \"report\" array); run " + lvs_command);
    static const char* const fields[] = {"lv_name",      "vg_name",          "segtype",          "lv_size",
                                         "data_percent", "lv_metadata_size", "metadata_percent", "chunk_size",
                                         "vg_free",      "vg_extent_size"};
    std::vector<lvs_pool> pools;
    std::vector<std::string> names;
    for (const nlohmann::json& report : doc["report"]) {
        if (!report.is_object() || !report.contains("lv") || !report["lv"].is_array()) continue;
        for (const nlohmann::json& row : report["lv"]) {
            if (!row.is_object()) continue;
            for (const char* f : fields)
                if (!row.contains(f)) throw usage_error(file + "the report has no " + f + " field; run " + lvs_command);
            if (lvs_detail::field_text(row["segtype"]) != "thin-pool") continue;
            lvs_pool p;
            p.vg = lvs_detail::field_text(row["vg_name"]);
            p.name = lvs_detail::field_text(row["lv_name"]);
            names.push_back(p.vg + "/" + p.name);
            if (!select.empty() && select != p.name && select != names.back() && select != p.vg) continue;
            const std::string where = file + names.back() + ": ";
            p.size = lvs_detail::size_field(row, "lv_size", where);
            p.data_percent = lvs_detail::percent_field(row, "data_percent", where);
            p.metadata_size = lvs_detail::size_field(row, "lv_metadata_size", where);
            p.metadata_percent = lvs_detail::percent_field(row, "metadata_percent", where);
            p.chunk = lvs_detail::size_field(row, "chunk_size", where);
            p.vg_free = lvs_detail::size_field(row, "vg_free", where);
            p.extent = lvs_detail::size_field(row, "vg_extent_size", where);
            pools.push_back(p);
        }
    }
    std::string listed;
    for (const std::string& n : names) listed += (listed.empty() ? "" : ", ") + n;
    if (pools.empty())
        throw usage_error(file +
                          (select.empty() ? "no thin pool in the report"
                                          : "no thin pool " + args::printable(select) + " in the report") +
                          (listed.empty() ? "" : " (thin pools: " + listed + ")"));
    return pools;
}

/// The thin pool in the lvs report at `path` for `option`: the one named by `select` ("POOL" or "VG/POOL"), or the
/// report's only thin pool (read_lvs_pools). Usage errors: read_lvs_pools', and several pools to choose from.
inline lvs_pool read_lvs_report(const std::string& path, const std::string& option, const std::string& select = "") {
    const std::vector<lvs_pool> pools = read_lvs_pools(path, option, select);
    if (pools.size() > 1) {
        std::string listed;
        for (const lvs_pool& p : pools) listed += (listed.empty() ? "" : ", ") + p.vg + "/" + p.name;
        throw usage_error(option + ": " + (path == "-" ? std::string("stdin") : "'" + args::printable(path) + "'") +
                          ": " + std::to_string(pools.size()) + " thin pools in the report (" + listed +
                          "): name one with --lvs-pool VG/POOL");
    }
    return pools.front();
}

}  // namespace provpol::cli

#endif  // PROVPOL_CLI_LVS_REPORT_HPP
