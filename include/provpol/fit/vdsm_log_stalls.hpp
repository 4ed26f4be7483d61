// provpol/fit/vdsm_log_stalls.hpp - the stalls of a VDSM log, its extends far beyond its flow: a stalled lvextend, an
// overloaded SPM, a host's storage hiccup. They are told apart from the flow so that the fit (fit/vdsm_log_fit.hpp)
// fits the flow to the others and models the stalls beside it, as a mixture (flow_latency::with_stalls).
//
// The rule. A stall is a rare extend that the flow fitted to the others cannot produce, beyond that flow's reach by a
// margin no genuine flow leaves empty. Each timer is tested on its own, its values sorted; every boundary j among
// the top tenth (j from n - n/10 to n - 1) asks whether the value above it, x[j], can belong to the flow of the j
// below it:
//   - the round trip, on the mode's reply-poll lattice: x[j] took ks polls, the j below at most kb. The flow that
//     could give ks polls with the least work (work uniform from the fewest polls' bound, (k_min - 1) T, to
//     (ks - 1) T - cycle, an SPM wait uniform over the cycle) gives kb polls or fewer with probability P; the j
//     round trips all at kb or fewer then have chance P^j. One poll more than the most seen (ks = kb + 1) is never a
//     stall: the flow reaches it by widening its work by a poll;
//   - a service time (the refresh, the wait, the time outside the timers): the uniform range of the j below, from its
//     unbiased lower end to x[j - 1], widened by the Clock's rounding, stretched to reach x[j] would leave its top
//     empty with chance ((x[j - 1] - lo) / (x[j] - lo))^j; and x[j] must lie half a second or more beyond x[j - 1]
//     (VDSM's events_interval, the shortest reply poll it ships: a stall of a few hundredths is not one).
// A boundary is a stall boundary when that chance is at most 1e-6 (the level at which the judge refutes a log,
// fit/vdsm_log_judge.hpp) over every boundary tried and every test (the six modes' lattices and the three service
// times); the lowest such boundary of a timer makes every value above it a stall of that timer. Stalls are rare: at
// most a tenth of the values; more beyond the flow are a second flow, which the judge refuses (poll_gap, stage_gap).
// An extend is a stall when one of its timers is. The service times are tested first, and their stalls' round trips
// left out of the modes' fits; the round trip's test is then done for every mode before the mode is chosen
// (detail::fit_trip_mode_apart: a stall does not stretch a mode's work, so it cannot tip the choice).
//
// The model. The flow is fitted to the extends that are not stalls; a stall adds to the flow the time its timers
// hold beyond the flow's mean for them: the round trip's to the SPM's work (trip - E[X] - T/2 - E[read], X the SPM's
// wait and work: a work of that length gives, on average, the polls the stall took), the refresh's to the refresh,
// the dispatch's to the dispatch, a monitor's late tick's to the send, the time outside the timers to its own stage
// (to the refresh when the flow has none). With probability p = stalls / extends an extend is one of the stalls,
// each as likely (flow_latency::with_stalls); above 32 stalls the 16 that add the most are kept as they are and the
// others summarised in 16 groups of consecutive ones by their mean, so that the model's mean and its longest stall
// are the log's.
//
// Memory: the tests sort copies of the columns in std::vector (std::bad_alloc propagates).
//
// SPDX-License-Identifier: MIT
#ifndef PROVPOL_FIT_VDSM_LOG_STALLS_HPP
#define PROVPOL_FIT_VDSM_LOG_STALLS_HPP

#include "../config.hpp"
#include "../detail/math.hpp"
#include "../flow/clocks.hpp"
#include "../time.hpp"
#include "vdsm_log_judge.hpp"
#include "vdsm_log_modes.hpp"
#include "vdsm_log_report.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <string>
#include <vector>

namespace provpol {

namespace detail {

// Stalls are rare: at most a tenth of a timer's values.
PROVPOL_NODISCARD constexpr std::size_t stall_allowance(std::size_t n) noexcept { return n / 10; }

// A service time's stall lies at least this far beyond the others: VDSM's events_interval (0.5 s, [mailbox]), the
// shortest reply poll it ships.
inline constexpr double stall_margin = 0.5;

// The level (a natural log) a boundary's chance must reach: refute_level over every boundary tried and every test.
PROVPOL_NODISCARD inline double stall_log_level(std::size_t allowance) noexcept {
    const double tests = static_cast<double>(vdsm_log_fit::mode_count + 3);
    return log(refute_level) - log(static_cast<double>(allowance > 0 ? allowance : 1) * tests);
}

// The lowest boundary j in [n - allowance, n) of a sorted column whose chance (a natural log, `chance(j)`) is at most
// the level, or n when none is.
template <class Chance>
PROVPOL_NODISCARD std::size_t stall_boundary(std::size_t n, std::size_t allowance, Chance chance) {
    const double level = stall_log_level(allowance);
    for (std::size_t j = n - allowance; j < n; ++j)
        if (j >= 2 && chance(j) <= level) return j;
    return n;
}

// The round trip's test at boundary j of the sorted round trips (see the header comment), for the mode `f` (its
// poll, its SPM cycle and its read's start).
PROVPOL_NODISCARD inline double trip_stall_log_chance(const double* trips, std::size_t j, const trip_fit& f) noexcept {
    const auto polls = [&f](double t) noexcept { return floor((t - f.r0) / f.poll + 1e-9); };
    const double kb = polls(trips[j - 1]), ks = polls(trips[j]);
    if (ks < kb + 2.0) return 0.0;
    std::size_t first = 0;  // the round trips shorter than one poll are no flow's
    while (first < j && polls(trips[first]) < 1.0) ++first;
    if (first >= j) return 0.0;
    const double a = (polls(trips[first]) - 1.0) * f.poll, b = (ks - 1.0) * f.poll - f.cycle;
    const double p = clock_plus_work_cdf(kb * f.poll, f.cycle, a, b > a ? b : a);
    if (!(p < 1.0)) return 0.0;
    return p > 0.0 ? static_cast<double>(j - first) * log(p) : -1e300;
}

// A service time's test at boundary j of its sorted values (see the header comment), `margin` seconds at least.
PROVPOL_NODISCARD inline double stage_stall_log_chance(const double* x, std::size_t j,
                                                       double margin = stall_margin) noexcept {
    const double spread = (x[j - 1] - x[0]) / static_cast<double>(j - 1);
    double lo = x[0] - spread - clock_rounding;
    lo = lo > 0.0 ? lo : 0.0;
    const double hi = x[j - 1] + clock_rounding, next = x[j] - clock_rounding;
    if (x[j] - x[j - 1] < margin || !(next > hi)) return 0.0;
    return static_cast<double>(j) * log((hi - lo) / (next - lo));
}

// The first stall of a service time's values (any order): the smallest value that is one, or +inf without one.
PROVPOL_NODISCARD inline double stage_stall_from(std::vector<double> x, double margin = stall_margin) {
    std::sort(x.begin(), x.end());
    const std::size_t n = x.size();
    const std::size_t j = stall_boundary(n, stall_allowance(n),
                                         [&](std::size_t b) { return stage_stall_log_chance(x.data(), b, margin); });
    return j < n ? x[j] : 1e300;
}

// One mailbox mode fitted apart from its stalls: fit_trip_mode on every round trip, the round trips' test on its
// lattice, and, when some are stalls, fit_trip_mode again on the others (`trips` sorted: the stalls are the top
// ones), scored with the stalls at the outlier density of the whole log, as the mode's outliers are.
PROVPOL_NODISCARD inline trip_fit fit_trip_mode_apart(const double* trips, std::size_t n, double poll) {
    trip_fit f = fit_trip_mode(trips, n, poll);
    const std::size_t allowance = stall_allowance(n);
    if (allowance == 0) return f;
    const std::size_t j =
        stall_boundary(n, allowance, [&](std::size_t b) { return trip_stall_log_chance(trips, b, f); });
    if (j == n) return f;
    const double span = trips[n - 1] + 1.0;
    trip_fit g = fit_trip_mode(trips, j, poll, span);
    g.stalls = n - j;
    g.score.stalls = n - j;
    if (g.score.valid) g.score.log_likelihood += static_cast<double>(n - j) * log(trip_outlier_share / span);
    return g;
}

// Which timers of an extend are stalls (bits), and the time each adds to the flow.
enum : unsigned { stall_wait = 1U, stall_trip = 2U, stall_refresh = 4U, stall_other = 8U };
struct stall_extend {
    std::size_t index = 0;  // in the log's samples
    unsigned timers = 0;
    double wait = 0.0, trip = 0.0, refresh = 0.0, other = 0.0;  // the time beyond the flow's mean
    PROVPOL_NODISCARD double added() const noexcept { return wait + trip + refresh + other; }
};

// The extends' stall bits of the service times: the wait, the refresh and the time outside the timers, each tested
// on its own column.
PROVPOL_NODISCARD inline std::vector<unsigned> service_stalls(const vdsm_fit_sample* samples, std::size_t n,
                                                              const log_columns& c) {
    const double wait_from = stage_stall_from(c.waits), refresh_from = stage_stall_from(c.refreshes);
    const double other_from = stage_stall_from(c.others);
    std::vector<unsigned> bits(n, 0U);
    for (std::size_t i = 0; i < n; ++i) {
        const vdsm_fit_sample& s = samples[i];
        const double timers = (s.wait.count() >= 0.0 ? s.wait.count() : 0.0) + s.trip.count() + s.refresh.count();
        const double other = s.total.count() > timers ? s.total.count() - timers : 0.0;
        if (s.wait.count() >= 0.0 && s.wait.count() >= wait_from) bits[i] |= stall_wait;
        if (s.refresh.count() >= refresh_from) bits[i] |= stall_refresh;
        if (other >= other_from) bits[i] |= stall_other;
    }
    return bits;
}

// The time each stall adds beyond the flow fitted to the others (`f`, its stages set; see the header comment). A
// stall's timer counts as stalled when its test said so or, the extend being a stall, when it lies beyond what the
// flow's stage can take (its range's end, the Clock's rounding added).
PROVPOL_NODISCARD inline std::vector<stall_extend> stall_times(const vdsm_fit_sample* samples,
                                                               const std::vector<unsigned>& bits,
                                                               const vdsm_log_fit& f) {
    const auto mid = [](const vdsm_fitted_range& r) noexcept { return (r.min + r.max).count() / 2.0; };
    const double poll = f.poll_interval.count();
    const double trip_mean = f.spm_cycle.count() / 2.0 + mid(f.spm_work) + poll / 2.0 + mid(f.inbox_read);
    const double trip_max = static_cast<double>(f.polls_max) * poll + f.inbox_read.max.count();
    const bool monitor = f.detection == vdsm_detection::monitor;
    const double wait_mean = monitor ? f.monitor_period.max.count() / 2.0 : mid(f.dispatch);
    const double wait_max = monitor ? f.monitor_period.max.count() : f.dispatch.max.count();
    const double other_mean = f.has_other ? mid(f.other) : 0.0;
    const double other_max = f.has_other ? f.other.max.count() : 4.0 * clock_rounding;
    std::vector<stall_extend> out;
    for (std::size_t i = 0; i < bits.size(); ++i) {
        if (bits[i] == 0U) continue;
        const vdsm_fit_sample& s = samples[i];
        stall_extend e;
        e.index = i;
        const double wait = s.wait.count(), trip = s.trip.count(), refresh = s.refresh.count();
        const double other = s.total.count() - (wait >= 0.0 ? wait : 0.0) - trip - refresh;
        const auto stalled = [&](unsigned bit, double x, double most) {
            return (bits[i] & bit) != 0U || x > most + clock_rounding;
        };
        if (wait >= 0.0 && f.detection != vdsm_detection::none && stalled(stall_wait, wait, wait_max)) {
            e.timers |= stall_wait;
            e.wait = wait > wait_mean ? wait - wait_mean : 0.0;
        }
        if (stalled(stall_trip, trip, trip_max)) {
            e.timers |= stall_trip;
            e.trip = trip > trip_mean ? trip - trip_mean : 0.0;
        }
        if (stalled(stall_refresh, refresh, f.refresh.max.count())) {
            e.timers |= stall_refresh;
            e.refresh = refresh > mid(f.refresh) ? refresh - mid(f.refresh) : 0.0;
        }
        if (stalled(stall_other, other, other_max)) {
            e.timers |= stall_other;
            e.other = other > other_mean ? other - other_mean : 0.0;
        }
        out.push_back(e);
    }
    return out;
}

// The stall cases' groups: indices into the stalls, one per stall up to flow_latency::max_stall_cases; beyond, the
// half of them that add the most one each, and the others in groups of consecutive ones by the time they add.
PROVPOL_NODISCARD inline std::vector<std::vector<std::size_t>> stall_groups(const std::vector<stall_extend>& x) {
    std::vector<std::size_t> order(x.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(),
                     [&x](std::size_t a, std::size_t b) { return x[a].added() < x[b].added(); });
    constexpr std::size_t cap = flow_latency::max_stall_cases, kept = cap / 2;
    std::vector<std::vector<std::size_t>> groups;
    const std::size_t m = order.size();
    const std::size_t rest = m <= cap ? 0 : m - kept;  // the shorter stalls summarised in `kept` groups
    for (std::size_t g = 0; g < kept && rest > 0; ++g)
        groups.emplace_back(order.begin() + static_cast<std::ptrdiff_t>(g * rest / kept),
                            order.begin() + static_cast<std::ptrdiff_t>((g + 1) * rest / kept));
    for (std::size_t i = rest; i < m; ++i) groups.push_back({order[i]});
    return groups;
}

// The stall cases for a flow whose stages `at` (by timer: wait, trip, refresh, other; -1: not in this flow) take each
// timer's time: per group, the mean of its stalls' times, weighted by its size.
struct stall_stages {
    int wait = -1, trip = -1, refresh = -1, other = -1;
};
PROVPOL_NODISCARD inline std::vector<flow_stall_case> stall_cases(const std::vector<stall_extend>& x,
                                                                  const std::vector<std::vector<std::size_t>>& groups,
                                                                  const stall_stages& at) {
    std::vector<flow_stall_case> cases;
    for (const std::vector<std::size_t>& g : groups) {
        flow_stall_case c;
        c.weight = static_cast<double>(g.size());
        double add[flow_latency::max_stages] = {};
        const auto put = [&add](int stage, double v) {
            if (stage >= 0) add[static_cast<std::size_t>(stage)] += v;
        };
        for (const std::size_t i : g) {
            put(at.wait, x[i].wait);
            put(at.trip, x[i].trip);
            put(at.refresh, x[i].refresh);
            put(at.other, x[i].other);
        }
        for (std::size_t s = 0; s < flow_latency::max_stages; ++s) c.extra[s] = seconds(add[s] / c.weight);
        cases.push_back(c);
    }
    return cases;
}

// A flow with the stalls' cases (none: the flow itself).
PROVPOL_NODISCARD inline result<flow_latency> with_stall_cases(const flow_latency& flow, double p,
                                                               const std::vector<flow_stall_case>& cases) {
    if (cases.empty()) return flow;
    const auto f = flow.with_stalls(p, cases.data(), cases.size());
    if (!f) return unexpected(f.error().cause());
    return *f;
}

// The stalls' values of one timer, for the report.
inline void note_stall(vdsm_stall_values& v, double x) noexcept {
    v.min = v.count == 0 || seconds(x) < v.min ? seconds(x) : v.min;
    v.max = v.count == 0 || seconds(x) > v.max ? seconds(x) : v.max;
    ++v.count;
}

}  // namespace detail

/// What the fit found of stalls, in a sentence: "97 extends in the flow, on its 0.5 s reply-poll lattice; 3 stalls
/// of 8.1-8.4 s (3%): ...", or that there are none. Allocates (std::bad_alloc propagates).
PROVPOL_NODISCARD inline std::string vdsm_stall_text(const vdsm_log_fit& f) {
    const vdsm_stalls& s = f.stalls;
    const std::string flow = std::to_string(f.samples - s.total.count) + " extends in the flow, on its " +
                             detail::format_text("%.3g", f.poll_interval.count()) + " s reply-poll lattice";
    if (s.total.count == 0) return flow + "; no stalls (no extend beyond the flow's reach)";
    std::string where;
    const auto add = [&where](const vdsm_stall_values& v, const char* name) {
        if (v.count == 0) return;
        where += (where.empty() ? "" : ", ") + std::string(name) + " " +
                 detail::format_text(v.max > v.min ? "%.4g-%.4g s" : "%.4g s", v.min.count(), v.max.count()) + " (" +
                 std::to_string(v.count) + ")";
    };
    add(s.extend_volume, "round trip");
    add(s.refresh_volume, "refresh");
    add(s.wait, "wait");
    add(s.other, "outside the timers");
    const vdsm_stall_values& t = s.total;
    return flow + "; " + std::to_string(t.count) + (t.count == 1 ? " stall of " : " stalls of ") +
           detail::format_text(t.max > t.min ? "%.4g-%.4g s" : "%.4g s", t.min.count(), t.max.count()) +
           detail::format_text(" (%.3g%%): ", 100.0 * s.share) + where +
           "; modelled apart: each extend stalls with probability " + detail::format_text("%.3g", s.share) +
           ", adding one of the stalls' times to the flow";
}

}  // namespace provpol

#endif  // PROVPOL_FIT_VDSM_LOG_STALLS_HPP
