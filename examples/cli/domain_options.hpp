// The options `provpol plan` and `provpol capacity` share: the configurations under test and the writers' workload
// in a storage domain (--stagger, --burst, --trace).
#ifndef PROVPOL_CLI_DOMAIN_OPTIONS_HPP
#define PROVPOL_CLI_DOMAIN_OPTIONS_HPP

#include "common/cli.hpp"
#include "common/config_input.hpp"
#include "common/csv.hpp"
#include "plan.hpp"

#include <provpol/domain/workload.hpp>
#include <provpol/extend.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace provpol::cli {

// --config FILE|DIR, given once or more (as extend reads it): recommend's answer alone, or vdsm.conf and its
// drop-ins (or VDSM's directory) read in layers as vdsmd reads them, over VDSM 4.50's defaults; which file set
// each value, and the settings VDSM does not have, go to stderr as "provpol COMMAND: --config: ...". Nothing when
// --config is not given.
inline std::optional<config_reading> config_files_option(const args& a, const char* command) {
    const std::vector<std::string> paths = a.values("--config", false);
    if (paths.empty()) return std::nullopt;
    if (std::count(paths.begin(), paths.end(), std::string("-")) > 0 && a.value("--trace") == std::string("-"))
        throw usage_error("--config - and --trace - both read stdin: give one of them a file");
    config_reading read = read_config_files(paths, "--config");
    const std::string prefix = std::string("provpol ") + command + ": --config: ";
    for (const std::string& n : read.notes) warn(prefix + n);
    if (!read.sources.empty()) warn(prefix + read.sources);
    return read;
}

// --policy static|rate-aware|rate-aware-adaptive (repeatable) x --preset ... (repeatable), --chunk/--percent or
// --config's configurations (`read`).
inline std::vector<plan_config> configs_option(const args& a, const std::optional<config_reading>& read) {
    std::vector<std::pair<std::string, vdsm_config>> presets;
    for (const std::string& p : a.values("--preset")) presets.push_back({p, vdsm_preset_option(p)});
    if (a.has("--chunk") || a.has("--percent")) {
        if (!a.has("--chunk") || !a.has("--percent")) throw usage_error("--chunk and --percent go together");
        const auto cfg = vdsm_config::make(*a.size_at_least("--chunk", bytes(std::uint64_t{1} << 20), "MiB"),
                                           *a.count("--percent", 0, 99));
        if (!cfg) fail(cfg.error(), "--chunk");
        presets.push_back({config_label(*cfg), *cfg});
    }
    if (read)
        for (const config_entry& e : read->entries) presets.push_back({config_label(e.config), e.config});
    return policy_configs(a.values("--policy"), presets);
}

// The monitor interval of the host's periodic watermark check: --config's [vars] vm_watermark_interval, or VDSM's
// 2 s (the simulator's workload::monitor_interval, used when the latency extends on the threshold event).
inline seconds monitor_interval_of(const std::optional<config_reading>& read) {
    return read && read->flow ? read->flow->watermark_interval : seconds(2);
}

// The longest a domain workload may take to start or to follow its trace: the domain runs 1e8 simulated seconds
// at most, and a writer needs room to write after its start.
constexpr double max_workload_seconds = 1e7;

// --trace FILE: the CSV time_s,bytes_written every writer follows, checked point by point (an error names the file,
// the line and the value), or nothing. A point above --capacity, when given, is an error on its line.
inline std::vector<trace_point> trace_option(const args& a) {
    const auto path = a.value("--trace");
    if (!path) return {};
    if (a.has("--rate")) throw usage_error("--rate does not apply with --trace: the trace gives the rates");
    for (const char* o : {"--write", "--duration"})
        if (a.has(o))
            throw usage_error(std::string(o) +
                              " does not apply with --trace: each writer writes the trace's last bytes_written");
    if (a.has("--burst")) throw usage_error("give --burst or --trace, not both: a trace has its own rates and pauses");
    const bytes capacity = a.size("--capacity").value_or(bytes(~std::uint64_t{0}));
    const std::string shown = *path == "-" ? std::string("stdin") : "'" + args::printable(*path) + "'";
    csv_reader in(*path, "--trace", "a CSV trace");
    const std::size_t t = in.column("time_s"), b = in.column("bytes_written");
    std::vector<trace_point> out;
    while (in.next()) {
        if (out.size() >= 1000000) throw usage_error(in.where() + "more than 1000000 points");
        const trace_point p{seconds(in.decimal(t, 0.0, max_workload_seconds)), in.size(b)};
        if (const auto c = check_trace_point(p, out.empty() ? nullptr : &out.back(), capacity); !c)
            throw usage_error(in.where() + std::string(c.error().message().view()));
        out.push_back(p);
    }
    if (out.size() < 2)
        throw usage_error("--trace: " + shown + " has " + std::to_string(out.size()) +
                          (out.size() == 1 ? " point" : " points") + ": a trace needs at least 2");
    if (out.back().written.count() == 0)
        throw usage_error("--trace: " + shown + " writes nothing: its last bytes_written is 0");
    if (out.back().written.count() > (std::uint64_t{1} << 50))
        throw usage_error("--trace: " + shown + " writes " + std::string(format_size(out.back().written).view()) +
                          ": at most 1PiB");
    return out;
}

// A writer's bursts: it writes for `on`, then idles for `off`, in turn (drive_workload::make's burst_on and
// burst_off); both 0 for a writer that never idles.
struct burst_times {
    seconds on = seconds(0);
    seconds off = seconds(0);
};

// --burst ON,OFF: the time of writing and of idling, in turn, each read by parse_seconds as every time option is
// ("60,30", "2s,10s", "1.5min,500ms"), in [0.001, 10000000] s; both 0 when not given.
inline burst_times burst_option(const args& a) {
    const auto v = a.value("--burst");
    if (!v) return {};
    const std::size_t comma = v->find(',');
    if (comma == std::string::npos || v->find(',', comma + 1) != std::string::npos)
        throw usage_error("--burst: expected ON,OFF times (e.g. 60,30 or 2s,10s), got '" + args::printable(*v) + "'");
    seconds out[2] = {seconds(0), seconds(0)};
    for (int i = 0; i < 2; ++i) {
        const std::string part = i == 0 ? v->substr(0, comma) : v->substr(comma + 1);
        const auto r = parse_seconds(part, "--burst", seconds(0.001), seconds(max_workload_seconds));
        if (!r) fail(r.error(), "--burst");
        out[i] = *r;
    }
    return {out[0], out[1]};
}

}  // namespace provpol::cli

#endif  // PROVPOL_CLI_DOMAIN_OPTIONS_HPP
