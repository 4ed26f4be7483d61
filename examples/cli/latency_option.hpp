// The CLI's --latency option: a built-in profile (provpol::latency_profile) or samples:FILE, measured extend
// times in seconds, one per line (blank lines, '#' comments and a "seconds" header are skipped).
#ifndef PROVPOL_CLI_LATENCY_OPTION_HPP
#define PROVPOL_CLI_LATENCY_OPTION_HPP

#include "cli.hpp"

#include <provpol/latency.hpp>
#include <provpol/parse.hpp>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace provpol::cli {

/// Reads --latency (default vdsm-polling-2022).
inline latency_model latency_option(const args& a) {
    const std::string spec = a.value("--latency").value_or("vdsm-polling-2022");
    if (spec.rfind("samples:", 0) == 0) {
        const std::string path = spec.substr(8);
        if (path.empty()) throw usage_error("--latency: samples: needs a file name (samples:FILE)");
        std::FILE* f = std::fopen(path.c_str(), "rb");
        if (f == nullptr)
            throw usage_error("--latency: cannot open '" + args::printable(path) + "': " + std::strerror(errno));
        std::vector<double> seconds;
        std::string line;
        std::size_t line_no = 0;
        int c = 0;
        auto flush = [&]() {
            ++line_no;
            while (!line.empty() && (line.back() == '\r' || line.back() == ' ' || line.back() == '\t')) line.pop_back();
            std::size_t start = 0;
            while (start < line.size() && (line[start] == ' ' || line[start] == '\t')) ++start;
            const std::string v = line.substr(start);
            line.clear();
            if (v.empty() || v[0] == '#' || (line_no == 1 && v == "seconds")) return;
            const auto r = parse_decimal(v, "", 0.0, 1e5);
            if (!r) {
                std::fclose(f);
                throw usage_error("--latency: " + args::printable(path) + ":" + std::to_string(line_no) + ": " +
                                  std::string(r.error().message().view()));
            }
            seconds.push_back(*r);
        };
        while ((c = std::fgetc(f)) != EOF) {
            if (c == '\n') {
                flush();
                continue;
            }
            if (c == '\0' || line.size() > 4096) {
                std::fclose(f);
                throw usage_error("--latency: " + args::printable(path) + ":" + std::to_string(line_no + 1) +
                                  ": not a text file of seconds, one per line");
            }
            line.push_back(static_cast<char>(c));
        }
        if (!line.empty()) flush();
        std::fclose(f);
        if (seconds.empty()) throw usage_error("--latency: " + args::printable(path) + " has no samples");
        const auto e = empirical_latency::make(seconds.data(), seconds.size());
        if (!e) fail(e.error(), "--latency");
        return *e;
    }
    const auto p = latency_profile(spec);
    if (!p) fail(p.error(), "--latency");
    return *p;
}

/// A one-line description of a latency model for reports: "mean 3.7 s, 99th percentile 5.93 s, max 6.9 s".
inline std::string describe(const latency_model& l) {
    char buf[160];
    std::snprintf(buf, sizeof buf, "mean %.3g s, median %.3g s, 99th percentile %.3g s, max %.3g s", l.mean(),
                  l.quantile(0.5), l.quantile(0.99), l.max());
    return buf;
}

}  // namespace provpol::cli

#endif  // PROVPOL_CLI_LATENCY_OPTION_HPP
