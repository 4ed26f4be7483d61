// Lists of latency specs ("vdsm-polling-2022,vdsm-log:a.log,fixed:3"): one parser for every option that takes
// them (plan's, recommend's and capacity's --latency, latency's --profile). A comma separates specs, but a file
// spec (vdsm-log:FILE, samples:FILE, flow:FILE) may hold commas in its file name: its name runs on through the
// comma-separated pieces that do not start another spec (a built-in profile, fixed:SECONDS or a file spec).
#ifndef PROVPOL_CLI_SPEC_LIST_HPP
#define PROVPOL_CLI_SPEC_LIST_HPP

#include "cli.hpp"

#include <provpol/flow/latency.hpp>

#include <string>
#include <vector>

namespace provpol::cli {

/// The specs' prefixes that name a file.
inline bool is_file_spec(const std::string& s) {
    for (const char* p : {"vdsm-log:", "samples:", "flow:"})
        if (s.rfind(p, 0) == 0) return true;
    return false;
}

/// True when `s` starts a spec of its own: a built-in profile, fixed:SECONDS or a file spec.
inline bool starts_spec(const std::string& s) {
    if (is_file_spec(s) || s.rfind("fixed:", 0) == 0) return true;
    for (const std::string& n : names_of_list(latency_profile_names))
        if (s == n) return true;
    return false;
}

/// One option value split into specs, as the header says ("vdsm-log:a,b.log" stays one spec when "b.log" is not
/// a spec; "vdsm-log:a.log,vdsm-polling-2022" is two).
inline std::vector<std::string> split_specs(const std::string& v) {
    std::vector<std::string> out;
    bool in_file = false;
    std::size_t start = 0;
    for (;;) {
        const std::size_t comma = v.find(',', start);
        const std::string piece = v.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
        if (in_file && !starts_spec(piece)) {
            out.back() += "," + piece;
        } else {
            out.push_back(piece);
            in_file = is_file_spec(piece);
        }
        if (comma == std::string::npos) return out;
        start = comma + 1;
    }
}

/// A plain comma-separated list ("400MiB/s,800MiB/s").
inline std::vector<std::string> split_commas(const std::string& v) {
    std::vector<std::string> out;
    std::size_t start = 0;
    for (;;) {
        const std::size_t comma = v.find(',', start);
        out.push_back(v.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
        if (comma == std::string::npos) return out;
        start = comma + 1;
    }
}

/// The specs of every value of `option` given.
inline std::vector<std::string> spec_list(const args& a, std::string_view option) {
    std::vector<std::string> out;
    for (const std::string& v : a.values(option, false))
        for (std::string& s : split_specs(v)) out.push_back(std::move(s));
    return out;
}

}  // namespace provpol::cli

#endif  // PROVPOL_CLI_SPEC_LIST_HPP
