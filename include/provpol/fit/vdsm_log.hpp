// provpol/fit/vdsm_log.hpp - VDSM's own extend measurements: its "Extend volume ... completed <Clock(...)>" log lines,
// their statistics as oVirt/vdsm's contrib/extend-stats computes them, and a flow model (flow/clocks.hpp) fitted
// to them, in the stage structure of the built-in profiles (flow/latency.hpp).
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
// Statistics: vdsm_stage_stats() sorts a copy of one stage's samples and computes, as contrib/extend-stats does
// (oVirt/vdsm commit 770a9a9c7 "contrib: Collect extend stats"): min = first sorted, max = last sorted,
// mean = the sorted values added left to right, divided by their count (Python's sum() on the Python of EL8 and
// EL9; Python 3.12's sum() adds with Neumaier compensation and may differ in the last bits). extend-stats prints
// no median or percentiles; provpol adds them as Python would: median as statistics.median (the middle value, or
// the mean of the two middle values), p90 and p99 as statistics.quantiles(n=100, method='inclusive'), i.e. linear
// interpolation between the closest ranks (R's type 7, numpy's default). Where provpol departs from extend-stats:
// it keeps every stage's own sample count (extend-stats skips a line without wait entirely; provpol counts its
// total), reads replica lines (on which extend-stats' regular expression captures "0.50, extend-replica=1.20,
// ..." as the wait and float() fails), and rejects nan and negative values (which float() accepts).
// Memory: the parser allocates nothing (the caller keeps the samples: 8 bytes per timer per line); the statistics
// sort a copy of a stage's samples, and the fit, a model, keeps copies of its samples, in std::vector
// (std::bad_alloc propagates).
//
// The fit, fit_vdsm_log(): the flow of flow/latency.hpp's profiles,
//   [detection], send, SPM clock, SPM work, reply poll, inbox read, refresh, [time outside the timers],
// fitted to the log's extends (vdsm_fit_sample: one per line, the volume's timers, or the replica's on an
// "Extend replica" line, and the line's VM) by likelihood, every mode scored against every extend:
//   - detection: none without wait timers (VDSM before 4.50, replica-only logs); else a periodic monitor (waits
//     uniform in [0, period)) against a dispatch range (4.50.1.1, PR #124: 10 to 30 ms), the range paying one
//     parameter more (BIC); a monitor is a periodic task of at least 0.1 s;
//   - mailbox mode: a round trip is k reply polls after the send plus the inbox read, a lattice of the poll T.
//     For each T of vdsm_log_fit::polls: the read is the shortest arc of the round trips modulo T that holds all
//     but a few (at most n/50, at most 20: outliers, counted, such as an SPM failover's) and leaves none shorter
//     than one poll; k follows for each round trip; the SPM work [a, b) maximises the likelihood of those k for an
//     SPM clock wait uniform in [0, T + drift), never needing fewer polls than the fewest seen nor more than the
//     most (a >= (k_min - 1) T, b <= k_max T - cycle), on a grid refined around its best point. The likeliest T
//     (polls and read, an outlier share of 1e-3) wins; 0.5 and 2 s ahead of the others by 3 plus half log n, and of
//     two within 2 the one with the shorter work. The SPM's drift cannot be seen in a log of durations: the
//     profiles' 5 ms per 2 s cycle, in proportion to T;
//   - each range (dispatch, refresh, time outside the timers): the uniform's unbiased end points,
//     [min - w/(n-1), max + w/(n-1)] for n samples of range w (a monitor's period: max x (n+1)/n), widened by the
//     Clock's 0.005 s rounding, unless the mean is more than 3 standard errors from the range's middle (a skewed
//     stage, e.g. extend-stats' one 0.60 s refresh among 0.19 to 0.4 s): then [lo, 2 x mean - lo), which keeps the
//     mean, and the samples above it are counted;
//   - goodness of fit: the KS distance between the log's totals (and its round trips) and the model's, each
//     logged value standing for any within the rounding; above max(1.95 / sqrt(n), 0.05), the model is not
//     `explained`: no mode explains the log, and callers say so instead of using it.
// The report gives each decision, each range, every mode's score, and the model's min/mean/max per stage next to
// the log's.
//
// SPDX-License-Identifier: MIT
#ifndef PROVPOL_FIT_VDSM_LOG_HPP
#define PROVPOL_FIT_VDSM_LOG_HPP

#include "../config.hpp"
#include "../detail/math.hpp"
#include "../flow/clocks.hpp"
#include "../flow/latency.hpp"
#include "../parse.hpp"
#include "../result.hpp"
#include "../text.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

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
    text_view vm_id;                        ///< the line's vmId='...' (a view into the line), empty without one

    PROVPOL_NODISCARD constexpr bool has(vdsm_stage s) const noexcept {
        return (present >> static_cast<unsigned>(s) & 1U) != 0;
    }
    PROVPOL_NODISCARD constexpr double get(vdsm_stage s) const noexcept { return seconds[static_cast<unsigned>(s)]; }
};

/// "none", "volume" (an "Extend volume" line) or "replica" (an "Extend replica" line).
PROVPOL_NODISCARD constexpr const char* to_text(vdsm_extend_record::kind e) noexcept {
    constexpr const char* names[] = {"none", "volume", "replica"};
    static_assert(sizeof(names) / sizeof(names[0]) == static_cast<std::size_t>(vdsm_extend_record::kind::replica) + 1,
                  "a name each");
    return detail::enum_name(names, e);
}

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
    // virt.vm's log prefix names the VM: "(vmId='108e7903-...')".
    if (const std::size_t vm = detail::find_text(before, "vmId='"); vm != text_view::npos) {
        const text_view id = before.substr(vm + 6);
        r.vm_id = id.substr(0, id.find('\''));
    }
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

/// The statistics of `count` samples; all zero without samples. Does not modify `samples`: it sorts a copy
/// (allocates; std::bad_alloc propagates).
PROVPOL_NODISCARD inline vdsm_stage_statistics vdsm_stage_stats(const double* samples, std::size_t count) {
    vdsm_stage_statistics s;
    if (count == 0) return s;
    std::vector<double> values(samples, samples + count);
    std::sort(values.begin(), values.end());
    double sum = 0.0;
    for (std::size_t i = 0; i < count; ++i) sum += values[i];  // Python's sum(), left to right
    s.samples = count;
    s.min = values[0];
    s.max = values[count - 1];
    s.mean = sum / static_cast<double>(count);
    s.median = count % 2 == 1 ? values[count / 2] : (values[count / 2 - 1] + values[count / 2]) / 2.0;
    s.p90 = detail::python_percentile(values.data(), count, 90);
    s.p99 = detail::python_percentile(values.data(), count, 99);
    return s;
}

/// The samples of a log, by stage: arrays the caller owns (vdsm_stage_stats reads each, and does not modify it).
struct vdsm_log_samples {
    const double* data[vdsm_stage_count] = {};
    std::size_t count[vdsm_stage_count] = {};

    PROVPOL_NODISCARD constexpr std::size_t size(vdsm_stage s) const noexcept {
        return count[static_cast<unsigned>(s)];
    }
    PROVPOL_NODISCARD constexpr const double* values(vdsm_stage s) const noexcept {
        return data[static_cast<unsigned>(s)];
    }
};

/// How the log shows that the extend request was made.
enum class vdsm_detection : unsigned char {
    none,     ///< the log has no wait timer (VDSM before 4.50, replica lines): the flow starts at the request
    monitor,  ///< at the periodic watermark monitor's next tick (VDSM before 4.50.1.1)
    event     ///< at once on the block threshold event (VDSM 4.50.1.1, PR #124)
};
/// "none", "monitor" or "event".
PROVPOL_NODISCARD constexpr const char* to_text(vdsm_detection e) noexcept {
    constexpr const char* names[] = {"none", "monitor", "event"};
    static_assert(sizeof(names) / sizeof(names[0]) == static_cast<std::size_t>(vdsm_detection::event) + 1,
                  "a name each");
    return detail::enum_name(names, e);
}

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

/// One extend of a log as the fit reads it: the volume's timers (a replica line's own on "Extend replica").
struct vdsm_fit_sample {
    double wait = -1.0;  ///< negative: the line has no wait timer
    double trip = 0.0;   ///< extend-volume (extend-replica on a replica line): the mailbox round trip
    double refresh = 0.0;
    double total = 0.0;
    std::uint64_t vm = 0;  ///< which VM logged it (the caller numbers the lines' vmId)
};

/// The sample of one parsed extend line (see vdsm_fit_sample); `vm` is the caller's number for its vmId.
PROVPOL_NODISCARD constexpr vdsm_fit_sample vdsm_sample_of(const vdsm_extend_record& r, std::uint64_t vm) noexcept {
    const bool replica = r.what == vdsm_extend_record::kind::replica;
    vdsm_fit_sample s;
    s.wait = r.has(vdsm_stage::wait) ? r.get(vdsm_stage::wait) : -1.0;
    s.trip = r.get(replica ? vdsm_stage::extend_replica : vdsm_stage::extend_volume);
    s.refresh = r.get(replica ? vdsm_stage::refresh_replica : vdsm_stage::refresh_volume);
    s.total = r.get(vdsm_stage::total);
    s.vm = vm;
    return s;
}

/// How well one mailbox mode (a reply-poll interval) explains the log's round trips.
struct vdsm_mode_score {
    double poll = 0.0;               ///< the host's reply poll and the SPM's clock, seconds
    double log_likelihood = -1e300;  ///< of the round trips under the mode's best parameters
    double ks_trip = 1.0;            ///< Kolmogorov-Smirnov distance, the round trips against the mode's model
    std::size_t unexplained = 0;     ///< round trips off the mode's lattice (or shorter than one poll)
    bool valid = false;              ///< the mode gave a model at all
};

/// A flow model fitted to a VDSM log, and what the fit decided (see the header comment).
struct vdsm_log_fit {
    static constexpr std::size_t mode_count = 6;
    /// The reply-poll intervals scored: VDSM's events_interval (0.5 s default; 0.2 s was tried in PR #103),
    /// its 2 s monitorInterval, and multiples a configuration may set.
    static constexpr double polls[mode_count] = {0.2, 0.25, 0.5, 1.0, 2.0, 4.0};

    flow_latency model;
    bool explained = false;  ///< the model passes the goodness-of-fit test; otherwise no mode explains the log
    vdsm_detection detection = vdsm_detection::none;
    vdsm_fitted_range monitor_period;            ///< monitor: its period is max (min is 0)
    vdsm_fitted_range dispatch;                  ///< event: the event's dispatch time
    bool mailbox_events = false;                 ///< the round trips show mailbox events (a poll under 2 s)
    double poll_interval = 0.0;                  ///< the host's reply poll (and the SPM's event check or scan), seconds
    double spm_cycle = 0.0;                      ///< the SPM's clock: poll_interval plus its drift
    std::uint64_t polls_min = 0, polls_max = 0;  ///< the fewest and most reply polls a round trip took
    std::size_t below_first_poll = 0;            ///< round trips shorter than one poll: not explained by the mode
    std::size_t trip_outliers = 0;               ///< round trips off the mode's lattice, left out of the fit
    vdsm_fitted_range spm_work, inbox_read, refresh;
    bool has_other = false;   ///< the totals hold time beyond wait + round trip + refresh (more than rounding)
    vdsm_fitted_range other;  ///< that time, as a delay
    vdsm_stage_fit wait, extend_volume, refresh_volume, total;
    std::size_t samples = 0, vms = 0;
    double ks_total = 1.0;     ///< KS distance between the log's totals and the model's (rounding allowed)
    double ks_trip = 1.0;      ///< the same for the round trips (extend-volume)
    double ks_critical = 0.0;  ///< the distance above which the model is rejected (1.95 / sqrt(n), at least 0.05)
    vdsm_mode_score modes[mode_count];
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

// VDSM's Clock prints "%.2f": a logged value stands for the true one within half a hundredth.
inline constexpr double clock_rounding = 0.005;

// A uniform's range from samples. `from_zero`: the range starts at 0 (a clock's wait). The unbiased end points
// [min - w/(n-1), max + w/(n-1)] (a clock's period: max x (n+1)/n) and the Clock's rounding, unless the mean is
// more than 3 standard errors from the range's middle (a skewed stage): then [lo, 2 x mean - lo), which keeps the
// mean, and the samples above it are counted.
PROVPOL_NODISCARD inline vdsm_fitted_range fit_uniform(const moments& m, bool from_zero, const double* x) noexcept {
    vdsm_fitted_range r;
    const double n = static_cast<double>(m.n);
    const double lo_seen = from_zero ? 0.0 : m.min;
    const double w = m.max - lo_seen;
    r.min = from_zero ? 0.0 : m.min - clock_rounding;
    r.max = m.max + clock_rounding;
    if (m.n >= 2 && w > 0.0) {
        r.min = from_zero ? 0.0 : m.min - w / (n - 1.0) - clock_rounding;
        r.max = (from_zero ? m.max * (n + 1.0) / n : m.max + w / (n - 1.0)) + clock_rounding;
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
    if (r.min < 0.0) r.min = 0.0;
    if (r.max > 99999.0) r.max = 99999.0;
    return r;
}

PROVPOL_NODISCARD inline vdsm_stage_fit stage_fit(const moments& log, const flow_latency& model) noexcept {
    return {log.min, log.mean, log.max, model.min(), model.mean(), model.max()};
}

// The SPM's drift per cycle cannot be seen in a log of durations: the profiles' 5 ms per 2 s cycle, in
// proportion to the cycle (spm_drift / 4 at 0.5 s).
PROVPOL_NODISCARD constexpr double spm_drift_for(double poll) noexcept { return spm_drift * poll / 2.0; }

// The round trip's flow: send, SPM clock, SPM work [a, b), reply poll, inbox read.
PROVPOL_NODISCARD inline result<flow_latency> round_trip_flow(double poll, double a, double b, double r0,
                                                              double r1) noexcept {
    const bool events = poll < 2.0;
    const flow_stage stages[] = {flow_send,
                                 events ? flow_stage::clock("SPM event block check", poll, spm_drift_for(poll))
                                        : flow_stage::clock("SPM mailbox scan", poll, spm_drift_for(poll)),
                                 flow_stage::delay("SPM scan read, lvextend, reply write", a, b),
                                 flow_stage::reply_poll("host mailbox reply poll", poll),
                                 flow_stage::delay("host inbox read", r0, r1)};
    return flow_latency::make(stages, 5);
}

// P(X <= x) for X = C + W, C uniform in [0, c), W uniform in [a, b].
PROVPOL_NODISCARD inline double clock_plus_work_cdf(double x, double c, double a, double b) noexcept {
    const auto g = [c](double y) noexcept { return y <= 0.0 ? 0.0 : y <= c ? y * y / (2.0 * c) : y - c / 2.0; };
    double p = 0.0;
    if (b - a < 1e-12) {
        p = (x - a) / c;
    } else {
        p = (g(x - a) - g(x - b)) / (b - a);
    }
    return p < 0.0 ? 0.0 : (p > 1.0 ? 1.0 : p);
}

// P(K = k), K = max(1, ceil((C + W) / T)): the reply seen at the k-th poll.
PROVPOL_NODISCARD inline double polls_probability(std::uint64_t k, double poll, double c, double a, double b) noexcept {
    const double hi = clock_plus_work_cdf(static_cast<double>(k) * poll, c, a, b);
    const double lo = k <= 1 ? 0.0 : clock_plus_work_cdf(static_cast<double>(k - 1) * poll, c, a, b);
    return hi > lo ? hi - lo : 0.0;
}

// Kolmogorov-Smirnov distance between sorted logged values and a model's CDF, each logged value standing for
// any true value within the Clock's rounding.
template <class Cdf>
PROVPOL_NODISCARD double ks_distance(const double* sorted, std::size_t count, Cdf cdf) {
    const double n = static_cast<double>(count);
    double d = 0.0;
    for (std::size_t i = 0; i < count;) {
        std::size_t j = i + 1;  // the run of equal values (a Clock's values repeat: one CDF per distinct value)
        while (j < count && sorted[j] == sorted[i]) ++j;
        const double above = static_cast<double>(j) / n - cdf(sorted[i] + clock_rounding);
        const double below = cdf(sorted[i] - clock_rounding) - static_cast<double>(i) / n;
        if (above > d) d = above;
        if (below > d) d = below;
        i = j;
    }
    return d;
}

// One mailbox mode fitted to the round trips (see the header comment).
struct trip_fit {
    vdsm_mode_score score;
    double poll = 0.0, cycle = 0.0, a = 0.0, b = 0.0, r0 = 0.0, r1 = 0.0;
    std::uint64_t k_min = 0, k_max = 0;
    std::size_t below = 0, outliers = 0;
};

// The first index of sorted[0, n) whose value is not below v.
PROVPOL_NODISCARD inline std::size_t lower_index(const double* sorted, std::size_t n, double v) noexcept {
    std::size_t lo = 0, hi = n;
    while (lo < hi) {
        const std::size_t mid = lo + (hi - lo) / 2;
        if (sorted[mid] < v)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

// The share of the likelihood kept for round trips no mode explains (an SPM failover, a stuck host).
inline constexpr double trip_outlier_share = 1e-3;

// `trips`: the round trips, sorted.
PROVPOL_NODISCARD inline trip_fit fit_trip_mode(const double* trips, std::size_t n, double poll) {
    trip_fit f;
    f.poll = poll;
    f.cycle = poll + spm_drift_for(poll);
    f.score.poll = poll;
    double span = 1.0;
    for (std::size_t i = 0; i < n; ++i) span = trips[i] + 1.0 > span ? trips[i] + 1.0 : span;
    const double outlier_log = log(trip_outlier_share / span);

    // The inbox read: the shortest arc of the residues (round trip mod poll) that holds all but a few of them,
    // chosen by likelihood (a uniform read over the arc against the outlier density for those left out).
    std::vector<double> res(n);
    for (std::size_t i = 0; i < n; ++i) res[i] = trips[i] - floor(trips[i] / poll) * poll;
    std::sort(res.begin(), res.end());
    const double* const sorted_trips = trips;
    const std::size_t max_out = n / 50 < 20 ? n / 50 : 20;
    double best = -1e300, arc_start = 0.0, arc_width = 0.0;
    std::size_t arc_count = n;
    for (std::size_t out = 0; out <= max_out; ++out) {
        const std::size_t m = n - out;
        const double md = static_cast<double>(m);
        for (std::size_t j = 0; j < n; ++j) {
            const std::size_t e = j + m - 1;
            const double width = e < n ? res[e] - res[j] : res[e - n] + poll - res[j];
            const double widened = (m >= 2 ? width + 2.0 * width / (md - 1.0) : width) + 2.0 * clock_rounding;
            // Round trips the arc would leave shorter than one poll (a read that starts late) count as outliers.
            double r0 = res[j] - (m >= 2 ? width / (md - 1.0) : 0.0) - clock_rounding;
            r0 = r0 > 0.0 ? r0 : 0.0;
            const std::size_t below =
                r0 + poll - 1e-9 <= sorted_trips[0] ? 0 : lower_index(sorted_trips, n, r0 + poll - 1e-9);
            const std::size_t inside = m > below ? m - below : 0;
            const double ll = -static_cast<double>(inside) * log(widened < poll ? widened : poll) +
                              static_cast<double>(out + below) * outlier_log;
            if (ll > best + 1e-9) {
                best = ll;
                arc_start = res[j];
                arc_width = width;
                arc_count = m;
            }
        }
    }
    const double md = static_cast<double>(arc_count);
    const double pad = (arc_count >= 2 ? arc_width / (md - 1.0) : 0.0) + clock_rounding;
    f.r0 = arc_start - pad;
    if (f.r0 < 0.0) f.r0 = 0.0;
    f.r1 = arc_start + arc_width + pad;
    if (f.r1 > f.r0 + poll) f.r1 = f.r0 + poll;  // a longer read would be one more poll

    // The polls each round trip took; off the arc, shorter than one poll or beyond the flow's bound: outliers.
    std::uint64_t k_min = 0, k_max = 0;
    std::size_t explained = 0;
    const std::uint64_t k_cap = flow_latency::max_reply_polls / 2;
    // Two passes: the polls' range, then their counts.
    const auto polls_of = [&f, poll](double t) noexcept -> std::uint64_t {
        const double kd = floor((t - f.r0) / poll + 1e-9);
        const double d = t - kd * poll;
        if (kd < 1.0 || d < f.r0 - 1e-9 || d > f.r1 + 1e-9 || kd > static_cast<double>(k_cap)) return 0;
        return static_cast<std::uint64_t>(kd);
    };
    for (std::size_t i = 0; i < n; ++i) {
        const double t = trips[i];
        const double kd = floor((t - f.r0) / poll + 1e-9);
        const double d = t - kd * poll;
        if (kd < 1.0) {
            ++f.below;
            continue;
        }
        if (d < f.r0 - 1e-9 || d > f.r1 + 1e-9 || kd > static_cast<double>(k_cap)) {
            ++f.outliers;
            continue;
        }
        const auto k = static_cast<std::uint64_t>(kd);
        ++explained;
        k_min = explained == 1 || k < k_min ? k : k_min;
        k_max = explained == 1 || k > k_max ? k : k_max;
    }
    f.score.unexplained = f.below + f.outliers;
    if (explained == 0) return f;
    f.k_min = k_min;
    f.k_max = k_max;
    std::vector<std::size_t> count(static_cast<std::size_t>(k_max - k_min + 1));
    for (std::size_t i = 0; i < n; ++i)
        if (const std::uint64_t k = polls_of(trips[i]); k != 0) ++count[static_cast<std::size_t>(k - k_min)];

    // The SPM work [a, b): the polls' likelihood, never needing fewer polls than the fewest seen nor more than the
    // most (a >= (k_min - 1) T, b <= k_max T - cycle), on a grid refined around its best point.
    const auto k_loglik = [&](double a, double b) {
        double ll = 0.0;
        for (std::size_t i = 0; i < count.size(); ++i) {
            if (count[i] == 0) continue;
            const double p = polls_probability(k_min + i, poll, f.cycle, a, b);
            if (!(p > 0.0)) return -1e300;
            ll += static_cast<double>(count[i]) * log(p);
        }
        return ll;
    };
    const double a_lo = static_cast<double>(k_min - 1) * poll;
    double b_hi = static_cast<double>(k_max) * poll - f.cycle;
    if (b_hi < a_lo) b_hi = a_lo;
    double best_a = a_lo, best_b = a_lo, best_ll = k_loglik(a_lo, a_lo);
    double lo_a = a_lo, hi_a = b_hi, lo_b = a_lo, hi_b = b_hi;
    for (int round = 0; round < 6; ++round) {
        constexpr int steps = 40;
        for (int i = 0; i <= steps; ++i) {
            const double a = lo_a + (hi_a - lo_a) * i / steps;
            for (int j = 0; j <= steps; ++j) {
                const double b = lo_b + (hi_b - lo_b) * j / steps;
                if (b < a || a < a_lo || b > b_hi) continue;
                const double ll = k_loglik(a, b);
                if (ll > best_ll + 1e-12) {
                    best_ll = ll;
                    best_a = a;
                    best_b = b;
                }
            }
        }
        const double wa = (hi_a - lo_a) / 8.0, wb = (hi_b - lo_b) / 8.0;
        lo_a = best_a - wa < a_lo ? a_lo : best_a - wa;
        hi_a = best_a + wa > b_hi ? b_hi : best_a + wa;
        lo_b = best_b - wb < a_lo ? a_lo : best_b - wb;
        hi_b = best_b + wb > b_hi ? b_hi : best_b + wb;
    }
    f.a = best_a;
    f.b = best_b;
    if (!(best_ll > -1e299)) return f;

    // The mode's likelihood: polls and read for the round trips it explains, the outlier density for the rest.
    const double read_log = -log(f.r1 - f.r0 > 2.0 * clock_rounding ? f.r1 - f.r0 : 2.0 * clock_rounding);
    double ll = static_cast<double>(f.score.unexplained) * outlier_log;
    for (std::size_t i = 0; i < count.size(); ++i) {
        if (count[i] == 0) continue;
        const double p = polls_probability(k_min + i, poll, f.cycle, best_a, best_b) * exp(read_log);
        const double mixed = (1.0 - trip_outlier_share) * p + trip_outlier_share / span;
        ll += static_cast<double>(count[i]) * log(mixed);
    }
    f.score.log_likelihood = ll;
    const auto model = round_trip_flow(poll, f.a, f.b, f.r0, f.r1);
    if (!model) return f;
    f.score.ks_trip = ks_distance(sorted_trips, n, [&model](double t) { return model->cdf(t); });
    f.score.valid = true;
    return f;
}

// The KS distance above which a fit of n extends is rejected: the 0.1% level for n independent samples
// (sqrt(-ln(0.0005) / 2) = 1.95), but never under 0.05. The extends of one VM share its clocks' phases (and the VMs
// of a host its SPM's), so they are not independent: a long log would be rejected for the few phases it happened
// to see; a model within 0.05 of the log's distribution everywhere is close enough to plan with.
PROVPOL_NODISCARD inline double ks_critical(std::size_t n) noexcept {
    const double independent = n == 0 ? 1.0 : 1.95 / sqrt(static_cast<double>(n));
    return independent > 0.05 ? independent : 0.05;
}

}  // namespace detail

/// Fits a flow model to a log's extends (see the header comment): scores every mailbox mode against every round
/// trip and keeps the likeliest; `explained` says whether the model passes the KS test on the totals and the
/// round trips. Errors: no samples, or a fitted stage out of the flow model's range.
PROVPOL_NODISCARD inline result<vdsm_log_fit> fit_vdsm_log(const vdsm_fit_sample* samples, std::size_t n) {
    if (n == 0 || samples == nullptr)
        return unexpected(error::unsupported("vdsm log", "no extend lines in the log: cannot fit a flow model"));
    vdsm_log_fit f;
    f.samples = n;
    std::vector<double> waits, trips(n), refreshes(n), totals(n), others(n);
    std::vector<std::uint64_t> vms(n);
    waits.reserve(n);
    for (std::size_t i = 0; i < n; ++i) {
        const vdsm_fit_sample& s = samples[i];
        if (s.wait >= 0.0) waits.push_back(s.wait);
        trips[i] = s.trip;
        refreshes[i] = s.refresh;
        totals[i] = s.total;
        const double other = s.total - (s.wait >= 0.0 ? s.wait : 0.0) - s.trip - s.refresh;
        others[i] = other > 0.0 ? other : 0.0;
        vms[i] = s.vm;
    }
    std::sort(vms.begin(), vms.end());
    for (std::size_t i = 0; i < n; ++i)
        if (i == 0 || vms[i] != vms[i - 1]) ++f.vms;
    std::sort(trips.begin(), trips.end());  // the round trips' order is the fit's own
    const detail::moments wm = detail::moments_of(waits.data(), waits.size()), tm = detail::moments_of(trips.data(), n),
                          rm = detail::moments_of(refreshes.data(), n), om = detail::moments_of(others.data(), n),
                          totm = detail::moments_of(totals.data(), n);

    // Detection: none without waits; else a monitor's [0, P) against a dispatch range, by likelihood with one
    // parameter more for the range (BIC); a monitor is a periodic task of at least 0.1 s.
    if (!waits.empty()) {
        f.monitor_period = detail::fit_uniform(wm, true, waits.data());
        f.dispatch = detail::fit_uniform(wm, false, waits.data());
        const double nw = static_cast<double>(waits.size());
        const double floor_width = 2.0 * detail::clock_rounding;
        const double pw = f.monitor_period.max > floor_width ? f.monitor_period.max : floor_width;
        const double dw = f.dispatch.max - f.dispatch.min > floor_width ? f.dispatch.max - f.dispatch.min : floor_width;
        const double ll_monitor = -nw * detail::log(pw);
        const double ll_dispatch = -nw * detail::log(dw) - 0.5 * detail::log(nw > 1.0 ? nw : 1.0);
        f.detection =
            ll_monitor >= ll_dispatch && f.monitor_period.max >= 0.1 ? vdsm_detection::monitor : vdsm_detection::event;
        if (f.detection == vdsm_detection::monitor && !(f.monitor_period.max < 1e5))
            return unexpected(error::out_of_range("fitted watermark monitor period",
                                                  error_value::of_real(f.monitor_period.max), error_value::of_real(0.1),
                                                  error_value::of_real(1e5)));
    }

    // Mailbox mode: every poll interval scored; the likeliest wins, VDSM's two defaults (0.5 s, 2 s) ahead of the
    // others by 3 plus BIC's half log n, and of modes within 2 of each other the one with the shorter SPM work (a
    // log of durations cannot tell k polls of work from k polls of waiting).
    detail::trip_fit best;
    double best_score = -1e300;
    const double half_log_n = 0.5 * detail::log(static_cast<double>(n));
    for (std::size_t m = 0; m < vdsm_log_fit::mode_count; ++m) {
        const double poll = vdsm_log_fit::polls[m];
        const detail::trip_fit t = detail::fit_trip_mode(trips.data(), n, poll);
        f.modes[m] = t.score;
        if (!t.score.valid) continue;
        const double score = t.score.log_likelihood - (poll == 0.5 || poll == 2.0 ? 0.0 : 3.0 + half_log_n);
        const bool shorter = (t.a + t.b) < (best.a + best.b);
        if (!best.score.valid || score > best_score + 2.0 || (score > best_score - 2.0 && shorter)) {
            best = t;
            best_score = score;
        }
    }
    if (!best.score.valid)
        return unexpected(error::unsupported("vdsm log fit", "no mailbox mode gives a model of the round trips"));
    f.poll_interval = best.poll;
    f.spm_cycle = best.cycle;
    f.mailbox_events = best.poll < 2.0;
    f.polls_min = best.k_min;
    f.polls_max = best.k_max;
    f.below_first_poll = best.below;
    f.trip_outliers = best.outliers;
    f.spm_work.min = best.a;
    f.spm_work.max = best.b;
    f.inbox_read.min = best.r0;
    f.inbox_read.max = best.r1;
    f.refresh = detail::fit_uniform(rm, false, refreshes.data());
    // Time the totals hold beyond their timers (the replica's extend during replication, an overloaded host's
    // gaps): a delay of its own when it is more than the rounding of four timers.
    f.has_other = om.max > 4.0 * detail::clock_rounding + 1e-9;
    if (f.has_other) f.other = detail::fit_uniform(om, false, others.data());

    // The model, in the profiles' stage structure.
    flow_stage stages[flow_latency::max_stages];
    std::size_t count = 0;
    if (f.detection == vdsm_detection::monitor)
        stages[count++] = flow_stage::monitor("watermark monitor", f.monitor_period.max);
    else if (f.detection == vdsm_detection::event)
        stages[count++] = flow_stage::delay("block threshold event dispatch", f.dispatch.min, f.dispatch.max);
    const std::size_t trip_at = count;
    stages[count++] = detail::flow_send;
    stages[count++] =
        f.mailbox_events
            ? flow_stage::clock("SPM event block check", f.poll_interval, detail::spm_drift_for(f.poll_interval))
            : flow_stage::clock("SPM mailbox scan", f.poll_interval, detail::spm_drift_for(f.poll_interval));
    stages[count++] = flow_stage::delay("SPM scan read, lvextend, reply write", best.a, best.b);
    stages[count++] = flow_stage::reply_poll("host mailbox reply poll", f.poll_interval);
    stages[count++] = flow_stage::delay("host inbox read", best.r0, best.r1);
    const std::size_t refresh_at = count;
    stages[count++] = flow_stage::delay("LV refresh", f.refresh.min, f.refresh.max);
    if (f.has_other) stages[count++] = flow_stage::delay("other time in the total", f.other.min, f.other.max);
    const auto model = flow_latency::make(stages, count);
    if (!model) return unexpected(model.error());
    f.model = *model;

    // The model's stages next to the log's.
    const auto trip_model = flow_latency::make(stages + trip_at, 5);
    const auto refresh_model = flow_latency::make(stages + refresh_at, 1);
    if (!trip_model || !refresh_model)
        return unexpected(error::unsupported("vdsm log fit", "a fitted stage is out of the flow model's range"));
    if (trip_at == 1) {
        const auto wait_model = flow_latency::make(stages, 1);
        if (wait_model) f.wait = detail::stage_fit(wm, *wait_model);
    }
    f.extend_volume = detail::stage_fit(tm, *trip_model);
    f.refresh_volume = detail::stage_fit(rm, *refresh_model);
    f.total = detail::stage_fit(totm, f.model);

    // Goodness of fit: the totals and the round trips against the model, by KS distance.
    std::sort(totals.begin(), totals.end());
    f.ks_total = detail::ks_distance(totals.data(), n, [&f](double t) { return f.model.cdf(t); });
    f.ks_critical = detail::ks_critical(n);
    f.ks_trip = best.score.ks_trip;
    f.explained = f.ks_total <= f.ks_critical && f.ks_trip <= f.ks_critical;
    return f;
}

}  // namespace provpol

#endif  // PROVPOL_FIT_VDSM_LOG_HPP
