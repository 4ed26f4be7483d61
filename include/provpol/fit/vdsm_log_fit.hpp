// provpol/fit/vdsm_log_fit.hpp - a flow model (flow/clocks.hpp) fitted to a VDSM log's extends, in the stage
// structure of the built-in profiles (flow/latency.hpp); its pieces are in fit/vdsm_log_modes.hpp.
//
// The fit, fit_vdsm_log(): the flow of flow/latency.hpp's profiles,
//   [detection], send, SPM clock, SPM work, reply poll, inbox read, refresh, [time outside the timers],
// fitted to the log's extends (vdsm_fit_sample: one per line, the volume's timers, or the replica's on an
// "Extend replica" line, and the line's VM) by likelihood, every mode scored against every extend:
//   - detection: none without wait timers (VDSM before 4.50, replica-only logs); else a periodic monitor (waits
//     uniform in [0, period)) against a dispatch range (4.50.1.1, PR #124: 10 to 30 ms), the range's lower end
//     above 0 shown at the verdict's level (1e-3); a monitor is a periodic task of at least 0.1 s;
//   - mailbox mode: a round trip is k reply polls after the send plus the inbox read, a lattice of the poll T.
//     For each T of vdsm_log_fit::polls: the read is the shortest arc of the round trips modulo T that holds all
//     but a few (at most n/50, at most 20: outliers, counted, such as an SPM failover's) and leaves none shorter
//     than one poll; k follows for each round trip; the SPM work [a, b) maximises the likelihood of those k for an
//     SPM clock wait uniform in [0, T + drift), never needing fewer polls than the fewest seen nor more than the
//     most (a >= (k_min - 1) T, b <= k_max T - cycle), on a grid refined around its best point. Each T is scored
//     by its likelihood (polls and read, an outlier share of 1e-3), 0.5 and 2 s ahead of the others by 3 plus half
//     log n; the mode is the first in an order of them: within 2 of the best score, then the shorter work, then
//     the higher score, then the shorter poll (detail::choose_mode; the scoring order cannot change it). The SPM's
//     drift cannot be seen in a log of durations: the profiles' 5 ms per 2 s cycle, in proportion to T;
//   - each range (dispatch, refresh, time outside the timers): the uniform's unbiased end points,
//     [min - w/(n-1), max + w/(n-1)] for n samples of range w (a monitor's period: max x (n+1)/n), widened by the
//     Clock's 0.005 s rounding, unless the mean is more than 3 standard errors from the range's middle (a skewed
//     stage, e.g. extend-stats' one 0.60 s refresh among 0.19 to 0.4 s): then [lo, 2 x mean - lo), which keeps the
//     mean, and the samples above it are counted;
//   - stalls (fit/vdsm_log_stalls.hpp): extends far beyond the flow are told apart first (the service times', then
//     each mode's round trips'), the flow is fitted to the other extends, and the stalls are the model's stall
//     cases (flow_latency::with_stalls), with probability their share of the extends;
//   - whether the log is a mailbox flow at all: fit/vdsm_log_judge.hpp's verdict on the flow's extends (a stall is
//     no reason to refuse a log); unless it is `explained`, callers say why (vdsm_verdict_text) instead of using the
//     model.
// The report gives each decision, each range, every mode's score, and the model's min/mean/max per stage next to
// the log's.
//
// Memory: the fit keeps copies of its samples in std::vector (std::bad_alloc propagates).
//
// SPDX-License-Identifier: MIT
#ifndef PROVPOL_FIT_VDSM_LOG_FIT_HPP
#define PROVPOL_FIT_VDSM_LOG_FIT_HPP

#include "../config.hpp"
#include "../detail/math.hpp"
#include "../flow/clocks.hpp"
#include "../flow/latency.hpp"
#include "../result.hpp"
#include "vdsm_log_judge.hpp"
#include "vdsm_log_modes.hpp"
#include "vdsm_log_report.hpp"
#include "vdsm_log_stalls.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace provpol {

namespace detail {

// Detection: none without waits; else a monitor's [0, P) against a dispatch range, by likelihood: the range's lower
// end above 0 must be shown at the verdict's level (1e-3: its likelihood ahead by ln 1000; a monitor's waits all
// above 0.03 s happen in 1 of 100 logs of 400); a monitor is a periodic task of at least 0.1 s.
PROVPOL_NODISCARD inline result<bool> fit_detection(const log_columns& c, vdsm_log_fit& f) {
    if (c.waits.empty()) return true;
    const moments wm = moments_of(c.waits.data(), c.waits.size());
    f.monitor_period = fit_uniform(wm, true, c.waits.data());
    f.dispatch = fit_uniform(wm, false, c.waits.data());
    const double nw = static_cast<double>(c.waits.size());
    const double floor_width = 2.0 * clock_rounding;
    const double period = f.monitor_period.max.count(), range = (f.dispatch.max - f.dispatch.min).count();
    const double pw = period > floor_width ? period : floor_width;
    const double dw = range > floor_width ? range : floor_width;
    const double ll_monitor = -nw * log(pw);
    const double ll_dispatch = -nw * log(dw) + log(judge_level);
    f.detection = ll_monitor >= ll_dispatch && period >= 0.1 ? vdsm_detection::monitor : vdsm_detection::event;
    if (f.detection == vdsm_detection::monitor && !(period < 1e5))
        return unexpected(error::out_of_range("fitted watermark monitor period", error_value::of_real(period),
                                              error_value::of_real(0.1), error_value::of_real(1e5)));
    return true;
}

// A mode's score: its likelihood, less 3 plus BIC's half log n unless it is one of VDSM's two defaults (0.5 s, 2 s).
PROVPOL_NODISCARD inline double mode_score(const trip_fit& t, std::size_t n) noexcept {
    const bool vdsm_default = t.poll == 0.5 || t.poll == 2.0;
    return t.score.log_likelihood - (vdsm_default ? 0.0 : 3.0 + 0.5 * log(static_cast<double>(n)));
}

// The mode a log shows, as an order of the modes (not the order they are scored in): the valid modes whose score is
// within 2 of the best score come first; among them the shorter SPM work (a + b: a log of durations cannot tell k polls
// of work from k polls of waiting), then the higher score, then the shorter poll. The best score is the set's, so the
// choice does not depend on the order the modes were scored in. Returns `count` when no mode is valid.
PROVPOL_NODISCARD inline std::size_t choose_mode(const trip_fit* modes, std::size_t count, std::size_t n) noexcept {
    double best = -1e300;
    for (std::size_t m = 0; m < count; ++m)
        if (modes[m].score.valid && mode_score(modes[m], n) > best) best = mode_score(modes[m], n);
    const auto before = [&](std::size_t x, std::size_t y) {
        const trip_fit &p = modes[x], &q = modes[y];
        if (p.score.valid != q.score.valid) return p.score.valid;
        const double sp = mode_score(p, n), sq = mode_score(q, n);
        const bool near_p = sp >= best - 2.0, near_q = sq >= best - 2.0;
        if (near_p != near_q) return near_p;
        if (near_p && p.a + p.b != q.a + q.b) return p.a + p.b < q.a + q.b;
        if (sp != sq) return sp > sq;
        return p.poll < q.poll;
    };
    std::size_t chosen = 0;
    for (std::size_t m = 1; m < count; ++m)
        if (before(m, chosen)) chosen = m;
    return count != 0 && modes[chosen].score.valid ? chosen : count;
}

// The stalls in the report: each timer's stalled values, the totals, the times they add, the cases.
inline void report_stalls(const vdsm_fit_sample* samples, const std::vector<stall_extend>& stalls, vdsm_log_fit& f) {
    vdsm_stalls& r = f.stalls;
    r = vdsm_stalls{};
    for (const stall_extend& e : stalls) {
        const vdsm_fit_sample& s = samples[e.index];
        const double timers = (s.wait.count() >= 0.0 ? s.wait.count() : 0.0) + s.trip.count() + s.refresh.count();
        note_stall(r.total, s.total.count());
        if ((e.timers & stall_wait) != 0U) note_stall(r.wait, s.wait.count());
        if ((e.timers & stall_trip) != 0U) note_stall(r.extend_volume, s.trip.count());
        if ((e.timers & stall_refresh) != 0U) note_stall(r.refresh_volume, s.refresh.count());
        if ((e.timers & stall_other) != 0U) note_stall(r.other, s.total.count() - timers);
        r.added_min = r.total.count == 1 || seconds(e.added()) < r.added_min ? seconds(e.added()) : r.added_min;
        r.added_max = r.total.count == 1 || seconds(e.added()) > r.added_max ? seconds(e.added()) : r.added_max;
    }
    r.share = static_cast<double>(r.total.count) / static_cast<double>(f.samples);
    r.cases = stalls.size() < flow_latency::max_stall_cases ? stalls.size() : flow_latency::max_stall_cases;
}

// The model, in the profiles' stage structure, with the stalls (fit/vdsm_log_stalls.hpp), and each stage next to the
// log's (`c`: every extend, the stalls too). Long: one flow and the three stage views of it.
PROVPOL_NODISCARD inline result<bool> build_model(const log_columns& c, const std::vector<stall_extend>& stalls,
                                                  vdsm_log_fit& f) {
    flow_stage stages[flow_latency::max_stages];
    std::size_t count = 0;
    if (f.detection == vdsm_detection::monitor)
        stages[count++] = flow_stage::monitor("watermark monitor", f.monitor_period.max);
    else if (f.detection == vdsm_detection::event)
        stages[count++] = flow_stage::delay("block threshold event dispatch", f.dispatch.min, f.dispatch.max);
    const std::size_t trip_at = count;
    stages[count++] = flow_send;
    const seconds drift(spm_drift_for(f.poll_interval.count()));
    stages[count++] = f.mailbox_events ? flow_stage::clock("SPM event block check", f.poll_interval, drift)
                                       : flow_stage::clock("SPM mailbox scan", f.poll_interval, drift);
    stages[count++] = flow_stage::delay("SPM scan read, lvextend, reply write", f.spm_work.min, f.spm_work.max);
    stages[count++] = flow_stage::reply_poll("host mailbox reply poll", f.poll_interval);
    stages[count++] = flow_stage::delay("host inbox read", f.inbox_read.min, f.inbox_read.max);
    const std::size_t refresh_at = count;
    stages[count++] = flow_stage::delay("LV refresh", f.refresh.min, f.refresh.max);
    if (f.has_other) stages[count++] = flow_stage::delay("other time in the total", f.other.min, f.other.max);
    const auto flow = flow_latency::make(stages, count);
    if (!flow) return unexpected(flow.error().cause());  // the field, the value and its range
    const auto trip_flow = flow_latency::make(stages + trip_at, 5);
    const auto refresh_flow = flow_latency::make(stages + refresh_at, 1);
    if (!trip_flow || !refresh_flow)
        return unexpected(error::unsupported("vdsm log fit", "a fitted stage is out of the flow model's range"));
    // The stalls' times: a late wait to the dispatch, or to the send after a monitor's tick; the round trip's to the
    // SPM's work; the time outside the timers to its stage, or to the refresh.
    const std::vector<std::vector<std::size_t>> groups = stall_groups(stalls);
    const double p = static_cast<double>(stalls.size()) / static_cast<double>(f.samples);
    const int send = static_cast<int>(trip_at), work = send + 2, refresh = static_cast<int>(refresh_at);
    const stall_stages whole{f.detection == vdsm_detection::event ? 0 : send, work, refresh,
                             f.has_other ? refresh + 1 : refresh};
    const auto model = with_stall_cases(*flow, p, stall_cases(stalls, groups, whole));
    const auto trip_model = with_stall_cases(*trip_flow, p, stall_cases(stalls, groups, {-1, 2, -1, -1}));
    const auto refresh_model = with_stall_cases(*refresh_flow, p, stall_cases(stalls, groups, {-1, -1, 0, -1}));
    if (!model) return unexpected(model.error());
    if (!trip_model || !refresh_model)
        return unexpected(error::unsupported("vdsm log fit", "a stall's time is out of the flow model's range"));
    f.model = *model;
    const std::size_t n = c.trips.size();
    if (trip_at == 1) {  // the detection and the send, where a late wait's time goes
        const stall_stages at{f.detection == vdsm_detection::event ? 0 : 1, -1, -1, -1};
        if (const auto wait_flow = flow_latency::make(stages, 2))
            if (const auto wait_model = with_stall_cases(*wait_flow, p, stall_cases(stalls, groups, at)))
                f.wait = stage_fit(moments_of(c.waits.data(), c.waits.size()), *wait_model);
    }
    f.extend_volume = stage_fit(moments_of(c.trips.data(), n), *trip_model);
    f.refresh_volume = stage_fit(moments_of(c.refreshes.data(), n), *refresh_model);
    f.total = stage_fit(moments_of(c.totals.data(), n), f.model);
    return true;
}

// The chosen mode's values in the report, the refresh, and the time outside the timers: a delay of its own when it
// is more than the rounding of four timers (the replica's extend during replication, an overloaded host's gaps).
inline void set_mode(const log_columns& c, const trip_fit& best, vdsm_log_fit& f) {
    const std::size_t n = c.trips.size();
    f.poll_interval = seconds(best.poll);
    f.spm_cycle = seconds(best.cycle);
    f.mailbox_events = best.poll < 2.0;
    f.polls_min = best.k_min;
    f.polls_max = best.k_max;
    f.below_first_poll = best.below;
    f.trip_outliers = best.outliers;
    f.spm_work.min = seconds(best.a);
    f.spm_work.max = seconds(best.b);
    f.inbox_read.min = seconds(best.r0);
    f.inbox_read.max = seconds(best.r1);
    f.refresh = fit_uniform(moments_of(c.refreshes.data(), n), false, c.refreshes.data());
    const moments om = moments_of(c.others.data(), n);
    f.has_other = om.max > 4.0 * clock_rounding + 1e-9;
    if (f.has_other) f.other = fit_uniform(om, false, c.others.data());
}

}  // namespace detail

/// Fits a flow model to a log's extends (see the header comment): scores every mailbox mode against every round
/// trip apart from its stalls, keeps the one detail::choose_mode orders first, tells the stalls from the flow
/// (fit/vdsm_log_stalls.hpp), fits the flow to the other extends and models the stalls beside it, and judges the
/// flow's extends (fit/vdsm_log_judge.hpp): `explained` says the log is a mailbox flow the model may be planned with;
/// otherwise `verdict` and `evidence` say why not. A log without stalls is fitted as it was before stalls were told
/// apart. Errors: no samples, no mode gives a model of the round trips, or a fitted stage (or a stall's time) out of
/// the flow model's range.
PROVPOL_NODISCARD inline result<vdsm_log_fit> fit_vdsm_log(const vdsm_fit_sample* samples, std::size_t n) {
    if (n == 0 || samples == nullptr)
        return unexpected(error::unsupported("vdsm log", "no extend lines in the log: cannot fit a flow model"));
    vdsm_log_fit f;
    f.samples = n;
    const detail::log_columns c = detail::columns_of(samples, n);
    f.vms = c.vms;
    // The service times' stalls, then each mode apart from its round trips' stalls (fit/vdsm_log_stalls.hpp).
    std::vector<unsigned> bits = detail::service_stalls(samples, n, c);
    std::vector<double> trips;
    for (std::size_t i = 0; i < n; ++i)
        if (bits[i] == 0U) trips.push_back(samples[i].trip.count());
    std::sort(trips.begin(), trips.end());
    detail::trip_fit modes[vdsm_log_fit::mode_count];
    for (std::size_t m = 0; m < vdsm_log_fit::mode_count; ++m) {
        modes[m] = detail::fit_trip_mode_apart(trips.data(), trips.size(), vdsm_log_fit::polls[m].count());
        f.modes[m] = modes[m].score;
    }
    const std::size_t chosen = detail::choose_mode(modes, vdsm_log_fit::mode_count, trips.size());
    if (chosen == vdsm_log_fit::mode_count)
        return unexpected(error::unsupported("vdsm log fit", "no mailbox mode gives a model of the round trips"));
    // The stalls, and the flow's extends: the others.
    const detail::trip_fit& mode = modes[chosen];
    const double trip_from = mode.stalls > 0 ? trips[trips.size() - mode.stalls] : 1e300;
    for (std::size_t i = 0; i < n; ++i)
        if (bits[i] == 0U && samples[i].trip.count() >= trip_from) bits[i] |= detail::stall_trip;
    std::vector<vdsm_fit_sample> flow;
    for (std::size_t i = 0; i < n; ++i)
        if (bits[i] == 0U) flow.push_back(samples[i]);
    const bool stalls = flow.size() < n;
    detail::log_columns fc = stalls ? detail::columns_of(flow.data(), flow.size()) : c;
    const auto detected = detail::fit_detection(fc, f);
    if (!detected) return unexpected(detected.error());
    detail::set_mode(fc, stalls ? detail::fit_trip_mode(fc.trips.data(), fc.trips.size(), mode.poll) : mode, f);
    const std::vector<detail::stall_extend> apart = detail::stall_times(samples, bits, f);
    detail::report_stalls(samples, apart, f);
    const auto built = detail::build_model(c, apart, f);
    if (!built) return unexpected(built.error());
    fc.short_totals = c.short_totals;  // a Clock's totals are checked on every extend, the stalls too
    detail::judge_vdsm_log(fc, f);
    return f;
}

}  // namespace provpol

#endif  // PROVPOL_FIT_VDSM_LOG_FIT_HPP
