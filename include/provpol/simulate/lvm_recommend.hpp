// provpol/simulate/lvm_recommend.hpp - which autoextend settings keep a thin pool up with a write burst: the target
// a plan is held to (lvm_target_met), a plan checked against it run by run (check_lvm_plan), the space a burst
// needs against what the pool and the VG can hold (lvm_pool_space), the smallest percent that meets the target
// (recommend_lvm_percent) and how that answer holds at other seeds (check_lvm_percent_seeds); the (threshold,
// percent) setting that meets it with a margin (search_lvm_setting over an lvm_setting_grid, each setting's outcome
// from check_lvm_setting: several pools, rates and seeds at once); for the rate-aware extender (lvm_pool.hpp's
// lvm_extender), the smallest horizon that meets the same target (recommend_lvm_horizon).
//
// The percent is searched by scanning (simulate/search.hpp's smallest_meeting), not bisected: the target is not
// monotone in the percent. A larger percent can queue longer (its extend lands when the pool is fuller, or no
// longer fits in the VG), so "the smallest percent that meets" is found only by trying every one below it. The
// scan stays cheap because a plan that misses is stopped at the first run after which it cannot meet, and the
// scan at the first percent that meets.
//
// An answer with no margin can sit on a cliff: with 1.2 TiB left in a VG a percent can meet while the next one up
// fails (its last extend asks for more than the VG has left, and lvm2 grows nothing), and an operator who rounds
// the percent up "for safety" loses writes. search_lvm_setting answers a box instead of a point: every percent from
// P to P + margin.percent at every threshold from T - margin.threshold to T meets, the directions an operator moves
// a setting to be safer (a larger percent, a lower threshold). Every setting it reads is kept in the grid with why it
// missed (lvm_plan_outcome: space, time, extends, metadata), which is the landscape the answer is printed with.
//
// SPDX-License-Identifier: MIT
#ifndef PROVPOL_SIMULATE_LVM_RECOMMEND_HPP
#define PROVPOL_SIMULATE_LVM_RECOMMEND_HPP

#include "../bytes.hpp"
#include "../config.hpp"
#include "../extend/lvm.hpp"
#include "../extend/lvm_rate_aware.hpp"
#include "../result.hpp"
#include "../time.hpp"
#include "lvm_dmeventd.hpp"
#include "lvm_pool.hpp"
#include "run.hpp"
#include "search.hpp"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace provpol {

/// True when no run queued writes longer than max_queued, none failed or hung, and the runs took at most
/// max_extends extends on average (each lvextend suspends the pool and commits the VG's metadata: an extend
/// storm stalls I/O even when nothing queues).
PROVPOL_NODISCARD constexpr bool lvm_target_met(const lvm_plan_summary& s, seconds max_queued,
                                                double max_extends = 1e300) noexcept {
    return s.queued_max <= max_queued && s.eio_runs == 0 && s.hung_runs == 0 && s.extends_mean <= max_extends;
}

/// A plan held to lvm_target_met, run by run.
struct lvm_plan_check {
    bool met = false;           ///< lvm_target_met holds over every run
    lvm_plan_summary seen;      ///< the runs simulated, means over them: every run when met
    bool queued_over = false;   ///< a run queued writes longer than max_queued
    bool extends_over = false;  ///< the runs took more than max_extends extends a run on average
};

/// The plan simulate_lvm_plan(c, m, w, runs, seed) held to lvm_target_met(summary, max_queued, max_extends), run
/// by run in run order, stopping after the first run from which the target cannot be met (a run that queues
/// longer than max_queued, fails with EIO or hangs, or extends that already pass max_extends x runs). `met` is
/// exactly lvm_target_met of the whole plan, and when it holds `seen` is simulate_lvm_plan's summary bit for bit.
PROVPOL_NODISCARD inline lvm_plan_check check_lvm_plan(const lvm_autoextend_config& c, const lvm_dmeventd_model& m,
                                                       const lvm_pool_workload& w, std::uint32_t runs,
                                                       std::uint64_t seed, seconds max_queued,
                                                       double max_extends = 1e300,
                                                       const lvm_extender& x = lvm_extender::dmeventd()) noexcept {
    lvm_plan_check k{};
    const auto n = static_cast<double>(runs);
    for (std::uint32_t i = 0; i < runs; ++i) {
        detail::lvm_plan_add(k.seen, simulate_lvm_run(c, m, w, run_seed(seed, i), x));
        // The sums only grow, and the final mean is the sum over `runs`: past the bound now, past it then.
        k.queued_over = k.seen.queued_max > max_queued;
        k.extends_over = k.seen.extends_mean / n > max_extends;
        if (k.queued_over || k.extends_over || k.seen.eio_runs != 0 || k.seen.hung_runs != 0) break;
    }
    detail::lvm_plan_means(k.seen);
    k.met = k.seen.runs == runs && lvm_target_met(k.seen, max_queued, max_extends);
    return k;
}

/// What a burst needs of the pool's space and what the pool can hold at most.
struct lvm_space {
    bytes needed;               ///< the data in the pool at the end: used + written (saturating)
    bytes available;            ///< the most data the pool can hold: its largest size, in whole pool blocks
    bool extent_limit = false;  ///< the largest size is lvm2's limit of 2^32 - 1 extents, not the VG's free space
    /// The data that fits nowhere: needed - available, 0 when the burst fits.
    PROVPOL_NODISCARD constexpr bytes missing() const noexcept {
        return needed > available ? needed - available : bytes(0);
    }
};

/// The pool's largest size is its size plus the VG's free extents (an extend takes whole extents and fails whole
/// when the VG lacks them), below lvm2's 2^32 - 1 extents; the data it holds is that size's whole pool blocks.
/// When `missing()` is not 0 no autoextend setting and no write rate can meet any target: the pool fills with
/// data still to write and its writes queue until EIO (or forever, no_space_timeout 0).
PROVPOL_NODISCARD constexpr lvm_space lvm_pool_space(const lvm_autoextend_config& c,
                                                     const lvm_pool_workload& w) noexcept {
    lvm_space s{};
    s.needed = saturating_add(w.pool_used, w.write);
    const std::uint64_t e = c.extent().count();
    const std::uint64_t le = detail::lvm_extents(w.pool_size, c.extent());
    const std::uint64_t le_max = detail::lvm_max_extent_count - 1;  // an extend stays under the limit
    const std::uint64_t vg_extents = w.vg_free.count() / e;
    std::uint64_t largest = w.pool_size.count();
    if (vg_extents != 0 && le < le_max) {
        s.extent_limit = vg_extents > le_max - le;
        largest = (s.extent_limit ? le_max : le + vg_extents) * e;
    }
    const std::uint64_t chunk = c.pool_chunk().count();
    s.available = bytes(largest / chunk * chunk);
    return s;
}

/// What recommend_lvm_percent finds at one threshold.
struct lvm_percent_answer {
    std::uint32_t threshold = 0;  ///< the threshold searched (a whole percent, 50-99)
    std::uint32_t percent = 0;    ///< the smallest percent that meets the target; max_percent when none does
    bool met = false;             ///< a percent in [1, max_percent] meets the target
    lvm_plan_summary at;          ///< every run at `percent` when met (empty otherwise)
    std::uint32_t plans = 0;      ///< percents simulated: 1 to `percent` (all of them when none meets)
    /// Of the percents that missed: how many had a run that queued too long, failed with EIO or hung, took too
    /// many extends on average, ran the VG out (an extend failed for want of VG space), or ran the metadata out
    /// (its EIO is counted in missed_eio too).
    std::uint32_t missed_queued = 0, missed_eio = 0, missed_hung = 0, missed_extends = 0, missed_vg = 0;
    std::uint32_t missed_metadata = 0;
    lvm_space space;  ///< the burst's space; when space.missing() is not 0 nothing was simulated
};

/// `base` with its threshold and percent replaced (its extent, pool chunk, kind and VDO slab kept): the
/// configuration recommend tries at each percent. Each is taken by its role, as make() takes it, so the two cannot
/// trade places (`lvm_config_with(c, lvm_threshold(70), lvm_percent(20))`). They must be within make()'s ranges
/// (lvm_autoextend_config::max_threshold and ::max_percent; recommend's searches stay inside them); outside them
/// std::terminate is called (value() throws in a noexcept function).
PROVPOL_NODISCARD inline lvm_autoextend_config lvm_config_with(const lvm_autoextend_config& base,
                                                               lvm_threshold threshold, lvm_percent percent) noexcept {
    return lvm_autoextend_config::make(threshold, percent, lvm_extent_size(base.extent()),
                                       lvm_chunk_size(base.pool_chunk()), base.kind(), vdo_slab_size(base.vdo_slab()))
        .value();
}

namespace detail {

// Counts a plan that missed into an answer's missed_* fields (lvm_percent_answer's, lvm_horizon_answer's).
template <class Answer>
constexpr void lvm_count_miss(Answer& a, const lvm_plan_check& k) noexcept {
    a.missed_queued += k.queued_over ? 1u : 0u;
    a.missed_eio += k.seen.eio_runs != 0 ? 1u : 0u;
    a.missed_hung += k.seen.hung_runs != 0 ? 1u : 0u;
    a.missed_extends += k.extends_over ? 1u : 0u;
    a.missed_vg += k.seen.vg_exhausted_runs != 0 ? 1u : 0u;
    a.missed_metadata += k.seen.metadata_full_runs != 0 ? 1u : 0u;
}

}  // namespace detail

/// The smallest autoextend percent in [1, max_percent] under which, at `threshold`, the plan of `runs` runs
/// (run i seeded with run_seed(seed, i)) meets lvm_target_met: no run queues writes longer than max_queued, none
/// fails with EIO or hangs, and the runs take at most max_extends extends on average. Every percent from 1 up is
/// tried in turn (smallest_meeting): each below the answer was simulated and missed, so the answer is the
/// smallest whatever the shape of the target in the percent (it is not monotone). `met` is false when none in
/// the range meets, and at once, without simulating, when the burst cannot fit in the pool and the VG
/// (lvm_pool_space; `space` says by how much). `at` holds the answer's runs as the scan simulated them.
PROVPOL_NODISCARD inline lvm_percent_answer recommend_lvm_percent(const lvm_autoextend_config& base,
                                                                  const lvm_dmeventd_model& m,
                                                                  const lvm_pool_workload& w, lvm_threshold threshold,
                                                                  seconds max_queued, std::uint32_t runs,
                                                                  std::uint64_t seed, std::uint32_t max_percent = 1000,
                                                                  double max_extends = 1e300) noexcept {
    lvm_percent_answer a{};
    a.threshold = static_cast<std::uint32_t>(threshold.value);
    if (max_percent == 0 || max_percent > lvm_autoextend_config::max_percent || threshold.value >= 100) return a;
    a.percent = max_percent;
    a.space = lvm_pool_space(base, w);
    if (a.space.missing() != bytes(0)) return a;
    const auto s = smallest_meeting(std::uint32_t{1}, max_percent, [&](std::uint32_t percent) {
        const lvm_plan_check k = check_lvm_plan(lvm_config_with(base, threshold, lvm_percent(percent)), m, w, runs,
                                                seed, max_queued, max_extends);
        if (k.met)
            a.at = k.seen;
        else
            detail::lvm_count_miss(a, k);
        return k.met;
    });
    // A bool predicate cannot fail: s holds the answer.
    a.plans = static_cast<std::uint32_t>(s->evaluations);
    a.met = s->found;
    a.percent = s->value;
    return a;
}

// --- a setting with a margin -------------------------------------------------------------------------------------

/// What a setting did to a burst: the target met, or the cause an operator acts on when it was missed.
enum class lvm_plan_outcome : unsigned char {
    met,       ///< lvm_target_met held over every run
    space,     ///< an extend did not fit in what was left of the VG (lvm2 grows nothing), and writes queued too long,
               ///< failed with EIO or hung
    metadata,  ///< the pool's metadata ran out (its writes failed with EIO)
    time,      ///< writes queued longer than the target, failed with EIO or hung, with the VG's space to spare: the
               ///< extends came too late or too small
    extends,   ///< nothing queued too long, but the runs took more extends on average than allowed
};

/// "met", "space", "metadata", "time", "extends".
PROVPOL_NODISCARD constexpr const char* to_text(lvm_plan_outcome o) noexcept {
    switch (o) {
        case lvm_plan_outcome::met:
            return "met";
        case lvm_plan_outcome::space:
            return "space";
        case lvm_plan_outcome::metadata:
            return "metadata";
        case lvm_plan_outcome::time:
            return "time";
        case lvm_plan_outcome::extends:
            return "extends";
    }
    return "unknown";
}

/// The outcome of a checked plan: met, or why not. The metadata first (its EIO is the metadata's, whatever else
/// happened), then the VG's space when writes suffered in a run where it ran out, then time, then extends. A VG
/// that ran out while nothing queued too long is not a miss on its own (the last extend of a burst often asks for
/// more than it needs).
PROVPOL_NODISCARD constexpr lvm_plan_outcome lvm_plan_outcome_of(const lvm_plan_check& k) noexcept {
    if (k.met) return lvm_plan_outcome::met;
    if (k.seen.metadata_full_runs != 0) return lvm_plan_outcome::metadata;
    const bool writes_suffered = k.queued_over || k.seen.eio_runs != 0 || k.seen.hung_runs != 0;
    if (writes_suffered) return k.seen.vg_exhausted_runs != 0 ? lvm_plan_outcome::space : lvm_plan_outcome::time;
    return lvm_plan_outcome::extends;
}

/// How far an answer stands from a setting that misses, in the directions an operator moves a setting to be safer:
/// every percent from the answer's P to P + percent, at every threshold from the answer's T - threshold to T (below
/// 50 a threshold acts as 50), meets. 0 and 0: the answer alone meets (the smallest setting, on whatever edge).
struct lvm_margin {
    std::uint32_t percent = 5;    ///< percents above the answer's that must meet too
    std::uint32_t threshold = 5;  ///< thresholds below the answer's that must meet too
};

/// The outcomes of (threshold, percent) settings, thresholds 50 to 99 (lvm2 acts on a threshold below 50 as on 50)
/// and percents 1 to max_percent, each evaluated at most once: the memory search_lvm_setting reads and writes, and
/// the landscape an answer is printed with. A setting is addressed by its roles, `g.at(lvm_threshold(70),
/// lvm_percent(20))`, and the outcome function it is evaluated with takes them so too.
class lvm_setting_grid {
public:
    static constexpr std::uint32_t lowest_threshold = 50;
    static constexpr std::uint32_t highest_threshold = 99;

    /// A grid of percents 1 to max_percent (at least 1).
    explicit lvm_setting_grid(std::uint32_t max_percent)
        : max_percent_(max_percent < 1 ? 1 : max_percent),
          cells_(static_cast<std::size_t>(highest_threshold - lowest_threshold + 1) * max_percent_, 0) {}

    PROVPOL_NODISCARD std::uint32_t max_percent() const noexcept { return max_percent_; }
    /// Whether (threshold, percent) lies in the grid.
    PROVPOL_NODISCARD bool holds(lvm_threshold threshold, lvm_percent percent) const noexcept {
        return threshold.value >= lowest_threshold && threshold.value <= highest_threshold && percent.value >= 1 &&
               percent.value <= max_percent_;
    }
    /// Whether the setting was evaluated.
    PROVPOL_NODISCARD bool known(lvm_threshold threshold, lvm_percent percent) const noexcept {
        return holds(threshold, percent) && cells_[index(threshold, percent)] != 0;
    }
    /// The setting's outcome; requires known(threshold, percent).
    PROVPOL_NODISCARD lvm_plan_outcome at(lvm_threshold threshold, lvm_percent percent) const noexcept {
        return static_cast<lvm_plan_outcome>(cells_[index(threshold, percent)] - 1);
    }
    /// Records an outcome; requires holds(threshold, percent).
    void set(lvm_threshold threshold, lvm_percent percent, lvm_plan_outcome o) noexcept {
        unsigned char& c = cells_[index(threshold, percent)];
        if (c == 0) ++evaluated_;
        c = static_cast<unsigned char>(static_cast<unsigned char>(o) + 1);
    }
    /// The settings evaluated.
    PROVPOL_NODISCARD std::uint64_t evaluated() const noexcept { return evaluated_; }

    /// The outcome of (threshold, percent): the grid's when known, else outcome(threshold, percent), recorded.
    template <class Outcome>
    lvm_plan_outcome get(lvm_threshold threshold, lvm_percent percent, Outcome&& outcome) {
        if (known(threshold, percent)) return at(threshold, percent);
        const lvm_plan_outcome o = outcome(threshold, percent);
        set(threshold, percent, o);
        return o;
    }

private:
    PROVPOL_NODISCARD std::size_t index(lvm_threshold threshold, lvm_percent percent) const noexcept {
        return static_cast<std::size_t>(threshold.value - lowest_threshold) * max_percent_ +
               static_cast<std::size_t>(percent.value - 1);
    }
    std::uint32_t max_percent_;
    std::vector<unsigned char> cells_;  // 0: not evaluated; else 1 + the outcome
    std::uint64_t evaluated_ = 0;
};

/// A setting's box: thresholds max(50, threshold - m.threshold) to threshold, percents percent to percent +
/// m.percent.
struct lvm_setting_box {
    std::uint32_t threshold_low = 0, threshold_high = 0, percent_low = 0, percent_high = 0;
};

/// The box of margin m around (threshold, percent), both within the grid's ranges.
PROVPOL_NODISCARD constexpr lvm_setting_box lvm_box_of(lvm_threshold at_threshold, lvm_percent at_percent,
                                                       lvm_margin m) noexcept {
    const auto threshold = static_cast<std::uint32_t>(at_threshold.value);
    const auto percent = static_cast<std::uint32_t>(at_percent.value);
    const std::uint32_t lowest = lvm_setting_grid::lowest_threshold;
    const std::uint32_t low = threshold >= lowest + m.threshold ? threshold - m.threshold : lowest;
    return {low < threshold ? low : threshold, threshold, percent, percent + m.percent};
}

/// The first setting of the box of margin m around (threshold, percent) that misses, threshold by threshold from
/// the answer's down and percent by percent up, each evaluated through the grid; met when none does.
struct lvm_box_check {
    lvm_plan_outcome outcome = lvm_plan_outcome::met;
    std::uint32_t threshold = 0, percent = 0;  ///< the setting that missed (when outcome is not met)
    bool outside = false;  ///< the box leaves the grid (a percent above its max_percent): not checked
};

template <class Outcome>
PROVPOL_NODISCARD lvm_box_check check_lvm_box(lvm_setting_grid& g, lvm_threshold threshold, lvm_percent percent,
                                              lvm_margin m, Outcome&& outcome) {
    lvm_box_check k;
    const lvm_setting_box b = lvm_box_of(threshold, percent, m);
    if (!g.holds(lvm_threshold(b.threshold_low), lvm_percent(b.percent_low)) ||
        !g.holds(lvm_threshold(b.threshold_high), lvm_percent(b.percent_high))) {
        k.outside = true;
        return k;
    }
    for (std::uint32_t t = b.threshold_high; t + 1 > b.threshold_low; --t)
        for (std::uint32_t p = b.percent_low; p <= b.percent_high; ++p)
            if (const lvm_plan_outcome o = g.get(lvm_threshold(t), lvm_percent(p), outcome); o != lvm_plan_outcome::met)
                return {o, t, p, false};
    return k;
}

/// What search_lvm_setting found.
struct lvm_setting_answer {
    std::uint32_t threshold = 0;    ///< the answer's threshold (when found)
    std::uint32_t percent = 0;      ///< the answer's percent (when found)
    bool found = false;             ///< a box in the range meets throughout
    std::uint32_t top = 0;          ///< the highest threshold searched
    std::uint64_t evaluations = 0;  ///< settings evaluated by this search (not those the grid already knew)
};

/// The setting with a margin: T, the highest threshold in [50, top] for which a percent P in [1, g.max_percent() -
/// m.percent] has every setting of its box meeting (every threshold from max(50, T - m.threshold) to T at every
/// percent from P to P + m.percent), and P the smallest such percent at T. The threshold first: a lower threshold
/// keeps more of every pool free all the time (lvm.conf is global), while the percent is taken only when a burst
/// comes. Thresholds are tried from top down; at each, the percents from 1 up (smallest_meeting_window over the
/// column "every threshold of the box meets at this percent"), so every threshold above T has no meeting box and
/// every percent below P at T has a setting in its box that was evaluated and missed: the answer is the contract's
/// definition whatever the shape of the outcomes (they are not monotone in either). Each setting is evaluated once
/// (through the grid, which keeps the outcomes for the landscape). Not found when no threshold in [50, top] has a
/// box. top is clamped to [50, 99]; `bottom` (at least 50) ends the thresholds tried earlier, for an operator who
/// fixes the threshold (bottom = top): the rows of a box still reach down to max(50, T - m.threshold).
template <class Outcome>
PROVPOL_NODISCARD lvm_setting_answer search_lvm_setting(std::uint32_t top, lvm_margin m, lvm_setting_grid& g,
                                                        Outcome&& outcome,
                                                        std::uint32_t bottom = lvm_setting_grid::lowest_threshold) {
    lvm_setting_answer a;
    const std::uint32_t lowest = lvm_setting_grid::lowest_threshold;
    a.top = top < lowest                                ? lowest
            : top > lvm_setting_grid::highest_threshold ? lvm_setting_grid::highest_threshold
                                                        : top;
    const std::uint64_t before = g.evaluated();
    if (m.percent >= g.max_percent()) return a;
    for (std::uint32_t t = a.top; t >= lowest && t >= bottom; --t) {
        const lvm_setting_box rows = lvm_box_of(lvm_threshold(t), lvm_percent(1), m);
        const auto column_meets = [&](std::uint32_t p) {
            for (std::uint32_t r = rows.threshold_high; r + 1 > rows.threshold_low; --r)
                if (g.get(lvm_threshold(r), lvm_percent(p), outcome) != lvm_plan_outcome::met) return false;
            return true;
        };
        // A bool predicate cannot fail: the answer is held.
        const auto w = smallest_meeting_window(std::uint32_t{1}, g.max_percent(), m.percent, column_meets);
        if (w->found) {
            a.threshold = t;
            a.percent = w->value;
            a.found = true;
            break;
        }
    }
    a.evaluations = g.evaluated() - before;
    return a;
}

/// One pool's burst for a setting search: its configuration (the extent, the chunk; threshold and percent are
/// replaced by each setting tried) and the burst into it.
struct lvm_pool_case {
    lvm_autoextend_config base;
    lvm_pool_workload work;
};

/// What one setting did to every case at every seed: met, or the first miss (cases in order, each at seeds seed,
/// seed + 1, ... in turn).
struct lvm_setting_check {
    lvm_plan_outcome outcome = lvm_plan_outcome::met;
    std::size_t failed_case = 0;    ///< the case that missed (when outcome is not met)
    std::uint64_t failed_seed = 0;  ///< at this seed
    lvm_plan_check check;           ///< the plan that missed, as check_lvm_plan stopped it
};

/// seed + k, wrapping past 2^64 - 1 to 0 (the seeds an answer is checked at).
PROVPOL_NODISCARD PROVPOL_MODULAR_ARITHMETIC constexpr std::uint64_t lvm_nth_seed(std::uint64_t seed,
                                                                                  std::uint64_t k) noexcept {
    return seed + k;
}

/// The setting (threshold, percent) held to lvm_target_met(max_queued, max_extends) over `runs` runs at each of
/// `seeds` seeds from `seed`, for every case: the pools of one VG (lvm.conf's setting is global), the rates a burst
/// may have, the worst data the pools' Data% allows. Met only when every plan meets; a miss stops the check there
/// (check_lvm_plan). threshold and percent within lvm_autoextend_config::make's ranges.
PROVPOL_NODISCARD inline lvm_setting_check check_lvm_setting(const std::vector<lvm_pool_case>& cases,
                                                             const lvm_dmeventd_model& m, lvm_threshold threshold,
                                                             lvm_percent percent, seconds max_queued,
                                                             std::uint32_t runs, std::uint64_t seed,
                                                             std::uint32_t seeds, double max_extends = 1e300) noexcept {
    lvm_setting_check out;
    for (std::size_t i = 0; i < cases.size(); ++i)
        for (std::uint32_t j = 0; j < seeds; ++j) {
            const std::uint64_t s = lvm_nth_seed(seed, j);
            const lvm_plan_check k = check_lvm_plan(lvm_config_with(cases[i].base, threshold, percent), m,
                                                    cases[i].work, runs, s, max_queued, max_extends);
            if (!k.met) return {lvm_plan_outcome_of(k), i, s, k};
        }
    return out;
}

/// What recommend_lvm_horizon finds.
struct lvm_horizon_answer {
    std::uint32_t horizon = 0;  ///< the smallest horizon (whole seconds) that meets; max_horizon when none does
    bool met = false;           ///< a horizon in [1, max_horizon] meets the target
    lvm_plan_summary at;        ///< every run at `horizon` when met (empty otherwise)
    std::uint32_t plans = 0;    ///< horizons simulated: 1 to `horizon` (all of them when none meets)
    /// Of the horizons that missed: how many had a run that queued too long, failed with EIO or hung, took too many
    /// extends on average, was cut by the VG's free space, or ran the metadata out.
    std::uint32_t missed_queued = 0, missed_eio = 0, missed_hung = 0, missed_extends = 0, missed_vg = 0;
    std::uint32_t missed_metadata = 0;
    lvm_space space;  ///< the burst's space; when space.missing() is not 0 nothing was simulated
};

/// The smallest horizon in whole seconds in [1, max_horizon] under which the rate-aware extender with settings `s`
/// (their horizon replaced), sampling every `interval`, meets lvm_target_met over `runs` runs from `seed`: no run
/// queues writes longer than max_queued, none fails with EIO or hangs, and the runs take at most max_extends
/// extends on average. Every horizon from 1 up is tried in turn (smallest_meeting), so each below the answer was
/// simulated and missed: a longer horizon means fewer, larger extends, which the caps can cut, so the target is not
/// assumed monotone. `met` is false when none meets, and at once when the burst cannot fit in the pool and the VG
/// (lvm_pool_space), or when the settings or the interval are not valid.
PROVPOL_NODISCARD inline lvm_horizon_answer recommend_lvm_horizon(
    const lvm_autoextend_config& c, const lvm_dmeventd_model& m, const lvm_pool_workload& w, lvm_rate_aware_settings s,
    seconds interval, seconds max_queued, std::uint32_t runs, std::uint64_t seed, std::uint32_t max_horizon = 3600,
    double max_extends = 1e300) noexcept {
    lvm_horizon_answer a{};
    a.horizon = max_horizon;
    a.space = lvm_pool_space(c, w);
    if (max_horizon == 0 || max_horizon > 86400 || a.space.missing() != bytes(0)) return a;
    const auto found = smallest_meeting(std::uint32_t{1}, max_horizon, [&](std::uint32_t h) -> result<bool> {
        s.horizon = seconds(static_cast<double>(h));
        const auto cfg = lvm_rate_aware_config::make(s);
        if (!cfg) return unexpected(cfg.error());
        const auto x = lvm_extender::make_rate_aware(*cfg, interval);
        if (!x) return unexpected(x.error());
        const lvm_plan_check k = check_lvm_plan(c, m, w, runs, seed, max_queued, max_extends, *x);
        if (k.met) {
            a.at = k.seen;
            return true;
        }
        detail::lvm_count_miss(a, k);
        return false;
    });
    if (!found) return a;  // invalid settings: nothing meets
    a.plans = static_cast<std::uint32_t>(found->evaluations);
    a.met = found->found;
    a.horizon = found->value;
    return a;
}

/// How an answer holds at other seeds (each seed's runs share none with another's).
struct lvm_seed_check {
    std::uint32_t seeds = 0;        ///< seeds checked: seed to seed + seeds - 1
    std::uint32_t meets_at = 0;     ///< how many of them `percent` meets at
    std::uint32_t percent_all = 0;  ///< the smallest percent that meets at every one of them (when found_all)
    bool found_all = false;         ///< a percent in [percent, max_percent] meets at every seed
    std::uint32_t plans = 0;        ///< plans simulated for this check
};

/// Percent `answer`, the smallest that meets at `seed` (recommend_lvm_percent's answer), held to the same target
/// at seeds seed to seed + seeds - 1 (`runs` runs each), and the smallest percent that meets at every one of them:
/// a percent below `answer` misses at `seed`, so the scan (smallest_meeting) starts there. The threshold and the
/// percent are taken by their roles (lvm_threshold, lvm_percent), as lvm_config_with takes them.
PROVPOL_NODISCARD inline lvm_seed_check check_lvm_percent_seeds(
    const lvm_autoextend_config& base, const lvm_dmeventd_model& m, const lvm_pool_workload& w, lvm_threshold threshold,
    lvm_percent answer, seconds max_queued, std::uint32_t runs, std::uint64_t seed, std::uint32_t seeds,
    std::uint32_t max_percent = 1000, double max_extends = 1e300) noexcept {
    lvm_seed_check k{};
    k.seeds = seeds;
    const auto meets_at = [&](std::uint32_t p, std::uint64_t s) {
        ++k.plans;
        return check_lvm_plan(lvm_config_with(base, threshold, lvm_percent(p)), m, w, runs, s, max_queued, max_extends)
            .met;
    };
    if (seeds == 0 || answer.value == 0 || answer.value > max_percent ||
        max_percent > lvm_autoextend_config::max_percent || threshold.value >= 100)
        return k;
    const auto percent = static_cast<std::uint32_t>(answer.value);  // <= max_percent
    for (std::uint32_t j = 0; j < seeds; ++j) k.meets_at += meets_at(percent, seed + j) ? 1u : 0u;
    if (k.meets_at == seeds) {
        k.found_all = true;
        k.percent_all = percent;
        return k;
    }
    const auto s = smallest_meeting(percent + 1, max_percent, [&](std::uint32_t p) {
        for (std::uint32_t j = 0; j < seeds; ++j)
            if (!meets_at(p, seed + j)) return false;
        return true;
    });
    k.found_all = s->found;
    k.percent_all = s->value;
    return k;
}

}  // namespace provpol

#endif  // PROVPOL_SIMULATE_LVM_RECOMMEND_HPP
