// The CLI's --latency option: a built-in profile (provpol::latency_profile), samples:FILE, measured extend
// times in seconds, one per line (blank lines, '#' comments and a "seconds" header are skipped), or
// vdsm-log:FILE, a flow model fitted to VDSM's extend completion lines (provpol/fit/vdsm_log.hpp; FILE "-" is stdin),
// or flow:FILE, a flow written as JSON (flow_file.hpp). The files are read through text_input.
#ifndef PROVPOL_CLI_LATENCY_OPTION_HPP
#define PROVPOL_CLI_LATENCY_OPTION_HPP

#include "cli.hpp"
#include "config_input.hpp"
#include "flow_file.hpp"
#include "input.hpp"

#include <provpol/fit/vdsm_log.hpp>
#include <provpol/flow/latency.hpp>
#include <provpol/flow/vdsm_settings.hpp>
#include <provpol/parse.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <sys/stat.h>

namespace provpol::cli {

/// Every --latency spec, for help texts.
inline const std::string latency_spec_names =
    std::string(latency_profile_names) + ", samples:FILE, vdsm-log:FILE, flow:FILE";

/// A VDSM log read line by line: each stage's samples (kept here: the library allocates nothing), and what
/// was skipped.
struct vdsm_log_read {
    std::vector<seconds> stage[vdsm_stage_count];
    std::vector<vdsm_fit_sample> extends;  ///< each extend line as the fit reads it, its vmId numbered
    std::size_t files = 0;                 ///< files read
    std::size_t lines = 0;                 ///< lines read
    std::size_t extend_lines = 0;          ///< valid extend completion lines
    std::size_t malformed = 0;             ///< extend completion lines that could not be read
    std::size_t first_malformed = 0;       ///< the first one's line number
    std::string first_reason;              ///< and why

    /// Views of the samples for the library (vdsm_stage_stats reads them).
    vdsm_log_samples samples() const {
        vdsm_log_samples s;
        for (std::size_t i = 0; i < vdsm_stage_count; ++i) {
            s.data[i] = stage[i].data();
            s.count[i] = stage[i].size();
        }
        return s;
    }
};

namespace vdsm_log_detail {

// The timestamp a VDSM log line starts with ("2022-03-23 03:57:59,502"), or "" (logging's asctime: it sorts as
// text within one host's logs).
inline std::string stamp_of(const std::string& line) {
    if (line.size() < 23 || line[4] != '-' || line[7] != '-' || line[10] != ' ' || line[13] != ':' || line[19] != ',')
        return "";
    return line.substr(0, 23);
}

// One log file's lines into `r` (see read_vdsm_logs); `first` and `last` get its first and last timestamps.
inline void read_one_log(const std::string& path, const std::string& option, vdsm_log_read& r,
                         std::map<std::string, std::uint64_t, std::less<>>& vm_numbers, std::string& first,
                         std::string& last) {
    text_input::rules rules;
    rules.max_line = std::size_t{1} << 20;
    rules.not_a = "a VDSM log";
    rules.decompress = true;
    rules.max_bytes = std::uint64_t{4} << 30;
    text_input in(path, option, rules);
    // A binary file is refused at once, from its first block: a NUL byte in its first line, or NUL among more than
    // 5% of control bytes (a crash may leave a run of NUL bytes inside a log; those lines are no extend lines, and
    // are skipped).
    const std::string head = in.peek(text_input::block_size);
    if (const std::size_t nul = head.find('\0'); nul != std::string::npos) {
        std::size_t control = 0;
        for (char c : head)
            control += (static_cast<unsigned char>(c) < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0x7f;
        if (head.find('\n') > nul || control * 20 > head.size())
            throw usage_error(option + ": " + in.shown() + " is binary (a NUL byte at offset " + std::to_string(nul) +
                              (in.decompressor().empty() ? "" : " once decompressed") + "): not a VDSM log");
    }
    std::string line;
    while (in.next(line)) {
        ++r.lines;
        if (const std::string st = stamp_of(line); !st.empty()) {
            if (first.empty()) first = st;
            last = st;
        }
        const auto rec = parse_vdsm_extend_line(line);
        if (!rec) {
            if (r.malformed++ == 0) {
                r.first_malformed = r.lines;
                r.first_reason = std::string(rec.error().message().view()) +
                                 (r.files > 1 ? " (" + in.shown() + " line " + std::to_string(in.line()) + ")" : "");
            }
            continue;
        }
        if (rec->what == vdsm_extend_record::kind::none) continue;
        ++r.extend_lines;
        for (std::size_t i = 0; i < vdsm_stage_count; ++i)
            if (rec->has(static_cast<vdsm_stage>(i))) r.stage[i].push_back(rec->timers[i]);
        const std::string vm(rec->vm_id.data(), rec->vm_id.size());
        const auto vm_number = vm_numbers.emplace(vm, vm_numbers.size()).first->second;
        r.extends.push_back(vdsm_sample_of(*rec, vm_number));
    }
}

}  // namespace vdsm_log_detail

/// Reads VDSM's extend completion lines from `paths` in order ("-": stdin), each through text_input (a line is cut
/// at 1 MiB): logrotate's rotated logs as they are (vdsm.log.1.xz, .gz: decompressed by their own tool), oldest first
/// (vdsm.log.2.xz vdsm.log.1.xz vdsm.log; a file whose lines start before the previous one's end is said on stderr).
/// A binary file is refused. Malformed extend lines are counted and reported on stderr in one line; no valid extend
/// line is a usage error (exit 2), as are a missing file and a directory.
inline vdsm_log_read read_vdsm_logs(const std::vector<std::string>& paths, const std::string& option,
                                    const std::string& command) {
    if (std::count(paths.begin(), paths.end(), std::string("-")) > 1)
        throw usage_error(option + " - is given more than once: stdin can be read once");
    vdsm_log_read r;
    std::map<std::string, std::uint64_t, std::less<>> vm_numbers;
    std::string previous_last, previous;
    for (const std::string& path : paths) {
        ++r.files;
        std::string first, last;
        vdsm_log_detail::read_one_log(path, option, r, vm_numbers, first, last);
        const std::string shown = path == "-" ? std::string("stdin") : "'" + args::printable(path) + "'";
        if (!first.empty() && !previous_last.empty() && first < previous_last)
            warn("provpol " + command + ": " + option + ": " + shown + " starts (" + first + ") before " + previous +
                 " ends (" + previous_last +
                 "): give the logs oldest first, as logrotate numbers them "
                 "(vdsm.log.2.xz vdsm.log.1.xz vdsm.log)");
        if (!last.empty()) {
            previous_last = last;
            previous = shown;
        }
    }
    const std::string shown = paths.size() == 1
                                  ? (paths[0] == "-" ? std::string("stdin") : "'" + args::printable(paths[0]) + "'")
                                  : "the " + std::to_string(paths.size()) + " logs";
    const std::string first = r.malformed == 0
                                  ? std::string()
                                  : "the first, line " + std::to_string(r.first_malformed) + ": " + r.first_reason;
    if (r.extend_lines == 0) {
        if (r.malformed != 0)
            throw usage_error(option + ": " + shown + " ha" + (paths.size() == 1 ? "s" : "ve") +
                              " no valid extend completion line (" + std::to_string(r.malformed) + " malformed; " +
                              first + ")");
        throw usage_error(option + ": " + shown + " ha" + (paths.size() == 1 ? "s" : "ve") +
                          " no extend completion lines (\"Extend volume ... completed <Clock(...)>\", as VDSM's "
                          "thinp.py logs them)");
    }
    if (r.malformed != 0)
        warn("provpol " + command + ": " + option + ": " + std::to_string(r.malformed) +
             " malformed extend completion lines ignored (" + first + ")");
    return r;
}

/// read_vdsm_logs of one file.
inline vdsm_log_read read_vdsm_log(const std::string& path, const std::string& option, const std::string& command) {
    return read_vdsm_logs({path}, option, command);
}

/// A VDSM log, its statistics per stage and the flow model fitted to it.
struct vdsm_log_model {
    vdsm_log_read log;
    vdsm_stage_statistics stats[vdsm_stage_count];
    result<vdsm_log_fit> fit = unexpected(error::unsupported("vdsm log", "not fitted"));
};

/// Reads VDSM's logs (see read_vdsm_logs), their statistics and the fit; the fit may fail or not explain the log
/// (the caller says so).
inline vdsm_log_model load_vdsm_logs(const std::vector<std::string>& paths, const std::string& option,
                                     const std::string& command) {
    vdsm_log_model m;
    m.log = read_vdsm_logs(paths, option, command);
    for (std::size_t i = 0; i < vdsm_stage_count; ++i)
        m.stats[i] = vdsm_stage_stats(m.log.stage[i].data(), m.log.stage[i].size());
    m.fit = fit_vdsm_log(m.log.extends.data(), m.log.extends.size());
    return m;
}
/// load_vdsm_logs of one file.
inline vdsm_log_model load_vdsm_log(const std::string& path, const std::string& option, const std::string& command) {
    return load_vdsm_logs({path}, option, command);
}

/// Why a fit that exists does not explain its log, in one line: the verdict and its evidence (fit/vdsm_log_judge.hpp).
inline std::string unexplained_reason(const vdsm_log_fit& f) {
    return "no mailbox mode explains the log: " + vdsm_verdict_text(f);
}

/// The fitted flow of a VDSM log, for --latency vdsm-log:FILE: a log no mode explains is a usage error.
inline const vdsm_log_fit& fitted_vdsm_log(const vdsm_log_model& m, const std::string& option) {
    if (!m.fit) throw usage_error(option + ": " + std::string(m.fit.error().message().view()));
    if (!m.fit->explained)
        throw usage_error(option + ": " + unexplained_reason(*m.fit) +
                          "; give its round trips as samples:FILE, or write a flow:FILE");
    return *m.fit;
}

/// A latency model from a --latency spec (a built-in profile, samples:FILE or vdsm-log:FILE); errors name
/// `option`.
inline latency_model latency_spec(const std::string& spec, const std::string& option, const std::string& command) {
    if (spec.rfind("vdsm-log:", 0) == 0) {
        const vdsm_log_model m = load_vdsm_log(spec.substr(9), option, command);
        return fitted_vdsm_log(m, option).model;
    }
    if (spec.rfind("flow:", 0) == 0) return read_flow_file(spec.substr(5), option);
    if (spec.rfind("samples:", 0) == 0) {
        const std::string path = spec.substr(8);
        if (path.empty()) throw usage_error(option + ": samples: needs a file name (samples:FILE)");
        text_input::rules rules;
        rules.max_line = 4096;
        rules.too_long = rules.nul = "not a text file of seconds, one per line";
        rules.not_a = "a file of seconds";
        rules.dash_is_stdin = false;
        text_input in(path, option, rules);
        std::vector<seconds> samples;
        std::string line;
        while (in.next(line)) {
            std::size_t start = 0, end = line.size();
            while (end > 0 && (line[end - 1] == '\r' || line[end - 1] == ' ' || line[end - 1] == '\t')) --end;
            while (start < end && (line[start] == ' ' || line[start] == '\t')) ++start;
            const std::string v = line.substr(start, end - start);
            if (v.empty() || v[0] == '#' || (in.line() == 1 && v == "seconds")) continue;
            const auto r = parse_decimal(v, "", 0.0, 1e5);
            if (!r) throw usage_error(in.where() + std::string(r.error().message().view()));
            samples.push_back(seconds(*r));
        }
        if (samples.empty()) throw usage_error(option + ": " + args::printable(path) + " has no samples");
        const auto e = empirical_latency::make(samples.data(), samples.size());
        if (!e) fail(e.error(), option.c_str());
        return *e;
    }
    const auto p = latency_profile(spec);
    if (!p) {
        const provpol::error& e = p.error();
        if (e.code() != errc::unknown_name) fail(e, option.c_str());
        // Every form --help lists, and for the name of a file that exists, the forms that read a file.
        std::string m = option + ": unknown value '" + args::printable(spec) + "': expected " +
                        std::string(e.detail().data(), e.detail().size()) + ", samples:FILE, vdsm-log:FILE, flow:FILE";
        struct stat st {};
        if (!spec.empty() && ::stat(spec.c_str(), &st) == 0)
            m += " (" + args::printable(spec) + " is a file: vdsm-log:" + args::printable(spec) +
                 " fits VDSM's log, samples:" + args::printable(spec) +
                 " reads seconds one per line, flow:" + args::printable(spec) + " a flow in JSON)";
        else
            m += did_you_mean(spec, names_of_list(std::string_view(e.detail().data(), e.detail().size())));
        throw usage_error(m);
    }
    return *p;
}

/// Reads --latency (default `fallback`: the agent's vdsm-polling-2022; plan, capacity and recommend take
/// vdsm_latency_option).
inline latency_model latency_option(const args& a, const char* fallback = "vdsm-polling-2022") {
    return latency_spec(a.value("--latency").value_or(fallback), "--latency", a.command());
}

/// The latency plan, capacity and recommend run with when neither --latency nor --config says otherwise: what VDSM
/// 4.50's last release runs with its defaults (mailbox events on since v4.50.0.11, the extend on the block-threshold
/// event since 4.50.1.1: flow/vdsm_settings.hpp, which is this profile with VDSM's defaults).
inline constexpr const char* default_vdsm_latency = "vdsm-immediate";

/// A latency and the name the output gives it.
struct named_latency {
    latency_model model;
    std::string name;
};

/// The latency of VDSM's flow as `settings` make it, named after vdsm-immediate and the settings that differ from
/// VDSM 4.50's defaults ("vdsm-immediate(events_enable=false)"); errors name `option`.
inline named_latency vdsm_settings_latency(const vdsm_flow_settings& settings, const std::string& option) {
    const auto f = vdsm_flow_latency(settings);
    if (!f) fail(f.error(), option.c_str());
    const vdsm_flow_settings d{};
    std::string changed;
    const auto add = [&changed](const std::string& s) { changed += (changed.empty() ? "" : ",") + s; };
    if (settings.events_enable != d.events_enable) add("events_enable=false");
    if (settings.events_enable && settings.events_interval != d.events_interval)
        add("events_interval=" + decimal_text(settings.events_interval.count()));
    if (settings.extend_timeout != d.extend_timeout)
        add("extend_timeout=" + decimal_text(settings.extend_timeout.count()));
    return {*f, std::string(default_vdsm_latency) + (changed.empty() ? "" : "(" + changed + ")")};
}

/// --latency, or the flow --config's VDSM files set (`flow`), or default_vdsm_latency; what it chose is said in
/// the output (the name) and, when a file sets one of the flow's settings, on stderr with where each value came from.
inline named_latency vdsm_latency_option(const args& a, const std::optional<vdsm_flow_reading>& flow) {
    if (const auto spec = a.value("--latency")) {
        if (flow && flow->set_by_file)
            warn("provpol " + a.command() + ": --latency " + args::printable(*spec) +
                 ": the extend flow --config's [mailbox] and [thinp] settings give is not used");
        return {latency_spec(*spec, "--latency", a.command()), *spec};
    }
    if (!flow) return {latency_spec(default_vdsm_latency, "--latency", a.command()), default_vdsm_latency};
    named_latency l = vdsm_settings_latency(flow->settings, "--config");
    if (flow->set_by_file)  // else it is the default flow, which the output names
        warn("provpol " + a.command() + ": --config: latency " + l.name + ": VDSM 4.50's extend flow with " +
             flow->sources);
    return l;
}

/// A one-line description of a latency model for reports: "mean 3.7 s, 99th percentile 5.93 s, max 6.9 s", and the
/// share of requests that stall when the model is a flow with stalls (a VDSM log's, fit/vdsm_log_stalls.hpp).
inline std::string describe(const latency_model& l) {
    char buf[200];
    const double stalls = l.is_flow() ? l.flow().stall_probability() : 0.0;
    const int n = std::snprintf(buf, sizeof buf, "mean %.3g s, median %.3g s, 99th percentile %.3g s, max %.3g s",
                                l.mean().count(), l.quantile(0.5).count(), l.quantile(0.99).count(), l.max().count());
    if (stalls > 0.0 && n > 0 && static_cast<std::size_t>(n) < sizeof buf)
        (void)std::snprintf(buf + n, sizeof buf - static_cast<std::size_t>(n), ", %.3g%% of extends stalled",
                            100.0 * stalls);
    return buf;
}

}  // namespace provpol::cli

#endif  // PROVPOL_CLI_LATENCY_OPTION_HPP
