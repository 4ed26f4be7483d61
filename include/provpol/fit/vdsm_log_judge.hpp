// provpol/fit/vdsm_log_judge.hpp - whether a VDSM log is a mailbox flow at all: the verdict on a fit
// (fit/vdsm_log_fit.hpp), from evidence a real VDSM log has (the Clock's timers, to the hundredth), each check a
// bound on the chance of the evidence where the log's claim is false.
//
// Why not a goodness-of-fit distance: a VM keeps its clocks' phases for the whole log (the SPM's wait of one VM's
// extends drifts slowly, it is not drawn afresh), so the extends of a log are not independent samples of the
// marginal flow, and a log of a few VMs may lie far from the marginal (a Kolmogorov-Smirnov distance of 0.10 to
// 0.16 on round trips of flows the model describes exactly). What is drawn afresh for every extend is the service
// times: the SPM's work, the host's inbox read, the refresh, the event's dispatch, and where the event falls
// against the watermark monitor. The checks read the flow's extends, the stalls (fit/vdsm_log_stalls.hpp) left out
// but for totals_short, and rest on those service times alone, in this order:
//   - totals_short: VDSM's timers lie inside its total (thinp.py starts wait, extend and refresh in turn within
//     it), so a total is never shorter than wait + round trip + refresh beyond the four values' rounding (0.02 s).
//     More such extends than the allowance (n / 50, at most 20: the outliers any check may leave out): not a
//     VDSM Clock.
//   - the lattice: a round trip is k reply polls after the send plus the inbox read (VDSM's logs: 50 to 120 ms
//     after the poll), so the round trips modulo the poll T sit in a short arc. For the mode the fit chose, the
//     scan takes every arc of the poll's cells (0.01 s each; at most half the poll) and the round trips of at least
//     one poll; the evidence is the arc whose count is least likely if the residues fell in the cells at random:
//     a Chernoff bound on the binomial tail, times the arcs scanned and the modes scored. At most 1e-3: a lattice.
//     Not a lattice: too_few when the log has fewer extends than a lattice of VDSM's own reads (8 cells) would
//     need to show at this poll (min_extends: 9 at 0.5 s, 6 at 2 s; never 1 to 3), else no_lattice. More round
//     trips shorter than one poll than the allowance is no_lattice too: no reply is seen before the first poll.
//   - poll_gap: the polls k of the round trips on the lattice. However the SPM's wait drifts (any phases), the work
//     W is uniform in [a, b) and drawn afresh, so each round trip falls in a band of m polls two inside the polls
//     seen with probability at least m T / (b - a), independently (less the SPM's drift, at most a tenth of T, at a
//     band's end next to that bound); b - a is bounded by the polls seen (the fewest and the most, after the
//     allowance at either end) and by how few fall outside them. A band holding so few that this bound, taken at
//     its least likely width and times the bands tried, is at most 1e-6: two SPMs (a failover to a loaded one) or
//     two flows in one log. It needs polls seen 5 apart: two SPMs whose polls overlap are one wide flow to it.
//   - stage_gap: the refresh, the event's dispatch and the monitor's wait are drawn afresh for every extend; the
//     widest span inside the fitted range with no sample (less the rounding), for n samples, has chance at most
//     (n + 1)(1 - span / range)^n in one uniform range; times the stages tested, at most 1e-6: not one range.
// Otherwise explained. The checks have no parameter but the levels (1e-3 to show a lattice, the fit's earlier level;
// 1e-6 to refute a log), the allowance, the Clock's rounding and the drift bound: none is fitted to a log.
//
// Memory: the checks sort copies of the samples in std::vector (std::bad_alloc propagates).
//
// SPDX-License-Identifier: MIT
#ifndef PROVPOL_FIT_VDSM_LOG_JUDGE_HPP
#define PROVPOL_FIT_VDSM_LOG_JUDGE_HPP

#include "../config.hpp"
#include "../detail/math.hpp"
#include "../time.hpp"
#include "vdsm_log_modes.hpp"
#include "vdsm_log_report.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace provpol {

namespace detail {

// The levels: a lattice is shown by a chance at most 1e-3; a log is refuted (a gap in its polls or in a service
// time) by a chance at most 1e-6, so that one genuine log in a million is refused by either check, not one in a
// thousand (at 1e-3 one of 600 genuine logs of the tests was).
inline constexpr double judge_level = 1e-3;
inline constexpr double refute_level = 1e-6;
inline constexpr double ln10 = 2.302585092994046;
// VDSM's own reads, 0.05 to 0.12 s after the poll (PR #80, commit 064a7a0d9): 8 cells of the Clock's 0.01 s.
inline constexpr std::size_t vdsm_read_cells = 8;

// x log(x / p) + (1 - x) log((1 - x) / (1 - p)): the Kullback-Leibler divergence of Bernoulli(x) from Bernoulli(p).
PROVPOL_NODISCARD inline double bernoulli_kl(double x, double p) noexcept {
    const double up = x > 0.0 ? x * log(x / p) : 0.0;
    const double down = x < 1.0 ? (1.0 - x) * log((1.0 - x) / (1.0 - p)) : 0.0;
    return up + down;
}
// The Chernoff bound, as a natural log, on P(X >= m) for X ~ Binomial(n, p); 0 (no evidence) when m <= n p.
PROVPOL_NODISCARD inline double log_tail_above(double n, double m, double p) noexcept {
    if (!(n > 0.0) || m <= n * p) return 0.0;
    if (p <= 0.0) return -1e300;
    return -n * bernoulli_kl(m / n, p);
}
// The Chernoff bound, as a natural log, on P(X <= c) for independent trials of probability at least q each.
PROVPOL_NODISCARD inline double log_tail_below(double n, double c, double q) noexcept {
    if (!(n > 0.0) || c >= n * q) return 0.0;
    if (q >= 1.0) return -1e300;
    return -n * bernoulli_kl(c / n, q);
}

// A time in the Clock's hundredths.
PROVPOL_NODISCARD inline std::int64_t hundredths(double s) noexcept {
    return static_cast<std::int64_t>(floor(s * 100.0 + 0.5));
}

// The poll's cells (0.01 s each) and the chance bound's multiplicity: every arc (start, width up to half the poll)
// of every mode scored.
PROVPOL_NODISCARD inline std::int64_t poll_cells(double poll) noexcept { return hundredths(poll); }
PROVPOL_NODISCARD inline double lattice_multiplicity(std::int64_t cells) noexcept {
    const double g = static_cast<double>(cells);
    return log(g * (g / 2.0) * static_cast<double>(vdsm_log_fit::mode_count));
}

// The fewest extends whose round trips, all within VDSM's own read of 8 cells, show a lattice of this poll.
PROVPOL_NODISCARD inline std::size_t lattice_min_extends(double poll) noexcept {
    const double g = static_cast<double>(poll_cells(poll));
    const double need = log(judge_level) - lattice_multiplicity(poll_cells(poll));
    const double per = log(static_cast<double>(vdsm_read_cells) / g);
    return per < 0.0 ? static_cast<std::size_t>(ceil(need / per - 1e-9)) : 0;
}

// The lattice scan (see the header comment): fills on_lattice, trips, arc_start, arc_end and lattice_chance.
inline void scan_lattice(const std::vector<double>& trips, double poll, vdsm_log_evidence& e) {
    const std::int64_t g = poll_cells(poll);
    std::vector<std::size_t> cell(static_cast<std::size_t>(g) * 2 + 1, 0);  // doubled: arcs across the poll
    e.trips = 0;
    for (const double t : trips) {
        if (t < poll - clock_rounding) continue;
        const std::int64_t c = ((hundredths(t) % g) + g) % g;
        ++cell[static_cast<std::size_t>(c) + 1];
        ++cell[static_cast<std::size_t>(c + g) + 1];
        ++e.trips;
    }
    for (std::size_t i = 1; i < cell.size(); ++i) cell[i] += cell[i - 1];  // prefix sums
    double best = 0.0;
    std::int64_t best_start = 0, best_width = g;
    for (std::int64_t width = 1; width <= g / 2; ++width)
        for (std::int64_t start = 0; start < g; ++start) {
            const auto on = static_cast<double>(cell[static_cast<std::size_t>(start + width)] -
                                                cell[static_cast<std::size_t>(start)]);
            const double l =
                log_tail_above(static_cast<double>(e.trips), on, static_cast<double>(width) / static_cast<double>(g));
            if (l < best) {
                best = l;
                best_start = start;
                best_width = width;
            }
        }
    e.on_lattice = best_width == g ? e.trips
                                   : cell[static_cast<std::size_t>(best_start + best_width)] -
                                         cell[static_cast<std::size_t>(best_start)];
    e.arc_start = seconds(static_cast<double>(best_start) / 100.0);
    e.arc_end = seconds(static_cast<double>(best_start + best_width - 1) / 100.0);
    e.lattice_chance = best < 0.0 ? (best + lattice_multiplicity(g)) / ln10 : 0.0;
    if (e.lattice_chance > 0.0) e.lattice_chance = 0.0;
}

// The polls k of the round trips in the lattice's arc (the read as the arc's start: k counts from there), sorted.
PROVPOL_NODISCARD inline std::vector<std::uint64_t> lattice_polls(const std::vector<double>& trips, double poll,
                                                                  const vdsm_log_evidence& e) {
    const std::int64_t g = poll_cells(poll), start = hundredths(e.arc_start.count());
    const std::int64_t width = hundredths(e.arc_end.count()) - start + 1;
    std::vector<std::uint64_t> k;
    for (const double t : trips) {
        if (t < poll - clock_rounding) continue;
        const std::int64_t h = hundredths(t), off = (((h - start) % g) + g) % g;
        if (off < width && h >= start + off) k.push_back(static_cast<std::uint64_t>((h - start - off) / g));
    }
    std::sort(k.begin(), k.end());
    return k;
}

// For a band holding c of nk round trips, `out` outside the polls seen: the bound's largest value over the work's
// width L >= l_min of min(P(so few in the band), P(so few outside)), as a natural log, for a band that takes
// `width` seconds of every SPM wait's work and polls seen that take `seen` seconds; `share` is the band's least
// share there.
PROVPOL_NODISCARD inline double band_log_chance(double nk, double c, double out, double width, double seen,
                                                double l_min, double& share) noexcept {
    // The first bound grows with L, the second falls: the largest min is where they cross, found by bisection on
    // log L (a grid of L missed the crossing of 20,000 round trips and refused one SPM).
    const auto bounds = [&](double log_l, double& band, double& outside) {
        const double l = exp(log_l);
        share = width / l < 1.0 ? width / l : 1.0;
        band = log_tail_below(nk, c, share);
        outside = log_tail_below(nk, out, 1.0 - seen / l > 0.0 ? 1.0 - seen / l : 0.0);
    };
    double lo = log(l_min), hi = lo + log(1e9), band = 0.0, outside = 0.0;
    bounds(lo, band, outside);
    if (band >= outside) return outside;
    for (int i = 0; i < 100; ++i) {
        const double mid = (lo + hi) / 2.0;
        bounds(mid, band, outside);
        (band < outside ? lo : hi) = mid;
    }
    bounds(hi, band, outside);
    return band < outside ? band : outside;
}

// The SPM's drift per cycle (its mailbox read) is at most a tenth of its period: VDSM's is about 5 ms per 2 s.
inline constexpr double spm_drift_bound = 0.1;

// The most telling band for polls trimmed to [lo, hi] = [k[t_lo], k[n - 1 - t_hi]], times the bands tried (natural
// log; 0 without a band); `keep` gets the band. A band [j, j2] inside [lo + 2, hi - 2] lies inside the work's
// range for every SPM wait s in [0, T + d), d the drift bound, but for d at either end next to the bound; the work's
// width exceeds (hi - lo - 2) T - d (some round trip took lo polls, some hi).
inline double poll_gap_for_trim(const std::vector<std::uint64_t>& k, std::size_t t_lo, std::size_t t_hi, double poll,
                                vdsm_log_evidence* keep) {
    const std::uint64_t lo = k[t_lo], hi = k[k.size() - 1 - t_hi];
    if (hi < lo + 4) return 0.0;
    const auto count_in = [&k](std::uint64_t from, std::uint64_t to) {
        return static_cast<double>(std::upper_bound(k.begin(), k.end(), to) -
                                   std::lower_bound(k.begin(), k.end(), from));
    };
    const double nk = static_cast<double>(k.size()), span = static_cast<double>(hi - lo + 1);
    const double out = nk - count_in(lo, hi), d = spm_drift_bound * poll;
    const double l_min = static_cast<double>(hi - lo - 2) * poll - d;
    constexpr std::uint64_t widest = 32;  // bands of up to 32 polls
    const std::uint64_t r = hi - lo - 3;
    const double bands = static_cast<double>(r < widest ? r * (r + 1) / 2 : widest * r);
    double best = 0.0;
    for (std::uint64_t j = lo + 2; j + 2 <= hi; ++j)
        for (std::uint64_t j2 = j; j2 + 2 <= hi && j2 - j < widest; ++j2) {
            const double edges = (j == lo + 2 ? d : 0.0) + (j2 + 2 == hi ? d : 0.0);
            const double width = static_cast<double>(j2 - j + 1) * poll - edges, c = count_in(j, j2);
            double share = 0.0;
            const double v = band_log_chance(nk, c, out, width, span * poll, l_min, share) + log(bands);
            if (v >= best) continue;
            best = v;
            if (keep == nullptr) continue;
            keep->band_lo = j;
            keep->band_hi = j2;
            keep->band_count = static_cast<std::size_t>(c);
            keep->band_share = share;
        }
    return best;
}

// The poll gap (see the header comment): the trim most favourable to one SPM, then its most telling band.
inline void judge_poll_gap(const std::vector<std::uint64_t>& k, double poll, std::size_t allowance,
                           vdsm_log_evidence& e) {
    e.band_trips = k.size();
    if (k.size() <= allowance) return;
    double lenient = -1e300;
    std::size_t best_lo = 0, best_hi = 0;
    for (std::size_t t_lo = 0; t_lo <= allowance; ++t_lo)
        for (std::size_t t_hi = 0; t_lo + t_hi <= allowance; ++t_hi) {
            if (t_lo > 0 && k[t_lo] == k[t_lo - 1]) continue;  // the same polls as a smaller trim
            if (t_hi > 0 && k[k.size() - 1 - t_hi] == k[k.size() - t_hi]) continue;
            const double v = poll_gap_for_trim(k, t_lo, t_hi, poll, nullptr);
            if (v > lenient) {
                lenient = v;
                best_lo = t_lo;
                best_hi = t_hi;
            }
            if (lenient >= 0.0) return;  // a trim with no telling band: one SPM may have made the log
        }
    e.band_chance = poll_gap_for_trim(k, best_lo, best_hi, poll, &e) / ln10;
}

// The widest span with no sample inside a fitted range (less the rounding of its two ends), and the chance bound
// (natural log) of such a span in one uniform range of n samples: (n + 1)(1 - span / range)^n.
PROVPOL_NODISCARD inline double stage_gap_log_chance(std::vector<double> x, const vdsm_fitted_range& range,
                                                     double& from, double& to) {
    const double lo = range.min.count(), hi = range.max.count();
    x.erase(std::remove_if(x.begin(), x.end(), [lo, hi](double v) { return v < lo - 1e-9 || v > hi + 1e-9; }), x.end());
    if (x.size() < 2 || !(hi > lo)) return 0.0;
    std::sort(x.begin(), x.end());
    double gap = 0.0;
    for (std::size_t i = 1; i < x.size(); ++i)
        if (x[i] - x[i - 1] > gap) {
            gap = x[i] - x[i - 1];
            from = x[i - 1];
            to = x[i];
        }
    const double share = (gap - 2.0 * clock_rounding) / (hi - lo);
    if (!(share > 0.0)) return 0.0;
    const double n = static_cast<double>(x.size());
    return share >= 1.0 ? -1e300 : log(n + 1.0) + n * log(1.0 - share);
}

// The most telling gap of the service times drawn afresh for every extend (the refresh; the dispatch or the monitor's
// wait), times the stages tested.
inline void judge_stage_gaps(const log_columns& c, const vdsm_log_fit& f, vdsm_log_evidence& e) {
    struct tested {
        vdsm_stage stage;
        const std::vector<double>* x;
        const vdsm_fitted_range* range;
    };
    tested stages[2] = {{vdsm_stage::refresh_volume, &c.refreshes, &f.refresh}, {}};
    std::size_t count = 1;
    if (f.detection != vdsm_detection::none)
        stages[count++] = {vdsm_stage::wait, &c.waits,
                           f.detection == vdsm_detection::monitor ? &f.monitor_period : &f.dispatch};
    for (std::size_t i = 0; i < count; ++i) {
        double from = 0.0, to = 0.0;
        const double l =
            stage_gap_log_chance(*stages[i].x, *stages[i].range, from, to) + log(static_cast<double>(count));
        if (l / ln10 < e.gap_chance) {
            e.gap_chance = l / ln10;
            e.gap_stage = stages[i].stage;
            e.gap_from = seconds(from);
            e.gap_to = seconds(to);
        }
    }
}

// The verdict on a fit of the columns `c` (see the header comment): sets f.verdict, f.explained and f.evidence;
// fit_vdsm_log's last step.
inline void judge_vdsm_log(const detail::log_columns& c, vdsm_log_fit& f) {
    vdsm_log_evidence& e = f.evidence;
    const std::size_t n = c.trips.size();
    const double poll = f.poll_interval.count(), level = detail::log(detail::judge_level) / detail::ln10;
    e.allowance = detail::outlier_allowance(n);
    e.short_totals = c.short_totals;
    e.below_poll = detail::lower_index(c.trips.data(), n, poll - detail::clock_rounding);
    e.min_extends = detail::lattice_min_extends(poll);
    detail::scan_lattice(c.trips, poll, e);
    f.verdict = vdsm_verdict::explained;
    if (e.short_totals > e.allowance) {
        f.verdict = vdsm_verdict::totals_short;
    } else if (e.lattice_chance > level) {
        f.verdict = n < e.min_extends ? vdsm_verdict::too_few : vdsm_verdict::no_lattice;
    } else if (e.below_poll > e.allowance) {
        f.verdict = vdsm_verdict::no_lattice;
    } else {
        detail::judge_poll_gap(detail::lattice_polls(c.trips, poll, e), poll, e.allowance, e);
        detail::judge_stage_gaps(c, f, e);
        const double refute = detail::log(detail::refute_level) / detail::ln10;
        f.verdict = e.band_chance <= refute  ? vdsm_verdict::poll_gap
                    : e.gap_chance <= refute ? vdsm_verdict::stage_gap
                                             : vdsm_verdict::explained;
    }
    f.explained = f.verdict == vdsm_verdict::explained;
}

// A chance bound given as log10, for prose: "1e-37", or "0.04" above 1e-3.
inline std::string chance_text(double log10_chance) {
    char buf[32];
    if (log10_chance < -3.0)
        (void)std::snprintf(buf, sizeof buf, "1e%.0f", ceil(log10_chance));
    else
        (void)std::snprintf(buf, sizeof buf, "%.2g", log10_chance >= 0.0 ? 1.0 : exp(log10_chance * ln10));
    return buf;
}
inline std::string format_text(const char* format, double a, double b = 0.0, double c = 0.0, double d = 0.0) {
    char buf[160];
    (void)std::snprintf(buf, sizeof buf, format, a, b, c, d);
    return buf;
}
}  // namespace detail

/// The verdict in a sentence with its evidence: what a caller says when the log is not explained (and, for an
/// explained log, what shows the lattice). Allocates (std::bad_alloc propagates).
PROVPOL_NODISCARD inline std::string vdsm_verdict_text(const vdsm_log_fit& f) {
    const vdsm_log_evidence& e = f.evidence;
    const double poll = f.poll_interval.count();
    const std::string arc =
        e.arc_end > e.arc_start
            ? detail::format_text("%.2f-%.2f s after a %.3g s reply poll", e.arc_start.count(), e.arc_end.count(), poll)
            : detail::format_text("%.2f s after a %.3g s reply poll", e.arc_start.count(), poll);
    const std::string chance = e.lattice_chance > -0.3
                                   ? "no more than chance puts there"
                                   : "chance " + detail::chance_text(e.lattice_chance) + " without one";
    switch (f.verdict) {
        case vdsm_verdict::explained:
            return "a mailbox flow: " + std::to_string(e.on_lattice) + " of " + std::to_string(e.trips) +
                   " round trips lie " + arc + " (" + chance + ")";
        case vdsm_verdict::too_few:
            return std::to_string(f.samples) + (f.samples == 1 ? " extend is" : " extends are") +
                   " too few to show a mailbox flow: its round trips on a " + detail::format_text("%.3g", poll) +
                   " s reply-poll lattice, with reads as VDSM logs them, show from " + std::to_string(e.min_extends) +
                   " extends";
        case vdsm_verdict::totals_short:
            return std::to_string(e.short_totals) + " of " + std::to_string(f.samples) +
                   " totals are shorter than their timers (wait + round trip + refresh): VDSM's Clock never logs that";
        case vdsm_verdict::no_lattice:
            if (e.lattice_chance <= detail::log(detail::judge_level) / detail::ln10)
                return std::to_string(e.below_poll) + " of " + std::to_string(f.samples) + " round trips are " +
                       detail::format_text("shorter than one %.3g s reply poll", poll) +
                       ": no mailbox reply is seen before the first poll";
            return "the round trips lie on no reply-poll lattice: at best " + std::to_string(e.on_lattice) + " of " +
                   std::to_string(e.trips) + " lie " + arc + " (" + chance + ")";
        case vdsm_verdict::poll_gap:
            return std::to_string(e.band_count) + " of " + std::to_string(e.band_trips) + " round trips took " +
                   (e.band_hi > e.band_lo ? detail::format_text("%.0f to %.0f", static_cast<double>(e.band_lo),
                                                                static_cast<double>(e.band_hi))
                                          : detail::format_text("%.0f", static_cast<double>(e.band_lo))) +
                   detail::format_text(" reply polls of %.3g s, where one SPM puts at least %.2g%%", poll,
                                       100.0 * e.band_share) +
                   " (chance " + detail::chance_text(e.band_chance) + "): two SPMs, or two flows, in one log";
        case vdsm_verdict::stage_gap:
            return std::string("the ") + to_text(e.gap_stage) + " times leave " +
                   detail::format_text("%.2f-%.2f s", e.gap_from.count(), e.gap_to.count()) +
                   " empty inside their range (chance " + detail::chance_text(e.gap_chance) +
                   " for one range): not one service time";
    }
    return "?";
}

}  // namespace provpol

#endif  // PROVPOL_FIT_VDSM_LOG_JUDGE_HPP
