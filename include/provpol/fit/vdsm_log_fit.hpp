// provpol/fit/vdsm_log_fit.hpp - a flow model (flow/clocks.hpp) fitted to a VDSM log's extends, in the stage
// structure of the built-in profiles (flow/latency.hpp); its pieces are in fit/vdsm_log_modes.hpp.
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
#include "vdsm_log_modes.hpp"
#include "vdsm_log_report.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace provpol {

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
        const double wait = s.wait.count(), trip = s.trip.count(), refresh = s.refresh.count();
        if (wait >= 0.0) waits.push_back(wait);
        trips[i] = trip;
        refreshes[i] = refresh;
        totals[i] = s.total.count();
        const double other = totals[i] - (wait >= 0.0 ? wait : 0.0) - trip - refresh;
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
        const double period = f.monitor_period.max.count(), range = (f.dispatch.max - f.dispatch.min).count();
        const double pw = period > floor_width ? period : floor_width;
        const double dw = range > floor_width ? range : floor_width;
        const double ll_monitor = -nw * detail::log(pw);
        const double ll_dispatch = -nw * detail::log(dw) - 0.5 * detail::log(nw > 1.0 ? nw : 1.0);
        f.detection = ll_monitor >= ll_dispatch && period >= 0.1 ? vdsm_detection::monitor : vdsm_detection::event;
        if (f.detection == vdsm_detection::monitor && !(period < 1e5))
            return unexpected(error::out_of_range("fitted watermark monitor period", error_value::of_real(period),
                                                  error_value::of_real(0.1), error_value::of_real(1e5)));
    }

    // Mailbox mode: every poll interval scored; the likeliest wins, VDSM's two defaults (0.5 s, 2 s) ahead of the
    // others by 3 plus BIC's half log n, and of modes within 2 of each other the one with the shorter SPM work (a
    // log of durations cannot tell k polls of work from k polls of waiting).
    detail::trip_fit best;
    double best_score = -1e300;
    const double half_log_n = 0.5 * detail::log(static_cast<double>(n));
    for (std::size_t m = 0; m < vdsm_log_fit::mode_count; ++m) {
        const double poll = vdsm_log_fit::polls[m].count();
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
    const seconds drift(detail::spm_drift_for(best.poll));
    stages[count++] = f.mailbox_events ? flow_stage::clock("SPM event block check", f.poll_interval, drift)
                                       : flow_stage::clock("SPM mailbox scan", f.poll_interval, drift);
    stages[count++] = flow_stage::delay("SPM scan read, lvextend, reply write", f.spm_work.min, f.spm_work.max);
    stages[count++] = flow_stage::reply_poll("host mailbox reply poll", f.poll_interval);
    stages[count++] = flow_stage::delay("host inbox read", f.inbox_read.min, f.inbox_read.max);
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
    f.ks_total = detail::ks_distance(totals.data(), n, [&f](double t) { return f.model.cdf(seconds(t)); });
    f.ks_critical = detail::ks_critical(n);
    f.ks_trip = best.score.ks_trip;
    f.explained = f.ks_total <= f.ks_critical && f.ks_trip <= f.ks_critical;
    return f;
}

}  // namespace provpol

#endif  // PROVPOL_FIT_VDSM_LOG_FIT_HPP
