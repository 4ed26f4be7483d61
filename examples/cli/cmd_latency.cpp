// provpol latency: the extend latency of a model (--profile: min, mean, median, p90, p99, max, all exact), or
// VDSM's own measurements (--vdsm-log: its "Extend volume ... completed <Clock(...)>" lines, per stage, as
// oVirt/vdsm's contrib/extend-stats computes them) with the flow model fitted to them next to them.
#include "common/cli.hpp"
#include "common/latency_option.hpp"
#include "common/spec_list.hpp"
#include "common/table.hpp"

#include <provpol/fit/vdsm_log.hpp>
#include <provpol/flow/latency.hpp>

#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

namespace provpol::cli {

namespace {

const char* const usage_text =
    "provpol latency --profile NAME [--profile NAME...] [--format text|csv|json]\n"
    "       provpol latency --vdsm-log FILE|- ... [--save-flow FILE] [--format text|csv|json]\n\n"
    "--profile: the marginal extend latency of a model (any --latency spec: a built-in profile, fixed:SECONDS,\n"
    "samples:FILE, vdsm-log:FILE, flow:FILE), one row each: min, mean, median, p90, p99 and max, in seconds.\n"
    "--vdsm-log: VDSM's extend completion lines (thinp.py's 'Extend volume ... completed <Clock(...)>'), the same\n"
    "statistics per Clock timer (mean, min and max as contrib/extend-stats computes them), and the flow model\n"
    "fitted to them (which detection and mailbox mode the log shows, each stage's range) next to them;\n"
    "--save-flow writes that flow as a flow:FILE (JSON, see docs/latency.md).\n"
    "The model is given only for a log that shows a mailbox flow: its round trips (extend-volume) on a reply-poll\n"
    "lattice beyond chance (1e-3), no total shorter than its timers, and neither a band of polls one SPM would\n"
    "fill nor a span inside the refresh's or the wait's range left empty (refuted at 1e-6); at most n/50\n"
    "extends (20) are left out as outliers. Extends far beyond the flow are stalls (a stalled lvextend, an\n"
    "overloaded SPM or host): a round trip two polls or more beyond the others', or a refresh, wait or time outside\n"
    "the timers a poll or more beyond, where one flow would leave that span empty with chance 1e-6 or less; at\n"
    "most a tenth of the extends. They are counted and shown (columns stalls, stall_min_s, stall_max_s), left out\n"
    "of the flow's fit and of the checks below, and modelled beside the flow: an extend stalls with their share,\n"
    "adding one stall's time. Otherwise stderr says which and why, the statistics are still\n"
    "printed, and --save-flow and --latency vdsm-log:FILE refuse the log. A log of fewer extends than the\n"
    "lattice needs (6 at 2 s polls, 9 at 0.5 s, never 1 to 3) is too short to tell. On VDSM-like logs of 400\n"
    "extends (one VM or many, events on or off, dispatch at once, a loaded SPM) the model's mean, median, p90,\n"
    "p99 and max are within 10% of the flow's, or of a value within one log's sampling error (docs/latency.md).";

// A real for the output: in CSV and JSON the shortest text that reads back as the same double (cell's 0 digits); in
// the text table, 4 significant digits.
cell real(seconds v, format f) { return cell::of_seconds(v, f == format::text ? 4 : 0); }

// A time for prose, in seconds: 4 significant digits.
std::string seconds_text(seconds v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.4g", v.count());
    return buf;
}
std::string range_text(const vdsm_fitted_range& r) {
    std::string s = seconds_text(r.min) + "-" + seconds_text(r.max) + " s";
    if (r.mean_kept) s += " (skewed: mean kept, " + std::to_string(r.above) + " above)";
    return s;
}

int run_profiles(const args& a, format out) {
    table t({"profile", "min_s", "mean_s", "median_s", "p90_s", "p99_s", "max_s"});
    // "a,b" is two profiles; a file spec's name may hold commas (spec_list.hpp).
    const std::vector<std::string> names = spec_list(a, "--profile");
    for (const std::string& name : names) {
        const latency_model m = latency_spec(name, "--profile", a.command());
        t.add_row({cell::of_text(name), real(m.min(), out), real(m.mean(), out), real(m.quantile(0.5), out),
                   real(m.quantile(0.9), out), real(m.quantile(0.99), out), real(m.max(), out)});
    }
    t.print(stdout, out);
    return 0;
}

// The fit of a VDSM log when it explains the log, else nullptr with the reason said on stderr (the statistics stand
// whatever the fit: a log the fit cannot use, or that no mode explains, keeps its model columns empty); saves the
// flow for --save-flow, which needs a fit.
const vdsm_log_fit* usable_fit(const args& a, const vdsm_log_model& m, const std::optional<std::string>& save) {
    const vdsm_log_fit* fit = m.fit && m.fit->explained ? &*m.fit : nullptr;
    const std::string why = !m.fit           ? std::string(m.fit.error().message().view())
                            : fit == nullptr ? unexplained_reason(*m.fit)
                                             : std::string();
    if (save) {
        if (fit == nullptr) throw usage_error("--save-flow: " + why + "; no flow to save");
        write_flow_file(*save, fit->model, "--save-flow");
    }
    if (fit == nullptr)
        std::fprintf(stderr, "provpol %s: --vdsm-log: %s%s\n", a.command().c_str(), why.c_str(),
                     m.fit ? "; no model fitted" : "");
    return fit;
}

// What the fitted flow is, stage by stage, in words (the table's model column and the notes under it).
struct fit_words {
    std::string wait, trip, refresh;
};

fit_words words_of(const vdsm_log_fit& f) {
    fit_words w;
    w.wait = f.detection == vdsm_detection::monitor
                 ? "watermark monitor every " + seconds_text(f.monitor_period.max) + " s" +
                       (f.monitor_period.mean_kept ? " (skewed: mean kept)" : "")
             : f.detection == vdsm_detection::event ? "event dispatch " + range_text(f.dispatch)
                                                    : "no wait timer: the flow starts at the request";
    w.trip = std::string(f.mailbox_events ? "mailbox events" : "mailbox polling") + ": SPM " +
             (f.mailbox_events ? "event check" : "scan") + " every " + seconds_text(f.spm_cycle) + " s, work " +
             range_text(f.spm_work) + ", reply poll " + seconds_text(f.poll_interval) + " s (" +
             std::to_string(f.polls_min) + " to " + std::to_string(f.polls_max) + "), inbox read " +
             range_text(f.inbox_read);
    w.refresh = "refresh " + range_text(f.refresh);
    return w;
}

// One row per stage: the log's statistics and, where the fit models the stage, the model's.
table vdsm_stage_table(const vdsm_log_model& m, const vdsm_log_fit* fit, const fit_words& w, format out) {
    table t({"stage", "samples", "min_s", "mean_s", "median_s", "p90_s", "p99_s", "max_s", "model_min_s",
             "model_mean_s", "model_max_s", "stalls", "stall_min_s", "stall_max_s", "model"});
    for (std::size_t i = 0; i < vdsm_stage_count; ++i) {
        const auto st = static_cast<vdsm_stage>(i);
        const vdsm_stage_statistics& s = m.stats[i];
        // The four stages extend-stats reports always; the replica and migration stages when the log has them.
        if (s.samples == 0 && i > static_cast<std::size_t>(vdsm_stage::refresh_volume)) continue;
        std::vector<cell> row = {cell::of_text(to_text(st)), cell::of(s.samples)};
        if (s.samples == 0) {
            row.resize(8);
        } else {
            for (seconds v : {s.min, s.mean, s.median, s.p90, s.p99, s.max}) row.push_back(real(v, out));
        }
        const vdsm_stage_fit* sf = fit == nullptr                                                     ? nullptr
                                   : st == vdsm_stage::total                                          ? &fit->total
                                   : st == vdsm_stage::wait && fit->detection != vdsm_detection::none ? &fit->wait
                                   : st == vdsm_stage::extend_volume  ? &fit->extend_volume
                                   : st == vdsm_stage::refresh_volume ? &fit->refresh_volume
                                                                      : nullptr;
        if (sf != nullptr) {
            row.push_back(real(sf->model_min, out));
            row.push_back(real(sf->model_mean, out));
            row.push_back(real(sf->model_max, out));
            // The stalls of this timer (the total's: every stalled extend), and their values.
            const vdsm_stalls& sl = fit->stalls;
            const vdsm_stall_values& v = st == vdsm_stage::total           ? sl.total
                                         : st == vdsm_stage::wait          ? sl.wait
                                         : st == vdsm_stage::extend_volume ? sl.extend_volume
                                                                           : sl.refresh_volume;
            row.push_back(cell::of(v.count));
            row.push_back(v.count == 0 ? cell() : real(v.min, out));
            row.push_back(v.count == 0 ? cell() : real(v.max, out));
            row.push_back(cell::of_text(st == vdsm_stage::total           ? "the fitted flow and its stalls"
                                        : st == vdsm_stage::wait          ? w.wait
                                        : st == vdsm_stage::extend_volume ? w.trip
                                                                          : w.refresh));
        }
        row.resize(15);
        t.add_row(std::move(row));
    }
    return t;
}

// The text format's notes on the fit, under the table. `shown` is the log's name as printed.
void print_fit_notes(const vdsm_log_fit& f, const fit_words& w, const std::string& path, const std::string& shown) {
    std::printf("\nfit: detection: %s\n", w.wait.c_str());
    std::string scored;
    for (const vdsm_mode_score& sc : f.modes)
        if (sc.valid) scored += (scored.empty() ? "" : ", ") + seconds_text(sc.poll);
    std::printf("fit: %s (the likeliest of the reply polls scored: %s s)\n", w.trip.c_str(), scored.c_str());
    if (f.below_first_poll + f.trip_outliers != 0)
        std::printf(
            "fit: %zu round trips are off the mode's lattice (%zu shorter than one poll): left out of the fit\n",
            f.below_first_poll + f.trip_outliers, f.below_first_poll);
    std::printf("fit: %s\n", w.refresh.c_str());
    if (f.has_other)
        std::printf("fit: the totals hold time beyond their timers: a delay of %s\n", range_text(f.other).c_str());
    std::printf("fit: %s\n", vdsm_stall_text(f).c_str());
    std::printf("fit: %zu extends of %zu VM%s: %s\n", f.samples, f.vms, f.vms == 1 ? "" : "s",
                vdsm_verdict_text(f).c_str());
    // vdsm-log:- reads stdin ("stdin" is a file name); several logs are one flow file.
    const std::string use = path.empty() ? std::string("--save-flow FILE, then --latency flow:FILE")
                                         : "--latency vdsm-log:" + (path == "-" ? std::string("-") : shown);
    std::printf(
        "fit: the model's total: min %.3f s, mean %.3f s, median %.3f s, p99 %.3f s, max %.3f s "
        "(use it with %s)\n",
        f.model.min().count(), f.model.mean().count(), f.model.quantile(0.5).count(), f.model.quantile(0.99).count(),
        f.model.max().count(), use.c_str());
}

int run_vdsm_log(const args& a, format out) {
    const std::vector<std::string> paths = a.values("--vdsm-log", false);
    const std::string path = paths.size() == 1 ? paths.front() : std::string();
    const std::optional<std::string> save = a.value("--save-flow");
    if (save && save->empty()) throw usage_error("--save-flow: needs a file name");
    vdsm_log_model m = load_vdsm_logs(paths, "--vdsm-log", a.command());
    const vdsm_log_fit* fit = usable_fit(a, m, save);
    const fit_words w = fit != nullptr ? words_of(*fit) : fit_words{};
    const table t = vdsm_stage_table(m, fit, w, out);
    if (out != format::text) {
        t.print(stdout, out);
        return 0;
    }
    // The name as the table and the pasted --latency vdsm-log:FILE need it: control bytes escaped, UTF-8 kept.
    std::string shown;
    for (const std::string& p : paths)
        shown += (shown.empty() ? "" : " ") + (p == "-" ? std::string("stdin") : args::visible(p));
    std::printf("# provpol latency --vdsm-log %s: %zu extend lines of %zu lines (%zu malformed)\n", shown.c_str(),
                m.log.extend_lines, m.log.lines, m.log.malformed);
    t.print(stdout, out);
    if (fit != nullptr) print_fit_notes(*fit, w, path, shown);
    return 0;
}

}  // namespace

int run_latency(int argc, char** argv) {
    const args a("latency", usage_text,
                 {{"--profile", "NAME", latency_spec_names + " (repeatable)", true},
                  {"--vdsm-log", "FILE",
                   "VDSM's log (vdsm.log), or - for stdin; repeat it for logrotate's files, oldest first "
                   "(vdsm.log.2.xz vdsm.log.1.xz vdsm.log: .gz and .xz are read through gzip and xz)",
                   true},
                  {"--save-flow", "FILE", "with --vdsm-log: write the fitted flow to FILE, for --latency flow:FILE"},
                  {"--format", "FORMAT", "text (default), csv or json"}},
                 argc, argv);
    const format out = a.output_format();
    if (a.has("--profile") && a.has("--vdsm-log"))
        throw usage_error("give --profile or --vdsm-log, not both (see provpol latency --help)");
    if (a.has("--save-flow") && !a.has("--vdsm-log"))
        throw usage_error("--save-flow needs --vdsm-log (it writes the flow fitted to the log)");
    if (a.has("--vdsm-log")) return run_vdsm_log(a, out);
    if (!a.has("--profile")) throw usage_error("give --profile NAME or --vdsm-log FILE (see provpol latency --help)");
    return run_profiles(a, out);
}

}  // namespace provpol::cli
