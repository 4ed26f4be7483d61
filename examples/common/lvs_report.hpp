// --lvs FILE: a thin pool as `lvs --reportformat json` reports it, so that an operator plans the pool they have
// instead of retyping it. The report must hold the fields below in bytes (lvs_command):
//   lvs --reportformat json --units b --nosuffix
//       -o
//       lv_name,vg_name,segtype,lv_size,data_percent,lv_metadata_size,metadata_percent,chunk_size,vg_free,vg_extent_size
// (a B suffix, as --units b without --nosuffix prints, is read too; lvs's default units round, "<168.00m", and
// are refused with that command). lvm2's "json" format writes every value as a string; "json_std" (lvm2 2.03.17
// and later) writes numbers as numbers: both are read. Data% and Meta% are lvs's own two-decimal percents. The
// JSON is read with nlohmann-json (header-only: the CLI keeps no runtime dependency).
#ifndef PROVPOL_CLI_LVS_REPORT_HPP
#define PROVPOL_CLI_LVS_REPORT_HPP

#include "cli.hpp"
#include "input.hpp"

#include <provpol/bytes.hpp>

#include <nlohmann/json.hpp>

#include <cctype>
#include <cstdint>
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

/// The thin pool in the lvs report at `path` ("-": stdin) for `option` (--lvs): the one named by `select` ("POOL"
/// or "VG/POOL"), or the report's only thin pool. Usage errors: not JSON, not an lvs report, a field missing (the
/// message gives the lvs command to run), sizes not in bytes, no such pool or several to choose from.
inline lvs_pool read_lvs_report(const std::string& path, const std::string& option, const std::string& select = "") {
    text_input::rules rules;
    rules.max_line = std::size_t{1} << 26;
    rules.too_long = "over 64 MiB (not an lvs report of one host)";
    rules.nul = "a NUL byte (not an lvs report)";
    rules.not_a = "an lvs report";
    text_input in(path, option, rules);
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
    const std::string file = option + ": " + in.shown() + ": ";
    // Only what an lvs report holds is kept while parsing ({"report": [{"lv": [{field: value}]}]}): anything else,
    // deeper, or empty is dropped as it is read, so that memory stays a small multiple of the rows' text whatever
    // the file holds (a file of millions of {} costs nothing).
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
    text.clear();
    text.shrink_to_fit();
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
            if (!select.empty() && select != p.name && select != names.back()) continue;
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
    if (pools.size() > 1)
        throw usage_error(file + std::to_string(pools.size()) + " thin pools in the report (" + listed +
                          "): name one with --lvs-pool VG/POOL");
    return pools.front();
}

}  // namespace provpol::cli

#endif  // PROVPOL_CLI_LVS_REPORT_HPP
