// provpol/vdsm_log.hpp - VDSM's own extend measurements: its "Extend volume ... completed <Clock(...)>" log lines,
// their statistics as oVirt/vdsm's contrib/extend-stats computes them, and a flow model (latency_flow.hpp) fitted
// to them, in the stage structure of the built-in profiles (latency.hpp).
//
// The line. oVirt/vdsm lib/vdsm/virt/thinp.py (VolumeMonitor._extend_volume_completed, _extend_replica_completed)
// logs, when an extend completes, the extend's time.Clock (lib/vdsm/common/time.py; commit 8c119243e "vm: Use
// time.Clock for timing extend flow"), whose repr prints each timer in start order as "name=%.2f" ("name=%.2f*"
// while it still runs):
//   ... Extend volume <uuid> completed <Clock(total=1.65, wait=0.28, extend-volume=1.09, refresh-volume=0.28)> ...
//   ... Extend volume <uuid> completed <Clock(total=.., wait=.., extend-replica=.., refresh-replica=..,
//                                             extend-volume=.., refresh-volume=..)> ...     (during replication)
//   ... Extend replica <uuid> completed <Clock(total=.., wait=.., extend-replica=.., refresh-replica=..)> ...
// The timers (thinp.py, VolumeMonitor.extend_volume and its callbacks):
//   total           from the block threshold event (drive.exceeded_time; commit b6fdfb71b "thinp: Include the
//                   wait time in total extend time") to the end of the refresh
//   wait            from the event to the extend request: the watermark monitor's next tick, or the immediate
//                   dispatch of 4.50.1.1 (PR #124). Absent when no event started the extend.
//   extend-volume   from the request (before sendExtendMsg) to the callback of the host's mail monitor: the
//                   mailbox round trip, the SPM's lvextend and the host's inbox read
//   refresh-volume  `lvchange --refresh` on the host
//   extend-replica, refresh-replica   the same for the replica, first, while a disk is replicated
//   refresh-destination-volume        the migration destination's refresh, during a migration
//
// parse_vdsm_extend_line() reads one line. A line without "completed <Clock(" is not an extend line and is
// ignored, as contrib/extend-stats ignores it. An extend line whose Clock is truncated, holds a value that is not
// a finite decimal in [0, 1e5] s (nan, -0.1, "1.2*" of a running timer), repeats a timer, or lacks total or a
// complete extend/refresh pair is malformed: an error naming the timer and the value. Unknown timers with valid
// values are ignored (a later VDSM may add one). A trailing '\r' (CRLF logs) is ignored.
//
// Statistics: vdsm_stage_stats() sorts one stage's samples in place and computes, as contrib/extend-stats does
// (oVirt/vdsm commit 770a9a9c7 "contrib: Collect extend stats"): min = first sorted, max = last sorted,
// mean = the sorted values added left to right, divided by their count (Python's sum() on the Python of EL8 and
// EL9; Python 3.12's sum() adds with Neumaier compensation and may differ in the last bits). extend-stats prints
// no median or percentiles; provpol adds them as Python would: median as statistics.median (the middle value, or
// the mean of the two middle values), p90 and p99 as statistics.quantiles(n=100, method='inclusive'), i.e. linear
// interpolation between the closest ranks (R's type 7, numpy's default). Where provpol departs from extend-stats:
// it keeps every stage's own sample count (extend-stats skips a line without wait entirely; provpol counts its
// total), reads replica lines (on which extend-stats' regular expression captures "0.50, extend-replica=1.20,
// ..." as the wait and float() fails), and rejects nan and negative values (which float() accepts).
// Memory: the library allocates nothing; the caller keeps the samples (8 bytes per timer per line: a million
// extend lines of four timers take 32 MB).
//
// The fit, fit_vdsm_log(): the flow of latency.hpp's profiles,
//   detection (monitor or event dispatch), send, SPM clock, SPM work, reply poll, inbox read, refresh,
// decided from the log:
//   - detection: waits whose median is under 0.25 s are an event dispatched at once (PR #124 measured 10 to
//     30 ms); otherwise a periodic monitor (vm_watermark_interval, 2 s), whose waits are uniform in [0, period);
//   - mailbox mode: round trips (extend-volume) whose median is under 1.5 s show mailbox events (the host's
//     reply poll and the SPM's event check every 0.5 s, [mailbox] events_interval; PR #103); otherwise polling
//     (the SPM scans every 2 s, the host polls every 2 s). The SPM's drift per cycle cannot be seen in a log of
//     durations: the profiles' 5 ms per 2 s cycle is kept;
//   - inbox read: the round trips modulo the poll interval (a round trip is k polls plus the read);
//   - SPM work: the widest range the log allows, [a, b) with b = k_max x poll - SPM cycle (k_max, the most polls
//     a round trip took, is never exceeded; at most 500, the flow model's bound), and a set so that the model's
//     mean round trip is the log's (bisection on the exact mean); a narrower b when even a = 0 gives too long a
//     mean. A log of durations shows little more than the work's mean: the range is the widest that fits it;
//   - each range (dispatch, read, refresh): the uniform's unbiased end points, [min - w/(n-1), max + w/(n-1)]
//     for n samples of range w (the monitor's period: max x (n+1)/n, its waits starting at 0), unless the mean is more
//     than 3 standard errors from the range's middle (a skewed stage, e.g. extend-stats' one 0.60 s refresh among 0.19
//     to 0.4 s): then [lo, 2 x mean - lo), which keeps the mean, and the samples above it are counted in the fit's
//     report.
// The report gives each decision, each range, and the model's min/mean/max per stage next to the log's.
//
// SPDX-License-Identifier: MIT
#ifndef PROVPOL_VDSM_LOG_HPP
#define PROVPOL_VDSM_LOG_HPP

#include "config.hpp"
#include "detail/math.hpp"
#include "detail/sort.hpp"
#include "latency.hpp"
#include "latency_flow.hpp"
#include "parse.hpp"
#include "result.hpp"
#include "text.hpp"

#include <cstddef>
#include <cstdint>

namespace provpol {

/// The timers of VDSM's extend Clock, in the order provpol reports them.
enum class vdsm_stage : unsigned char {
    total,
    wait,
    extend_volume,
    refresh_volume,
    extend_replica,
    refresh_replica,
    refresh_destination_volume
};
inline constexpr std::size_t vdsm_stage_count = 7;

/// The timer's name in VDSM's Clock: "total", "wait", "extend-volume", ...
PROVPOL_NODISCARD constexpr const char* to_text(vdsm_stage s) noexcept {
    switch (s) {
        case vdsm_stage::total:
            return "total";
        case vdsm_stage::wait:
            return "wait";
        case vdsm_stage::extend_volume:
            return "extend-volume";
        case vdsm_stage::refresh_volume:
            return "refresh-volume";
        case vdsm_stage::extend_replica:
            return "extend-replica";
        case vdsm_stage::refresh_replica:
            return "refresh-replica";
        case vdsm_stage::refresh_destination_volume:
            return "refresh-destination-volume";
    }
    return "?";
}

namespace detail {
// The setting names of the Clock's values, for errors: "Clock total", ... (static storage, as error wants).
PROVPOL_NODISCARD constexpr const char* vdsm_clock_setting(std::size_t i) noexcept {
    constexpr const char* names[vdsm_stage_count] = {"Clock total",
                                                     "Clock wait",
                                                     "Clock extend-volume",
                                                     "Clock refresh-volume",
                                                     "Clock extend-replica",
                                                     "Clock refresh-replica",
                                                     "Clock refresh-destination-volume"};
    return i < vdsm_stage_count ? names[i] : "Clock";
}
// The first position of `needle` in `text`, or npos.
PROVPOL_NODISCARD constexpr std::size_t find_text(text_view text, text_view needle) noexcept {
    if (needle.size() > text.size()) return text_view::npos;
    for (std::size_t i = 0; i + needle.size() <= text.size(); ++i)
        if (text.substr(i, needle.size()) == needle) return i;
    return text_view::npos;
}
}  // namespace detail

/// One extend completion line: which extend it reports and its Clock's values.
struct vdsm_extend_record {
    /// none: not an extend completion line (ignore it); volume: "Extend volume"; replica: "Extend replica".
    enum class kind : unsigned char { none, volume, replica };
    kind what = kind::none;
    double seconds[vdsm_stage_count] = {};  ///< by vdsm_stage; valid where has()
    unsigned present = 0;                   ///< bit i set: timer i was in the Clock

    PROVPOL_NODISCARD constexpr bool has(vdsm_stage s) const noexcept {
        return (present >> static_cast<unsigned>(s) & 1U) != 0;
    }
    PROVPOL_NODISCARD constexpr double get(vdsm_stage s) const noexcept { return seconds[static_cast<unsigned>(s)]; }
};

/// Reads one line of a VDSM log (see the header comment): a record of kind none for any other line, the Clock's
/// values for an extend completion line, or an error naming what is malformed.
PROVPOL_NODISCARD inline result<vdsm_extend_record> parse_vdsm_extend_line(text_view line) noexcept {
    constexpr text_view marker = "completed <Clock(";
    vdsm_extend_record r;
    const std::size_t at = detail::find_text(line, marker);
    if (at == text_view::npos) return r;
    const text_view before = line.substr(0, at);
    r.what = detail::find_text(before, "Extend replica ") != text_view::npos ? vdsm_extend_record::kind::replica
                                                                             : vdsm_extend_record::kind::volume;
    text_view rest = line.substr(at + marker.size());
    while (!rest.empty() && rest.back() == '\r') rest.remove_suffix(1);
    for (;;) {
        // name=value followed by ", " or ")>"
        std::size_t eq = rest.find('=');
        std::size_t end = 0;
        while (end < rest.size() && rest[end] != ',' && rest[end] != ')') ++end;
        if (end == rest.size())
            return unexpected(error::invalid_syntax("vdsm log Clock", rest, "truncated: no closing )>"));
        if (eq == text_view::npos || eq > end || eq == 0)
            return unexpected(error::invalid_syntax("vdsm log Clock", rest.substr(0, end), "expected name=seconds"));
        const text_view name = rest.substr(0, eq);
        const text_view value = rest.substr(eq + 1, end - eq - 1);
        std::size_t stage = vdsm_stage_count;
        for (std::size_t i = 0; i < vdsm_stage_count; ++i)
            if (name == to_text(static_cast<vdsm_stage>(i))) stage = i;
        const char* setting = detail::vdsm_clock_setting(stage);
        if (!value.empty() && value.back() == '*')
            return unexpected(error::invalid_syntax(setting, value, "a running timer, not a completed extend"));
        const result<double> v = parse_decimal(value, setting, 0.0, 1e5);
        if (!v) return unexpected(v.error());
        if (stage < vdsm_stage_count) {
            if ((r.present >> stage & 1U) != 0)
                return unexpected(error::invalid_syntax(setting, name, "the timer appears twice"));
            r.present |= 1U << stage;
            r.seconds[stage] = *v;
        }
        if (rest[end] == ')') {
            if (end + 1 >= rest.size() || rest[end + 1] != '>')
                return unexpected(error::invalid_syntax("vdsm log Clock", rest, "truncated: no closing )>"));
            break;
        }
        if (end + 1 >= rest.size() || rest[end + 1] != ' ')
            return unexpected(
                error::invalid_syntax("vdsm log Clock", rest.substr(end), "expected \", \" between timers"));
        rest = rest.substr(end + 2);
    }
    const auto has = [&r](vdsm_stage s) noexcept { return r.has(s); };
    if (!has(vdsm_stage::total))
        return unexpected(error::unsupported("vdsm log Clock", "an extend line without the total timer"));
    const bool volume = has(vdsm_stage::extend_volume) && has(vdsm_stage::refresh_volume);
    const bool replica = has(vdsm_stage::extend_replica) && has(vdsm_stage::refresh_replica);
    if (has(vdsm_stage::extend_volume) != has(vdsm_stage::refresh_volume) ||
        has(vdsm_stage::extend_replica) != has(vdsm_stage::refresh_replica) ||
        (r.what == vdsm_extend_record::kind::volume ? !volume : !replica))
        return unexpected(error::unsupported(
            "vdsm log Clock",
            "an extend line without its extend and refresh timers (extend-volume and refresh-volume, "
            "or extend-replica and refresh-replica)"));
    return r;
}

/// One stage's statistics, as contrib/extend-stats computes them (plus median and percentiles; see the header).
struct vdsm_stage_statistics {
    std::size_t samples = 0;
    double min = 0.0, mean = 0.0, median = 0.0, p90 = 0.0, p99 = 0.0, max = 0.0;
};

namespace detail {
// statistics.quantiles(data, n=100, method='inclusive')[i - 1] on sorted data: Python's own integer arithmetic
// for the position and its interpolation (data[j] * (n - delta) + data[j + 1] * delta) / n.
PROVPOL_NODISCARD inline double python_percentile(const double* x, std::size_t count, std::size_t i) noexcept {
    if (count == 1) return x[0];
    const std::size_t m = count - 1;
    const std::size_t j = i * m / 100, delta = i * m % 100;
    return (x[j] * static_cast<double>(100 - delta) + x[j + 1] * static_cast<double>(delta)) / 100.0;
}
}  // namespace detail

/// Sorts `seconds` in place (heap sort, no allocation) and computes its statistics; all zero without samples.
PROVPOL_NODISCARD inline vdsm_stage_statistics vdsm_stage_stats(double* seconds, std::size_t count) noexcept {
    vdsm_stage_statistics s;
    if (count == 0) return s;
    detail::heap_sort(seconds, count, [](double a, double b) { return a < b; });
    double sum = 0.0;
    for (std::size_t i = 0; i < count; ++i) sum += seconds[i];  // Python's sum(), left to right
    s.samples = count;
    s.min = seconds[0];
    s.max = seconds[count - 1];
    s.mean = sum / static_cast<double>(count);
    s.median = count % 2 == 1 ? seconds[count / 2] : (seconds[count / 2 - 1] + seconds[count / 2]) / 2.0;
    s.p90 = detail::python_percentile(seconds, count, 90);
    s.p99 = detail::python_percentile(seconds, count, 99);
    return s;
}

/// The samples of a log, by stage: arrays the caller owns (fit_vdsm_log sorts them in place).
struct vdsm_log_samples {
    double* data[vdsm_stage_count] = {};
    std::size_t count[vdsm_stage_count] = {};

    PROVPOL_NODISCARD constexpr std::size_t size(vdsm_stage s) const noexcept {
        return count[static_cast<unsigned>(s)];
    }
    PROVPOL_NODISCARD constexpr double* values(vdsm_stage s) const noexcept { return data[static_cast<unsigned>(s)]; }
};

/// How the waits show that the extend request was made.
enum class vdsm_detection : unsigned char {
    monitor,  ///< at the periodic watermark monitor's next tick (VDSM before 4.50.1.1)
    event     ///< at once on the block threshold event (VDSM 4.50.1.1, PR #124)
};

/// A fitted range [min, max) of a stage, and how it was fitted.
struct vdsm_fitted_range {
    double min = 0.0, max = 0.0;
    bool mean_kept = false;  ///< the samples were skewed: [lo, 2 x mean - lo) rather than the end points
    std::size_t above = 0;   ///< log samples above max (only when mean_kept)
};

/// The marginal latency of one stage: the log's and the fitted model's.
struct vdsm_stage_fit {
    double log_min = 0.0, log_mean = 0.0, log_max = 0.0;
    double model_min = 0.0, model_mean = 0.0, model_max = 0.0;
};

/// A flow model fitted to a VDSM log, and what the fit decided (see the header comment).
struct vdsm_log_fit {
    flow_latency model;
    vdsm_detection detection = vdsm_detection::monitor;
    vdsm_fitted_range monitor_period;  ///< monitor: its period is max (min is 0)
    vdsm_fitted_range dispatch;        ///< event: the event's dispatch time
    bool mailbox_events = false;       ///< the round trips show mailbox events (0.5 s) rather than 2 s polls
    double poll_interval = 0.0;        ///< the host's reply poll (and the SPM's event check or scan), seconds
    double spm_cycle = 0.0;            ///< the SPM's clock: poll_interval plus its drift
    std::uint64_t polls_max = 0;       ///< the most reply polls one round trip in the log took
    std::size_t below_first_poll = 0;  ///< round trips shorter than one poll: not explained by the mode
    vdsm_fitted_range spm_work, inbox_read, refresh;
    vdsm_stage_fit wait, extend_volume, refresh_volume, total;
};

namespace detail {

struct moments {
    std::size_t n = 0;
    double min = 0.0, max = 0.0, mean = 0.0;
};
PROVPOL_NODISCARD inline moments moments_of(const double* x, std::size_t n) noexcept {
    moments m;
    m.n = n;
    if (n == 0) return m;
    m.min = m.max = x[0];
    double sum = 0.0;
    for (std::size_t i = 0; i < n; ++i) {
        sum += x[i];
        if (x[i] < m.min) m.min = x[i];
        if (x[i] > m.max) m.max = x[i];
    }
    m.mean = sum / static_cast<double>(n);
    return m;
}

// A uniform's range from samples (see the header comment). `from_zero`: the range starts at 0 (a clock's wait).
PROVPOL_NODISCARD inline vdsm_fitted_range fit_uniform(const moments& m, bool from_zero, const double* x) noexcept {
    vdsm_fitted_range r;
    const double n = static_cast<double>(m.n);
    const double lo_seen = from_zero ? 0.0 : m.min;
    const double w = m.max - lo_seen;
    r.min = lo_seen;
    r.max = m.max;
    if (m.n >= 2 && w > 0.0) {
        r.min = from_zero ? 0.0 : m.min - w / (n - 1.0);
        r.max = from_zero ? m.max * (n + 1.0) / n : m.max + w / (n - 1.0);
        if (r.min < 0.0) r.min = 0.0;
        if (r.max > 99999.0) r.max = 99999.0;  // the flow model's stages stay under 1e5 s
        const double standard_error = (r.max - r.min) / sqrt(12.0 * n);
        if (fabs((r.min + r.max) / 2.0 - m.mean) > 3.0 * standard_error) {
            r.mean_kept = true;
            r.max = 2.0 * m.mean - r.min;
            if (r.max < r.min) r.max = r.min;
            for (std::size_t i = 0; x != nullptr && i < m.n; ++i)
                if (x[i] > r.max) ++r.above;
        }
    }
    return r;
}

PROVPOL_NODISCARD inline vdsm_stage_fit stage_fit(const moments& log, const flow_latency& model) noexcept {
    return {log.min, log.mean, log.max, model.min(), model.mean(), model.max()};
}

// The round trip's flow: send, SPM clock, SPM work [a, b), reply poll, inbox read.
PROVPOL_NODISCARD inline result<flow_latency> round_trip_flow(bool events, double poll, double a, double b,
                                                              const vdsm_fitted_range& read) noexcept {
    const double drift = events ? spm_drift / 4 : spm_drift;
    const flow_stage stages[] = {flow_send,
                                 events ? flow_stage::clock("SPM event block check", poll, drift)
                                        : flow_stage::clock("SPM mailbox scan", poll, drift),
                                 flow_stage::delay("SPM scan read, lvextend, reply write", a, b),
                                 flow_stage::reply_poll("host mailbox reply poll", poll),
                                 flow_stage::delay("host inbox read", read.min, read.max)};
    return flow_latency::make(stages, 5);
}

}  // namespace detail

/// Fits a flow model to a log's samples (see the header comment). Needs wait, extend-volume and refresh-volume
/// samples (total is compared, not fitted); sorts the wait and extend-volume arrays in place. Errors name the
/// stage that has no samples or the range a fitted parameter left.
PROVPOL_NODISCARD inline result<vdsm_log_fit> fit_vdsm_log(const vdsm_log_samples& log) noexcept {
    const vdsm_stage needed[] = {vdsm_stage::wait, vdsm_stage::extend_volume, vdsm_stage::refresh_volume};
    for (vdsm_stage s : needed)
        if (log.size(s) == 0 || log.values(s) == nullptr)
            return unexpected(error::unsupported(detail::vdsm_clock_setting(static_cast<std::size_t>(s)),
                                                 "no samples in the log: cannot fit a flow model"));
    vdsm_log_fit f;
    double* const waits = log.values(vdsm_stage::wait);
    double* const trips = log.values(vdsm_stage::extend_volume);
    const double* const refreshes = log.values(vdsm_stage::refresh_volume);
    const std::size_t nw = log.size(vdsm_stage::wait), nt = log.size(vdsm_stage::extend_volume),
                      nr = log.size(vdsm_stage::refresh_volume);
    const vdsm_stage_statistics ws = vdsm_stage_stats(waits, nw);
    const vdsm_stage_statistics ts = vdsm_stage_stats(trips, nt);
    const detail::moments wm = detail::moments_of(waits, nw), tm = detail::moments_of(trips, nt),
                          rm = detail::moments_of(refreshes, nr);

    // Detection: the waits' median.
    f.detection = ws.median < 0.25 ? vdsm_detection::event : vdsm_detection::monitor;
    if (f.detection == vdsm_detection::monitor) {
        f.monitor_period = detail::fit_uniform(wm, true, waits);
        if (!(f.monitor_period.max >= 0.002 && f.monitor_period.max < 1e5))
            return unexpected(error::out_of_range("fitted watermark monitor period",
                                                  error_value::of_real(f.monitor_period.max),
                                                  error_value::of_real(0.002), error_value::of_real(1e5)));
    } else {
        f.dispatch = detail::fit_uniform(wm, false, waits);
    }

    // Mailbox mode: the round trips' median.
    f.mailbox_events = ts.median < 1.5;
    f.poll_interval = f.mailbox_events ? 0.5 : 2.0;
    f.spm_cycle = f.poll_interval + (f.mailbox_events ? detail::spm_drift / 4 : detail::spm_drift);
    const double poll = f.poll_interval;

    // Inbox read: the round trips modulo the poll; the most polls.
    detail::moments read;
    read.n = nt;
    double read_sum = 0.0;
    for (std::size_t i = 0; i < nt; ++i) {
        const double k = detail::floor(trips[i] / poll);
        const double r = trips[i] - k * poll;
        if (k < 1.0) ++f.below_first_poll;
        if (k > static_cast<double>(f.polls_max)) f.polls_max = static_cast<std::uint64_t>(k);
        read.min = i == 0 || r < read.min ? r : read.min;
        read.max = i == 0 || r > read.max ? r : read.max;
        read_sum += r;
    }
    read.mean = read_sum / static_cast<double>(nt);
    f.inbox_read = detail::fit_uniform(read, false, nullptr);
    if (f.inbox_read.max > poll) f.inbox_read.max = poll;  // a longer read would be one more poll
    if (f.inbox_read.min > f.inbox_read.max) f.inbox_read.min = f.inbox_read.max;
    if (f.inbox_read.mean_kept) {  // count the reads above the range (fit_uniform had no array of them)
        for (std::size_t i = 0; i < nt; ++i)
            if (trips[i] - detail::floor(trips[i] / poll) * poll > f.inbox_read.max) ++f.inbox_read.above;
    }
    if (f.polls_max < 1) f.polls_max = 1;
    // A round trip of hundreds of polls (an SPM failover) cannot widen the work past what the flow model takes.
    const std::uint64_t polls_cap = flow_latency::max_reply_polls / 2;
    const double polls = static_cast<double>(f.polls_max < polls_cap ? f.polls_max : polls_cap);

    // SPM work: the widest [a, b) that never needs more than polls_max polls, its mean fitted by bisection.
    const auto trip_mean = [&](double a, double b) {
        const auto m = detail::round_trip_flow(f.mailbox_events, poll, a, b, f.inbox_read);
        return m ? m->mean() : 0.0;
    };
    double b_max = polls * poll - f.spm_cycle;
    if (b_max < 0.0) b_max = 0.0;
    const double target = tm.mean;
    double a = 0.0, b = b_max;
    if (target < trip_mean(0.0, b_max)) {  // shorter work: narrow b with a = 0
        double lo = 0.0, hi = b_max;
        for (int i = 0; i < 100 && hi - lo > 1e-9; ++i) {
            const double mid = lo + (hi - lo) / 2.0;
            (trip_mean(0.0, mid) < target ? lo : hi) = mid;
        }
        b = lo + (hi - lo) / 2.0;
    } else if (target <= trip_mean(b_max, b_max)) {  // raise a
        double lo = 0.0, hi = b_max;
        for (int i = 0; i < 100 && hi - lo > 1e-9; ++i) {
            const double mid = lo + (hi - lo) / 2.0;
            (trip_mean(mid, b_max) < target ? lo : hi) = mid;
        }
        a = lo + (hi - lo) / 2.0;
    } else {  // longer than the most polls allow (reads misjudged): a fixed work up to the longest round trip
        double lo = b_max, hi = tm.max < polls * poll ? tm.max : polls * poll;
        for (int i = 0; i < 100 && hi - lo > 1e-9; ++i) {
            const double mid = lo + (hi - lo) / 2.0;
            (trip_mean(mid, mid) < target ? lo : hi) = mid;
        }
        a = b = lo + (hi - lo) / 2.0;
    }
    f.spm_work.min = a;
    f.spm_work.max = b;
    f.refresh = detail::fit_uniform(rm, false, refreshes);

    // The model, in the profiles' stage structure.
    const bool ev = f.mailbox_events;
    const flow_stage detect = f.detection == vdsm_detection::monitor
                                  ? flow_stage::monitor("watermark monitor", f.monitor_period.max)
                                  : flow_stage::delay("block threshold event dispatch", f.dispatch.min, f.dispatch.max);
    const flow_stage stages[] = {detect,
                                 detail::flow_send,
                                 ev ? flow_stage::clock("SPM event block check", poll, detail::spm_drift / 4)
                                    : flow_stage::clock("SPM mailbox scan", poll, detail::spm_drift),
                                 flow_stage::delay("SPM scan read, lvextend, reply write", a, b),
                                 flow_stage::reply_poll("host mailbox reply poll", poll),
                                 flow_stage::delay("host inbox read", f.inbox_read.min, f.inbox_read.max),
                                 flow_stage::delay("LV refresh", f.refresh.min, f.refresh.max)};
    const auto model = flow_latency::make(stages, 7);
    if (!model) return unexpected(model.error());
    f.model = *model;

    // The model's stages next to the log's.
    const auto wait_model = flow_latency::make(stages, 1);
    const auto trip_model = detail::round_trip_flow(ev, poll, a, b, f.inbox_read);
    const auto refresh_model = flow_latency::make(stages + 6, 1);
    if (!wait_model || !trip_model || !refresh_model)
        return unexpected(error::unsupported("vdsm log fit", "a fitted stage is out of the flow model's range"));
    f.wait = detail::stage_fit(wm, *wait_model);
    f.extend_volume = detail::stage_fit(tm, *trip_model);
    f.refresh_volume = detail::stage_fit(rm, *refresh_model);
    const std::size_t ntot = log.size(vdsm_stage::total);
    const detail::moments totm = detail::moments_of(log.values(vdsm_stage::total), ntot);
    f.total = detail::stage_fit(totm, f.model);
    return f;
}

}  // namespace provpol

#endif  // PROVPOL_VDSM_LOG_HPP
