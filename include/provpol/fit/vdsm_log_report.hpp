// provpol/fit/vdsm_log_report.hpp - what the VDSM log fit (fit/vdsm_log_fit.hpp) reads and reports: one extend as
// the fit reads it (vdsm_fit_sample), and the fitted model with every decision, range and mode's score
// (vdsm_log_fit).
//
// SPDX-License-Identifier: MIT
#ifndef PROVPOL_FIT_VDSM_LOG_REPORT_HPP
#define PROVPOL_FIT_VDSM_LOG_REPORT_HPP

#include "../config.hpp"
#include "../flow/clocks.hpp"
#include "../time.hpp"
#include "vdsm_log_parse.hpp"

#include <cstddef>
#include <cstdint>

namespace provpol {

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
    seconds min{}, max{};
    bool mean_kept = false;  ///< the samples were skewed: [lo, 2 x mean - lo) rather than the end points
    std::size_t above = 0;   ///< log samples above max (only when mean_kept)
};

/// The marginal latency of one stage: the log's and the fitted model's.
struct vdsm_stage_fit {
    seconds log_min{}, log_mean{}, log_max{};
    seconds model_min{}, model_mean{}, model_max{};
};

/// One extend of a log as the fit reads it: the volume's timers (a replica line's own on "Extend replica").
struct vdsm_fit_sample {
    seconds wait = seconds(-1);  ///< negative: the line has no wait timer
    seconds trip{};              ///< extend-volume (extend-replica on a replica line): the mailbox round trip
    seconds refresh{};
    seconds total{};
    std::uint64_t vm = 0;  ///< which VM logged it (the caller numbers the lines' vmId)
};

/// The sample of one parsed extend line (see vdsm_fit_sample); `vm` is the caller's number for its vmId.
PROVPOL_NODISCARD constexpr vdsm_fit_sample vdsm_sample_of(const vdsm_extend_record& r, std::uint64_t vm) noexcept {
    const bool replica = r.what == vdsm_extend_record::kind::replica;
    vdsm_fit_sample s;
    s.wait = r.has(vdsm_stage::wait) ? r.get(vdsm_stage::wait) : seconds(-1);
    s.trip = r.get(replica ? vdsm_stage::extend_replica : vdsm_stage::extend_volume);
    s.refresh = r.get(replica ? vdsm_stage::refresh_replica : vdsm_stage::refresh_volume);
    s.total = r.get(vdsm_stage::total);
    s.vm = vm;
    return s;
}

/// How well one mailbox mode (a reply-poll interval) explains the log's round trips.
struct vdsm_mode_score {
    seconds poll{};                  ///< the host's reply poll and the SPM's clock
    double log_likelihood = -1e300;  ///< of the round trips under the mode's best parameters
    std::size_t unexplained = 0;     ///< round trips off the mode's lattice (or shorter than one poll)
    std::size_t stalls = 0;          ///< round trips far beyond the mode's flow, scored apart (fit/vdsm_log_stalls.hpp)
    bool valid = false;              ///< the mode gave a model at all
};

/// What the log is, as fit/vdsm_log_judge.hpp judges it (the evidence is in vdsm_log_evidence).
enum class vdsm_verdict : unsigned char {
    explained,     ///< the round trips lie on a reply-poll lattice beyond chance, and nothing refutes the flow
    too_few,       ///< too few extends to show a lattice: no evidence either way, so no model to plan with
    totals_short,  ///< totals shorter than their timers: not VDSM's Clock, whose timers lie inside its total
    no_lattice,    ///< round trips shorter than one poll, or on no reply-poll lattice: not a mailbox flow
    poll_gap,      ///< the polls skip a band one SPM cannot skip: two SPMs (or two flows) in one log
    stage_gap      ///< a service time (refresh, dispatch, monitor wait) leaves a gap one range cannot leave
};
/// "explained", "too_few", "totals_short", "no_lattice", "poll_gap" or "stage_gap".
PROVPOL_NODISCARD constexpr const char* to_text(vdsm_verdict e) noexcept {
    constexpr const char* names[] = {"explained", "too_few", "totals_short", "no_lattice", "poll_gap", "stage_gap"};
    static_assert(sizeof(names) / sizeof(names[0]) == static_cast<std::size_t>(vdsm_verdict::stage_gap) + 1,
                  "a name each");
    return detail::enum_name(names, e);
}

/// The evidence behind the verdict (fit/vdsm_log_judge.hpp). A chance is a bound on the probability of evidence
/// at least this strong where the log's claim is false, as log10 (-30: 1e-30), Bonferroni-corrected; 0 = none.
struct vdsm_log_evidence {
    std::size_t allowance = 0;     ///< extends any one check may leave out as outliers: n / 50, at most 20
    std::size_t short_totals = 0;  ///< totals shorter than wait + round trip + refresh by more than the rounding
    std::size_t below_poll = 0;    ///< round trips shorter than one reply poll of the chosen mode
    // The lattice: the arc of the poll (cells of 0.01 s) that holds the most round trips beyond chance.
    std::size_t on_lattice = 0;      ///< round trips in the arc
    std::size_t trips = 0;           ///< round trips of at least one poll (those the lattice can hold)
    seconds arc_start{}, arc_end{};  ///< the arc: the reply read after the poll, as logged
    double lattice_chance = 0.0;     ///< log10 bound on the chance of such an arc without a lattice
    std::size_t min_extends = 0;     ///< the fewest extends that show a lattice of VDSM's 0.05-0.12 s reads here
    // The polls' gap: the band of polls one SPM fills (k from band_lo to band_hi), and what the log holds there.
    std::uint64_t band_lo = 0, band_hi = 0;
    std::size_t band_count = 0, band_trips = 0;
    double band_share = 0.0;   ///< the least share of round trips one SPM puts in the band
    double band_chance = 0.0;  ///< log10 bound on the chance of so few there with one SPM
    // The service times' gap: the widest empty span inside a fitted range.
    vdsm_stage gap_stage = vdsm_stage::total;  ///< which (wait, refresh-volume); total: none tested
    seconds gap_from{}, gap_to{};
    double gap_chance = 0.0;  ///< log10 bound on the chance of such a span inside one uniform range
};

/// One timer's stalls: how many extends stalled there, and the range of their values as logged.
struct vdsm_stall_values {
    std::size_t count = 0;
    seconds min{}, max{};
};

/// The stalls the fit found (fit/vdsm_log_stalls.hpp): extends far beyond the flow, modelled beside it.
struct vdsm_stalls {
    vdsm_stall_values total;                                       ///< the stalled extends (each once) and their totals
    vdsm_stall_values wait, extend_volume, refresh_volume, other;  ///< by the timer beyond the flow's reach
    double share = 0.0;                ///< total.count / samples: the model's stall probability
    seconds added_min{}, added_max{};  ///< the time a stall adds to the flow (beyond its timers' means)
    std::size_t cases = 0;             ///< the model's stall cases (one per stall up to 32)
};

/// A flow model fitted to a VDSM log, and what the fit decided (see fit/vdsm_log_fit.hpp).
struct vdsm_log_fit {
    static constexpr std::size_t mode_count = 6;
    /// The reply-poll intervals scored: VDSM's events_interval (0.5 s default; 0.2 s was tried in PR #103),
    /// its 2 s monitorInterval, and multiples a configuration may set.
    static constexpr seconds polls[mode_count] = {seconds(0.2), seconds(0.25), seconds(0.5),
                                                  seconds(1.0), seconds(2.0),  seconds(4.0)};

    flow_latency model;      ///< the flow fitted to the extends that are not stalls, and the stalls as its stall cases
    bool explained = false;  ///< verdict == explained: the model may be planned with; otherwise callers say why
    vdsm_verdict verdict = vdsm_verdict::too_few;
    vdsm_log_evidence evidence;
    vdsm_detection detection = vdsm_detection::none;
    vdsm_fitted_range monitor_period;            ///< monitor: its period is max (min is 0)
    vdsm_fitted_range dispatch;                  ///< event: the event's dispatch time
    bool mailbox_events = false;                 ///< the round trips show mailbox events (a poll under 2 s)
    seconds poll_interval{};                     ///< the host's reply poll (and the SPM's event check or scan)
    seconds spm_cycle{};                         ///< the SPM's clock: poll_interval plus its drift
    std::uint64_t polls_min = 0, polls_max = 0;  ///< the fewest and most reply polls a round trip took
    std::size_t below_first_poll = 0;            ///< round trips shorter than one poll: not explained by the mode
    std::size_t trip_outliers = 0;               ///< round trips off the mode's lattice, left out of the fit
    vdsm_fitted_range spm_work, inbox_read, refresh;
    bool has_other = false;   ///< the totals hold time beyond wait + round trip + refresh (more than rounding)
    vdsm_fitted_range other;  ///< that time, as a delay
    vdsm_stage_fit wait, extend_volume, refresh_volume, total;
    vdsm_stalls stalls;  ///< extends far beyond the flow: the model's stall component
    std::size_t samples = 0, vms = 0;
    vdsm_mode_score modes[mode_count];
};

}  // namespace provpol

#endif  // PROVPOL_FIT_VDSM_LOG_REPORT_HPP
