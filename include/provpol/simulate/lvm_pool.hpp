// provpol/simulate/lvm_pool.hpp - when LVM's autoextend runs and what a write burst does to a thin pool: dmeventd's
// timing as a model (lvm_dmeventd_model: the kernel's low-water event, the 10 s poll with its 5% steps, one
// lvextend at a time with its service time, the back-off of a failing command), a thin pool that writers fill
// (simulate_lvm_run: extends, times full, seconds writes were queued, EIO after no_space_timeout, the VG
// running out) and the summary over runs (simulate_lvm_plan). The decision each lvextend takes is
// extend/lvm.hpp's decide_lvm_autoextend, exact to lvm2.
//
// Sources (lvm2 2.03.16, Linux 6.1):
//   daemons/dmeventd/plugins/thin/dmeventd_thin.c  process_event: a device event (the kernel's low-water
//       event) runs the policy at once; the timeout path (every 10 s, DM_EVENT_DEFAULT_TIMEOUT in
//       libdevmapper-event.h) runs it only when data usage is above 50% and above the check level, which then
//       moves to the next 5% step above usage (CHECK_STEP), capped just under 100%; a pool whose size changed
//       starts again at 50% with its failures cleared; a failing command is retried after 1, 2, 4 ... up to
//       256 polls (MAX_FAILS).
//   daemons/dmeventd/dmeventd.c  one thread per device: a poll that falls while the thread runs a command is
//       skipped ("Skipping SIGALRM"), a device event that falls then is handled when the command returns.
//   lib/thin/thin.c  the low-water mark: blocks x (100 - threshold) / 100 free blocks, 0 when disabled.
//   drivers/md/dm-thin.c  check_low_water_mark: the event is sent when a block is allocated with at most
//       that many blocks free, once per table load; a full pool queues writes (error_if_no_space off, lvm2's
//       default --errorwhenfull n) and fails them with EIO after no_space_timeout (module parameter, 60 s).
// The service time of lvextend is this model's only measured number: see docs/lvm.md for how lvm-dmeventd's
// was calibrated.
//
// SPDX-License-Identifier: MIT
#ifndef PROVPOL_SIMULATE_LVM_POOL_HPP
#define PROVPOL_SIMULATE_LVM_POOL_HPP

#include "../bytes.hpp"
#include "../config.hpp"
#include "../error.hpp"
#include "../extend/lvm.hpp"
#include "../random.hpp"
#include "../registry.hpp"
#include "../result.hpp"
#include "../text.hpp"
#include "../time.hpp"

#include <cstdint>

namespace provpol {

/// dmeventd and dm-thin's timing, validated.
class lvm_dmeventd_model {
public:
    /// lvextend's service time is uniform in [lvextend_min, lvextend_max] (0 < min <= max <= 3600 s): from the
    /// moment dmeventd starts the command to the new table being live; it reads the pool's status at
    /// `status_read_fraction` (0-1) of that. The poll interval is 0.1-3600 s; no_space_timeout 0-86400 s (0:
    /// writes queue forever). Errors name the setting, the value and the range, times in seconds:
    /// lvm_dmeventd_model::make(200_ms, 550_ms, 0.55, 10_s, 60_s).
    PROVPOL_NODISCARD static constexpr result<lvm_dmeventd_model> make(
        seconds lvextend_min, seconds lvextend_max, double status_read_fraction = 0.5,
        seconds poll_interval = seconds(10.0), seconds no_space_timeout = seconds(60.0)) noexcept {
        constexpr seconds hour(3600.0), day(86400.0), poll_min(0.1), zero(0.0);
        if (!(lvextend_min > zero && within(lvextend_min, zero, hour)))
            return unexpected(error::out_of_range("lvextend_min", error_value_of(lvextend_min), error_value_of(zero),
                                                  error_value_of(hour)));
        if (!within(lvextend_max, lvextend_min, hour))
            return unexpected(error::out_of_range("lvextend_max", error_value_of(lvextend_max),
                                                  error_value_of(lvextend_min), error_value_of(hour)));
        if (!(status_read_fraction >= 0.0 && status_read_fraction <= 1.0))
            return unexpected(error::out_of_range("status_read_fraction", error_value::of_real(status_read_fraction),
                                                  error_value::of_real(0.0), error_value::of_real(1.0)));
        if (!within(poll_interval, poll_min, hour))
            return unexpected(error::out_of_range("poll_interval", error_value_of(poll_interval),
                                                  error_value_of(poll_min), error_value_of(hour)));
        if (!within(no_space_timeout, zero, day))
            return unexpected(error::out_of_range("no_space_timeout", error_value_of(no_space_timeout),
                                                  error_value_of(zero), error_value_of(day)));
        return lvm_dmeventd_model(lvextend_min, lvextend_max, status_read_fraction, poll_interval, no_space_timeout);
    }

    PROVPOL_NODISCARD constexpr seconds lvextend_min() const noexcept { return min_; }
    PROVPOL_NODISCARD constexpr seconds lvextend_max() const noexcept { return max_; }
    PROVPOL_NODISCARD constexpr double status_read_fraction() const noexcept { return read_; }
    PROVPOL_NODISCARD constexpr seconds poll_interval() const noexcept { return poll_; }
    PROVPOL_NODISCARD constexpr seconds no_space_timeout() const noexcept { return nospace_; }

    /// The same model with writes failing at once on a full pool (lvcreate --errorwhenfull y).
    PROVPOL_NODISCARD constexpr lvm_dmeventd_model with_error_when_full(bool on) const noexcept {
        lvm_dmeventd_model m = *this;
        m.error_when_full_ = on;
        return m;
    }
    /// The same model without the kernel's low-water event (only the poll runs the policy).
    PROVPOL_NODISCARD constexpr lvm_dmeventd_model with_low_water_event(bool on) const noexcept {
        lvm_dmeventd_model m = *this;
        m.low_water_event_ = on;
        return m;
    }
    /// The same model with or without the device events dm-thin raises when a pool changes mode: it fills
    /// (out-of-data-space, queueing writes) and an extend returns it to writing. dmeventd runs the policy on
    /// each (seen on the real stack, tests/e2e/lvm_test.sh); on by default.
    PROVPOL_NODISCARD constexpr lvm_dmeventd_model with_mode_change_events(bool on) const noexcept {
        lvm_dmeventd_model m = *this;
        m.mode_events_ = on;
        return m;
    }
    PROVPOL_NODISCARD constexpr bool mode_change_events() const noexcept { return mode_events_; }
    /// The same model with or without the policy run again when an extend's table load raises a device event
    /// (off by default: on the real stack the reload raised none that dmeventd acted on).
    PROVPOL_NODISCARD constexpr lvm_dmeventd_model with_rerun_after_extend(bool on) const noexcept {
        lvm_dmeventd_model m = *this;
        m.rerun_ = on;
        return m;
    }
    PROVPOL_NODISCARD constexpr bool error_when_full() const noexcept { return error_when_full_; }
    PROVPOL_NODISCARD constexpr bool low_water_event() const noexcept { return low_water_event_; }
    PROVPOL_NODISCARD constexpr bool rerun_after_extend() const noexcept { return rerun_; }

private:
    constexpr lvm_dmeventd_model(seconds mn, seconds mx, double rd, seconds poll, seconds ns) noexcept
        : min_(mn), max_(mx), read_(rd), poll_(poll), nospace_(ns) {}

    seconds min_;
    seconds max_;
    double read_;
    seconds poll_;
    seconds nospace_;
    bool error_when_full_ = false;
    bool low_water_event_ = true;
    bool rerun_ = false;
    bool mode_events_ = true;
};

/// The lvm-dmeventd profile: dmeventd's 10 s poll, dm-thin's 60 s no_space_timeout, and lvextend's service
/// time, from dmeventd's trigger to the new table live, uniform in [0.2, 0.55] s, with the pool's status read
/// at 0.55 of it, calibrated on the guest e2e (tests/e2e/lvm_test.sh, lvm2 2.03.16 under QEMU's TCG): two runs
/// of 15 event-path extends measured 0.101 s to 0.539 s (medians 0.269 and 0.315 s; the status read at 0.39 to
/// 0.69 of the time, median 0.57), and of the ranges that span them [0.2, 0.55] gives the filling pool's
/// queued seconds closest to the measured 0.485 and 0.736 s (0.45 s simulated; [0.1, 0.55] gives 0.35 s).
/// docs/lvm.md says how, and why a real host's may differ.
PROVPOL_NODISCARD constexpr lvm_dmeventd_model lvm_dmeventd() noexcept {
    return lvm_dmeventd_model::make(200_ms, 550_ms, 0.55, 10_s, 60_s).value();
}

/// A burst of writes into a thin pool: every writer together (thin LVs share the pool's blocks).
struct lvm_pool_workload {
    bytes pool_size;               ///< the pool's data LV when the burst starts
    bytes pool_used{};             ///< data already in the pool
    bytes vg_free = bytes::max();  ///< the VG's free space (max: unlimited)
    bytes write;                   ///< new data written in all (each new byte takes new blocks)
    rate write_rate;               ///< bytes per second in all, while the pool has room
};

/// One run of a burst.
struct lvm_run_result {
    std::uint32_t extends = 0;           ///< lvextends that grew the pool
    std::uint32_t commands = 0;          ///< lvextend --use-policies runs, those that found nothing to do included
    std::uint32_t failed_commands = 0;   ///< runs that failed (the VG's space, percent 0)
    std::uint32_t times_full = 0;        ///< times the pool filled with data still to write
    seconds queued = seconds(0);         ///< how long writes waited on a full pool, in all
    seconds longest_queue = seconds(0);  ///< the longest of those waits
    bool eio = false;                    ///< writes failed: queued past no_space_timeout, or error-when-full
    bool hung = false;                   ///< writes still queued a day after the burst should have ended
    bool vg_exhausted = false;           ///< an extend failed for want of VG space
    bytes pool_end;                      ///< the pool's size when the run ended
    bytes vg_free_end;                   ///< the VG's free space then
    seconds ended_at = seconds(0);       ///< when the last byte was written, or writes failed
};

namespace detail {

// dmeventd_thin.c's per-pool state.
struct lvm_dso_state {
    std::int32_t check = 50 * lvm_percent_1;
    std::uint64_t known_total = 0;
    std::uint32_t fails = 0;
    std::uint32_t max_fails = 1;
};

constexpr std::int32_t lvm_check_step = 5 * lvm_percent_1;

// The low-water mark in blocks (lib/thin/thin.c): len / chunk x (100 - threshold) / 100; 0 when disabled.
constexpr std::uint64_t lvm_low_water_blocks(std::uint64_t total_blocks, std::uint32_t threshold) noexcept {
    return threshold >= 100 ? 0 : total_blocks * (100 - threshold) / 100;
}

}  // namespace detail

/// Simulates one burst into a pool under dmeventd: writes run at the workload's rate while the pool has room
/// and queue while it is full; the kernel's low-water event and the poll run lvextend --use-policies, one at a
/// time, each deciding on the pool's status at its read (decide_lvm_autoextend). The run ends when the last
/// byte is written (and the command then running returns), or at the first EIO (a filesystem on the pool
/// would shut down there). Deterministic for a seed: the poll's phase and each command's service time are
/// drawn from random_stream(seed).
PROVPOL_NODISCARD inline lvm_run_result simulate_lvm_run(const lvm_autoextend_config& c, const lvm_dmeventd_model& m,
                                                         const lvm_pool_workload& w, std::uint64_t seed) noexcept {
    random_stream rng(seed);
    lvm_run_result r{};
    r.pool_end = w.pool_size;
    r.vg_free_end = w.vg_free;
    if (w.write.count() == 0 || w.write_rate.bytes_per_second() == 0) return r;  // nothing is written
    const std::uint64_t chunk = c.pool_chunk().count();
    const double rate_bps = static_cast<double>(w.write_rate.bytes_per_second());
    std::uint64_t size = w.pool_size.count();
    std::uint64_t total = size / chunk;
    bytes vg_free = w.vg_free;
    double written = static_cast<double>(w.pool_used.count());
    const double target = written + static_cast<double>(w.write.count());
    const double expected_end = rate_bps > 0.0 ? static_cast<double>(w.write.count()) / rate_bps : 0.0;
    const double give_up = expected_end + 86400.0;

    std::uint64_t lwm = detail::lvm_low_water_blocks(total, c.threshold_percent());
    bool armed = m.low_water_event() && c.enabled();
    detail::lvm_dso_state dso{};
    dso.known_total = total;
    double next_poll = rng.uniform() * in_seconds(m.poll_interval());
    bool running = false, read_done = false, pending_event = false;
    double read_t = 0.0, done_t = 0.0;
    lvm_autoextend_decision decision{};
    bool full = false;
    double full_since = 0.0;
    double t = 0.0;

    auto used_blocks = [&]() -> std::uint64_t {
        const double b = written / static_cast<double>(chunk);
        const auto u = static_cast<std::uint64_t>(b);
        const std::uint64_t up = static_cast<double>(u) < b ? u + 1 : u;
        return up < total ? up : total;
    };
    auto start_command = [&]() {
        running = true;
        read_done = false;
        const double s = in_seconds(m.lvextend_min() + (m.lvextend_max() - m.lvextend_min()) * rng.uniform());
        read_t = t + s * m.status_read_fraction();
        done_t = t + s;
    };
    // The timeout path of process_event, from its usage checks to the back-off (dmeventd_thin.c).
    auto poll = [&]() {
        if (dso.known_total != total) {
            dso.check = 50 * lvm_percent_1;
            dso.known_total = total;
            dso.fails = 0;
        }
        const std::int32_t usage = lvm_usage(used_blocks(), total);
        bool needs = false;
        if (usage > 50 * lvm_percent_1) {
            needs = usage > dso.check;
            dso.check = (usage / detail::lvm_check_step + 1) * detail::lvm_check_step;
            if (dso.check == lvm_percent_100) --dso.check;
        } else {
            dso.check = 50 * lvm_percent_1;
        }
        if (dso.fails != 0) {
            if (dso.fails++ <= dso.max_fails) return;
            if (dso.max_fails < 256) dso.max_fails <<= 1;
            dso.fails = 1;
            needs = true;
        } else {
            dso.max_fails = 1;
        }
        if (needs) start_command();
    };

    for (;;) {
        const bool writing = written < target && !full && !r.eio;
        if (!writing && !running && written >= target) break;
        if (r.eio) break;
        if (t > give_up) {
            r.hung = true;
            break;
        }
        // The next thing to happen.
        double next = next_poll;
        int what = 0;  // 0 poll, 1 read, 2 done, 3 low water, 4 full, 5 written, 6 EIO deadline
        auto consider = [&](double at, int kind) {
            if (at < next) {
                next = at;
                what = kind;
            }
        };
        if (running) consider(read_done ? done_t : read_t, read_done ? 2 : 1);
        if (writing && rate_bps > 0.0) {
            const double cap = static_cast<double>(total) * static_cast<double>(chunk);
            if (armed && total > lwm) {
                const double level = static_cast<double>(total - lwm) * static_cast<double>(chunk);
                consider(written >= level ? t : t + (level - written) / rate_bps, 3);
            }
            if (cap < target) consider(written >= cap ? t : t + (cap - written) / rate_bps, 4);
            consider(t + (target - written) / rate_bps, 5);
        }
        if (full && !m.error_when_full() && m.no_space_timeout() > seconds(0.0))
            consider(full_since + in_seconds(m.no_space_timeout()), 6);
        if (next < t) next = t;
        if (writing) {
            written += rate_bps * (next - t);
            if (written > target) written = target;
        }
        t = next;
        switch (what) {
            case 0:
                next_poll += in_seconds(m.poll_interval());
                if (!running) poll();  // a busy thread skips the alarm
                break;
            case 1: {
                read_done = true;
                lvm_volume_state s{};
                s.size = bytes(size);
                s.used = used_blocks();
                s.total = total;
                s.vg_free = vg_free;
                decision = decide_lvm_autoextend(c, s);
                break;
            }
            case 2:
                running = false;
                ++r.commands;
                if (decision.outcome == lvm_outcome::extend) {
                    ++r.extends;
                    size = decision.new_size.count();
                    total = size / chunk;
                    if (vg_free != bytes::max())
                        vg_free = saturating_sub(vg_free, decision.vg_needed);  // max: unlimited
                    lwm = detail::lvm_low_water_blocks(total, c.threshold_percent());
                    armed = m.low_water_event() && c.enabled();
                    if (full && written < static_cast<double>(total) * static_cast<double>(chunk)) {
                        const double q = t - full_since;
                        r.queued += seconds(q);
                        if (seconds(q) > r.longest_queue) r.longest_queue = seconds(q);
                        full = false;
                        if (m.mode_change_events()) pending_event = true;  // back to writing: a device event
                    }
                    dso.fails = 0;
                    if (m.rerun_after_extend()) pending_event = true;
                } else if (failed(decision.outcome)) {
                    ++r.failed_commands;
                    if (decision.outcome == lvm_outcome::fails_vg_space) r.vg_exhausted = true;
                    // _use_policy sets fails; process_event then reads the status again and postpones.
                    dso.fails = 1;
                    poll();
                } else {
                    dso.fails = 0;
                }
                if (pending_event && !running) {
                    pending_event = false;
                    start_command();
                }
                break;
            case 3:
                armed = false;  // once per table load
                if (running)
                    pending_event = true;
                else
                    start_command();
                break;
            case 4:
                written = static_cast<double>(total) * static_cast<double>(chunk);  // no rounding left behind
                full = true;
                full_since = t;
                ++r.times_full;
                if (m.error_when_full()) {
                    r.eio = true;
                    r.ended_at = seconds(t);
                } else if (m.mode_change_events()) {  // out-of-data-space: a device event
                    if (running)
                        pending_event = true;
                    else
                        start_command();
                }
                break;
            case 5:
                written = target;
                r.ended_at = seconds(t);
                break;
            case 6: {
                const double q = t - full_since;
                r.queued += seconds(q);
                if (seconds(q) > r.longest_queue) r.longest_queue = seconds(q);
                r.eio = true;
                r.ended_at = seconds(t);
                break;
            }
            default:
                break;
        }
    }
    if (r.hung) {
        const double q = t - full_since;
        r.queued += seconds(q);
        if (seconds(q) > r.longest_queue) r.longest_queue = seconds(q);
        r.ended_at = seconds(t);
    }
    r.pool_end = bytes(size);
    r.vg_free_end = vg_free;
    return r;
}

/// What runs of a burst show together.
struct lvm_plan_summary {
    std::uint32_t runs = 0;
    double extends_mean = 0.0;
    double commands_mean = 0.0;
    double times_full_mean = 0.0;
    seconds queued_mean = seconds(0);
    seconds queued_max = seconds(0);  ///< the most any run queued
    std::uint32_t queued_runs = 0;    ///< runs that queued at all
    std::uint32_t eio_runs = 0;       ///< runs whose writes failed (EIO)
    std::uint32_t hung_runs = 0;      ///< runs whose writes never completed (no_space_timeout 0)
    std::uint32_t vg_exhausted_runs = 0;
    bytes pool_end_max;  ///< the largest the pool ended at
    bytes vg_free_end_min = bytes::max();
    seconds ended_at_mean = seconds(0);
};

/// Runs simulate_lvm_run `runs` times, run i with seed + i, and adds them up in run order.
PROVPOL_NODISCARD inline lvm_plan_summary simulate_lvm_plan(const lvm_autoextend_config& c, const lvm_dmeventd_model& m,
                                                            const lvm_pool_workload& w, std::uint32_t runs,
                                                            std::uint64_t seed) noexcept {
    lvm_plan_summary s{};
    for (std::uint32_t i = 0; i < runs; ++i) {
        const lvm_run_result r = simulate_lvm_run(c, m, w, seed + i);
        ++s.runs;
        s.extends_mean += r.extends;
        s.commands_mean += r.commands;
        s.times_full_mean += r.times_full;
        s.queued_mean += r.queued;
        if (r.queued > s.queued_max) s.queued_max = r.queued;
        if (r.queued > seconds(0)) ++s.queued_runs;
        if (r.eio) ++s.eio_runs;
        if (r.hung) ++s.hung_runs;
        if (r.vg_exhausted) ++s.vg_exhausted_runs;
        if (r.pool_end > s.pool_end_max) s.pool_end_max = r.pool_end;
        if (r.vg_free_end < s.vg_free_end_min) s.vg_free_end_min = r.vg_free_end;
        s.ended_at_mean += r.ended_at;
    }
    if (runs != 0) {
        const auto n = static_cast<double>(runs);
        s.extends_mean /= n;
        s.commands_mean /= n;
        s.times_full_mean /= n;
        s.queued_mean /= n;
        s.ended_at_mean /= n;
    }
    return s;
}

/// What recommend_lvm_percent finds at one threshold.
struct lvm_percent_answer {
    std::uint32_t threshold = 0;  ///< the threshold searched (a whole percent, 50-99)
    std::uint32_t percent = 0;    ///< the smallest percent found to meet the target, or max_percent when none does
    bool met = false;             ///< the target is met at `percent`
    lvm_plan_summary at;          ///< the runs at `percent`
};

/// True when no run queued writes longer than max_queued, none failed or hung, and the runs took at most
/// max_extends extends on average (each lvextend suspends the pool and commits the VG's metadata: an extend
/// storm stalls I/O even when nothing queues).
PROVPOL_NODISCARD constexpr bool lvm_target_met(const lvm_plan_summary& s, seconds max_queued,
                                                double max_extends = 1e300) noexcept {
    return s.queued_max <= max_queued && s.eio_runs == 0 && s.hung_runs == 0 && s.extends_mean <= max_extends;
}

/// The smallest autoextend percent in [1, max_percent] under which, at `threshold`, no run of the workload
/// queues writes longer than max_queued, none fails with EIO, and the runs take at most max_extends extends
/// on average (lvm_target_met). Binary search over the percent, which assumes a larger percent never queues
/// longer nor extends more often; that holds while the VG has room (a larger extend lands no later and leaves
/// more space), and the answer is checked where it is found (`met` says whether it holds there). With a VG too
/// small for the burst a larger percent can fail sooner: plan such a pool with simulate_lvm_plan.
PROVPOL_NODISCARD inline lvm_percent_answer recommend_lvm_percent(const lvm_autoextend_config& base,
                                                                  const lvm_dmeventd_model& m,
                                                                  const lvm_pool_workload& w, std::uint32_t threshold,
                                                                  seconds max_queued, std::uint32_t runs,
                                                                  std::uint64_t seed, std::uint32_t max_percent = 1000,
                                                                  double max_extends = 1e300) noexcept {
    auto config_at = [&](std::uint32_t percent) {
        return lvm_autoextend_config::make(threshold, percent, base.extent(), base.pool_chunk(), base.kind(),
                                           base.vdo_slab())
            .value();  // threshold and percent are in range: make() cannot fail here
    };
    lvm_percent_answer a{};
    a.threshold = threshold;
    if (max_percent == 0 || max_percent > lvm_autoextend_config::max_percent || threshold >= 100) return a;
    a.at = simulate_lvm_plan(config_at(max_percent), m, w, runs, seed);
    a.percent = max_percent;
    if (!lvm_target_met(a.at, max_queued, max_extends)) return a;
    a.met = true;
    std::uint32_t lo = 0, hi = max_percent;  // hi meets the target; lo does not (0 is never tried)
    while (hi - lo > 1) {
        const std::uint32_t mid = lo + (hi - lo) / 2;
        const lvm_plan_summary s = simulate_lvm_plan(config_at(mid), m, w, runs, seed);
        if (lvm_target_met(s, max_queued, max_extends)) {
            hi = mid;
            a.at = s;
        } else {
            lo = mid;
        }
    }
    a.percent = hi;
    if (hi != max_percent) a.at = simulate_lvm_plan(config_at(hi), m, w, runs, seed);
    a.met = lvm_target_met(a.at, max_queued, max_extends);
    return a;
}

}  // namespace provpol

#endif  // PROVPOL_SIMULATE_LVM_POOL_HPP
