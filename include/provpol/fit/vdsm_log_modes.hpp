// provpol/fit/vdsm_log_modes.hpp - the pieces of the VDSM log fit (fit/vdsm_log_fit.hpp, whose header comment gives
// the method): uniform ranges from samples, and the mailbox mode fitted to the round trips for one poll interval
// (the inbox read's arc, the polls each round trip took, the SPM work by likelihood). Internals, in
// provpol::detail. The round trips' residues are sorted in a std::vector (std::bad_alloc propagates).
//
// SPDX-License-Identifier: MIT
#ifndef PROVPOL_FIT_VDSM_LOG_MODES_HPP
#define PROVPOL_FIT_VDSM_LOG_MODES_HPP

#include "../config.hpp"
#include "../detail/math.hpp"
#include "../flow/clocks.hpp"
#include "../flow/latency.hpp"
#include "../result.hpp"
#include "vdsm_log_report.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace provpol {

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
    double lo = from_zero ? 0.0 : m.min - clock_rounding;
    double hi = m.max + clock_rounding;
    if (m.n >= 2 && w > 0.0) {
        lo = from_zero ? 0.0 : m.min - w / (n - 1.0) - clock_rounding;
        hi = (from_zero ? m.max * (n + 1.0) / n : m.max + w / (n - 1.0)) + clock_rounding;
        if (lo < 0.0) lo = 0.0;
        if (hi > 99999.0) hi = 99999.0;  // the flow model's stages stay under 1e5 s
        const double standard_error = (hi - lo) / sqrt(12.0 * n);
        if (fabs((lo + hi) / 2.0 - m.mean) > 3.0 * standard_error) {
            r.mean_kept = true;
            hi = 2.0 * m.mean - lo;
            if (hi < lo) hi = lo;
            for (std::size_t i = 0; x != nullptr && i < m.n; ++i)
                if (x[i] > hi) ++r.above;
        }
    }
    if (lo < 0.0) lo = 0.0;
    if (hi > 99999.0) hi = 99999.0;
    r.min = seconds(lo);
    r.max = seconds(hi);
    return r;
}

PROVPOL_NODISCARD inline vdsm_stage_fit stage_fit(const moments& log, const flow_latency& model) noexcept {
    return {seconds(log.min), seconds(log.mean), seconds(log.max), model.min(), model.mean(), model.max()};
}

// The SPM's drift per cycle cannot be seen in a log of durations: the profiles' 5 ms per 2 s cycle, in
// proportion to the cycle (spm_drift / 4 at 0.5 s).
PROVPOL_NODISCARD constexpr double spm_drift_for(double poll) noexcept { return spm_drift.count() * poll / 2.0; }

// The round trip's flow: send, SPM clock, SPM work [a, b), reply poll, inbox read (seconds).
PROVPOL_NODISCARD inline result<flow_latency, flow_error> round_trip_flow(double poll, double a, double b, double r0,
                                                                          double r1) noexcept {
    const bool events = poll < 2.0;
    const seconds period(poll), drift(spm_drift_for(poll));
    const flow_stage stages[] = {flow_send,
                                 events ? flow_stage::clock("SPM event block check", period, drift)
                                        : flow_stage::clock("SPM mailbox scan", period, drift),
                                 flow_stage::delay("SPM scan read, lvextend, reply write", seconds(a), seconds(b)),
                                 flow_stage::reply_poll("host mailbox reply poll", period),
                                 flow_stage::delay("host inbox read", seconds(r0), seconds(r1))};
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

// A log's extends by timer, as the fit and the verdict read them: the waits of the lines that have one, and per
// extend its round trip (sorted: their order is the fit's own), refresh, total and the time the total holds beyond
// its timers (at least 0; `short_totals` counts the totals shorter than their timers beyond the four values'
// rounding, which VDSM's nested timers cannot log).
struct log_columns {
    std::vector<double> waits, trips, refreshes, totals, others;
    std::size_t vms = 0, short_totals = 0;
};
PROVPOL_NODISCARD inline log_columns columns_of(const vdsm_fit_sample* samples, std::size_t n) {
    log_columns c;
    c.trips.resize(n);
    c.refreshes.resize(n);
    c.totals.resize(n);
    c.others.resize(n);
    std::vector<std::uint64_t> vms(n);
    for (std::size_t i = 0; i < n; ++i) {
        const vdsm_fit_sample& s = samples[i];
        const double wait = s.wait.count(), timers = (wait >= 0.0 ? wait : 0.0) + s.trip.count() + s.refresh.count();
        if (wait >= 0.0) c.waits.push_back(wait);
        c.trips[i] = s.trip.count();
        c.refreshes[i] = s.refresh.count();
        c.totals[i] = s.total.count();
        c.others[i] = c.totals[i] > timers ? c.totals[i] - timers : 0.0;
        if (c.totals[i] < timers - 4.0 * clock_rounding - 1e-9) ++c.short_totals;
        vms[i] = s.vm;
    }
    std::sort(vms.begin(), vms.end());
    c.vms = static_cast<std::size_t>(std::unique(vms.begin(), vms.end()) - vms.begin());
    std::sort(c.trips.begin(), c.trips.end());
    return c;
}

// One mailbox mode fitted to the round trips (see fit/vdsm_log_fit.hpp's header comment).
struct trip_fit {
    vdsm_mode_score score;
    double poll = 0.0, cycle = 0.0, a = 0.0, b = 0.0, r0 = 0.0, r1 = 0.0;
    std::uint64_t k_min = 0, k_max = 0;
    std::size_t below = 0, outliers = 0;
    std::size_t stalls = 0;  // the top round trips left out as stalls (fit/vdsm_log_stalls.hpp)
};

// The first index of sorted[0, n) whose value is not below v.
PROVPOL_NODISCARD inline std::size_t lower_index(const double* sorted, std::size_t n, double v) noexcept {
    return static_cast<std::size_t>(std::lower_bound(sorted, sorted + n, v) - sorted);
}

// The share of the likelihood kept for round trips no mode explains (an SPM failover, a stuck host).
inline constexpr double trip_outlier_share = 1e-3;

// The extends one check may leave out as outliers: n / 50, at most 20.
PROVPOL_NODISCARD constexpr std::size_t outlier_allowance(std::size_t n) noexcept { return n / 50 < 20 ? n / 50 : 20; }

// The inbox read [r0, r1): the shortest arc of the residues (round trip mod poll) that holds all but a few of them,
// chosen by likelihood (a uniform read over the arc against the outlier density `outlier_log` for those left
// out, and for the round trips the arc would leave shorter than one poll: a read that starts late). `trips` sorted.
inline void fit_read_arc(const double* trips, std::size_t n, double outlier_log, trip_fit& f) {
    const double poll = f.poll;
    std::vector<double> res(n);
    for (std::size_t i = 0; i < n; ++i) res[i] = trips[i] - floor(trips[i] / poll) * poll;
    std::sort(res.begin(), res.end());
    double best = -1e300, arc_start = 0.0, arc_width = 0.0;
    std::size_t arc_count = n;
    for (std::size_t out = 0; out <= outlier_allowance(n); ++out) {
        const std::size_t m = n - out;
        const double md = static_cast<double>(m);
        for (std::size_t j = 0; j < n; ++j) {
            const std::size_t e = j + m - 1;
            const double width = e < n ? res[e] - res[j] : res[e - n] + poll - res[j];
            const double widened = (m >= 2 ? width + 2.0 * width / (md - 1.0) : width) + 2.0 * clock_rounding;
            double r0 = res[j] - (m >= 2 ? width / (md - 1.0) : 0.0) - clock_rounding;
            r0 = r0 > 0.0 ? r0 : 0.0;
            const std::size_t below = r0 + poll - 1e-9 <= trips[0] ? 0 : lower_index(trips, n, r0 + poll - 1e-9);
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
    f.r0 = arc_start - pad > 0.0 ? arc_start - pad : 0.0;
    f.r1 = arc_start + arc_width + pad;
    if (f.r1 > f.r0 + poll) f.r1 = f.r0 + poll;  // a longer read would be one more poll
}

// The polls a round trip took under the mode's read: 0 when off the lattice (shorter than one poll, a residue
// off the read, or beyond the flow's bound).
PROVPOL_NODISCARD inline std::uint64_t trip_polls(double t, const trip_fit& f) noexcept {
    constexpr std::uint64_t k_cap = flow_latency::max_reply_polls / 2;
    const double kd = floor((t - f.r0) / f.poll + 1e-9);
    const double d = t - kd * f.poll;
    if (kd < 1.0 || d < f.r0 - 1e-9 || d > f.r1 + 1e-9 || kd > static_cast<double>(k_cap)) return 0;
    return static_cast<std::uint64_t>(kd);
}

// The round trips per number of polls, from f.k_min to f.k_max (set here, with f.below and f.outliers); empty
// when no round trip is on the lattice.
PROVPOL_NODISCARD inline std::vector<std::size_t> count_polls(const double* trips, std::size_t n, trip_fit& f) {
    std::size_t explained = 0;
    for (std::size_t i = 0; i < n; ++i) {
        const std::uint64_t k = trip_polls(trips[i], f);
        if (k == 0) {
            ++(floor((trips[i] - f.r0) / f.poll + 1e-9) < 1.0 ? f.below : f.outliers);
            continue;
        }
        f.k_min = explained == 0 || k < f.k_min ? k : f.k_min;
        f.k_max = explained == 0 || k > f.k_max ? k : f.k_max;
        ++explained;
    }
    f.score.unexplained = f.below + f.outliers;
    std::vector<std::size_t> count;
    if (explained == 0) return count;
    count.resize(static_cast<std::size_t>(f.k_max - f.k_min + 1));
    for (std::size_t i = 0; i < n; ++i)
        if (const std::uint64_t k = trip_polls(trips[i], f); k != 0) ++count[static_cast<std::size_t>(k - f.k_min)];
    return count;
}

// The log-likelihood of the poll counts for SPM work [a, b) (-1e300 where a count is impossible).
PROVPOL_NODISCARD inline double polls_log_likelihood(const std::vector<std::size_t>& count, const trip_fit& f, double a,
                                                     double b) noexcept {
    double ll = 0.0;
    for (std::size_t i = 0; i < count.size(); ++i) {
        if (count[i] == 0) continue;
        const double p = polls_probability(f.k_min + i, f.poll, f.cycle, a, b);
        if (!(p > 0.0)) return -1e300;
        ll += static_cast<double>(count[i]) * log(p);
    }
    return ll;
}

// The SPM work [a, b): the polls' likelihood, never needing fewer polls than the fewest seen nor more than the
// most (a >= (k_min - 1) T, b <= k_max T - cycle), on a grid refined around its best point. Returns the best
// log-likelihood.
inline double fit_spm_work(const std::vector<std::size_t>& count, trip_fit& f) {
    const double a_lo = static_cast<double>(f.k_min - 1) * f.poll;
    double b_hi = static_cast<double>(f.k_max) * f.poll - f.cycle;
    if (b_hi < a_lo) b_hi = a_lo;
    double best_a = a_lo, best_b = a_lo, best_ll = polls_log_likelihood(count, f, a_lo, a_lo);
    double lo_a = a_lo, hi_a = b_hi, lo_b = a_lo, hi_b = b_hi;
    for (int round = 0; round < 6; ++round) {
        constexpr int steps = 40;
        for (int i = 0; i <= steps; ++i) {
            const double a = lo_a + (hi_a - lo_a) * i / steps;
            for (int j = 0; j <= steps; ++j) {
                const double b = lo_b + (hi_b - lo_b) * j / steps;
                if (b < a || a < a_lo || b > b_hi) continue;
                const double ll = polls_log_likelihood(count, f, a, b);
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
    return best_ll;
}

// One mailbox mode fitted to the round trips `trips` (sorted) for reply polls of `poll` seconds: the read's arc,
// the polls each round trip took, the SPM work, and the mode's likelihood (polls and read for the round trips it
// explains, the outlier density for the rest: a share of 1e-3 spread over `span` seconds, by default the longest
// round trip's and 1 s).
PROVPOL_NODISCARD inline trip_fit fit_trip_mode(const double* trips, std::size_t n, double poll, double span = 0.0) {
    trip_fit f;
    f.poll = poll;
    f.cycle = poll + spm_drift_for(poll);
    f.score.poll = seconds(poll);
    if (!(span > 0.0)) span = n == 0 || trips[n - 1] + 1.0 < 1.0 ? 1.0 : trips[n - 1] + 1.0;
    const double outlier_log = log(trip_outlier_share / span);
    fit_read_arc(trips, n, outlier_log, f);
    const std::vector<std::size_t> count = count_polls(trips, n, f);
    if (count.empty() || !(fit_spm_work(count, f) > -1e299)) return f;
    const double read_log = -log(f.r1 - f.r0 > 2.0 * clock_rounding ? f.r1 - f.r0 : 2.0 * clock_rounding);
    double ll = static_cast<double>(f.score.unexplained) * outlier_log;
    for (std::size_t i = 0; i < count.size(); ++i) {
        if (count[i] == 0) continue;
        const double p = polls_probability(f.k_min + i, poll, f.cycle, f.a, f.b) * exp(read_log);
        ll += static_cast<double>(count[i]) * log((1.0 - trip_outlier_share) * p + trip_outlier_share / span);
    }
    f.score.log_likelihood = ll;
    f.score.valid = round_trip_flow(poll, f.a, f.b, f.r0, f.r1).has_value();
    return f;
}

}  // namespace detail

}  // namespace provpol

#endif  // PROVPOL_FIT_VDSM_LOG_MODES_HPP
